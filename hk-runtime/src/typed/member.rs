//! Member types of generated classes and their codecs ([`Member`]): primitives, float
//! tuples, enums and flags in their storage integer, pointers, strings, variants, arrays, C
//! arrays; generated classes implement [`Member`] for struct members.

use std::marker::PhantomData;

use super::engine::{ArrRef, Decoder, Elements, Out};
use crate::bytes::{read_column, write_column, Scalar};
use crate::error::{ConvertError, Error, ReadError, Result, WriteError};
use crate::graph::{Array, Floats, Ptr, Seg, Value};
use crate::packfile::reader::Target;
use crate::packfile::Loc;
use crate::schema::plan::array_header_size;
use crate::schema::ArrayKind;

/// The codec of one member type: how many bytes a value takes under each rules index, how
/// it is read and written through the packfile engines, how the pointers it holds are
/// found, and how it converts to and from graph values.
///
/// Primitive types override the element methods with whole-column reads and writes (one
/// byte-order match per array).
pub trait Member: Sized + 'static {
    /// Whether a value can hold a pointer (walks skip arrays whose elements cannot).
    const PTRS: bool = false;
    /// Whether values are strings (an array of them packs its strings).
    const STRING: bool = false;

    /// Bytes a value takes under rules index `ri` (its stride as an array element).
    fn size(ri: usize) -> u32;

    /// Byte ranges of one value that no member covers (checked as an array element's
    /// padding).
    fn gaps(_ri: usize) -> &'static [(u32, u32)] {
        &[]
    }

    /// Reads the value at `off` in `body`, which was read at `at`; `depth` is the nesting
    /// of the member list it belongs to.
    ///
    /// # Errors
    /// As the dynamic reader.
    fn decode(
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
    ) -> Result<Self>;

    /// Reads `count` elements from `at` (their block already recorded by the engine).
    ///
    /// # Errors
    /// As the dynamic reader.
    fn decode_elements(
        d: &mut Decoder<'_, '_>,
        at: Loc,
        count: u32,
        depth: usize,
    ) -> Result<Vec<Self>> {
        elements(d, at, count, depth)
    }

    /// As [`Member::decode`], for a member whose array form is `kind` (only arrays read
    /// it).
    ///
    /// # Errors
    /// As the dynamic reader.
    #[inline]
    fn decode_kind(
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
        _kind: ArrayKind,
    ) -> Result<Self> {
        Self::decode(d, body, off, at, depth)
    }

    /// Reads the value into `self` (in place: a struct reads its members where they are).
    ///
    /// # Errors
    /// As the dynamic reader.
    #[allow(clippy::too_many_arguments)]
    fn decode_in_place(
        &mut self,
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
        kind: ArrayKind,
    ) -> Result<()> {
        *self = Self::decode_kind(d, body, off, at, depth, kind)?;
        Ok(())
    }

    /// Writes the value at `off` under rules index `ri`.
    ///
    /// # Errors
    /// A value that does not fit its member.
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, ri: usize) -> Result<()>;

    /// As [`Member::encode`], for a member whose array form is `kind`.
    ///
    /// # Errors
    /// A value that does not fit its member.
    #[inline]
    fn encode_kind<'m>(
        &'m self,
        w: &mut Out<'_, 'm>,
        off: u32,
        ri: usize,
        _kind: ArrayKind,
    ) -> Result<()> {
        self.encode(w, off, ri)
    }

    /// Writes array elements (offsets from the first element).
    ///
    /// # Errors
    /// A value that does not fit its element type.
    fn encode_elements<'m>(items: &'m [Self], w: &mut Out<'_, 'm>, ri: usize) -> Result<()> {
        write_elements(items, w, ri)
    }

    /// The pointer slot at `path` below this value.
    fn slot_mut(&mut self, _path: &[Seg], _class: bool) -> Option<&mut Option<Ptr>> {
        None
    }

    /// Calls `f` with every pointer the value holds.
    fn each_ptr(&self, _f: &mut dyn FnMut(&Ptr)) {}

    /// The value as the dynamic reader produces it.
    ///
    /// # Errors
    /// Never for values read from a file.
    fn to_value(&self) -> Result<Value>;

    /// The value from a graph value.
    ///
    /// # Errors
    /// A value of another kind, or a number that does not fit.
    fn from_value(v: &Value) -> Result<Self>;

    /// Sets `self` from a graph value (in place: a struct sets its members where they are).
    ///
    /// # Errors
    /// As [`Member::from_value`].
    fn set_from(&mut self, v: &Value) -> Result<()> {
        *self = Self::from_value(v)?;
        Ok(())
    }

    /// Array elements as the graph's column for them.
    ///
    /// # Errors
    /// As [`Member::to_value`].
    #[inline]
    fn to_array(items: &[Self]) -> Result<Array> {
        let mut out = Vec::with_capacity(items.len());
        for x in items {
            out.push(x.to_value()?);
        }
        Ok(Array::Values(out))
    }

    /// Array elements from a graph array.
    ///
    /// # Errors
    /// A column of another kind, or an element that does not convert.
    #[inline]
    fn from_array(a: &Array) -> Result<Vec<Self>> {
        let owned;
        let items = match a {
            Array::Values(items) => items.as_slice(),
            other => {
                owned = other.to_values();
                owned.as_slice()
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            out.push(Self::from_value(v).map_err(|e| element(i, e))?);
        }
        Ok(out)
    }
}

