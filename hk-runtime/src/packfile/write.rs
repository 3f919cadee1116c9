//! Writing a [`Graph`] as a packfile. Everything but the leaf values is regenerated: object
//! order, placement of arrays and strings, padding, the class-name section, the fixup tables
//! and the section and file headers (seed 000, "Fixups, arrays and padding").
//!
//! Placement: objects depth-first from the root, each object's body padded to 16, then the
//! data its pointer slots own in slot order, each array 16-aligned and followed at once by
//! the data its elements own (strings there start on a 2-byte boundary), each string padded
//! to 16; the objects it points to come after all of that, in the order its slots name them.

use std::collections::{HashMap, HashSet};

use byteorder::{BigEndian, ByteOrder, LittleEndian};

use super::header::{HEADER_SIZE, MAGIC};
use super::read::DONT_DEALLOCATE;
use crate::error::{Error, Result};
use crate::graph::{Field, Graph, ObjectId, Ptr, Seg, Value};
use crate::layout::{Endian, Layouts};
use crate::metadata::REFLECTION_CLASSES;
use crate::schema::Schema;
use crate::signature;
use crate::types::TypeKind;

/// A pointer target waiting for every section to be placed.
#[derive(Clone, Debug)]
enum Target {
    Object(ObjectId),
    Into(ObjectId, Vec<Seg>),
}

#[derive(Default)]
struct SectionOut {
    data: Vec<u8>,
    local: Vec<(u32, u32)>,
    global: Vec<(u32, Target)>,
    virtual_: Vec<(u32, String)>,
    erased: usize,
    imports: Vec<(u32, String)>,
}

struct Writer<'g, 's> {
    graph: &'g Graph,
    layouts: Layouts<'s>,
    endian: Endian,
    ptr: u32,
    placed: HashMap<ObjectId, (u32, u32)>,
    wanted_into: HashSet<(ObjectId, Vec<Seg>)>,
    into_owners: HashSet<ObjectId>,
    into_at: HashMap<(ObjectId, Vec<Seg>), (u32, u32)>,
    order: Vec<ObjectId>,
    current: ObjectId,
    string_align: usize,
}

impl Slot<'_> {
    /// Where the slot is.
    fn at(&self) -> u32 {
        match self {
            Slot::String(at, ..) | Slot::Ptr(at, _) => *at,
            Slot::Array { at, .. } | Slot::Rel { at, .. } => *at,
        }
    }
}

