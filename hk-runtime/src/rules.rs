//! Byte order and layout rules: the one small value that decides every offset (core layer).

use std::fmt;

/// Byte order of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl Endian {
    /// The schema spelling: `"little"` or `"big"`.
    pub const fn name(self) -> &'static str {
        match self {
            Endian::Little => "little",
            Endian::Big => "big",
        }
    }
}

/// The four layout bytes of a packfile header (offset 0x10, docs/packfile-format.md §2.2;
/// docs/layout-and-signatures.md §1), the one value that decides every offset, as gimli's
/// `Encoding` does for DWARF.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayoutRules {
    /// Pointer size in bytes: 4 or 8.
    pub pointer_size: u8,
    /// Byte order.
    pub endian: Endian,
    /// A derived class starts where its parent's members end, in the parent's tail padding.
    pub reuse_padding: bool,
    /// Empty base classes take no space.
    pub empty_base: bool,
}

impl LayoutRules {
    /// Havok 7.1 on PS3/Xbox 360: 32-bit big-endian, reuse padding and empty base on.
    pub const BE32: LayoutRules = LayoutRules {
        pointer_size: 4,
        endian: Endian::Big,
        reuse_padding: true,
        empty_base: true,
    };

    /// Pointer size as a `u32`.
    pub const fn ptr(self) -> u32 {
        self.pointer_size as u32
    }

    /// The short tag the Havok demo files use in their names, e.g. `4101`:
    /// pointer size, little endian, reuse padding, empty base.
    pub fn tag(self) -> String {
        format!(
            "{}{}{}{}",
            self.pointer_size,
            u8::from(self.endian == Endian::Little),
            u8::from(self.reuse_padding),
            u8::from(self.empty_base)
        )
    }
}

impl fmt::Display for LayoutRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ptr={} {} reusePad={} emptyBase={}",
            self.pointer_size,
            if self.endian == Endian::Big {
                "BE"
            } else {
                "LE"
            },
            u8::from(self.reuse_padding),
            u8::from(self.empty_base)
        )
    }
}

impl LayoutRules {
    /// Index of these rules among the 8 layouts byte order does not tell apart (pointer
    /// size, reuse padding, empty base), for per-rules tables: the same numbering as
    /// [`LayoutRules::from_index`].
    pub const fn index(self) -> usize {
        (if self.pointer_size == 8 { 4 } else { 0 })
            + (if self.reuse_padding { 2 } else { 0 })
            + (if self.empty_base { 1 } else { 0 })
    }

    /// The rules of table entry `i` (little endian; byte order does not move anything).
    pub const fn from_index(i: usize) -> LayoutRules {
        LayoutRules {
            pointer_size: if i & 4 != 0 { 8 } else { 4 },
            endian: Endian::Little,
            reuse_padding: i & 2 != 0,
            empty_base: i & 1 != 0,
        }
    }

    /// Parses the four-digit tag of [`LayoutRules::tag`] (`4011`: 4-byte pointers, big
    /// endian, reuse padding, empty base).
    pub fn from_tag(tag: &str) -> Option<LayoutRules> {
        let b = tag.as_bytes();
        if b.len() != 4 || !matches!(b[0], b'4' | b'8') {
            return None;
        }
        let bit = |c: u8| match c {
            b'0' => Some(false),
            b'1' => Some(true),
            _ => None,
        };
        Some(LayoutRules {
            pointer_size: b[0] - b'0',
            endian: if bit(b[1])? {
                Endian::Little
            } else {
                Endian::Big
            },
            reuse_padding: bit(b[2])?,
            empty_base: bit(b[3])?,
        })
    }
}
