//! Decoding a tagfile's DATA into the object graph (docs/tagfile-format.md §4).
//!
//! Every object item becomes an object of the schema class its type names, with its values
//! in the class's flattened member order; each value takes the form of its schema member's
//! [`Shape`] (arrays in the [`Column`] of their elements, SIMD float tuples as
//! [`Value::Floats`], opaque bytes and other tuples as [`Value::CArray`]). The type table
//! says where each value lies and how it is stored; a type that cannot hold its member's
//! shape is an error.
//!
//! Every DATA byte is accounted for: it is a leaf of a member, a pointer, array or string
//! slot (an item index, or for a 2022+ relative slot the offset to its item and the count,
//! docs/relative-pointers.md), or zero. Items lie inside DATA, aligned, without overlapping;
//! counts are checked against the bytes left before anything is allocated (zero-size
//! elements count as one byte); values nest at most [`Limits::max_depth`] deep; PTCH lists
//! exactly the non-null item-index slots. The read works within [`Limits`]: objects are counted, and
//! each object, array and string is charged against the memory limit before it is made.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

mod checks;

pub use super::bind::Bindings;
use super::bind::{Binder, Binding, Leaf};
use super::index::Item;
use super::parse::TagFile;
use super::relative::{self, Rel};
use super::types::{kind, Fact, Facts, TypeTable};
use crate::bytes::read_column;
use crate::error::{Error, ReadError, Result};
use crate::graph::check::normalize_into;
use crate::graph::{Array, Column, Floats, Graph, Object, ObjectId, Ptr, StructColumns, Value};
use crate::limits::{Budget, Limits};
use crate::rules::Endian;
use crate::schema::{ClassId, Schema, Shape};
use checks::{check_items, check_patches, reachable, uncovered_nonzero};

pub use super::index::{ITEM_ARRAY, ITEM_OBJECT};
pub use super::types::MAX_DEPTH;

/// Bytes one value takes in the graph (what the reader charges per value).
const VALUE: u64 = std::mem::size_of::<Value>() as u64;

/// What kind of slot first named an item: arrays are named by one slot only (the writer
/// makes one item per array slot), strings may be shared (2022, docs §4).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Claim {
    None,
    String,
    Array,
}

struct Decoder<'a> {
    data: &'a [u8],
    base: u64,
    items: &'a [Item],
    types: &'a TypeTable,
    /// `types`' facts, by type index.
    facts: &'a Facts,
    schema: &'a Schema,
    binder: Binder<'a>,
    /// The object each object item became.
    objects: Vec<Option<ObjectId>>,
    covered: Vec<u8>,
    char_type: u64,
    /// Non-null item-index slots (those PTCH lists): DATA offset, declared type.
    slots: Vec<(u64, u64)>,
    /// The relative form of each type, when the table has relative slot types.
    rel: Option<Vec<Option<Rel>>>,
    /// The item that begins at each DATA offset (only with relative slot types).
    by_offset: HashMap<u64, usize>,
    /// How often each item is named by a slot, and by which kind.
    reached: Vec<u32>,
    claims: Vec<Claim>,
    limits: Limits,
    /// What the read may still allocate (shared strings are copied per slot, and charged
    /// per slot).
    budget: Budget,
}

impl<'a> Decoder<'a> {
    fn err(&self, at: u64, msg: impl Into<String>) -> Error {
        Error::invalid(self.base + at, msg.into())
    }

    /// Charges `bytes` about to be allocated for what is read at DATA offset `at`.
    #[inline]
    fn charge(&mut self, bytes: u64, at: u64) -> Result<()> {
        self.budget.charge(bytes, self.base + at)
    }

    fn too_deep(&self, at: u64) -> Error {
        self.limits.too_deep(self.base + at)
    }

