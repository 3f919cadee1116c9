//! Support for typed Rust classes generated from schemas by `hk-derive`.
//!
//! A generated class implements [`HkClass`]: its name, signature and version as constants,
//! and conversions from and to the dynamic graph's object fields, so generated code reads
//! and writes files through the same packfile (and tagfile) runtime as everything else.

use std::marker::PhantomData;

use crate::error::{Error, Result};
use crate::graph::{Field, Ptr, Value};
use crate::layout::{Endian, LayoutRules};

/// A class generated from a schema.
pub trait HkClass: Sized {
    /// Class name.
    const NAME: &'static str;
    /// Signature, computed from the schema at compile time (or pinned by it).
    const SIGNATURE: u32;
    /// `hkClass::describedVersion`.
    const VERSION: u32;
    /// Reads the class's members from an object's (or struct value's) fields.
    ///
    /// # Errors
    /// A missing member or a value of another kind, naming the member.
    fn from_fields(fields: &[Field]) -> Result<Self>;
    /// The class's members as fields, in the schema's order.
    fn to_fields(&self) -> Vec<Field>;
}

/// Index of a [`LayoutRules`] in the 8-entry tables generated code keeps: pointer size,
/// reuse padding, empty base (byte order does not move anything).
pub const fn rules_index(rules: LayoutRules) -> usize {
    (if rules.pointer_size == 8 { 4 } else { 0 })
        + (if rules.reuse_padding { 2 } else { 0 })
        + (if rules.empty_base { 1 } else { 0 })
}

/// The rules of table entry `i` (little endian; byte order does not change layout).
pub const fn rules_of_index(i: usize) -> LayoutRules {
    LayoutRules {
        pointer_size: if i & 4 != 0 { 8 } else { 4 },
        endian: Endian::Little,
        reuse_padding: i & 2 != 0,
        empty_base: i & 1 != 0,
    }
}

/// A pointer to an object of class `T` (or, untyped, into data some object owns, or to an
/// object of another file).
#[derive(Debug)]
pub struct Ref<T> {
    /// Where it points; `None` is null.
    pub ptr: Option<Ptr>,
    _class: PhantomData<fn() -> T>,
}

impl<T> Ref<T> {
    /// A pointer.
    pub fn new(ptr: Option<Ptr>) -> Self {
        Ref {
            ptr,
            _class: PhantomData,
        }
    }
}

impl<T> Clone for Ref<T> {
    fn clone(&self) -> Self {
        Ref::new(self.ptr.clone())
    }
}

impl<T> PartialEq for Ref<T> {
    fn eq(&self, other: &Self) -> bool {
        self.ptr == other.ptr
    }
}

impl<T> Default for Ref<T> {
    fn default() -> Self {
        Ref::new(None)
    }
}

/// A `cstring` or `stringptr`: null, text, or bytes that are not UTF-8.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum HkString {
    /// Null.
    #[default]
    Null,
    /// Text.
    Text(String),
    /// Bytes that are not UTF-8, as stored.
    Bytes(Vec<u8>),
}

/// A 16-bit float: the top half of an `f32`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Half(pub u16);

impl Half {
    /// Its value as an `f32`.
    pub fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}

/// A `variant`: an object and its class description.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Variant {
    /// The object.
    pub object: Option<Ptr>,
    /// Its hkClass.
    pub class: Option<Ptr>,
}

/// Conversion of one member type between typed Rust and the dynamic graph.
pub trait Member: Sized {
    /// From a graph value.
    ///
    /// # Errors
    /// A value of another kind.
    fn from_value(v: &Value) -> Result<Self>;
    /// To a graph value.
    fn to_value(&self) -> Value;
}

fn kind_error(want: &str, v: &Value) -> Error {
    let mut s = format!("{v:?}");
    s.truncate(60);
    Error::invalid(0, format!("expected {want}, found {s}"))
}

macro_rules! int_member {
    ($($t:ty => $variant:ident),*) => {$(
        impl Member for $t {
            fn from_value(v: &Value) -> Result<Self> {
                match v {
                    Value::Int(i) => Ok(*i as $t),
                    Value::UInt(u) => Ok(*u as $t),
                    _ => Err(kind_error(stringify!($t), v)),
                }
            }
            fn to_value(&self) -> Value {
                Value::$variant(*self as _)
            }
        }
    )*};
}

