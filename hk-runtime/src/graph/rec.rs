//! Named access to an object's (or a struct value's) members through the schema: the one
//! way the domain readers (collision, animation) look at data. No offsets: a member is found
//! by its name in the class's flattened member list ([`Schema::members`]), so a class that
//! moved, renamed a parent or gained members in another generation is read the same way,
//! and a game subclass (`CustomParamStorageExtendedMeshShape`) has every member of its
//! Havok parent. Errors are the reader's own type `E` ([`RecordError`]), so each domain
//! reports in its own terms.

use std::marker::PhantomData;

use crate::graph::{Array, Graph, ObjectId, Ptr, Value};
use crate::schema::{ClassId, Schema, Shape};

/// The error type a domain reader builds from a record's complaints.
pub(crate) trait RecordError {
    /// An error about `member` (`Class.member`) of `object` (`#id Class`).
    fn member(object: String, member: String, message: String) -> Box<Self>;
}

type Result<T, E> = std::result::Result<T, Box<E>>;

/// A record: an object's values or a struct value's, with the class that names them.
#[derive(Debug)]
pub(crate) struct Rec<'g, E> {
    graph: &'g Graph,
    class: ClassId,
    values: &'g [Value],
    /// The object the record belongs to (for messages).
    object: ObjectId,
    error: PhantomData<fn() -> E>,
}

impl<E> Clone for Rec<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for Rec<'_, E> {}

impl<'g, E: RecordError> Rec<'g, E> {
    /// Object `id` of `graph`.
    pub(crate) fn object(graph: &'g Graph, id: ObjectId) -> Result<Rec<'g, E>, E> {
        let o = graph.objects.get(id.0 as usize).ok_or_else(|| {
            E::member(format!("#{}", id.0), String::new(), "no such object".into())
        })?;
        Ok(Rec {
            graph,
            class: o.class,
            values: &o.values,
            object: id,
            error: PhantomData,
        })
    }

    /// The graph.
    pub(crate) fn graph(&self) -> &'g Graph {
        self.graph
    }

