//! Zero-copy views: generated `XxxView<'a>` types read one member of an object of a parsed
//! packfile at its compile-time offset, without allocating. Primitive members read by
//! value; strings, pointers and arrays follow their fixups; arrays of primitives are read
//! (and traversed) as columns with the byte order matched once per array.
//!
//! Views check bounds, not the format's invariants (the typed and dynamic readers do that):
//! they are for reading files fast.

use std::marker::PhantomData;

use super::member::{Bool, Enum, Flags, Half, HkEnum, Storage, ULong};
use crate::bytes::Scalar;
use crate::error::{Error, ReadError, Result};
use crate::packfile::{Loc, Packfile};
use crate::rules::Endian;
use crate::schema::ArrayKind;

/// The bytes of one object, struct or element of a parsed packfile, with what reading them
/// needs: what every generated view wraps.
#[derive(Clone, Copy, Debug)]
pub struct Raw<'a> {
    pf: &'a Packfile<'a>,
    body: &'a [u8],
    at: Loc,
    ri: u8,
    endian: Endian,
}

/// The object data of section `section` (up to its local fixups).
fn section_data<'a>(pf: &Packfile<'a>, section: u32) -> &'a [u8] {
    pf.sections
        .get(section as usize)
        .map_or(&[][..], |s| s.data(&pf.bytes()))
}

