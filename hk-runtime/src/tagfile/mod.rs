//! TAG0 tagfiles (Havok 2015 and later, seed 004; format measured in
//! `docs/tagfile-format.md`).
//!
//! A section is a big-endian `u32` (two flag bits, then a 30-bit size that counts the
//! 8-byte header) and a four-character tag. [`TagFile::parse`] reads the section tree, the
//! type table and the index. Decoding DATA into the object graph and the writer are next.

pub mod data;
pub mod index;
pub mod section;
pub mod types;
pub mod varint;

pub use section::{Section, SECTION_HEADER};

use crate::error::{Error, Result};

/// A tagfile's sections, decoded as far as hk reads them today.
#[derive(Debug)]
pub struct TagFile {
    /// Offset of the TAG0 section in the input (0, or 0x30 behind a phive header).
    pub offset: u64,
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
        let offset =
            section::find_tag0(data).ok_or_else(|| Error::invalid(0, "no TAG0 section"))?;
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
        let types = types::TypeTable::parse(data, need(b"TYPE")?)?;
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
            root,
            sdk_version,
            types,
            items,
            patches,
        })
    }
}
