//! Writing a [`Graph`] as a packfile: the graph as a [`Model`] of the write engine
//! ([`crate::packfile::engine::write`]), each object run through its class's plan under the file's rules.
//!
//! Every value is checked against its member as it is written: integers must fit their
//! width and sign, tuples their length, pointers must name objects that exist, strings
//! must not hold a NUL. Nothing is truncated, wrapped or written past its member.

use crate::bytes::{append_column, write_column, Scalar};
use crate::error::{Error, Result, WriteError};
use crate::graph::check::check_int;
use crate::graph::{Array, Column, Graph, Homogeneous, ObjectId, Ptr, Seg, StructColumns, Value};
use crate::packfile::engine::write::{self, Body, Model};
use crate::packfile::info::PackfileInfo;
use crate::rules::Endian;
use crate::schema::plan::PlanCache as Plans;

fn column(op: &Op) -> Column {
    Column::of_op(op)
}
use crate::schema::{ArrayKind, ClassId, ClassPlan, Elem, Op};

/// Writes `graph` as a packfile with the container facts of `info`, laid out under
/// `info.layout` with the classes of the graph's schema.
///
/// # Errors
/// A value that does not fit its member (naming the object and member), a pointer to an
/// object the graph lacks, or anything [`write::write`] refuses.
pub fn write(graph: &Graph, info: &PackfileInfo) -> Result<Vec<u8>> {
    let schema = graph.schema();
    let mut targets = Vec::new();
    let mut size = 0usize;
    let mut classes = Vec::new();
    for o in &graph.objects {
        size += 16 + 8 * o.values.len();
        for v in &o.values {
            survey(v, &mut targets, &mut size, &mut classes);
        }
    }
    let plans = Plans::new(schema, info.layout);
    classes.sort_unstable_by_key(|c| c.0);
    classes.dedup();
    let homogeneous = classes
        .into_iter()
        .map(|c| {
            let plan = plans.get(c)?;
            Ok((
                c,
                Elem {
                    op: Op::Struct(c),
                    stride: plan.size,
                    gaps: plan.gaps.clone(),
                },
            ))
        })
        .collect::<Result<_>>()?;
    let model = GraphModel {
        graph,
        plans,
        targets: std::cell::Cell::new(Some(targets)),
        size,
        homogeneous,
    };
    write::write(&model, info, schema.generation.packfile.string_align)
}

/// An interior pointer's target: an object and the path to an element it owns.
type Target = (ObjectId, Box<[Seg]>);

/// The graph as the write engine sees it.
struct GraphModel<'g> {
    graph: &'g Graph,
    plans: Plans<'g>,
    /// The interior pointers' targets, found by one walk before writing.
    targets: std::cell::Cell<Option<Vec<Target>>>,
    /// About how many bytes the values take.
    size: usize,
    /// The element layout of each class homogeneous arrays hold, by class.
    homogeneous: Vec<(ClassId, Elem)>,
}

/// An array of the graph: its elements and how each is laid out.
#[derive(Clone, Copy)]
pub(crate) struct DynArr<'m> {
    items: &'m Array,
    elem: &'m Elem,
    /// The class and flattened member index the array belongs to (named in errors).
    owner: (ClassId, u16),
}