impl<'a> Raw<'a> {
    /// The `size` bytes at `at`.
    ///
    /// # Errors
    /// When they run past the section's object data.
    pub fn new(pf: &'a Packfile<'a>, at: Loc, size: u32) -> Result<Raw<'a>> {
        let data = section_data(pf, at.section);
        let start = at.offset as usize;
        let body = data.get(start..start + size as usize).ok_or_else(|| {
            Error::truncated(
                pf.abs(at),
                u64::from(size),
                data.len().saturating_sub(start) as u64,
            )
        })?;
        Ok(Raw {
            pf,
            body,
            at,
            ri: pf.rules().index() as u8,
            endian: pf.rules().endian,
        })
    }

    /// The packfile.
    pub fn packfile(&self) -> &'a Packfile<'a> {
        self.pf
    }

    /// The bytes.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Where the bytes are.
    pub fn at(&self) -> Loc {
        self.at
    }

    /// The file's rules index ([`crate::LayoutRules::index`]).
    #[inline]
    pub fn ri(&self) -> usize {
        usize::from(self.ri)
    }

    /// The file's byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The primitive at `off` (zero if the bytes are not there, which a view built from
    /// its class's tables never asks for).
    #[inline]
    pub fn prim<T: Scalar>(&self, off: u32) -> T {
        let o = off as usize;
        self.body
            .get(o..o + T::SIZE)
            .map_or_else(T::default, |b| T::read(b, self.endian))
    }

    /// The `ulong` at `off` (pointer-sized).
    #[inline]
    pub fn ulong(&self, off: u32) -> ULong {
        if self.ri & 4 != 0 {
            ULong(self.prim::<u64>(off))
        } else {
            ULong(u64::from(self.prim::<u32>(off)))
        }
    }

    /// The `size` bytes at `off` (a struct member or element), clipped to the body.
    #[inline]
    pub fn sub(&self, off: u32, size: u32) -> Raw<'a> {
        let s = (off as usize).min(self.body.len());
        let e = (s + size as usize).min(self.body.len());
        Raw {
            body: &self.body[s..e],
            at: self.at.plus(off),
            ..*self
        }
    }

    /// Where the pointer slot at `off` points (`None` for null, and for an import).
    #[inline]
    pub fn target(&self, off: u32) -> Option<Loc> {
        self.pf.resolve(self.at.plus(off))
    }

    /// The bytes of the string the slot at `off` names, without the NUL.
    ///
    /// # Errors
    /// A string that runs to the end of its section without a NUL.
    pub fn string(&self, off: u32) -> Result<Option<&'a [u8]>> {
        let Some(t) = self.target(off) else {
            return Ok(None);
        };
        let tail = section_data(self.pf, t.section)
            .get(t.offset as usize..)
            .unwrap_or_default();
        match memchr_zero(tail) {
            Some(n) => Ok(Some(&tail[..n])),
            None => Err(Error::unterminated(self.pf.abs(t), "string", "its section")),
        }
    }

    /// The object the slot at `off` points to, as a view of module `A`.
    ///
    /// # Errors
    /// An object whose body runs past its section.
    pub fn ptr<A: AnyViewClass<'a>>(&self, off: u32) -> Result<Option<A>> {
        self.target(off).map(|t| A::at(self.pf, t)).transpose()
    }

    /// The array of `kind` whose header is at `off`.
    ///
    /// # Errors
    /// A count whose elements do not fit the bytes left in the section, or an array kind
    /// packfiles do not have.
    pub fn array<E: ViewElem<'a>>(&self, off: u32, kind: ArrayKind) -> Result<ArrayView<'a, E>> {
        let stride = E::stride(self.ri());
        let (raw, len) = self.elements(off, kind, stride)?;
        Ok(ArrayView {
            raw,
            len,
            stride,
            _e: PhantomData,
        })
    }

    /// The elements' bytes and count of the array of `kind` at `off` whose elements are
    /// `stride` bytes (not generic: one copy whatever the element).
    fn elements(&self, off: u32, kind: ArrayKind, stride: u32) -> Result<(Raw<'a>, u32)> {
        let (data, count) = match kind {
            ArrayKind::Array | ArrayKind::Simple => {
                let p = if self.ri & 4 != 0 { 8 } else { 4 };
                let count: u32 = self.prim(off + p);
                match self.target(off) {
                    Some(d) if count > 0 => (d, count),
                    _ => return Ok((self.nothing(), 0)),
                }
            }
            ArrayKind::Rel => {
                let count = u32::from(self.prim::<u16>(off));
                let rel = u32::from(self.prim::<u16>(off + 2));
                if count == 0 {
                    return Ok((self.nothing(), 0));
                }
                (self.at.plus(off + rel), count)
            }
            ArrayKind::Rel64 | ArrayKind::RelView => {
                return Err(Error::read(ReadError::Unsupported(
                    "a tagfile-only relative array in a packfile".into(),
                ))
                .at(self.pf.abs(self.at.plus(off))))
            }
        };
        let sec = section_data(self.pf, data.section);
        let left = sec.len().saturating_sub(data.offset as usize) as u64;
        let n = u64::from(count) * u64::from(stride);
        if u64::from(count) * u64::from(stride.max(1)) > left {
            return Err(Error::count(
                self.pf.abs(self.at.plus(off)),
                u64::from(count),
                u64::from(stride),
                left,
            ));
        }
        let s = data.offset as usize;
        Ok((
            Raw {
                body: &sec[s..s + n as usize],
                at: data,
                ..*self
            },
            count,
        ))
    }

    fn nothing(&self) -> Raw<'a> {
        Raw { body: &[], ..*self }
    }

    /// The C array of `n` elements at `off`.
    #[inline]
    pub fn carray<E: ViewElem<'a>>(&self, off: u32, n: u32) -> ArrayView<'a, E> {
        let stride = E::stride(self.ri());
        let raw = self.sub(off, n * stride);
        let len = (raw.body.len() as u32)
            .checked_div(stride)
            .map_or(n, |fit| fit.min(n));
        ArrayView {
            raw,
            len,
            stride,
            _e: PhantomData,
        }
    }
}

fn memchr_zero(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == 0)
}

/// The elements of an array (or C array) of a parsed packfile.
#[derive(Clone, Copy, Debug)]
pub struct ArrayView<'a, E> {
    raw: Raw<'a>,
    len: u32,
    stride: u32,
    _e: PhantomData<fn() -> E>,
}

impl<'a, E: ViewElem<'a>> ArrayView<'a, E> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements' bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.raw.body
    }

    /// Where the first element is.
    pub fn at(&self) -> Loc {
        self.raw.at
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<E> {
        if i >= self.len as usize {
            return None;
        }
        let off = i as u32 * self.stride;
        Some(E::make(self.raw.sub(off, self.stride)))
    }

    /// Every element, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = E> + 'a {
        let raw = self.raw;
        let stride = self.stride;
        (0..self.len).map(move |i| E::make(raw.sub(i * stride, stride)))
    }
}

impl<'a, T: Scalar + ViewElem<'a>> ArrayView<'a, T> {
    /// Every element, read as one column (one byte-order match).
    pub fn to_vec(&self) -> Vec<T> {
        crate::bytes::read_column(self.raw.body, self.raw.endian)
    }

    /// Calls `f` with every element, the byte order matched once for the whole array.
    pub fn for_each(&self, mut f: impl FnMut(T)) {
        let b = self.raw.body;
        match self.raw.endian {
            Endian::Little => b.chunks_exact(T::SIZE).for_each(|c| f(T::read_le(c))),
            Endian::Big => b.chunks_exact(T::SIZE).for_each(|c| f(T::read_be(c))),
        }
    }
}

