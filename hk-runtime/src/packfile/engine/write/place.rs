//! Placement: the engine's state, and the walk that places each object's body, its
//! relative arrays and the data its slots own, recording the fixups it meets.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::model::{Body, Context, Model, Slot};
use crate::bytes::Scalar;
use crate::error::PathSegment;
use crate::error::{Error, Result, WriteError};
use crate::graph::{ObjectId, Ptr, Seg};
use crate::packfile::info::PackfileInfo;
use crate::rules::Endian;

/// The fixup tables of the section being written.
#[derive(Default)]
pub(super) struct Tables {
    pub(super) local: Vec<(u32, u32)>,
    pub(super) global: Vec<(u32, Target)>,
    pub(super) virtual_: Vec<(u32, ObjectId)>,
    pub(super) erased: usize,
    pub(super) imports: Vec<(u32, String)>,
}

/// A pointer target waiting for every section to be placed.
pub(super) enum Target {
    Object(ObjectId),
    Into(ObjectId, Box<[Seg]>),
}

/// An object and the path to an array element it owns.
type Place = (ObjectId, Box<[Seg]>);

pub(super) struct Engine<'m, M: Model> {
    pub(super) model: &'m M,
    pub(super) info: &'m PackfileInfo,
    pub(super) endian: Endian,
    pub(super) ptr: u32,
    pub(super) string_align: usize,
    /// The file being written: sections go straight in, no section is copied.
    pub(super) out: Vec<u8>,
    /// Where the section being written starts in `out`.
    pub(super) origin: usize,
    pub(super) placed: Vec<Option<(u32, u32)>>,
    pub(super) wanted: HashSet<Place>,
    /// Whether each object owns a target of an interior pointer.
    pub(super) owners: Vec<bool>,
    pub(super) into_at: HashMap<Place, (u32, u32)>,
    pub(super) order: Vec<ObjectId>,
    pub(super) path: Vec<Seg>,
}

pub(super) fn pad_to(buf: &mut Vec<u8>, align: usize, fill: u8) {
    let n = buf.len().div_ceil(align) * align;
    buf.resize(n, fill);
}

pub(super) fn too_large(what: &str) -> Error {
    Error::write(WriteError::TooLarge(format!("{what} of 4 GiB or more")))
}

impl<'m, M: Model> Engine<'m, M> {
    fn owns_targets(&self, id: ObjectId) -> bool {
        self.owners.get(id.0 as usize).copied().unwrap_or(false)
    }

    pub(super) fn rel(&self) -> Result<u32> {
        u32::try_from(self.out.len() - self.origin).map_err(|_| too_large("a section"))
    }

    pub(super) fn visit(&mut self, id: ObjectId, section: u32, tables: &mut Tables) -> Result<()> {
        let mut stack = vec![id];
        // Depth-first, children in slot order: pushed reversed.
        while let Some(id) = stack.pop() {
            if id.0 as usize >= self.model.len() {
                return Err(Error::write(WriteError::MissingObject(u64::from(id.0))));
            }
            if self.info.section_of(id) != section || self.placed[id.0 as usize].is_some() {
                continue;
            }
            let children = self
                .object(id, section, tables)
                .map_err(|e| e.in_(PathSegment::object(id.0, self.model.class_name(id))))?;
            stack.extend(children.into_iter().rev());
        }
        Ok(())
    }

    fn object(&mut self, id: ObjectId, section: u32, tables: &mut Tables) -> Result<Vec<ObjectId>> {
        pad_to(&mut self.out, 16, 0);
        let start = self.out.len();
        let rel = self.rel()?;
        self.placed[id.0 as usize] = Some((section, rel));
        self.order.push(id);
        tables.virtual_.push((rel, id));
        let size = self.model.body_size(id)?;
        self.out.resize(start + size as usize, 0);
        // Paths are kept only where something asks for them: interior pointers into this
        // object's arrays, or capacity flags of the file.
        let cx = Context {
            object: id,
            info: self.info,
            track: self.owns_targets(id) || !self.info.capacity_flags.is_empty(),
        };
        let mut slots: Vec<Slot<'m, M::Arr<'m>>> = Vec::new();
        self.path.clear();
        {
            let mut w = Body {
                data: &mut self.out,
                base: start as u32,
                origin: self.origin as u32,
                endian: self.endian,
                ptr: self.ptr,
                slots: &mut slots,
                path: &mut self.path,
                cx: &cx,
                erased: &mut tables.erased,
            };
            self.model.write_object(id, &mut w)?;
        }
        pad_to(&mut self.out, 16, 0);
        // Relative arrays first: their elements are part of the object, each block on a
        // 16-byte boundary right after the body (c2020_ragdoll_with_types.hkx).
        let (rel_arrays, mut slots): (Vec<_>, Vec<_>) = slots
            .into_iter()
            .partition(|s| matches!(s, Slot::Rel { .. }));
        for r in rel_arrays {
            let Slot::Rel { at, arr, path } = r else {
                continue;
            };
            pad_to(&mut self.out, 16, 0);
            let base = self.rel()?;
            let off = u16::try_from(base - at).map_err(|_| {
                Error::write(WriteError::TooLarge(
                    "relative array data lies more than 64 KiB past its member".into(),
                ))
            })?;
            let mut b = [0u8; 2];
            off.write(&mut b, self.endian);
            let a = self.origin + at as usize;
            self.out[a + 2..a + 4].copy_from_slice(&b);
            self.elements(&cx, arr, path.as_deref(), tables, &mut slots)?;
        }
        pad_to(&mut self.out, 16, 0);
        let mut children = Vec::new();
        self.owned(&cx, slots, 0, false, tables, &mut children)?;
        Ok(children)
    }

