//! Member values: leaves inline (float tuples of up to 4), arrays of primitives as typed columns,
//! structs and C arrays as value lists in member order, pointers by object id.

use std::fmt;

use crate::bytes::{read_strided, write_strided};
use crate::rules::Endian;
use crate::schema::{ClassId, Op, Shape};

/// Index of an object in [`super::Graph::objects`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u32);

/// One step from an object into its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    /// A member, by its index in the enclosing class's flattened members
    /// ([`crate::schema::Schema::members`]).
    Member(u16),
    /// An element of an array or C array.
    Index(u32),
}

/// Where a pointer points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ptr {
    /// The start of an object.
    Object(ObjectId),
    /// Something an object owns: an element of one of its arrays (e.g. an enum in another
    /// class's `declaredEnums`), by the path from the object.
    Into {
        /// The owning object.
        object: ObjectId,
        /// The path from the object to the element.
        path: Box<[Seg]>,
    },
    /// An object of another file, by the name that file exports it under.
    Import(String),
}

/// A float tuple (`vector4`, `quaternion`: 4; `matrix3`, `rotation`, `qstransform`: 12;
/// `matrix4`, `transform`: 16). Tuples of up to 4 floats are stored inline; longer ones in
/// one allocation, so that every [`Value`] stays small (a member value is written once per
/// member read, and most members are not 12- or 16-float tuples).
#[derive(Clone)]
pub struct Floats(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, v: [f32; 4] },
    Heap(Box<[f32]>),
}

impl Floats {
    /// A tuple of `values` (at most 16).
    pub fn new(values: &[f32]) -> Option<Floats> {
        match values.len() {
            n @ 0..=4 => {
                let mut v = [0.0; 4];
                v[..n].copy_from_slice(values);
                Some(Floats(Repr::Inline { len: n as u8, v }))
            }
            5..=16 => Some(Floats(Repr::Heap(values.into()))),
            _ => None,
        }
    }

    /// `n` zeros (`n` ≤ 16).
    pub fn zeros(n: u8) -> Floats {
        match n.min(16) {
            n @ 0..=4 => Floats(Repr::Inline {
                len: n,
                v: [0.0; 4],
            }),
            n => Floats(Repr::Heap(vec![0.0; usize::from(n)].into())),
        }
    }

    /// The values.
    pub fn as_slice(&self) -> &[f32] {
        match &self.0 {
            Repr::Inline { len, v } => &v[..usize::from(*len)],
            Repr::Heap(b) => b,
        }
    }

    /// The values, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        match &mut self.0 {
            Repr::Inline { len, v } => &mut v[..usize::from(*len)],
            Repr::Heap(b) => b,
        }
    }
}

