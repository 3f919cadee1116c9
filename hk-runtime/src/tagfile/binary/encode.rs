//! Writing a graph as a binary tagfile (docs/binary-tagfile-format.md §7): the file
//! information and every class definition from the container facts, then each object
//! (the root first), members written as Havok's writer writes them: a member is present
//! when it holds more than its zero value, integer arrays declare their schema width,
//! vector arrays drop `w` when every `w` is `+0.0`, and a string is written once and then
//! referenced by number.

use std::borrow::Cow;
// Seeded per process (foldhash), so names and strings a file chooses cannot be made to
// collide on purpose.
use foldhash::HashMap;

use super::defs::{tag, Base, ClassDef, MemberDef, MAGIC};
use super::input::put_varint;
use super::zero::{always_written, worth};
use super::BinaryTagfile;
use crate::error::{Error, ReadError, Result, WriteError};
use crate::graph::{Array, Graph, ObjectId, Ptr, Value};
use crate::schema::{FlatMember, Shape};

/// A definition's flattened members: definition, member index and shape.
type Flat = Vec<(usize, usize, Shape)>;

struct Writer<'g> {
    out: Vec<u8>,
    graph: &'g Graph,
    defs: &'g [ClassDef],
    by_name: HashMap<&'g str, usize>,
    /// Per definition: its members and its ancestors', root first, with their shapes;
    /// bound when an object or struct of the definition is first written.
    flat: Vec<Option<Flat>>,
    /// The stream number of each graph object.
    number: Vec<i64>,
    strings: HashMap<Vec<u8>, i64>,
    int_width: bool,
}

