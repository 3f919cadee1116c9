//! The object graph every container decodes into and encodes from (layer 3).
//!
//! An [`Object`] is a class id and its values in the class's flattened member order
//! ([`Schema::members`]); names live in the schema, never per value. Primitive arrays are
//! typed columns, float tuples are inline, pointers name objects by [`ObjectId`] (or a path
//! into an object's owned data). Container facts (a packfile's header, a tagfile's type
//! table) live in the file's origin, not here. Writers regenerate placement, padding and
//! fixups from the graph; [`Graph::set`] and the writers check every value against its
//! member's shape.

pub mod check;
mod path;
#[cfg_attr(not(feature = "front"), allow(dead_code))]
pub(crate) mod rec;
mod value;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use path::{parse_path, PathStep};
pub use value::{
    Array, Column, Floats, Homogeneous, ObjectId, Ptr, Seg, StructColumns, Value, VariantPtrs,
};

use crate::error::PathSegment;
use crate::error::{Error, Result, SchemaError, WriteError};
use crate::schema::{ClassId, FlatMember, Schema, Shape};

/// Graphs built by [`Graph::new`] and [`Graph::from_objects`] in this process.
static GRAPHS_BUILT: AtomicU64 = AtomicU64::new(0);

/// How many graphs this process has built ([`Graph::new`] and [`Graph::from_objects`];
/// clones are not counted). Tests use it to show that a path builds none.
pub fn graphs_built() -> u64 {
    GRAPHS_BUILT.load(Ordering::Relaxed)
}

/// One object.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Its class in the graph's schema.
    pub class: ClassId,
    /// Its values, in [`Schema::members`] order.
    pub values: Vec<Value>,
}

/// An object graph and the schema that names its classes and members.
#[derive(Clone, Debug)]
pub struct Graph {
    schema: Arc<Schema>,
    /// Every object.
    pub objects: Vec<Object>,
    /// The root object.
    pub root: ObjectId,
}

impl PartialEq for Graph {
    /// Same objects and root; the schemas are compared by their classes' names only
    /// through the objects' class ids and values.
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
            && self.objects.len() == other.objects.len()
            && self.objects.iter().zip(&other.objects).all(|(a, b)| {
                self.schema.name_of(a.class) == other.schema.name_of(b.class)
                    && a.values == b.values
            })
    }
}

/// Whether `v` holds an array of structs stored as columns.
fn has_struct_columns(v: &Value) -> bool {
    match v {
        Value::Array(Array::Struct(_)) => true,
        Value::Struct(vs) | Value::CArray(vs) => vs.iter().any(has_struct_columns),
        // An array's elements are of one member type: an array of numbers (a mesh's
        // millions of indices) holds no columns, which its first element shows.
        Value::Array(Array::Values(vs)) => {
            vs.first().is_some_and(could_hold_columns) && vs.iter().any(has_struct_columns)
        }
        _ => false,
    }
}

/// Whether a value of `v`'s kind can hold an array of structs (a struct, a C array, an
/// array).
fn could_hold_columns(v: &Value) -> bool {
    matches!(v, Value::Struct(_) | Value::CArray(_) | Value::Array(_))
}

/// Turns every array of structs stored as columns in `v` into struct values.
fn struct_values(v: &mut Value) {
    match v {
        Value::Array(a @ Array::Struct(_)) => {
            a.values_mut();
        }
        Value::Struct(vs) | Value::CArray(vs) | Value::Array(Array::Values(vs)) => {
            vs.iter_mut().for_each(struct_values)
        }
        _ => {}
    }
}

impl Graph {
    /// The graph with every array of structs stored as columns ([`Array::Struct`]) given
    /// as struct values: borrowed when it has none. For code that borrows struct values
    /// from the graph (the collision readers); readers store arrays of primitive structs
    /// as columns.
    pub fn with_struct_values(&self) -> std::borrow::Cow<'_, Graph> {
        let any = self
            .objects
            .iter()
            .any(|o| o.values.iter().any(has_struct_columns));
        if !any {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut g = self.clone();
        for o in &mut g.objects {
            o.values.iter_mut().for_each(struct_values);
        }
        std::borrow::Cow::Owned(g)
    }