impl std::ops::Deref for Floats {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for Floats {
    fn deref_mut(&mut self) -> &mut [f32] {
        self.as_mut_slice()
    }
}

impl PartialEq for Floats {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl fmt::Debug for Floats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<const N: usize> From<[f32; N]> for Floats {
    /// # Panics
    /// When `N` > 16.
    fn from(a: [f32; N]) -> Self {
        Floats::new(&a).expect("a float tuple has at most 16 values")
    }
}

/// An array's elements: a typed column for primitive elements, one typed column per member
/// for structs of primitives, values otherwise.
///
/// Equality is by element: a [`Array::Struct`] equals the [`Array::Values`] of the same
/// structs (readers store arrays of primitive structs as columns, while builders may give
/// them as values).
#[derive(Clone, Debug)]
pub enum Array {
    /// `bool` elements (stored bytes).
    Bool(Vec<u8>),
    /// `int8` and `char`.
    I8(Vec<i8>),
    /// `uint8`.
    U8(Vec<u8>),
    /// `int16`.
    I16(Vec<i16>),
    /// `uint16`.
    U16(Vec<u16>),
    /// `int32`.
    I32(Vec<i32>),
    /// `uint32`.
    U32(Vec<u32>),
    /// `int64`.
    I64(Vec<i64>),
    /// `uint64` and `ulong`.
    U64(Vec<u64>),
    /// `real`.
    Real(Vec<f32>),
    /// `half` (stored bits).
    Half(Vec<u16>),
    /// `vector4` and `quaternion`.
    Vec4(Vec<[f32; 4]>),
    /// `matrix3`, `rotation` and `qstransform`.
    Mat3(Vec<[f32; 12]>),
    /// `matrix4` and `transform`.
    Mat4(Vec<[f32; 16]>),
    /// Structs whose members are all primitives (integers, `bool`, `real`, `half`, 4-, 12-
    /// and 16-float tuples), one column per flattened member.
    Struct(StructColumns),
    /// Any other element: pointers, strings, structs, arrays.
    Values(Vec<Value>),
}

/// The elements of an array of structs of primitives, stored as one typed column per
/// flattened member of the struct class (in [`crate::schema::Schema::members`] order): a
/// large array of small structs then costs a few columns, not one value list per element.
#[derive(Clone, Debug, PartialEq)]
pub struct StructColumns {
    /// At least one, all of one length, none of them values or struct columns.
    columns: Vec<Array>,
}

impl StructColumns {
    /// The struct elements whose member `k` is element `i` of `columns[k]`: `None` unless
    /// there is at least one column, all columns have one length, and every column is a
    /// typed column (not values, not struct columns).
    pub fn new(columns: Vec<Array>) -> Option<StructColumns> {
        let n = columns.first()?.len();
        columns
            .iter()
            .all(|c| c.len() == n && !matches!(c, Array::Values(_) | Array::Struct(_)))
            .then_some(StructColumns { columns })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, Array::len)
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The columns, one per member.
    pub fn columns(&self) -> &[Array] {
        &self.columns
    }

    /// Element `i`'s member values, `None` past the end.
    pub fn row(&self, i: usize) -> Option<Vec<Value>> {
        self.columns.iter().map(|c| c.get(i)).collect()
    }

    /// Gives back the capacity past the elements.
    pub fn shrink_to_fit(&mut self) {
        self.columns.iter_mut().for_each(Array::shrink_to_fit);
    }

    /// Drops the elements from `n` on.
    pub fn truncate(&mut self, n: usize) {
        self.columns.iter_mut().for_each(|c| c.truncate(n));
    }
}

impl PartialEq for Array {
    fn eq(&self, other: &Self) -> bool {
        macro_rules! same {
            ($($col:ident),*) => {
                match (self, other) {
                    $((Array::$col(a), Array::$col(b)) => a == b,)*
                    (Array::Struct(_), _) | (_, Array::Struct(_)) => {
                        self.len() == other.len()
                            && (0..self.len()).all(|i| self.get(i) == other.get(i))
                    }
                    _ => false,
                }
            };
        }
        same!(Bool, I8, U8, I16, U16, I32, U32, I64, U64, Real, Half, Vec4, Mat3, Mat4, Values)
    }
}

/// Which [`Array`] form elements of a shape take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// [`Array::Bool`].
    Bool,
    /// [`Array::I8`].
    I8,
    /// [`Array::U8`].
    U8,
    /// [`Array::I16`].
    I16,
    /// [`Array::U16`].
    U16,
    /// [`Array::I32`].
    I32,
    /// [`Array::U32`].
    U32,
    /// [`Array::I64`].
    I64,
    /// [`Array::U64`].
    U64,
    /// [`Array::Real`].
    Real,
    /// [`Array::Half`].
    Half,
    /// [`Array::Vec4`].
    Vec4,
    /// [`Array::Mat3`].
    Mat3,
    /// [`Array::Mat4`].
    Mat4,
    /// [`Array::Values`].
    Values,
}

impl Column {
    /// The column of `bytes`-byte integers, signed or not.
    fn int(bytes: u8, signed: bool) -> Column {
        match (bytes, signed) {
            (1, true) => Column::I8,
            (1, false) => Column::U8,
            (2, true) => Column::I16,
            (2, false) => Column::U16,
            (4, true) => Column::I32,
            (4, false) => Column::U32,
            (8, true) => Column::I64,
            _ => Column::U64,
        }
    }

