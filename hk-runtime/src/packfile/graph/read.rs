//! Decoding a packfile's objects into a [`Graph`] by running each class's plan
//! ([`crate::schema::Schema::plan`]) over the bytes, through the read engine
//! ([`crate::packfile::engine::read`]) that owns the format's invariants.
//!
//! Primitive arrays are read as whole columns (one byte-order match per array), so large
//! animation and mesh arrays cost little more than a copy.

use std::sync::Arc;

pub use crate::packfile::engine::read::{ReadOptions, Violation};
pub use crate::packfile::info::{container_info, file_info};

use crate::bytes::{read_column, read_strided, Scalar};
use crate::error::PathSegment;
use crate::error::{Error, ReadError, Result, SchemaError};
use crate::graph::{
    value_at_mut, Array, Column, Floats, Graph, Object, ObjectId, Ptr, Seg, StructColumns, Value,
};
use crate::packfile::engine::read::{Elements, Reader, Target};
use crate::packfile::info::PackfileInfo;
use crate::packfile::{Loc, Packfile};
use crate::rules::Endian;
use crate::schema::plan::PlanCache as Plans;
use crate::schema::{ArrayKind, ClassId, ClassPlan, Elem, Op, Schema};

/// A packfile read into a graph.
#[derive(Debug)]
pub struct Decoded {
    /// The objects.
    pub graph: Graph,
    /// What writing the file back needs besides the objects.
    pub info: PackfileInfo,
    /// Broken invariants (lenient mode only; strict mode fails on the first).
    pub violations: Vec<Violation>,
}

/// Decodes every object of `pf` with the classes of `schema` under the file's rules.
///
/// # Errors
/// The first broken invariant in strict mode; in any mode, structural errors (a class the
/// schema lacks, a count larger than the bytes left, data past its section), each with its
/// file offset and object/member path.
pub fn read(pf: &Packfile<'_>, schema: &Arc<Schema>, opts: ReadOptions) -> Result<Decoded> {
    let plans = Plans::new(schema, pf.rules());
    let mut r = Reader::new(pf, opts)?;
    let table = pf.object_table();
    // Class-name entry -> class id and the values one of its objects holds, resolved once
    // per entry.
    let mut class_ids: Vec<Option<(ClassId, u64)>> = vec![None; pf.class_names.len()];
    let mut objects = Vec::with_capacity(table.len());
    let mut object_sections = Vec::with_capacity(table.len());
    for (i, &(loc, name_index)) in table.iter().enumerate() {
        let id = ObjectId(i as u32);
        let name = &pf.class_names[name_index as usize].name;
        let (cid, values) = match class_ids[name_index as usize] {
            Some(c) => c,
            None => {
                let c = schema
                    .require(name)
                    .and_then(|c| Ok((c, schema.values_of(c)?)))
                    .map_err(|e| e.at(pf.abs(loc)).in_(PathSegment::object(i, name)))?;
                class_ids[name_index as usize] = Some(c);
                c
            }
        };
        r.begin_object(id);
        r.charge_object(values, VALUE, loc)
            .map_err(|e| e.in_(PathSegment::object(i, name)))?;
        if loc.offset % 16 != 0 {
            r.violation(
                pf.abs(loc),
                crate::packfile::engine::read::rule::OBJECT_ALIGNMENT,
                "object is not 16-byte aligned (docs/packfile-format.md §4: objects are)",
            )
            .map_err(|e| e.in_(PathSegment::object(i, name)))?;
        }
        let values = object(&plans, &mut r, cid, loc)
            .map_err(|e| e.at(pf.abs(loc)).in_(PathSegment::object(i, name)))?;
        objects.push(Object { class: cid, values });
        object_sections.push(loc.section);
    }
    let fin = r.finish()?;
    for (d, ptr) in fin.interior {
        let owner = d.owner.0 as usize;
        let slot = objects
            .get_mut(owner)
            .and_then(|o| value_at_mut(&mut o.values, &d.path))
            .ok_or_else(|| {
                Error::invalid(d.slot, "lost the pointer's member while resolving it")
            })?;
        match slot {
            Value::Pointer(p) => *p = Some(ptr),
            Value::Variant(v) => {
                if d.variant_class {
                    v.class = Some(ptr);
                } else {
                    v.object = Some(ptr);
                }
            }
            _ => {
                return Err(Error::invalid(
                    d.slot,
                    "pointer resolved onto a non-pointer member",
                ))
            }
        }
    }
    let (root, info) = container_info(pf, object_sections, fin.capacity_flags)?;
    Ok(Decoded {
        graph: Graph::from_objects(Arc::clone(schema), objects, root),
        info,
        violations: fin.violations,
    })
}

