//! Plans: a class laid out under one set of [`LayoutRules`] as a flat list of operations,
//! one per flattened member (offset, size and what to read or write there), with the
//! strides of array elements and the byte ranges of the body that no member covers.
//!
//! Readers and writers run plans instead of asking the layout engine per object; a
//! [`Schema`] computes each plan once ([`Schema::plan`]).

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use super::layout::Layouts;
use super::shape::{ArrayKind, Shape};
use super::{ClassId, Schema};
use crate::error::{Error, Result};
use crate::rules::LayoutRules;
use crate::types::TypeKind;

/// What to read or write at a member's offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Nothing: the bytes are padding.
    Void,
    /// One byte.
    Bool,
    /// An integer.
    Int {
        /// Width in bytes.
        bytes: u8,
        /// Whether it is signed.
        signed: bool,
    },
    /// `ulong`, as wide as a pointer (the width under these rules).
    ULong(u8),
    /// An `f32`.
    Real,
    /// The top 16 bits of an `f32`.
    Half,
    /// `n` consecutive `f32`s.
    Floats(u8),
    /// A pointer slot.
    Pointer,
    /// A string slot.
    String,
    /// An object pointer slot, then a class pointer slot.
    Variant,
    /// A struct of this class, laid out by its own plan.
    Struct(ClassId),
    /// An array header of this kind; its elements are laid out by the element plan.
    Array(ArrayKind, Box<Elem>),
    /// `n` elements in place.
    CArray(u16, Box<Elem>),
    /// A `homogeneousarray`: class pointer slot, data pointer slot, `int` count
    /// (docs/packfile-format.md §7.8); the element plan comes from the class the file's
    /// hkClass object names.
    Homogeneous,
    /// A type hk has no value form for.
    Unsupported(TypeKind),
}

impl Op {
    /// Whether the value is a primitive with a typed column form: an integer, `bool`,
    /// `ulong`, `real`, `half`, or a 4-, 12- or 16-float tuple (`graph::Column::of_op`
    /// gives each of these its own column).
    pub fn is_primitive(&self) -> bool {
        matches!(
            self,
            Op::Bool
                | Op::Int { .. }
                | Op::ULong(_)
                | Op::Real
                | Op::Half
                | Op::Floats(4 | 12 | 16)
        )
    }
}

/// How one array (or C-array) element is laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elem {
    /// What each element is.
    pub op: Op,
    /// Bytes from one element to the next.
    pub stride: u32,
    /// Byte ranges `[start, end)` of one element that no member covers, tail padding
    /// included.
    pub gaps: Box<[(u32, u32)]>,
}

/// One flattened member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberPlan {
    /// Offset from the start of the object.
    pub offset: u32,
    /// Bytes the member takes.
    pub size: u32,
    /// What is there.
    pub op: Op,
}

/// A class laid out under one set of rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassPlan {
    /// The class.
    pub class: ClassId,
    /// Padded size.
    pub size: u32,
    /// Alignment.
    pub align: u32,
    /// Flattened members, root class first, in [`Schema::members`] order.
    pub members: Box<[MemberPlan]>,
    /// Byte ranges `[start, end)` of the body that no member covers (padding, `void`
    /// members, tail padding), nested structs and C arrays included.
    pub gaps: Box<[(u32, u32)]>,
    /// Whether the class has members and every one is [`Op::is_primitive`]: arrays of it
    /// are read as one column per member (`graph::StructColumns`).
    pub primitive: bool,
}

/// Plans nest at most this deep: a plan needs the plans of the classes its structs and
/// arrays of structs hold (for their sizes and padding), and arrays of structs are not
/// bounded by the schema's nesting check. Deeper, or round a cycle (a class holding an
/// array of itself), a plan is refused rather than recursing until the stack runs out.
pub const MAX_PLAN_NESTING: usize = 64;

thread_local! {
    /// The plans being built on this thread, outermost first (class, rules index).
    static BUILDING: RefCell<Vec<(ClassId, usize)>> = const { RefCell::new(Vec::new()) };
    /// Whether the nesting check refused a plan under the outermost one being built.
    static REFUSED: Cell<bool> = const { Cell::new(false) };
}

/// Off the [`BUILDING`] stack when dropped.
struct Entered;

impl Drop for Entered {
    fn drop(&mut self) {
        BUILDING.with_borrow_mut(|b| b.pop());
    }
}

fn enter(schema: &Schema, id: ClassId, rules: LayoutRules) -> Result<Entered> {
    BUILDING.with_borrow_mut(|b| {
        let key = (id, rules.index());
        if let Some(i) = b.iter().position(|k| *k == key) {
            REFUSED.set(true);
            let path: Vec<&str> = b[i..]
                .iter()
                .map(|(c, _)| schema.name_of(*c))
                .chain([schema.name_of(id)])
                .collect();
            return Err(Error::schema(format!(
                "the plan of `{}` needs itself: {} (arrays of structs that hold each other)",
                schema.name_of(id),
                path.join(" > ")
            )));
        }
        if b.len() >= MAX_PLAN_NESTING {
            REFUSED.set(true);
            return Err(Error::schema(format!(
                "plans nest deeper than {MAX_PLAN_NESTING} at `{}` (structs and arrays of structs whose classes hold others)",
                schema.name_of(id)
            )));
        }
        b.push(key);
        Ok(Entered)
    })
}