    fn schema(&self) -> &'g Schema {
        self.graph.schema()
    }

    /// The record's class name.
    pub(crate) fn class_name(&self) -> &'g str {
        self.schema().name_of(self.class)
    }

    /// The object this record is part of.
    pub(crate) fn id(&self) -> ObjectId {
        self.object
    }

    /// `#id Class` for messages.
    pub(crate) fn label(&self) -> String {
        format!("#{} {}", self.object.0, self.graph.class_name(self.object))
    }

    /// The first class of the record's parent chain (itself first) among `names`.
    pub(crate) fn kind_among<'n>(&self, names: &[&'n str]) -> Option<&'n str> {
        let chain = self.schema().chain(self.class_name()).ok()?;
        chain
            .iter()
            .find_map(|c| names.iter().find(|n| **n == c.name).copied())
    }

    fn index(&self, name: &str) -> Option<(usize, Shape)> {
        let ms = self.schema().members(self.class).ok()?;
        ms.iter().enumerate().find_map(|(i, m)| {
            (self.schema().member_of(m).name == name).then(|| (i, m.shape.clone()))
        })
    }

    /// Member `name`'s value, `None` when the class has no such member.
    pub(crate) fn opt(&self, name: &str) -> Option<&'g Value> {
        let (i, _) = self.index(name)?;
        self.values.get(i)
    }

    /// Member `name`'s value.
    pub(crate) fn get(&self, name: &str) -> Result<&'g Value, E> {
        self.opt(name)
            .ok_or_else(|| self.err(name, "the class has no such member"))
    }

    /// An error about member `name` of this record.
    pub(crate) fn err(&self, name: &str, msg: impl Into<String>) -> Box<E> {
        E::member(
            self.label(),
            format!("{}.{name}", self.class_name()),
            msg.into(),
        )
    }

    /// An integer member (any width or sign).
    pub(crate) fn int(&self, name: &str) -> Result<i64, E> {
        let v = self.get(name)?;
        match v {
            Value::Int(i) => Ok(*i),
            Value::UInt(u) => Ok(*u as i64),
            Value::Bool(b) => Ok(i64::from(*b)),
            _ => Err(self.err(name, format!("expected an integer, found {}", v.describe()))),
        }
    }

    /// A `real` member (or a `half`).
    pub(crate) fn real(&self, name: &str) -> Result<f32, E> {
        match self.get(name)? {
            Value::Real(f) => Ok(*f),
            Value::Half(h) => Ok(f32::from_bits(u32::from(*h) << 16)),
            v => Err(self.err(name, format!("expected a real, found {}", v.describe()))),
        }
    }

    /// A float tuple member of at least `n` floats.
    pub(crate) fn floats(&self, name: &str, n: usize) -> Result<&'g [f32], E> {
        let v = self.get(name)?;
        match v.as_floats() {
            Some(f) if f.len() >= n => Ok(f),
            _ => Err(self.err(name, format!("expected {n} floats, found {}", v.describe()))),
        }
    }

    /// The first three lanes of a `vector4` member.
    pub(crate) fn vec3(&self, name: &str) -> Result<[f32; 3], E> {
        let f = self.floats(name, 3)?;
        Ok([f[0], f[1], f[2]])
    }

    /// An array member's elements (an empty array for a missing member is not assumed).
    pub(crate) fn array(&self, name: &str) -> Result<&'g Array, E> {
        let v = self.get(name)?;
        v.as_array()
            .ok_or_else(|| self.err(name, format!("expected an array, found {}", v.describe())))
    }

    /// A pointer member's object (`None` for null).
    pub(crate) fn ptr(&self, name: &str) -> Result<Option<ObjectId>, E> {
        match self.get(name)? {
            Value::Pointer(None) => Ok(None),
            Value::Pointer(Some(Ptr::Object(o))) => Ok(Some(*o)),
            v => Err(self.err(
                name,
                format!("expected an object pointer, found {}", v.describe()),
            )),
        }
    }

    /// A struct member as a record of its own class.
    pub(crate) fn rec(&self, name: &str) -> Result<Rec<'g, E>, E> {
        let (i, shape) = self
            .index(name)
            .ok_or_else(|| self.err(name, "the class has no such member"))?;
        let Shape::Struct(class) = shape else {
            return Err(self.err(name, "not a struct member"));
        };
        let v = self
            .values
            .get(i)
            .ok_or_else(|| self.err(name, "the object has fewer values than members"))?;
        self.struct_rec(class, v, name)
    }

    /// The elements of an array-of-structs member as records.
    pub(crate) fn recs(&self, name: &str) -> Result<Vec<Rec<'g, E>>, E> {
        let (i, shape) = self
            .index(name)
            .ok_or_else(|| self.err(name, "the class has no such member"))?;
        let class = match shape {
            Shape::Array(_, e) | Shape::CArray(_, e) => match *e {
                Shape::Struct(c) => c,
                _ => return Err(self.err(name, "not an array of structs")),
            },
            _ => return Err(self.err(name, "not an array")),
        };
        let items = self
            .values
            .get(i)
            .and_then(Value::as_values)
            .ok_or_else(|| self.err(name, "not an array of structs"))?;
        items
            .iter()
            .map(|v| self.struct_rec(class, v, name))
            .collect()
    }

    fn struct_rec(&self, class: ClassId, v: &'g Value, name: &str) -> Result<Rec<'g, E>, E> {
        match v {
            Value::Struct(values) => Ok(Rec {
                graph: self.graph,
                class,
                values,
                object: self.object,
                error: PhantomData,
            }),
            _ => Err(self.err(name, format!("expected a struct, found {}", v.describe()))),
        }
    }

    /// The name of the item of member `name`'s enum that its value holds, when the schema
    /// states the member's enum (tagfile type tables do not).
    pub(crate) fn enum_item(&self, name: &str) -> Option<&'g str> {
        let schema = self.schema();
        let ms = schema.members(self.class).ok()?;
        let m = ms.iter().find(|m| schema.member_of(m).name == name)?;
        let member = schema.member_of(m);
        let reference = member.enum_ref.as_deref()?;
        let owner = schema.name_of(m.owner);
        let (_, e) = schema.resolve_enum(owner, reference)?;
        let value = self.int(name).ok()?;
        e.items
            .iter()
            .find(|it| i64::from(it.value) == value)
            .map(|it| it.name.as_str())
    }
}