/// Bytes one value takes in the graph (what reads charge per value).
const VALUE: u64 = std::mem::size_of::<Value>() as u64;

/// How many values one element of `op` holds ([`Schema::values_of`]).
fn op_values(plans: &Plans<'_>, op: &Op) -> Result<u64> {
    Ok(match op {
        Op::Floats(n) if *n > 4 => 2,
        Op::Variant => 3,
        Op::Struct(c) => plans.schema().values_of(*c)?.saturating_add(1),
        Op::CArray(n, e) => u64::from(*n)
            .saturating_mul(op_values(plans, &e.op)?)
            .saturating_add(1),
        _ => 1,
    })
}

/// The values of the object of class `cid` at `loc`.
fn object(plans: &Plans<'_>, r: &mut Reader<'_, '_>, cid: ClassId, loc: Loc) -> Result<Vec<Value>> {
    let plan = plans.get(cid)?;
    let body = r.block(loc, u64::from(plan.size))?;
    r.check_gaps(body, loc, &plan.gaps)?;
    members(plans, r, plan, body, loc, 0)
}

/// The values of `plan`'s members in `body` (read at `loc`).
fn members(
    plans: &Plans<'_>,
    r: &mut Reader<'_, '_>,
    plan: &ClassPlan,
    body: &[u8],
    loc: Loc,
    depth: usize,
) -> Result<Vec<Value>> {
    if depth > r.max_depth() {
        return Err(r.too_deep(loc));
    }
    let e = r.endian();
    let mut out = Vec::with_capacity(plan.members.len());
    for (i, m) in plan.members.iter().enumerate() {
        // Leaves are decoded here, straight into the object's values; slots and nested
        // values go through `value`, which keeps the member path for the engine.
        if let Some(v) = leaf(&m.op, body, m.offset, e) {
            out.push(v);
            continue;
        }
        r.enter(Seg::Member(i as u16));
        let v = value(plans, r, &m.op, body, m.offset, loc, depth).map_err(|err| {
            let schema = plans.schema();
            match schema
                .members(plan.class)
                .ok()
                .and_then(|ms| ms.get(i).cloned())
            {
                Some(fm) => err.in_member(schema.name_of(fm.owner), &schema.member_of(&fm).name),
                None => err,
            }
        })?;
        r.leave();
        out.push(v);
    }
    Ok(out)
}

/// A leaf member's value (`None` for anything but a leaf, or bytes past the body, which
/// `value` reports).
#[inline(always)]
fn leaf(op: &Op, body: &[u8], off: u32, e: Endian) -> Option<Value> {
    let at = off as usize;
    Some(match op {
        Op::Void => Value::None,
        Op::Bool => Value::Bool(*body.get(at)?),
        Op::Int { bytes, signed } => {
            int(body.get(at..at + usize::from(*bytes))?, *bytes, *signed, e)
        }
        Op::ULong(w) => int(body.get(at..at + usize::from(*w))?, *w, false, e),
        Op::Real => Value::Real(f32::read(body.get(at..at + 4)?, e)),
        Op::Half => Value::Half(u16::read(body.get(at..at + 2)?, e)),
        Op::Floats(n) => {
            let b = body.get(at..at + 4 * usize::from(*n))?;
            let mut f = Floats::zeros(*n);
            for (x, c) in f.as_mut_slice().iter_mut().zip(b.chunks_exact(4)) {
                *x = f32::read(c, e);
            }
            Value::Floats(f)
        }
        _ => return None,
    })
}