    /// `n` bytes at DATA offset `at`, marked as belonging to a value.
    fn take(&mut self, at: u64, n: u64) -> Result<&'a [u8]> {
        let data: &'a [u8] = self.data;
        let end = at
            .checked_add(n)
            .filter(|&e| e <= data.len() as u64)
            .ok_or_else(|| {
                Error::truncated(self.base + at, n, (data.len() as u64).saturating_sub(at))
            })?;
        self.covered[at as usize..end as usize].fill(1);
        Ok(&data[at as usize..end as usize])
    }

    fn uint(&mut self, at: u64, n: u64) -> Result<u64> {
        Ok(self
            .take(at, n)?
            .iter()
            .rev()
            .fold(0u64, |a, &b| (a << 8) | u64::from(b)))
    }

    /// The relative form of type `t`, if it is one.
    fn rel_of(&self, t: u64) -> Option<Rel> {
        self.rel.as_ref()?.get(t as usize).copied().flatten()
    }

    /// The item a slot of declared type `t` names, checked against what the slot expects:
    /// `want` (the item's type must be it or derive from it) and `flag`.
    fn item(
        &mut self,
        at: u64,
        t: u64,
        want: u64,
        flag: u8,
        claim: Claim,
    ) -> Result<Option<(usize, Item)>> {
        if let Some(r) = self.rel_of(t) {
            return self.relative_item(r, at, t, want, flag, claim);
        }
        // The index fills the slot's first min(size, 8) bytes: 8 for pointers, strings and
        // hkArray (docs §4), 4 for a 4-byte relative array.
        let width = self.facts.get(t).size.clamp(1, 8);
        let raw = self.uint(at, width)?;
        if raw == 0 {
            return Ok(None);
        }
        let found = usize::try_from(raw)
            .ok()
            .and_then(|i| self.items.get(i).map(|it| (i, *it)));
        let Some((idx, it)) = found else {
            let n = self.items.len();
            return Err(self.err(at, format!("slot names item {raw}, ITEM has {n}")));
        };
        self.claim(at, t, (idx, it), want, flag, claim)?;
        self.slots.push((at, t));
        Ok(Some((idx, it)))
    }

    /// The item a relative slot names (docs/relative-pointers.md): the one that begins at
    /// the slot's offset plus its offset word, holding as many elements as its count word
    /// says; a null slot has both words zero, and `hkRelArray`'s capacity word is zero.
    fn relative_item(
        &mut self,
        r: Rel,
        at: u64,
        t: u64,
        want: u64,
        flag: u8,
        claim: Claim,
    ) -> Result<Option<(usize, Item)>> {
        let raw = self.uint(at, r.offset_width())?;
        let count = match r.count_at() {
            Some(c) => Some(self.uint(at + c, 4)?),
            None => None,
        };
        if r == Rel::Array && self.uint(at + 12, 4)? != 0 {
            return Err(self.err(at + 12, "relative array's capacity word is not zero"));
        }
        let Some(target) = relative::target_of(at, raw, r.offset_width()) else {
            if count.is_some_and(|n| n != 0) {
                return Err(self.err(at, "empty relative array with a non-zero count"));
            }
            return Ok(None);
        };
        let name = self.types.full_name(t);
        let found = target.ok().and_then(|o| self.by_offset.get(&o).copied());
        let Some(idx) = found else {
            let msg = format!(
                "slot of {name} names DATA offset {}, where no item begins",
                i128::from(at) + i128::from(raw as i64)
            );
            return Err(self.err(at, msg));
        };
        let it = self.items[idx];
        if let Some(n) = count.filter(|&n| n != u64::from(it.count)) {
            let msg = format!(
                "slot of {name} counts {n} elements, its item {idx} has {}",
                it.count
            );
            return Err(self.err(at + r.offset_width(), msg));
        }
        self.claim(at, t, (idx, it), want, flag, claim)?;
        Ok(Some((idx, it)))
    }

    /// Checks that item `found` fits a slot of type `t` at `at` (its flags, its type is or
    /// derives from `want`, an array's item is named once) and counts the naming.
    fn claim(
        &mut self,
        at: u64,
        t: u64,
        (idx, it): (usize, Item),
        want: u64,
        flag: u8,
        claim: Claim,
    ) -> Result<()> {
        let name = |x: u64| self.types.full_name(x);
        if it.flags != flag {
            let msg = format!(
                "slot of {} names item {idx} with flags 0x{:X}, not 0x{flag:X}",
                name(t),
                it.flags
            );
            return Err(self.err(at, msg));
        }
        if !self.derives(u64::from(it.ty), want) {
            let msg = format!(
                "slot of {} names item {idx} of type {}",
                name(t),
                name(u64::from(it.ty))
            );
            return Err(self.err(at, msg));
        }
        let before = self.claims[idx];
        if claim == Claim::Array && before != Claim::None
            || claim == Claim::String && before == Claim::Array
        {
            return Err(self.err(
                at,
                format!("item {idx} is named by two slots, and one of them is an array's"),
            ));
        }
        if before == Claim::None {
            self.claims[idx] = claim;
        }
        self.reached[idx] += 1;
        Ok(())
    }

    /// Whether `t` is `base` or derives from it (docs/tagfile-format.md §4: pointer targets
    /// are the pointer's subtype or a type derived from it, 311/311 and 714/714).
    fn derives(&self, mut t: u64, base: u64) -> bool {
        for _ in 0..64 {
            if t == base {
                return true;
            }
            match self.types.body_of(t) {
                Some(b) if b.parent != 0 => t = b.parent,
                _ => return false,
            }
        }
        false
    }

    /// The value of type `t` at DATA offset `at`, in the form of `shape`.
    fn value(&mut self, t: u64, shape: &Shape, at: u64, depth: usize) -> Result<Value> {
        if depth > self.limits.depth() {
            return Err(self.too_deep(at));
        }
        let types = self.types;
        let f = self.facts.get(t);
        let size = f.size;
        let int = |me: &Self| match f.int {
            Some(x) => Ok(x),
            None => types.int_format(t).map_err(|m| me.err(at, m)),
        };
        Ok(match (f.kind, shape) {
            (kind::VOID, Shape::Void) => Value::None,
            (kind::BOOL, Shape::Bool) => {
                let width = match f.int_size {
                    Some(w) => w,
                    None => types.int_size(t).map_err(|m| self.err(at, m))?,
                };
                let v = self.uint(at, u64::from(width))?;
                Value::Bool(u8::try_from(v).map_err(|_| {
                    self.err(
                        at,
                        format!("bool {v} of {} is not a byte", types.full_name(t)),
                    )
                })?)
            }
            (kind::INT, Shape::Int { .. } | Shape::ULong) => {
                let (width, signed) = int(self)?;
                let (bytes, want_signed) = match shape {
                    Shape::Int { bytes, signed } => (*bytes, *signed),
                    _ => (8, false),
                };
                if width > bytes || signed != want_signed {
                    return Err(self.mismatch(t, shape, at));
                }
                let v = self.uint(at, u64::from(width))?;
                if signed {
                    let shift = 64 - 8 * u32::from(width);
                    Value::Int(((v << shift) as i64) >> shift)
                } else {
                    Value::UInt(v)
                }
            }
            (kind::FLOAT, _) if !matches!(size, 2 | 4) => {
                return Err(Error::read(ReadError::Unsupported(format!(
                    "{size}-byte floats ({})",
                    types.full_name(t)
                )))
                .at(self.base + at))
            }
            (kind::FLOAT, Shape::Real) if size == 4 => {
                Value::Real(f32::from_bits(self.uint(at, 4)? as u32))
            }
            (kind::FLOAT, Shape::Half) if size == 2 => Value::Half(self.uint(at, 2)? as u16),
            (kind::FLOAT | kind::TUPLE, Shape::Floats(n)) if f.float_run == Some(u64::from(*n)) => {
                let bytes = self.take(at, 4 * u64::from(*n))?;
                let mut fl = Floats::zeros(*n);
                for (x, c) in fl.iter_mut().zip(bytes.chunks_exact(4)) {
                    *x = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                }
                Value::Floats(fl)
            }
            (kind::STRING, Shape::String) => self.string(t, at)?,
            (kind::POINTER, Shape::Pointer) => {
                match self.item(at, t, f.subtype, ITEM_OBJECT, Claim::None)? {
                    None => Value::Pointer(None),
                    Some((i, _)) => {
                        let id = self.objects[i]
                            .ok_or_else(|| self.err(at, format!("item {i} is not an object")))?;
                        Value::Pointer(Some(Ptr::Object(id)))
                    }
                }
            }
            (kind::ARRAY, Shape::Array(_, inner)) => {
                // Past the index, an array slot is zero: hkArray's size and capacity words
                // are not stored (3665/3665 tails, docs §4). A relative slot holds its count.
                let tail_len = size.saturating_sub(8);
                if self.rel_of(t).is_none()
                    && self
                        .take(at + 8.min(size), tail_len)?
                        .iter()
                        .any(|&b| b != 0)
                {
                    return Err(
                        self.err(at + 8, "array slot's size and capacity words are not zero")
                    );
                }
                let sub = f.subtype;
                match self.item(at, t, sub, ITEM_ARRAY, Claim::Array)? {
                    None => Value::Array(Column::of(inner).with_capacity(0)),
                    Some((_, it)) => {
                        let (o, n) = (u64::from(it.offset), u64::from(it.count));
                        Value::Array(self.elements(sub, inner, o, n, depth)?)
                    }
                }
            }
            (kind::RECORD, Shape::Struct(c)) => Value::Struct(self.record(t, *c, at, depth + 1)?),
            (kind::TUPLE, Shape::CArray(n, inner)) if f.tuple_count == u64::from(*n) => {
                let sub = f.subtype;
                let stride = self.facts.get(sub).size;
                if u64::from(*n).saturating_mul(stride.max(1)) > size {
                    return Err(self.err(
                        at,
                        format!(
                            "tuple {} of {n} × {stride} bytes does not fit its {size} bytes",
                            types.full_name(t)
                        ),
                    ));
                }
                let mut items = Vec::with_capacity(usize::from(*n));
                for i in 0..u64::from(*n) {
                    let v = self.value(sub, inner, at + i * stride, depth + 1);
                    items.push(v.map_err(|e| e.in_index(i))?);
                }
                Value::CArray(items)
            }
            (kind::OPAQUE, Shape::CArray(n, inner))
                if u64::from(*n) == size
                    && **inner
                        == (Shape::Int {
                            bytes: 1,
                            signed: false,
                        }) =>
            {
                let bytes = self.take(at, size)?;
                Value::CArray(bytes.iter().map(|&b| Value::UInt(u64::from(b))).collect())
            }
            (k, _) if !matches!(k, 0..=8 | kind::TUPLE) => {
                return Err(self.err(
                    at,
                    format!(
                        "type {} has unknown format kind 0x{k:X}",
                        types.full_name(t)
                    ),
                ))
            }
            _ => return Err(self.mismatch(t, shape, at)),
        })
    }

    fn mismatch(&self, t: u64, shape: &Shape, at: u64) -> Error {
        self.err(
            at,
            format!(
                "type {} does not hold the schema member's {} values",
                self.types.full_name(t),
                shape.describe(self.schema)
            ),
        )
    }

    /// A string slot's value.
    fn string(&mut self, t: u64, at: u64) -> Result<Value> {
        let Some((i, it)) = self.item(at, t, self.char_type, ITEM_ARRAY, Claim::String)? else {
            return Ok(Value::String(None));
        };
        let n = u64::from(it.count);
        self.charge(n.saturating_add(32), at)?;
        let bytes = self.take(u64::from(it.offset), n)?;
        let Some((&0, text)) = bytes.split_last() else {
            return Err(self.err(at, format!("string item {i} does not end in NUL")));
        };
        if text.contains(&0) {
            return Err(self.err(at, format!("string item {i} holds a NUL before its end")));
        }
        Ok(match std::str::from_utf8(text) {
            Ok(s) => Value::String(Some(s.to_string())),
            Err(_) => Value::Bytes(text.to_vec()),
        })
    }

    /// `count` elements of type `t` from DATA offset `at`, in the column `shape` takes.
    fn elements(
        &mut self,
        t: u64,
        shape: &Shape,
        at: u64,
        count: u64,
        depth: usize,
    ) -> Result<Array> {
        let stride = self.facts.get(t).size;
        let left = (self.data.len() as u64).saturating_sub(at);
        // Zero-size elements count as one byte: no count is larger than the bytes left.
        if count.saturating_mul(stride.max(1)) > left {
            return Err(Error::count(self.base + at, count, stride, left));
        }
        if let Some(col) = self.column_of(t, shape, stride) {
            // A column takes what its elements take in the file (column_for: the stride is
            // the column's element size).
            self.charge(count * stride, at)?;
            let bytes = self.take(at, count * stride)?;
            return Ok(read_col(col, bytes));
        }
        let values = self
            .schema
            .shape_values(shape)
            .map_err(|e| e.at(self.base + at))?;
        self.charge(count.saturating_mul(values).saturating_mul(VALUE), at)?;
        let mut out = Column::of(shape).with_capacity(count as usize);
        // Records bind once per array, not per element.
        if let (kind::RECORD, Shape::Struct(c)) = (self.facts.get(t).kind, shape) {
            if depth + 1 > self.limits.depth() {
                return Err(self.too_deep(at));
            }
            let b = self.binder.bind(t, *c).map_err(|m| self.err(at, m))?;
            if let Some(cols) = self.struct_columns(&b, at, count, stride) {
                return Ok(Array::Struct(cols));
            }
            for i in 0..count {
                let v = self
                    .bound(&b, at + i * stride, depth + 2)
                    .map_err(|e| e.in_index(i))?;
                normalize_into(&mut out, Value::Struct(v));
            }
            return Ok(out);
        }
        for i in 0..count {
            let v = self
                .value(t, shape, at + i * stride, depth + 1)
                .map_err(|e| e.in_index(i))?;
            normalize_into(&mut out, v);
        }
        Ok(out)
    }

    /// The `count` records bound by `b` from DATA offset `at`, one every `stride` bytes, as
    /// one column per member (`graph::StructColumns`), when every flattened member is bound
    /// to a type that stores exactly its column's values (integers of the member's width
    /// and sign, `real`, 4-, 12- and 16-float tuples); `None` otherwise (the caller reads
    /// them as struct values). The caller has checked that the records lie in DATA.
    fn struct_columns(
        &mut self,
        b: &Binding,
        at: u64,
        count: u64,
        stride: u64,
    ) -> Option<StructColumns> {
        if count == 0 || !b.unbound.is_empty() || b.members.len() != b.shapes.len() {
            return None;
        }
        let mut plan = Vec::with_capacity(b.members.len());
        for m in b.members.iter() {
            let shape = &b.shapes.get(m.index)?.shape;
            let width = match (m.leaf, shape) {
                (Leaf::Int(w @ (1 | 2 | 4 | 8), s), Shape::Int { bytes, signed })
                    if w == *bytes && s == *signed =>
                {
                    u64::from(w)
                }
                (Leaf::Real, Shape::Real) => 4,
                (Leaf::Floats(n @ (4 | 12 | 16)), Shape::Floats(k)) if n == *k => 4 * u64::from(n),
                _ => return None,
            };
            if m.offset.checked_add(width)? > stride {
                return None;
            }
            plan.push((m.index, m.offset, Column::of(shape), width));
        }
        let end = at.checked_add(count.checked_mul(stride)?)?;
        let data: &'a [u8] = self.data;
        let bytes = data.get(at as usize..end as usize)?;
        let (n, step) = (count as usize, stride as usize);
        let mut columns: Vec<Option<Array>> = vec![None; b.shapes.len()];
        for &(index, offset, col, width) in &plan {
            let off = offset as usize;
            let a = col.read_strided(bytes, n, step, off, Endian::Little)?;
            // The member's bytes of every element belong to a value (the rest of each
            // element is padding, which must be zero).
            for i in 0..count {
                let s = (at + i * stride + offset) as usize;
                self.covered[s..s + width as usize].fill(1);
            }
            *columns.get_mut(index)? = Some(a);
        }
        StructColumns::new(columns.into_iter().collect::<Option<Vec<_>>>()?)
    }

    /// The column elements of type `t` are read into whole, when `t` stores exactly what
    /// the column holds, one element every `stride` bytes.
    fn column_of(&self, t: u64, shape: &Shape, stride: u64) -> Option<Column> {
        column_for(self.facts.get(t), shape, stride)
    }

    /// The values of record `t` as class `c`, at DATA offset `at`.
    fn record(&mut self, t: u64, c: ClassId, at: u64, depth: usize) -> Result<Vec<Value>> {
        let b = self.binder.bind(t, c).map_err(|m| self.err(at, m))?;
        self.bound(&b, at, depth)
    }

    /// The values of a record bound by `b`, at DATA offset `at`.
    fn bound(&mut self, b: &Binding, at: u64, depth: usize) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(b.shapes.len());
        out.resize_with(b.shapes.len(), || Value::None);
        for m in b.members.iter() {
            let fm = &b.shapes[m.index];
            let here = at + m.offset;
            // Plain leaves straight from the bytes (the checks `value` makes were made
            // when the member was bound).
            let quick = match m.leaf {
                Leaf::Int(w, signed) => self.take(here, u64::from(w)).ok().map(|b| {
                    let v = b.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x));
                    if signed {
                        let shift = 64 - 8 * u32::from(w);
                        Value::Int(((v << shift) as i64) >> shift)
                    } else {
                        Value::UInt(v)
                    }
                }),
                Leaf::Real => self
                    .take(here, 4)
                    .ok()
                    .map(|b| Value::Real(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
                Leaf::Floats(n) => self.take(here, 4 * u64::from(n)).ok().map(|b| {
                    let mut fl = Floats::zeros(n);
                    for (x, c) in fl.iter_mut().zip(b.chunks_exact(4)) {
                        *x = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    }
                    Value::Floats(fl)
                }),
                Leaf::Other => None,
            };
            if let Some(v) = quick {
                out[m.index] = v;
                continue;
            }
            let v = self.value(m.ty, &fm.shape, here, depth).map_err(|e| {
                let s = self.schema;
                e.in_member(s.name_of(fm.owner), &s.member_of(fm).name)
            })?;
            out[m.index] = v;
        }
        Ok(out)
    }
}