#[cold]
fn element(i: usize, e: Error) -> Error {
    e.in_(format!("[{i}]"))
}

/// A member as generated code hands it to the runtime: [`Member`] made object-safe, so a
/// class passes its fields as one array of `&dyn Field` and one runtime loop reads, writes
/// or converts them (one copy of the loop, whatever the class).
pub trait Field {
    /// Reads the member at `off` in `body` (read at `at`) into `self`.
    ///
    /// # Errors
    /// As the dynamic reader.
    fn decode_into(
        &mut self,
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
        kind: ArrayKind,
    ) -> Result<()>;

    /// Writes the member at `off`.
    ///
    /// # Errors
    /// A value that does not fit its member.
    fn encode_field<'m>(
        &'m self,
        w: &mut Out<'_, 'm>,
        off: u32,
        ri: usize,
        kind: ArrayKind,
    ) -> Result<()>;
}

impl<T: Member> Field for T {
    fn decode_into(
        &mut self,
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
        kind: ArrayKind,
    ) -> Result<()> {
        self.decode_in_place(d, body, off, at, depth, kind)
    }

    fn encode_field<'m>(
        &'m self,
        w: &mut Out<'_, 'm>,
        off: u32,
        ri: usize,
        kind: ArrayKind,
    ) -> Result<()> {
        self.encode_kind(w, off, ri, kind)
    }
}

/// A member as generated graph conversions hand it to the runtime ([`Member`]'s value
/// conversions made object-safe; apart from [`Field`], so that code which never converts
/// does not instantiate them).
pub trait ValueField {
    /// The member's graph value.
    ///
    /// # Errors
    /// As [`Member::to_value`].
    fn value(&self) -> Result<Value>;

    /// Sets the member from a graph value.
    ///
    /// # Errors
    /// As [`Member::from_value`].
    fn set_value(&mut self, v: &Value) -> Result<()>;
}

impl<T: Member> ValueField for T {
    fn value(&self) -> Result<Value> {
        self.to_value()
    }

    fn set_value(&mut self, v: &Value) -> Result<()> {
        self.set_from(v)
    }
}

pub(crate) fn kind(expected: &'static str, v: &Value) -> Error {
    Error::convert(ConvertError::Kind {
        expected,
        found: v.describe(),
    })
}

pub(crate) fn range(value: impl ToString, target: &'static str) -> Error {
    Error::convert(ConvertError::Range {
        value: value.to_string(),
        target,
    })
}

/// `n` bytes at `off` of `body`.
#[inline]
pub(crate) fn field(body: &[u8], off: u32, n: usize) -> Result<&[u8]> {
    body.get(off as usize..off as usize + n)
        .ok_or_else(|| Error::schema("a layout table names bytes past its class's size"))
}

/// Pointer size under rules index `ri`.
#[inline]
pub(crate) const fn ptr_size(ri: usize) -> u32 {
    if ri & 4 != 0 {
        8
    } else {
        4
    }
}

/// How a column of a primitive is read: through [`read_column`] (one byte-order match), or
/// for bytes as one copy.
trait Column: Scalar {
    fn column(bytes: &[u8], e: crate::rules::Endian) -> Vec<Self> {
        read_column(bytes, e)
    }
}

impl Column for u8 {
    fn column(bytes: &[u8], _e: crate::rules::Endian) -> Vec<Self> {
        bytes.to_vec()
    }
}

impl Column for i8 {}
impl Column for u16 {}
impl Column for i16 {}
impl Column for u32 {}
impl Column for i32 {}
impl Column for u64 {}
impl Column for i64 {}
impl Column for f32 {}
impl Column for [f32; 4] {}
impl Column for [f32; 12] {}
impl Column for [f32; 16] {}