    /// The column elements of `shape` are stored in.
    pub fn of(shape: &Shape) -> Column {
        match shape {
            Shape::Bool => Column::Bool,
            Shape::Int { bytes, signed } => Column::int(*bytes, *signed),
            Shape::ULong => Column::U64,
            Shape::Real => Column::Real,
            Shape::Half => Column::Half,
            Shape::Floats(4) => Column::Vec4,
            Shape::Floats(12) => Column::Mat3,
            Shape::Floats(16) => Column::Mat4,
            _ => Column::Values,
        }
    }

    /// The column elements of plan operation `op` are stored in (the same as
    /// [`Column::of`] for the shape the operation came from).
    pub fn of_op(op: &Op) -> Column {
        match op {
            Op::Bool => Column::Bool,
            Op::Int { bytes, signed } => Column::int(*bytes, *signed),
            Op::ULong(_) => Column::U64,
            Op::Real => Column::Real,
            Op::Half => Column::Half,
            Op::Floats(4) => Column::Vec4,
            Op::Floats(12) => Column::Mat3,
            Op::Floats(16) => Column::Mat4,
            _ => Column::Values,
        }
    }

    /// `n` elements of this column, one at `offset` in each `stride`-byte element of
    /// `bytes` (which holds `n` elements, each with the value inside it), in byte order `e`:
    /// a member of an array of structs as a column (`None` for [`Column::Values`]).
    pub fn read_strided(
        self,
        bytes: &[u8],
        n: usize,
        stride: usize,
        offset: usize,
        e: Endian,
    ) -> Option<Array> {
        macro_rules! col {
            ($($c:ident),*) => {
                match self {
                    $(Column::$c => Array::$c(read_strided(bytes, n, stride, offset, e)),)*
                    Column::Values => return None,
                }
            };
        }
        Some(col!(
            Bool, I8, U8, I16, U16, I32, U32, I64, U64, Real, Half, Vec4, Mat3, Mat4
        ))
    }