/// The column whose elements type `t` stores exactly, one every `stride` bytes, for values
/// of `shape` (shared with the writer).
pub(crate) fn column_for(f: Fact, shape: &Shape, stride: u64) -> Option<Column> {
    let col = Column::of(shape);
    let ok = match (f.kind, shape) {
        (kind::BOOL, Shape::Bool) => stride == 1,
        (kind::INT, Shape::Int { bytes, signed }) => {
            f.int == Some((*bytes, *signed)) && stride == u64::from(*bytes)
        }
        (kind::INT, Shape::ULong) => f.int == Some((8, false)) && stride == 8,
        (kind::FLOAT, Shape::Real) => stride == 4 && f.size == 4,
        (kind::FLOAT, Shape::Half) => stride == 2 && f.size == 2,
        (_, Shape::Floats(n @ (4 | 12 | 16))) => {
            f.float_run == Some(u64::from(*n)) && stride == 4 * u64::from(*n)
        }
        _ => false,
    };
    (ok && col != Column::Values).then_some(col)
}

/// Elements of column `col` stored little-endian in `bytes`.
fn read_col(col: Column, bytes: &[u8]) -> Array {
    let e = Endian::Little;
    match col {
        Column::Bool => Array::Bool(bytes.to_vec()),
        Column::U8 => Array::U8(bytes.to_vec()),
        Column::I8 => Array::I8(read_column(bytes, e)),
        Column::I16 => Array::I16(read_column(bytes, e)),
        Column::U16 => Array::U16(read_column(bytes, e)),
        Column::I32 => Array::I32(read_column(bytes, e)),
        Column::U32 => Array::U32(read_column(bytes, e)),
        Column::I64 => Array::I64(read_column(bytes, e)),
        Column::U64 => Array::U64(read_column(bytes, e)),
        Column::Real => Array::Real(read_column(bytes, e)),
        Column::Half => Array::Half(read_column(bytes, e)),
        Column::Vec4 => Array::Vec4(read_column(bytes, e)),
        Column::Mat3 => Array::Mat3(read_column(bytes, e)),
        Column::Mat4 => Array::Mat4(read_column(bytes, e)),
        Column::Values => Array::Values(Vec::new()),
    }
}

