//! Members that hold or own other data: pointers ([`Ref`]), strings ([`HkString`]),
//! variants ([`Variant`]), `void`, unsupported types ([`Unsupported`]), C arrays ([`CArray`])
//! and arrays ([`decode_array`]).

use std::marker::PhantomData;

use super::{kind, ptr_size, Member};
use crate::error::{ConvertError, Error, ReadError, Result, WriteError};
use crate::graph::{Ptr, Seg, Value};
use crate::packfile::engine::read::Target;
use crate::packfile::Loc;
use crate::schema::plan::array_header_size;
use crate::schema::ArrayKind;
use crate::typed::engine::{ArrRef, Decoder, Elements, Out};

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
                return Err(Error::write(WriteError::Nul));
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

/// A member of a type generated code has no typed form for (`inplacearray`, `relptr`,
/// arrays of arrays other than `hkArray`, and `homogeneousarray`, which only the dynamic
/// graph reads): reading one is an error.
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
                .map_err(|e| e.in_index(k))?;
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
            .map(|(i, v)| T::from_value(v).map_err(|e| e.in_index(i)))
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
/// their kind comes from the class's [`MemberInfo`](crate::typed::MemberInfo)
/// ([`Member::decode_kind`], [`Member::encode_kind`]).
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
/// As [`crate::packfile::engine::read::Reader::array`], or an element that does not read.
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
            d.r.defer(t, at, variant_class)?;
            None
        }
    })
}
