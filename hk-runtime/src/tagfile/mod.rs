//! TAG0 tagfiles (Havok 2015 and later, seed 004; format measured in
//! `docs/tagfile-format.md`).
//!
//! A section is a big-endian `u32` (two flag bits, then a 30-bit size that counts the
//! 8-byte header) and a four-character tag. [`TagFile::parse`] reads the section tree, the
//! type table and the index. Decoding DATA into the object graph and the writer are next.

pub mod cm;
pub mod data;
pub mod index;
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
        if offset > 0 && cm.is_none() {
            check_phive(data, offset, root.size)?;
        }
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

/// Reads a tagfile (bare or in a phive wrapper) into the object graph and writes it again:
/// the graph through [`write::write`], the wrapper header regenerated around it, and what
/// follows the tagfile (phive's AAMP parameter archive, not Havok data) kept as it is.
///
/// # Errors
/// Anything [`TagFile::parse`], [`data::objects`] or [`write::write`] reports.
pub fn roundtrip(data: &[u8], rules: &write::TagRules) -> Result<Vec<u8>> {
    let tf = TagFile::parse(data)?;
    let graph = graph(&tf, data)?;
    let tag0 = write::write(&graph, &tf.types, &tf.sdk_version, rules)?;
    if let Some(c) = &tf.cm {
        return Ok(cm::Cm::write(&c.records, c.version, &tag0));
    }
    if tf.offset == 0 {
        return Ok(tag0);
    }
    phive(data, &tf, &tag0)
}

/// The phive header of `data` agrees with the tagfile at `offset` of `size` bytes and with
/// the file's length (docs/tagfile-format.md §1, 2/2 files).
fn check_phive(data: &[u8], offset: u64, size: u64) -> Result<()> {
    let le = |o: usize| {
        data.get(o..o + 4)
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    };
    if !data.starts_with(b"Phive\0") {
        return Err(Error::invalid(
            0,
            "a tagfile behind an unknown wrapper (not `Phive`)",
        ));
    }
    let tail = size.div_ceil(16) * 16 + offset;
    let fields = [
        (0x0C, offset),
        (0x10, tail),
        (0x14, data.len() as u64),
        (0x18, tail - offset),
    ];
    for (at, want) in fields {
        let got = le(at).ok_or_else(|| Error::truncated(at as u64, 4, 0))?;
        if got != want {
            return Err(Error::invalid(
                at as u64,
                format!("phive header word 0x{got:X}, expected 0x{want:X}"),
            ));
        }
    }
    let tail_size = le(0x1C).ok_or_else(|| Error::truncated(0x1C, 4, 0))?;
    if tail + tail_size != data.len() as u64 {
        return Err(Error::invalid(
            0x1C,
            format!("phive tail of 0x{tail_size:X} bytes does not end the file"),
        ));
    }
    Ok(())
}

/// The phive wrapper around a rewritten tagfile (docs/tagfile-format.md §1): a 12-byte
/// magic/version/byte-order head, then the tagfile offset (0x30), the tail offset (the
/// tagfile's end aligned to 16), the file size, the padded tagfile size and the tail size.
fn phive(data: &[u8], tf: &TagFile, tag0: &[u8]) -> Result<Vec<u8>> {
    let le = |o: usize| -> Result<u32> {
        data.get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| Error::truncated(o as u64, 4, 0))
    };
    let tail_at = le(0x10)? as usize;
    let tail = data
        .get(tail_at..)
        .ok_or_else(|| Error::invalid(0x10, "phive tail offset past the end"))?;
    let tail_len = if tail.starts_with(b"AAMP") {
        le(tail_at + 12)? as usize
    } else {
        tail.len()
    };
    let tail = tail
        .get(..tail_len)
        .ok_or_else(|| Error::invalid(tail_at as u64, "phive tail runs past the end"))?;
    let tag_off = tf.offset as usize;
    let align16 = |x: usize| x.div_ceil(16) * 16;
    let new_tail_at = align16(tag_off + tag0.len());
    let padded_tail = align16(tail.len());
    let mut out = data[..0x0C].to_vec();
    for w in [
        tag_off,
        new_tail_at,
        new_tail_at + padded_tail,
        new_tail_at - tag_off,
        padded_tail,
    ] {
        out.extend_from_slice(&(w as u32).to_le_bytes());
    }
    out.resize(tag_off, 0);
    out.extend_from_slice(tag0);
    out.resize(new_tail_at, 0);
    out.extend_from_slice(tail);
    out.resize(new_tail_at + padded_tail, 0);
    Ok(out)
}