/// What an array or C-array element is in a view: primitives by value, generated views,
/// string, pointer and variant views.
pub trait ViewElem<'a>: Sized {
    /// Bytes per element under rules index `ri`.
    fn stride(ri: usize) -> u32;
    /// The element whose bytes are `raw`.
    fn make(raw: Raw<'a>) -> Self;
    /// The value at `off` in `raw` (a member accessor).
    #[inline]
    fn read_at(raw: &Raw<'a>, off: u32) -> Self {
        Self::make(raw.sub(off, Self::stride(raw.ri())))
    }
}

macro_rules! prim_view {
    ($($t:ty),*) => {$(
        impl<'a> ViewElem<'a> for $t {
            #[inline]
            fn stride(_ri: usize) -> u32 {
                <$t as Scalar>::SIZE as u32
            }
            #[inline]
            fn make(raw: Raw<'a>) -> Self {
                raw.prim::<$t>(0)
            }
            #[inline]
            fn read_at(raw: &Raw<'a>, off: u32) -> Self {
                raw.prim::<$t>(off)
            }
        }
    )*};
}

prim_view!(u8, i8, u16, i16, u32, i32, u64, i64, f32, [f32; 4], [f32; 12], [f32; 16]);

macro_rules! wrapped_view {
    ($($t:ident($inner:ty)),*) => {$(
        impl<'a> ViewElem<'a> for $t {
            #[inline]
            fn stride(_ri: usize) -> u32 {
                <$inner as Scalar>::SIZE as u32
            }
            #[inline]
            fn make(raw: Raw<'a>) -> Self {
                $t(raw.prim::<$inner>(0))
            }
            #[inline]
            fn read_at(raw: &Raw<'a>, off: u32) -> Self {
                $t(raw.prim::<$inner>(off))
            }
        }
    )*};
}

wrapped_view!(Bool(u8), Half(u16));

const fn ptr_of(ri: usize) -> u32 {
    if ri & 4 != 0 {
        8
    } else {
        4
    }
}

impl<'a> ViewElem<'a> for ULong {
    fn stride(ri: usize) -> u32 {
        ptr_of(ri)
    }
    fn make(raw: Raw<'a>) -> Self {
        raw.ulong(0)
    }
    fn read_at(raw: &Raw<'a>, off: u32) -> Self {
        raw.ulong(off)
    }
}

macro_rules! enum_view {
    ($($t:ident),*) => {$(
        impl<'a, E: HkEnum, S: Storage + Scalar + ViewElem<'a>> ViewElem<'a> for $t<E, S> {
            #[inline]
            fn stride(ri: usize) -> u32 {
                <S as ViewElem<'a>>::stride(ri)
            }
            #[inline]
            fn make(raw: Raw<'a>) -> Self {
                $t::from_raw(raw.prim::<S>(0))
            }
            #[inline]
            fn read_at(raw: &Raw<'a>, off: u32) -> Self {
                $t::from_raw(raw.prim::<S>(off))
            }
        }
    )*};
}

enum_view!(Enum, Flags);

/// A string slot in a view.
#[derive(Clone, Copy, Debug)]
pub struct StrView<'a>(pub Raw<'a>);

impl<'a> StrView<'a> {
    /// The string's bytes, without the NUL; `None` for null.
    ///
    /// # Errors
    /// A string without a NUL before the end of its section.
    pub fn get(&self) -> Result<Option<&'a [u8]>> {
        self.0.string(0)
    }
}

impl<'a> ViewElem<'a> for StrView<'a> {
    fn stride(ri: usize) -> u32 {
        ptr_of(ri)
    }
    fn make(raw: Raw<'a>) -> Self {
        StrView(raw)
    }
}

/// A pointer slot in a view, to objects viewed through module `A`'s `AnyView`.
#[derive(Debug)]
pub struct PtrView<'a, A> {
    raw: Raw<'a>,
    _a: PhantomData<fn() -> A>,
}

impl<A> Clone for PtrView<'_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for PtrView<'_, A> {}

