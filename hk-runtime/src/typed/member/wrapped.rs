//! Members kept in their stored form: `bool` ([`Bool`]), `half` ([`Half`]) and `ulong`
//! ([`ULong`]), and enums and flags in their storage integer ([`HkEnum`], [`Storage`],
//! [`Enum`], [`Flags`]).

use std::marker::PhantomData;

use super::{column, field, int_from, kind, ptr_size, Member};
use crate::bytes::{read_column, Scalar};
use crate::error::{ConvertError, Error, Result, WriteError};
use crate::graph::{Array, Value};
use crate::packfile::Loc;
use crate::typed::engine::{Decoder, Out};

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
                        .map(|(i, v)| Self::from_value(v).map_err(|e| e.in_index(i)))
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
            .map(|(i, x)| u32::try_from(x.0).map_err(|_| ulong_range(x.0).in_index(i)))
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