    /// Writes `arr`'s elements at the end of `out` (the buffer grows to hold them),
    /// collecting the slots they name into `slots`.
    fn elements(
        &mut self,
        cx: &Context<'_>,
        arr: M::Arr<'m>,
        path: Option<&[Seg]>,
        tables: &mut Tables,
        slots: &mut Vec<Slot<'m, M::Arr<'m>>>,
    ) -> Result<()> {
        let base = self.out.len();
        let rel = self.rel()?;
        let len = self.model.arr_len(arr);
        let stride = self.model.arr_stride(arr);
        let total = u64::from(stride) * len as u64;
        if u64::from(rel) + total > u64::from(u32::MAX) {
            return Err(Error::write(WriteError::TooLarge(format!(
                "{len} elements of {stride} bytes do not fit a packfile section"
            ))));
        }
        let context = |e: Error| {
            let c = self.model.arr_context(arr);
            if c.is_empty() {
                e
            } else {
                e.in_(c)
            }
        };
        if let Some(r) = self.model.append_elements(arr, &mut self.out, self.endian) {
            r.map_err(context)?;
            if self.out.len() != base + total as usize {
                return Err(Error::write(WriteError::Invalid(format!(
                    "{len} elements of {stride} bytes wrote {} bytes",
                    self.out.len() - base
                ))));
            }
            return Ok(());
        }
        self.out.resize(base + total as usize, 0);
        self.path.clear();
        if let Some(p) = path {
            self.path.extend_from_slice(p);
        }
        if let Some(p) = path.filter(|_| self.owns_targets(cx.object)) {
            let id = cx.object;
            let mut key = p.to_vec();
            for i in 0..len {
                key.push(Seg::Index(i as u32));
                let k = (id, key.clone().into_boxed_slice());
                if self.wanted.contains(&k) {
                    let section = self.info.section_of(id);
                    self.into_at.insert(k, (section, rel + stride * i as u32));
                }
                key.pop();
            }
        }
        let mut w = Body {
            data: &mut self.out,
            base: base as u32,
            origin: self.origin as u32,
            endian: self.endian,
            ptr: self.ptr,
            slots,
            path: &mut self.path,
            cx,
            erased: &mut tables.erased,
        };
        let r = self.model.write_elements(arr, &mut w);
        r.map_err(|e| {
            let c = self.model.arr_context(arr);
            if c.is_empty() {
                e
            } else {
                e.in_(c)
            }
        })
    }

    /// Writes the data the slots own, in order, and collects the objects they point to.
    ///
    /// `depth` counts the arrays between the object's body and these slots. The strings an
    /// array of strings owns are packed, each on the string boundary, and padded to 16 only
    /// after the last (havoklib-710: a skeleton's float slot names).
    fn owned(
        &mut self,
        cx: &Context<'_>,
        slots: Vec<Slot<'m, M::Arr<'m>>>,
        depth: u32,
        packed_strings: bool,
        tables: &mut Tables,
        children: &mut Vec<ObjectId>,
    ) -> Result<()> {
        for slot in slots {
            match slot {
                Slot::String { at, bytes } => {
                    // A string of the body itself starts a new 16-byte block
                    // (map_collision_template.hkx: a system's name after its 4-byte body
                    // array); one owned by array elements follows at once on the string
                    // boundary (docs/packfile-format.md §8: the root container's variant
                    // names).
                    pad_to(
                        &mut self.out,
                        if depth == 0 { 16 } else { self.string_align },
                        0,
                    );
                    tables.local.push((at, self.rel()?));
                    self.out.extend_from_slice(bytes);
                    self.out.push(0);
                    if !packed_strings {
                        pad_to(&mut self.out, 16, 0);
                    }
                }
                Slot::Array { at, arr, path } => {
                    pad_to(&mut self.out, 16, 0);
                    let base = self.rel()?;
                    tables.local.push((at, base));
                    let mut inner = Vec::new();
                    self.elements(cx, arr, path.as_deref(), tables, &mut inner)?;
                    let packed = self.model.arr_strings(arr);
                    // Data owned by the elements follows the array at once when the first
                    // element's first pointer opens it (docs/packfile-format.md §8: variant
                    // names; bone names), and from the next 16-byte boundary otherwise
                    // (hkClassEnumItem, whose name follows its value: enum item names in
                    // skeleton_with_types.hkx and c2240_ragdoll_with_types.hkx).
                    if inner.first().is_some_and(|s| s.at() != base) {
                        pad_to(&mut self.out, 16, 0);
                    }
                    self.owned(cx, inner, depth + 1, packed, tables, children)?;
                    if packed {
                        pad_to(&mut self.out, 16, 0);
                    }
                }
                Slot::Rel { .. } => {
                    return Err(Error::write(WriteError::Invalid(
                        "relative arrays inside arrays are not supported".into(),
                    )))
                }
                Slot::Ptr { at, target } => match target {
                    Ptr::Object(t) => {
                        tables.global.push((at, Target::Object(*t)));
                        children.push(*t);
                    }
                    Ptr::Into { object, path } => tables
                        .global
                        .push((at, Target::Into(*object, path.clone()))),
                    Ptr::Import(name) => tables.imports.push((at, name.clone())),
                },
            }
        }
        Ok(())
    }
}
