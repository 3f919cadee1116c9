//! Binary packfiles (Havok 5.5 to 2014, file versions 5 to 11), docs/packfile-format.md.
//!
//! [`Packfile::parse`] reads the header, the section table, the fixups and the class-name
//! list without copying the data; [`Packfile::resolve`] follows a pointer slot.

#[cfg(feature = "front")]
pub mod check;
pub mod engine;
pub mod fixup;
#[cfg(feature = "packfile-graph")]
pub mod graph;
pub mod header;
pub mod info;
pub mod locate;
#[cfg(feature = "front")]
pub(crate) mod members;
#[cfg(feature = "front")]
pub mod metadata;
pub mod section;

pub use fixup::{GlobalFixup, LocalFixup, VirtualFixup};
pub use header::Header;
pub use info::PackfileInfo;
pub use section::Section;

use std::sync::OnceLock;

use crate::bytes::Bytes;
use crate::error::{Error, ReadError, Result};

/// An entry of the class-name section: `u32 signature, 0x09, name\0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassName<'a> {
    /// Offset of the name in the class-name section (what virtual fixups name).
    pub offset: u32,
    /// The stored signature.
    pub signature: u32,
    /// The class name, borrowed from the file.
    pub name: &'a str,
}

/// A location in a packfile: section index and section-relative offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// Section index.
    pub section: u32,
    /// Offset inside the section.
    pub offset: u32,
}

/// A parsed packfile: header, sections and every fixup table, indexed for lookups in
/// logarithmic time (no table is searched linearly per object or per pointer).
#[derive(Debug)]
pub struct Packfile<'a> {
    /// The header.
    pub header: Header,
    /// Section headers in file order.
    pub sections: Vec<Section>,
    /// Class names and their stored signatures, in section order (ascending offsets).
    pub class_names: Vec<ClassName<'a>>,
    bytes: Bytes<'a>,
    /// Local and global fixups, `(source, target)`, sorted by source.
    pointers: Vec<(Loc, Loc)>,
    /// Objects (virtual fixups): location and index into `class_names`, sorted by location.
    objects: Vec<(Loc, u32)>,
    /// Exported objects by name.
    pub exports: Vec<(Loc, String)>,
    /// Pointer slots that name an object of another file, sorted by slot.
    pub imports: Vec<(Loc, String)>,
    /// Indices of `class_names` sorted by name (stable), made on first use.
    by_name: OnceLock<Box<[u32]>>,
}

/// Reads the section headers and refuses sections that share a byte: each table is then
/// read once, in time linear in the file (thousands of sections over the same bytes would
/// read them thousands of times).
fn read_sections(header: &Header, bytes: &Bytes<'_>) -> Result<Vec<Section>> {
    let first = header.section_headers_offset();
    let size = header.section_header_size();
    let count = u64::from(header.section_count);
    let avail = (bytes.len() as u64).saturating_sub(first);
    if count.saturating_mul(size) > avail {
        return Err(Error::count(first, count, size, avail).in_("section headers"));
    }
    let mut sections = Vec::with_capacity(count as usize);
    for i in 0..header.section_count {
        sections.push(Section::parse(bytes, i, first + u64::from(i) * size)?);
    }
    let mut spans: Vec<(u64, u64, u32)> = sections
        .iter()
        .filter(|s| s.end > 0)
        .map(|s| (u64::from(s.start), s.abs(s.end), s.index))
        .collect();
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        let (a, b) = (&sections[w[0].2 as usize], &sections[w[1].2 as usize]);
        return Err(Error::invalid(
            first + u64::from(b.index) * size + 0x14,
            format!(
                "section {} `{}` (0x{:X}..0x{:X}) overlaps section {} `{}` (0x{:X}..0x{:X})",
                b.index, b.tag, w[1].0, w[1].1, a.index, a.tag, w[0].0, w[0].1
            ),
        ));
    }
    Ok(sections)
}