    /// An empty graph over `schema` (add objects with [`Graph::add_object`]; the first one
    /// added is the root until [`Graph::root`] is set).
    pub fn new(schema: Arc<Schema>) -> Graph {
        GRAPHS_BUILT.fetch_add(1, Ordering::Relaxed);
        Graph {
            schema,
            objects: Vec::new(),
            root: ObjectId(0),
        }
    }

    /// A graph of `objects` (already in schema order) with `root`.
    pub fn from_objects(schema: Arc<Schema>, objects: Vec<Object>, root: ObjectId) -> Graph {
        GRAPHS_BUILT.fetch_add(1, Ordering::Relaxed);
        Graph {
            schema,
            objects,
            root,
        }
    }

    /// The schema that names the classes.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// Object `id`.
    ///
    /// # Panics
    /// When `id` is out of range.
    pub fn object(&self, id: ObjectId) -> &Object {
        &self.objects[id.0 as usize]
    }

    /// The class name of object `id` (`"?"` for an id out of range).
    pub fn class_name(&self, id: ObjectId) -> &str {
        self.objects
            .get(id.0 as usize)
            .map_or("?", |o| self.schema.name_of(o.class))
    }

    /// The objects of class `name`, in id order.
    pub fn find<'g>(&'g self, name: &str) -> impl Iterator<Item = ObjectId> + 'g {
        let cid = self.schema.class_id(name);
        self.objects
            .iter()
            .enumerate()
            .filter(move |(_, o)| Some(o.class) == cid)
            .map(|(i, _)| ObjectId(i as u32))
    }

    /// The first object of class `name`.
    pub fn first(&self, name: &str) -> Option<ObjectId> {
        self.find(name).next()
    }

    /// The flattened members of class `c`.
    ///
    /// # Errors
    /// A class whose description is broken.
    pub fn members(&self, c: ClassId) -> Result<Arc<[FlatMember]>> {
        self.schema.members(c)
    }

    /// The name of member `i` of class `c`.
    pub fn member_name(&self, c: ClassId, i: usize) -> Option<String> {
        let ms = self.schema.members(c).ok()?;
        ms.get(i).map(|m| self.schema.member_of(m).name.clone())
    }

    /// Resolves a member path (`bones[2].name`) of class `c` into steps, with the shape
    /// of the value it reaches.
    ///
    /// # Errors
    /// A malformed path, a name the class does not have, or an index into a value that is
    /// not an array.
    pub fn resolve(&self, c: ClassId, path: &str) -> Result<(Vec<Seg>, Shape)> {
        let steps = parse_path(path)
            .ok_or_else(|| Error::invalid_write(format!("bad member path `{path}`")))?;
        let mut segs = Vec::with_capacity(steps.len());
        let mut shape = Shape::Struct(c);
        for step in steps {
            match step {
                PathStep::Name(n) => {
                    let Shape::Struct(sc) = shape else {
                        return Err(Error::invalid_write(format!(
                            "`{path}`: `{n}` follows a value that has no members"
                        )));
                    };
                    let ms = self.schema.members(sc)?;
                    let (i, m) = ms
                        .iter()
                        .enumerate()
                        .find(|(_, m)| self.schema.member_of(m).name == n)
                        .ok_or_else(|| {
                            Error::new(crate::ErrorKind::Schema(SchemaError::MissingMember {
                                class: self.schema.name_of(sc).to_string(),
                                member: n.to_string(),
                            }))
                        })?;
                    segs.push(Seg::Member(i as u16));
                    shape = m.shape.clone();
                }
                PathStep::Index(k) => {
                    shape = match shape {
                        Shape::Array(_, e) | Shape::CArray(_, e) => *e,
                        _ => {
                            return Err(Error::invalid_write(format!(
                                "`{path}`: [{k}] indexes a value that is not an array"
                            )))
                        }
                    };
                    segs.push(Seg::Index(k));
                }
            }
        }
        Ok((segs, shape))
    }

    /// The value at member path `path` of object `id` (a copy for an element of a typed
    /// column).
    ///
    /// # Errors
    /// An object out of range, or a path that names nothing.
    pub fn get(&self, id: ObjectId, path: &str) -> Result<Value> {
        let o = self.object_checked(id)?;
        let (segs, _) = self.resolve(o.class, path)?;
        value_at(&o.values, &segs).ok_or_else(|| {
            Error::invalid_write(format!("`{path}` is past the end of an array"))
                .in_(self.object_step(id))
        })
    }

    /// Sets the value at member path `path` of object `id`, after checking it against the
    /// member's shape (kind, range, tuple length, pointers to objects that exist); arrays
    /// are stored in the column their elements take.
    ///
    /// # Errors
    /// A bad path or a value that does not fit, naming the object and member.
    pub fn set(&mut self, id: ObjectId, path: &str, value: Value) -> Result<()> {
        let object = self.object_step(id);
        let at = |e: Error| e.in_(PathSegment::field(path)).in_(object.clone());
        let o = self.object_checked(id)?;
        let (segs, shape) = self.resolve(o.class, path).map_err(at)?;
        let v = check::normalize(&self.schema, &shape, value, self.objects.len()).map_err(at)?;
        let o = &mut self.objects[id.0 as usize];
        set_at(&mut o.values, &segs, v).map_err(at)
    }

    /// Adds an object of class `name` with every member at its zero value (null pointers
    /// and strings, empty arrays, zero numbers).
    ///
    /// # Errors
    /// A class the schema lacks or cannot describe.
    pub fn add_object(&mut self, name: &str) -> Result<ObjectId> {
        let class = self.schema.require(name)?;
        let values = default_values(&self.schema, class)?;
        self.objects.push(Object { class, values });
        Ok(ObjectId(self.objects.len() as u32 - 1))
    }

    /// Removes object `id`: pointers to it become null, later ids shift down by one.
    ///
    /// # Errors
    /// When `id` is the root or out of range.
    pub fn remove_object(&mut self, id: ObjectId) -> Result<Object> {
        if id == self.root || id.0 as usize >= self.objects.len() {
            return Err(Error::invalid_write(format!(
                "cannot remove object #{} (the root, or out of range)",
                id.0
            )));
        }
        let removed = self.objects.remove(id.0 as usize);
        let fix = |p: &mut Option<Ptr>| {
            let target = match p {
                Some(Ptr::Object(t)) | Some(Ptr::Into { object: t, .. }) => t,
                Some(Ptr::Import(_)) | None => return,
            };
            if *target == id {
                *p = None;
            } else if target.0 > id.0 {
                target.0 -= 1;
            }
        };
        for o in &mut self.objects {
            o.values.iter_mut().for_each(|v| visit_ptrs(v, &fix));
        }
        if self.root.0 > id.0 {
            self.root.0 -= 1;
        }
        Ok(removed)
    }

    /// Checks every value of every object against its member's shape.
    ///
    /// # Errors
    /// The first value that does not fit, naming the object and member.
    pub fn check(&self) -> Result<()> {
        for (i, o) in self.objects.iter().enumerate() {
            let id = ObjectId(i as u32);
            let ms = self.schema.members(o.class)?;
            if ms.len() != o.values.len() {
                return Err(Error::write(WriteError::Length {
                    member: format!("class {}", self.schema.name_of(o.class)),
                    expected: ms.len(),
                    found: o.values.len(),
                })
                .in_(self.object_step(id)));
            }
            for (m, v) in ms.iter().zip(&o.values) {
                check::check(&self.schema, &m.shape, v, self.objects.len()).map_err(|e| {
                    e.in_(PathSegment::field(&self.schema.member_of(m).name))
                        .in_(self.object_step(id))
                })?;
            }
        }
        if self.root.0 as usize >= self.objects.len() {
            return Err(
                Error::write(WriteError::MissingObject(u64::from(self.root.0))).in_("root"),
            );
        }
        Ok(())
    }

    /// `object #3 hkaSkeleton`: how errors name an object.
    pub fn object_label(&self, id: ObjectId) -> String {
        self.object_step(id).to_string()
    }

    /// The object as a step of an error's path (`object #3 hkaSkeleton`).
    pub fn object_step(&self, id: ObjectId) -> PathSegment {
        PathSegment::object(id.0, self.class_name(id))
    }

    /// A member path as text (`bones[2].name`) from class `c`.
    pub fn path_text(&self, c: ClassId, path: &[Seg]) -> String {
        path_text(&self.schema, c, path)
    }

    fn object_checked(&self, id: ObjectId) -> Result<&Object> {
        self.objects
            .get(id.0 as usize)
            .ok_or_else(|| Error::write(WriteError::MissingObject(u64::from(id.0))))
    }
}