int_member!(i8 => Int, i16 => Int, i32 => Int, i64 => Int, u8 => UInt, u16 => UInt, u32 => UInt, u64 => UInt);

impl Member for bool {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Bool(b) => Ok(*b != 0),
            _ => Err(kind_error("bool", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Bool(u8::from(*self))
    }
}

impl Member for f32 {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Real(f) => Ok(*f),
            _ => Err(kind_error("real", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}

impl Member for Half {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Half(h) => Ok(Half(*h)),
            _ => Err(kind_error("half", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Half(self.0)
    }
}

impl<const N: usize> Member for [f32; N] {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Floats(f) if f.len() == N => {
                let mut out = [0.0; N];
                out.copy_from_slice(f);
                Ok(out)
            }
            _ => Err(kind_error("floats", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Floats(self.to_vec())
    }
}

impl<T> Member for Ref<T> {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Pointer(p) => Ok(Ref::new(p.clone())),
            _ => Err(kind_error("pointer", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Pointer(self.ptr.clone())
    }
}

impl Member for HkString {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::String(None) => Ok(HkString::Null),
            Value::String(Some(s)) => Ok(HkString::Text(s.clone())),
            Value::Bytes(b) => Ok(HkString::Bytes(b.clone())),
            _ => Err(kind_error("string", v)),
        }
    }
    fn to_value(&self) -> Value {
        match self {
            HkString::Null => Value::String(None),
            HkString::Text(s) => Value::String(Some(s.clone())),
            HkString::Bytes(b) => Value::Bytes(b.clone()),
        }
    }
}

impl Member for Variant {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Variant { object, class } => Ok(Variant {
                object: object.clone(),
                class: class.clone(),
            }),
            _ => Err(kind_error("variant", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Variant {
            object: self.object.clone(),
            class: self.class.clone(),
        }
    }
}

impl Member for () {
    fn from_value(_: &Value) -> Result<Self> {
        Ok(())
    }
    fn to_value(&self) -> Value {
        Value::None
    }
}

/// An array (or C array) of members.
impl<T: Member> Member for Vec<T> {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Array(items) | Value::CArray(items) => items.iter().map(T::from_value).collect(),
            _ => Err(kind_error("array", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Array(self.iter().map(Member::to_value).collect())
    }
}

/// A C array: the same values, kept as a C array in the graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CArray<T>(pub Vec<T>);

impl<T: Member> Member for CArray<T> {
    fn from_value(v: &Value) -> Result<Self> {
        Vec::<T>::from_value(v).map(CArray)
    }
    fn to_value(&self) -> Value {
        Value::CArray(self.0.iter().map(Member::to_value).collect())
    }
}

/// A struct member: a generated class held by value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inline<T>(pub T);

impl<T: HkClass> Member for Inline<T> {
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Struct(fields) => T::from_fields(fields).map(Inline),
            _ => Err(kind_error("struct", v)),
        }
    }
    fn to_value(&self) -> Value {
        Value::Struct(self.0.to_fields())
    }
}

/// Reads member `name` from `fields` (generated code's helper).
///
/// # Errors
/// A missing member, or a value of another kind, naming the member.
pub fn field<T: Member>(fields: &[Field], class: &str, name: &str) -> Result<T> {
    let f = fields.iter().find(|f| f.name == name).ok_or_else(|| {
        Error::invalid(0, format!("missing member `{name}`")).in_member(class, name)
    })?;
    T::from_value(&f.value).map_err(|e| e.in_member(class, name))
}

/// A member with no typed Rust form yet (`homogeneousarray`, `inplacearray`): the graph
/// value as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Raw(pub Value);

impl Default for Raw {
    fn default() -> Self {
        Raw(Value::None)
    }
}

impl Member for Raw {
    fn from_value(v: &Value) -> Result<Self> {
        Ok(Raw(v.clone()))
    }
    fn to_value(&self) -> Value {
        self.0.clone()
    }
}
