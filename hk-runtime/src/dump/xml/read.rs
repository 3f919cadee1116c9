//! Havok XML read into a graph, streamed within the read limits: a first look at the text
//! (`scan.rs`: the root's attributes, every object's name and class, hk's elements), then
//! the dump's reader over the text as over a JSON dump (`de.rs`), which reads each
//! object's members straight into graph values. No tree of elements or of JSON values is
//! built; what is kept is charged to the read's memory budget as it is made.

use serde_json::{json, Value as Json};

use super::de::XmlSource;
use super::events::{invalid, shown, Events, Located, Res};
use super::meter::Meter;
use super::scan::{self, Named, Root, Scan};
use super::walk::Shared;
use crate::dump::prepare::Pick;
use crate::dump::{hex_bytes, read_source, Built};
use crate::error::PathSegment;
use crate::error::{Error, Result};
use crate::file::Schemas;
use crate::limits::Limits;
use crate::rules::LayoutRules;
use crate::text::line_column;

/// Whether `bytes` look like XML (a `<` first, after a byte-order mark and blanks).
pub fn is_xml(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    b.iter()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|c| *c == b'<')
}

/// Reads a Havok XML file (Havok's or hk's) into a graph and packfile facts: the schema is
/// the catalog's folder for its `classversion` and `contentsversion`, the layout `layout`,
/// else `hk:layout`, else the generation's default. The read takes at most what `limits`
/// allow (memory, objects, nesting).
///
/// # Errors
/// XML that does not parse or is not a `<hkpackfile>`, an element, attribute or text that
/// has no place where it is, a class, member or object name that does not exist, a value
/// that does not fit its member, or a read limit reached: each with its line and column
/// (and the object and member, as `#0034 hkaSkeleton.bones[2]`, where it is in one).
pub fn from_xml(
    text: &str,
    schemas: &Schemas,
    layout: Option<LayoutRules>,
    limits: &Limits,
) -> Result<Built> {
    // A byte-order mark is no part of the document (positions count from after it).
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let placed = |l: Located| {
        let (line, column) = line_column(text, l.at);
        l.error.at_line(line, column)
    };
    let meter = Meter::new(limits, text.len());
    let mut ev = Events::new(text);
    let root = scan::root(&mut ev, text.len()).map_err(placed)?;
    let (name, class_version, contents) = version(&root, schemas).map_err(placed)?;
    let schema = schemas.load(&name)?;
    let layout = match (layout, root.get("hk:layout")) {
        (Some(l), _) => l,
        (None, Some(tag)) => LayoutRules::from_tag(tag).ok_or_else(|| {
            placed(invalid(
                format!("hk:layout `{}` is not four layout digits", shown(tag)),
                root.at,
            ))
        })?,
        (None, None) => schema.generation.layout,
    };
    let found = scan::body(&mut ev, &root, &schema, &meter).map_err(placed)?;
    let file = file_table(&root, &found, class_version, &contents, layout).map_err(placed)?;
    let capacity = capacity_flags(&found).map_err(placed)?;
    let root_id = match root.get("toplevelobject") {
        Some(n) => u64::from(object(&found, n, root.at).map_err(placed)?),
        None => 0,
    };
    let root_at = root.at;
    // The passes that look for a value's place do not charge; the one that builds does.
    meter.set_charging(false);
    let src = XmlSource {
        sh: Shared::new(text, &schema, found, meter),
        schema_name: name,
        file,
        capacity,
        root: root_id,
        root_at,
    };
    read_source(&src, Pick::Given(&schema)).map_err(|e| match src.sh.take_failure() {
        Some(l) => placed(l),
        None => relabel(e, src.sh.left.borrow_mut().take()),
    })
}