/// Whether class `class` is `name` or derives from it.
pub(crate) fn is_a(schema: &Schema, class: &str, name: &str) -> bool {
    schema
        .chain(class)
        .map(|c| c.iter().any(|c| c.name == name))
        .unwrap_or(false)
}

/// The floats of a `vector4` column or a value list of tuples, as xyz.
pub(crate) fn points(a: &Array) -> Option<Vec<[f32; 3]>> {
    match a {
        Array::Vec4(v) => Some(v.iter().map(|p| [p[0], p[1], p[2]]).collect()),
        Array::Values(v) => v
            .iter()
            .map(|x| {
                x.as_floats()
                    .filter(|f| f.len() >= 3)
                    .map(|f| [f[0], f[1], f[2]])
            })
            .collect(),
        _ => None,
    }
}

/// An integer array's elements widened to `u32` (negative ones refused).
pub(crate) fn ints(a: &Array) -> Option<Vec<u32>> {
    Some(match a {
        Array::U8(v) => v.iter().map(|&x| u32::from(x)).collect(),
        Array::I8(v) => v
            .iter()
            .map(|&x| u32::try_from(x).ok())
            .collect::<Option<_>>()?,
        Array::U16(v) => v.iter().map(|&x| u32::from(x)).collect(),
        Array::I16(v) => v
            .iter()
            .map(|&x| u32::try_from(x).ok())
            .collect::<Option<_>>()?,
        Array::U32(v) => v.clone(),
        Array::I32(v) => v
            .iter()
            .map(|&x| u32::try_from(x).ok())
            .collect::<Option<_>>()?,
        Array::U64(v) => v
            .iter()
            .map(|&x| u32::try_from(x).ok())
            .collect::<Option<_>>()?,
        Array::I64(v) => v
            .iter()
            .map(|&x| u32::try_from(x).ok())
            .collect::<Option<_>>()?,
        Array::Values(v) if v.is_empty() => Vec::new(),
        _ => return None,
    })
}

/// The object ids of an array of pointers (nulls kept as `None`).
pub(crate) fn objects(a: &Array) -> Vec<Option<ObjectId>> {
    match a {
        Array::Values(v) => v
            .iter()
            .map(|x| match x {
                Value::Pointer(Some(Ptr::Object(o))) => Some(*o),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Every object that an object passing `from` points to (a root-level container's
/// variant does not make a shape part of another shape).
pub(crate) fn pointees_from(
    graph: &Graph,
    from: impl Fn(ObjectId) -> bool,
) -> std::collections::HashSet<ObjectId> {
    fn visit(v: &Value, out: &mut std::collections::HashSet<ObjectId>) {
        match v {
            Value::Pointer(Some(Ptr::Object(o))) => {
                out.insert(*o);
            }
            Value::Variant(p) => {
                for q in [&p.object, &p.class] {
                    if let Some(Ptr::Object(o)) = q {
                        out.insert(*o);
                    }
                }
            }
            Value::Homogeneous(h) => {
                if let Some(Ptr::Object(o)) = &h.class {
                    out.insert(*o);
                }
                if let Array::Values(vs) = &h.items {
                    vs.iter().for_each(|v| visit(v, out));
                }
            }
            Value::Array(Array::Values(vs)) | Value::Struct(vs) | Value::CArray(vs) => {
                vs.iter().for_each(|v| visit(v, out));
            }
            _ => {}
        }
    }
    let mut out = std::collections::HashSet::new();
    for (i, o) in graph.objects.iter().enumerate() {
        if from(ObjectId(i as u32)) {
            o.values.iter().for_each(|v| visit(v, &mut out));
        }
    }
    out
}
