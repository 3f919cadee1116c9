//! The packfile header (docs/packfile-format.md §2).

use crate::bytes::Bytes;
use crate::error::{Error, ReadError, Result};
use crate::rules::{Endian, LayoutRules};

/// The eight magic bytes every packfile starts with.
pub const MAGIC: [u8; 8] = [0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10];

/// Size of the fixed header.
pub const HEADER_SIZE: u64 = 0x40;

/// Size of one section header in a packfile of `file_version`: 0x30, or 0x40 from version 11
/// on, where 16 bytes of 0xFF follow the seven words (`games/bloodborne/c2020_skeleton.hkx`;
/// docs/packfile-format.md §3). The reader and the writer both ask this.
pub fn section_header_size(file_version: u32) -> u64 {
    if file_version >= 11 {
        0x40
    } else {
        0x30
    }
}

/// The reflection classes every generation describes itself with, and every packfile
/// lists first in its class-name section.
pub const REFLECTION_CLASSES: [&str; 4] =
    ["hkClass", "hkClassMember", "hkClassEnum", "hkClassEnumItem"];

/// The flag Havok sets in every serialized array's capacity word (docs/packfile-format.md
/// §7.2: bit 31 is set in every `hkArray` header of the corpus).
pub const DONT_DEALLOCATE: u32 = 0x8000_0000;

/// The capacity word's flag bits. Havok 5.5 and 6.6 set 0x40000000 as well on some arrays
/// (havoklib-550/660: hkxEnvironment.variables, spline blockOffsets); it is kept per array.
pub const FLAG_MASK: u32 = 0xC000_0000;

/// The 64-byte header, plus the predicate block of version 11.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// `userTag` at 0x08.
    pub user_tag: u32,
    /// File version at 0x0C (5 for 5.5, 7 for 6.6/7.1, 8 for 2010.2, 9-11 later).
    pub file_version: u32,
    /// Layout rules at 0x10.
    pub layout: LayoutRules,
    /// Section count.
    pub section_count: u32,
    /// Index of the section holding the root object.
    pub contents_section: u32,
    /// Offset of the root object in that section.
    pub contents_offset: u32,
    /// Index of the class-name section.
    pub class_names_section: u32,
    /// Offset of the root object's class name in it.
    pub root_class_name_offset: u32,
    /// The 16 raw bytes of the contents-version field at 0x28.
    pub contents_version_raw: [u8; 16],
    /// Flags word at 0x38.
    pub flags: u32,
    /// `maxPredicate` at 0x3C (-1 without a predicate block).
    pub max_predicate: i16,
    /// `predicateArraySizePlusPadding` at 0x3E (-1 without a predicate block).
    pub predicate_size: i16,
}

impl Header {
    /// The contents version up to its NUL, e.g. `Havok-7.1.0-r1`.
    pub fn contents_version(&self) -> String {
        let end = self
            .contents_version_raw
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(16);
        String::from_utf8_lossy(&self.contents_version_raw[..end]).into_owned()
    }

    /// Where the section headers start: after the header and, in version 11, the predicate
    /// block (`games/bloodborne/*.hkx`: predicate size 16, first section header at 0x50).
    pub fn section_headers_offset(&self) -> u64 {
        HEADER_SIZE + u64::try_from(self.predicate_size.max(0)).unwrap_or(0)
    }

    /// Size of one section header ([`section_header_size`] of this file's version).
    pub fn section_header_size(&self) -> u64 {
        section_header_size(self.file_version)
    }

    /// Parses the header of `data`.
    ///
    /// # Errors
    /// Wrong magic, a truncated header, an unknown layout byte or an unsupported version.
    pub fn parse(data: &[u8]) -> Result<Header> {
        if data.len() < 8 || data[..8] != MAGIC {
            // TAG0 tagfiles (docs/tagfile-format.md §1) start with a section header; they are
            // not packfiles.
            if data.get(4..8) == Some(b"TAG0".as_slice()) {
                return Err(Error::invalid(
                    4,
                    "a TAG0 tagfile, not a packfile (read it with `file::open` or `tagfile::TagFile`)",
                ));
            }
            return Err(Error::read(ReadError::BadMagic).at(0));
        }
        if (data.len() as u64) < HEADER_SIZE {
            return Err(Error::truncated(0, HEADER_SIZE, data.len() as u64).in_("header"));
        }
        let pointer_size = data[0x10];
        if pointer_size != 4 && pointer_size != 8 {
            return Err(Error::invalid(
                0x10,
                format!("pointer size {pointer_size} (expected 4 or 8)"),
            )
            .in_("header"));
        }
        let endian = match data[0x11] {
            0 => Endian::Big,
            1 => Endian::Little,
            b => {
                return Err(
                    Error::invalid(0x11, format!("byte-order flag {b} (expected 0 or 1)"))
                        .in_("header"),
                )
            }
        };
        let layout = LayoutRules {
            pointer_size,
            endian,
            reuse_padding: data[0x12] != 0,
            empty_base: data[0x13] != 0,
        };
        let b = Bytes::new(data, endian);
        let mut raw = [0u8; 16];
        raw.copy_from_slice(&data[0x28..0x38]);
        let h = Header {
            user_tag: b.u32(0x08)?,
            file_version: b.u32(0x0C)?,
            layout,
            section_count: b.u32(0x14)?,
            contents_section: b.u32(0x18)?,
            contents_offset: b.u32(0x1C)?,
            class_names_section: b.u32(0x20)?,
            root_class_name_offset: b.u32(0x24)?,
            contents_version_raw: raw,
            flags: b.u32(0x38)?,
            max_predicate: b.u16(0x3C)? as i16,
            predicate_size: b.u16(0x3E)? as i16,
        };
        if !(5..=11).contains(&h.file_version) {
            return Err(Error::invalid(
                0x0C,
                format!("file version {} (hk reads 5 to 11)", h.file_version),
            )
            .in_("header"));
        }
        Ok(h)
    }
}
