//! `hk schema ...`: signatures, self-checks, layouts, checks against files, extraction
//! from files, import of public reflection dumps, and a new version's folder from a
//! neighbour's (`new`, then `explain`, then `record`).

mod check;
mod explain;
mod extract;
pub mod new;
mod record;

/// The packfile in `bytes` (read from `f`), for the commands that compare stored class
/// signatures: a tagfile stores none and is refused, saying what to use instead.
fn packfile_of<'b>(f: &Path, bytes: &'b [u8]) -> Result<hk_runtime::packfile::Packfile<'b>> {
    use hk_runtime::file::{self, Container};
    match file::detect(bytes) {
        Some(Container::Packfile) => {}
        Some(Container::Tagfile) => {
            return Err(Error::usage(format!(
                "{}: a tagfile stores no signatures, it carries its own types; `hk schema check` compares them with a schema",
                f.display()
            )))
        }
        Some(Container::BinaryTagfile) => {
            return Err(Error::usage(format!(
                "{}: an old binary tagfile stores no signatures, it carries its own class definitions; `hk schema extract` writes them as a folder",
                f.display()
            )))
        }
        None => {
            return Err(hk_runtime::Error::read(hk_runtime::error::ReadError::BadMagic)
                .at(0)
                .in_file(f)
                .into())
        }
    }
    hk_runtime::packfile::Packfile::parse(bytes).map_err(|e| e.in_file(f).into())
}

pub use check::check;
pub use explain::explain;
pub use extract::extract;
pub use new::{new, NewOptions};
pub use record::record;

use std::path::{Path, PathBuf};

use hk_runtime::schema::report::{self_check, LayoutRow, Verdict};
use hk_runtime::schema::{signature, Layouts};
use hk_runtime::{Endian, LayoutRules, Schema};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// Formats `hk schema import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ImportFormat {
    /// `reflection_data.json` of a runtime class-table dump (BotW 2014.2).
    Botw,
    /// A folder of per-class JSON files with x86 / x86_64 offsets (serde-hkx 2010.2).
    SerdeHkx,
    /// HKLib's `HavokTypeRegistry<SDK>.xml` (2018.1 and later): a tagfile generation.
    Hklib,
    /// TagTools' `TypeDatabase.xml` or soulstruct-havok's `Types<year>.xml` (2010 to
    /// 2016): a tagfile generation.
    Tagtools,
}

impl ImportFormat {
    /// The format of the dump at `input`: a folder is serde-hkx's, a `.json` file BotW's,
    /// anything else XML of the dialect its root element names.
    ///
    /// # Errors
    /// An XML file of neither dialect, or one that does not parse.
    pub fn detect(input: &Path) -> Result<ImportFormat> {
        if input.is_dir() {
            return Ok(ImportFormat::SerdeHkx);
        }
        if input
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("json"))
        {
            return Ok(ImportFormat::Botw);
        }
        Ok(match crate::import_xml::detect(input)? {
            crate::import_xml::Dialect::Registry => ImportFormat::Hklib,
            crate::import_xml::Dialect::Types => ImportFormat::Tagtools,
        })
    }
}

/// `hk schema signatures DIR`: one `Class 0xXXXXXXXX` line per class; pinned classes show
/// the computed value beside the pin. [`Status::Failure`] when a stated signature is not
/// reproduced.
///
/// # Errors
/// The schema does not load.
pub fn signatures(ctx: &Context, dir: &Path, o: &mut Out<'_>) -> Result<Status> {
    let schema = ctx.schema_arg(dir)?.schema;
    let mut bad = 0;
    for c in schema.classes() {
        let s = signature::signature(&schema, &c.name)?;
        let mut line = format!("{} 0x{:08X}", c.name, s.value);
        if s.is_pinned() {
            line.push_str(&format!(" pinned (computed 0x{:08X})", s.computed()));
        }
        if let Some(exp) = c.expected_signature {
            if exp != s.value {
                bad += 1;
                line.push_str(&format!(" MISMATCH (schema states 0x{exp:08X})"));
            }
        }
        outln!(o, "{line}");
    }
    if bad > 0 {
        warnln!(
            o,
            "{bad} class(es) do not reproduce the signature their schema states"
        );
    }
    Ok(Status::from_ok(bad == 0))
}