impl<'a> Packfile<'a> {
    /// Parses `data`.
    ///
    /// # Errors
    /// Any structural problem, with its offset: sections that overlap, a table that runs
    /// past its section, a fixup outside its target section or naming a section the file
    /// lacks, two fixups for one pointer slot, two objects at one place, an object whose
    /// class name is not an entry of the class-name section.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = Header::parse(data)?;
        let bytes = Bytes::new(data, header.layout.endian);
        let sections = read_sections(&header, &bytes)?;
        let mut pf = Packfile {
            header,
            sections,
            class_names: Vec::new(),
            bytes,
            pointers: Vec::new(),
            objects: Vec::new(),
            exports: Vec::new(),
            imports: Vec::new(),
            by_name: OnceLock::new(),
        };
        pf.class_names = pf.read_class_names()?;
        let mut pointers = Vec::new();
        let mut objects = Vec::new();
        let (mut exports, mut imports) = (Vec::new(), Vec::new());
        for s in &pf.sections {
            pf.local_fixups(s, &mut pointers)?;
            pf.global_fixups(s, &mut pointers)?;
            pf.virtual_fixups(s, &mut objects)?;
            let at = |offset| Loc {
                section: s.index,
                offset,
            };
            for (offset, name) in fixup::named(&pf.bytes, s, s.exports, s.imports)? {
                exports.push((at(offset), name));
            }
            for (offset, name) in fixup::named(&pf.bytes, s, s.imports, s.end)? {
                imports.push((at(offset), name));
            }
        }
        pf.exports = exports;
        pf.imports = imports;
        pf.index(pointers, objects)?;
        Ok(pf)
    }

    /// Reads the local fixups of section `s` (pointers inside it) into `pointers`.
    fn local_fixups(&self, s: &Section, pointers: &mut Vec<(Loc, Loc)>) -> Result<()> {
        let idx = s.index;
        let local_limit = s.abs(s.local_fixups);
        fixup::each::<2>(
            &self.bytes,
            s,
            s.local_fixups,
            s.global_fixups,
            "local",
            |_, [source, destination]| {
                if s.abs(destination) > local_limit {
                    return Err(Error::read(ReadError::FixupOutside {
                        destination,
                        section: s.tag.clone(),
                    })
                    .at(s.abs(destination)));
                }
                let at = |offset| Loc {
                    section: idx,
                    offset,
                };
                pointers.push((at(source), at(destination)));
                Ok(())
            },
        )
    }

    /// Reads the global fixups of section `s` (pointers into any section) into `pointers`.
    fn global_fixups(&self, s: &Section, pointers: &mut Vec<(Loc, Loc)>) -> Result<()> {
        let sections = &self.sections;
        fixup::each::<3>(
            &self.bytes,
            s,
            s.global_fixups,
            s.virtual_fixups,
            "global",
            |at, [source, section, destination]| {
                let target = sections.get(section as usize).ok_or_else(|| {
                    Error::invalid(
                        at + 4,
                        format!(
                            "global fixup names section {section}, the file has {}",
                            sections.len()
                        ),
                    )
                    .in_(s.tag.clone())
                })?;
                if target.abs(destination) > target.abs(target.local_fixups) {
                    return Err(Error::read(ReadError::FixupOutside {
                        destination,
                        section: target.tag.clone(),
                    })
                    .at(target.abs(destination)));
                }
                let source = Loc {
                    section: s.index,
                    offset: source,
                };
                let destination = Loc {
                    section,
                    offset: destination,
                };
                pointers.push((source, destination));
                Ok(())
            },
        )
    }

    /// Reads the virtual fixups of section `s` (objects and their class-name entries) into
    /// `objects`.
    fn virtual_fixups(&self, s: &Section, objects: &mut Vec<(Loc, u32)>) -> Result<()> {
        let names_section = self.header.class_names_section;
        let names_len = self
            .sections
            .get(names_section as usize)
            .map_or(0, |n| n.local_fixups);
        let class_names = &self.class_names;
        fixup::each::<3>(
            &self.bytes,
            s,
            s.virtual_fixups,
            s.exports,
            "virtual",
            |at, [object, section, class_name]| {
                let bad =
                    |word: u64, msg: String| Err(Error::invalid(at + word, msg).in_(s.tag.clone()));
                if section != names_section {
                    return bad(
                        4,
                        format!(
                            "virtual fixup for the object at 0x{object:X} names section {section} for its class name; the class names are in section {names_section}"
                        ),
                    );
                }
                if class_name >= names_len {
                    return bad(
                        8,
                        format!(
                            "virtual fixup for the object at 0x{object:X} names class-name offset 0x{class_name:X}, past the class-name data (0x{names_len:X} bytes)"
                        ),
                    );
                }
                let Ok(name) = class_names.binary_search_by_key(&class_name, |c| c.offset) else {
                    return bad(
                        8,
                        format!(
                            "virtual fixup for the object at 0x{object:X} names class-name offset 0x{class_name:X}, which starts no entry"
                        ),
                    );
                };
                let loc = Loc {
                    section: s.index,
                    offset: object,
                };
                objects.push((loc, name as u32));
                Ok(())
            },
        )
    }

    /// Sorts the pointer, object and import tables for lookups and refuses two entries for
    /// one slot or one object.
    fn index(&mut self, mut pointers: Vec<(Loc, Loc)>, mut objects: Vec<(Loc, u32)>) -> Result<()> {
        if !pointers.is_sorted_by_key(|p| p.0) {
            pointers.sort_by_key(|p| (u64::from(p.0.section) << 32) | u64::from(p.0.offset));
        }
        if let Some(w) = pointers.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::invalid(
                self.abs(w[0].0),
                "two fixups name this pointer slot",
            ));
        }
        if !objects.is_sorted() {
            objects.sort_unstable();
        }
        if let Some(w) = objects.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(self.duplicate_object(w[0].0));
        }
        self.imports.sort();
        if let Some(w) = self.imports.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::invalid(
                self.abs(w[0].0),
                "two imports name this slot",
            ));
        }
        self.pointers = pointers;
        self.objects = objects;
        Ok(())
    }

    /// The error for two virtual fixups naming the object at `loc`, at the second record.
    fn duplicate_object(&self, loc: Loc) -> Error {
        let mut records = Vec::new();
        if let Some(s) = self.sections.get(loc.section as usize) {
            let _ = fixup::each::<3>(
                &self.bytes,
                s,
                s.virtual_fixups,
                s.exports,
                "virtual",
                |at, [object, ..]| {
                    if object == loc.offset && records.len() < 2 {
                        records.push(at);
                    }
                    Ok(())
                },
            );
        }
        let object = self.abs(loc);
        match records[..] {
            [first, second] => Error::invalid(
                second,
                format!(
                    "two virtual fixups name an object here: the records at 0x{first:X} and 0x{second:X} both name the object at 0x{object:X}"
                ),
            ),
            _ => Error::invalid(object, "two virtual fixups name an object here"),
        }
    }

    fn read_class_names(&self) -> Result<Vec<ClassName<'a>>> {
        let Some(s) = self.sections.get(self.header.class_names_section as usize) else {
            return Err(Error::invalid(
                0x20,
                "class-name section index is out of range",
            ));
        };
        let mut out = Vec::new();
        let data: &'a [u8] = s.data(&self.bytes);
        let e = self.header.layout.endian;
        let mut o = 0usize;
        while let Some(entry) = data.get(o..o + 5) {
            let sig = <u32 as crate::bytes::Scalar>::read(entry, e);
            if sig == 0xFFFF_FFFF {
                break;
            }
            if entry[4] != 0x09 {
                return Err(Error::invalid(
                    s.abs(o as u32 + 4),
                    "class-name entry without its 0x09 separator",
                ));
            }
            let rest = &data[o + 5..];
            let n = rest.iter().position(|&b| b == 0).ok_or_else(|| {
                Error::unterminated(s.abs(o as u32 + 5), "class name", "its section")
            })?;
            let name = std::str::from_utf8(&rest[..n])
                .map_err(|_| Error::invalid(s.abs(o as u32 + 5), "class name is not UTF-8"))?;
            out.push(ClassName {
                offset: (o + 5) as u32,
                signature: sig,
                name,
            });
            o += 5 + n + 1;
        }
        Ok(out)
    }

    /// Roughly how many heap bytes the parsed tables take (what a read charges against its
    /// memory limit for them).
    pub fn heap_size(&self) -> u64 {
        use std::mem::size_of;
        let named = |v: &[(Loc, String)]| {
            v.iter()
                .map(|(_, n)| (size_of::<(Loc, String)>() + n.len()) as u64)
                .sum::<u64>()
        };
        (self.sections.len() * size_of::<Section>()
            + self.class_names.len() * size_of::<ClassName<'_>>()
            + self.pointers.len() * size_of::<(Loc, Loc)>()
            + self.objects.len() * size_of::<(Loc, u32)>()) as u64
            + named(&self.exports)
            + named(&self.imports)
    }

    /// The file's layout rules (header offset 0x10).
    pub fn rules(&self) -> crate::rules::LayoutRules {
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
        self.fixup_index(slot).map(|i| self.pointers[i].1)
    }

    /// The index of the fixup for `slot` in [`Packfile::pointers`].
    pub fn fixup_index(&self, slot: Loc) -> Option<usize> {
        self.pointers.binary_search_by_key(&slot, |p| p.0).ok()
    }

    /// Every pointer slot with a fixup and its target, sorted by slot.
    pub fn pointers(&self) -> &[(Loc, Loc)] {
        &self.pointers
    }

    /// The import that names `slot`, if any.
    pub fn import(&self, slot: Loc) -> Option<&str> {
        self.imports
            .binary_search_by_key(&slot, |p| p.0)
            .ok()
            .map(|i| self.imports[i].1.as_str())
    }

    /// Every object (virtual fixup) with its class name, sorted by location.
    pub fn objects(&self) -> impl ExactSizeIterator<Item = (Loc, &str)> + '_ {
        self.objects
            .iter()
            .map(|(loc, n)| (*loc, self.class_names[*n as usize].name))
    }

    /// Every object with the index of its class name in [`Packfile::class_names`].
    pub fn object_table(&self) -> &[(Loc, u32)] {
        &self.objects
    }

    /// The index of the object at `loc` in [`Packfile::object_table`].
    pub fn object_at(&self, loc: Loc) -> Option<usize> {
        self.objects.binary_search_by_key(&loc, |o| o.0).ok()
    }

    /// The signature stored beside `class` in the class-name section (its first entry).
    pub fn stored_signature(&self, class: &str) -> Option<u32> {
        let by_name = self.by_name.get_or_init(|| {
            let mut v: Vec<u32> = (0..self.class_names.len() as u32).collect();
            // Stable: the first entry of a name comes first.
            v.sort_by_key(|&i| self.class_names[i as usize].name);
            v.into()
        });
        let names = &self.class_names;
        let i = by_name.partition_point(|&i| names[i as usize].name < class);
        by_name
            .get(i)
            .map(|&i| &names[i as usize])
            .filter(|c| c.name == class)
            .map(|c| c.signature)
    }
}