/// A member path as text (`bones[2].name`) from class `c` of `schema`.
pub fn path_text(schema: &Schema, c: ClassId, path: &[Seg]) -> String {
    let mut s = String::new();
    let mut shape = Shape::Struct(c);
    for seg in path {
        match *seg {
            Seg::Member(i) => {
                let name = match &shape {
                    Shape::Struct(sc) => schema.members(*sc).ok().and_then(|ms| {
                        ms.get(usize::from(i)).map(|m| {
                            let name = schema.member_of(m).name.clone();
                            shape = m.shape.clone();
                            name
                        })
                    }),
                    _ => None,
                };
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(&name.unwrap_or_else(|| format!("#{i}")));
            }
            Seg::Index(k) => {
                s.push_str(&format!("[{k}]"));
                shape = match shape {
                    Shape::Array(_, e) | Shape::CArray(_, e) => *e,
                    other => other,
                };
            }
        }
    }
    s
}

/// The value at `path` in `values` (a copy for an element of a typed column).
pub fn value_at(values: &[Value], path: &[Seg]) -> Option<Value> {
    let (first, rest) = path.split_first()?;
    let Seg::Member(i) = first else { return None };
    value_in(values.get(usize::from(*i))?, rest)
}

/// The value at `path` from `v`.
fn value_in(mut v: &Value, path: &[Seg]) -> Option<Value> {
    for (n, seg) in path.iter().enumerate() {
        v = match (v, seg) {
            (Value::Struct(vs), Seg::Member(i)) => vs.get(usize::from(*i))?,
            (Value::CArray(items), Seg::Index(k)) => items.get(*k as usize)?,
            (Value::Array(Array::Values(items)), Seg::Index(k)) => items.get(*k as usize)?,
            // An element of a column is a copy; the rest of the path goes into the copy.
            (Value::Array(a), Seg::Index(k)) => {
                return value_in(&a.get(*k as usize)?, &path[n + 1..])
            }
            _ => return None,
        };
    }
    Some(v.clone())
}

