//! The second pass over a dump: each object's members, read through the schema's shapes
//! straight into graph values (primitive arrays into their typed columns), without a tree
//! of JSON values on the way. Every value is checked against its member as it is read,
//! so an error stops the parser where the value is: the error gets its line and column
//! from there, and its path (`#3 hkaSkeleton.bones[2].name`) while serde unwinds.
//!
//! What cannot be checked in one pass is a pointer into an element of an object listed
//! later: those are kept and checked afterwards; a bad one is found again by running the
//! pass once more, stopping at it (`Reader::relocate`).

use std::fmt::{self, Display};

use rustc_hash::FxHashMap;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::source::Failure;
use super::spot::bad;
use crate::dump::skim::{StrSeed, UIntSeed};
use crate::dump::text::{bits_of, half_bits_of, hex_bytes, resolve};
use crate::error::PathSegment;
use crate::error::{Error, WriteError};
use crate::graph::check::{check_int, normalize_into};
use crate::graph::{Array, Column, Floats, ObjectId, Ptr, Seg, Value};
use crate::schema::{ArrayKind, ClassId, FlatMember, Schema, Shape};

/// The objects of a dump by id: ids are identities, not positions.
#[derive(Debug)]
pub(crate) struct Ids {
    /// Each object's id, in list order.
    pub(crate) ids: Vec<u64>,
    /// Position by id, unless every id is its position.
    index: Option<FxHashMap<u64, u32>>,
}

impl Ids {
    /// The ids of a list; `Err((first, second))` names the positions of two objects with
    /// one id.
    pub(crate) fn new(ids: Vec<u64>) -> Result<Ids, (usize, usize)> {
        if ids.iter().enumerate().all(|(i, id)| *id == i as u64) {
            return Ok(Ids { ids, index: None });
        }
        let mut index = FxHashMap::default();
        for (i, id) in ids.iter().enumerate() {
            if let Some(first) = index.insert(*id, i as u32) {
                return Err((first as usize, i));
            }
        }
        Ok(Ids {
            ids,
            index: Some(index),
        })
    }

    /// The object dump id `id` names.
    pub(crate) fn get(&self, id: u64) -> Option<ObjectId> {
        match &self.index {
            None => (id < self.ids.len() as u64).then_some(ObjectId(id as u32)),
            Some(m) => m.get(&id).map(|&i| ObjectId(i)),
        }
    }
}

/// A pointer into an element of an object, kept to be checked once every object is read.
#[derive(Debug)]
pub(crate) struct IntoPtr {
    /// The object it points into.
    pub(crate) target: ObjectId,
    /// The path of the element.
    pub(crate) path: Box<[Seg]>,
    /// The path as the dump gives it.
    pub(crate) text: String,
}

/// The second pass's state.
#[derive(Debug)]
pub(crate) struct Reader<'s> {
    /// The schema.
    pub(crate) schema: &'s Schema,
    /// Each object's class, in list order.
    pub(crate) classes: &'s [ClassId],
    /// The objects by id.
    pub(crate) ids: &'s Ids,
    /// The error being unwound.
    pub(crate) failure: Failure,
    /// Interior pointers, in reading order.
    pub(crate) into: std::cell::RefCell<Vec<IntoPtr>>,
    /// Fail with this error at the interior pointer of this ordinal (finding a bad one
    /// again, for its line and column).
    pub(crate) relocate: Option<(usize, Error)>,
}

impl Reader<'_> {
    /// `#3 hkaSkeleton`: how a build error names the object at list position `k`.
    pub(crate) fn label(&self, k: usize) -> String {
        format!(
            "#{} {}",
            self.ids.ids.get(k).copied().unwrap_or(k as u64),
            self.classes.get(k).map_or("?", |c| self.schema.name_of(*c))
        )
    }

    fn object<E: serde::de::Error>(&self, id: u64) -> Result<ObjectId, E> {
        self.ids.get(id).ok_or_else(|| {
            self.failure
                .raise(Error::write(WriteError::MissingObject(id)))
        })
    }
}

/// The whole second pass: each object's values, in list order.
pub(crate) struct MembersSeed<'r, 's>(pub(crate) &'r Reader<'s>);