macro_rules! scalar_member {
    ($($t:ty => $col:ident, $name:literal, $to:expr, $from:expr;)*) => {$(
        impl Member for $t {
            #[inline]
            fn size(_ri: usize) -> u32 {
                <$t as Scalar>::SIZE as u32
            }
            #[inline]
            fn decode(
                d: &mut Decoder<'_, '_>,
                body: &[u8],
                off: u32,
                _at: Loc,
                _depth: usize,
            ) -> Result<Self> {
                Ok(<$t as Scalar>::read(field(body, off, <$t as Scalar>::SIZE)?, d.endian()))
            }
            #[inline]
            fn decode_elements(
                d: &mut Decoder<'_, '_>,
                at: Loc,
                count: u32,
                _depth: usize,
            ) -> Result<Vec<Self>> {
                let n = u64::from(count) * <$t as Scalar>::SIZE as u64;
                let bytes = d.reader().bytes(at, n)?;
                Ok(<$t as Column>::column(bytes, d.endian()))
            }
            #[inline]
            fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, _ri: usize) -> Result<()> {
                w.put(off, *self)
            }
            #[inline]
            fn encode_elements<'m>(
                items: &'m [Self],
                w: &mut Out<'_, 'm>,
                _ri: usize,
            ) -> Result<()> {
                column(items, w)
            }
            #[inline]
            fn to_value(&self) -> Result<Value> {
                #[allow(clippy::redundant_closure_call)]
                Ok(($to)(*self))
            }
            #[inline]
            fn from_value(v: &Value) -> Result<Self> {
                #[allow(clippy::redundant_closure_call)]
                ($from)(v)
            }
            #[inline]
            fn to_array(items: &[Self]) -> Result<Array> {
                Ok(Array::$col(items.to_vec()))
            }
            #[inline]
            fn from_array(a: &Array) -> Result<Vec<Self>> {
                match a {
                    Array::$col(v) => Ok(v.clone()),
                    Array::Values(items) => items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| Self::from_value(v).map_err(|e| e.in_(format!("[{i}]"))))
                        .collect(),
                    other => Err(kind($name, &Value::Array(other.column().with_capacity(0)))),
                }
            }
        }
    )*};
}

fn int_from<T: TryFrom<i64> + TryFrom<u64>>(v: &Value, name: &'static str) -> Result<T> {
    match v {
        Value::Int(i) => T::try_from(*i).map_err(|_| range(i, name)),
        Value::UInt(u) => T::try_from(*u).map_err(|_| range(u, name)),
        _ => Err(kind(name, v)),
    }
}

fn floats_from<const N: usize>(v: &Value) -> Result<[f32; N]> {
    match v {
        Value::Floats(f) => <[f32; N]>::try_from(f.as_slice()).map_err(|_| {
            Error::convert(ConvertError::Kind {
                expected: "a float tuple of its member's length",
                found: v.describe(),
            })
        }),
        _ => Err(kind("a float tuple", v)),
    }
}

fn floats_value<const N: usize>(a: [f32; N]) -> Value {
    Value::Floats(Floats::new(&a).unwrap_or_else(|| Floats::zeros(0)))
}

scalar_member! {
    i8 => I8, "int8", |x| Value::Int(i64::from(x)), |v| int_from::<i8>(v, "int8");
    u8 => U8, "uint8", |x| Value::UInt(u64::from(x)), |v| int_from::<u8>(v, "uint8");
    i16 => I16, "int16", |x| Value::Int(i64::from(x)), |v| int_from::<i16>(v, "int16");
    u16 => U16, "uint16", |x| Value::UInt(u64::from(x)), |v| int_from::<u16>(v, "uint16");
    i32 => I32, "int32", |x| Value::Int(i64::from(x)), |v| int_from::<i32>(v, "int32");
    u32 => U32, "uint32", |x| Value::UInt(u64::from(x)), |v| int_from::<u32>(v, "uint32");
    i64 => I64, "int64", Value::Int, |v| int_from::<i64>(v, "int64");
    u64 => U64, "uint64", Value::UInt, |v| int_from::<u64>(v, "uint64");
    f32 => Real, "real", Value::Real, |v: &Value| v.as_f32().ok_or_else(|| kind("a real", v));
    [f32; 4] => Vec4, "vector4", floats_value::<4>, floats_from::<4>;
    [f32; 12] => Mat3, "matrix3", floats_value::<12>, floats_from::<12>;
    [f32; 16] => Mat4, "matrix4", floats_value::<16>, floats_from::<16>;
}

/// A `bool` member: the stored byte (any non-zero byte is true; the byte is kept so that
/// a file writes back as it was).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bool(pub u8);