/// The value at `path` in `values`, mutable (`None` for an element of a typed column,
/// which has no `Value` to borrow; struct columns on the path become values).
pub fn value_at_mut<'v>(values: &'v mut [Value], path: &[Seg]) -> Option<&'v mut Value> {
    let (first, rest) = path.split_first()?;
    let Seg::Member(i) = first else { return None };
    let mut v = values.get_mut(usize::from(*i))?;
    for seg in rest {
        v = match (v, seg) {
            (Value::Struct(vs), Seg::Member(i)) => vs.get_mut(usize::from(*i))?,
            (Value::CArray(items), Seg::Index(k)) => items.get_mut(*k as usize)?,
            (Value::Array(a @ (Array::Values(_) | Array::Struct(_))), Seg::Index(k)) => {
                a.values_mut()?.get_mut(*k as usize)?
            }
            _ => return None,
        };
    }
    Some(v)
}

/// Stores checked value `v` at `path`, into a typed column where the path ends in one.
fn set_at(values: &mut [Value], path: &[Seg], v: Value) -> Result<()> {
    let missing = || Error::invalid_write("the path is past the end of an array");
    if let Some(slot) = value_at_mut(values, path) {
        *slot = v;
        return Ok(());
    }
    // An element of a typed column: set it in place.
    let (last, parent) = path.split_last().ok_or_else(missing)?;
    let Seg::Index(k) = *last else {
        return Err(missing());
    };
    let Some(Value::Array(a)) = value_at_mut(values, parent) else {
        return Err(missing());
    };
    let k = k as usize;
    if k >= a.len() {
        return Err(missing());
    }
    let mut one = a.column().with_capacity(1);
    check::normalize_into(&mut one, v);
    set_element(a, k, one)
}