    /// An empty array of this column, with room for `n` elements.
    pub fn with_capacity(self, n: usize) -> Array {
        match self {
            Column::Bool => Array::Bool(Vec::with_capacity(n)),
            Column::I8 => Array::I8(Vec::with_capacity(n)),
            Column::U8 => Array::U8(Vec::with_capacity(n)),
            Column::I16 => Array::I16(Vec::with_capacity(n)),
            Column::U16 => Array::U16(Vec::with_capacity(n)),
            Column::I32 => Array::I32(Vec::with_capacity(n)),
            Column::U32 => Array::U32(Vec::with_capacity(n)),
            Column::I64 => Array::I64(Vec::with_capacity(n)),
            Column::U64 => Array::U64(Vec::with_capacity(n)),
            Column::Real => Array::Real(Vec::with_capacity(n)),
            Column::Half => Array::Half(Vec::with_capacity(n)),
            Column::Vec4 => Array::Vec4(Vec::with_capacity(n)),
            Column::Mat3 => Array::Mat3(Vec::with_capacity(n)),
            Column::Mat4 => Array::Mat4(Vec::with_capacity(n)),
            Column::Values => Array::Values(Vec::with_capacity(n)),
        }
    }
}

macro_rules! for_each_column {
    ($a:expr, $v:ident => $e:expr) => {
        match $a {
            Array::Bool($v) => $e,
            Array::I8($v) => $e,
            Array::U8($v) => $e,
            Array::I16($v) => $e,
            Array::U16($v) => $e,
            Array::I32($v) => $e,
            Array::U32($v) => $e,
            Array::I64($v) => $e,
            Array::U64($v) => $e,
            Array::Real($v) => $e,
            Array::Half($v) => $e,
            Array::Vec4($v) => $e,
            Array::Mat3($v) => $e,
            Array::Mat4($v) => $e,
            Array::Struct($v) => $e,
            Array::Values($v) => $e,
        }
    };
}

impl Array {
    /// Number of elements.
    pub fn len(&self) -> usize {
        for_each_column!(self, v => v.len())
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gives back the capacity past the elements (an array built element by element).
    pub fn shrink_to_fit(&mut self) {
        for_each_column!(self, v => v.shrink_to_fit())
    }

    /// The column this array is ([`Column::Values`] for struct columns, whose elements
    /// are struct values).
    pub fn column(&self) -> Column {
        match self {
            Array::Bool(_) => Column::Bool,
            Array::I8(_) => Column::I8,
            Array::U8(_) => Column::U8,
            Array::I16(_) => Column::I16,
            Array::U16(_) => Column::U16,
            Array::I32(_) => Column::I32,
            Array::U32(_) => Column::U32,
            Array::I64(_) => Column::I64,
            Array::U64(_) => Column::U64,
            Array::Real(_) => Column::Real,
            Array::Half(_) => Column::Half,
            Array::Vec4(_) => Column::Vec4,
            Array::Mat3(_) => Column::Mat3,
            Array::Mat4(_) => Column::Mat4,
            Array::Struct(_) | Array::Values(_) => Column::Values,
        }
    }

    /// Element `i` as a value (a copy for columns), `None` past the end.
    pub fn get(&self, i: usize) -> Option<Value> {
        Some(match self {
            Array::Bool(v) => Value::Bool(*v.get(i)?),
            Array::I8(v) => Value::Int(i64::from(*v.get(i)?)),
            Array::U8(v) => Value::UInt(u64::from(*v.get(i)?)),
            Array::I16(v) => Value::Int(i64::from(*v.get(i)?)),
            Array::U16(v) => Value::UInt(u64::from(*v.get(i)?)),
            Array::I32(v) => Value::Int(i64::from(*v.get(i)?)),
            Array::U32(v) => Value::UInt(u64::from(*v.get(i)?)),
            Array::I64(v) => Value::Int(*v.get(i)?),
            Array::U64(v) => Value::UInt(*v.get(i)?),
            Array::Real(v) => Value::Real(*v.get(i)?),
            Array::Half(v) => Value::Half(*v.get(i)?),
            Array::Vec4(v) => Value::Floats(Floats::from(*v.get(i)?)),
            Array::Mat3(v) => Value::Floats(Floats::from(*v.get(i)?)),
            Array::Mat4(v) => Value::Floats(Floats::from(*v.get(i)?)),
            Array::Struct(s) => Value::Struct(s.row(i)?),
            Array::Values(v) => v.get(i)?.clone(),
        })
    }

    /// Every element as a value (copies for columns).
    pub fn to_values(&self) -> Vec<Value> {
        match self {
            Array::Values(v) => v.clone(),
            _ => (0..self.len()).filter_map(|i| self.get(i)).collect(),
        }
    }

    /// The elements as values: borrowed from a values array, copied from a column.
    pub fn elements(&self) -> std::borrow::Cow<'_, [Value]> {
        match self {
            Array::Values(v) => std::borrow::Cow::Borrowed(v),
            other => std::borrow::Cow::Owned(other.to_values()),
        }
    }

    /// The elements held as values (`Values` arrays only).
    pub fn values(&self) -> Option<&[Value]> {
        match self {
            Array::Values(v) => Some(v),
            _ => None,
        }
    }

    /// The elements held as values, mutable: `Values` arrays, and struct columns, which
    /// become values first (an edit of one member of one element needs a value to change).
    pub fn values_mut(&mut self) -> Option<&mut Vec<Value>> {
        if let Array::Struct(_) = self {
            *self = Array::Values(self.to_values());
        }
        match self {
            Array::Values(v) => Some(v),
            _ => None,
        }
    }

    /// Drops the elements from `n` on.
    pub fn truncate(&mut self, n: usize) {
        for_each_column!(self, v => v.truncate(n))
    }

