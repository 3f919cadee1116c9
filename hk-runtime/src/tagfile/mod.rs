//! TAG0 tagfiles (Havok 2015 and later, seed 004; format measured in
//! `docs/tagfile-format.md`).
//!
//! A section is a big-endian `u32` (two flag bits, then a 30-bit size that counts the
//! 8-byte header) and a four-character tag. [`TagFile::parse`] reads the section tree, the
//! type table and the index. Decoding DATA into the object graph and the writer are next.

pub mod cm;
pub mod data;
pub mod index;
pub mod phive;
pub mod reflect;
pub mod schema;
pub mod section;
pub mod types;
pub mod varint;
pub mod write;

pub use section::{Section, SECTION_HEADER};

use crate::error::{Error, Result};

/// Where the TAG0 section of `data` starts: after a cm container's records, behind a
/// phive header, or at 0.
pub fn locate(data: &[u8]) -> Option<u64> {
    cm::Cm::detect(data)
        .map(|c| c.blob_at)
        .or_else(|| section::find_tag0(data))
}

/// A tagfile's sections, decoded as far as hk reads them today.
#[derive(Debug)]
pub struct TagFile {
    /// Offset of the TAG0 section in the input (0, 0x30 behind a phive header, or after a
    /// cm container's surface records).
    pub offset: u64,
    /// The cm container around the tagfile, if any.
    pub cm: Option<cm::Cm>,
    /// The phive container around the tagfile, if any.
    pub phive: Option<phive::Phive>,
    /// The TAG0 section tree.
    pub root: Section,
    /// The SDK version string (`20150100`).
    pub sdk_version: String,
    /// The type table.
    pub types: types::TypeTable,
    /// ITEM entries.
    pub items: Vec<index::Item>,
    /// PTCH groups.
    pub patches: Vec<index::Patch>,
}

impl TagFile {
    /// Parses the tagfile in `data` (bare, or behind a wrapper such as phive's).
    ///
    /// # Errors
    /// No TAG0 section, or any structural problem, with its offset.
    pub fn parse(data: &[u8]) -> Result<TagFile> {
        let cm = cm::Cm::detect(data);
        let offset = match &cm {
            Some(c) => c.blob_at,
            None => section::find_tag0(data).ok_or_else(|| Error::invalid(0, "no TAG0 section"))?,
        };
        let root = Section::parse(data, offset, data.len() as u64)?;
        let need = |t: &[u8; 4]| {
            root.child(t).ok_or_else(|| {
                Error::invalid(
                    offset,
                    format!("TAG0 has no {}", String::from_utf8_lossy(t)),
                )
            })
        };
        let (o, n) = need(b"SDKV")?.payload();
        let sdk_version = String::from_utf8_lossy(&data[o as usize..(o + n) as usize]).into_owned();
        // SDKV is 8 digits (20150100, 20220100: docs/tagfile-format.md §1).
        if sdk_version.len() != 8 || !sdk_version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::invalid(
                o,
                format!("SDKV `{sdk_version}` is not an 8-digit SDK version"),
            ));
        }
        let phive = match (offset, &cm) {
            (0, _) | (_, Some(_)) => None,
            _ => {
                let (p, at) = phive::Phive::parse(data, root.size)?;
                if at != offset {
                    return Err(Error::invalid(
                        0x0C,
                        format!("phive names its tagfile at 0x{at:X}, the TAG0 is at 0x{offset:X}"),
                    ));
                }
                Some(p)
            }
        };
        // A bare tagfile is nothing but its TAG0 section (4/4 DSR files).
        if offset == 0 && root.size != data.len() as u64 {
            return Err(Error::invalid(
                root.size,
                format!(
                    "{} bytes follow the TAG0 section",
                    data.len() as i64 - root.size as i64
                ),
            ));
        }
        let type_sec = need(b"TYPE")?;
        let types = types::TypeTable::parse(data, type_sec)?;
        // TPTR: 8 zero bytes per type, the null type included (6/6).
        let tptr = type_sec
            .child(b"TPTR")
            .ok_or_else(|| Error::invalid(type_sec.offset, "TYPE has no TPTR"))?;
        let (po, pn) = tptr.payload();
        if pn != 8 * types.types.len() as u64
            || data[po as usize..(po + pn) as usize]
                .iter()
                .any(|&b| b != 0)
        {
            return Err(Error::invalid(
                po,
                format!(
                    "TPTR is {pn} bytes, not 8 zero bytes for each of {} types",
                    types.types.len()
                ),
            ));
        }
        let (items, patches) = index::parse(data, need(b"INDX")?)?;
        let ntypes = types.types.len() as u32;
        if let Some(bad) = items
            .iter()
            .map(|i| i.ty)
            .chain(patches.iter().map(|p| p.ty))
            .find(|&t| t >= ntypes)
        {
            return Err(Error::invalid(
                offset,
                format!("INDX names type {bad}, the table has {ntypes}"),
            ));
        }
        Ok(TagFile {
            offset,
            cm,
            phive,
            root,
            sdk_version,
            types,
            items,
            patches,
        })
    }
}

/// The object graph of tagfile `tf` read from `data`: its objects, with the file facts a
/// tagfile has (SDK version, the 64-bit little-endian layout of [`schema::RULES`]).
///
/// # Errors
/// Anything [`data::objects`] reports.
pub fn graph(tf: &TagFile, data: &[u8]) -> Result<crate::graph::Graph> {
    let (objects, root) = data::objects(tf, data)?;
    Ok(crate::graph::Graph {
        info: crate::graph::FileInfo {
            file_version: 0,
            contents_version: tf.sdk_version.clone(),
            layout: schema::RULES,
            user_tag: 0,
            flags: 0,
            sections: vec!["DATA".into()],
            class_names_section: 0,
            contents_section: 0,
            predicates: None,
            class_names: None,
            exports: Vec::new(),
        },
        objects,
        root,
        capacity_flags: Default::default(),
    })
}

/// Reads a tagfile (bare, or in a phive or cm container) into the object graph and writes
/// it again: the graph through [`write::write`], the container regenerated around it.
///
/// # Errors
/// Anything [`TagFile::parse`], [`data::objects`] or [`write::write`] reports.
pub fn roundtrip(data: &[u8], rules: &write::TagRules) -> Result<Vec<u8>> {
    let tf = TagFile::parse(data)?;
    let graph = graph(&tf, data)?;
    let tag0 = write::write(&graph, &tf.types, &tf.sdk_version, rules)?;
    wrap(&tf, tag0)
}

/// `tag0` in the container `tf` came in (none, cm or phive).
///
/// # Errors
/// A phive container with more sections than its capacity.
pub fn wrap(tf: &TagFile, tag0: Vec<u8>) -> Result<Vec<u8>> {
    if let Some(c) = &tf.cm {
        return Ok(cm::Cm::write(&c.records, c.version, &tag0));
    }
    match &tf.phive {
        Some(p) => p.write(&tag0),
        None => Ok(tag0),
    }
}
