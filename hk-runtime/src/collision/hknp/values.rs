//! Small helpers the hknp builders share (`build`, `compressed_build`): values of the
//! right form, enum items by name, arrays of default elements, boxes with `w` lanes, and
//! shape objects with their type, dispatch type and flags set.

use crate::error::{Error, Result};
use crate::graph::{default_value, Graph, ObjectId, Value};
use crate::schema::{Schema, Shape};

use crate::collision::math::{Aabb, Vec3};

pub(crate) fn uints(v: impl IntoIterator<Item = u64>) -> Value {
    Value::list(v.into_iter().map(Value::UInt).collect())
}

pub(crate) fn int16s(v: [i16; 4]) -> Value {
    Value::CArray(v.iter().map(|&x| Value::Int(i64::from(x))).collect())
}

/// The value of item `item` of enum `class.name`.
pub(crate) fn item(schema: &Schema, class: &str, name: &str, item: &str) -> Result<Value> {
    schema
        .class(class)
        .and_then(|c| c.enums.iter().find(|e| e.name == name))
        .and_then(|e| e.items.iter().find(|i| i.name == item))
        .map(|i| Value::UInt(i.value as u64))
        .ok_or_else(|| {
            Error::schema(format!(
                "{} has no {class}.{name}.{item}",
                schema.generation.name
            ))
        })
}

/// Sets the array at `path` to `n` default elements (then set member by member).
pub(crate) fn fill(g: &mut Graph, id: ObjectId, path: &str, n: usize) -> Result<()> {
    let class = g.object(id).class;
    let (_, shape) = g.resolve(class, path)?;
    let Shape::Array(_, elem) = shape else {
        return Err(Error::write(crate::error::WriteError::NotArray(
            path.to_string(),
        )));
    };
    let zero = default_value(g.schema(), &elem)?;
    g.set(id, path, Value::list(vec![zero; n]))
}

/// Sets the `hkAabb` at `path`, with the given bit patterns in the `w` lanes.
pub(crate) fn set_aabb(
    g: &mut Graph,
    id: ObjectId,
    path: &str,
    b: &Aabb,
    w: [u32; 2],
) -> Result<()> {
    let lane = |p: Vec3, w: u32| Value::floats(&[p[0], p[1], p[2], f32::from_bits(w)]);
    g.set(id, &format!("{path}.min"), lane(b.min, w[0]))?;
    g.set(id, &format!("{path}.max"), lane(b.max, w[1]))
}

/// Adds a `class` object with hknpShape's type, dispatch type and flags set by name. A
/// schema that states no `hknpShapeType` enum (a tagfile's own type table, which carries no
/// enums) leaves the three at zero: the caller copies what it needs from a stored shape.
pub(crate) fn shape(
    g: &mut Graph,
    class: &str,
    ty: &str,
    dispatch: &str,
    flags: &[&str],
) -> Result<ObjectId> {
    let o = g.add_object(class)?;
    let stated = g
        .schema()
        .class("hknpShapeType")
        .is_some_and(|c| !c.enums.is_empty());
    if !stated {
        return Ok(o);
    }
    let ty = item(g.schema(), "hknpShapeType", "Enum", ty)?;
    let dispatch = item(g.schema(), "hknpCollisionDispatchType", "Enum", dispatch)?;
    let mut bits = 0;
    for f in flags {
        if let Value::UInt(v) = item(g.schema(), "hknpShape", "FlagsEnum", f)? {
            bits |= v;
        }
    }
    g.set(o, "type", ty)?;
    g.set(o, "dispatchType", dispatch)?;
    g.set(o, "flags", Value::UInt(bits))?;
    Ok(o)
}