impl Bool {
    /// Whether the byte is non-zero.
    pub const fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for Bool {
    fn from(b: bool) -> Self {
        Bool(u8::from(b))
    }
}

/// A `half` member: the top 16 bits of an `f32`, as stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Half(pub u16);

impl Half {
    /// Its value as an `f32`.
    pub fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}

/// A `ulong` member: an unsigned integer as wide as a pointer under the file's rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ULong(pub u64);

macro_rules! wrapped_member {
    ($($t:ident($inner:ty) => $col:ident, $name:literal, $variant:ident;)*) => {$(
        impl Member for $t {
            #[inline]
            fn size(_ri: usize) -> u32 {
                <$inner as Scalar>::SIZE as u32
            }
            #[inline]
            fn decode(
                d: &mut Decoder<'_, '_>,
                body: &[u8],
                off: u32,
                _at: Loc,
                _depth: usize,
            ) -> Result<Self> {
                let b = field(body, off, <$inner as Scalar>::SIZE)?;
                Ok($t(<$inner as Scalar>::read(b, d.endian())))
            }
            #[inline]
            fn decode_elements(
                d: &mut Decoder<'_, '_>,
                at: Loc,
                count: u32,
                _depth: usize,
            ) -> Result<Vec<Self>> {
                let n = u64::from(count) * <$inner as Scalar>::SIZE as u64;
                let bytes = d.reader().bytes(at, n)?;
                let e = d.endian();
                Ok(bytes
                    .chunks_exact(<$inner as Scalar>::SIZE)
                    .map(|c| $t(<$inner as Scalar>::read(c, e)))
                    .collect())
            }
            #[inline]
            fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, _ri: usize) -> Result<()> {
                w.put(off, self.0)
            }
            #[inline]
            fn encode_elements<'m>(
                items: &'m [Self],
                w: &mut Out<'_, 'm>,
                _ri: usize,
            ) -> Result<()> {
                let raw: Vec<$inner> = items.iter().map(|x| x.0).collect();
                column(&raw, w)
            }
            #[inline]
            fn to_value(&self) -> Result<Value> {
                Ok(Value::$variant(self.0))
            }
            #[inline]
            fn from_value(v: &Value) -> Result<Self> {
                match v {
                    Value::$variant(x) => Ok($t(*x)),
                    _ => Err(kind($name, v)),
                }
            }
            #[inline]
            fn to_array(items: &[Self]) -> Result<Array> {
                Ok(Array::$col(items.iter().map(|x| x.0).collect()))
            }
            #[inline]
            fn from_array(a: &Array) -> Result<Vec<Self>> {
                match a {
                    Array::$col(v) => Ok(v.iter().map(|x| $t(*x)).collect()),
                    Array::Values(items) => items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| Self::from_value(v).map_err(|e| e.in_(format!("[{i}]"))))
                        .collect(),
                    other => Err(kind($name, &Value::Array(other.column().with_capacity(0)))),
                }
            }
        }
    )*};
}

wrapped_member! {
    Bool(u8) => Bool, "a bool", Bool;
    Half(u16) => Half, "a half", Half;
}

fn ulong_range(x: u64) -> Error {
    Error::write(WriteError::Range {
        value: x.to_string(),
        member: "ulong (4 bytes)".into(),
        range: "0 to 4294967295".into(),
    })
}

impl Member for ULong {
    #[inline]
    fn size(ri: usize) -> u32 {
        ptr_size(ri)
    }
    fn decode(
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        _at: Loc,
        _depth: usize,
    ) -> Result<Self> {
        let e = d.endian();
        Ok(ULong(if d.reader().ptr() == 8 {
            u64::read(field(body, off, 8)?, e)
        } else {
            u64::from(u32::read(field(body, off, 4)?, e))
        }))
    }
    #[inline]
    fn decode_elements(
        d: &mut Decoder<'_, '_>,
        at: Loc,
        count: u32,
        _depth: usize,
    ) -> Result<Vec<Self>> {
        let p = d.reader().ptr();
        let bytes = d.reader().bytes(at, u64::from(count) * u64::from(p))?;
        let e = d.endian();
        Ok(if p == 8 {
            read_column::<u64>(bytes, e)
                .into_iter()
                .map(ULong)
                .collect()
        } else {
            read_column::<u32>(bytes, e)
                .into_iter()
                .map(|x| ULong(u64::from(x)))
                .collect()
        })
    }
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, _ri: usize) -> Result<()> {
        if w.ptr() == 8 {
            w.put(off, self.0)
        } else {
            w.put(off, u32::try_from(self.0).map_err(|_| ulong_range(self.0))?)
        }
    }
    #[inline]
    fn encode_elements<'m>(items: &'m [Self], w: &mut Out<'_, 'm>, _ri: usize) -> Result<()> {
        if w.ptr() == 8 {
            let raw: Vec<u64> = items.iter().map(|x| x.0).collect();
            return column(&raw, w);
        }
        let raw = items
            .iter()
            .enumerate()
            .map(|(i, x)| u32::try_from(x.0).map_err(|_| ulong_range(x.0).in_(format!("[{i}]"))))
            .collect::<Result<Vec<u32>>>()?;
        column(&raw, w)
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        Ok(Value::UInt(self.0))
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        int_from::<u64>(v, "ulong").map(ULong)
    }
    #[inline]
    fn to_array(items: &[Self]) -> Result<Array> {
        Ok(Array::U64(items.iter().map(|x| x.0).collect()))
    }
    #[inline]
    fn from_array(a: &Array) -> Result<Vec<Self>> {
        u64::from_array(a).map(|v| v.into_iter().map(ULong).collect())
    }
}

/// A Rust enum generated for a schema enum: every item, and `Other` for values the schema
/// does not name.
pub trait HkEnum: Copy + 'static {
    /// The item with stored value `v` (or `Other(v)`).
    fn from_i64(v: i64) -> Self;
    /// The stored value.
    fn to_i64(self) -> i64;
}

