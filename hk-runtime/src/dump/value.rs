//! Member values as JSON and back, through the member's shape.
//!
//! Written naturally: numbers, strings, lists, tables keyed by member name. Non-finite
//! floats are strings holding their bits (`"f32:0x7FC00000"`, `"f16:0x7E00"`), pointers
//! are object ids (or `{"object": id, "path": "members[2]"}` into owned data, or
//! `{"import": name}`), strings that are not UTF-8 are `{"bytes": "hex"}`.
//!
//! Reading back checks every value against its member: an integer must fit its width and
//! sign, a float must fit an `f32`, a tuple must have its length, a struct its members; an
//! error names the member path.

use serde_json::{json, Map, Value as Json};

use crate::error::{Error, Result, WriteError};
use crate::graph::check::check_int;
use crate::graph::{path_text, Array, Column, Floats, ObjectId, Ptr, Seg, Value};
use crate::schema::{ClassId, Schema, Shape};

/// A float as JSON: a number when finite, else its bits.
pub fn f32_json(f: f32) -> Json {
    if f.is_finite() {
        json!(f64::from(f))
    } else {
        json!(format!("f32:0x{:08X}", f.to_bits()))
    }
}

fn half_json(h: u16) -> Json {
    let f = f32::from_bits(u32::from(h) << 16);
    if f.is_finite() {
        json!(f64::from(f))
    } else {
        json!(format!("f16:0x{h:04X}"))
    }
}

/// Bytes as lower-case hex, the form dumps store raw blocks in.
pub fn to_hex(b: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// The bytes of a hex string, `None` for anything that is not pairs of hex digits.
pub fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// A pointer as JSON, the path of an interior target written with names from `schema`.
pub fn ptr_json(
    schema: &Schema,
    class_of: &dyn Fn(ObjectId) -> Option<ClassId>,
    p: &Option<Ptr>,
) -> Json {
    match p {
        None => Json::Null,
        Some(Ptr::Object(id)) => json!(id.0),
        Some(Ptr::Into { object, path }) => {
            let text = class_of(*object)
                .map(|c| path_text(schema, c, path))
                .unwrap_or_default();
            json!({"object": object.0, "path": text})
        }
        Some(Ptr::Import(name)) => json!({"import": name}),
    }
}

/// Writes values as JSON with the names of one schema.
pub struct Writer<'s> {
    /// The schema.
    pub schema: &'s Schema,
    /// The class of each object (for interior pointer paths).
    pub class_of: &'s dyn Fn(ObjectId) -> Option<ClassId>,
}

