//! Fixup tables (docs/packfile-format.md §4, and §5 for the export and import tables).
//!
//! Pointers are not stored in the data: a pointer slot is non-null exactly when a fixup
//! names it. Tables end in 0xFFFFFFFF words up to a 16-byte boundary.

use crate::bytes::Bytes;
use crate::error::{Error, ReadError, Result};

use super::section::Section;

/// A pointer inside one section: `{source, destination}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalFixup {
    /// Section-relative offset of the pointer slot.
    pub source: u32,
    /// Section-relative offset it points to.
    pub destination: u32,
}

/// A pointer into another section: `{source, section, destination}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalFixup {
    /// Section-relative offset of the pointer slot.
    pub source: u32,
    /// Index of the target section.
    pub section: u32,
    /// Offset in the target section.
    pub destination: u32,
}

/// An object and its class: `{object, class-name section, class-name offset}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VirtualFixup {
    /// Section-relative offset of the object.
    pub object: u32,
    /// Index of the class-name section.
    pub section: u32,
    /// Offset of the class name in that section.
    pub class_name: u32,
}

const END: u32 = 0xFFFF_FFFF;

/// Reads a table of `N`-word records from `from` to `to` (section-relative), stopping at the
/// first record whose first word is 0xFFFFFFFF.
fn table<const N: usize>(
    b: &Bytes<'_>,
    s: &Section,
    from: u32,
    to: u32,
    what: &str,
) -> Result<Vec<[u32; N]>> {
    let len = u64::from(to.saturating_sub(from));
    let rec = 4 * N as u64;
    // The count is bounded by the table's bytes, which are inside the file (checked by
    // `Section::parse`), before anything is allocated.
    let mut out = Vec::with_capacity((len / rec) as usize);
    let mut o = s.abs(from);
    let end = s.abs(to);
    while o + 4 <= end {
        let first = b.u32(o)?;
        if first == END {
            break;
        }
        if o + rec > end {
            return Err(Error::read(ReadError::PastTable {
                record: format!("{what} fixup record"),
            })
            .at(o)
            .in_(s.tag.clone()));
        }
        let mut r = [0u32; N];
        for (i, v) in r.iter_mut().enumerate() {
            *v = b.u32(o + 4 * i as u64)?;
        }
        out.push(r);
        o += rec;
    }
    Ok(out)
}

/// Calls `f` with the file offset of each `N`-word record from `from` to `to`
/// (section-relative) and the record, stopping at the first record whose first word is
/// 0xFFFFFFFF; no table is copied.
///
/// # Errors
/// A record cut off by the end of its table, or what `f` returns.
pub fn each<const N: usize>(
    b: &Bytes<'_>,
    s: &Section,
    from: u32,
    to: u32,
    what: &str,
    mut f: impl FnMut(u64, [u32; N]) -> Result<()>,
) -> Result<()> {
    let rec = 4 * N as u64;
    let start = s.abs(from);
    let end = s.abs(to).max(start);
    let bytes = b.slice(start, end - start)?;
    let e = b.endian();
    let mut o = 0usize;
    while o + 4 <= bytes.len() {
        let first = <u32 as crate::bytes::Scalar>::read(&bytes[o..], e);
        if first == END {
            break;
        }
        let Some(record) = bytes.get(o..o + rec as usize) else {
            return Err(Error::read(ReadError::PastTable {
                record: format!("{what} fixup record"),
            })
            .at(start + o as u64)
            .in_(s.tag.clone()));
        };
        let mut r = [0u32; N];
        for (v, c) in r.iter_mut().zip(record.chunks_exact(4)) {
            *v = <u32 as crate::bytes::Scalar>::read(c, e);
        }
        f(start + o as u64, r)?;
        o += rec as usize;
    }
    Ok(())
}

/// The local fixups of `s`.
///
/// # Errors
/// A record cut off by the end of its table.
pub fn local(b: &Bytes<'_>, s: &Section) -> Result<Vec<LocalFixup>> {
    Ok(table::<2>(b, s, s.local_fixups, s.global_fixups, "local")?
        .into_iter()
        .map(|[source, destination]| LocalFixup {
            source,
            destination,
        })
        .collect())
}

/// The global fixups of `s`.
///
/// # Errors
/// A record cut off by the end of its table.
pub fn global(b: &Bytes<'_>, s: &Section) -> Result<Vec<GlobalFixup>> {
    Ok(
        table::<3>(b, s, s.global_fixups, s.virtual_fixups, "global")?
            .into_iter()
            .map(|[source, section, destination]| GlobalFixup {
                source,
                section,
                destination,
            })
            .collect(),
    )
}

/// The virtual fixups of `s`.
///
/// # Errors
/// A record cut off by the end of its table.
pub fn virtual_(b: &Bytes<'_>, s: &Section) -> Result<Vec<VirtualFixup>> {
    Ok(table::<3>(b, s, s.virtual_fixups, s.exports, "virtual")?
        .into_iter()
        .map(|[object, section, class_name]| VirtualFixup {
            object,
            section,
            class_name,
        })
        .collect())
}

/// An export or import table: `{u32 offset, NUL-terminated name}` records, each padded to
/// 4 bytes, up to the table's end or a 0xFFFFFFFF word. No corpus file has one; this is the
/// record shape Havok's loaders read (unverified here).
///
/// # Errors
/// A name that runs past its table.
pub fn named(b: &Bytes<'_>, s: &Section, from: u32, to: u32) -> Result<Vec<(u32, String)>> {
    let mut out = Vec::new();
    let mut o = s.abs(from);
    let end = s.abs(to);
    while o + 4 <= end {
        let offset = b.u32(o)?;
        if offset == END {
            break;
        }
        let name = b.cstr(o + 4)?;
        let next = o + 4 + name.len() as u64 + 1;
        if next > end {
            return Err(Error::read(ReadError::PastTable {
                record: "export/import name".into(),
            })
            .at(o)
            .in_(s.tag.clone()));
        }
        out.push((offset, name.to_string()));
        o = next.div_ceil(4) * 4;
    }
    Ok(out)
}
