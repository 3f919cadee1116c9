//! The tagfile section tree.

use crate::bytes::Bytes;
use crate::error::{Error, Result};
use crate::rules::Endian;

/// Size of a section header.
pub const SECTION_HEADER: u64 = 8;

/// The tags that hold other sections (DSR and TotK files: `TAG0`, `TYPE`, `INDX`; a type
/// compendium's `TCM0`, docs/tagfile-format.md §1a).
const CONTAINERS: [&[u8; 4]; 4] = [b"TAG0", b"TYPE", b"INDX", b"TCM0"];

/// One section and, for containers, its children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Four-character tag.
    pub tag: [u8; 4],
    /// The two flag bits of the header word.
    pub flags: u8,
    /// Offset of the header in the input.
    pub offset: u64,
    /// Size including the 8-byte header.
    pub size: u64,
    /// Child sections, for containers.
    pub children: Vec<Section>,
}

impl Section {
    /// The tag as text.
    pub fn tag_str(&self) -> String {
        String::from_utf8_lossy(&self.tag).into_owned()
    }

    /// Offset and length of the section's payload.
    pub fn payload(&self) -> (u64, u64) {
        (self.offset + SECTION_HEADER, self.size - SECTION_HEADER)
    }

    /// The first child with tag `tag`.
    pub fn child(&self, tag: &[u8; 4]) -> Option<&Section> {
        self.children.iter().find(|c| &c.tag == tag)
    }

    /// Parses the section at `offset` of `data` and its children, checking that they fill
    /// their parent exactly.
    ///
    /// # Errors
    /// A header past the end, a size smaller than the header or past its parent, a
    /// container flag on a data section or the reverse.
    pub fn parse(data: &[u8], offset: u64, limit: u64) -> Result<Section> {
        Self::parse_at(data, offset, limit, 0)
    }

    fn parse_at(data: &[u8], offset: u64, limit: u64, depth: usize) -> Result<Section> {
        if depth > 8 {
            return Err(Error::invalid(offset, "tagfile sections nest too deep"));
        }
        let b = Bytes::new(data, Endian::Big);
        let word = b.u32(offset)?;
        let raw = b.slice(offset + 4, 4)?;
        let mut tag = [0u8; 4];
        tag.copy_from_slice(raw);
        let flags = (word >> 30) as u8;
        let size = u64::from(word & 0x3FFF_FFFF);
        let name = String::from_utf8_lossy(&tag).into_owned();
        if size < SECTION_HEADER {
            return Err(Error::invalid(
                offset,
                format!("section `{name}` is {size} bytes, less than its header"),
            ));
        }
        if offset + size > limit {
            return Err(Error::invalid(
                offset,
                format!(
                    "section `{name}` of {size} bytes runs past its parent (ends at 0x{limit:X})"
                ),
            ));
        }
        let container = CONTAINERS.contains(&&tag);
        // Containers have kind bits 00, leaves 01 (docs/tagfile-format.md §1, 6/6 files).
        if container != (flags == 0) {
            return Err(Error::invalid(
                offset,
                format!("section `{name}` has flags {flags}"),
            ));
        }
        let mut children = Vec::new();
        if container {
            let mut o = offset + SECTION_HEADER;
            while o < offset + size {
                let child = Section::parse_at(data, o, offset + size, depth + 1)?;
                o += child.size;
                children.push(child);
            }
        }
        Ok(Section {
            tag,
            flags,
            offset,
            size,
            children,
        })
    }
}

/// Where the TAG0 section of `data` starts: at 0, or after a wrapper such as phive's.
pub fn find_tag0(data: &[u8]) -> Option<u64> {
    (0..data.len().min(0x100).saturating_sub(7))
        .step_by(4)
        .find(|&o| &data[o + 4..o + 8] == b"TAG0")
        .map(|o| o as u64)
}
