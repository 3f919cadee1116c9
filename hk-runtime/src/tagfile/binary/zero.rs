//! What Havok's writer leaves out of the stream (zero numbers, null pointers and strings,
//! empty arrays), and the zero values that stand for left-out members once the schema says
//! what they are (docs/binary-tagfile-format.md §5).

use super::defs::{Base, TypeCode};
use crate::error::Result;
use crate::graph::{default_value, Array, Value};
use crate::limits::Budget;
use crate::schema::{Schema, Shape};

/// Bytes one value takes in the graph (what the reader charges per value).
pub(super) const VALUE: u64 = std::mem::size_of::<Value>() as u64;

/// Bytes one value of `base` holds besides itself: the 8 values of an 8-float vector, the
/// floats of a matrix (which a value keeps in an allocation of its own).
pub(super) fn extra_bytes(base: Base) -> u64 {
    match base {
        Base::Vec8 => 8 * VALUE,
        Base::Vec12 => 48,
        Base::Vec16 => 64,
        _ => 0,
    }
}

/// Bytes charged per zero value: the value, and a share of the floats a matrix keeps in an
/// allocation of its own (a matrix counts as 2 values).
const ZERO_VALUE: u64 = VALUE + 16;

/// Whether Havok's writer writes a member of type `ty` holding `v` (zero numbers, null
/// pointers and strings, and empty arrays it leaves out; tuples, vectors and structs it
/// always writes).
pub(super) fn worth(ty: &TypeCode, v: &Value) -> bool {
    match v {
        Value::None => false,
        _ if ty.tuple > 0 => true,
        Value::Array(a) => !a.is_empty(),
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Real(f) => *f != 0.0,
        Value::Pointer(p) => p.is_some(),
        Value::String(s) => s.is_some(),
        _ => true,
    }
}

/// Whether Havok's writer writes a member of type `ty` whatever it holds.
pub(super) fn always_written(ty: &TypeCode) -> bool {
    ty.base != Base::Void
        && (ty.tuple > 0 || (!ty.array && (ty.base.floats() > 0 || ty.base == Base::Struct)))
}

/// The values of an array column.
pub(super) fn into_values(a: Array) -> Vec<Value> {
    match a {
        Array::Values(v) => v,
        other => other.to_values(),
    }
}

/// Replaces the placeholders of members the stream left out by their zero values, each
/// charged to `budget` (by [`Schema::shape_values`], [`ZERO_VALUE`] a value) before it is
/// made; `at` is the end of
/// the stream, where the reader makes them.
pub(super) fn fill(
    schema: &Schema,
    shape: &Shape,
    v: &mut Value,
    budget: &mut Budget,
    at: u64,
) -> Result<()> {
    match (shape, v) {
        (Shape::Void, _) => {}
        (_, v @ Value::None) => {
            budget.charge_n(schema.shape_values(shape)?, ZERO_VALUE, at)?;
            *v = default_value(schema, shape)?;
        }
        (Shape::Struct(c), Value::Struct(vs)) => {
            for (m, x) in schema.members(*c)?.iter().zip(vs) {
                fill(schema, &m.shape, x, budget, at)?;
            }
        }
        (Shape::Array(_, e), Value::Array(Array::Values(items)))
        | (Shape::CArray(_, e), Value::CArray(items)) => {
            for x in items {
                fill(schema, e, x, budget, at)?;
            }
        }
        _ => {}
    }
    Ok(())
}