    /// Writes a typed column's elements at `offset` in successive `stride`-byte elements of
    /// `out` (which holds one per element), in byte order `e`: the inverse of
    /// [`Column::read_strided`]. `false`, writing nothing, for values and struct columns, and
    /// when the elements do not fit (`bytes::write_strided`).
    pub fn write_strided(&self, out: &mut [u8], stride: usize, offset: usize, e: Endian) -> bool {
        macro_rules! col {
            ($($c:ident),*) => {
                match self {
                    $(Array::$c(v) => write_strided(v, out, stride, offset, e),)*
                    Array::Struct(_) | Array::Values(_) => false,
                }
            };
        }
        col!(Bool, I8, U8, I16, U16, I32, U32, I64, U64, Real, Half, Vec4, Mat3, Mat4)
    }
}

/// A member value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A member with no storage (`void`, `zero`), or a type hk has no value form for.
    None,
    /// `bool` (the stored byte).
    Bool(u8),
    /// Signed integers: `char`, `int8` to `int64`, signed enums and flags.
    Int(i64),
    /// Unsigned integers: `uint8` to `uint64`, `ulong`, unsigned enums and flags.
    UInt(u64),
    /// `real`.
    Real(f32),
    /// `half`: the 16 stored bits (the top half of an `f32`).
    Half(u16),
    /// A float tuple.
    Floats(Floats),
    /// `pointer` and `functionpointer`.
    Pointer(Option<Ptr>),
    /// `cstring` and `stringptr`.
    String(Option<String>),
    /// A `cstring` or `stringptr` whose bytes are not UTF-8 (e.g. Shift-JIS names in
    /// Demon's Souls files), kept as stored, without the NUL.
    Bytes(Vec<u8>),
    /// `array`, `simplearray` and the relative arrays.
    Array(Array),
    /// A struct member (or struct element): its values in the struct class's flattened
    /// member order.
    Struct(Vec<Value>),
    /// A C array (`array_size` > 0).
    CArray(Vec<Value>),
    /// `variant`: an object and the hkClass object describing it (boxed: variants are
    /// rare, and two pointers inline would double the size of every value).
    Variant(Box<VariantPtrs>),
    /// `homogeneousarray`: elements of one struct class that an hkClass object of the
    /// file describes (docs/packfile-format.md §7.8); boxed, as variants are.
    Homogeneous(Box<Homogeneous>),
}

/// A `homogeneousarray` value: the hkClass object that describes the elements, the
/// element class that object names, and the elements (structs of that class).
#[derive(Clone, Debug, PartialEq)]
pub struct Homogeneous {
    /// The hkClass object describing the elements (null only for an empty array).
    pub class: Option<Ptr>,
    /// The class of the elements, as the hkClass object names it (`None` only without a
    /// class pointer).
    pub element: Option<ClassId>,
    /// The elements, each a struct of `element`.
    pub items: Array,
}

/// The two pointers of a `variant` value.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct VariantPtrs {
    /// The object.
    pub object: Option<Ptr>,
    /// Its class description.
    pub class: Option<Ptr>,
}

impl Value {
    /// A pointer to object `id`.
    pub fn object(id: ObjectId) -> Value {
        Value::Pointer(Some(Ptr::Object(id)))
    }

    /// A string.
    pub fn text(s: &str) -> Value {
        Value::String(Some(s.to_string()))
    }

    /// A float tuple of `v`.
    ///
    /// # Panics
    /// When `v` holds more than 16 floats (no member holds more).
    pub fn floats(v: &[f32]) -> Value {
        Value::Floats(Floats::new(v).expect("at most 16 floats"))
    }

    /// An array of `v` (which [`crate::graph::check::normalize`] and the setters store in the
    /// column its member's elements take).
    pub fn list(v: Vec<Value>) -> Value {
        Value::Array(Array::Values(v))
    }
    /// A `variant` value.
    pub fn variant(object: Option<Ptr>, class: Option<Ptr>) -> Value {
        Value::Variant(Box::new(VariantPtrs { object, class }))
    }

    /// A `homogeneousarray` value.
    pub fn homogeneous(class: Option<Ptr>, element: Option<ClassId>, items: Array) -> Value {
        Value::Homogeneous(Box::new(Homogeneous {
            class,
            element,
            items,
        }))
    }

