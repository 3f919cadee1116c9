//! The traits generated classes implement ([`HkClass`], [`Class`], and [`AnyClass`] for a
//! module's `AnyObject`), the typed file they make up ([`TypedFile`]), and [`Member`] for
//! every class, so that a class is a struct member and an array element too.

use super::engine::{Decoder, Members, Out};
use super::member::{field, Member};
use crate::error::Result;
use crate::graph::{Object, ObjectId, Ptr, Seg, Value};
use crate::packfile::{Loc, PackfileInfo};
use crate::rules::LayoutRules;
use crate::schema::{ArrayKind, ClassId, Schema};

/// A class generated from a schema (or checked against one by `#[derive(HkClass)]`): its
/// name, signature and version, known at compile time.
pub trait HkClass: Sized + 'static {
    /// Class name.
    const NAME: &'static str;
    /// The signature a writer stores: computed from the schema at compile time, or pinned
    /// by it.
    const SIGNATURE: u32;
    /// `hkClass::describedVersion`.
    const VERSION: u32;
}

/// The codec of a class: its layout tables per rules (indexed by [`LayoutRules::index`]) and
/// its members, read and written in flattened member order ([`Schema::members`]).
///
/// Generated code stays small: each method hands the runtime the class's tables and its
/// fields as `&dyn Field` in member order, and one runtime loop does the rest.
pub trait Class: HkClass + Default {
    /// Padded size per rules index.
    const SIZES: [u32; 8];
    /// Byte ranges of the body no member covers (padding that must be zero), per rules
    /// index: the plan's `gaps`.
    const GAPS: [&'static [(u32, u32)]; 8];
    /// Flattened members: declaring class, name, array kind.
    const MEMBERS: Members;
    /// Whether a value of the class can hold a pointer (so walks over arrays of it can be
    /// skipped when not).
    const PTRS: bool;

    /// Member offsets under rules index `ri`, in [`Class::MEMBERS`] order.
    fn offsets(ri: usize) -> &'static [u32];

    /// Reads the members from `body` (read at `at`) into `self`, the member list nested
    /// `depth` deep.
    ///
    /// # Errors
    /// As the dynamic reader: a broken invariant, data past its section, nesting too deep.
    fn decode_fields(
        &mut self,
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        at: Loc,
        depth: usize,
    ) -> Result<()>;

    /// The class read from `body` (read at `at`), the member list nested `depth` deep.
    ///
    /// # Errors
    /// As [`Class::decode_fields`].
    fn decode_members(d: &mut Decoder<'_, '_>, body: &[u8], at: Loc, depth: usize) -> Result<Self> {
        let mut s = Self::default();
        s.decode_fields(d, body, at, depth)?;
        Ok(s)
    }

    /// Writes the members at `base` (relative to what `w` writes) under rules index `ri`.
    ///
    /// # Errors
    /// A value that does not fit its member.
    fn encode_members<'m>(&'m self, w: &mut Out<'_, 'm>, base: u32, ri: usize) -> Result<()>;

    /// The pointer slot at member path `path` (`class`: a variant's class pointer rather
    /// than its object pointer), for interior pointers resolved after the read. Classes
    /// without pointers keep the default (none).
    fn slot_mut(&mut self, _path: &[Seg], _class: bool) -> Option<&mut Option<Ptr>> {
        None
    }

    /// Calls `f` with every pointer the value holds. Classes without pointers keep the
    /// default (none).
    fn each_ptr(&self, _f: &mut dyn FnMut(&Ptr)) {}

    /// The values in flattened member order, as the dynamic reader produces them.
    ///
    /// # Errors
    /// Never for values that came from a file; kept fallible like every conversion.
    fn to_values(&self) -> Result<Vec<Value>>;

    /// Sets the members from values in flattened member order.
    ///
    /// # Errors
    /// A wrong number of values, or a value of another kind or out of range (a
    /// [`crate::error::ConvertError`] naming the member).
    fn set_values(&mut self, values: &[Value]) -> Result<()>;

    /// The class from values in flattened member order.
    ///
    /// # Errors
    /// As [`Class::set_values`].
    fn from_values(values: &[Value]) -> Result<Self> {
        let mut s = Self::default();
        s.set_values(values)?;
        Ok(s)
    }

    /// Checks that `schema` describes the class as it was generated: the class exists, and
    /// its flattened members have the generated names in the generated order; then the
    /// classes of its struct members and struct elements, unless `seen` holds them.
    ///
    /// # Errors
    /// A [`crate::error::ConvertError::Schema`] saying what differs.
    fn check_schema_in(schema: &Schema, seen: &mut Vec<&'static str>) -> Result<ClassId>;

    /// As [`Class::check_schema_in`], from scratch.
    ///
    /// # Errors
    /// As [`Class::check_schema_in`].
    fn check_schema(schema: &Schema) -> Result<ClassId> {
        Self::check_schema_in(schema, &mut Vec::new())
    }

    /// Padded size under `rules`.
    fn size(rules: LayoutRules) -> u32 {
        Self::SIZES[rules.index()]
    }
}

/// A class held by value in another (a struct member or array element).
impl<C: Class> Member for C {
    const PTRS: bool = C::PTRS;
    #[inline]
    fn size(ri: usize) -> u32 {
        C::SIZES[ri]
    }
    #[inline]
    fn gaps(ri: usize) -> &'static [(u32, u32)] {
        C::GAPS[ri]
    }
    #[inline]
    fn decode(
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
    ) -> Result<Self> {
        decode_struct::<C>(d, body, off, at, depth)
    }
    #[inline]
    fn decode_in_place(
        &mut self,
        d: &mut Decoder<'_, '_>,
        body: &[u8],
        off: u32,
        at: Loc,
        depth: usize,
        _kind: ArrayKind,
    ) -> Result<()> {
        decode_struct_into(self, d, body, off, at, depth)
    }
    #[inline]
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, off: u32, ri: usize) -> Result<()> {
        self.encode_members(w, off, ri)
    }
    fn slot_mut(&mut self, path: &[Seg], class: bool) -> Option<&mut Option<Ptr>> {
        Class::slot_mut(self, path, class)
    }
    fn each_ptr(&self, f: &mut dyn FnMut(&Ptr)) {
        Class::each_ptr(self, f)
    }
    #[inline]
    fn to_value(&self) -> Result<Value> {
        struct_to_value(self)
    }
    #[inline]
    fn from_value(v: &Value) -> Result<Self> {
        struct_from_value(v)
    }
    #[inline]
    fn set_from(&mut self, v: &Value) -> Result<()> {
        struct_set(self, v)
    }
}