/// An integer that stores an enum or flags member (8 to 32 bits: every enum value fits an
/// `i64` without loss).
pub trait Storage: Member + Copy + Default + Eq + std::fmt::Debug + std::hash::Hash {
    /// The value as an `i64` (lossless).
    fn to_i64(self) -> i64;
    /// `v` if it fits.
    fn from_i64(v: i64) -> Option<Self>;
}

macro_rules! storage {
    ($($t:ty),*) => {$(
        impl Storage for $t {
            fn to_i64(self) -> i64 {
                i64::from(self)
            }
            fn from_i64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
    )*};
}

storage!(i8, u8, i16, u16, i32, u32);

/// An enum member (`hkEnum<E, S>`): the value as stored in `S`, read as `E` on demand, so
/// every stored value (named or not) writes back as it was.
pub struct Enum<E, S> {
    raw: S,
    _e: PhantomData<fn() -> E>,
}

/// A flags member (`hkFlags<E, S>`): the stored bits; `E` names the bits.
pub struct Flags<E, S> {
    raw: S,
    _e: PhantomData<fn() -> E>,
}

macro_rules! enum_like {
    ($($t:ident),*) => {$(
        impl<E, S: Copy> Clone for $t<E, S> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<E, S: Copy> Copy for $t<E, S> {}
        impl<E, S: Default> Default for $t<E, S> {
            fn default() -> Self {
                $t { raw: S::default(), _e: PhantomData }
            }
        }
        impl<E, S: PartialEq> PartialEq for $t<E, S> {
            fn eq(&self, other: &Self) -> bool {
                self.raw == other.raw
            }
        }
        impl<E, S: Eq> Eq for $t<E, S> {}
        impl<E, S: std::hash::Hash> std::hash::Hash for $t<E, S> {
            fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
                self.raw.hash(h)
            }
        }
        impl<E: HkEnum, S: Storage> $t<E, S> {
            /// From the stored value.
            pub const fn from_raw(raw: S) -> Self {
                $t { raw, _e: PhantomData }
            }
            /// The stored value.
            pub fn raw(self) -> S {
                self.raw
            }
        }
        impl<E: HkEnum, S: Storage> Member for $t<E, S> {
            #[inline]
            fn size(ri: usize) -> u32 {
                S::size(ri)
            }
            #[inline]
            fn decode(
                d: &mut Decoder<'_, '_>,
                body: &[u8],
                off: u32,
                at: Loc,
                depth: usize,
            ) -> Result<Self> {
                S::decode(d, body, off, at, depth).map(Self::from_raw)
            }
            #[inline]
            fn decode_elements(
                d: &mut Decoder<'_, '_>,
                at: Loc,
                count: u32,
                depth: usize,
            ) -> Result<Vec<Self>> {
                Ok(S::decode_elements(d, at, count, depth)?
                    .into_iter()
                    .map(Self::from_raw)
                    .collect())
            }
            #[inline]
            fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, ri: usize) -> Result<()> {
                self.raw.encode(w, off, ri)
            }
            #[inline]
            fn to_value(&self) -> Result<Value> {
                self.raw.to_value()
            }
            #[inline]
            fn from_value(v: &Value) -> Result<Self> {
                S::from_value(v).map(Self::from_raw)
            }
            #[inline]
            fn to_array(items: &[Self]) -> Result<Array> {
                let raw: Vec<S> = items.iter().map(|x| x.raw).collect();
                S::to_array(&raw)
            }
            #[inline]
            fn from_array(a: &Array) -> Result<Vec<Self>> {
                Ok(S::from_array(a)?.into_iter().map(Self::from_raw).collect())
            }
        }
    )*};
}

enum_like!(Enum, Flags);

impl<E: HkEnum + std::fmt::Debug, S: Storage> std::fmt::Debug for Enum<E, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl<E, S: std::fmt::Debug> std::fmt::Debug for Flags<E, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Flags({:?})", self.raw)
    }
}

impl<E: HkEnum, S: Storage> Enum<E, S> {
    /// The item.
    pub fn get(self) -> E {
        E::from_i64(self.raw.to_i64())
    }

    /// `e` in storage `S`.
    ///
    /// # Errors
    /// A value `S` does not hold.
    pub fn new(e: E) -> Result<Self, ConvertError> {
        let v = e.to_i64();
        S::from_i64(v)
            .map(Self::from_raw)
            .ok_or(ConvertError::Range {
                value: v.to_string(),
                target: std::any::type_name::<S>(),
            })
    }
}

impl<E: HkEnum, S: Storage> Flags<E, S> {
    /// Whether every bit of item `e` is set.
    pub fn contains(self, e: E) -> bool {
        let v = e.to_i64();
        self.raw.to_i64() & v == v
    }
}

/// A pointer member to an object of class `T` (or, whatever `T`, into data some object owns,
/// or to an object of another file): a graph [`Ptr`].
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

impl<T> std::fmt::Debug for Ref<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.ptr.fmt(f)
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