/// Builds the plan of `id` (see [`Schema::plan`], which caches it), and whether to keep
/// the result: not when the nesting check refused a plan under it, since the same class
/// may plan when asked for nearer the top.
pub(super) fn build(
    schema: &Schema,
    id: ClassId,
    rules: LayoutRules,
) -> (Result<Arc<ClassPlan>>, bool) {
    let outermost = BUILDING.with_borrow(Vec::is_empty);
    let r = enter(schema, id, rules).and_then(|_entered| build_plan(schema, id, rules));
    let keep = r.is_ok() || !REFUSED.get();
    if outermost {
        REFUSED.set(false);
    }
    (r, keep)
}

fn build_plan(schema: &Schema, id: ClassId, rules: LayoutRules) -> Result<Arc<ClassPlan>> {
    let name = schema.name_of(id);
    let mut layouts = Layouts::new(schema, rules);
    let layout = layouts.class(name)?.clone();
    let flat = layouts.flattened(name)?;
    let shapes = schema.members(id)?;
    let mut members = Vec::with_capacity(flat.len());
    let mut covered: Vec<(u32, u32)> = Vec::new();
    for ((owner, m, l), fm) in flat.iter().zip(shapes.iter()) {
        let op = op_of(schema, &fm.shape, rules, &mut layouts)
            .map_err(|e| e.in_member(&owner.name, &m.name))?;
        cover(schema, &op, l.offset, l.size, rules, &mut covered)?;
        members.push(MemberPlan {
            offset: l.offset,
            size: l.size,
            op,
        });
    }
    Ok(Arc::new(ClassPlan {
        class: id,
        size: layout.size,
        align: layout.align,
        primitive: !members.is_empty() && members.iter().all(|m| m.op.is_primitive()),
        members: members.into(),
        gaps: complement(covered, layout.size),
    }))
}

fn op_of(
    schema: &Schema,
    shape: &Shape,
    rules: LayoutRules,
    layouts: &mut Layouts<'_>,
) -> Result<Op> {
    Ok(match shape {
        Shape::Void => Op::Void,
        Shape::Bool => Op::Bool,
        Shape::Int { bytes, signed } => Op::Int {
            bytes: *bytes,
            signed: *signed,
        },
        Shape::ULong => Op::ULong(rules.pointer_size),
        Shape::Real => Op::Real,
        Shape::Half => Op::Half,
        Shape::Floats(n) => Op::Floats(*n),
        Shape::Pointer => Op::Pointer,
        Shape::String => Op::String,
        Shape::Variant => Op::Variant,
        Shape::Struct(c) => Op::Struct(*c),
        Shape::Array(kind, inner) => {
            Op::Array(*kind, Box::new(elem(schema, inner, rules, layouts)?))
        }
        Shape::CArray(n, inner) => Op::CArray(*n, Box::new(elem(schema, inner, rules, layouts)?)),
        Shape::Homogeneous => Op::Homogeneous,
        Shape::Unsupported(t) => Op::Unsupported(*t),
    })
}

fn elem(
    schema: &Schema,
    shape: &Shape,
    rules: LayoutRules,
    layouts: &mut Layouts<'_>,
) -> Result<Elem> {
    let op = op_of(schema, shape, rules, layouts)?;
    let stride = size_of(schema, &op, rules)?;
    let mut covered = Vec::new();
    cover(schema, &op, 0, stride, rules, &mut covered)?;
    Ok(Elem {
        op,
        stride,
        gaps: complement(covered, stride),
    })
}

/// The size of one value of `op` under `rules` (an array element's stride).
fn size_of(schema: &Schema, op: &Op, rules: LayoutRules) -> Result<u32> {
    let p = rules.ptr();
    Ok(match op {
        Op::Void => 0,
        Op::Bool => 1,
        Op::Int { bytes, .. } => u32::from(*bytes),
        Op::ULong(w) => u32::from(*w),
        Op::Real => 4,
        Op::Half => 2,
        Op::Floats(n) => 4 * u32::from(*n),
        Op::Pointer | Op::String => p,
        Op::Variant => 2 * p,
        Op::Struct(c) => schema.plan(*c, rules)?.size,
        Op::Array(kind, _) => array_header_size(*kind, p),
        Op::CArray(n, e) => u32::from(*n) * e.stride,
        Op::Homogeneous => {
            return Err(Error::schema(
                "`homogeneousarray` elements of arrays are not supported (Havok's reflection has none: only members)",
            ))
        }
        Op::Unsupported(t) => {
            return Err(Error::schema(format!(
                "`{t}` elements have no size hk knows"
            )))
        }
    })
}

