//! Section headers (docs/packfile-format.md §3: seven words after a 20-byte tag).

use crate::bytes::Bytes;
use crate::error::{Error, Result};

/// One section header. Offsets other than `start` are relative to `start`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Index in the file.
    pub index: u32,
    /// Tag: `__classnames__`, `__types__` or `__data__`.
    pub tag: String,
    /// Raw 20 tag bytes (19 characters and the 0xFF pad byte).
    pub tag_raw: [u8; 20],
    /// Absolute offset of the section data.
    pub start: u32,
    /// Start of the local fixup table (end of the object data).
    pub local_fixups: u32,
    /// Start of the global fixup table.
    pub global_fixups: u32,
    /// Start of the virtual fixup table.
    pub virtual_fixups: u32,
    /// Start of the export table.
    pub exports: u32,
    /// Start of the import table.
    pub imports: u32,
    /// End of the section.
    pub end: u32,
}

impl Section {
    /// Parses the header at `offset`, checking that its tables are ordered and in the file.
    ///
    /// # Errors
    /// Truncation, or tables out of order or past the end of the file.
    pub fn parse(b: &Bytes<'_>, index: u32, offset: u64) -> Result<Section> {
        let raw = b.slice(offset, 0x30)?;
        let mut tag_raw = [0u8; 20];
        tag_raw.copy_from_slice(&raw[..20]);
        let end = tag_raw.iter().take(19).position(|&c| c == 0).unwrap_or(19);
        let tag = String::from_utf8_lossy(&tag_raw[..end]).into_owned();
        let w = |i: u64| b.u32(offset + 0x14 + 4 * i);
        let s = Section {
            index,
            tag,
            tag_raw,
            start: w(0)?,
            local_fixups: w(1)?,
            global_fixups: w(2)?,
            virtual_fixups: w(3)?,
            exports: w(4)?,
            imports: w(5)?,
            end: w(6)?,
        };
        let order = [
            s.local_fixups,
            s.global_fixups,
            s.virtual_fixups,
            s.exports,
            s.imports,
            s.end,
        ];
        if order.windows(2).any(|p| p[0] > p[1]) {
            return Err(Error::invalid(
                offset + 0x18,
                format!(
                    "section `{}` has its tables out of order: {order:X?}",
                    s.tag
                ),
            ));
        }
        let abs_end = u64::from(s.start) + u64::from(s.end);
        if abs_end > b.len() as u64 {
            return Err(Error::invalid(
                offset + 0x2C,
                format!(
                    "section `{}` ends at 0x{abs_end:X}, past the end of the file (0x{:X})",
                    s.tag,
                    b.len()
                ),
            ));
        }
        Ok(s)
    }

    /// Absolute offset of a section-relative offset.
    pub fn abs(&self, rel: u32) -> u64 {
        u64::from(self.start) + u64::from(rel)
    }

    /// The object data: from the start to the local fixups.
    pub fn data<'a>(&self, b: &Bytes<'a>) -> &'a [u8] {
        &b.data()[self.start as usize..self.abs(self.local_fixups) as usize]
    }
}