impl std::fmt::Debug for Writer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl Writer<'_> {
    /// The values of class `c` as a JSON table keyed by member name.
    pub fn fields(&self, c: ClassId, values: &[Value]) -> Json {
        let mut m = Map::new();
        if let Ok(ms) = self.schema.members(c) {
            for (fm, v) in ms.iter().zip(values) {
                m.insert(
                    self.schema.member_of(fm).name.clone(),
                    self.value_of(Some(&fm.shape), v),
                );
            }
        }
        Json::Object(m)
    }

    fn struct_value(&self, shape: Option<&Shape>, values: &[Value]) -> Json {
        match shape {
            Some(Shape::Struct(c)) => self.fields(*c, values),
            _ => Json::Array(values.iter().map(|v| self.value(v)).collect()),
        }
    }

    /// One value (struct values need their class: see [`Writer::value_of`]).
    pub fn value(&self, v: &Value) -> Json {
        self.value_of(None, v)
    }

    /// One value of a member of `shape` (the shape names a struct's class).
    pub fn value_of(&self, shape: Option<&Shape>, v: &Value) -> Json {
        match v {
            Value::None => Json::Null,
            Value::Bool(b) if *b <= 1 => json!(*b == 1),
            Value::Bool(b) => json!(*b),
            Value::Int(i) => json!(i),
            Value::UInt(u) => json!(u),
            Value::Real(f) => f32_json(*f),
            Value::Half(h) => half_json(*h),
            Value::Floats(fs) => Json::Array(fs.iter().map(|f| f32_json(*f)).collect()),
            Value::Pointer(p) => ptr_json(self.schema, self.class_of, p),
            Value::String(s) => s.as_ref().map_or(Json::Null, |s| json!(s)),
            Value::Bytes(b) => json!({"bytes": to_hex(b)}),
            Value::Struct(values) => self.struct_value(shape, values),
            Value::CArray(items) => {
                let inner = match shape {
                    Some(Shape::CArray(_, e)) => Some(&**e),
                    _ => None,
                };
                Json::Array(items.iter().map(|x| self.value_of(inner, x)).collect())
            }
            Value::Array(a) => {
                let inner = match shape {
                    Some(Shape::Array(_, e)) => Some(&**e),
                    _ => None,
                };
                self.array(inner, a)
            }
            Value::Variant(v) => json!({
                "object": ptr_json(self.schema, self.class_of, &v.object),
                "class": ptr_json(self.schema, self.class_of, &v.class),
            }),
        }
    }

    fn array(&self, elem: Option<&Shape>, a: &Array) -> Json {
        fn nums<T: Copy + Into<Json>>(v: &[T]) -> Json {
            Json::Array(v.iter().map(|x| (*x).into()).collect())
        }
        let floats = |v: &[f32]| Json::Array(v.iter().map(|f| f32_json(*f)).collect());
        match a {
            Array::Bool(v) => Json::Array(
                v.iter()
                    .map(|b| if *b <= 1 { json!(*b == 1) } else { json!(*b) })
                    .collect(),
            ),
            Array::I8(v) => nums(v),
            Array::U8(v) => nums(v),
            Array::I16(v) => nums(v),
            Array::U16(v) => nums(v),
            Array::I32(v) => nums(v),
            Array::U32(v) => nums(v),
            Array::I64(v) => nums(v),
            Array::U64(v) => nums(v),
            Array::Real(v) => floats(v),
            Array::Half(v) => Json::Array(v.iter().map(|h| half_json(*h)).collect()),
            Array::Vec4(v) => Json::Array(v.iter().map(|t| floats(t)).collect()),
            Array::Mat3(v) => Json::Array(v.iter().map(|t| floats(t)).collect()),
            Array::Mat4(v) => Json::Array(v.iter().map(|t| floats(t)).collect()),
            Array::Values(v) => Json::Array(v.iter().map(|x| self.value_of(elem, x)).collect()),
        }
    }
}

/// Reads values from JSON through a schema's shapes.
pub struct Reader<'s> {
    /// The schema.
    pub schema: &'s Schema,
    /// The class of each object (for interior pointer paths).
    pub class_of: &'s dyn Fn(ObjectId) -> Option<ClassId>,
    /// The object a dump's id names (ids are identities, not positions).
    pub object: &'s dyn Fn(u64) -> Option<ObjectId>,
}

impl std::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").finish_non_exhaustive()
    }
}

fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

/// Whether `v` is JSON null or the empty table TOML writes for it.
pub fn is_null(v: &Json) -> bool {
    v.is_null() || v.as_object().is_some_and(Map::is_empty)
}

/// A float from JSON: a number that fits an `f32`, or `"f32:0x…"` bits.
///
/// # Errors
/// Anything else, or a finite number beyond the `f32` range (it would become infinite).
pub fn json_f32(v: &Json) -> Result<f32> {
    match v {
        Json::Number(n) => {
            let x = n
                .as_f64()
                .ok_or_else(|| bad(format!("expected a number, found {v}")))?;
            let f = x as f32;
            if f.is_infinite() {
                return Err(Error::write(WriteError::Range {
                    value: x.to_string(),
                    member: "real".into(),
                    range: format!("±{:e} (an f32)", f32::MAX),
                }));
            }
            Ok(f)
        }
        Json::String(s) => s
            .strip_prefix("f32:0x")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .map(f32::from_bits)
            .ok_or_else(|| bad(format!("expected a number or \"f32:0x…\" bits, found {v}"))),
        _ => Err(bad(format!("expected a number, found {v}"))),
    }
}

/// An integer from JSON (a number, or `"0x…"` for values TOML cannot hold), as the
/// integer value of the member's sign.
fn json_int(v: &Json, signed: bool, member: &str) -> Result<Value> {
    let kind = || {
        Error::write(WriteError::Kind {
            member: member.to_string(),
            found: v.to_string(),
        })
    };
    let parsed = match v {
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                if i < 0 || signed {
                    Value::Int(i)
                } else {
                    Value::UInt(i as u64)
                }
            } else if let Some(u) = n.as_u64() {
                Value::UInt(u)
            } else {
                return Err(kind());
            }
        }
        Json::String(s) => match s
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
        {
            Some(u) => Value::UInt(u),
            None => return Err(kind()),
        },
        _ => return Err(kind()),
    };
    Ok(parsed)
}

