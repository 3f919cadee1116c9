//! Loading the schema folder a macro names, with errors that point at the macro call and
//! name the schema file, line and key.

use std::path::{Path, PathBuf};

use hk_runtime::Schema;
use syn::LitStr;

use super::ctxt::Ctxt;

/// The folders a relative schema path is tried against, nearest first: the calling crate's
/// manifest folder and its ancestors (so a workspace-relative path works from any member);
/// then, for a binary whose source lives outside its package (trybuild compiles UI tests as
/// `[[bin]]` targets of a project under the target directory, pointing at the test files in
/// the checkout), the source file's folders, so the path resolves against the checkout
/// wherever `CARGO_TARGET_DIR` is.
fn bases() -> Vec<PathBuf> {
    let manifest =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let mut out: Vec<PathBuf> = manifest.ancestors().map(PathBuf::from).collect();
    if let Some(src) = std::env::var("CARGO_BIN_NAME")
        .ok()
        .and_then(|bin| bin_source(&manifest, &bin))
    {
        out.extend(src.ancestors().skip(1).map(PathBuf::from));
    }
    out
}

/// The source file of binary target `bin` as the package manifest in `dir` declares it.
fn bin_source(dir: &Path, bin: &str) -> Option<PathBuf> {
    use toml::de::{DeTable, DeValue};
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let manifest = DeTable::parse(&text).ok()?;
    let str_of = |v: &DeValue<'_>| match v {
        DeValue::String(s) => Some(s.to_string()),
        _ => None,
    };
    let DeValue::Array(bins) = manifest.get_ref().get("bin")?.get_ref() else {
        return None;
    };
    let path = bins.iter().find_map(|b| {
        let DeValue::Table(b) = b.get_ref() else {
            return None;
        };
        (str_of(b.get("name")?.get_ref())? == bin).then(|| str_of(b.get("path")?.get_ref()))?
    })?;
    Some(dir.join(path))
}

/// Loads the folder `path` (relative to the calling crate's manifest folder or one of its
/// ancestors, see [`bases`]; or absolute) or records why not.
pub fn load(cx: &Ctxt, path: &LitStr) -> Option<(PathBuf, Schema)> {
    let bases = bases();
    let dir = bases
        .iter()
        .map(|a| a.join(path.value()))
        .find(|d| d.is_dir())
        .unwrap_or_else(|| bases[0].join(path.value()));
    if !dir.is_dir() {
        cx.error(
            path.span(),
            format!("schema folder `{}` does not exist", path.value()),
        );
        return None;
    }
    match Schema::load(&dir) {
        Ok(s) => Some((dir, s)),
        Err(diags) => {
            for d in &diags.0 {
                let file = d.file.strip_prefix(&dir).unwrap_or(&d.file);
                let place = if d.line > 0 {
                    format!("{}:{}", file.display(), d.line)
                } else {
                    file.display().to_string()
                };
                let key = if d.key.is_empty() {
                    String::new()
                } else {
                    format!(" `{}`", d.key)
                };
                cx.error(
                    path.span(),
                    format!("schema error at {place}{key}: {}", d.message),
                );
            }
            None
        }
    }
}

/// Every file the schema was read from, so the caller rebuilds when one changes.
pub fn files(dir: &std::path::Path, schema: &Schema) -> Vec<String> {
    std::iter::once(dir.join("generation.toml"))
        .chain(schema.classes().iter().map(|c| c.origin.file.clone()))
        .filter(|p| p.is_file())
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}
