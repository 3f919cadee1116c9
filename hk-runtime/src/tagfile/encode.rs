//! Encoding one DATA block (an object, or an array's elements) from graph values by the
//! type table: leaves written little-endian where the table's members say, slots recorded
//! (in the member-major scan order of docs/tagfile-format.md §4) for the placement loop in
//! [`super::write`] to number.
//!
//! Each graph class is mapped to its record type once, and each record type to the class's
//! flattened members once ([`super::bind`]); values are then written by index. Every value
//! is checked against its type-table member: integers against the table's width and sign,
//! tuples against their count, pointers against the objects the graph has, strings for
//! NULs. A bad value is a [`WriteError`] naming the object and member path; nothing is
//! truncated, wrapped or zero-filled.

use rustc_hash::FxHashMap as HashMap;

use super::bind::{Binder, Binding};
use super::data::{column_for, MAX_DEPTH};
use super::tables::MAX_DATA;
use super::types::{kind, Facts, TypeTable};
use crate::bytes::write_column;
use crate::error::PathSegment;
use crate::error::{Error, Result, WriteError};
use crate::graph::check::check_int;
use crate::graph::{Array, Graph, ObjectId, Ptr, StructColumns, Value};
use crate::rules::Endian;
use crate::schema::{ClassId, Schema, Shape};

/// One step of the path to the value being written, rendered only for errors.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// An object.
    Object(ObjectId),
    /// A flattened member: its declaring class and index there.
    Member(ClassId, u16),
    /// An element.
    Index(u64),
}

/// What a non-null slot names.
#[derive(Debug)]
pub(super) enum Target<'g> {
    /// An object.
    Object(ObjectId),
    /// An array's elements, of type `elem` and schema shape `shape`, met at `path`.
    Array {
        items: &'g Array,
        elem: u64,
        shape: Shape,
        path: Vec<Step>,
    },
    /// A string's bytes (no NUL).
    Str(&'g [u8]),
}

/// A slot of a block: its offset in the block, its declared type, what it names.
#[derive(Debug)]
pub(super) struct Slot<'g> {
    pub rel: u64,
    pub ty: u64,
    pub target: Option<Target<'g>>,
}

/// An encoded block: its bytes (slots still zero) and its slots in scan order.
#[derive(Debug)]
pub(super) struct Block<'g> {
    pub bytes: Vec<u8>,
    pub slots: Vec<Slot<'g>>,
}

pub(super) struct Encoder<'g> {
    graph: &'g Graph,
    table: &'g TypeTable,
    /// `table`'s facts, by type index.
    facts: Facts,
    schema: &'g Schema,
    binder: Binder<'g>,
    /// Record type of each class, once found.
    class_types: Vec<Option<u64>>,
    /// Record types by full name (the first record of each name).
    by_name: HashMap<String, u64>,
    buf: Vec<u8>,
    slots: Vec<Slot<'g>>,
    path: Vec<Step>,
}

impl<'g> Encoder<'g> {
    pub fn new(graph: &'g Graph, table: &'g TypeTable) -> Self {
        let schema: &'g Schema = graph.schema();
        let mut by_name = HashMap::default();
        for t in 1..table.types.len() as u64 {
            if table.kind_of(t) == kind::RECORD {
                by_name.entry(table.full_name(t)).or_insert(t);
            }
        }
        Encoder {
            graph,
            table,
            facts: Facts::new(table),
            schema,
            binder: Binder::new(table, schema),
            class_types: vec![None; schema.classes().len()],
            by_name,
            buf: Vec::new(),
            slots: Vec::new(),
            path: Vec::new(),
        }
    }

    /// The type index of `name` (any kind), if the table has it.
    pub fn type_named(&self, name: &str) -> Option<u64> {
        self.by_name.get(name).copied().or_else(|| {
            (1..self.table.types.len() as u64).find(|&t| self.table.full_name(t) == name)
        })
    }