fn set_element(a: &mut Array, k: usize, one: Array) -> Result<()> {
    macro_rules! put {
        ($($col:ident),*) => {
            match (a, one) {
                $((Array::$col(c), Array::$col(mut o)) if !o.is_empty() => c[k] = o.remove(0),)*
                _ => return Err(Error::invalid_write("the value does not fit the array's column")),
            }
        };
    }
    put!(Bool, I8, U8, I16, U16, I32, U32, I64, U64, Real, Half, Vec4, Mat3, Mat4, Values);
    Ok(())
}

fn visit_ptrs(v: &mut Value, f: &impl Fn(&mut Option<Ptr>)) {
    match v {
        Value::Pointer(p) => f(p),
        Value::Variant(v) => {
            f(&mut v.object);
            f(&mut v.class);
        }
        Value::Homogeneous(h) => {
            f(&mut h.class);
            if let Array::Values(vs) = &mut h.items {
                vs.iter_mut().for_each(|x| visit_ptrs(x, f))
            }
        }
        Value::Struct(vs) | Value::CArray(vs) | Value::Array(Array::Values(vs)) => {
            vs.iter_mut().for_each(|x| visit_ptrs(x, f))
        }
        _ => {}
    }
}

/// The zero value of a member of `shape`.
///
/// # Errors
/// A struct class whose description is broken.
pub fn default_value(schema: &Schema, shape: &Shape) -> Result<Value> {
    Ok(match shape {
        Shape::Void | Shape::Unsupported(_) => Value::None,
        Shape::Bool => Value::Bool(0),
        Shape::Int { signed: true, .. } => Value::Int(0),
        Shape::Int { signed: false, .. } | Shape::ULong => Value::UInt(0),
        Shape::Real => Value::Real(0.0),
        Shape::Half => Value::Half(0),
        Shape::Floats(n) => Value::Floats(Floats::zeros(*n)),
        Shape::Pointer => Value::Pointer(None),
        Shape::String => Value::String(None),
        Shape::Variant => Value::variant(None, None),
        Shape::Homogeneous => Value::homogeneous(None, None, Array::Values(Vec::new())),
        Shape::Struct(c) => Value::Struct(default_values(schema, *c)?),
        Shape::Array(_, e) => Value::Array(Column::of(e).with_capacity(0)),
        Shape::CArray(n, e) => Value::CArray(
            (0..*n)
                .map(|_| default_value(schema, e))
                .collect::<Result<_>>()?,
        ),
    })
}

/// Zero values for every member of class `c` and its ancestors.
///
/// # Errors
/// A class whose description is broken.
pub fn default_values(schema: &Schema, c: ClassId) -> Result<Vec<Value>> {
    schema
        .members(c)?
        .iter()
        .map(|m| default_value(schema, &m.shape))
        .collect()
}
