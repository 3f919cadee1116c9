//! Binary packfiles (Havok 5.5 to 2014, file versions 5 to 11), seed 000.
//!
//! [`Packfile::parse`] reads the header, the section table, the fixups and the class-name
//! list without copying the data; [`Packfile::resolve`] follows a pointer slot.

pub mod fixup;
pub mod header;
pub mod locate;
pub mod read;
pub mod section;
pub(crate) mod view;
pub mod write;

use std::collections::HashMap;

pub use fixup::{GlobalFixup, LocalFixup, VirtualFixup};
pub use header::Header;
pub use section::Section;

use crate::bytes::Bytes;
use crate::error::{Error, Result};

/// An entry of the class-name section: `u32 signature, 0x09, name\0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassName {
    /// Offset of the name in the class-name section (what virtual fixups name).
    pub offset: u32,
    /// The stored signature.
    pub signature: u32,
    /// The class name.
    pub name: String,
}

/// A location in a packfile: section index and section-relative offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// Section index.
    pub section: u32,
    /// Offset inside the section.
    pub offset: u32,
}

/// A parsed packfile.
#[derive(Debug)]
pub struct Packfile<'a> {
    /// The header.
    pub header: Header,
    /// Section headers in file order.
    pub sections: Vec<Section>,
    /// Class names and their stored signatures, in section order.
    pub class_names: Vec<ClassName>,
    bytes: Bytes<'a>,
    pointers: HashMap<Loc, Loc>,
    objects: Vec<(Loc, u32)>,
    /// Exported objects by name.
    pub exports: Vec<(Loc, String)>,
    /// Pointer slots that name an object of another file.
    pub imports: HashMap<Loc, String>,
}

impl<'a> Packfile<'a> {
    /// Parses `data`.
    ///
    /// # Errors
    /// Any structural problem, with its offset.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = Header::parse(data)?;
        let bytes = Bytes::new(data, header.layout.endian);
        let first = header.section_headers_offset();
        let size = header.section_header_size();
        let count = u64::from(header.section_count);
        let avail = (data.len() as u64).saturating_sub(first);
        if count * size > avail {
            return Err(Error::truncated(first, count * size, avail).in_("section headers"));
        }
        let mut sections = Vec::with_capacity(count as usize);
        for i in 0..header.section_count {
            sections.push(Section::parse(&bytes, i, first + u64::from(i) * size)?);
        }
        let mut pf = Packfile {
            header,
            sections,
            class_names: Vec::new(),
            bytes,
            pointers: HashMap::new(),
            objects: Vec::new(),
            exports: Vec::new(),
            imports: HashMap::new(),
        };
        pf.class_names = pf.read_class_names()?;
        for s in &pf.sections {
            let idx = s.index;
            for f in fixup::local(&bytes, s)? {
                pf.check_in(idx, f.destination, s.abs(s.local_fixups))?;
                pf.pointers.insert(
                    Loc {
                        section: idx,
                        offset: f.source,
                    },
                    Loc {
                        section: idx,
                        offset: f.destination,
                    },
                );
            }
            for f in fixup::global(&bytes, s)? {
                let target = pf.sections.get(f.section as usize).ok_or_else(|| {
                    Error::invalid(
                        s.abs(s.global_fixups),
                        format!("global fixup names section {}", f.section),
                    )
                })?;
                pf.check_in(f.section, f.destination, target.abs(target.local_fixups))?;
                pf.pointers.insert(
                    Loc {
                        section: idx,
                        offset: f.source,
                    },
                    Loc {
                        section: f.section,
                        offset: f.destination,
                    },
                );
            }
            for f in fixup::virtual_(&bytes, s)? {
                pf.objects.push((
                    Loc {
                        section: idx,
                        offset: f.object,
                    },
                    f.class_name,
                ));
            }
            for (offset, name) in fixup::named(&bytes, s, s.exports, s.imports)? {
                pf.exports.push((
                    Loc {
                        section: idx,
                        offset,
                    },
                    name,
                ));
            }
            for (offset, name) in fixup::named(&bytes, s, s.imports, s.end)? {
                pf.imports.insert(
                    Loc {
                        section: idx,
                        offset,
                    },
                    name,
                );
            }
        }
        Ok(pf)
    }

    fn check_in(&self, section: u32, rel: u32, limit: u64) -> Result<()> {
        let s = &self.sections[section as usize];
        if s.abs(rel) > limit {
            return Err(Error::invalid(
                s.abs(rel),
                format!("fixup destination 0x{rel:X} is outside section `{}`", s.tag),
            ));
        }
        Ok(())
    }

    fn read_class_names(&self) -> Result<Vec<ClassName>> {
        let Some(s) = self.sections.get(self.header.class_names_section as usize) else {
            return Err(Error::invalid(
                0x20,
                "class-name section index is out of range",
            ));
        };
        let mut out = Vec::new();
        let data = s.data(&self.bytes);
        let mut o = 0usize;
        while o + 5 <= data.len() {
            let sig = self.bytes.u32(u64::from(s.start) + o as u64)?;
            if data[o] == 0xFF && sig == 0xFFFF_FFFF {
                break;
            }
            if data[o + 4] != 0x09 {
                return Err(Error::invalid(
                    s.abs(o as u32 + 4),
                    "class-name entry without its 0x09 separator",
                ));
            }
            let name = self.bytes.cstr(s.abs(o as u32 + 5))?;
            out.push(ClassName {
                offset: (o + 5) as u32,
                signature: sig,
                name: name.to_string(),
            });
            o += 5 + name.len() + 1;
        }
        Ok(out)
    }

    /// The file's layout rules (header offset 0x10).
    pub fn rules(&self) -> crate::layout::LayoutRules {
        self.header.layout
    }

    /// The file bytes in the file's byte order.
    pub fn bytes(&self) -> Bytes<'a> {
        self.bytes
    }

    /// The section with tag `tag`.
    pub fn section(&self, tag: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.tag == tag)
    }

    /// Absolute file offset of `loc`.
    pub fn abs(&self, loc: Loc) -> u64 {
        self.sections
            .get(loc.section as usize)
            .map_or(u64::MAX, |s| s.abs(loc.offset))
    }

    /// Where the pointer slot at `slot` points, `None` for null.
    pub fn resolve(&self, slot: Loc) -> Option<Loc> {
        self.pointers.get(&slot).copied()
    }

    /// Every pointer slot with a fixup, and its target.
    pub fn pointers(&self) -> &HashMap<Loc, Loc> {
        &self.pointers
    }

    /// Every object (virtual fixup) with its class name, in table order.
    pub fn objects(&self) -> impl Iterator<Item = (Loc, &str)> + '_ {
        self.objects.iter().map(|(loc, name_off)| {
            let name = self
                .class_names
                .iter()
                .find(|c| c.offset == *name_off)
                .map_or("?", |c| c.name.as_str());
            (*loc, name)
        })
    }

    /// The signature stored beside `class` in the class-name section.
    pub fn stored_signature(&self, class: &str) -> Option<u32> {
        self.class_names
            .iter()
            .find(|c| c.name == class)
            .map(|c| c.signature)
    }
}