    /// The record type of object `id`'s class.
    pub fn object_type(&mut self, id: ObjectId) -> Result<u64> {
        let o = self
            .graph
            .objects
            .get(id.0 as usize)
            .ok_or_else(|| Error::write(WriteError::MissingObject(u64::from(id.0))))?;
        let slot = self
            .class_types
            .get_mut(o.class.0 as usize)
            .ok_or_else(|| {
                Error::invalid_write(format!("class id {} is not in the schema", o.class.0))
            })?;
        if let Some(t) = *slot {
            return Ok(t);
        }
        let name = self.schema.name_of(o.class);
        let t = *self.by_name.get(name).ok_or_else(|| {
            Error::write(WriteError::Invalid(format!(
                "the type table has no record `{name}`"
            )))
            .in_(self.graph.object_step(id))
        })?;
        *slot = Some(t);
        Ok(t)
    }

    /// Object `id` (of record type `t`) as a block.
    pub fn object(&mut self, id: ObjectId, t: u64) -> Result<Block<'g>> {
        let graph = self.graph;
        let o = graph.object(id);
        self.start(vec![Step::Object(id)], self.facts.get(t).size, 1)?;
        let r = self.record(t, o.class, &o.values, 0, 0);
        self.finish(r)
    }

    /// The elements of an array (of element type `elem` and shape `shape`) as a block.
    pub fn array(
        &mut self,
        items: &'g Array,
        elem: u64,
        shape: &Shape,
        path: Vec<Step>,
    ) -> Result<Block<'g>> {
        let stride = self.facts.get(elem).size;
        let n = items.len() as u64;
        self.start(path, stride, n)?;
        let r = self.elements(items, elem, shape, stride);
        self.finish(r)
    }

    fn start(&mut self, path: Vec<Step>, size: u64, count: u64) -> Result<()> {
        self.path = path;
        self.slots = Vec::new();
        let block = size.checked_mul(count).filter(|&b| b < MAX_DATA);
        let Some(block) = block else {
            return Err(self.located(Error::write(WriteError::TooLarge(format!(
                "{count} × {size} bytes do not fit a TAG0 section"
            )))));
        };
        self.buf = vec![0; block as usize];
        Ok(())
    }

    fn finish(&mut self, r: Result<()>) -> Result<Block<'g>> {
        r.map_err(|e| self.located(e))?;
        Ok(Block {
            bytes: std::mem::take(&mut self.buf),
            slots: std::mem::take(&mut self.slots),
        })
    }

    /// `e` with the path to the value being written when it happened.
    fn located(&self, mut e: Error) -> Error {
        for s in self.path.iter().rev() {
            e = e.in_(match s {
                Step::Object(id) => self.graph.object_step(*id),
                Step::Member(c, i) => {
                    let class = self.schema.class_by_id(*c);
                    let m = class.members.get(usize::from(*i));
                    PathSegment::member(&class.name, m.map_or("?", |m| m.name.as_str()))
                }
                Step::Index(i) => PathSegment::index(*i),
            });
        }
        e
    }

    fn elements(&mut self, items: &'g Array, elem: u64, shape: &Shape, stride: u64) -> Result<()> {
        let n = items.len();
        if column_for(self.facts.get(elem), shape, stride) == Some(items.column()) {
            let e = Endian::Little;
            let out = &mut self.buf[..];
            match items {
                Array::Bool(v) | Array::U8(v) => write_column(v, out, e),
                Array::I8(v) => write_column(v, out, e),
                Array::I16(v) => write_column(v, out, e),
                Array::U16(v) | Array::Half(v) => write_column(v, out, e),
                Array::I32(v) => write_column(v, out, e),
                Array::U32(v) => write_column(v, out, e),
                Array::I64(v) => write_column(v, out, e),
                Array::U64(v) => write_column(v, out, e),
                Array::Real(v) => write_column(v, out, e),
                Array::Vec4(v) => write_column(v, out, e),
                Array::Mat3(v) => write_column(v, out, e),
                Array::Mat4(v) => write_column(v, out, e),
                Array::Struct(_) | Array::Values(_) => {}
            }
            return Ok(());
        }
        // One element at a time (values, or a column of another form than the type's),
        // each checked; each element's slots come in the same number, and the scan takes
        // them slot by slot across the elements.
        let mut per = None;
        let first = self.slots.len();
        // Struct columns bind their record type once for the array.
        let bound = match (items, shape) {
            (Array::Struct(cols), Shape::Struct(c)) => {
                let b = self.binder.bind(elem, *c).map_err(Error::invalid_write)?;
                Some((cols, *c, b))
            }
            _ => None,
        };
        for i in 0..n {
            self.path.push(Step::Index(i as u64));
            let before = self.slots.len();
            let at = i as u64 * stride;
            match items {
                Array::Values(vs) => self.value(elem, shape, &vs[i], at, 1)?,
                Array::Struct(_) => {
                    let Some((cols, c, b)) = &bound else {
                        return Err(kind_error(&shape.describe(self.schema), &Value::None));
                    };
                    self.column_row(elem, *c, b, cols, i, at)?;
                }
                other => {
                    let v = other.get(i).unwrap_or(Value::None);
                    self.leaf(elem, &v, at)?;
                }
            }
            let k = self.slots.len() - before;
            if *per.get_or_insert(k) != k {
                return Err(Error::invalid_write(format!(
                    "elements of {} have different slot counts",
                    self.table.full_name(elem)
                )));
            }
            self.path.pop();
        }
        let per = per.unwrap_or(0);
        if per > 1 {
            let mut own: Vec<Option<Slot<'g>>> = self.slots.drain(first..).map(Some).collect();
            for p in 0..per {
                for e in 0..n {
                    if let Some(s) = own[e * per + p].take() {
                        self.slots.push(s);
                    }
                }
            }
        }
        Ok(())
    }

    /// The values of class `c` as record `t` at `at`.
    fn record(
        &mut self,
        t: u64,
        c: ClassId,
        values: &'g [Value],
        at: u64,
        depth: usize,
    ) -> Result<()> {
        let b = self.binder.bind(t, c).map_err(Error::invalid_write)?;
        if values.len() != b.shapes.len() {
            return Err(Error::write(WriteError::Length {
                member: format!("class {}", self.schema.name_of(c)),
                expected: b.shapes.len(),
                found: values.len(),
            }));
        }
        for &j in b.unbound.iter() {
            if values[j] != Value::None {
                let fm = &b.shapes[j];
                self.path.push(Step::Member(fm.owner, fm.index));
                return Err(kind_error(
                    &format!("void (not in {})", self.table.full_name(t)),
                    &values[j],
                ));
            }
        }
        for m in b.members.iter() {
            let fm = &b.shapes[m.index];
            self.path.push(Step::Member(fm.owner, fm.index));
            self.value(m.ty, &fm.shape, &values[m.index], at + m.offset, depth)?;
            self.path.pop();
        }
        Ok(())
    }

    /// Element `i` of an array of structs stored as columns, a record of type `t` and
    /// class `c` (bound by `b`) at `at`: every member is a leaf (as [`Encoder::record`] over the element's
    /// values).
    fn column_row(
        &mut self,
        t: u64,
        c: ClassId,
        b: &Binding,
        cols: &StructColumns,
        i: usize,
        at: u64,
    ) -> Result<()> {
        let columns = cols.columns();
        if columns.len() != b.shapes.len() {
            return Err(Error::write(WriteError::Length {
                member: format!("class {}", self.schema.name_of(c)),
                expected: b.shapes.len(),
                found: columns.len(),
            }));
        }
        let value = |j: usize| columns[j].get(i).unwrap_or(Value::None);
        if let Some(&j) = b.unbound.first() {
            let fm = &b.shapes[j];
            self.path.push(Step::Member(fm.owner, fm.index));
            return Err(kind_error(
                &format!("void (not in {})", self.table.full_name(t)),
                &value(j),
            ));
        }
        for m in b.members.iter() {
            let fm = &b.shapes[m.index];
            self.path.push(Step::Member(fm.owner, fm.index));
            self.leaf(m.ty, &value(m.index), at + m.offset)?;
            self.path.pop();
        }
        Ok(())
    }

    /// Value `v` of a member of type `t` (schema shape `shape`) at `at`.
    fn value(&mut self, t: u64, shape: &Shape, v: &'g Value, at: u64, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(Error::invalid_write(format!(
                "values nest deeper than {MAX_DEPTH} levels"
            )));
        }
        let table = self.table;
        let f = self.facts.get(t);
        match (f.kind, v) {
            (kind::STRING, Value::String(s)) => {
                let target = s.as_deref().map(str::as_bytes).map(no_nul).transpose()?;
                self.slot(at, t, target.map(Target::Str))?;
            }
            (kind::STRING, Value::Bytes(b)) => {
                let target = Target::Str(no_nul(b)?);
                self.slot(at, t, Some(target))?;
            }
            (kind::POINTER, Value::Pointer(p)) => {
                let target = match p {
                    None => None,
                    Some(Ptr::Object(id)) if (id.0 as usize) < self.graph.objects.len() => {
                        Some(Target::Object(*id))
                    }
                    Some(Ptr::Object(id)) => {
                        return Err(Error::write(WriteError::MissingObject(u64::from(id.0))))
                    }
                    Some(_) => {
                        return Err(Error::write(WriteError::BadPointer(
                            "a tagfile pointer names a whole object of the same file".into(),
                        )))
                    }
                };
                self.slot(at, t, target)?;
            }
            (kind::ARRAY, Value::Array(a)) => {
                let Shape::Array(_, inner) = shape else {
                    return Err(kind_error(&shape.describe(self.schema), v));
                };
                let target = (!a.is_empty()).then(|| Target::Array {
                    items: a,
                    elem: f.subtype,
                    shape: (**inner).clone(),
                    path: self.path.clone(),
                });
                self.slot(at, t, target)?;
            }
            (kind::RECORD, Value::Struct(vs)) => {
                let Shape::Struct(c) = shape else {
                    return Err(kind_error(&shape.describe(self.schema), v));
                };
                self.record(t, *c, vs, at, depth + 1)?;
            }
            (kind::TUPLE, Value::CArray(xs)) => {
                let Shape::CArray(_, inner) = shape else {
                    return Err(kind_error(&shape.describe(self.schema), v));
                };
                let n = f.tuple_count;
                if xs.len() as u64 != n {
                    return Err(Error::write(WriteError::Length {
                        member: table.full_name(t),
                        expected: usize::try_from(n).unwrap_or(usize::MAX),
                        found: xs.len(),
                    }));
                }
                let sub = f.subtype;
                let stride = self.facts.get(sub).size;
                if n.saturating_mul(stride.max(1)) > f.size {
                    return Err(Error::invalid_write(format!(
                        "tuple {} of {n} × {stride} bytes does not fit its {} bytes",
                        table.full_name(t),
                        table.size_of(t)
                    )));
                }
                for (i, x) in xs.iter().enumerate() {
                    self.path.push(Step::Index(i as u64));
                    self.value(sub, inner, x, at + i as u64 * stride, depth + 1)?;
                    self.path.pop();
                }
            }
            _ => self.leaf(t, v, at)?,
        }
        Ok(())
    }

    /// A slot of declared type `ty` at `rel`; its index (filled once items are numbered)
    /// takes the slot's first min(size, 8) bytes, which must lie in the block (a relative
    /// slot is filled with its offset and count instead, docs/relative-pointers.md).
    fn slot(&mut self, rel: u64, ty: u64, target: Option<Target<'g>>) -> Result<()> {
        let width = self.facts.get(ty).size.clamp(1, 8);
        if rel.saturating_add(width) > self.buf.len() as u64 {
            return Err(Error::invalid_write(format!(
                "the {width}-byte index of a {} slot at {rel} lies outside its block",
                self.table.full_name(ty)
            )));
        }
        self.slots.push(Slot { rel, ty, target });
        Ok(())
    }

    /// A leaf value (no slots) of type `t` at `at`, checked against the type.
    fn leaf(&mut self, t: u64, v: &Value, at: u64) -> Result<()> {
        let table = self.table;
        let name = || table.full_name(t);
        let f = self.facts.get(t);
        let size = f.size;
        match (f.kind, v) {
            (kind::VOID, Value::None) => Ok(()),
            (kind::BOOL, Value::Bool(b)) => {
                let w = match f.int_size {
                    Some(w) => w,
                    None => table.int_size(t).map_err(Error::invalid_write)?,
                };
                self.put(at, &u64::from(*b).to_le_bytes()[..usize::from(w)])
            }
            (kind::INT, Value::Int(_) | Value::UInt(_)) => {
                let (w, signed) = match f.int {
                    Some(x) => x,
                    None => table.int_format(t).map_err(Error::invalid_write)?,
                };
                check_int(v, w, signed, &name)?;
                let raw = match v {
                    Value::Int(i) => *i as u64,
                    Value::UInt(u) => *u,
                    _ => 0,
                };
                self.put(at, &raw.to_le_bytes()[..usize::from(w)])
            }
            (kind::FLOAT, Value::Real(f)) if size == 4 => self.put(at, &f.to_le_bytes()),
            (kind::FLOAT, Value::Half(h)) if size == 2 => self.put(at, &h.to_le_bytes()),
            (kind::FLOAT | kind::TUPLE, Value::Floats(fl)) => {
                let Some(n) = f.float_run else {
                    return Err(kind_error(&name(), v));
                };
                if n != fl.len() as u64 {
                    return Err(Error::write(WriteError::Length {
                        member: name(),
                        expected: n as usize,
                        found: fl.len(),
                    }));
                }
                let mut bytes = [0u8; 64];
                for (c, x) in bytes.chunks_exact_mut(4).zip(fl.iter()) {
                    c.copy_from_slice(&x.to_le_bytes());
                }
                self.put(at, &bytes[..4 * fl.len()])
            }
            (kind::OPAQUE, Value::CArray(xs)) => {
                if xs.len() as u64 != size {
                    return Err(Error::write(WriteError::Length {
                        member: name(),
                        expected: usize::try_from(size).unwrap_or(usize::MAX),
                        found: xs.len(),
                    }));
                }
                let mut bytes = Vec::with_capacity(xs.len());
                for (i, x) in xs.iter().enumerate() {
                    check_int(x, 1, false, &|| "opaque byte".into()).map_err(|e| e.in_index(i))?;
                    bytes.push(x.as_u64().unwrap_or(0) as u8);
                }
                self.put(at, &bytes)
            }
            _ => Err(kind_error(&name(), v)),
        }
    }

    /// Copies `bytes` to `at` in the block; a type table whose sizes do not cover its
    /// members' values is an error, never a write past the block.
    fn put(&mut self, at: u64, bytes: &[u8]) -> Result<()> {
        let len = self.buf.len();
        let dst = usize::try_from(at)
            .ok()
            .and_then(|a| self.buf.get_mut(a..a.checked_add(bytes.len())?))
            .ok_or_else(|| {
                Error::invalid_write(format!(
                    "{} bytes at {at} lie outside the {len}-byte block the type table sizes",
                    bytes.len()
                ))
            })?;
        dst.copy_from_slice(bytes);
        Ok(())
    }
}

fn no_nul(b: &[u8]) -> Result<&[u8]> {
    if b.contains(&0) {
        return Err(Error::write(WriteError::Nul));
    }
    Ok(b)
}

fn kind_error(member: &str, v: &Value) -> Error {
    Error::write(WriteError::Kind {
        member: member.to_string(),
        found: v.describe(),
    })
}