impl Model for GraphModel<'_> {
    type Arr<'m>
        = DynArr<'m>
    where
        Self: 'm;

    fn len(&self) -> usize {
        self.graph.objects.len()
    }

    fn root(&self) -> ObjectId {
        self.graph.root
    }

    fn class_name(&self, id: ObjectId) -> &str {
        self.graph.class_name(id)
    }

    fn body_size(&self, id: ObjectId) -> Result<u32> {
        Ok(self.plans.get(self.graph.object(id).class)?.size)
    }

    fn write_object<'m>(&'m self, id: ObjectId, w: &mut Body<'_, 'm, DynArr<'m>>) -> Result<()> {
        let o = self.graph.object(id);
        let plan = self.plans.get(o.class)?;
        self.members(plan, &o.values, 0, w)
    }

    fn arr_len(&self, a: DynArr<'_>) -> usize {
        a.items.len()
    }

    fn arr_stride(&self, a: DynArr<'_>) -> u32 {
        a.elem.stride
    }

    fn arr_context(&self, a: DynArr<'_>) -> String {
        let schema = self.graph.schema();
        match schema
            .members(a.owner.0)
            .ok()
            .and_then(|ms| ms.get(usize::from(a.owner.1)).cloned())
        {
            Some(fm) => format!(
                "{}.{}",
                schema.name_of(fm.owner),
                schema.member_of(&fm).name
            ),
            None => String::new(),
        }
    }

    fn arr_strings(&self, a: DynArr<'_>) -> bool {
        a.elem.op == Op::String
    }

    fn write_elements<'m>(&'m self, a: DynArr<'m>, w: &mut Body<'_, 'm, DynArr<'m>>) -> Result<()> {
        let e = w.endian();
        let stride = a.elem.stride;
        let n = a.items.len();
        if column(&a.elem.op) == a.items.column() {
            macro_rules! col {
                ($v:expr) => {{
                    let out = w.bytes_mut(0, n * stride as usize)?;
                    write_column($v, out, e);
                    return Ok(());
                }};
            }
            match (a.items, &a.elem.op) {
                (Array::Bool(v) | Array::U8(v), _) => col!(v.as_slice()),
                (Array::I8(v), _) => col!(v.as_slice()),
                (Array::I16(v), _) => col!(v.as_slice()),
                (Array::U16(v) | Array::Half(v), _) => col!(v.as_slice()),
                (Array::I32(v), _) => col!(v.as_slice()),
                (Array::U32(v), _) => col!(v.as_slice()),
                (Array::I64(v), _) => col!(v.as_slice()),
                (Array::U64(v), Op::ULong(4)) => {
                    for (i, x) in v.iter().enumerate() {
                        let x = u32::try_from(*x).map_err(|_| {
                            element_error(
                                i,
                                range(*x, "ulong", "0 to 4294967295 under 4-byte pointers"),
                            )
                        })?;
                        w.put(i as u32 * 4, x)?;
                    }
                    return Ok(());
                }
                (Array::U64(v), _) => col!(v.as_slice()),
                (Array::Real(v), _) => col!(v.as_slice()),
                (Array::Vec4(v), _) => col!(v.as_slice()),
                (Array::Mat3(v), _) => col!(v.as_slice()),
                (Array::Mat4(v), _) => col!(v.as_slice()),
                (Array::Struct(_) | Array::Values(_), _) => {}
            }
        }
        if let (Array::Struct(cols), Op::Struct(c)) = (a.items, &a.elem.op) {
            return self.struct_columns(self.plans.get(*c)?, cols, stride, w);
        }
        // Values (or a column of another kind than the element's): one element at a time,
        // each checked.
        for i in 0..n {
            w.enter(Seg::Index(i as u32));
            let off = i as u32 * stride;
            let r = match a.items {
                Array::Values(items) => self.value(&a.elem.op, &items[i], off, a.owner, w),
                other => {
                    let v = other.get(i).unwrap_or(Value::None);
                    self.owned_value(&a.elem.op, &v, off, w)
                }
            };
            r.map_err(|e| element_error(i, e))?;
            w.leave();
        }
        Ok(())
    }

    fn signature(&self, name: &str) -> Result<u32> {
        let schema = self.graph.schema();
        schema.signature_of(schema.require(name)?)
    }

    fn interior_targets(&self) -> Vec<(ObjectId, Box<[Seg]>)> {
        self.targets.take().unwrap_or_default()
    }

    fn path_text(&self, id: ObjectId, path: &[Seg]) -> String {
        match self.graph.objects.get(id.0 as usize) {
            Some(o) => self.graph.path_text(o.class, path),
            None => String::new(),
        }
    }

    fn size_hint(&self) -> usize {
        self.size
    }

    fn append_elements(&self, a: DynArr<'_>, out: &mut Vec<u8>, e: Endian) -> Option<Result<()>> {
        if column(&a.elem.op) != a.items.column() {
            return None;
        }
        let stride = a.elem.stride as usize;
        macro_rules! col {
            ($v:expr) => {{
                if stride != std::mem::size_of_val(&$v[..]) / $v.len().max(1) && !$v.is_empty() {
                    return None;
                }
                append_column($v.as_slice(), out, e);
                Some(Ok(()))
            }};
        }
        match (a.items, &a.elem.op) {
            (Array::Bool(v) | Array::U8(v), _) => col!(v),
            (Array::I8(v), _) => col!(v),
            (Array::I16(v), _) => col!(v),
            (Array::U16(v) | Array::Half(v), _) => col!(v),
            (Array::I32(v), _) => col!(v),
            (Array::U32(v), _) => col!(v),
            (Array::I64(v), _) => col!(v),
            (Array::U64(v), Op::ULong(4)) => {
                let _ = v;
                None
            }
            (Array::U64(v), _) => col!(v),
            (Array::Real(v), _) => col!(v),
            (Array::Vec4(v), _) => col!(v),
            (Array::Mat3(v), _) => col!(v),
            (Array::Mat4(v), _) => col!(v),
            (Array::Struct(_) | Array::Values(_), _) => None,
        }
    }
}