impl<'a, A: AnyViewClass<'a>> PtrView<'a, A> {
    /// Where it points (`None` for null, and for an import).
    pub fn target(&self) -> Option<Loc> {
        self.raw.target(0)
    }

    /// The object it points to.
    ///
    /// # Errors
    /// An object whose body runs past its section.
    pub fn get(&self) -> Result<Option<A>> {
        self.raw.ptr(0)
    }
}

impl<'a, A: AnyViewClass<'a>> ViewElem<'a> for PtrView<'a, A> {
    fn stride(ri: usize) -> u32 {
        ptr_of(ri)
    }
    fn make(raw: Raw<'a>) -> Self {
        PtrView {
            raw,
            _a: PhantomData,
        }
    }
}

/// A variant slot in a view: the object and its class description.
#[derive(Clone, Copy, Debug)]
pub struct VariantView<'a>(pub Raw<'a>);

impl VariantView<'_> {
    /// Where the object pointer points.
    pub fn object(&self) -> Option<Loc> {
        self.0.target(0)
    }

    /// Where the class pointer points.
    pub fn class(&self) -> Option<Loc> {
        self.0.target(ptr_of(self.0.ri()))
    }
}

impl<'a> ViewElem<'a> for VariantView<'a> {
    fn stride(ri: usize) -> u32 {
        2 * ptr_of(ri)
    }
    fn make(raw: Raw<'a>) -> Self {
        VariantView(raw)
    }
}