/// The schema folder of the file's `classversion` and `contentsversion`.
fn version(root: &Root<'_>, schemas: &Schemas) -> Res<(String, u32, String)> {
    let need = |key: &str| {
        root.get(key)
            .ok_or_else(|| invalid(format!("<hkpackfile> has no `{key}`"), root.at))
    };
    let class_version: u32 = need("classversion")?
        .parse()
        .map_err(|_| invalid("`classversion` is not a number", root.at))?;
    let contents = need("contentsversion")?.to_string();
    // XML stores no signatures to check a neighbouring folder against: the folder of the
    // version, else the nearest one of the same class version (the SDK's 2012.2 tools
    // write `hk_2012.1.0-r1`), which `open_xml` reports as not checked.
    let catalog = schemas.catalog();
    let entry = catalog
        .packfile(class_version, &contents)
        .or_else(|| {
            catalog
                .packfile_neighbours(class_version, &contents)
                .into_iter()
                .find(|e| e.generation.file_version == class_version)
        })
        .ok_or_else(|| Located {
            error: Error::from(crate::error::SchemaError::NoMatch(format!(
                "no packfile schema folder for class version {class_version} ({})",
                shown(&contents)
            ))),
            at: root.at,
        })?;
    Ok((entry.name.clone(), class_version, contents))
}

/// An unsigned decimal or `0x` number.
fn uint(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(h, 16).ok()
        }
        Some(_) => None,
        None if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

/// The position of the object named `name`.
fn object(found: &Scan<'_>, name: &str, at: usize) -> Res<u32> {
    found
        .names
        .get(name)
        .copied()
        .ok_or_else(|| invalid(format!("`{}` names no object", shown(name)), at))
}

/// The dump's `file` table: versions, layout, and what hk's attributes and elements say.
fn file_table(
    root: &Root<'_>,
    found: &Scan<'_>,
    class_version: u32,
    contents: &str,
    layout: LayoutRules,
) -> Res<Json> {
    let num = |key: &str, default: u64| -> Res<u64> {
        root.get(key).map_or(Ok(default), |v| {
            uint(v).ok_or_else(|| invalid(format!("`{key}` is not a number"), root.at))
        })
    };
    let predicates = match root.get("hk:predicates") {
        Some(p) => {
            let (max, block) = p.split_once(' ').unwrap_or((p, ""));
            let max: i64 = max
                .parse()
                .map_err(|_| invalid("hk:predicates is not `max hex`", root.at))?;
            hex_bytes(block).ok_or_else(|| invalid("hk:predicates is not `max hex`", root.at))?;
            json!({"max": max, "block": block})
        }
        None => Json::Null,
    };
    let mut exports = Vec::with_capacity(found.exports.len());
    for (Named { object: o, at }, name) in &found.exports {
        exports.push(json!({"object": object(found, o, *at)?, "name": name}));
    }
    Ok(json!({
        "file_version": class_version,
        "contents_version": contents,
        "layout": {"pointer_size": layout.pointer_size, "endian": layout.endian.name(),
                   "reuse_padding": layout.reuse_padding, "empty_base": layout.empty_base},
        "user_tag": num("hk:usertag", 0)?,
        "flags": num("hk:flags", 0)?,
        "sections": found.sections,
        "class_names_section": num("hk:classnamessection", 0)?,
        "contents_section": num("hk:contentssection", 2)?,
        "predicates": predicates,
        "class_names": found.class_names,
        "exports": exports,
    }))
}

/// The dump's `capacity_flags`, each with where its `<hk:capacity>` is.
fn capacity_flags(found: &Scan<'_>) -> Res<Vec<(Json, usize)>> {
    found
        .capacity
        .iter()
        .map(|(Named { object: o, at }, path, flags)| {
            let f = uint(flags).ok_or_else(|| {
                invalid(
                    format!("capacity flags `{}` are not a number", shown(flags)),
                    *at,
                )
            })?;
            Ok((
                json!({"object": object(found, o, *at)?, "path": path, "flags": f}),
                *at,
            ))
        })
        .collect()
}

/// An error of the dump's reader, naming the object as the XML does: its path starts
/// with `#K Class` (K the object's position), which becomes the object's XML name.
fn relabel(e: Error, left: Option<(u32, String)>) -> Error {
    let Some((k, label)) = left else {
        return e;
    };
    let path = e.steps();
    let dump_label = format!("#{k} ");
    if !path
        .first()
        .is_some_and(|p| matches!(p, PathSegment::Named(s) if s.starts_with(&dump_label)))
    {
        return e;
    }
    let mut out = Error::new(e.kind().clone());
    for p in path[1..].iter().rev() {
        out = out.in_(p.clone());
    }
    out = out.in_(label);
    match e.line_column() {
        Some((l, c)) => out.at_line(l, c),
        None => out,
    }
}