/// The value of `op` at `off` in `body` (read at `loc`).
fn value(
    plans: &Plans<'_>,
    r: &mut Reader<'_, '_>,
    op: &Op,
    body: &[u8],
    off: u32,
    loc: Loc,
    depth: usize,
) -> Result<Value> {
    let e = r.endian();
    let at = loc.plus(off);
    if let Some(v) = leaf(op, body, off, e) {
        return Ok(v);
    }
    let field = |n: usize| {
        body.get(off as usize..off as usize + n)
            .ok_or_else(|| Error::from(SchemaError::PastSize { table: "plan" }))
    };
    Ok(match op {
        Op::Void
        | Op::Bool
        | Op::Int { .. }
        | Op::ULong(_)
        | Op::Real
        | Op::Half
        | Op::Floats(_) => return Err(Error::from(SchemaError::PastSize { table: "plan" })),
        Op::Pointer => {
            let word = slot_word(field(r.ptr() as usize)?, e);
            Value::Pointer(pointer(r, at, word, false)?)
        }
        Op::String => match r.string_word(at, slot_word(field(r.ptr() as usize)?, e))? {
            None => Value::String(None),
            Some(b) => match std::str::from_utf8(b) {
                Ok(s) => Value::String(Some(s.to_string())),
                Err(_) => Value::Bytes(b.to_vec()),
            },
        },
        Op::Variant => {
            let p = r.ptr() as usize;
            let both = field(2 * p)?;
            let object = pointer(r, at, slot_word(&both[..p], e), false)?;
            let class = pointer(r, at.plus(r.ptr()), slot_word(&both[p..], e), true)?;
            Value::variant(object, class)
        }
        Op::Struct(c) => {
            let plan = plans.get(*c)?;
            let sub = field(plan.size as usize)?;
            Value::Struct(members(plans, r, plan, sub, at, depth + 1)?)
        }
        Op::CArray(n, elem) => {
            let mut items = Vec::with_capacity(usize::from(*n));
            for k in 0..u32::from(*n) {
                let o = off + k * elem.stride;
                // A leaf element reads as `value` would read it, without entering its index
                // (only errors name the path, and a leaf in its class's bytes has none).
                if let Some(v) = leaf(&elem.op, body, o, e) {
                    items.push(v);
                    continue;
                }
                r.enter(Seg::Index(k));
                items.push(value(plans, r, &elem.op, body, o, loc, depth + 1)?);
                r.leave();
            }
            Value::CArray(items)
        }
        Op::Array(kind, elem) => match r.array(at, *kind, elem.stride)? {
            None => Value::Array(Column::of_op(&elem.op).with_capacity(0)),
            Some(els) => Value::Array(elements(plans, r, elem, els, at, depth + 1)?),
        },
        Op::Homogeneous => homogeneous(plans, r, field(2 * r.ptr() as usize + 4)?, at, depth)?,
        Op::Unsupported(t) => {
            return Err(Error::read(ReadError::Unsupported(format!(
                "`{t}` members in packfiles"
            )))
            .at(r.abs(at)))
        }
    })
}

/// The `homogeneousarray` whose header `hdr` is read at `at` (docs/packfile-format.md
/// §7.8): a class pointer to an hkClass object of the file, then a data pointer and a
/// count as in a simple array. The elements are structs of the schema's class of the name
/// that hkClass object holds.
fn homogeneous(
    plans: &Plans<'_>,
    r: &mut Reader<'_, '_>,
    hdr: &[u8],
    at: Loc,
    depth: usize,
) -> Result<Value> {
    let p = r.ptr();
    let class = match r.pointer_word(at, slot_word(&hdr[..p as usize], r.endian()))? {
        Target::Null => None,
        Target::Object(id) => Some(id),
        Target::Interior(_) | Target::Import(_) => {
            return Err(Error::invalid(
                r.abs(at),
                "the class pointer of a homogeneous array names no object of this file (it must name an hkClass object)",
            ))
        }
    };
    let Some(id) = class else {
        return match r.array(at.plus(p), ArrayKind::Simple, 0)? {
            None => Ok(Value::homogeneous(None, None, Array::Values(Vec::new()))),
            Some(els) => Err(Error::invalid(
                r.abs(at),
                format!(
                    "a homogeneous array of {} elements has no class pointer",
                    els.count
                ),
            )),
        };
    };
    let c = element_class(plans, r, id, at)?;
    let plan = plans.get(c)?;
    let elem = Elem {
        op: Op::Struct(c),
        stride: plan.size,
        gaps: plan.gaps.clone(),
    };
    let items = match r.array(at.plus(p), ArrayKind::Simple, elem.stride)? {
        None => Array::Values(Vec::new()),
        Some(els) => elements(plans, r, &elem, els, at, depth + 1)?,
    };
    Ok(Value::homogeneous(Some(Ptr::Object(id)), Some(c), items))
}

