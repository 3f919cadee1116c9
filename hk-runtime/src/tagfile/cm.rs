//! id Tech's `cm` collision container (`.hkshape`, Doom 2016; docs/collision-notes.md §5,
//! docs/tagfile-format.md §1): surface records
//! in front of a TAG0 tagfile.
//!
//! ```text
//! u32 n
//! n × { u32 contents, u32 surface_type, u32 surface_flags,
//!       u32 f3 (only version ≥ 0x12), f32 f4, f32 f5, f32 f6 }
//! u32 blob_size            ends exactly at the end of the payload
//! blob                     TAG0 (SDKV 20160200 in every retail file)
//! ```
//!
//! All little endian. The version is not in the payload (the resource entry carries it: 21
//! for all 71,672 retail entries, docs/collision-notes.md §5), so [`Cm::detect`] infers the record stride
//! from where the blob must start.

use crate::error::{Error, Result};

/// The record version of every retail entry (docs/collision-notes.md §5).
pub const RETAIL_VERSION: u32 = 0x15;

/// One surface record; a shape's `userData` is its index (docs/collision-notes.md §5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceRecord {
    /// idContents bitmask (bit 0 solid, bit 14 trigger).
    pub contents: u32,
    /// surfType_t (0..38; 1 is METAL).
    pub surface_type: u32,
    /// SURF_* flags (0x40 is SURF_COLLISION).
    pub surface_flags: u32,
    /// Stored only by version 0x12 and later; 0 in every retail record.
    pub f3: u32,
    /// -1.0 in every retail record.
    pub f4: f32,
    /// -1.0 in every retail record.
    pub f5: f32,
    /// -1.0 in every retail record.
    pub f6: f32,
}

impl Default for SurfaceRecord {
    /// The record of a retail solid brush (docs/collision-notes.md §5): solid, METAL, SURF_COLLISION.
    fn default() -> Self {
        Self {
            contents: 1,
            surface_type: 1,
            surface_flags: 0x40,
            f3: 0,
            f4: -1.0,
            f5: -1.0,
            f6: -1.0,
        }
    }
}

/// A parsed cm payload: its records and where its tagfile lies.
#[derive(Clone, Debug, PartialEq)]
pub struct Cm {
    /// Record version (decides whether `f3` is stored).
    pub version: u32,
    /// Surface records.
    pub records: Vec<SurfaceRecord>,
    /// Offset of the TAG0 blob.
    pub blob_at: u64,
    /// Size of the blob (`blob_size`).
    pub blob_size: u64,
}

/// Whether records of `version` store `f3` (from 0x12 on, docs/collision-notes.md §5).
pub fn has_f3(version: u32) -> bool {
    version >= 0x12
}

/// The byte size of a record of `version`: 28 with `f3`, else 24.
pub fn stride(version: u32) -> u64 {
    if has_f3(version) {
        28
    } else {
        24
    }
}

fn le(data: &[u8], at: u64) -> Result<u32> {
    let a = usize::try_from(at).map_err(|_| Error::truncated(at, 4, 0))?;
    data.get(a..a.saturating_add(4))
        .filter(|b| b.len() == 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| Error::truncated(at, 4, data.len().saturating_sub(a) as u64))
}

impl Cm {
    /// Whether `data` is a cm payload: with the retail stride (or, failing that, the
    /// pre-0x12 one) the records are followed by a `blob_size` that ends the payload and a
    /// TAG0 section exactly that long.
    pub fn detect(data: &[u8]) -> Option<Cm> {
        [RETAIL_VERSION, 0x11]
            .into_iter()
            .find_map(|v| Cm::parse(data, v).ok())
    }

    /// Parses a cm payload of record version `version`.
    ///
    /// # Errors
    /// A record count the payload cannot hold, a `blob_size` that does not end exactly at
    /// the end of the payload, or a blob that is not one TAG0 section of that size; each
    /// with its offset.
    pub fn parse(data: &[u8], version: u32) -> Result<Cm> {
        let n = u64::from(le(data, 0)?);
        let len = data.len() as u64;
        let table = n * stride(version);
        // The count is checked against the bytes left before anything is allocated.
        if 4 + table + 4 > len {
            return Err(Error::invalid(
                0,
                format!(
                    "cm: {n} surface records of {} bytes do not fit in {len} bytes",
                    stride(version)
                ),
            ));
        }
        let mut records = Vec::with_capacity(n as usize);
        for i in 0..n {
            let at = 4 + i * stride(version);
            let mut words = (0..stride(version) / 4).map(|k| le(data, at + 4 * k));
            let mut next = || words.next().unwrap_or(Ok(0));
            let (contents, surface_type, surface_flags) = (next()?, next()?, next()?);
            let f3 = if has_f3(version) { next()? } else { 0 };
            let (f4, f5, f6) = (next()?, next()?, next()?);
            records.push(SurfaceRecord {
                contents,
                surface_type,
                surface_flags,
                f3,
                f4: f32::from_bits(f4),
                f5: f32::from_bits(f5),
                f6: f32::from_bits(f6),
            });
        }
        let size_at = 4 + table;
        let blob_size = u64::from(le(data, size_at)?);
        let blob_at = size_at + 4;
        if blob_at + blob_size != len {
            return Err(Error::invalid(
                size_at,
                format!(
                    "cm: blob_size 0x{blob_size:X} ends at 0x{:X}, the payload at 0x{len:X}",
                    blob_at + blob_size
                ),
            ));
        }
        // The blob is one TAG0 section of exactly blob_size bytes (docs/tagfile-format.md §1).
        let head = le(data, blob_at).map(u32::swap_bytes)?;
        let tag = data.get(blob_at as usize + 4..blob_at as usize + 8);
        if tag != Some(b"TAG0".as_slice()) || u64::from(head & 0x3FFF_FFFF) != blob_size {
            return Err(Error::invalid(
                blob_at,
                "cm: the blob is not one TAG0 section of blob_size bytes",
            ));
        }
        Ok(Cm {
            version,
            records,
            blob_at,
            blob_size,
        })
    }

    /// A cm payload of `records` (record version `version`) around the tagfile `tag0`.
    pub fn write(records: &[SurfaceRecord], version: u32, tag0: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + records.len() * 28 + tag0.len());
        out.extend_from_slice(&(records.len() as u32).to_le_bytes());
        for r in records {
            let mut words = vec![r.contents, r.surface_type, r.surface_flags];
            if has_f3(version) {
                words.push(r.f3);
            }
            words.extend([r.f4.to_bits(), r.f5.to_bits(), r.f6.to_bits()]);
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out.extend_from_slice(&(tag0.len() as u32).to_le_bytes());
        out.extend_from_slice(tag0);
        out
    }
}