/// Bytes of an array header of `kind` with `p`-byte pointers.
pub fn array_header_size(kind: ArrayKind, p: u32) -> u32 {
    match kind {
        ArrayKind::Array => p + 8,
        ArrayKind::Simple => p + 4,
        ArrayKind::Rel => 4,
        ArrayKind::Rel64 => 16,
        ArrayKind::RelView => 8,
    }
}

/// The most separate ranges the members of one plan cover (a range that starts where the
/// last ended extends it), 160 times the most of any shipped class (25 gaps,
/// `hkaiSplitGenerationSnapshot` of 2014.2). C arrays of structs with padding inside,
/// nested, split a body into as many ranges as it has bytes, up to 4 GiB of them; a plan
/// keeps its gaps for the schema's lifetime, under each set of rules.
pub const MAX_PLAN_RANGES: usize = 4096;

/// Adds `[start, end)` to `out`, joined to the last range when it follows it.
fn push_range(out: &mut Vec<(u32, u32)>, start: u32, end: u32) -> Result<()> {
    if let Some(last) = out.last_mut().filter(|l| l.1 == start) {
        last.1 = end;
        return Ok(());
    }
    if out.len() >= MAX_PLAN_RANGES {
        return Err(Error::schema(format!(
            "the members cover the body in more than {MAX_PLAN_RANGES} separate ranges (C arrays of structs with padding inside, nested)"
        )));
    }
    out.push((start, end));
    Ok(())
}

/// Adds the byte ranges a value of `op` at `at` (taking `size` bytes) covers.
fn cover(
    schema: &Schema,
    op: &Op,
    at: u32,
    size: u32,
    rules: LayoutRules,
    out: &mut Vec<(u32, u32)>,
) -> Result<()> {
    let p = rules.ptr();
    let mut leaf = |n: u32| push_range(out, at, at + n);
    match op {
        Op::Void => {}
        Op::Bool => leaf(1)?,
        Op::Int { bytes, .. } => leaf(u32::from(*bytes))?,
        Op::ULong(w) => leaf(u32::from(*w))?,
        Op::Real => leaf(4)?,
        Op::Half => leaf(2)?,
        Op::Floats(n) => leaf(4 * u32::from(*n))?,
        Op::Pointer | Op::String => leaf(p)?,
        Op::Variant => leaf(2 * p)?,
        Op::Array(kind, _) => leaf(array_header_size(*kind, p))?,
        // Two pointer slots and the count; with 8-byte pointers the last 4 bytes are
        // padding.
        Op::Homogeneous => leaf(2 * p + 4)?,
        // Reading one fails with its name; nothing of it is padding.
        Op::Unsupported(_) => leaf(size)?,
        Op::Struct(c) => {
            let plan = schema.plan(*c, rules)?;
            let mut start = 0;
            for &(gs, ge) in plan.gaps.iter() {
                if gs > start {
                    push_range(out, at + start, at + gs)?;
                }
                start = ge;
            }
            if start < plan.size {
                push_range(out, at + start, at + plan.size)?;
            }
        }
        Op::CArray(n, e) => {
            for k in 0..u32::from(*n) {
                cover(schema, &e.op, at + k * e.stride, e.stride, rules, out)?;
            }
        }
    }
    Ok(())
}

/// The ranges of `[0, size)` that `covered` leaves out.
fn complement(mut covered: Vec<(u32, u32)>, size: u32) -> Box<[(u32, u32)]> {
    covered.sort_unstable();
    let mut gaps = Vec::new();
    let mut at = 0;
    for (s, e) in covered {
        if s > at {
            gaps.push((at, s.min(size)));
        }
        at = at.max(e);
    }
    if at < size {
        gaps.push((at, size));
    }
    gaps.retain(|(s, e)| s < e);
    gaps.into()
}

/// Plans of one schema under one set of rules, for one read or write: a plan is borrowed
/// from the schema's cache ([`Schema::plan_ref`]), so asking costs two loads and making
/// one costs nothing.
#[derive(Clone, Copy, Debug)]
pub struct PlanCache<'s> {
    schema: &'s Schema,
    rules: LayoutRules,
}

impl<'s> PlanCache<'s> {
    /// Plans of `schema` under `rules`.
    pub fn new(schema: &'s Schema, rules: LayoutRules) -> Self {
        PlanCache { schema, rules }
    }

    /// The schema.
    pub fn schema(&self) -> &'s Schema {
        self.schema
    }

    /// The plan of class `c`.
    ///
    /// # Errors
    /// As [`Schema::plan`].
    #[inline]
    pub fn get(&self, c: ClassId) -> Result<&'s ClassPlan> {
        self.schema.plan_ref(c, self.rules)
    }
}