impl Reader<'_> {
    /// The values of class `c` from a JSON table keyed by member name.
    ///
    /// # Errors
    /// A missing member or one whose value does not fit, with the member's name.
    pub fn fields(&self, c: ClassId, v: &Json) -> Result<Vec<Value>> {
        let obj = v
            .as_object()
            .ok_or_else(|| bad(format!("`{}` value is not a table", self.schema.name_of(c))))?;
        let ms = self.schema.members(c)?;
        if let Some(k) = obj
            .keys()
            .find(|k| !ms.iter().any(|m| &self.schema.member_of(m).name == *k))
        {
            return Err(bad(format!(
                "`{}` has no member `{k}`",
                self.schema.name_of(c)
            )));
        }
        let mut out = Vec::with_capacity(ms.len());
        for m in ms.iter() {
            let name = &self.schema.member_of(m).name;
            let j = obj
                .get(name)
                .ok_or_else(|| bad(format!("missing member `{name}`")))?;
            let value = self
                .value(&m.shape, j)
                .map_err(|e| e.in_member(self.schema.name_of(m.owner), name))?;
            out.push(value);
        }
        Ok(out)
    }

    /// The value of JSON `v` for a member of `shape`.
    ///
    /// # Errors
    /// A value that does not fit the shape.
    pub fn value(&self, shape: &Shape, v: &Json) -> Result<Value> {
        let name = || shape.describe(self.schema);
        Ok(match shape {
            Shape::Void | Shape::Unsupported(_) => {
                if !is_null(v) {
                    return Err(bad(format!(
                        "a `{}` member takes no value, found {v}",
                        name()
                    )));
                }
                Value::None
            }
            Shape::Bool => match v {
                Json::Bool(b) => Value::Bool(u8::from(*b)),
                _ => {
                    let x = json_int(v, false, "bool")?;
                    check_int(&x, 1, false, &|| "bool".into())?;
                    Value::Bool(x.as_u64().unwrap_or(0) as u8)
                }
            },
            Shape::Int { bytes, signed } => {
                let x = json_int(v, *signed, &name())?;
                check_int(&x, *bytes, *signed, &name)?;
                x
            }
            Shape::ULong => {
                let x = json_int(v, false, "ulong")?;
                check_int(&x, 8, false, &|| "ulong".into())?;
                x
            }
            Shape::Real => Value::Real(json_f32(v)?),
            Shape::Half => Value::Half(match v.as_str().and_then(|s| s.strip_prefix("f16:0x")) {
                Some(h) => {
                    u16::from_str_radix(h, 16).map_err(|_| bad(format!("bad half bits {v}")))?
                }
                None => {
                    let f = json_f32(v)?;
                    let bits = f.to_bits();
                    if bits & 0xFFFF != 0 {
                        return Err(Error::write(WriteError::Range {
                            value: v.to_string(),
                            member: "half".into(),
                            range: "floats whose low 16 bits are zero (a half keeps the top 16)"
                                .into(),
                        }));
                    }
                    (bits >> 16) as u16
                }
            }),
            Shape::Floats(n) => {
                let items = v.as_array().ok_or_else(|| {
                    bad(format!(
                        "a `{}` member takes a list of {n} numbers, found {v}",
                        name()
                    ))
                })?;
                if items.len() != usize::from(*n) {
                    return Err(Error::write(WriteError::Length {
                        member: name(),
                        expected: usize::from(*n),
                        found: items.len(),
                    }));
                }
                let fs: Vec<f32> = items.iter().map(json_f32).collect::<Result<_>>()?;
                Value::Floats(Floats::new(&fs).ok_or_else(|| bad("too many floats"))?)
            }
            Shape::Pointer => Value::Pointer(self.ptr(v)?),
            Shape::String => match v {
                Json::String(s) => Value::String(Some(s.clone())),
                Json::Object(m) if m.contains_key("bytes") => Value::Bytes(
                    hex_bytes(m["bytes"].as_str().unwrap_or(""))
                        .ok_or_else(|| bad("bad string bytes (pairs of hex digits)"))?,
                ),
                _ if is_null(v) => Value::String(None),
                _ => return Err(bad(format!("a string member takes a string, found {v}"))),
            },
            Shape::Variant => Value::variant(
                self.ptr(v.get("object").unwrap_or(&Json::Null))?,
                self.ptr(v.get("class").unwrap_or(&Json::Null))?,
            ),
            Shape::Struct(c) => Value::Struct(self.fields(*c, v)?),
            Shape::CArray(n, elem) => {
                let items = v
                    .as_array()
                    .ok_or_else(|| bad(format!("a C-array member takes a list, found {v}")))?;
                if items.len() != usize::from(*n) {
                    return Err(Error::write(WriteError::Length {
                        member: name(),
                        expected: usize::from(*n),
                        found: items.len(),
                    }));
                }
                Value::CArray(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| self.value(elem, x).map_err(|e| e.in_(format!("[{i}]"))))
                        .collect::<Result<_>>()?,
                )
            }
            Shape::Array(_, elem) => {
                let items: &[Json] = if is_null(v) {
                    &[]
                } else {
                    v.as_array()
                        .ok_or_else(|| bad(format!("an array member takes a list, found {v}")))?
                };
                let mut out = Column::of(elem).with_capacity(items.len());
                for (i, x) in items.iter().enumerate() {
                    let value = self.value(elem, x).map_err(|e| e.in_(format!("[{i}]")))?;
                    crate::graph::check::normalize_into(&mut out, value);
                }
                Value::Array(out)
            }
        })
    }

    /// A pointer from JSON.
    ///
    /// # Errors
    /// Anything but null, an object id, `{"import": …}` or `{"object": id, "path": …}`.
    pub fn ptr(&self, v: &Json) -> Result<Option<Ptr>> {
        if is_null(v) {
            return Ok(None);
        }
        let id = |j: &Json| -> Result<ObjectId> {
            let n = j
                .as_u64()
                .ok_or_else(|| bad(format!("expected an object id, found {j}")))?;
            (self.object)(n).ok_or_else(|| Error::write(WriteError::MissingObject(n)))
        };
        if v.is_number() {
            return Ok(Some(Ptr::Object(id(v)?)));
        }
        if let Some(name) = v.get("import").and_then(Json::as_str) {
            return Ok(Some(Ptr::Import(name.to_string())));
        }
        let object = id(v.get("object").unwrap_or(&Json::Null))?;
        let text = v
            .get("path")
            .and_then(Json::as_str)
            .ok_or_else(|| bad(format!("a pointer into an object needs a \"path\": {v}")))?;
        let c = (self.class_of)(object)
            .ok_or_else(|| Error::write(WriteError::MissingObject(u64::from(object.0))))?;
        let path: Vec<Seg> = resolve(self.schema, c, text)?;
        Ok(Some(Ptr::Into {
            object,
            path: path.into(),
        }))
    }
}