impl<'de> DeserializeSeed<'de> for MembersSeed<'_, '_> {
    type Value = Vec<Vec<Value>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MembersSeed<'_, '_> {
    type Value = Vec<Vec<Value>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a dump")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            if k == "objects" {
                out = map.next_value_seed(Objects(self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(out)
    }
}

struct Objects<'r, 's>(&'r Reader<'s>);

impl<'de> DeserializeSeed<'de> for Objects<'_, '_> {
    type Value = Vec<Vec<Value>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Objects<'_, '_> {
    type Value = Vec<Vec<Value>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let r = self.0;
        let mut out = Vec::with_capacity(r.classes.len());
        loop {
            let k = out.len();
            let Some(&class) = r.classes.get(k) else {
                // The first pass read the same list.
                return match seq.next_element::<IgnoredAny>()? {
                    None => Ok(out),
                    Some(_) => Err(r.failure.raise(bad("the list of objects changed"))),
                };
            };
            match seq.next_element_seed(ObjectFields { r, class }) {
                Ok(Some(values)) => out.push(values),
                Ok(None) => return Ok(out),
                Err(e) => {
                    r.failure.context(|| r.label(k));
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Ok(Vec::new())
    }
}

/// An object: its `fields`, the rest skipped.
struct ObjectFields<'r, 's> {
    r: &'r Reader<'s>,
    class: ClassId,
}

impl<'de> DeserializeSeed<'de> for ObjectFields<'_, '_> {
    type Value = Vec<Value>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ObjectFields<'_, '_> {
    type Value = Vec<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut values = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            if k == "fields" {
                let shape = Shape::Struct(self.class);
                values = match map.next_value_seed(ValueSeed {
                    r: self.r,
                    shape: &shape,
                })? {
                    Value::Struct(v) => v,
                    _ => Vec::new(),
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(values)
    }
}

/// A value of a member of `shape`.
#[derive(Clone, Copy)]
struct ValueSeed<'a, 's> {
    r: &'a Reader<'s>,
    shape: &'a Shape,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl ValueSeed<'_, '_> {
    fn raise<E: serde::de::Error>(&self, e: Error) -> E {
        self.r.failure.raise(e)
    }

    fn name(&self) -> String {
        self.shape.describe(self.r.schema)
    }

    /// "a `int16` member does not take "abc"".
    fn wrong<E: serde::de::Error>(&self, found: &dyn Display) -> E {
        self.raise(Error::write(WriteError::Kind {
            member: self.name(),
            found: found.to_string(),
        }))
    }

    /// A JSON number or `"0x…"` as an integer of the member's sign.
    fn int<E: serde::de::Error>(&self, v: Value, found: &dyn Display) -> Result<Value, E> {
        // The member's name is made only for an error: this runs for every integer.
        let check = |bytes: u8, signed: bool| {
            check_int(&v, bytes, signed, &|| self.name()).map_err(|e| self.raise(e))
        };
        match self.shape {
            Shape::Bool => {
                check(1, false)?;
                Ok(Value::Bool(v.as_u64().unwrap_or(0) as u8))
            }
            Shape::Int { bytes, signed } => {
                check(*bytes, *signed)?;
                Ok(v)
            }
            Shape::ULong => {
                check(8, false)?;
                Ok(v)
            }
            Shape::Real | Shape::Half => {
                let x = match v {
                    Value::Int(i) => i as f64,
                    Value::UInt(u) => u as f64,
                    _ => return Err(self.wrong(found)),
                };
                self.float(x, found)
            }
            Shape::Pointer => match v.as_u64() {
                Some(id) => Ok(Value::Pointer(Some(Ptr::Object(self.r.object(id)?)))),
                None => Err(self.raise(bad(format!("expected an object id, found {found}")))),
            },
            _ => Err(self.wrong(found)),
        }
    }

    /// A number for a `real` or `half` member.
    fn float<E: serde::de::Error>(&self, x: f64, found: &dyn Display) -> Result<Value, E> {
        let f = x as f32;
        if x.is_finite() && f.is_infinite() {
            return Err(self.raise(Error::write(WriteError::Range {
                value: found.to_string(),
                member: self.name(),
                range: format!("±{:e} (an f32)", f32::MAX),
            })));
        }
        match self.shape {
            Shape::Real => Ok(Value::Real(f)),
            Shape::Half => {
                let bits = f.to_bits();
                if bits & 0xFFFF != 0 {
                    return Err(self.raise(Error::write(WriteError::Range {
                        value: found.to_string(),
                        member: "half".into(),
                        range: "floats whose low 16 bits are zero (a half keeps the top 16)".into(),
                    })));
                }
                Ok(Value::Half((bits >> 16) as u16))
            }
            _ => Err(self.wrong(found)),
        }
    }

    /// A null (or TOML's empty table for one).
    fn null<E: serde::de::Error>(&self) -> Result<Value, E> {
        Ok(match self.shape {
            Shape::Void | Shape::Unsupported(_) => Value::None,
            Shape::Pointer => Value::Pointer(None),
            Shape::String => Value::String(None),
            Shape::Variant => Value::variant(None, None),
            Shape::Homogeneous => Value::homogeneous(None, None, Array::Values(Vec::new())),
            Shape::Array(_, elem) => Value::Array(Column::of(elem).with_capacity(0)),
            _ => return Err(self.wrong(&"null")),
        })
    }

    /// The values of a struct (or an object) of class `c`, keyed by member name.
    fn fields<'de, A: MapAccess<'de>>(&self, c: ClassId, mut map: A) -> Result<Value, A::Error> {
        let r = self.r;
        let schema = r.schema;
        let ms = schema.members(c).map_err(|e| self.raise(e))?;
        let mut slots: Vec<Option<Value>> = (0..ms.len()).map(|_| None).collect();
        let mut hint = 0;
        while let Some(i) = map.next_key_seed(MemberKey {
            r,
            class: c,
            members: &ms,
            hint,
        })? {
            let name = &schema.member_of(&ms[i]).name;
            if slots[i].is_some() {
                return Err(self.raise(bad(format!("member `{name}` appears twice"))));
            }
            let v = map
                .next_value_seed(ValueSeed {
                    r,
                    shape: &ms[i].shape,
                })
                .inspect_err(|_| {
                    r.failure.context(|| PathSegment::field(name));
                })?;
            slots[i] = Some(v);
            hint = i + 1;
        }
        if let Some(i) = slots.iter().position(Option::is_none) {
            let name = &schema.member_of(&ms[i]).name;
            return Err(self.raise(bad(format!(
                "missing member `{name}` (a dump gives every member of `{}`)",
                schema.name_of(c)
            ))));
        }
        Ok(Value::Struct(slots.into_iter().flatten().collect()))
    }

    /// Reads every element of `seq` with `each`, adding the index to an error's path;
    /// returns how many there were.
    fn elements<'de, A: SeqAccess<'de>>(
        &self,
        seq: &mut A,
        elem: &Shape,
        keep: usize,
        mut each: impl FnMut(Value),
    ) -> Result<usize, A::Error> {
        let mut i = 0;
        loop {
            let next = if i < keep {
                seq.next_element_seed(ValueSeed {
                    r: self.r,
                    shape: elem,
                })
            } else {
                // Past what the member holds: counted for the error, not kept.
                seq.next_element::<IgnoredAny>()
                    .map(|x| x.map(|_| Value::None))
            };
            match next {
                Ok(Some(v)) => {
                    if i < keep {
                        each(v);
                    }
                    i += 1;
                }
                Ok(None) => return Ok(i),
                Err(e) => {
                    self.r.failure.context(|| PathSegment::index(i));
                    return Err(e);
                }
            }
        }
    }

    fn length<E: serde::de::Error>(&self, expected: usize, found: usize) -> E {
        self.raise(Error::write(WriteError::Length {
            member: self.name(),
            expected,
            found,
        }))
    }

    /// `{"object": id, "path": …}`, `{"import": name}` or `{}` (TOML's null).
    fn pointer<'de, A: MapAccess<'de>>(&self, mut map: A) -> Result<Option<Ptr>, A::Error> {
        let r = self.r;
        let (mut object, mut path, mut import) = (None, None, None);
        while let Some(k) = map.next_key::<String>()? {
            let twice = match k.as_str() {
                "object" => object
                    .replace(map.next_value_seed(UIntSeed {
                        failure: &r.failure,
                        bits: 64,
                    })?)
                    .is_some(),
                "path" => path
                    .replace(map.next_value_seed(StrSeed(&r.failure))?)
                    .is_some(),
                "import" => import
                    .replace(map.next_value_seed(StrSeed(&r.failure))?)
                    .is_some(),
                _ => {
                    return Err(self.raise(bad(format!(
                        "a pointer has an unknown key `{k}` (known: object, path, import)"
                    ))))
                }
            };
            if twice {
                return Err(self.raise(bad(format!("`{k}` appears twice"))));
            }
        }
        match (object, path, import) {
            (None, None, None) => Ok(None),
            (None, None, Some(name)) => Ok(Some(Ptr::Import(name))),
            (Some(id), Some(text), None) => {
                let target = r.object(id)?;
                let class = r.classes[target.0 as usize];
                let (segs, _) = resolve(r.schema, class, &text).map_err(|e| self.raise(e))?;
                let mut into = r.into.borrow_mut();
                if let Some((n, e)) = &r.relocate {
                    if *n == into.len() {
                        return Err(self.raise(e.clone()));
                    }
                }
                let path: Box<[Seg]> = segs.into();
                into.push(IntoPtr {
                    target,
                    path: path.clone(),
                    text,
                });
                Ok(Some(Ptr::Into {
                    object: target,
                    path,
                }))
            }
            _ => Err(self.raise(bad(
                "a pointer is null, an object id, {\"object\": id, \"path\": …} or {\"import\": name}",
            ))),
        }
    }

    /// `{"object": pointer, "class": pointer}`.
    fn variant<'de, A: MapAccess<'de>>(&self, mut map: A) -> Result<Value, A::Error> {
        let r = self.r;
        let (mut object, mut class) = (None, None);
        while let Some(k) = map.next_key::<String>()? {
            let slot = match k.as_str() {
                "object" => &mut object,
                "class" => &mut class,
                _ => {
                    return Err(self.raise(bad(format!(
                        "a variant has an unknown key `{k}` (known: object, class)"
                    ))))
                }
            };
            let v = map
                .next_value_seed(ValueSeed {
                    r,
                    shape: &Shape::Pointer,
                })
                .inspect_err(|_| {
                    r.failure.context(|| PathSegment::field(&k));
                })?;
            if slot.replace(v).is_some() {
                return Err(self.raise(bad(format!("`{k}` appears twice"))));
            }
        }
        let ptr = |v: Option<Value>| match v {
            Some(Value::Pointer(p)) => p,
            _ => None,
        };
        Ok(Value::variant(ptr(object), ptr(class)))
    }

    /// `{"class": pointer, "element": name, "items": [...]}`, in that order: the element
    /// class is needed to read the items (docs/dump-format.md, values).
    fn homogeneous<'de, A: MapAccess<'de>>(&self, mut map: A) -> Result<Value, A::Error> {
        let r = self.r;
        let mut class = None;
        let mut element: Option<Option<ClassId>> = None;
        let mut items = None;
        while let Some(k) = map.next_key::<String>()? {
            let shape = match (k.as_str(), &element) {
                ("class", _) if class.is_none() => Shape::Pointer,
                ("element", _) if element.is_none() => Shape::String,
                ("items", Some(c)) if items.is_none() => Shape::Array(
                    ArrayKind::Simple,
                    Box::new(c.map_or(Shape::Void, Shape::Struct)),
                ),
                ("items", None) => {
                    return Err(self.raise(bad(
                        "a homogeneous array gives `element` before `items` (the items are structs of that class)",
                    )))
                }
                ("class" | "element" | "items", _) => {
                    return Err(self.raise(bad(format!("`{k}` appears twice"))))
                }
                _ => {
                    return Err(self.raise(bad(format!(
                        "a homogeneous array has an unknown key `{k}` (known: class, element, items)"
                    ))))
                }
            };
            let v = map
                .next_value_seed(ValueSeed { r, shape: &shape })
                .inspect_err(|_| {
                    r.failure.context(|| PathSegment::field(&k));
                })?;
            match (k.as_str(), v) {
                ("class", Value::Pointer(p)) => class = Some(p),
                ("element", Value::String(name)) => {
                    let c = name
                        .map(|n| r.schema.require(&n))
                        .transpose()
                        .map_err(|e| {
                            r.failure.context(|| PathSegment::field("element"));
                            self.raise(e)
                        })?;
                    element = Some(c);
                }
                ("items", Value::Array(a)) => items = Some(a),
                _ => return Err(self.raise(bad(format!("a bad `{k}`")))),
            }
        }
        match (class, element, items) {
            (Some(class), Some(element), Some(items)) => {
                if element.is_none() && !items.is_empty() {
                    return Err(self.raise(bad(
                        "a homogeneous array with items names their class in `element`",
                    )));
                }
                Ok(Value::homogeneous(class, element, items))
            }
            _ => Err(self.raise(bad(
                "a homogeneous array is {\"class\": pointer, \"element\": class name, \"items\": [...]}",
            ))),
        }
    }

    /// `{"bytes": "hex"}` or `{}` (TOML's null).
    fn string_table<'de, A: MapAccess<'de>>(&self, mut map: A) -> Result<Value, A::Error> {
        let mut bytes = None;
        while let Some(k) = map.next_key::<String>()? {
            if k != "bytes" || bytes.is_some() {
                return Err(self.raise(bad(format!(
                    "a string is text, null or {{\"bytes\": \"hex\"}}; found the key `{k}`"
                ))));
            }
            let hex = map.next_value_seed(StrSeed(&self.r.failure))?;
            let b = hex_bytes(&hex)
                .ok_or_else(|| self.raise(bad("bad string bytes (pairs of hex digits)")))?;
            if b.contains(&0) {
                return Err(self.raise(bad(
                    "string bytes hold a NUL, which would end the string early",
                )));
            }
            bytes = Some(b);
        }
        Ok(bytes.map_or(Value::String(None), Value::Bytes))
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of a `{}` member", self.name())
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        match self.shape {
            Shape::Bool => Ok(Value::Bool(u8::from(v))),
            _ => Err(self.wrong(&v)),
        }
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        let signed = matches!(self.shape, Shape::Int { signed: true, .. });
        let x = if v < 0 || signed {
            Value::Int(v)
        } else {
            Value::UInt(v as u64)
        };
        self.int(x, &v)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        let signed = matches!(self.shape, Shape::Int { signed: true, .. });
        let x = match i64::try_from(v) {
            Ok(i) if signed => Value::Int(i),
            _ => Value::UInt(v),
        };
        self.int(x, &v)
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        // `1e39`, not forty digits.
        let shown: &dyn Display = if v.abs() >= 1e16 {
            &format_args!("{v:e}")
        } else {
            &v
        };
        match self.shape {
            Shape::Real | Shape::Half => self.float(v, shown),
            _ => Err(self.wrong(shown)),
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        let found = || format!("{v:?}");
        match self.shape {
            Shape::String => {
                if v.contains('\0') {
                    return Err(self.raise(bad(format!(
                        "the string {v:?} holds a NUL, which would end it early"
                    ))));
                }
                Ok(Value::String(Some(v.to_string())))
            }
            Shape::Int { .. } | Shape::ULong | Shape::Bool => {
                match v
                    .strip_prefix("0x")
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                {
                    Some(u) => self.int(Value::UInt(u), &found()),
                    None => Err(self.wrong(&found())),
                }
            }
            Shape::Real => bits_of(v)
                .map(Value::Real)
                .ok_or_else(|| self.wrong(&found())),
            Shape::Half => half_bits_of(v)
                .map(Value::Half)
                .ok_or_else(|| self.wrong(&found())),
            _ => Err(self.wrong(&found())),
        }
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.null()
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.null()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        match self.shape {
            Shape::Floats(n) => {
                let mut fs = [0f32; 16];
                let want = usize::from(*n).min(16);
                let mut k = 0;
                let count = self.elements(&mut seq, &Shape::Real, want, |v| {
                    if let Value::Real(f) = v {
                        fs[k] = f;
                        k += 1;
                    }
                })?;
                if count != usize::from(*n) {
                    return Err(self.length(usize::from(*n), count));
                }
                Floats::new(&fs[..want])
                    .map(Value::Floats)
                    .ok_or_else(|| self.raise(bad("too many floats")))
            }
            Shape::CArray(n, elem) => {
                let mut items = Vec::with_capacity(usize::from(*n));
                let count = self.elements(&mut seq, elem, usize::from(*n), |v| items.push(v))?;
                if count != usize::from(*n) {
                    return Err(self.length(usize::from(*n), count));
                }
                Ok(Value::CArray(items))
            }
            Shape::Array(_, elem) => {
                let hint = seq.size_hint().unwrap_or(0).min(1 << 16);
                let mut out: Array = Column::of(elem).with_capacity(hint);
                self.elements(&mut seq, elem, usize::MAX, |v| normalize_into(&mut out, v))?;
                out.shrink_to_fit();
                Ok(Value::Array(out))
            }
            _ => Err(self.wrong(&"a list")),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        match self.shape {
            Shape::Struct(c) => self.fields(*c, map),
            Shape::Pointer => self.pointer(map).map(Value::Pointer),
            Shape::Variant => self.variant(map),
            Shape::Homogeneous if map.size_hint() != Some(0) => self.homogeneous(map),
            Shape::String => self.string_table(map),
            _ if map.size_hint() == Some(0) => self.null(),
            _ => Err(self.wrong(&"a table")),
        }
    }
}

/// A member's name, as its index in the class's flattened members.
struct MemberKey<'a, 's> {
    r: &'a Reader<'s>,
    class: ClassId,
    members: &'a [FlatMember],
    /// The member expected next (dumps list them in order).
    hint: usize,
}

impl<'de> DeserializeSeed<'de> for MemberKey<'_, '_> {
    type Value = usize;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for MemberKey<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<usize, E> {
        let schema = self.r.schema;
        let is = |m: &FlatMember| schema.member_of(m).name == k;
        if self.members.get(self.hint).is_some_and(is) {
            return Ok(self.hint);
        }
        self.members.iter().position(is).ok_or_else(|| {
            self.r.failure.raise(bad(format!(
                "`{}` has no member `{k}`",
                schema.name_of(self.class)
            )))
        })
    }
}
