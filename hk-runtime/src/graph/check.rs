//! Checking values against the shapes of their members: kind, integer range, tuple length,
//! struct and C-array lengths, pointers to objects that exist, strings without a NUL. A bad
//! value is a [`WriteError`]; nothing is truncated, wrapped or written past its member.

use super::value::{Array, Column, Ptr, Value};
use crate::error::{Error, Result, WriteError};
use crate::schema::{Schema, Shape};

/// The range an integer of `bytes` bytes holds, as `(min, max)` in `i128`.
pub fn int_range(bytes: u8, signed: bool) -> (i128, i128) {
    let bits = u32::from(bytes.clamp(1, 8)) * 8;
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The integer `v` holds, if it is one.
fn integer(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

/// Whether integer value `v` fits `bytes` bytes of the given sign.
///
/// # Errors
/// [`WriteError::Kind`] for a value that is not an integer, [`WriteError::Range`] for one
/// that does not fit.
#[inline]
pub fn check_int(v: &Value, bytes: u8, signed: bool, member: &dyn Fn() -> String) -> Result<()> {
    let Some(n) = integer(v) else {
        return Err(kind(&member(), v));
    };
    let (lo, hi) = int_range(bytes, signed);
    if n < lo || n > hi {
        return Err(Error::write(WriteError::Range {
            value: n.to_string(),
            member: member(),
            range: format!("{lo} to {hi}"),
        }));
    }
    Ok(())
}

fn kind(member: &str, v: &Value) -> Error {
    Error::write(WriteError::Kind {
        member: member.to_string(),
        found: v.describe(),
    })
}

fn ptr_ok(p: &Option<Ptr>, objects: usize) -> Result<()> {
    match p {
        Some(Ptr::Object(id)) | Some(Ptr::Into { object: id, .. }) if id.0 as usize >= objects => {
            Err(Error::write(WriteError::MissingObject(u64::from(id.0))))
        }
        _ => Ok(()),
    }
}

/// Checks `v` against `shape`; `objects` is the graph's object count (pointers must name
/// one of them).
///
/// # Errors
/// The first value that does not fit, with the path of struct members and elements
/// below `v` that leads to it.
pub fn check(schema: &Schema, shape: &Shape, v: &Value, objects: usize) -> Result<()> {
    let name = || shape.describe(schema);
    match (shape, v) {
        (Shape::Void | Shape::Unsupported(_), Value::None) => Ok(()),
        (Shape::Bool, Value::Bool(_)) => Ok(()),
        (Shape::Int { bytes, signed }, _) => check_int(v, *bytes, *signed, &name),
        (Shape::ULong, _) => check_int(v, 8, false, &name),
        (Shape::Real, Value::Real(_)) | (Shape::Half, Value::Half(_)) => Ok(()),
        (Shape::Floats(n), Value::Floats(f)) => {
            if f.len() == usize::from(*n) {
                Ok(())
            } else {
                Err(Error::write(WriteError::Length {
                    member: name(),
                    expected: usize::from(*n),
                    found: f.len(),
                }))
            }
        }
        (Shape::Pointer, Value::Pointer(p)) => ptr_ok(p, objects),
        (Shape::String, Value::String(s)) => match s {
            Some(s) if s.contains('\0') => Err(Error::write(WriteError::Invalid(format!(
                "the string {s:?} holds a NUL, which would end it early"
            )))),
            _ => Ok(()),
        },
        (Shape::String, Value::Bytes(b)) => {
            if b.contains(&0) {
                Err(Error::write(WriteError::Invalid(
                    "string bytes hold a NUL, which would end the string early".into(),
                )))
            } else {
                Ok(())
            }
        }
        (Shape::Variant, Value::Variant(v)) => {
            ptr_ok(&v.object, objects)?;
            ptr_ok(&v.class, objects)
        }
        (Shape::Homogeneous, Value::Homogeneous(h)) => {
            ptr_ok(&h.class, objects)?;
            match h.element {
                Some(c) => check_array(schema, &Shape::Struct(c), &h.items, objects),
                None if h.items.is_empty() => Ok(()),
                None => Err(Error::write(WriteError::Invalid(format!(
                    "a homogeneous array of {} elements names no element class",
                    h.items.len()
                )))),
            }
        }
        (Shape::Struct(c), Value::Struct(values)) => {
            let members = schema.members(*c)?;
            if values.len() != members.len() {
                return Err(Error::write(WriteError::Length {
                    member: name(),
                    expected: members.len(),
                    found: values.len(),
                }));
            }
            for (m, x) in members.iter().zip(values) {
                check(schema, &m.shape, x, objects)
                    .map_err(|e| e.in_(schema.member_of(m).name.clone()))?;
            }
            Ok(())
        }
        (Shape::CArray(n, elem), Value::CArray(items)) => {
            if items.len() != usize::from(*n) {
                return Err(Error::write(WriteError::Length {
                    member: name(),
                    expected: usize::from(*n),
                    found: items.len(),
                }));
            }
            for (i, x) in items.iter().enumerate() {
                check(schema, elem, x, objects).map_err(|e| e.in_index(i))?;
            }
            Ok(())
        }
        (Shape::Array(_, elem), Value::Array(a)) => check_array(schema, elem, a, objects),
        _ => Err(kind(&name(), v)),
    }
}

/// Checks the elements of array `a` against `elem`. A typed column must be the one `elem`
/// takes, or one whose every value fits it.
///
/// # Errors
/// As [`check`], with the element index.
pub fn check_array(schema: &Schema, elem: &Shape, a: &Array, objects: usize) -> Result<()> {
    if a.column() == Column::of(elem) && a.column() != Column::Values {
        return Ok(());
    }
    if let (Array::Struct(cols), Shape::Struct(c)) = (a, elem) {
        // Each member's column against the member; an element at a time only to name the
        // first element that does not fit.
        let fits = schema.members(*c).is_ok_and(|ms| {
            ms.len() == cols.columns().len()
                && ms
                    .iter()
                    .zip(cols.columns())
                    .all(|(m, col)| check_array(schema, &m.shape, col, objects).is_ok())
        });
        if fits {
            return Ok(());
        }
    }
    match a {
        Array::Values(items) => {
            for (i, x) in items.iter().enumerate() {
                check(schema, elem, x, objects).map_err(|e| e.in_index(i))?;
            }
            Ok(())
        }
        _ => {
            if let Some(r) = int_column(schema, a, elem) {
                return r;
            }
            for i in 0..a.len() {
                let x = a.get(i).unwrap_or(Value::None);
                check(schema, elem, &x, objects).map_err(|e| e.in_index(i))?;
            }
            Ok(())
        }
    }
}

/// An integer column checked against an integer element shape without making a value of
/// each element (`None` when `a` or `elem` is not an integer one).
fn int_column(schema: &Schema, a: &Array, elem: &Shape) -> Option<Result<()>> {
    let (bytes, signed) = match elem {
        Shape::Int { bytes, signed } => (*bytes, *signed),
        Shape::ULong => (8, false),
        _ => return None,
    };
    let (lo, hi) = int_range(bytes, signed);
    let first_bad = |mut it: Box<dyn Iterator<Item = i128> + '_>| it.position(|n| n < lo || n > hi);
    let bad = match a {
        Array::I8(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        Array::U8(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        Array::I16(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        Array::U16(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        Array::I32(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        Array::U32(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        Array::I64(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        Array::U64(v) => first_bad(Box::new(v.iter().map(|&n| i128::from(n)))),
        _ => return None,
    };
    Some(match bad {
        None => Ok(()),
        Some(i) => {
            let x = a.get(i).unwrap_or(Value::None);
            check_int(&x, bytes, signed, &|| elem.describe(schema)).map_err(|e| e.in_index(i))
        }
    })
}

/// `v` checked against `shape`, with every array (at any depth) in the column its
/// elements take (an array of `Value::Int`s for an `int16` member becomes an `I16`
/// column). What setters and dump readers store.
///
/// # Errors
/// As [`check`].
pub fn normalize(schema: &Schema, shape: &Shape, v: Value, objects: usize) -> Result<Value> {
    check(schema, shape, &v, objects)?;
    Ok(canonical(schema, shape, v))
}

/// `v` (already checked) with its arrays in their columns.
fn canonical(schema: &Schema, shape: &Shape, v: Value) -> Value {
    match (shape, v) {
        (Shape::Array(_, elem), Value::Array(a)) => Value::Array(column_of(schema, elem, a)),
        (Shape::Homogeneous, Value::Homogeneous(mut h)) => {
            if let Some(c) = h.element {
                let items = std::mem::replace(&mut h.items, Array::Values(Vec::new()));
                h.items = column_of(schema, &Shape::Struct(c), items);
            }
            Value::Homogeneous(h)
        }
        (Shape::Struct(c), Value::Struct(values)) => match schema.members(*c) {
            Ok(members) => Value::Struct(
                members
                    .iter()
                    .zip(values)
                    .map(|(m, x)| canonical(schema, &m.shape, x))
                    .collect(),
            ),
            Err(_) => Value::Struct(Vec::new()),
        },
        (Shape::CArray(_, elem), Value::CArray(items)) => Value::CArray(
            items
                .into_iter()
                .map(|x| canonical(schema, elem, x))
                .collect(),
        ),
        (_, v) => v,
    }
}

/// Elements of `a` (checked against `elem`) in the column `elem` takes.
fn column_of(schema: &Schema, elem: &Shape, a: Array) -> Array {
    let col = Column::of(elem);
    if a.column() == col {
        return match a {
            Array::Values(items) => Array::Values(
                items
                    .into_iter()
                    .map(|x| canonical(schema, elem, x))
                    .collect(),
            ),
            a => a,
        };
    }
    let items = match a {
        Array::Values(items) => items,
        a => a.to_values(),
    };
    let mut out = col.with_capacity(items.len());
    for x in items {
        push(&mut out, canonical(schema, elem, x));
    }
    out
}

/// Appends a value (checked against the column's element shape) to column `a`.
pub fn normalize_into(a: &mut Array, v: Value) {
    push(a, v);
}

fn push(a: &mut Array, v: Value) {
    let i = v.as_i64().unwrap_or(0);
    let u = v.as_u64().unwrap_or(0);
    match (a, v) {
        (Array::Bool(c), Value::Bool(b)) => c.push(b),
        (Array::I8(c), _) => c.push(i as i8),
        (Array::U8(c), _) => c.push(u as u8),
        (Array::I16(c), _) => c.push(i as i16),
        (Array::U16(c), _) => c.push(u as u16),
        (Array::I32(c), _) => c.push(i as i32),
        (Array::U32(c), _) => c.push(u as u32),
        (Array::I64(c), _) => c.push(i),
        (Array::U64(c), _) => c.push(u),
        (Array::Real(c), Value::Real(f)) => c.push(f),
        (Array::Half(c), Value::Half(h)) => c.push(h),
        (Array::Vec4(c), Value::Floats(f)) => c.push(f[..4].try_into().unwrap_or_default()),
        (Array::Mat3(c), Value::Floats(f)) => {
            let mut m = [0.0; 12];
            m.copy_from_slice(&f[..12]);
            c.push(m);
        }
        (Array::Mat4(c), Value::Floats(f)) => {
            let mut m = [0.0; 16];
            m.copy_from_slice(&f[..16]);
            c.push(m);
        }
        (Array::Values(c), v) => c.push(v),
        // Unreachable for checked values: the column is the one the shape takes.
        _ => {}
    }
}