/// The steps of member path `text` from class `c`.
///
/// # Errors
/// A malformed path or a name the class does not have.
pub fn resolve(schema: &Schema, c: ClassId, text: &str) -> Result<Vec<Seg>> {
    let steps =
        crate::graph::parse_path(text).ok_or_else(|| bad(format!("bad member path `{text}`")))?;
    let mut out = Vec::new();
    let mut shape = Shape::Struct(c);
    for step in steps {
        match step {
            crate::graph::PathStep::Name(n) => {
                let Shape::Struct(sc) = shape else {
                    return Err(bad(format!(
                        "`{text}`: `{n}` follows a value with no members"
                    )));
                };
                let ms = schema.members(sc)?;
                let (i, m) = ms
                    .iter()
                    .enumerate()
                    .find(|(_, m)| schema.member_of(m).name == n)
                    .ok_or_else(|| {
                        bad(format!(
                            "`{text}`: `{}` has no member `{n}`",
                            schema.name_of(sc)
                        ))
                    })?;
                out.push(Seg::Member(i as u16));
                shape = m.shape.clone();
            }
            crate::graph::PathStep::Index(k) => {
                shape = match shape {
                    Shape::Array(_, e) | Shape::CArray(_, e) => *e,
                    _ => {
                        return Err(bad(format!(
                            "`{text}`: [{k}] indexes a value that is not an array"
                        )))
                    }
                };
                out.push(Seg::Index(k));
            }
        }
    }
    Ok(out)
}
