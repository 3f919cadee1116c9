//! Member types of generated classes and their codecs ([`Member`]): primitives, float
//! tuples, enums and flags in their storage integer, pointers, strings, variants, arrays, C
//! arrays; generated classes implement [`Member`] for struct members.

mod slots;
mod wrapped;

pub use slots::{decode_array, CArray, HkString, Ref, Unsupported, Variant};
pub use wrapped::{Bool, Enum, Flags, Half, HkEnum, Storage, ULong};

use super::engine::{Decoder, Out};
use crate::bytes::{read_column, write_column, Scalar};
use crate::error::{ConvertError, Error, Result, SchemaError};
use crate::graph::{Array, Floats, Ptr, Seg, Value};
use crate::packfile::Loc;
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
    e.in_index(i)
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
    body.get(off as usize..off as usize + n).ok_or_else(|| {
        Error::from(SchemaError::PastSize {
            table: "layout table",
        })
    })
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
                        .map(|(i, v)| Self::from_value(v).map_err(|e| e.in_index(i)))
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
            .map_err(|e| e.in_index(i))?;
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
