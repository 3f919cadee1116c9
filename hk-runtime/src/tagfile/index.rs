//! The INDX section: ITEM (12-byte entries: type and flags, DATA offset, count) and PTCH
//! (per type: a count and the DATA offsets of its pointer slots). docs/tagfile-format.md §5.

use super::section::Section;
use crate::error::{Error, Result};

/// ITEM flag of an object (a pointer target).
pub const ITEM_OBJECT: u8 = 0x10;
/// ITEM flag of an array body or a string.
pub const ITEM_ARRAY: u8 = 0x20;

/// One ITEM entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// Type index (low 24 bits of the first word).
    pub ty: u32,
    /// Flags (high 8 bits): 0x10 an object, 0x20 an array or string block.
    pub flags: u8,
    /// Offset in DATA.
    pub offset: u32,
    /// Element count.
    pub count: u32,
}

/// One PTCH group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    /// The declared type of the slots.
    pub ty: u32,
    /// DATA offsets of the slots.
    pub offsets: Vec<u32>,
}

fn le(d: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]])
}

/// Decodes ITEM and PTCH of the INDX section `indx`. An INDX without PTCH has no patches
/// (a file whose only slots are relative ones, docs/relative-pointers.md §4).
///
/// # Errors
/// A missing ITEM, a table that is not a whole number of records, or a count past the
/// bytes left.
pub fn parse(data: &[u8], indx: &Section) -> Result<(Vec<Item>, Vec<Patch>)> {
    let sub = |t: &[u8; 4]| {
        indx.child(t)
            .ok_or_else(|| Error::missing(indx.offset, "INDX", String::from_utf8_lossy(t)))
    };
    let (o, n) = sub(b"ITEM")?.payload();
    let item = &data[o as usize..(o + n) as usize];
    if !item.len().is_multiple_of(12) {
        return Err(Error::invalid(
            o,
            format!("ITEM is {} bytes, not a multiple of 12", item.len()),
        ));
    }
    let items = item
        .chunks_exact(12)
        .map(|c| {
            let w = le(c, 0);
            Item {
                ty: w & 0xFF_FFFF,
                flags: (w >> 24) as u8,
                offset: le(c, 4),
                count: le(c, 8),
            }
        })
        .collect();
    let Some(ptch) = indx.child(b"PTCH") else {
        return Ok((items, Vec::new()));
    };
    let (o, n) = ptch.payload();
    let ptch = &data[o as usize..(o + n) as usize];
    let mut patches = Vec::new();
    let mut p = 0usize;
    while p + 8 <= ptch.len() {
        let (ty, count) = (le(ptch, p), le(ptch, p + 4) as usize);
        p += 8;
        if count > (ptch.len() - p) / 4 {
            return Err(Error::invalid(
                o + p as u64 - 4,
                format!("PTCH count {count} runs past the section"),
            ));
        }
        patches.push(Patch {
            ty,
            offsets: (0..count).map(|i| le(ptch, p + 4 * i)).collect(),
        });
        p += 4 * count;
    }
    if p != ptch.len() {
        return Err(Error::invalid(o + p as u64, "PTCH ends inside a record"));
    }
    Ok((items, patches))
}