/// Writes `graph` with `file`'s version, definitions and trailing bytes.
pub(super) fn write(graph: &Graph, file: &BinaryTagfile) -> Result<Vec<u8>> {
    let rules = file.rules().ok_or_else(|| {
        Error::read(ReadError::Unsupported(format!(
            "binary tagfile version {}",
            file.version
        )))
    })?;
    if graph.objects.is_empty() || graph.root.0 as usize >= graph.objects.len() {
        return Err(Error::invalid_write(
            "a binary tagfile needs its root object in the graph",
        ));
    }
    let mut w = Writer {
        out: MAGIC.to_vec(),
        graph,
        defs: &file.classes,
        by_name: file
            .classes
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.as_str(), i))
            .collect(),
        flat: vec![None; file.classes.len()],
        number: vec![0; graph.objects.len()],
        strings: HashMap::from_iter([(Vec::new(), 0)]),
        int_width: rules.int_width,
    };
    // The root is object 1; the others follow in graph order.
    let root = graph.root;
    let order: Vec<ObjectId> = std::iter::once(root)
        .chain(
            (0..graph.objects.len() as u32)
                .map(ObjectId)
                .filter(|&o| o != root),
        )
        .collect();
    for (k, id) in order.iter().enumerate() {
        w.number[id.0 as usize] = k as i64 + 1;
    }
    w.int(tag::FILE_INFO);
    w.int(i64::from(rules.version));
    if rules.sdk_string {
        let sdk = file.sdk.as_deref().ok_or_else(|| {
            Error::invalid_write(format!("version {} files name their SDK", rules.version))
        })?;
        w.string(Some(sdk.as_bytes()));
    }
    if rules.predicates {
        let p = file.predicates.as_ref().ok_or_else(|| {
            Error::invalid_write(format!("version {} files have predicates", rules.version))
        })?;
        let n = u16::try_from(p.verified.len())
            .map_err(|_| Error::invalid_write("more than 65535 predicates"))?;
        for v in [p.max, n].iter().chain(&p.verified) {
            w.out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for d in &file.classes {
        w.class(d);
    }
    for id in order {
        let o = &graph.objects[id.0 as usize];
        let name = graph.schema().name_of(o.class);
        let def = *w.by_name.get(name).ok_or_else(|| {
            Error::invalid_write(format!("class {name} is not among the file's definitions"))
                .in_(graph.object_step(id))
        })?;
        w.int(tag::OBJECT_REMEMBER);
        w.int(def as i64 + 1);
        w.body(def, &o.values)
            .map_err(|e| e.in_(graph.object_step(id)))?;
    }
    w.int(tag::FILE_END);
    w.out.extend_from_slice(&file.trailing);
    Ok(w.out)
}

fn kind_error(member: &MemberDef, v: &Value) -> Error {
    Error::write(WriteError::Kind {
        member: format!(
            "{:?}{}",
            member.ty.base,
            if member.ty.array { " array" } else { "" }
        ),
        found: v.describe(),
    })
}

impl<'g> Writer<'g> {
    fn int(&mut self, v: i64) {
        put_varint(&mut self.out, v);
    }

    /// Definition `i`'s flattened members, checked against the graph schema's class of
    /// the same name (same members, same order).
    fn bind(&self, i: usize) -> Result<Flat> {
        let mut chain = vec![i];
        let mut p = self.defs[i].parent as usize;
        while p != 0 && p <= self.defs.len() && chain.len() <= self.defs.len() {
            chain.push(p - 1);
            p = self.defs[p - 1].parent as usize;
        }
        let schema = self.graph.schema();
        let name = &self.defs[i].name;
        let class = schema.require(name)?;
        let members: std::sync::Arc<[FlatMember]> = schema.members(class)?;
        let mine: Vec<(usize, usize)> = chain
            .iter()
            .rev()
            .flat_map(|&d| (0..self.defs[d].members.len()).map(move |m| (d, m)))
            .collect();
        let same = mine.len() == members.len()
            && mine
                .iter()
                .zip(members.iter())
                .all(|(&(d, m), f)| self.defs[d].members[m].name == schema.member_of(f).name);
        if !same {
            return Err(Error::invalid_write(format!(
                "class {name}: the graph's schema does not have the members the file defines"
            )));
        }
        Ok(mine
            .into_iter()
            .zip(members.iter())
            .map(|((d, m), f)| (d, m, f.shape.clone()))
            .collect())
    }

    fn string(&mut self, s: Option<&[u8]>) {
        let Some(s) = s else {
            self.int(-1);
            return;
        };
        if let Some(&i) = self.strings.get(s) {
            self.int(-i);
            return;
        }
        self.int(s.len() as i64);
        self.out.extend_from_slice(s);
        let next = self.strings.len() as i64 + 1;
        self.strings.insert(s.to_vec(), next);
    }

    fn class(&mut self, d: &ClassDef) {
        self.int(tag::METADATA);
        self.string(Some(d.name.as_bytes()));
        self.int(i64::from(d.version));
        self.int(i64::from(d.parent));
        self.int(d.members.len() as i64);
        for m in &d.members {
            self.string(Some(m.name.as_bytes()));
            self.int(m.ty.code());
            if m.ty.tuple > 0 {
                self.int(i64::from(m.ty.tuple));
            }
            if m.ty.base.has_class() {
                self.string(m.class.as_deref().map(str::as_bytes));
            }
        }
    }

    fn bits(&mut self, present: &[bool]) {
        for chunk in present.chunks(8) {
            let b = chunk
                .iter()
                .enumerate()
                .fold(0u8, |b, (i, &p)| b | (u8::from(p) << i));
            self.out.push(b);
        }
    }

    /// Definition `def`'s flattened members, bound on first use and taken out of the
    /// writer while they are used ([`Writer::put_flat`] puts them back).
    fn take_flat(&mut self, def: usize) -> Result<Flat> {
        match self.flat[def].take() {
            Some(f) => Ok(f),
            None => self.bind(def),
        }
    }

    fn put_flat(&mut self, def: usize, flat: Flat) {
        self.flat[def] = Some(flat);
    }

    /// An object or struct body: the bitfield of members worth writing, then those.
    fn body(&mut self, def: usize, values: &[Value]) -> Result<()> {
        let flat = self.take_flat(def)?;
        let r = self.body_with(&flat, values);
        self.put_flat(def, flat);
        r
    }

    fn body_with(&mut self, flat: &[(usize, usize, Shape)], values: &[Value]) -> Result<()> {
        if flat.len() != values.len() {
            return Err(Error::write(WriteError::Length {
                member: "an object or struct".into(),
                expected: flat.len(),
                found: values.len(),
            }));
        }
        let defs = self.defs;
        let present: Vec<bool> = flat
            .iter()
            .zip(values)
            .map(|(&(d, m, _), v)| {
                let ty = &defs[d].members[m].ty;
                ty.base != Base::Void && (worth(ty, v) || always_written(ty))
            })
            .collect();
        self.bits(&present);
        for ((&(d, m, ref shape), v), p) in flat.iter().zip(values).zip(present) {
            if p {
                let member = &defs[d].members[m];
                self.value(member, shape, v)
                    .map_err(|e| e.in_member(&defs[d].name, &member.name))?;
            }
        }
        Ok(())
    }

    fn value(&mut self, member: &MemberDef, shape: &Shape, v: &Value) -> Result<()> {
        let ty = member.ty;
        if ty.tuple > 0 {
            let (Value::CArray(items), Shape::CArray(_, e)) = (v, shape) else {
                return Err(kind_error(member, v));
            };
            if items.len() != ty.tuple as usize {
                return Err(Error::write(WriteError::Length {
                    member: member.name.clone(),
                    expected: ty.tuple as usize,
                    found: items.len(),
                }));
            }
            let refs: Vec<&Value> = items.iter().collect();
            return self.items(member, e, &refs);
        }
        if ty.array {
            let (Value::Array(a), Shape::Array(_, e)) = (v, shape) else {
                return Err(kind_error(member, v));
            };
            self.int(a.len() as i64);
            // Integer columns straight from their elements (a `u64` column may hold
            // values past `i64`, and goes through values like any other).
            if ty.base == Base::Int {
                let done = match a {
                    Array::I8(v) => Some(self.ints(e, v.iter().map(|&x| i64::from(x)))),
                    Array::U8(v) => Some(self.ints(e, v.iter().map(|&x| i64::from(x)))),
                    Array::I16(v) => Some(self.ints(e, v.iter().map(|&x| i64::from(x)))),
                    Array::U16(v) => Some(self.ints(e, v.iter().map(|&x| i64::from(x)))),
                    Array::I32(v) => Some(self.ints(e, v.iter().map(|&x| i64::from(x)))),
                    Array::U32(v) => Some(self.ints(e, v.iter().map(|&x| i64::from(x)))),
                    Array::I64(v) => Some(self.ints(e, v.iter().copied())),
                    _ => None,
                };
                if let Some(r) = done {
                    return r;
                }
            }
            match (ty.base, a) {
                (Base::Byte, Array::U8(v)) => {
                    self.out.extend_from_slice(v);
                    return Ok(());
                }
                (Base::Real, Array::Real(v)) => {
                    v.iter()
                        .for_each(|x| self.out.extend_from_slice(&x.to_le_bytes()));
                    return Ok(());
                }
                (Base::Vec4, Array::Vec4(v)) => {
                    self.vec4s(v);
                    return Ok(());
                }
                _ => {}
            }
            let vals: Cow<'_, [Value]> = match a {
                Array::Values(v) => Cow::Borrowed(v),
                other => Cow::Owned(other.to_values()),
            };
            let refs: Vec<&Value> = vals.iter().collect();
            return self.items(member, e, &refs);
        }
        match (ty.base, v) {
            (Base::Byte, _) => {
                let b = v.as_u64().and_then(|b| u8::try_from(b).ok());
                self.out.push(b.ok_or_else(|| kind_error(member, v))?);
            }
            (Base::Int, _) => {
                let i = v.as_i64().ok_or_else(|| kind_error(member, v))?;
                self.int(i);
            }
            (Base::Real, Value::Real(f)) => self.out.extend_from_slice(&f.to_le_bytes()),
            (Base::Vec8, Value::CArray(items)) if items.len() == 8 => {
                for x in items {
                    let f = x.as_f32().ok_or_else(|| kind_error(member, v))?;
                    self.out.extend_from_slice(&f.to_le_bytes());
                }
            }
            (b, Value::Floats(f)) if b.floats() == f.len() => {
                for x in f.iter() {
                    self.out.extend_from_slice(&x.to_le_bytes());
                }
            }
            (Base::Object, Value::Pointer(p)) => self.reference(p.as_ref())?,
            (Base::Struct, Value::Struct(vs)) => {
                let def = self.struct_def(member)?;
                self.body(def, vs)?;
            }
            (Base::CString, Value::String(s)) => self.string(s.as_deref().map(str::as_bytes)),
            (Base::CString, Value::Bytes(b)) => self.string(Some(b)),
            _ => return Err(kind_error(member, v)),
        }
        Ok(())
    }

    fn struct_def(&self, member: &MemberDef) -> Result<usize> {
        let c = member.class.as_deref().unwrap_or_default();
        self.by_name
            .get(c)
            .copied()
            .ok_or_else(|| Error::invalid_write(format!("struct class {c} is not defined")))
    }

    fn reference(&mut self, p: Option<&Ptr>) -> Result<()> {
        let n = match p {
            None => 0,
            Some(Ptr::Object(o)) => *self
                .number
                .get(o.0 as usize)
                .ok_or_else(|| Error::write(WriteError::MissingObject(u64::from(o.0))))?,
            Some(_) => {
                return Err(Error::write(WriteError::BadPointer(
                    "a binary tagfile references whole objects of the file only".into(),
                )))
            }
        };
        self.int(n);
        Ok(())
    }

    /// An integer array's items straight from its column (as [`Writer::items`] writes
    /// `Base::Int` items: the width, then each value, which a 4-byte array must fit).
    fn ints(&mut self, elem: &Shape, items: impl Iterator<Item = i64>) -> Result<()> {
        let width = match elem {
            Shape::Int { bytes: 4, .. } => 4,
            _ => 8,
        };
        if self.int_width {
            self.int(width);
        }
        for (i, x) in items.enumerate() {
            if width == 4 && i32::try_from(x).is_err() {
                return Err(Error::write(WriteError::Range {
                    value: x.to_string(),
                    member: "int32".into(),
                    range: "a 4-byte integer array".into(),
                })
                .in_index(i));
            }
            self.int(x);
        }
        Ok(())
    }

    /// A vector array's items: the width (3 when every w is 0, else 4), then that many
    /// floats of each.
    fn vec4s(&mut self, vs: &[[f32; 4]]) {
        let width = if vs.iter().any(|v| v[3].to_bits() != 0) {
            4
        } else {
            3
        };
        self.int(width as i64);
        for v in vs {
            for x in &v[..width] {
                self.out.extend_from_slice(&x.to_le_bytes());
            }
        }
    }

    /// Items of `member`'s basic type, each of shape `elem`.
    fn items(&mut self, member: &MemberDef, elem: &Shape, items: &[&Value]) -> Result<()> {
        let bad = |i: usize, v: &Value| kind_error(member, v).in_index(i);
        match member.ty.base {
            Base::Int => {
                let xs = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v.as_i64().ok_or_else(|| bad(i, v)))
                    .collect::<Result<Vec<i64>>>()?;
                self.ints(elem, xs.into_iter())?;
            }
            Base::Vec4 => {
                let mut vs = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    match v.as_floats() {
                        Some(f) if f.len() == 4 => vs.push([f[0], f[1], f[2], f[3]]),
                        _ => return Err(bad(i, v)),
                    }
                }
                self.vec4s(&vs);
            }
            Base::Struct => {
                let def = self.struct_def(member)?;
                let mut rows = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    match v {
                        Value::Struct(vs) => rows.push(vs.as_slice()),
                        _ => return Err(bad(i, v)),
                    }
                }
                let flat = self.take_flat(def)?;
                let r = self.column(&flat, &rows);
                self.put_flat(def, flat);
                r?;
            }
            _ => {
                let scalar = MemberDef {
                    ty: super::defs::TypeCode {
                        array: false,
                        tuple: 0,
                        ..member.ty
                    },
                    ..member.clone()
                };
                for (i, v) in items.iter().enumerate() {
                    self.value(&scalar, elem, v).map_err(|e| e.in_index(i))?;
                }
            }
        }
        Ok(())
    }

    /// Structs column by column: the bitfield of members any element is worth writing
    /// for, then each such member's values for every element.
    fn column(&mut self, flat: &[(usize, usize, Shape)], rows: &[&[Value]]) -> Result<()> {
        if let Some(r) = rows.iter().find(|r| r.len() != flat.len()) {
            return Err(Error::write(WriteError::Length {
                member: "a struct".into(),
                expected: flat.len(),
                found: r.len(),
            }));
        }
        let defs = self.defs;
        let present: Vec<bool> = flat
            .iter()
            .enumerate()
            .map(|(k, &(d, m, _))| {
                let ty = &defs[d].members[m].ty;
                ty.base != Base::Void && rows.iter().any(|r| worth(ty, &r[k]) || always_written(ty))
            })
            .collect();
        self.bits(&present);
        for (k, &(d, m, ref shape)) in flat.iter().enumerate() {
            if !present[k] {
                continue;
            }
            let member = &defs[d].members[m];
            let at = |e: Error| e.in_member(&defs[d].name, &member.name);
            if member.ty.tuple > 0 || member.ty.array {
                for (i, r) in rows.iter().enumerate() {
                    self.value(member, shape, &r[k])
                        .map_err(|e| at(e.in_index(i)))?;
                }
            } else {
                let col: Vec<&Value> = rows.iter().map(|r| &r[k]).collect();
                self.items(member, shape, &col).map_err(at)?;
            }
        }
        Ok(())
    }
}