impl<T: 'static> Member for Ref<T> {
    const PTRS: bool = true;
    fn size(ri: usize) -> u32 {
        ptr_size(ri)
    }
    fn decode(
        d: &mut Decoder<'_, '_>,
        _body: &[u8],
        off: u32,
        at: Loc,
        _depth: usize,
    ) -> Result<Self> {
        pointer(d, at.plus(off), false).map(Ref::new)
    }
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, _ri: usize) -> Result<()> {
        if let Some(p) = &self.ptr {
            w.pointer(off, p);
        }
        Ok(())
    }
    fn slot_mut(&mut self, path: &[Seg], _class: bool) -> Option<&mut Option<Ptr>> {
        path.is_empty().then_some(&mut self.ptr)
    }
    fn each_ptr(&self, f: &mut dyn FnMut(&Ptr)) {
        if let Some(p) = &self.ptr {
            f(p);
        }
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        Ok(Value::Pointer(self.ptr.clone()))
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Pointer(p) => Ok(Ref::new(p.clone())),
            _ => Err(kind("a pointer", v)),
        }
    }
}

/// A `cstring` or `stringptr` member: null, text, or bytes that are not UTF-8 (kept as
/// stored).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum HkString {
    /// Null.
    #[default]
    Null,
    /// Text.
    Text(String),
    /// Bytes that are not UTF-8, without the NUL.
    Bytes(Vec<u8>),
}

impl HkString {
    /// The text, if the string is UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            HkString::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The stored bytes (without the NUL), `None` for null.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            HkString::Null => None,
            HkString::Text(s) => Some(s.as_bytes()),
            HkString::Bytes(b) => Some(b),
        }
    }

    /// The string for stored bytes: text when they are UTF-8.
    pub fn from_bytes(b: &[u8]) -> HkString {
        match std::str::from_utf8(b) {
            Ok(s) => HkString::Text(s.to_string()),
            Err(_) => HkString::Bytes(b.to_vec()),
        }
    }
}

impl From<&str> for HkString {
    fn from(s: &str) -> Self {
        HkString::Text(s.to_string())
    }
}

impl Member for HkString {
    const STRING: bool = true;
    fn size(ri: usize) -> u32 {
        ptr_size(ri)
    }
    fn decode(
        d: &mut Decoder<'_, '_>,
        _body: &[u8],
        off: u32,
        at: Loc,
        _depth: usize,
    ) -> Result<Self> {
        Ok(match d.reader().string(at.plus(off))? {
            None => HkString::Null,
            Some(b) => HkString::from_bytes(b),
        })
    }
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, _ri: usize) -> Result<()> {
        if let Some(b) = self.as_bytes() {
            if b.contains(&0) {
                return Err(Error::write(WriteError::Invalid(
                    "a string holds a NUL byte, which would end it early".into(),
                )));
            }
            w.string(off, b);
        }
        Ok(())
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        Ok(match self {
            HkString::Null => Value::String(None),
            HkString::Text(s) => Value::String(Some(s.clone())),
            HkString::Bytes(b) => Value::Bytes(b.clone()),
        })
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::String(None) => Ok(HkString::Null),
            Value::String(Some(s)) => Ok(HkString::Text(s.clone())),
            Value::Bytes(b) => Ok(HkString::Bytes(b.clone())),
            _ => Err(kind("a string", v)),
        }
    }
}

/// A `variant` member: an object and the hkClass object describing it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The object.
    pub object: Option<Ptr>,
    /// Its class description.
    pub class: Option<Ptr>,
}

impl Member for Variant {
    const PTRS: bool = true;
    fn size(ri: usize) -> u32 {
        2 * ptr_size(ri)
    }
    fn decode(
        d: &mut Decoder<'_, '_>,
        _body: &[u8],
        off: u32,
        at: Loc,
        _depth: usize,
    ) -> Result<Self> {
        let at = at.plus(off);
        let object = pointer(d, at, false)?;
        let p = d.reader().ptr();
        let class = pointer(d, at.plus(p), true)?;
        Ok(Variant { object, class })
    }
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, _ri: usize) -> Result<()> {
        w.variant(off, self.object.as_ref(), self.class.as_ref());
        Ok(())
    }
    fn slot_mut(&mut self, path: &[Seg], class: bool) -> Option<&mut Option<Ptr>> {
        if !path.is_empty() {
            return None;
        }
        Some(if class {
            &mut self.class
        } else {
            &mut self.object
        })
    }
    fn each_ptr(&self, f: &mut dyn FnMut(&Ptr)) {
        self.object.iter().chain(&self.class).for_each(f);
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        Ok(Value::variant(self.object.clone(), self.class.clone()))
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Variant(v) => Ok(Variant {
                object: v.object.clone(),
                class: v.class.clone(),
            }),
            _ => Err(kind("a variant", v)),
        }
    }
}

/// A `void` member (no storage).
impl Member for () {
    fn size(_ri: usize) -> u32 {
        0
    }
    fn decode(
        _d: &mut Decoder<'_, '_>,
        _body: &[u8],
        _off: u32,
        _at: Loc,
        _depth: usize,
    ) -> Result<Self> {
        Ok(())
    }
    fn encode<'m>(&'m self, _w: &mut Out<'_, 'm>, _off: u32, _ri: usize) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        Ok(Value::None)
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::None => Ok(()),
            _ => Err(kind("no value (a void member)", v)),
        }
    }
}