/// Bytes one element of typed column `a` takes (0 for values).
fn column_bytes(a: &Array) -> usize {
    match a {
        Array::Bool(_) | Array::I8(_) | Array::U8(_) => 1,
        Array::I16(_) | Array::U16(_) | Array::Half(_) => 2,
        Array::I32(_) | Array::U32(_) | Array::Real(_) => 4,
        Array::I64(_) | Array::U64(_) => 8,
        Array::Vec4(_) => 16,
        Array::Mat3(_) => 48,
        Array::Mat4(_) => 64,
        Array::Struct(s) => s.columns().iter().map(column_bytes).sum(),
        Array::Values(_) => 0,
    }
}

/// Collects the targets of interior pointers in `v` and the element classes of its
/// homogeneous arrays, and adds about the bytes it takes.
fn survey(
    v: &Value,
    out: &mut Vec<(ObjectId, Box<[Seg]>)>,
    size: &mut usize,
    classes: &mut Vec<ClassId>,
) {
    let mut ptr = |p: &Option<Ptr>| {
        if let Some(Ptr::Into { object, path }) = p {
            out.push((*object, path.clone()));
        }
    };
    match v {
        Value::Pointer(p) => ptr(p),
        Value::Variant(v) => {
            ptr(&v.object);
            ptr(&v.class);
        }
        Value::String(Some(s)) => *size += s.len() + 16,
        Value::Bytes(b) => *size += b.len() + 16,
        Value::Struct(vs) | Value::CArray(vs) => {
            vs.iter().for_each(|x| survey(x, out, size, classes))
        }
        Value::Array(a) => survey_array(a, out, size, classes),
        Value::Homogeneous(h) => {
            ptr(&h.class);
            classes.extend(h.element);
            survey_array(&h.items, out, size, classes);
        }
        _ => {}
    }
}

/// [`survey`] of an array's elements.
fn survey_array(
    a: &Array,
    out: &mut Vec<(ObjectId, Box<[Seg]>)>,
    size: &mut usize,
    classes: &mut Vec<ClassId>,
) {
    match a {
        Array::Values(vs) => {
            *size += 16 + 8 * vs.len();
            vs.iter().for_each(|x| survey(x, out, size, classes));
        }
        a => *size += 16 + column_bytes(a) * a.len(),
    }
}

fn range(v: impl std::fmt::Display, member: &str, range: &str) -> Error {
    Error::write(WriteError::Range {
        value: v.to_string(),
        member: member.to_string(),
        range: range.to_string(),
    })
}

fn element_error(i: usize, e: Error) -> Error {
    e.in_index(i)
}

