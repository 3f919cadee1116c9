//! Checked conversions between typed classes and the dynamic graph's objects. An object's
//! values are in its class's flattened member order ([`Schema::members`]); the schema is
//! checked against the generated class once per conversion (class name, member names and
//! count, struct members' classes too), and every number is converted with `try_from`.

use std::sync::Arc;

pub use super::class::{struct_from_value, struct_set, struct_to_value};

use super::class::{AnyClass, Class, TypedFile};
use super::engine::Members;
use super::member::ValueField;
use crate::error::PathSegment;
use crate::error::{ConvertError, Error, Result};
use crate::graph::{Graph, Object, Value};
use crate::packfile::PackfileInfo;
use crate::schema::{ClassId, Schema};

/// An object of a graph with the schema that names its class: what typed classes convert
/// from.
#[derive(Clone, Copy, Debug)]
pub struct GraphObject<'g> {
    /// The schema of the object's graph.
    pub schema: &'g Schema,
    /// The object.
    pub object: &'g Object,
}

impl<'g> GraphObject<'g> {
    /// Object `id` of `graph`.
    ///
    /// # Errors
    /// An id out of range.
    pub fn of(graph: &'g Graph, id: crate::graph::ObjectId) -> Result<Self> {
        let object = graph.objects.get(id.0 as usize).ok_or_else(|| {
            Error::write(crate::error::WriteError::MissingObject(u64::from(id.0)))
        })?;
        Ok(GraphObject {
            schema: graph.schema(),
            object,
        })
    }
}

fn mismatch(msg: String) -> Error {
    Error::convert(ConvertError::Schema(msg))
}

/// Checks that `schema` has class `name` with flattened members `members` (declaring class
/// and name, in order), unless `seen` already holds it; returns its id and whether it was
/// checked now (so the caller checks its struct members' classes too).
///
/// # Errors
/// A missing class, or members that differ.
pub fn check_class(
    schema: &Schema,
    name: &'static str,
    members: Members,
    seen: &mut Vec<&'static str>,
) -> Result<(ClassId, bool)> {
    let id = schema
        .class_id(name)
        .ok_or_else(|| mismatch(format!("class `{name}` is not in the graph's schema")))?;
    if seen.contains(&name) {
        return Ok((id, false));
    }
    seen.push(name);
    let flat = schema.members(id)?;
    if flat.len() != members.len() {
        return Err(mismatch(format!(
            "class `{name}` has {} members in the graph's schema, {} in the generated class",
            flat.len(),
            members.len()
        )));
    }
    for (fm, info) in flat.iter().zip(members) {
        let (o, m) = (schema.name_of(fm.owner), &schema.member_of(fm).name);
        if o != info.owner || m != info.name {
            return Err(mismatch(format!(
                "class `{name}`: the graph's schema has `{o}.{m}` where the generated class has `{}.{}`",
                info.owner, info.name
            )));
        }
    }
    Ok((id, true))
}

/// Checks class `C` (and the classes of its struct members) against `schema` and returns
/// its id.
///
/// # Errors
/// As [`Class::check_schema`].
pub fn class_id<C: Class>(schema: &Schema) -> Result<ClassId> {
    C::check_schema(schema)
}

/// Class `C` as a graph object of `schema`.
///
/// # Errors
/// A schema that describes the class differently.
#[inline(never)]
pub fn to_object<C: Class>(x: &C, schema: &Schema) -> Result<Object> {
    let class = C::check_schema(schema)?;
    Ok(Object {
        class,
        values: x.to_values()?,
    })
}

/// A graph object as class `C`.
///
/// # Errors
/// An object of another class, a schema that describes the class differently, or a value
/// that does not fit.
#[inline(never)]
pub fn from_object<C: Class>(o: GraphObject<'_>) -> Result<C> {
    let class = C::check_schema(o.schema)?;
    if o.object.class != class {
        return Err(Error::convert(ConvertError::Class(format!(
            "{} (expected {})",
            o.schema.name_of(o.object.class),
            C::NAME
        ))));
    }
    C::from_values(&o.object.values)
}

/// The graph values of a class's `fields` (in flattened order), each error naming its
/// member from `members`.
///
/// # Errors
/// As [`super::Member::to_value`].
pub fn values(members: Members, fields: &[&dyn ValueField]) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(fields.len());
    for (f, m) in fields.iter().zip(members) {
        out.push(f.value().map_err(|e| e.in_member(m.owner, m.name))?);
    }
    Ok(out)
}

/// Sets a class's `fields` (in flattened order) from `values`, one per member of class
/// `class`, each error naming its member from `members`.
///
/// # Errors
/// Another number of values, or a value of another kind or out of range.
pub fn take(
    class: &str,
    members: Members,
    values: &[Value],
    fields: &mut [&mut dyn ValueField],
) -> Result<()> {
    if values.len() != fields.len() {
        return Err(mismatch(format!(
            "class `{class}` has {} members, the value has {}",
            fields.len(),
            values.len()
        )));
    }
    for ((f, v), m) in fields.iter_mut().zip(values).zip(members) {
        f.set_value(v).map_err(|e| e.in_member(m.owner, m.name))?;
    }
    Ok(())
}

/// The objects of `file` as a graph of `schema`.
///
/// # Errors
/// A schema that describes a class differently.
pub fn file_to_graph<A: AnyClass>(file: &TypedFile<A>, schema: &Arc<Schema>) -> Result<Graph> {
    let objects = file
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            o.to_object(schema)
                .map_err(|e| e.in_(PathSegment::object(i, o.class_name())))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Graph::from_objects(Arc::clone(schema), objects, file.root))
}

/// Typed objects from a graph, with the container facts `info`.
///
/// # Errors
/// As [`AnyClass::from_object`].
pub fn file_from_graph<A: AnyClass>(graph: &Graph, info: PackfileInfo) -> Result<TypedFile<A>> {
    let schema = graph.schema();
    let objects = graph
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            A::from_object(schema, o)
                .map_err(|e| e.in_(PathSegment::object(i, schema.name_of(o.class))))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TypedFile {
        objects,
        root: graph.root,
        info,
    })
}