/// A member of a type hk has no value form for in packfiles (`inplacearray`,
/// `homogeneousarray`, `relptr`, arrays of arrays other than `hkArray`): reading one is an
/// error, as in the dynamic reader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unsupported;

impl Member for Unsupported {
    fn size(_ri: usize) -> u32 {
        0
    }
    fn decode(
        d: &mut Decoder<'_, '_>,
        _body: &[u8],
        off: u32,
        at: Loc,
        _depth: usize,
    ) -> Result<Self> {
        Err(Error::read(ReadError::Unsupported(
            "a member type with no typed form in packfiles".into(),
        ))
        .at(d.reader().abs(at.plus(off))))
    }
    fn encode<'m>(&'m self, _w: &mut Out<'_, 'm>, _off: u32, _ri: usize) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        Ok(Value::None)
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::None => Ok(Unsupported),
            _ => Err(kind("no value (an unsupported member)", v)),
        }
    }
}

/// A C array member (`array_size` > 0): `N` values in place.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CArray<T, const N: usize>(pub [T; N]);

impl<T: Default, const N: usize> Default for CArray<T, N> {
    fn default() -> Self {
        CArray(std::array::from_fn(|_| T::default()))
    }
}

impl<T, const N: usize> std::ops::Deref for CArray<T, N> {
    type Target = [T; N];
    fn deref(&self) -> &[T; N] {
        &self.0
    }
}

impl<T, const N: usize> std::ops::DerefMut for CArray<T, N> {
    fn deref_mut(&mut self) -> &mut [T; N] {
        &mut self.0
    }
}

impl<T, const N: usize> From<[T; N]> for CArray<T, N> {
    fn from(a: [T; N]) -> Self {
        CArray(a)
    }
}

fn index_of(path: &[Seg]) -> Option<(usize, &[Seg])> {
    match path.split_first()? {
        (Seg::Index(k), rest) => Some((*k as usize, rest)),
        _ => None,
    }
}

impl<T: Member, const N: usize> Member for CArray<T, N> {
    const PTRS: bool = T::PTRS;
    fn size(ri: usize) -> u32 {
        N as u32 * T::size(ri)
    }
    fn decode(
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
    ) -> Result<Self> {
        let stride = T::size(d.ri());
        let mut items = Vec::with_capacity(N);
        for k in 0..N as u32 {
            d.reader().enter(Seg::Index(k));
            items.push(T::decode(d, body, off + k * stride, at, depth + 1)?);
            d.reader().leave();
        }
        <[T; N]>::try_from(items)
            .map(CArray)
            .map_err(|_| Error::schema("a C array read another number of elements"))
    }
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, ri: usize) -> Result<()> {
        let stride = T::size(ri);
        for (k, x) in self.0.iter().enumerate() {
            w.enter(Seg::Index(k as u32));
            x.encode(w, off + k as u32 * stride, ri)
                .map_err(|e| e.in_(format!("[{k}]")))?;
            w.leave();
        }
        Ok(())
    }
    fn slot_mut(&mut self, path: &[Seg], class: bool) -> Option<&mut Option<Ptr>> {
        let (k, rest) = index_of(path)?;
        self.0.get_mut(k)?.slot_mut(rest, class)
    }
    fn each_ptr(&self, f: &mut dyn FnMut(&Ptr)) {
        if T::PTRS {
            self.0.iter().for_each(|x| x.each_ptr(f));
        }
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        self.0
            .iter()
            .map(Member::to_value)
            .collect::<Result<_>>()
            .map(Value::CArray)
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        let Value::CArray(items) = v else {
            return Err(kind("a C array", v));
        };
        if items.len() != N {
            return Err(Error::convert(ConvertError::Kind {
                expected: "a C array of its member's length",
                found: v.describe(),
            }));
        }
        let items = items
            .iter()
            .enumerate()
            .map(|(i, v)| T::from_value(v).map_err(|e| e.in_(format!("[{i}]"))))
            .collect::<Result<Vec<T>>>()?;
        <[T; N]>::try_from(items).map(CArray).map_err(|_| {
            Error::convert(ConvertError::Kind {
                expected: "a C array of its member's length",
                found: "another length".into(),
            })
        })
    }
}