/// A `void` member or element: nothing to read.
impl<'a> ViewElem<'a> for () {
    fn stride(_ri: usize) -> u32 {
        0
    }
    fn make(_raw: Raw<'a>) -> Self {}
}

/// A member with no typed form in packfiles.
impl<'a> ViewElem<'a> for super::member::Unsupported {
    fn stride(_ri: usize) -> u32 {
        0
    }
    fn make(_raw: Raw<'a>) -> Self {
        super::member::Unsupported
    }
}

/// How a traversal reads one member or element: the class's view shape as data, which
/// one runtime loop ([`traverse`]) interprets, so generated code holds a table per class
/// instead of code per member.
#[derive(Debug)]
pub enum Step {
    /// No storage.
    Void,
    /// `count` words of `width` bytes (integers, enums, reals, halfs, bools, float tuples).
    Words {
        /// Bytes per word: 1, 2, 4 or 8.
        width: u8,
        /// Words per value.
        count: u8,
    },
    /// A pointer-sized integer.
    ULong,
    /// A string slot (its string is read).
    Str,
    /// A pointer slot (its target is read, not followed).
    Ptr,
    /// A variant's two pointer slots.
    Variant,
    /// A struct of this shape.
    Struct(&'static Shape),
    /// An array of this kind and elements.
    Array(ArrayKind, &'static Step),
    /// A C array of this many elements.
    CArray(u16, &'static Step),
    /// A type with no typed form in packfiles: traversing it is an error, as reading it is.
    Unsupported,
}

/// A class as traversals see it: sizes and member offsets per rules index, and a [`Step`]
/// per member.
#[derive(Debug)]
pub struct Shape {
    /// Padded size per rules index.
    pub sizes: [u32; 8],
    /// Member offsets per rules index.
    pub offsets: [&'static [u32]; 8],
    /// One step per member, in flattened order.
    pub steps: &'static [Step],
}

impl Step {
    /// Bytes one value takes under rules index `ri`.
    fn size(&self, ri: usize) -> u32 {
        match self {
            Step::Void | Step::Unsupported => 0,
            Step::Words { width, count } => u32::from(*width) * u32::from(*count),
            Step::ULong | Step::Str | Step::Ptr => ptr_of(ri),
            Step::Variant => 2 * ptr_of(ri),
            Step::Struct(s) => s.sizes[ri],
            Step::Array(kind, _) => crate::schema::plan::array_header_size(*kind, ptr_of(ri)),
            Step::CArray(n, e) => u32::from(*n) * e.size(ri),
        }
    }
}

/// The wrapping sum of the `width`-byte words of `bytes`: the tight loop every primitive
/// column's traversal is.
#[inline]
fn fold(bytes: &[u8], width: u32, e: Endian) -> u64 {
    crate::bytes::sum_words(bytes, width as usize, e)
}

/// Reads every member of the value of `shape` in `raw` (structs and array elements
/// included, pointers read but not followed) into the checksum `acc`.
///
/// # Errors
/// A string without its NUL, an array whose elements run past its section, or a member
/// with no typed form.
pub fn traverse(raw: &Raw<'_>, shape: &Shape, acc: &mut u64) -> Result<()> {
    let ri = raw.ri();
    for (step, off) in shape.steps.iter().zip(shape.offsets[ri]) {
        step_at(raw, step, *off, acc)?;
    }
    Ok(())
}

fn step_at(raw: &Raw<'_>, step: &Step, off: u32, acc: &mut u64) -> Result<()> {
    let ri = raw.ri();
    match step {
        Step::Void => {}
        Step::Words { width, count } => {
            let w = u32::from(*width);
            let o = off as usize;
            let b = raw
                .body
                .get(o..o + (w * u32::from(*count)) as usize)
                .unwrap_or_default();
            *acc = acc.wrapping_add(fold(b, w, raw.endian));
        }
        Step::ULong => *acc = acc.wrapping_add(raw.ulong(off).0),
        Step::Str => {
            if let Some(s) = raw.string(off)? {
                *acc = acc.wrapping_add(s.len() as u64);
            }
        }
        Step::Ptr => {
            if let Some(t) = raw.target(off) {
                *acc = acc.wrapping_add(u64::from(t.offset));
            }
        }
        Step::Variant => {
            for o in [off, off + ptr_of(ri)] {
                if let Some(t) = raw.target(o) {
                    *acc = acc.wrapping_add(u64::from(t.offset));
                }
            }
        }
        Step::Struct(s) => traverse(&raw.sub(off, s.sizes[ri]), s, acc)?,
        Step::Array(kind, e) => {
            let stride = e.size(ri);
            let (els, n) = raw.elements(off, *kind, stride)?;
            elements(&els, e, n, stride, acc)?;
        }
        Step::CArray(n, e) => {
            let stride = e.size(ri);
            let n = u32::from(*n);
            elements(&raw.sub(off, n * stride), e, n, stride, acc)?;
        }
        Step::Unsupported => {
            return Err(Error::read(ReadError::Unsupported(
                "a member type with no typed form in packfiles".into(),
            ))
            .at(raw.pf.abs(raw.at.plus(off))))
        }
    }
    Ok(())
}

/// The `n` elements of `step` in `raw`: primitives as one column, the rest one by one.
fn elements(raw: &Raw<'_>, step: &Step, n: u32, stride: u32, acc: &mut u64) -> Result<()> {
    match step {
        Step::Words { width, .. } => {
            *acc = acc.wrapping_add(fold(raw.body, u32::from(*width), raw.endian));
        }
        Step::ULong => *acc = acc.wrapping_add(fold(raw.body, ptr_of(raw.ri()), raw.endian)),
        Step::Void => {}
        _ => {
            for i in 0..n {
                step_at(raw, step, i * stride, acc)?;
            }
        }
    }
    Ok(())
}

/// A view of an object of any class of one generated module (the generated `AnyView`).
pub trait AnyViewClass<'a>: Sized {
    /// The object at `loc` (a view of its class if the module generates it).
    ///
    /// # Errors
    /// A body that runs past its section.
    fn at(pf: &'a Packfile<'a>, loc: Loc) -> Result<Self>;

    /// The shape of class `name`, `None` when the module does not generate it.
    fn shape(name: &str) -> Option<&'static Shape>;
}

/// Traverses every member of every object of `pf` through module `A`'s shapes (not
/// following pointers: each object once), returning a checksum of what it read.
///
/// # Errors
/// An object of a class the module does not generate, or data that does not read.
pub fn traverse_packfile<'a, A: AnyViewClass<'a>>(pf: &'a Packfile<'a>) -> Result<u64> {
    let shapes: Vec<Option<&'static Shape>> =
        pf.class_names.iter().map(|c| A::shape(c.name)).collect();
    let ri = pf.rules().index();
    let mut acc = 0u64;
    for &(loc, n) in pf.object_table() {
        let shape = shapes.get(n as usize).copied().flatten().ok_or_else(|| {
            let name = pf.class_names.get(n as usize).map_or("?", |c| c.name);
            Error::convert(crate::error::ConvertError::Class(name.to_string())).at(pf.abs(loc))
        })?;
        traverse(&Raw::new(pf, loc, shape.sizes[ri])?, shape, &mut acc)?;
    }
    Ok(acc)
}