    /// A short description of the value's kind for messages (`an int`, `3 floats`).
    pub fn describe(&self) -> String {
        match self {
            Value::None => "no value".into(),
            Value::Bool(b) => format!("bool {b}"),
            Value::Int(i) => format!("the integer {i}"),
            Value::UInt(u) => format!("the integer {u}"),
            Value::Real(f) => format!("the float {f}"),
            Value::Half(h) => format!("the half 0x{h:04X}"),
            Value::Floats(f) => format!("{} floats", f.len()),
            Value::Pointer(None) => "a null pointer".into(),
            Value::Pointer(Some(Ptr::Object(o))) => format!("a pointer to object #{}", o.0),
            Value::Pointer(Some(_)) => "a pointer".into(),
            Value::String(None) => "a null string".into(),
            Value::String(Some(s)) => {
                let mut s = format!("the string {s:?}");
                if s.len() > 40 {
                    let cut = (0..=37).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                    s.truncate(cut);
                    s.push('…');
                }
                s
            }
            Value::Bytes(b) => format!("{} string bytes", b.len()),
            Value::Array(a) => format!("an array of {}", a.len()),
            Value::Struct(v) => format!("a struct of {} members", v.len()),
            Value::CArray(v) => format!("a C array of {}", v.len()),
            Value::Variant(_) => "a variant".into(),
            Value::Homogeneous(h) => format!("a homogeneous array of {}", h.items.len()),
        }
    }

    /// The integer, whichever sign it was read with (`None` for other kinds, and for a
    /// `UInt` above `i64::MAX`).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::UInt(u) => i64::try_from(*u).ok(),
            _ => None,
        }
    }

    /// The integer as unsigned (`None` for other kinds and negative values).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Int(i) => u64::try_from(*i).ok(),
            Value::UInt(u) => Some(*u),
            _ => None,
        }
    }

    /// The `real`.
    pub fn as_f32(&self) -> Option<f32> {
        match self {
            Value::Real(f) => Some(*f),
            _ => None,
        }
    }

    /// The float tuple.
    pub fn as_floats(&self) -> Option<&[f32]> {
        match self {
            Value::Floats(f) => Some(f),
            _ => None,
        }
    }

    /// The text of a UTF-8 string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(Some(s)) => Some(s),
            _ => None,
        }
    }

    /// The array.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array, mutable.
    pub fn as_array_mut(&mut self) -> Option<&mut Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The pointer's target (`None` for null and other kinds).
    pub fn as_ptr(&self) -> Option<&Ptr> {
        match self {
            Value::Pointer(Some(p)) => Some(p),
            _ => None,
        }
    }

    /// The struct's, C array's or values array's values (`None` for struct columns: see
    /// [`Array::elements`]).
    pub fn as_values(&self) -> Option<&[Value]> {
        match self {
            Value::Struct(v) | Value::CArray(v) => Some(v),
            Value::Array(Array::Values(v)) => Some(v),
            _ => None,
        }
    }

    /// The struct's, C array's or array's values, mutable (struct columns become values,
    /// [`Array::values_mut`]).
    pub fn as_values_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Struct(v) | Value::CArray(v) => Some(v),
            Value::Array(a @ (Array::Values(_) | Array::Struct(_))) => a.values_mut(),
            _ => None,
        }
    }
}

impl From<ObjectId> for Value {
    fn from(id: ObjectId) -> Self {
        Value::Pointer(Some(Ptr::Object(id)))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(Some(s.to_string()))
    }
}

impl From<f32> for Value {
    fn from(f: f32) -> Self {
        Value::Real(f)
    }
}

impl From<Array> for Value {
    fn from(a: Array) -> Self {
        Value::Array(a)
    }
}

impl<const N: usize> From<[f32; N]> for Value {
    /// # Panics
    /// When `N` > 16.
    fn from(a: [f32; N]) -> Self {
        Value::Floats(Floats::from(a))
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    /// Every member read writes one `Value`; keep it small (it was 72 bytes with 16 floats
    /// inline).
    #[test]
    fn values_stay_small() {
        assert!(
            std::mem::size_of::<Value>() <= 40,
            "{}",
            std::mem::size_of::<Value>()
        );
        assert_eq!(Floats::new(&[1.0; 12]).map(|f| f.len()), Some(12));
        assert_eq!(Floats::zeros(16).as_slice(), &[0.0; 16]);
        assert_eq!(Floats::new(&[2.0; 3]).as_deref(), Some(&[2.0f32; 3][..]));
        assert!(Floats::new(&[0.0; 17]).is_none());
    }
}