/// A pointer slot met while writing an object's body or an array's elements.
enum Slot<'g> {
    String(u32, &'g [u8], usize),
    Array {
        at: u32,
        subtype: TypeKind,
        class: Option<String>,
        items: &'g [Value],
        path: Vec<Seg>,
    },
    Ptr(u32, &'g Ptr),
    Rel {
        at: u32,
        subtype: TypeKind,
        class: Option<String>,
        items: &'g [Value],
        path: Vec<Seg>,
    },
}

/// Writes `graph` with the class layouts and signatures of `schema`.
///
/// # Errors
/// A class or member the schema lacks, or a value whose kind does not fit its member.
pub fn write(graph: &Graph, schema: &Schema) -> Result<Vec<u8>> {
    let info = &graph.info;
    let mut w = Writer {
        graph,
        layouts: Layouts::new(schema, info.layout),
        endian: info.layout.endian,
        ptr: info.layout.ptr(),
        placed: HashMap::new(),
        wanted_into: HashSet::new(),
        into_owners: HashSet::new(),
        into_at: HashMap::new(),
        order: Vec::new(),
        current: ObjectId(0),
        string_align: schema.generation.packfile.string_align.max(1) as usize,
    };
    for o in &graph.objects {
        collect_into(&o.fields, &mut w.wanted_into);
    }
    w.into_owners = w.wanted_into.iter().map(|(o, _)| *o).collect();
    let mut sections: Vec<SectionOut> = (0..info.sections.len())
        .map(|_| SectionOut::default())
        .collect();
    for (si, out) in sections.iter_mut().enumerate() {
        let si = si as u32;
        if si == info.class_names_section {
            continue;
        }
        let mut roots: Vec<ObjectId> = Vec::new();
        if si == info.contents_section {
            roots.push(graph.root);
        }
        roots.extend(
            graph
                .objects
                .iter()
                .enumerate()
                .filter(|(_, o)| o.section == si)
                .map(|(i, _)| ObjectId(i as u32)),
        );
        for r in roots {
            w.visit(r, si, out)?;
        }
        pad_to(&mut out.data, 16, 0);
    }
    // Class names: the reflection classes, then each class in the order of its first object.
    let mut names: Vec<String> = match &info.class_names {
        Some(list) => list.clone(),
        None => REFLECTION_CLASSES.iter().map(|s| s.to_string()).collect(),
    };
    for id in &w.order {
        let c = &graph.object(*id).class;
        if !names.contains(c) {
            names.push(c.clone());
        }
    }
    let cn = &mut sections[info.class_names_section as usize];
    let mut name_at = HashMap::new();
    for n in &names {
        let sig = signature::signature(schema, n)
            .map_err(|e| e.in_(format!("class name {n}")))?
            .value;
        let mut b = [0u8; 4];
        w.put_u32(&mut b, sig);
        cn.data.extend_from_slice(&b);
        cn.data.push(0x09);
        name_at.insert(n.clone(), cn.data.len() as u32);
        cn.data.extend_from_slice(n.as_bytes());
        cn.data.push(0);
    }
    pad_to(&mut cn.data, 16, 0xFF);
    w.assemble(sections, &name_at)
}

fn collect_into(fields: &[Field], out: &mut HashSet<(ObjectId, Vec<Seg>)>) {
    fn value(v: &Value, out: &mut HashSet<(ObjectId, Vec<Seg>)>) {
        match v {
            Value::Pointer(Some(Ptr::Into { object, path })) => {
                out.insert((*object, path.clone()));
            }
            Value::Variant { object, class } => {
                for p in [object, class].into_iter().flatten() {
                    if let Ptr::Into { object, path } = p {
                        out.insert((*object, path.clone()));
                    }
                }
            }
            Value::Struct(fs) => collect_into(fs, out),
            Value::Array(items) | Value::CArray(items) => items.iter().for_each(|i| value(i, out)),
            _ => {}
        }
    }
    fields.iter().for_each(|f| value(&f.value, out));
}

fn pad_to(buf: &mut Vec<u8>, align: usize, fill: u8) {
    let n = buf.len().div_ceil(align) * align;
    buf.resize(n, fill);
}

impl<'g> Writer<'g, '_> {
    fn put_u32(&self, b: &mut [u8], v: u32) {
        match self.endian {
            Endian::Little => LittleEndian::write_u32(b, v),
            Endian::Big => BigEndian::write_u32(b, v),
        }
    }

    fn put_uint(&self, b: &mut [u8], v: u64, width: u32) {
        match (width, self.endian) {
            (1, _) => b[0] = v as u8,
            (2, Endian::Little) => LittleEndian::write_u16(b, v as u16),
            (2, Endian::Big) => BigEndian::write_u16(b, v as u16),
            (4, _) => self.put_u32(b, v as u32),
            (_, Endian::Little) => LittleEndian::write_u64(b, v),
            (_, Endian::Big) => BigEndian::write_u64(b, v),
        }
    }

    fn visit(&mut self, id: ObjectId, section: u32, out: &mut SectionOut) -> Result<()> {
        let mut stack = vec![id];
        // Depth-first, children in slot order: push them reversed.
        while let Some(id) = stack.pop() {
            let Some(obj) = self.graph.objects.get(id.0 as usize) else {
                return Err(Error::invalid(
                    0,
                    format!("pointer to object #{} which does not exist", id.0),
                ));
            };
            if obj.section != section || self.placed.contains_key(&id) {
                continue;
            }
            let children = self
                .object(id, out)
                .map_err(|e| e.in_(format!("object #{} {}", id.0, obj.class)))?;
            for c in children.into_iter().rev() {
                stack.push(c);
            }
        }
        Ok(())
    }

    fn object(&mut self, id: ObjectId, out: &mut SectionOut) -> Result<Vec<ObjectId>> {
        let g = self.graph;
        let obj = g.object(id);
        pad_to(&mut out.data, 16, 0);
        let start = out.data.len() as u32;
        self.placed.insert(id, (obj.section, start));
        self.current = id;
        self.order.push(id);
        out.virtual_.push((start, obj.class.clone()));
        let size = self.layouts.class(&obj.class)?.size;
        out.data.resize((start + size) as usize, 0);
        let mut slots = Vec::new();
        self.fields(
            &obj.class,
            &obj.fields,
            start,
            out,
            &mut slots,
            &mut Vec::new(),
        )?;
        pad_to(&mut out.data, 16, 0);
        // Relative arrays first: their elements are part of the object, each block on a
        // 16-byte boundary right after the body (c2020_ragdoll_with_types.hkx).
        let (rel, mut slots): (Vec<_>, Vec<_>) = slots
            .into_iter()
            .partition(|s| matches!(s, Slot::Rel { .. }));
        for r in rel {
            let Slot::Rel {
                at,
                subtype,
                class,
                items,
                path,
            } = r
            else {
                continue;
            };
            pad_to(&mut out.data, 16, 0);
            let base = out.data.len() as u32;
            let off = u16::try_from(base - at).map_err(|_| {
                Error::invalid(
                    0,
                    "relative array data lies more than 64 KiB past its member",
                )
            })?;
            self.put_uint(
                &mut out.data[at as usize + 2..at as usize + 4],
                u64::from(off),
                2,
            );
            let stride = self.layouts.element_size(subtype, class.as_deref())?;
            out.data
                .resize((base + stride * items.len() as u32) as usize, 0);
            for (i, item) in items.iter().enumerate() {
                let mut p = path.clone();
                p.push(Seg::Index(i as u32));
                self.value(
                    subtype,
                    TypeKind::Void,
                    class.as_deref(),
                    item,
                    base + stride * i as u32,
                    out,
                    &mut slots,
                    &mut p,
                )?;
            }
        }
        pad_to(&mut out.data, 16, 0);
        let mut children = Vec::new();
        self.owned(id, slots, 0, false, out, &mut children)?;
        Ok(children)
    }

    /// Writes the data the slots own, in order, and collects the objects they point to.
    ///
    /// `depth` counts the arrays between the object's body and these slots. The strings an
    /// array of strings owns are packed, each on the string boundary, and padded to 16 only
    /// after the last (havoklib-710: a skeleton's float slot names).
    fn owned(
        &mut self,
        id: ObjectId,
        slots: Vec<Slot<'g>>,
        depth: u32,
        packed_strings: bool,
        out: &mut SectionOut,
        children: &mut Vec<ObjectId>,
    ) -> Result<()> {
        for slot in slots {
            match slot {
                Slot::String(at, s, align) => {
                    // A string follows what came before at once, on the generation's string
                    // boundary (seed 000: the root container's variant names), and is padded
                    // to 16.
                    // A string of the body itself starts a new 16-byte block (map_collision_
                    // template.hkx: a system's name after its 4-byte body array).
                    pad_to(&mut out.data, if depth == 0 { 16 } else { align }, 0);
                    out.local.push((at, out.data.len() as u32));
                    out.data.extend_from_slice(s);
                    out.data.push(0);
                    if !packed_strings {
                        pad_to(&mut out.data, 16, 0);
                    }
                }
                Slot::Array {
                    at,
                    subtype,
                    class,
                    items,
                    path,
                } => {
                    let stride = self.layouts.element_size(subtype, class.as_deref())?;
                    pad_to(&mut out.data, 16, 0);
                    let base = out.data.len() as u32;
                    out.local.push((at, base));
                    out.data
                        .resize((base + stride * items.len() as u32) as usize, 0);
                    let mut inner = Vec::new();
                    let has_targets = self.into_owners.contains(&id);
                    let mut p = path.clone();
                    for (i, item) in items.iter().enumerate() {
                        let el = base + stride * i as u32;
                        p.push(Seg::Index(i as u32));
                        if has_targets {
                            let key = (id, p.clone());
                            if self.wanted_into.contains(&key) {
                                self.into_at
                                    .insert(key, (self.graph.object(id).section, el));
                            }
                        }
                        self.value(
                            subtype,
                            TypeKind::Void,
                            class.as_deref(),
                            item,
                            el,
                            out,
                            &mut inner,
                            &mut p,
                        )?;
                        p.pop();
                    }
                    let packed = matches!(subtype, TypeKind::CString | TypeKind::StringPtr);
                    // Data owned by the elements follows the array at once when the first
                    // element's first pointer opens it (seed 000: variant names; bone names),
                    // and from the next 16-byte boundary otherwise (hkClassEnumItem, whose
                    // name follows its value: enum item names in skeleton_with_types.hkx and
                    // c2240_ragdoll_with_types.hkx).
                    if inner.first().is_some_and(|s| s.at() != base) {
                        pad_to(&mut out.data, 16, 0);
                    }
                    self.owned(id, inner, depth + 1, packed, out, children)?;
                    if packed {
                        pad_to(&mut out.data, 16, 0);
                    }
                }
                Slot::Rel { .. } => {
                    return Err(Error::invalid(
                        0,
                        "relative arrays inside arrays are not supported",
                    ))
                }
                Slot::Ptr(at, p) => match p {
                    Ptr::Object(t) => {
                        out.global.push((at, Target::Object(*t)));
                        children.push(*t);
                    }
                    Ptr::Into { object, path } => {
                        out.global.push((at, Target::Into(*object, path.clone())))
                    }
                    Ptr::Import(name) => out.imports.push((at, name.clone())),
                },
            }
        }
        Ok(())
    }

    fn fields(
        &mut self,
        class: &str,
        fields: &'g [Field],
        at: u32,
        out: &mut SectionOut,
        slots: &mut Vec<Slot<'g>>,
        path: &mut Vec<Seg>,
    ) -> Result<()> {
        let members = self.layouts.flattened(class)?;
        for (i, (owner, m, l)) in members.iter().enumerate() {
            let f = match fields.get(i) {
                Some(f) if f.name == m.name => f,
                _ => fields.iter().find(|f| f.name == m.name).ok_or_else(|| {
                    Error::invalid(0, format!("value has no member `{}`", m.name))
                        .in_member(&owner.name, &m.name)
                })?,
            };
            path.push(Seg::Field(m.name.clone()));
            let mat = at + l.offset;
            if m.array_size > 0 {
                let Value::CArray(items) = &f.value else {
                    return Err(Error::invalid(0, "a C-array member needs a C-array value")
                        .in_member(&owner.name, &m.name));
                };
                let each = l.size / u32::from(m.array_size);
                for (k, item) in items.iter().enumerate().take(usize::from(m.array_size)) {
                    path.push(Seg::Index(k as u32));
                    self.value(
                        m.ty,
                        m.subtype,
                        m.class.as_deref(),
                        item,
                        mat + k as u32 * each,
                        out,
                        slots,
                        path,
                    )
                    .map_err(|e| e.in_member(&owner.name, &m.name))?;
                    path.pop();
                }
            } else {
                self.value(
                    m.ty,
                    m.subtype,
                    m.class.as_deref(),
                    &f.value,
                    mat,
                    out,
                    slots,
                    path,
                )
                .map_err(|e| e.in_member(&owner.name, &m.name))?;
            }
            path.pop();
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn value(
        &mut self,
        ty: TypeKind,
        subtype: TypeKind,
        class: Option<&str>,
        v: &'g Value,
        at: u32,
        out: &mut SectionOut,
        slots: &mut Vec<Slot<'g>>,
        path: &mut Vec<Seg>,
    ) -> Result<()> {
        let a = at as usize;
        let mismatch = || Error::invalid(0, format!("value {v:?} does not fit a `{ty}` member"));
        match (ty, v) {
            (_, Value::None) => {}
            (TypeKind::Bool, Value::Bool(b)) => out.data[a] = *b,
            (TypeKind::Real, Value::Real(r)) => self.put_u32(&mut out.data[a..a + 4], r.to_bits()),
            (TypeKind::Half, Value::Half(h)) => {
                self.put_uint(&mut out.data[a..a + 2], u64::from(*h), 2)
            }
            (_, Value::Int(_) | Value::UInt(_)) => {
                let t = if matches!(ty, TypeKind::Enum | TypeKind::Flags) {
                    subtype
                } else {
                    ty
                };
                let w = if ty == TypeKind::ULong {
                    self.ptr
                } else {
                    t.int_width().unwrap_or(4)
                };
                let raw = match v {
                    Value::Int(i) => *i as u64,
                    Value::UInt(u) => *u,
                    _ => 0,
                };
                self.put_uint(&mut out.data[a..a + w as usize], raw, w);
            }
            (_, Value::Floats(fs)) => {
                for (i, f) in fs.iter().enumerate() {
                    let o = a + 4 * i;
                    self.put_u32(&mut out.data[o..o + 4], f.to_bits());
                }
            }
            (TypeKind::Pointer | TypeKind::FunctionPointer, Value::Pointer(p)) => {
                if let Some(p) = p {
                    slots.push(Slot::Ptr(at, p));
                }
            }
            (TypeKind::CString | TypeKind::StringPtr, Value::String(s)) => {
                if let Some(s) = s {
                    slots.push(Slot::String(at, s.as_bytes(), self.string_align));
                }
            }
            (TypeKind::CString | TypeKind::StringPtr, Value::Bytes(b)) => {
                slots.push(Slot::String(at, b, self.string_align))
            }
            (TypeKind::Variant, Value::Variant { object, class }) => {
                if let Some(p) = object {
                    slots.push(Slot::Ptr(at, p));
                    if class.is_none() {
                        out.erased += 1;
                    }
                }
                if let Some(p) = class {
                    slots.push(Slot::Ptr(at + self.ptr, p));
                }
            }
            (TypeKind::Struct, Value::Struct(fs)) => {
                let c = class.ok_or_else(|| Error::schema("struct member names no class"))?;
                self.fields(c, fs, at, out, slots, path)?;
            }
            (TypeKind::RelArray, Value::Array(items)) => {
                let n = u16::try_from(items.len()).map_err(|_| {
                    Error::invalid(0, "a relative array holds at most 65535 elements")
                })?;
                self.put_uint(&mut out.data[a..a + 2], u64::from(n), 2);
                if n > 0 {
                    slots.push(Slot::Rel {
                        at,
                        subtype,
                        class: class.map(str::to_string),
                        items,
                        path: path.clone(),
                    });
                }
            }
            (TypeKind::Array | TypeKind::SimpleArray, Value::Array(items)) => {
                let n = items.len() as u32;
                let mut b = [0u8; 4];
                self.put_u32(&mut b, n);
                let c = a + self.ptr as usize;
                out.data[c..c + 4].copy_from_slice(&b);
                if ty == TypeKind::Array {
                    let flags = self.current_flags(path);
                    self.put_u32(&mut b, n | flags);
                    out.data[c + 4..c + 8].copy_from_slice(&b);
                }
                if n > 0 {
                    slots.push(Slot::Array {
                        at,
                        subtype,
                        class: class.map(str::to_string),
                        items,
                        path: path.clone(),
                    });
                }
            }
            _ => return Err(mismatch()),
        }
        Ok(())
    }

    fn current_flags(&self, path: &[Seg]) -> u32 {
        self.graph
            .capacity_flags
            .get(&(self.current, path.to_vec()))
            .copied()
            .unwrap_or(DONT_DEALLOCATE)
    }
}

impl Writer<'_, '_> {
    /// An export or import table: `{u32 offset, name, NUL}` records padded to 4, the table
    /// padded with 0xFF to 16 (see [`super::fixup::named`]).
    fn named_table<'n>(&self, out: &mut Vec<u8>, entries: impl Iterator<Item = (u32, &'n str)>) {
        let mut word = [0u8; 4];
        for (offset, name) in entries {
            self.put_u32(&mut word, offset);
            out.extend_from_slice(&word);
            out.extend_from_slice(name.as_bytes());
            out.push(0);
            pad_to(out, 4, 0);
        }
        pad_to(out, 16, 0xFF);
    }

    /// Header, section headers, section data and fixup tables.
    fn assemble(
        &self,
        sections: Vec<SectionOut>,
        name_at: &HashMap<String, u32>,
    ) -> Result<Vec<u8>> {
        let info = &self.graph.info;
        let v11 = info.file_version >= 11;
        let pred_len = info.predicates.as_ref().map_or(0, |(_, b)| b.len());
        let sh_size = if v11 { 0x40 } else { 0x30 };
        let mut out = vec![0u8; HEADER_SIZE as usize + pred_len + sh_size * sections.len()];
        let mut headers = Vec::new();
        for (si, s) in sections.iter().enumerate() {
            pad_to(&mut out, 16, 0xFF);
            let start = out.len() as u32;
            out.extend_from_slice(&s.data);
            let local = out.len() as u32 - start;
            let mut word = [0u8; 4];
            // Fixups in the order the walk meets them: slot by slot, into an array's elements
            // before the next slot (havoklib-710: a skeleton's bone names come before its
            // reference pose; c2240_ragdoll_with_types.hkx: a ragdoll instance's skeleton
            // pointer comes after its arrays' body pointers). Seed 000's files happen to be
            // in ascending order that way.
            for &(src, dst) in &s.local {
                for v in [src, dst] {
                    self.put_u32(&mut word, v);
                    out.extend_from_slice(&word);
                }
            }
            pad_to(&mut out, 16, 0xFF);
            let global = out.len() as u32 - start;
            let mut glob = Vec::with_capacity(s.global.len());
            for (src, t) in &s.global {
                let (sec, dst) = match t {
                    Target::Object(id) => *self
                        .placed
                        .get(id)
                        .ok_or_else(|| Error::invalid(0, format!("pointer to object #{} that was never placed", id.0)))?,
                    Target::Into(id, path) => *self.into_at.get(&(*id, path.clone())).ok_or_else(|| {
                        Error::invalid(0, format!("pointer into object #{} at {path:?}, which owns no such element", id.0))
                    })?,
                };
                glob.push((*src, sec, dst));
            }
            // A variant whose class description is not in the file keeps its fixup as an
            // erased record (havoklib-550/660: two all-0xFF records for the root
            // container's two named variants).
            for _ in 0..s.erased {
                glob.push((u32::MAX, u32::MAX, u32::MAX));
            }
            for (a, b, c) in glob {
                for v in [a, b, c] {
                    self.put_u32(&mut word, v);
                    out.extend_from_slice(&word);
                }
            }
            pad_to(&mut out, 16, 0xFF);
            let virt = out.len() as u32 - start;
            let cn = info.class_names_section;
            for (obj, class) in &s.virtual_ {
                let name = *name_at.get(class).ok_or_else(|| {
                    Error::invalid(0, format!("class `{class}` has no name entry"))
                })?;
                for v in [*obj, cn, name] {
                    self.put_u32(&mut word, v);
                    out.extend_from_slice(&word);
                }
            }
            pad_to(&mut out, 16, 0xFF);
            let exports = out.len() as u32 - start;
            let mut exp: Vec<(u32, &str)> = info
                .exports
                .iter()
                .filter_map(|(id, name)| {
                    self.placed
                        .get(id)
                        .filter(|(sec, _)| *sec == si as u32)
                        .map(|(_, off)| (*off, name.as_str()))
                })
                .collect();
            exp.sort();
            self.named_table(&mut out, exp.into_iter());
            let imports = out.len() as u32 - start;
            self.named_table(&mut out, s.imports.iter().map(|(a, n)| (*a, n.as_str())));
            let end = out.len() as u32 - start;
            headers.push((start, local, global, virt, exports, imports, end));
        }
        // File header.
        out[..8].copy_from_slice(&MAGIC);
        let l = info.layout;
        let root_at = self.placed.get(&self.graph.root).map_or(0, |p| p.1);
        let root_name = name_at
            .get(&self.graph.object(self.graph.root).class)
            .copied()
            .unwrap_or(0);
        let words: [(usize, u32); 7] = [
            (0x08, info.user_tag),
            (0x0C, info.file_version),
            (0x14, sections.len() as u32),
            (0x18, info.contents_section),
            (0x1C, root_at),
            (0x20, info.class_names_section),
            (0x24, root_name),
        ];
        let mut word = [0u8; 4];
        for (o, v) in words {
            self.put_u32(&mut word, v);
            out[o..o + 4].copy_from_slice(&word);
        }
        out[0x10] = l.pointer_size;
        out[0x11] = u8::from(l.endian == Endian::Little);
        out[0x12] = u8::from(l.reuse_padding);
        out[0x13] = u8::from(l.empty_base);
        // Contents version: the text, a NUL, then 0xFF (seed 000, header table).
        let cv = info.contents_version.as_bytes();
        let n = cv.len().min(15);
        out[0x28..0x28 + n].copy_from_slice(&cv[..n]);
        out[0x28 + n] = 0;
        out[0x28 + n + 1..0x38].fill(0xFF);
        self.put_u32(&mut word, info.flags);
        out[0x38..0x3C].copy_from_slice(&word);
        let (maxp, block) = match &info.predicates {
            Some((m, b)) => (*m as u16, b.clone()),
            None => (0xFFFF, Vec::new()),
        };
        let pred_size = if info.predicates.is_some() {
            block.len() as u16
        } else {
            0xFFFF
        };
        self.put_uint(&mut out[0x3C..0x3E], u64::from(maxp), 2);
        self.put_uint(&mut out[0x3E..0x40], u64::from(pred_size), 2);
        out[0x40..0x40 + block.len()].copy_from_slice(&block);
        // Section headers.
        let first = HEADER_SIZE as usize + pred_len;
        for (i, (start, local, global, virt, exports, imports, end)) in
            headers.into_iter().enumerate()
        {
            let h = first + i * sh_size;
            let tag = info.sections[i].as_bytes();
            let n = tag.len().min(19);
            out[h..h + 19].fill(0);
            out[h..h + n].copy_from_slice(&tag[..n]);
            out[h + 0x13] = 0xFF;
            for (k, v) in [start, local, global, virt, exports, imports, end]
                .into_iter()
                .enumerate()
            {
                self.put_u32(&mut word, v);
                out[h + 0x14 + 4 * k..h + 0x18 + 4 * k].copy_from_slice(&word);
            }
            if v11 {
                out[h + 0x30..h + 0x40].fill(0xFF);
            }
        }
        Ok(out)
    }
}
