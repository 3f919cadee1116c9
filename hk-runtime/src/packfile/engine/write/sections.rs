//! The file around the placed objects: each section with its fixup tables, the class-name
//! section, the export and import tables, global fixup targets, and the headers.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::model::Model;
use super::place::{pad_to, too_large, Engine, Tables, Target};
use crate::bytes::Scalar;
use crate::error::{Error, Result, WriteError};
use crate::graph::ObjectId;
use crate::packfile::header::{section_header_size, HEADER_SIZE, MAGIC, REFLECTION_CLASSES};
use crate::rules::Endian;

/// Where a section's fixups wait for the rest of the file: global fixup records whose
/// target may lie in a later section, and virtual fixup records whose class-name offset is
/// known only once every object is placed.
struct Pending {
    global: Vec<(usize, Target)>,
    virtual_: Vec<(usize, ObjectId)>,
}

impl<'m, M: Model> Engine<'m, M> {
    fn word(&mut self, v: u32) {
        let mut b = [0u8; 4];
        v.write(&mut b, self.endian);
        self.out.extend_from_slice(&b);
    }

    /// The header, every section with its tables, then what only the whole file settles:
    /// the class names in the order of first objects, class-name offsets of virtual
    /// fixups, global fixup targets, the root.
    pub(super) fn file(&mut self) -> Result<()> {
        let info = self.info;
        let pred_len = info.predicates.as_ref().map_or(0, |(_, b)| b.len());
        let sh_size = section_header_size(info.file_version) as usize;
        let first_header = HEADER_SIZE as usize + pred_len;
        self.out
            .resize(first_header + sh_size * info.sections.len(), 0);
        // The class-name section's size is known before the walk: its names are the
        // file's list (or the reflection classes) and every object's class.
        let mut names: Vec<&'m str> = match &info.class_names {
            Some(list) => list.iter().map(String::as_str).collect(),
            None => REFLECTION_CLASSES.to_vec(),
        };
        let mut listed: HashSet<&str> = names.iter().copied().collect();
        let mut extra: Vec<&'m str> = Vec::new();
        for i in 0..self.model.len() {
            let c = self.model.class_name(ObjectId(i as u32));
            if listed.insert(c) {
                extra.push(c);
            }
        }
        let cn_len: usize = names
            .iter()
            .chain(&extra)
            .map(|n| 5 + n.len() + 1)
            .sum::<usize>()
            .div_ceil(16)
            * 16;
        let mut cn_at = 0;
        let mut pending = Pending {
            global: Vec::new(),
            virtual_: Vec::new(),
        };
        let mut headers = Vec::with_capacity(info.sections.len());
        for si in 0..info.sections.len() {
            pad_to(&mut self.out, 16, 0xFF);
            self.origin = self.out.len();
            let start = u32::try_from(self.origin).map_err(|_| too_large("a file"))?;
            let mut tables = Tables::default();
            if si as u32 == info.class_names_section {
                cn_at = self.out.len();
                self.out.resize(cn_at + cn_len, 0xFF);
            } else {
                self.section(si as u32, &mut tables)?;
            }
            let h = self.tables(si as u32, start, tables, &mut pending)?;
            headers.push(h);
        }
        // Class names: the listed ones, then each class in the order of its first object.
        let mut in_names: HashSet<&str> = names.iter().copied().collect();
        for id in &self.order {
            let c = self.model.class_name(*id);
            if in_names.insert(c) {
                names.push(c);
            }
        }
        let mut name_at: HashMap<&str, u32> = HashMap::default();
        let mut o = cn_at;
        for name in &names {
            let sig = self
                .model
                .signature(name)
                .map_err(|err| err.in_(format!("class name {name}")))?;
            sig.write(&mut self.out[o..o + 4], self.endian);
            self.out[o + 4] = 0x09;
            name_at.insert(name, (o + 5 - cn_at) as u32);
            self.out[o + 5..o + 5 + name.len()].copy_from_slice(name.as_bytes());
            self.out[o + 5 + name.len()] = 0;
            o += 5 + name.len() + 1;
        }
        for (at, id) in std::mem::take(&mut pending.virtual_) {
            let class = self.model.class_name(id);
            let name = *name_at.get(class).ok_or_else(|| {
                Error::write(WriteError::Invalid(format!(
                    "class `{class}` has no name entry"
                )))
            })?;
            name.write(&mut self.out[at..at + 4], self.endian);
        }
        for (at, t) in std::mem::take(&mut pending.global) {
            let (sec, dst) = self.target(&t)?;
            sec.write(&mut self.out[at..at + 4], self.endian);
            dst.write(&mut self.out[at + 4..at + 8], self.endian);
        }
        self.header(&headers, &name_at, first_header, sh_size)
    }

    /// Where a global fixup's target was placed.
    fn target(&self, t: &Target) -> Result<(u32, u32)> {
        match t {
            Target::Object(id) => self
                .placed
                .get(id.0 as usize)
                .copied()
                .flatten()
                .ok_or_else(|| {
                    Error::write(WriteError::BadPointer(format!(
                        "pointer to object #{} that was never placed (it lives in no data section)",
                        id.0
                    )))
                }),
            Target::Into(id, path) => {
                self.into_at
                    .get(&(*id, path.clone()))
                    .copied()
                    .ok_or_else(|| {
                        Error::write(WriteError::BadPointer(format!(
                            "pointer into object #{} {} at `{}`, which owns no such array element",
                            id.0,
                            self.model.class_name(*id),
                            self.model.path_text(*id, path)
                        )))
                    })
            }
        }
    }

    /// Walks the objects of section `si` into `out`.
    fn section(&mut self, si: u32, tables: &mut Tables) -> Result<()> {
        if si == self.info.contents_section {
            self.visit(self.model.root(), si, tables)?;
        }
        for i in 0..self.model.len() {
            let id = ObjectId(i as u32);
            if self.info.section_of(id) == si {
                self.visit(id, si, tables)?;
            }
        }
        pad_to(&mut self.out, 16, 0);
        Ok(())
    }

    /// The fixup tables of the section that starts at `start`; returns the section
    /// header's seven words.
    fn tables(
        &mut self,
        si: u32,
        start: u32,
        t: Tables,
        pending: &mut Pending,
    ) -> Result<[u32; 7]> {
        let local = self.rel()?;
        // Fixups in the order the walk meets them: slot by slot, into an array's elements
        // before the next slot (havoklib-710: a skeleton's bone names come before its
        // reference pose; c2240_ragdoll_with_types.hkx: a ragdoll instance's skeleton
        // pointer comes after its arrays' body pointers).
        for &(src, dst) in &t.local {
            self.word(src);
            self.word(dst);
        }
        pad_to(&mut self.out, 16, 0xFF);
        let global = self.rel()?;
        for (src, target) in t.global {
            self.word(src);
            pending.global.push((self.out.len(), target));
            self.out.extend_from_slice(&[0; 8]);
        }
        // A variant whose class description is not in the file keeps its fixup as an
        // erased record (havoklib-550/660: two all-0xFF records for the root container's
        // two named variants).
        for _ in 0..t.erased {
            self.out.extend_from_slice(&[0xFF; 12]);
        }
        pad_to(&mut self.out, 16, 0xFF);
        let virt = self.rel()?;
        let cn = self.info.class_names_section;
        for (obj, id) in t.virtual_ {
            self.word(obj);
            self.word(cn);
            pending.virtual_.push((self.out.len(), id));
            self.out.extend_from_slice(&[0; 4]);
        }
        pad_to(&mut self.out, 16, 0xFF);
        let exports = self.rel()?;
        let mut exp: Vec<(u32, &str)> = self
            .info
            .exports
            .iter()
            .filter_map(|(id, name)| {
                self.placed
                    .get(id.0 as usize)
                    .copied()
                    .flatten()
                    .filter(|(sec, _)| *sec == si)
                    .map(|(_, off)| (off, name.as_str()))
            })
            .collect();
        exp.sort();
        let mut buf = std::mem::take(&mut self.out);
        self.named_table(&mut buf, exp.into_iter());
        let imports = u32::try_from(buf.len() - self.origin).map_err(|_| too_large("a section"))?;
        self.named_table(&mut buf, t.imports.iter().map(|(a, n)| (*a, n.as_str())));
        self.out = buf;
        let end = self.rel()?;
        Ok([start, local, global, virt, exports, imports, end])
    }

    /// An export or import table: `{u32 offset, name, NUL}` records padded to 4, the table
    /// padded with 0xFF to 16 (see [`crate::packfile::fixup::named`]).
    fn named_table<'n>(&self, out: &mut Vec<u8>, entries: impl Iterator<Item = (u32, &'n str)>) {
        let mut word = [0u8; 4];
        for (offset, name) in entries {
            offset.write(&mut word, self.endian);
            out.extend_from_slice(&word);
            out.extend_from_slice(name.as_bytes());
            out.push(0);
            pad_to(out, 4, 0);
        }
        pad_to(out, 16, 0xFF);
    }

    /// The file header and section headers.
    fn header(
        &mut self,
        headers: &[[u32; 7]],
        name_at: &HashMap<&str, u32>,
        first: usize,
        sh_size: usize,
    ) -> Result<()> {
        let info = self.info;
        let out = &mut self.out;
        let e = self.endian;
        out[..8].copy_from_slice(&MAGIC);
        let l = info.layout;
        let root = self.model.root();
        let root_at = self
            .placed
            .get(root.0 as usize)
            .copied()
            .flatten()
            .map_or(0, |p| p.1);
        let root_name = name_at
            .get(self.model.class_name(root))
            .copied()
            .unwrap_or(0);
        let words: [(usize, u32); 7] = [
            (0x08, info.user_tag),
            (0x0C, info.file_version),
            (0x14, headers.len() as u32),
            (0x18, info.contents_section),
            (0x1C, root_at),
            (0x20, info.class_names_section),
            (0x24, root_name),
        ];
        for (o, v) in words {
            v.write(&mut out[o..o + 4], e);
        }
        out[0x10] = l.pointer_size;
        out[0x11] = u8::from(l.endian == Endian::Little);
        out[0x12] = u8::from(l.reuse_padding);
        out[0x13] = u8::from(l.empty_base);
        // Contents version: the text, a NUL, then 0xFF (docs/packfile-format.md §2).
        let cv = info.contents_version.as_bytes();
        out[0x28..0x28 + cv.len()].copy_from_slice(cv);
        out[0x28 + cv.len()] = 0;
        out[0x28 + cv.len() + 1..0x38].fill(0xFF);
        info.flags.write(&mut out[0x38..0x3C], e);
        let (maxp, block): (u16, &[u8]) = match &info.predicates {
            Some((m, b)) => (*m as u16, b),
            None => (0xFFFF, &[]),
        };
        let pred_word = if info.predicates.is_some() {
            block.len() as u16
        } else {
            0xFFFF
        };
        maxp.write(&mut out[0x3C..0x3E], e);
        pred_word.write(&mut out[0x3E..0x40], e);
        out[0x40..0x40 + block.len()].copy_from_slice(block);
        for (i, words) in headers.iter().enumerate() {
            let h = first + i * sh_size;
            let tag = info.sections[i].as_bytes();
            out[h..h + 19].fill(0);
            out[h..h + tag.len()].copy_from_slice(tag);
            out[h + 0x13] = 0xFF;
            for (k, v) in words.iter().enumerate() {
                v.write(&mut out[h + 0x14 + 4 * k..h + 0x18 + 4 * k], e);
            }
            if sh_size == 0x40 {
                out[h + 0x30..h + 0x40].fill(0xFF);
            }
        }
        Ok(())
    }
}