impl<'g> GraphModel<'g> {
    fn members<'m>(
        &'m self,
        plan: &'m ClassPlan,
        values: &'m [Value],
        base: u32,
        w: &mut Body<'_, 'm, DynArr<'m>>,
    ) -> Result<()> {
        if values.len() != plan.members.len() {
            return Err(Error::write(WriteError::Length {
                member: format!("class {}", self.graph.schema().name_of(plan.class)),
                expected: plan.members.len(),
                found: values.len(),
            }));
        }
        for (i, (m, v)) in plan.members.iter().zip(values).enumerate() {
            w.enter(Seg::Member(i as u16));
            self.value(&m.op, v, base + m.offset, (plan.class, i as u16), w)
                .map_err(|e| self.in_member(plan.class, i, e))?;
            w.leave();
        }
        Ok(())
    }

    /// The elements of an array of structs stored as columns ([`Array::Struct`]): each
    /// member's column written across the elements at its offset, a typed column of the
    /// member's own form in one pass, any other element by element, checked.
    fn struct_columns(
        &self,
        plan: &ClassPlan,
        cols: &StructColumns,
        stride: u32,
        w: &mut Body<'_, '_, DynArr<'_>>,
    ) -> Result<()> {
        let columns = cols.columns();
        if columns.len() != plan.members.len() {
            return Err(Error::write(WriteError::Length {
                member: format!("class {}", self.graph.schema().name_of(plan.class)),
                expected: plan.members.len(),
                found: columns.len(),
            }));
        }
        let n = cols.len();
        let e = w.endian();
        for (k, (m, col)) in plan.members.iter().zip(columns).enumerate() {
            // A typed column of the member's own form in one pass (a 4-byte `ulong` is
            // checked element by element: its column holds 8-byte values).
            if column(&m.op) == col.column() && m.op != Op::ULong(4) {
                let step = stride as usize;
                let out = w.bytes_mut(0, n * step)?;
                if col.write_strided(out, step, m.offset as usize, e) {
                    continue;
                }
            }
            for i in 0..n {
                let v = col.get(i).unwrap_or(Value::None);
                w.enter(Seg::Index(i as u32));
                w.enter(Seg::Member(k as u16));
                self.owned_value(&m.op, &v, i as u32 * stride + m.offset, w)
                    .map_err(|err| element_error(i, self.in_member(plan.class, k, err)))?;
                w.leave();
                w.leave();
            }
        }
        Ok(())
    }

    /// `e` inside flattened member `i` of `class`.
    fn in_member(&self, class: ClassId, i: usize, e: Error) -> Error {
        let schema = self.graph.schema();
        match schema.members(class).ok().and_then(|ms| ms.get(i).cloned()) {
            Some(fm) => e.in_member(schema.name_of(fm.owner), &schema.member_of(&fm).name),
            None => e,
        }
    }

    /// A value that is not borrowed from the graph (an element of a column of another
    /// kind): only leaves can be such.
    fn owned_value(
        &self,
        op: &Op,
        v: &Value,
        off: u32,
        w: &mut Body<'_, '_, DynArr<'_>>,
    ) -> Result<()> {
        match v {
            Value::Bool(_)
            | Value::Int(_)
            | Value::UInt(_)
            | Value::Real(_)
            | Value::Half(_)
            | Value::Floats(_) => leaf(op, v, off, w),
            _ => Err(kind_error(op, v)),
        }
    }

    fn value<'m>(
        &'m self,
        op: &'m Op,
        v: &'m Value,
        off: u32,
        owner: (ClassId, u16),
        w: &mut Body<'_, 'm, DynArr<'m>>,
    ) -> Result<()> {
        let objects = self.graph.objects.len();
        let exists = |p: &Ptr| match p {
            Ptr::Object(id) | Ptr::Into { object: id, .. } if id.0 as usize >= objects => {
                Err(Error::write(WriteError::MissingObject(u64::from(id.0))))
            }
            _ => Ok(()),
        };
        match (op, v) {
            (Op::Pointer, Value::Pointer(p)) => {
                if let Some(p) = p {
                    exists(p)?;
                    w.pointer(off, p);
                }
                Ok(())
            }
            (Op::String, Value::String(s)) => {
                if let Some(s) = s {
                    no_nul(s.as_bytes())?;
                    w.string(off, s.as_bytes());
                }
                Ok(())
            }
            (Op::String, Value::Bytes(b)) => {
                no_nul(b)?;
                w.string(off, b);
                Ok(())
            }
            (Op::Variant, Value::Variant(v)) => {
                for p in [&v.object, &v.class].into_iter().flatten() {
                    exists(p)?;
                }
                w.variant(off, v.object.as_ref(), v.class.as_ref());
                Ok(())
            }
            (Op::Struct(c), Value::Struct(values)) => {
                let plan = self.plans.get(*c)?;
                self.members(plan, values, off, w)
            }
            (Op::CArray(n, elem), Value::CArray(items)) => {
                if items.len() != usize::from(*n) {
                    return Err(Error::write(WriteError::Length {
                        member: format!("{n}-element C array"),
                        expected: usize::from(*n),
                        found: items.len(),
                    }));
                }
                for (k, x) in items.iter().enumerate() {
                    w.enter(Seg::Index(k as u32));
                    self.value(&elem.op, x, off + k as u32 * elem.stride, owner, w)
                        .map_err(|e| element_error(k, e))?;
                    w.leave();
                }
                Ok(())
            }
            (Op::Homogeneous, Value::Homogeneous(h)) => {
                if let Some(p) = &h.class {
                    exists(p)?;
                    w.pointer(off, p);
                }
                let Some(elem) = self.element(h)? else {
                    return Ok(());
                };
                let p = w.ptr();
                w.array(
                    off + p,
                    ArrayKind::Simple,
                    DynArr {
                        items: &h.items,
                        elem,
                        owner,
                    },
                    h.items.len(),
                )
            }
            // A column of another kind than the element's is checked value by value as
            // the elements are written.
            (Op::Array(kind, elem), Value::Array(items)) => {
                w.array(off, *kind, DynArr { items, elem, owner }, items.len())
            }
            _ => leaf(op, v, off, w),
        }
    }
}

