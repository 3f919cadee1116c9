//! `hk dump FILE` (the object graph and container facts as JSON or TOML) and `hk build
//! DUMP` (a dump, edited or not, back into the file).

use std::io::{BufWriter, Write};
use std::path::Path;

use hk_runtime::dump;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::outputs::Outputs;
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

/// The dialects of Havok XML `hk dump --format xml` writes (docs/havok-xml.md §3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum XmlDialect {
    /// The SDK's, as modding tools exchange it: `#NNNN` names with class signatures,
    /// floats with six decimals, `SERIALIZE_IGNORED` members left out.
    #[default]
    Sdk,
    /// hk's: every member, floats that read back to the same bits, so the file builds
    /// back byte for byte.
    Exact,
}

impl From<XmlDialect> for dump::xml::Dialect {
    fn from(d: XmlDialect) -> Self {
        match d {
            XmlDialect::Sdk => dump::xml::Dialect::Sdk,
            XmlDialect::Exact => dump::xml::Dialect::Exact,
        }
    }
}

/// What a dump could not keep: XML's rounded floats and left-out members.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lost {
    /// Float values that do not read back to the same bits.
    pub rounded: usize,
    /// `SERIALIZE_IGNORED` members left out that hold something.
    pub ignored: usize,
}

/// Writes the dump of `doc` to `w`: JSON straight from the graph as it is made, TOML
/// (whose writer builds the whole text) at once, XML in `dialect`. Returns what the dump
/// could not keep (nothing but for the SDK dialect of XML).
///
/// # Errors
/// A dump the TOML or XML writer refuses, or `w` refuses the text ([`Error::Output`]).
pub fn write_dump(
    doc: &hk_runtime::file::Document,
    format: Format,
    dialect: XmlDialect,
    w: &mut dyn Write,
) -> Result<Lost> {
    let mut w = BufWriter::with_capacity(1 << 16, w);
    let mut lost = Lost::default();
    match format {
        Format::Json => dump::write_json(doc, &mut w).map_err(Error::Output)?,
        Format::Toml => w
            .write_all(dump::to_toml(doc)?.as_bytes())
            .map_err(Error::Output)?,
        Format::Xml => {
            let x = dump::xml::to_xml(doc, dialect.into())?;
            lost = Lost {
                rounded: x.rounded,
                ignored: x.ignored,
            };
            w.write_all(x.text.as_bytes()).map_err(Error::Output)?;
        }
    }
    w.flush().map_err(Error::Output)?;
    Ok(lost)
}

/// Says on the warning stream what the dump of `path` lost, if anything.
///
/// # Errors
/// Only when the warning stream fails.
fn tell_lost(path: &Path, lost: Lost, o: &mut Out<'_>) -> Result<()> {
    if lost.rounded > 0 {
        o.warn(format_args!(
            "{}: {} float values do not read back to the same bits in the SDK dialect (six \
             decimals; no fourth component of a transform's translation and scale); use --xml \
             exact to keep them",
            path.display(),
            lost.rounded
        ))?;
    }
    if lost.ignored > 0 {
        o.warn(format_args!(
            "{}: {} SERIALIZE_IGNORED members hold values the SDK dialect leaves out; use \
             --xml exact to keep them",
            path.display(),
            lost.ignored
        ))?;
    }
    Ok(())
}

/// Prints (or writes to `out`) the dump of the file at `path`, read as the context says
/// ([`Context::read_options`]).
///
/// # Errors
/// The file does not read, or `out` cannot be written (a symbolic link or the input is
/// refused, [`crate::outputs`]).
pub fn dump_file(
    ctx: &Context,
    path: &Path,
    (format, dialect): (Format, XmlDialect),
    out: Option<&Path>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let outputs = Outputs::reading([path]);
    if let Some(p) = out {
        outputs.check(p)?;
    }
    let doc = ctx.open(path)?;
    crate::info::warnings(path, &doc, o)?;
    let lost = match out {
        Some(p) => {
            let mut f = outputs.create(p)?;
            let lost = write_dump(&doc, format, dialect, &mut f).map_err(|e| match e {
                Error::Output(e) => Error::io(p, e),
                e => e,
            })?;
            f.finish()?;
            lost
        }
        None => write_dump(&doc, format, dialect, o.results())?,
    };
    tell_lost(path, lost, o)?;
    Ok(Status::Success)
}

/// Reads the dump at `path` (TOML by its `.toml` extension, JSON by `.json`, else by its
/// first character) with the schema folder it names.
///
/// # Errors
/// The file cannot be read, does not parse, names no schema the catalog has, or holds a
/// value that does not fit its member: with the file, line and column, and the object and
/// member path in the dump's syntax.
pub fn read_dump(ctx: &Context, path: &Path) -> Result<dump::Built> {
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let format = dump::Format::detect(Some(path), &text);
    Ok(dump::read(&text, format, ctx.schemas()).map_err(|e| e.in_file(path))?)
}

/// Writes the file the dump at `dump_path` describes to `out`. A Havok XML file (one that
/// starts with `<`) builds a packfile laid out under `layout`, else the layout it names in
/// hk's namespace, else its generation's default.
///
/// # Errors
/// As [`read_dump`], the XML reader, what the writers refuse, or `out` cannot be written
/// (a symbolic link or the dump is refused, [`crate::outputs`]).
pub fn build(
    ctx: &Context,
    dump_path: &Path,
    out: &Path,
    layout: Option<hk_runtime::rules::LayoutRules>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let outputs = Outputs::reading([dump_path]);
    outputs.check(out)?;
    let raw = std::fs::read(dump_path).map_err(|e| Error::io(dump_path, e))?;
    let (bytes, built) = if dump::xml::is_xml(&raw) {
        let text = String::from_utf8(raw).map_err(|e| Error::Dump {
            format: "XML",
            message: format!("{}: not UTF-8: {e}", dump_path.display()),
        })?;
        dump::xml::build_xml(&text, ctx.schemas(), layout, ctx.limits())
            .map_err(|e| Error::from(e.in_file(dump_path)))?
    } else {
        if layout.is_some() {
            return Err(Error::usage(
                "--layout applies to XML; a JSON or TOML dump states its layout in `file.layout`",
            ));
        }
        let built = read_dump(ctx, dump_path)?;
        let bytes = dump::write_built(&built).map_err(|e| Error::from(e.in_file(dump_path)))?;
        (bytes, built)
    };
    outputs.write(out, &bytes)?;
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
