//! The shape of a member's values, independent of layout rules: what a graph value of the
//! member must look like (kind, integer width and signedness, tuple length, element shape).
//! Setters and writers check values against it; [`super::plan`] adds offsets and strides.

use super::{ClassId, Member, Schema};
use crate::error::{Error, Result};
use crate::types::TypeKind;

/// The array forms a member can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// `hkArray`: pointer, size, capacity and flags.
    Array,
    /// A pointer and an `int` count.
    Simple,
    /// 2014-2016 `hkRelArray`: a `u16` count and a `u16` offset to elements after the body.
    Rel,
    /// 2022+ `hkRelArray`: an `i64` offset, an `int` size and capacity (tagfiles only).
    Rel64,
    /// `hkRelArrayView`: an `int` offset and an `int` count (tagfiles only).
    RelView,
}

/// What the values of a member (or of an array's elements) look like.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// No value (`void`, `zero`): the member's bytes stay zero.
    Void,
    /// `bool`: the stored byte.
    Bool,
    /// An integer of `bytes` bytes (char, int8 to uint64, and enum and flags storage).
    Int {
        /// Width in bytes: 1, 2, 4 or 8.
        bytes: u8,
        /// Whether negative values exist.
        signed: bool,
    },
    /// `ulong`: an unsigned integer as wide as a pointer.
    ULong,
    /// `real`.
    Real,
    /// `half`: the top 16 bits of an `f32`.
    Half,
    /// A float tuple: `vector4` and `quaternion` (4), `matrix3`, `rotation` and
    /// `qstransform` (12), `matrix4` and `transform` (16).
    Floats(u8),
    /// `pointer` and `functionpointer`.
    Pointer,
    /// `cstring` and `stringptr`.
    String,
    /// `variant`: an object pointer and a class pointer.
    Variant,
    /// A struct of this class, held by value.
    Struct(ClassId),
    /// An array of elements of the inner shape.
    Array(ArrayKind, Box<Shape>),
    /// A C array of `len` elements of the inner shape.
    CArray(u16, Box<Shape>),
    /// `homogeneousarray`: a pointer to the hkClass object describing the elements, a
    /// pointer to them and an `int` count (docs/packfile-format.md §7.8). The element
    /// class is the one that object names, so it is not part of the shape.
    Homogeneous,
    /// A type hk has no value form for (`inplacearray`, a `relptr` outside tagfiles):
    /// reading one is an error that names it.
    Unsupported(TypeKind),
}

impl Shape {
    /// The shape of member `m`'s values.
    ///
    /// # Errors
    /// A struct member naming a class the schema lacks.
    pub fn of(schema: &Schema, m: &Member) -> Result<Shape> {
        let one = Shape::of_type(schema, m.ty, m.subtype, m.element, m.class.as_deref())?;
        Ok(if m.array_size > 0 {
            Shape::CArray(m.array_size, Box::new(one))
        } else {
            one
        })
    }

    /// The shape of a value of type `ty` with sub-type `subtype` (element type of arrays,
    /// storage of enums), `element` (inner element of arrays of arrays) and `class`.
    ///
    /// # Errors
    /// A struct naming a class the schema lacks.
    pub fn of_type(
        schema: &Schema,
        ty: TypeKind,
        subtype: TypeKind,
        element: TypeKind,
        class: Option<&str>,
    ) -> Result<Shape> {
        use TypeKind as T;
        let int = |t: TypeKind| -> Option<Shape> {
            let (bytes, signed) = match t {
                T::Char | T::Int8 => (1, true),
                T::UInt8 => (1, false),
                T::Int16 => (2, true),
                T::UInt16 => (2, false),
                T::Int32 => (4, true),
                T::UInt32 => (4, false),
                T::Int64 => (8, true),
                T::UInt64 => (8, false),
                _ => return None,
            };
            Some(Shape::Int { bytes, signed })
        };
        let array = |kind: ArrayKind| -> Result<Shape> {
            let inner = Shape::of_type(schema, subtype, element, T::Void, class)?;
            Ok(Shape::Array(kind, Box::new(inner)))
        };
        Ok(match ty {
            T::Void => Shape::Void,
            T::Zero => Shape::Void,
            T::Bool => Shape::Bool,
            T::Char
            | T::Int8
            | T::UInt8
            | T::Int16
            | T::UInt16
            | T::Int32
            | T::UInt32
            | T::Int64
            | T::UInt64 => int(ty).unwrap_or(Shape::Void),
            // Enum and flags storage is the sub-type; without one, 32 bits unsigned.
            T::Enum | T::Flags => int(subtype).unwrap_or(Shape::Int {
                bytes: 4,
                signed: false,
            }),
            T::ULong => Shape::ULong,
            T::Real => Shape::Real,
            T::Half => Shape::Half,
            T::Vector4 | T::Quaternion => Shape::Floats(4),
            T::Matrix3 | T::Rotation | T::QsTransform => Shape::Floats(12),
            T::Matrix4 | T::Transform => Shape::Floats(16),
            T::Pointer | T::FunctionPointer | T::RelPtr => Shape::Pointer,
            T::CString | T::StringPtr => Shape::String,
            T::Variant => Shape::Variant,
            T::Struct => {
                let c = class.ok_or_else(|| Error::schema("a struct member names no class"))?;
                Shape::Struct(schema.require(c)?)
            }
            T::Array => array(ArrayKind::Array)?,
            T::SimpleArray => array(ArrayKind::Simple)?,
            T::RelArray => array(ArrayKind::Rel)?,
            T::RelArray64 => array(ArrayKind::Rel64)?,
            T::RelArrayView => array(ArrayKind::RelView)?,
            T::HomogeneousArray => Shape::Homogeneous,
            T::InplaceArray => Shape::Unsupported(ty),
        })
    }

    /// A short name for messages: the type as a schema spells it where one fits.
    pub fn describe(&self, schema: &Schema) -> String {
        match self {
            Shape::Void => "void".into(),
            Shape::Bool => "bool".into(),
            Shape::Int { bytes, signed } => {
                format!("{}int{}", if *signed { "" } else { "u" }, bytes * 8)
            }
            Shape::ULong => "ulong".into(),
            Shape::Real => "real".into(),
            Shape::Half => "half".into(),
            Shape::Floats(4) => "vector4".into(),
            Shape::Floats(n) => format!("{n}-float tuple"),
            Shape::Pointer => "pointer".into(),
            Shape::String => "string".into(),
            Shape::Variant => "variant".into(),
            Shape::Struct(c) => format!("struct {}", schema.name_of(*c)),
            Shape::Array(_, e) => format!("array of {}", e.describe(schema)),
            Shape::CArray(n, e) => format!("{n} × {}", e.describe(schema)),
            Shape::Homogeneous => "homogeneousarray".into(),
            Shape::Unsupported(t) => t.name().into(),
        }
    }
}