/// The schema class that hkClass object `id` names (the element class of the
/// homogeneous array whose class pointer at `at` names it).
fn element_class(plans: &Plans<'_>, r: &Reader<'_, '_>, id: ObjectId, at: Loc) -> Result<ClassId> {
    let pf = r.packfile();
    let schema = plans.schema();
    let (loc, name_index) = pf.object_table()[id.0 as usize];
    let kind = &pf.class_names[name_index as usize].name;
    if *kind != "hkClass" {
        return Err(Error::invalid(
            r.abs(at),
            format!("the class pointer of a homogeneous array names object #{} of class `{kind}`, not an hkClass object", id.0),
        ));
    }
    let hk_class = schema.require("hkClass")?;
    let name_at = schema
        .members(hk_class)?
        .iter()
        .zip(plans.get(hk_class)?.members.iter())
        .find(|(fm, _)| schema.member_of(fm).name == "name")
        .map(|(_, m)| m.offset)
        .ok_or_else(|| Error::schema("the schema's `hkClass` has no member `name`"))?;
    let name = r
        .peek_string(loc.plus(name_at))?
        .and_then(|b| std::str::from_utf8(b).ok())
        .ok_or_else(|| {
            Error::invalid(
                r.abs(at),
                format!("hkClass object #{} (named by a homogeneous array's class pointer) has no UTF-8 name", id.0),
            )
        })?;
    // A typed missing-class error at the header, which the callers put in its member path.
    schema.require(name).map_err(|e| e.at(r.abs(at)))
}

/// A pointer slot's value; an interior pointer is deferred and reads as null until the
/// read finishes.
fn pointer(r: &mut Reader<'_, '_>, at: Loc, word: u64, variant_class: bool) -> Result<Option<Ptr>> {
    Ok(match r.pointer_word(at, word)? {
        Target::Null => None,
        Target::Object(id) => Some(Ptr::Object(id)),
        Target::Import(name) => Some(Ptr::Import(name.to_string())),
        Target::Interior(t) => {
            r.defer(t, at, variant_class)?;
            None
        }
    })
}

/// A pointer slot's stored word (4 or 8 bytes).
#[inline]
fn slot_word(b: &[u8], e: Endian) -> u64 {
    if b.len() == 8 {
        u64::read(b, e)
    } else {
        u64::from(u32::read(b, e))
    }
}

/// An integer of `bytes` bytes, sign-extended when `signed`.
#[inline]
fn int(b: &[u8], bytes: u8, signed: bool, e: Endian) -> Value {
    match (bytes, signed) {
        (1, false) => Value::UInt(u64::from(b[0])),
        (1, true) => Value::Int(i64::from(b[0] as i8)),
        (2, false) => Value::UInt(u64::from(u16::read(b, e))),
        (2, true) => Value::Int(i64::from(i16::read(b, e))),
        (4, false) => Value::UInt(u64::from(u32::read(b, e))),
        (4, true) => Value::Int(i64::from(i32::read(b, e))),
        (_, false) => Value::UInt(u64::read(b, e)),
        (_, true) => Value::Int(i64::read(b, e)),
    }
}

/// Bytes one element of struct class `plan` takes as columns, when arrays of it are read
/// as columns: every member primitive ([`ClassPlan::primitive`]) and inside the `stride`
/// (a schema that says otherwise goes through the value path, which reports it).
fn primitive_row(plan: &ClassPlan, stride: u32) -> Option<u64> {
    if !plan.primitive {
        return None;
    }
    let mut width = 0u64;
    for m in plan.members.iter() {
        let w = match m.op {
            Op::Bool => 1,
            Op::Int {
                bytes: b @ (1 | 2 | 4 | 8),
                ..
            }
            | Op::ULong(b @ (4 | 8)) => u32::from(b),
            Op::Real => 4,
            Op::Half => 2,
            Op::Floats(n) => 4 * u32::from(n),
            _ => return None,
        };
        if m.offset.checked_add(w)? > stride {
            return None;
        }
        // Each value takes its column's width (a 4-byte `ulong` widens to 8).
        width += u64::from(if matches!(m.op, Op::ULong(_)) { 8 } else { w });
    }
    Some(width)
}