/// `hk schema verify [DIR...]`: lays out every class of each schema (default: every
/// generation of the catalog) and checks every `offset`, `size` and `signature` it states.
/// A catalog folder whose `generation.toml` does not load is an error before any command
/// runs; a class that cannot be laid out (a size past 4 GiB) is an error on the error
/// stream ([`Status::Error`]); a stated value the layout does not reproduce is a
/// difference ([`Status::Failure`]).
///
/// # Errors
/// A schema that does not load.
pub fn verify(ctx: &Context, dirs: &[PathBuf], o: &mut Out<'_>) -> Result<Status> {
    let (mut differences, mut errors) = (0, 0);
    let mut schemas = Vec::new();
    if dirs.is_empty() {
        for e in ctx.schemas().catalog().entries() {
            schemas.push((e.name.clone(), ctx.schemas().load(&e.name)?));
        }
    } else {
        for d in dirs {
            schemas.push((d.display().to_string(), ctx.schema_arg(d)?.schema));
        }
    }
    for (label, schema) in &schemas {
        let mut layouts = Layouts::new(schema, schema.generation.layout);
        for c in schema.classes() {
            if let Err(e) = layouts.class(&c.name) {
                o.error(format_args!("{label}: {e}"))?;
                errors += 1;
            }
        }
        differences += verify_one(label, schema, o)?;
    }
    Ok(Status::of(errors, differences))
}

fn verify_one(label: &str, schema: &Schema, o: &mut Out<'_>) -> Result<usize> {
    let (layout, sigs) = self_check(schema);
    let bad_layout: Vec<_> = layout.iter().filter(|r| !r.verdict.ok()).collect();
    let bad_sigs: Vec<_> = sigs.iter().filter(|r| !r.verdict.ok()).collect();
    let pinned = sigs.iter().filter(|r| r.verdict == Verdict::Pinned).count();
    outln!(
        o,
        "{label}: {} classes; offsets and sizes {}/{}; signatures {}/{} ({pinned} pinned)",
        schema.classes().len(),
        layout.len() - bad_layout.len(),
        layout.len(),
        sigs.len() - bad_sigs.len(),
        sigs.len()
    );
    for r in &bad_layout {
        outln!(
            o,
            "  {}: states 0x{:X}, layout gives {}",
            row_path(r),
            r.stored,
            hex(r.computed)
        );
    }
    for r in &bad_sigs {
        outln!(
            o,
            "  {}: states 0x{:08X}, computes {}",
            r.class,
            r.stored,
            r.computed.map_or("-".to_string(), |v| format!("0x{v:08X}"))
        );
    }
    Ok(bad_layout.len() + bad_sigs.len())
}

/// Layout rules as the demo files name them: pointer size, little endian, reuse padding,
/// empty base (`4101`).
///
/// # Errors
/// Anything else.
pub fn parse_rules(tag: &str) -> Result<LayoutRules> {
    let b = tag.as_bytes();
    if b.len() != 4
        || !matches!(b[0], b'4' | b'8')
        || b[1..].iter().any(|c| !matches!(c, b'0' | b'1'))
    {
        return Err(Error::usage(format!("rules `{tag}`: expected four digits like 4101 (pointer size, little endian, reuse padding, empty base)")));
    }
    Ok(LayoutRules {
        pointer_size: b[0] - b'0',
        endian: if b[1] == b'1' {
            Endian::Little
        } else {
            Endian::Big
        },
        reuse_padding: b[2] == b'1',
        empty_base: b[3] == b'1',
    })
}

/// `hk schema layout DIR CLASS [--rules 4101]`: member offsets and size of a class.
///
/// # Errors
/// The schema does not load, the class is not in it, or the rules are malformed.
pub fn layout(
    ctx: &Context,
    dir: &Path,
    class: &str,
    rules: Option<&str>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let schema = ctx.schema_arg(dir)?.schema;
    let rules = match rules {
        Some(t) => parse_rules(t)?,
        None => schema.generation.layout,
    };
    let mut layouts = Layouts::new(&schema, rules);
    let size = layouts.class(class)?.size;
    outln!(o, "{class} ({rules}): size 0x{size:X}");
    for &(owner, m, l) in layouts.flattened(class)?.iter() {
        outln!(
            o,
            "  0x{:04X} {:>5} {}.{} : {}",
            l.offset,
            l.size,
            owner.name,
            m.name,
            m.ty
        );
    }
    Ok(Status::Success)
}

/// What `hk schema import` writes into `generation.toml`.
pub use crate::import::Meta;