/// The objects of `tf`'s DATA (`data` is the whole input) as a graph over `schema`, whose
/// classes must include each object item's type by its full name (the schema
/// [`super::schema::extract`] makes from the file does). Objects are in ITEM order; the
/// root is item 1.
///
/// # Errors
/// A slot naming an item of the wrong kind or out of range, a block past DATA, a type that
/// does not hold its schema member's shape, or a non-zero byte that belongs to no member:
/// each with its file offset and the object and member path.
pub fn decode(tf: &TagFile, data: &[u8], schema: &Arc<Schema>) -> Result<Graph> {
    let limits = Limits::default();
    let mut budget = Budget::new(&limits, data.len() as u64);
    decode_with(tf, data, schema, &Bindings::default(), &limits, &mut budget)
}

/// [`decode`] within `limits`, charging `budget` (the read's, which parsing `tf` may have
/// charged already), taking and keeping the bindings of `tf`'s record types to `schema`'s
/// classes in `bindings`, which must hold only bindings of the same type table (the same
/// TYPE bytes) and schema.
///
/// # Errors
/// As [`decode`], or a file past `limits`.
pub fn decode_with(
    tf: &TagFile,
    data: &[u8],
    schema: &Arc<Schema>,
    bindings: &Bindings,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Graph> {
    let sec = tf
        .root
        .child(b"DATA")
        .ok_or_else(|| Error::missing(tf.offset, "TAG0", "DATA"))?;
    let (o, n) = sec.payload();
    let bytes = &data[o as usize..(o + n) as usize];
    let char_type = (1..tf.types.types.len() as u64)
        .find(|&t| tf.types.types[t as usize].name == "char")
        .unwrap_or(0);
    // What the reader keeps per DATA byte (whether a value covers it).
    budget.charge(bytes.len() as u64, o)?;
    let mut d = Decoder {
        data: bytes,
        base: o,
        items: &tf.items,
        types: &tf.types,
        facts: &tf.facts,
        schema,
        binder: Binder::with(&tf.types, schema, bindings),
        objects: vec![None; tf.items.len()],
        covered: vec![0; bytes.len()],
        char_type,
        slots: Vec::new(),
        rel: None,
        by_offset: HashMap::default(),
        reached: vec![0; tf.items.len()],
        claims: vec![Claim::None; tf.items.len()],
        limits: *limits,
        budget: *budget,
    };
    check_items(d.data, d.types, d.char_type, tf, o)?;
    d.rel = relative::forms(&tf.types);
    if d.rel.is_some() {
        d.budget.charge(tf.items.len() as u64 * 16, o)?;
        d.by_offset = relative::items_by_offset(&tf.items);
    }
    let object_items: Vec<usize> = (1..tf.items.len())
        .filter(|&i| tf.items[i].flags == ITEM_OBJECT)
        .collect();
    let index = tf
        .root
        .child(b"INDX")
        .and_then(|s| s.child(b"ITEM"))
        .map_or(tf.offset, |s| s.offset);
    limits.check_objects(object_items.len() as u64, index)?;
    for (k, &i) in object_items.iter().enumerate() {
        d.objects[i] = Some(ObjectId(k as u32));
    }
    let mut classes: HashMap<u64, (ClassId, u64)> = HashMap::default();
    let mut out = Vec::with_capacity(object_items.len());
    for (k, &i) in object_items.iter().enumerate() {
        let it = tf.items[i];
        let t = u64::from(it.ty);
        let at = o + u64::from(it.offset);
        if it.count != 1 {
            return Err(Error::invalid(
                at,
                format!("object item {i} has count {}", it.count),
            ));
        }
        let (c, count) = match classes.get(&t) {
            Some(&c) => c,
            None => {
                let name = tf.types.full_name(t);
                let c = schema.class_id(&name).ok_or_else(|| {
                    Error::invalid(
                        at,
                        format!("object item {i} is a {name}, which is not a class of the schema"),
                    )
                })?;
                let count = schema.values_of(c).map_err(|e| e.at(at))?;
                *classes.entry(t).or_insert((c, count))
            }
        };
        let label = || format!("object #{k} {} (item {i})", schema.name_of(c));
        limits
            .check_expansion(count, at)
            .and_then(|()| d.charge(count.saturating_mul(VALUE), u64::from(it.offset)))
            .map_err(|e| e.in_(label()))?;
        let values = d
            .record(t, c, u64::from(it.offset), 0)
            .map_err(|e| e.in_(label()))?;
        out.push(Object { class: c, values });
    }
    if let Some(i) = uncovered_nonzero(&d.covered, bytes) {
        return Err(Error::invalid(
            o + i as u64,
            format!("DATA byte 0x{:02X} belongs to no member", bytes[i]),
        ));
    }
    // Every array and string is named by a slot; every object but the root by a pointer.
    if let Some(i) = (2..tf.items.len()).find(|&i| d.reached[i] == 0) {
        return Err(Error::invalid(
            o + u64::from(tf.items[i].offset),
            format!("item {i} is named by no slot"),
        ));
    }
    check_patches(&d.slots, tf, o)?;
    let root = d
        .objects
        .get(1)
        .copied()
        .flatten()
        .ok_or_else(|| Error::invalid(tf.offset, "item 1 (the root) is not an object"))?;
    // A tagfile holds what its root reaches (the writer places objects breadth-first from
    // it): an island of objects that point only at each other could not be written back.
    let reached = reachable(&out, root);
    if let Some(k) = reached.iter().position(|r| !r) {
        let i = object_items[k];
        return Err(Error::invalid(
            o + u64::from(tf.items[i].offset),
            format!("object item {i} is not reached from the root"),
        ));
    }
    *budget = d.budget;
    Ok(Graph::from_objects(Arc::clone(schema), out, root))
}
