//! Loading the schema folder a macro names, with errors that point at the macro call and
//! name the schema file, line and key.

use std::path::PathBuf;

use hk_runtime::Schema;
use syn::LitStr;

use super::ctxt::Ctxt;

/// Loads the folder `path` (relative to the calling crate's manifest) or records why not.
pub fn load(cx: &Ctxt, path: &LitStr) -> Option<(PathBuf, Schema)> {
    let base = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    // Relative to the calling crate's manifest, else to the nearest ancestor that has it
    // (a workspace root, or the project trybuild compiles UI tests in).
    let dir = base
        .ancestors()
        .map(|a| a.join(path.value()))
        .find(|d| d.is_dir())
        .unwrap_or_else(|| base.join(path.value()));
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