/// An object of any class of one generated module (the generated `AnyObject` enum): what a
/// [`TypedFile`] holds.
pub trait AnyClass: Sized + 'static {
    /// Alignment of strings that follow other data (the generation's `[packfile]` rule).
    const STRING_ALIGN: u32;

    /// The decoder of class `name`, or `None` when the module does not generate it.
    fn decoder(name: &str) -> Option<DecodeFn<Self>>;

    /// The class name.
    fn class_name(&self) -> &'static str;

    /// Body size under rules index `ri`.
    fn body_size(&self, ri: usize) -> u32;

    /// Writes the object's members.
    ///
    /// # Errors
    /// A value that does not fit its member.
    fn encode<'m>(&'m self, w: &mut Out<'_, 'm>, ri: usize) -> Result<()>;

    /// As [`Class::slot_mut`].
    fn slot_mut(&mut self, path: &[Seg], class: bool) -> Option<&mut Option<Ptr>>;

    /// As [`Class::each_ptr`].
    fn each_ptr(&self, f: &mut dyn FnMut(&Ptr));

    /// The signature of class `name` (any class of the module, and the reflection classes
    /// a packfile names), computed at compile time.
    fn signature(name: &str) -> Option<u32>;

    /// The object as a graph object of `schema`.
    ///
    /// # Errors
    /// A schema that describes the class differently.
    fn to_object(&self, schema: &Schema) -> Result<Object>;

    /// A graph object of `schema` as a typed object.
    ///
    /// # Errors
    /// A class the module does not generate, a schema that describes it differently, or a
    /// value that does not fit.
    fn from_object(schema: &Schema, o: &Object) -> Result<Self>;
}

/// How a generated module decodes one class at a location.
pub type DecodeFn<A> = fn(&mut Decoder<'_, '_>, Loc) -> Result<A>;

/// A packfile decoded into typed objects: the objects by id (the ids of the file's object
/// table, as the dynamic reader numbers them), the root, and the container facts that
/// writing it back needs.
#[derive(Clone, Debug, PartialEq)]
pub struct TypedFile<A> {
    /// The objects.
    pub objects: Vec<A>,
    /// The root object.
    pub root: ObjectId,
    /// Header fields, sections, class-name order, exports, object sections and capacity
    /// flags.
    pub info: PackfileInfo,
}

/// Reads a struct member of class `C` at `off` in `body` (read at `at`), as the dynamic
/// reader's `Struct` operation: one level deeper than its member list.
///
/// # Errors
/// As the dynamic reader.
#[inline]
pub fn decode_struct<C: Class>(
    d: &mut Decoder<'_, '_>,
    body: &[u8],
    off: u32,
    at: Loc,
    depth: usize,
) -> Result<C> {
    let size = C::SIZES[d.ri];
    let sub = field(body, off, size as usize)?;
    C::decode_members(d, sub, at.plus(off), depth + 1)
}

/// Reads a struct member of class `C` at `off` in `body` (read at `at`) into `v`, in place.
///
/// # Errors
/// As the dynamic reader.
pub fn decode_struct_into<C: Class>(
    v: &mut C,
    d: &mut Decoder<'_, '_>,
    body: &[u8],
    off: u32,
    at: Loc,
    depth: usize,
) -> Result<()> {
    let size = C::SIZES[d.ri];
    let sub = field(body, off, size as usize)?;
    v.decode_fields(d, sub, at.plus(off), depth + 1)
}

/// A struct member's value from a graph value.
///
/// # Errors
/// A value that is not a struct, or whose members do not convert.
#[inline(never)]
pub fn struct_from_value<C: Class>(v: &Value) -> Result<C> {
    match v {
        Value::Struct(values) => C::from_values(values),
        _ => Err(super::member::kind("a struct", v)),
    }
}

/// Sets a struct member from a graph value, in place.
///
/// # Errors
/// A value that is not a struct, or whose members do not convert.
#[inline(never)]
pub fn struct_set<C: Class>(x: &mut C, v: &Value) -> Result<()> {
    match v {
        Value::Struct(values) => x.set_values(values),
        _ => Err(super::member::kind("a struct", v)),
    }
}

/// A struct member's graph value.
///
/// # Errors
/// As [`Class::to_values`].
#[inline(never)]
pub fn struct_to_value<C: Class>(x: &C) -> Result<Value> {
    x.to_values().map(Value::Struct)
}