impl GraphModel<'_> {
    /// The element layout of homogeneous array `h`, checked against the hkClass object
    /// its class pointer names (docs/packfile-format.md §7.8): that object's `name` must
    /// be the element class. `None` for an empty array without an element class.
    fn element(&self, h: &Homogeneous) -> Result<Option<&Elem>> {
        let schema = self.graph.schema();
        let Some(c) = h.element else {
            if h.items.is_empty() {
                return Ok(None);
            }
            return Err(Error::invalid_write(format!(
                "a homogeneous array of {} elements names no element class",
                h.items.len()
            )));
        };
        let want = schema.name_of(c);
        let named = match &h.class {
            Some(Ptr::Object(id)) => {
                let o = self.graph.object(*id);
                let name = (schema.name_of(o.class) == "hkClass")
                    .then(|| {
                        let ms = schema.members(o.class).ok()?;
                        let i = ms.iter().position(|m| schema.member_of(m).name == "name")?;
                        o.values.get(i)?.as_str().map(str::to_string)
                    })
                    .flatten();
                name.ok_or_else(|| {
                    Error::invalid_write(format!(
                        "the class pointer of a homogeneous array of `{want}` names object #{} of class `{}`, not an hkClass object with a name",
                        id.0,
                        schema.name_of(o.class)
                    ))
                })?
            }
            _ => {
                return Err(Error::invalid_write(format!(
                    "a homogeneous array of `{want}` needs a class pointer to the hkClass object describing `{want}`"
                )))
            }
        };
        if named != want {
            return Err(Error::invalid_write(format!(
                "a homogeneous array of `{want}` points to the hkClass object of `{named}`"
            )));
        }
        self.homogeneous
            .iter()
            .find(|(k, _)| *k == c)
            .map(|(_, e)| Some(e))
            .ok_or_else(|| Error::invalid_write(format!("no layout of `{want}` was made")))
    }
}

fn no_nul(b: &[u8]) -> Result<()> {
    if b.contains(&0) {
        return Err(Error::write(WriteError::Nul));
    }
    Ok(())
}

fn op_name(op: &Op) -> String {
    match op {
        Op::Void => "void".into(),
        Op::Bool => "bool".into(),
        Op::Int { bytes, signed } => format!("{}int{}", if *signed { "" } else { "u" }, bytes * 8),
        Op::ULong(w) => format!("ulong ({w} bytes)"),
        Op::Real => "real".into(),
        Op::Half => "half".into(),
        Op::Floats(4) => "vector4".into(),
        Op::Floats(n) => format!("{n}-float tuple"),
        Op::Pointer => "pointer".into(),
        Op::String => "string".into(),
        Op::Variant => "variant".into(),
        Op::Struct(_) => "struct".into(),
        Op::Array(..) => "array".into(),
        Op::CArray(n, _) => format!("{n}-element C array"),
        Op::Homogeneous => "homogeneousarray".into(),
        Op::Unsupported(t) => t.name().into(),
    }
}

fn kind_error(op: &Op, v: &Value) -> Error {
    Error::write(WriteError::Kind {
        member: op_name(op),
        found: v.describe(),
    })
}

/// A leaf value, checked against its member.
fn leaf(op: &Op, v: &Value, off: u32, w: &mut Body<'_, '_, DynArr<'_>>) -> Result<()> {
    match (op, v) {
        (Op::Void | Op::Unsupported(_), Value::None) => Ok(()),
        (Op::Bool, Value::Bool(b)) => w.put(off, *b),
        (Op::Int { bytes, signed }, Value::Int(_) | Value::UInt(_)) => {
            check_int(v, *bytes, *signed, &|| op_name(op))?;
            let raw = match v {
                Value::Int(i) => *i as u64,
                Value::UInt(u) => *u,
                _ => 0,
            };
            w.put_uint(off, raw, *bytes)
        }
        (Op::ULong(width), Value::Int(_) | Value::UInt(_)) => {
            check_int(v, *width, false, &|| op_name(op))?;
            w.put_uint(off, v.as_u64().unwrap_or(0), *width)
        }
        (Op::Real, Value::Real(f)) => w.put(off, *f),
        (Op::Half, Value::Half(h)) => w.put(off, *h),
        (Op::Floats(n), Value::Floats(f)) => {
            if f.len() != usize::from(*n) {
                return Err(Error::write(WriteError::Length {
                    member: op_name(op),
                    expected: usize::from(*n),
                    found: f.len(),
                }));
            }
            let e = w.endian();
            let out = w.bytes_mut(off, 4 * f.len())?;
            for (x, c) in f.iter().zip(out.chunks_exact_mut(4)) {
                x.write(c, e);
            }
            Ok(())
        }
        _ => Err(kind_error(op, v)),
    }
}