/// The `count` elements in `bytes` of an array of primitive structs (`plan`), read as one
/// column per member ([`StructColumns`]); `width` is what one element takes in them.
#[allow(clippy::too_many_arguments)]
fn struct_columns(
    r: &mut Reader<'_, '_>,
    plan: &ClassPlan,
    elem: &Elem,
    bytes: &[u8],
    count: u32,
    width: u64,
    at: Loc,
    header: Loc,
) -> Result<Array> {
    r.charge(u64::from(count).saturating_mul(width), header)?;
    let stride = elem.stride as usize;
    if !elem.gaps.is_empty() {
        for (k, slice) in bytes.chunks_exact(stride).enumerate() {
            r.enter(Seg::Index(k as u32));
            r.check_gaps(slice, at.plus(k as u32 * elem.stride), &elem.gaps)?;
            r.leave();
        }
    }
    let (e, n) = (r.endian(), count as usize);
    let columns = plan
        .members
        .iter()
        .map(|m| {
            let off = m.offset as usize;
            match m.op {
                // A 4-byte `ulong` widens into the 8-byte column.
                Op::ULong(4) => Some(Array::U64(
                    read_strided::<u32>(bytes, n, stride, off, e)
                        .into_iter()
                        .map(u64::from)
                        .collect(),
                )),
                ref op => Column::of_op(op).read_strided(bytes, n, stride, off, e),
            }
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::schema("a struct member has no column form"))?;
    StructColumns::new(columns)
        .map(Array::Struct)
        .ok_or_else(|| Error::schema("a struct's columns came out of different lengths"))
}

/// The elements `els` of `elem` (their block already recorded by the engine) of the array
/// whose header is at `header`.
fn elements(
    plans: &Plans<'_>,
    r: &mut Reader<'_, '_>,
    elem: &Elem,
    els: Elements,
    header: Loc,
    depth: usize,
) -> Result<Array> {
    let Elements { at, count } = els;
    let e = r.endian();
    let bytes = r.bytes(at, u64::from(count) * u64::from(elem.stride))?;
    if let Op::Struct(c) = &elem.op {
        let plan = plans.get(*c)?;
        if let Some(width) = primitive_row(plan, elem.stride) {
            return struct_columns(r, plan, elem, bytes, count, width, at, header);
        }
    }
    // What the elements take in the graph, charged before they are allocated: a primitive
    // column as much as the bytes (a 4-byte `ulong` widens to 8), anything else its values.
    let cost = match (&elem.op, elem.stride) {
        (Op::ULong(4), 4) => 2 * bytes.len() as u64,
        (Op::Bool | Op::Int { .. } | Op::ULong(_) | Op::Real | Op::Half, _)
        | (Op::Floats(4 | 12 | 16), _) => bytes.len() as u64,
        (op, _) => u64::from(count)
            .saturating_mul(op_values(plans, op)?)
            .saturating_mul(VALUE),
    };
    r.charge(cost, header)?;
    Ok(match (&elem.op, elem.stride) {
        (Op::Bool, 1) => Array::Bool(bytes.to_vec()),
        (
            Op::Int {
                bytes: 1,
                signed: false,
            },
            1,
        ) => Array::U8(bytes.to_vec()),
        (
            Op::Int {
                bytes: 1,
                signed: true,
            },
            1,
        ) => Array::I8(read_column(bytes, e)),
        (
            Op::Int {
                bytes: 2,
                signed: false,
            },
            2,
        ) => Array::U16(read_column(bytes, e)),
        (
            Op::Int {
                bytes: 2,
                signed: true,
            },
            2,
        ) => Array::I16(read_column(bytes, e)),
        (
            Op::Int {
                bytes: 4,
                signed: false,
            },
            4,
        ) => Array::U32(read_column(bytes, e)),
        (
            Op::Int {
                bytes: 4,
                signed: true,
            },
            4,
        ) => Array::I32(read_column(bytes, e)),
        (
            Op::Int {
                bytes: 8,
                signed: false,
            },
            8,
        ) => Array::U64(read_column(bytes, e)),
        (
            Op::Int {
                bytes: 8,
                signed: true,
            },
            8,
        ) => Array::I64(read_column(bytes, e)),
        (Op::ULong(8), 8) => Array::U64(read_column(bytes, e)),
        (Op::ULong(4), 4) => Array::U64(
            read_column::<u32>(bytes, e)
                .into_iter()
                .map(u64::from)
                .collect(),
        ),
        (Op::Real, 4) => Array::Real(read_column(bytes, e)),
        (Op::Half, 2) => Array::Half(read_column(bytes, e)),
        (Op::Floats(4), 16) => Array::Vec4(read_column(bytes, e)),
        (Op::Floats(12), 48) => Array::Mat3(read_column(bytes, e)),
        (Op::Floats(16), 64) => Array::Mat4(read_column(bytes, e)),
        _ => {
            let mut items = Vec::with_capacity(count as usize);
            let stride = elem.stride as usize;
            for k in 0..count {
                r.enter(Seg::Index(k));
                let el = at.plus(k * elem.stride);
                let s = k as usize * stride;
                let slice = bytes.get(s..s + stride).unwrap_or_default();
                if !elem.gaps.is_empty() {
                    r.check_gaps(slice, el, &elem.gaps)?;
                }
                let v = match &elem.op {
                    Op::Struct(c) => {
                        if depth > r.max_depth() {
                            return Err(r.too_deep(el));
                        }
                        Value::Struct(members(plans, r, plans.get(*c)?, slice, el, depth + 1)?)
                    }
                    op => value(plans, r, op, slice, 0, el, depth)?,
                };
                items.push(v);
                r.leave();
            }
            Array::Values(items)
        }
    })
}
