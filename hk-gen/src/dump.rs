//! `hk dump FILE` (the object graph and container facts as JSON or TOML) and `hk build
//! DUMP` (a dump, edited or not, back into the file).

use std::path::Path;

use hk_runtime::dump;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::Status;

/// Dump formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON.
    Json,
    /// TOML.
    Toml,
    /// Havok XML (`<hkpackfile>`, packfiles only; docs/havok-xml.md).
    Xml,
}

/// The dump of `doc` as text.
///
/// # Errors
/// A dump the format cannot hold.
pub fn dump_text(doc: &hk_runtime::file::Document, format: Format) -> Result<String> {
    let json = || dump::to_json(doc);
    Ok(match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&json()).map_err(|e| Error::Dump {
                format: "JSON",
                message: e.to_string(),
            })?;
            s.push('\n');
            s
        }
        Format::Xml => dump::xml::to_xml(doc)?,
        Format::Toml => {
            toml::to_string_pretty(&dump::json_to_toml(&json())).map_err(|e| Error::Dump {
                format: "TOML",
                message: e.to_string(),
            })?
        }
    })
}

/// Prints (or writes to `out`) the dump of the file at `path`.
///
/// # Errors
/// The file does not read, or `out` cannot be written.
pub fn dump_file(
    ctx: &Context,
    path: &Path,
    format: Format,
    out: Option<&Path>,
    lenient: bool,
    o: &mut Out<'_>,
) -> Result<Status> {
    let doc = ctx.open(path, lenient)?;
    crate::info::violations(path, &doc, o)?;
    let text = dump_text(&doc, format)?;
    match out {
        Some(p) => std::fs::write(p, text).map_err(|e| Error::io(p, e))?,
        None => o.text(&text)?,
    }
    Ok(Status::Success)
}

/// Reads a dump: TOML by its `.toml` extension (or when it does not start with `{`),
/// JSON otherwise.
///
/// # Errors
/// The file cannot be read or does not parse (with line and column).
pub fn load_dump(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let is_toml =
        path.extension().is_some_and(|e| e == "toml") || !text.trim_start().starts_with('{');
    if is_toml {
        let t: toml::Value = toml::from_str(&text).map_err(|e| Error::toml(path, &text, &e))?;
        Ok(dump::toml_to_json(&t))
    } else {
        serde_json::from_str(&text).map_err(|e| Error::json(path, &e))
    }
}

/// Writes the file the dump at `dump_path` describes to `out`. A Havok XML file (one that
/// starts with `<`) builds a packfile laid out under `layout`, else the layout it names in
/// hk's namespace, else its generation's default.
///
/// # Errors
/// The dump does not parse (with line and column), names no schema the catalog has, holds
/// a value that does not fit its member (with object and member), or `out` cannot be
/// written.
pub fn build(
    ctx: &Context,
    dump_path: &Path,
    out: &Path,
    layout: Option<hk_runtime::rules::LayoutRules>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let raw = std::fs::read(dump_path).map_err(|e| Error::io(dump_path, e))?;
    let (bytes, built) = if dump::xml::is_xml(&raw) {
        let text = String::from_utf8(raw).map_err(|e| Error::Dump {
            format: "XML",
            message: format!("{}: not UTF-8: {e}", dump_path.display()),
        })?;
        dump::xml::build_xml(&text, ctx.schemas(), layout)
            .map_err(|e| Error::from(e.in_file(dump_path)))?
    } else {
        if layout.is_some() {
            return Err(Error::usage(
                "--layout applies to XML; a JSON or TOML dump states its layout in `file.layout`",
            ));
        }
        let doc = load_dump(dump_path)?;
        dump::build(&doc, ctx.schemas()).map_err(|e| Error::from(e.in_file(dump_path)))?
    };
    std::fs::write(out, &bytes).map_err(|e| Error::io(out, e))?;
    outln!(
        o,
        "wrote {} ({} bytes, {} objects, schema {})",
        out.display(),
        bytes.len(),
        built.graph.objects.len(),
        built.graph.schema().generation.name
    );
    Ok(Status::Success)
}