/// An `hkArray` member (pointer, size, capacity). Simple and relative arrays are `Vec`s too;
/// their kind comes from the class's [`super::MemberInfo`] ([`Member::decode_kind`],
/// [`Member::encode_kind`]).
impl<T: Member> Member for Vec<T> {
    const PTRS: bool = T::PTRS;
    fn size(ri: usize) -> u32 {
        array_header_size(ArrayKind::Array, ptr_size(ri))
    }
    fn decode(
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
    ) -> Result<Self> {
        decode_array(d, body, off, at, ArrayKind::Array, depth)
    }
    fn decode_kind(
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
        kind: ArrayKind,
    ) -> Result<Self> {
        decode_array(d, body, off, at, kind, depth)
    }
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, _ri: usize) -> Result<()> {
        w.array(off, ArrayKind::Array, ArrRef::new(self), self.len())
    }
    fn encode_kind<'m>(
        &'m self,
        w: &mut Out<'_, 'm>,
        off: u32,
        _ri: usize,
        kind: ArrayKind,
    ) -> Result<()> {
        w.array(off, kind, ArrRef::new(self), self.len())
    }
    fn slot_mut(&mut self, path: &[Seg], class: bool) -> Option<&mut Option<Ptr>> {
        let (k, rest) = index_of(path)?;
        self.get_mut(k)?.slot_mut(rest, class)
    }
    fn each_ptr(&self, f: &mut dyn FnMut(&Ptr)) {
        if T::PTRS {
            self.iter().for_each(|x| x.each_ptr(f));
        }
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        T::to_array(self).map(Value::Array)
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        match v {
            Value::Array(a) => T::from_array(a),
            _ => Err(kind("an array", v)),
        }
    }
}

impl<T: Member> Elements for Vec<T> {
    fn count(&self) -> usize {
        self.len()
    }
    fn stride(&self, ri: usize) -> u32 {
        T::size(ri)
    }
    fn strings(&self) -> bool {
        T::STRING
    }
    fn write<'m>(&'m self, w: &mut Out<'_, 'm>, ri: usize) -> Result<()> {
        T::encode_elements(self, w, ri)
    }
}

/// An array of `kind` whose header is at `off` in `body` (read at `at`).
///
/// # Errors
/// As [`crate::packfile::reader::Reader::array`], or an element that does not read.
pub fn decode_array<T: Member>(
    d: &mut Decoder<'_, '_>,
    _body: &[u8],
    off: u32,
    at: Loc,
    kind: ArrayKind,
    depth: usize,
) -> Result<Vec<T>> {
    let stride = T::size(d.ri);
    match d.r.array(at.plus(off), kind, stride)? {
        None => Ok(Vec::new()),
        Some(els) => T::decode_elements(d, els.at, els.count, depth + 1),
    }
}

/// `count` elements from `at`, one at a time: each inside its index, its padding checked
/// (what [`Member::decode_elements`] does for non-primitive elements).
///
/// # Errors
/// As the dynamic reader.
pub(crate) fn elements<T: Member>(
    d: &mut Decoder<'_, '_>,
    at: Loc,
    count: u32,
    depth: usize,
) -> Result<Vec<T>> {
    let stride = T::size(d.ri);
    let bytes = d.r.bytes(at, u64::from(count) * u64::from(stride))?;
    let gaps = T::gaps(d.ri);
    let mut out = Vec::with_capacity(count as usize);
    for k in 0..count {
        d.r.enter(Seg::Index(k));
        let el = at.plus(k * stride);
        let s = k as usize * stride as usize;
        let slice = bytes.get(s..s + stride as usize).unwrap_or_default();
        if !gaps.is_empty() {
            d.r.check_gaps(slice, el, gaps)?;
        }
        out.push(T::decode(d, slice, 0, el, depth)?);
        d.r.leave();
    }
    Ok(out)
}

/// A pointer slot's value; an interior pointer is deferred (and patched in by
/// [`decode_file`] once the engine resolves it).
///
/// # Errors
/// As [`Reader::pointer`].
pub(crate) fn pointer(
    d: &mut Decoder<'_, '_>,
    at: Loc,
    variant_class: bool,
) -> Result<Option<Ptr>> {
    Ok(match d.r.pointer(at)? {
        Target::Null => None,
        Target::Object(id) => Some(Ptr::Object(id)),
        Target::Import(name) => Some(Ptr::Import(name.to_string())),
        Target::Interior(t) => {
            d.r.defer(t, at, variant_class);
            None
        }
    })
}

/// Writes elements one at a time, each inside its index (what [`Member::encode_elements`]
/// does for non-primitive elements).
///
/// # Errors
/// A value that does not fit, with its index.
pub(crate) fn write_elements<'m, T: Member>(
    items: &'m [T],
    w: &mut Out<'_, 'm>,
    ri: usize,
) -> Result<()> {
    let stride = T::size(ri);
    for (i, x) in items.iter().enumerate() {
        w.enter(Seg::Index(i as u32));
        x.encode(w, i as u32 * stride, ri)
            .map_err(|e| e.in_(format!("[{i}]")))?;
        w.leave();
    }
    Ok(())
}

/// Writes a column of primitive values in the file's byte order (one match per column).
///
/// # Errors
/// As [`Body::bytes_mut`].
pub(crate) fn column<T: Scalar>(items: &[T], w: &mut Out<'_, '_>) -> Result<()> {
    let e = w.endian();
    let out = w.bytes_mut(0, items.len() * T::SIZE)?;
    write_column(items, out, e);
    Ok(())
}