/// `hk schema import FORMAT INPUT -o DIR`: converts a public reflection dump into a schema
/// folder; [`Status::Failure`] when the layout engine does not reproduce every offset and
/// size the dump states.
///
/// # Errors
/// A dump that does not convert, or a folder that cannot be written.
pub fn import(
    format: ImportFormat,
    input: &Path,
    out: &Path,
    meta: &Meta,
    o: &mut Out<'_>,
) -> Result<Status> {
    let imported = match format {
        ImportFormat::Botw => crate::import::botw(input, meta)?,
        ImportFormat::SerdeHkx => crate::import::serde_hkx(input, meta)?,
        ImportFormat::Hklib | ImportFormat::Tagtools => {
            return Err(Error::usage("an XML type dump converts with import_xml"))
        }
    };
    for w in &imported.warnings {
        warnln!(o, "{w}");
    }
    let schema = imported.schema;
    schema.to_folder(out)?;
    report_layout(&schema, out, o)
}

/// `hk schema import` of an XML type dump (HKLib, TagTools, soulstruct-havok): a tagfile
/// generation whose classes keep the dump's hashes as data.
///
/// # Errors
/// A dump that does not convert, or a folder that cannot be written.
pub fn import_xml(
    format: ImportFormat,
    input: &Path,
    out: &Path,
    meta: &crate::import_xml::XmlMeta,
    o: &mut Out<'_>,
) -> Result<Status> {
    let dialect = match format {
        ImportFormat::Hklib => crate::import_xml::Dialect::Registry,
        ImportFormat::Tagtools => crate::import_xml::Dialect::Types,
        _ => return Err(Error::usage("a JSON dump converts with import")),
    };
    let imported = crate::import_xml::import(input, dialect, meta)?;
    let schema = imported.schema;
    schema.to_folder(out)?;
    let hashed: Vec<_> = schema
        .classes()
        .iter()
        .filter_map(|c| Some((c.name.as_str(), c.hash?)))
        .collect();
    // TAG0 type hashes are data (docs/tagfile-format.md §3): hk has no rule that computes
    // them. The one hash hk computes from a description, the packfile signature, is
    // compared for the record.
    let same = hashed
        .iter()
        .filter(|(n, h)| signature::compute(&schema, n).ok() == Some(*h))
        .count();
    outln!(
        o,
        "{} types in the dump, {} of them records (classes); {} classes keep the dump's type hash as data; hk's signature of the class description equals it for {same}",
        imported.types,
        schema.classes().len(),
        hashed.len()
    );
    if !imported.dropped.is_empty() {
        warnln!(
            o,
            "{} records left out: {} for their names (not class names a schema takes, or referring to such a record; first: {}), {} because hk's layout does not give the sizes and offsets the dump states (or referring to such a record{})",
            imported.dropped.len(),
            imported.unnamed,
            imported.dropped[0],
            imported.dropped.len() - imported.unnamed,
            imported.dropped.get(imported.unnamed).map_or(String::new(), |d| format!("; first: {d}"))
        );
    }
    if meta.tagfile.is_none() {
        warnln!(
            o,
            "no [tagfile] rules given (--tagfile-like): files of this generation read, but hk writes none"
        );
    }
    report_layout(&schema, out, o)
}

/// The closing line of an import: how many stated offsets and sizes the layout engine
/// reproduces; [`Status::Failure`] unless all.
fn report_layout(schema: &Schema, out: &Path, o: &mut Out<'_>) -> Result<Status> {
    let mut layouts = Layouts::new(schema, schema.generation.layout);
    let (mut ok, mut total) = (0, 0);
    for c in schema.classes() {
        let l = layouts.class(&c.name)?.clone();
        if let Some(s) = c.expected_size {
            total += 1;
            ok += usize::from(s == l.size);
        }
        for (m, ml) in c.members.iter().zip(&l.members) {
            if let Some(off) = m.expected_offset {
                total += 1;
                ok += usize::from(off == ml.offset);
            }
        }
    }
    outln!(
        o,
        "wrote {} classes to {}; layout reproduces {ok}/{total} stated offsets and sizes",
        schema.classes().len(),
        out.display()
    );
    Ok(Status::from_ok(ok == total))
}

/// `Class` or `Class.member` of a layout row.
fn row_path(r: &LayoutRow) -> String {
    match &r.member {
        Some(m) => format!("{}.{m}", r.class),
        None => r.class.clone(),
    }
}

fn hex(v: Option<u32>) -> String {
    v.map_or("-".to_string(), |v| format!("0x{v:X}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_four_digits() {
        let r = parse_rules("4101").unwrap();
        assert_eq!(r.pointer_size, 4);
        assert_eq!(r.endian, Endian::Little);
        assert!(!r.reuse_padding && r.empty_base);
        assert!(parse_rules("2101").is_err());
        assert!(parse_rules("41").is_err());
    }
}
