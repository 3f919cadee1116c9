//! Havok member types (`hkClassMember::Type`) by name.
//!
//! The *numbering* of these types differs between generations and lives in each schema
//! folder's `generation.toml`; this module only knows the names and what each one means for
//! layout. Numbers 0..=31 are the same in every version, later versions append
//! (docs/layout-and-signatures.md §5).

use std::fmt;

macro_rules! member_types {
    ($($variant:ident => $name:literal,)*) => {
        /// A member type, independent of any generation's numbering.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum TypeKind { $($variant,)* }

        impl TypeKind {
            /// Every type hk knows, in Havok's own order.
            pub const ALL: &'static [TypeKind] = &[$(TypeKind::$variant,)*];

            /// The schema name: Havok's `TYPE_` name without the prefix, lower case.
            pub const fn name(self) -> &'static str {
                match self { $(TypeKind::$variant => $name,)* }
            }

            /// Parses a schema name (`"pointer"`); also accepts `TYPE_POINTER`.
            pub fn from_name(name: &str) -> Option<TypeKind> {
                let n = name.strip_prefix("TYPE_").unwrap_or(name);
                $(if n.eq_ignore_ascii_case($name) { return Some(TypeKind::$variant); })*
                None
            }
        }
    };
}

member_types! {
    Void => "void",
    Bool => "bool",
    Char => "char",
    Int8 => "int8",
    UInt8 => "uint8",
    Int16 => "int16",
    UInt16 => "uint16",
    Int32 => "int32",
    UInt32 => "uint32",
    Int64 => "int64",
    UInt64 => "uint64",
    Real => "real",
    Vector4 => "vector4",
    Quaternion => "quaternion",
    Matrix3 => "matrix3",
    Rotation => "rotation",
    QsTransform => "qstransform",
    Matrix4 => "matrix4",
    Transform => "transform",
    Zero => "zero",
    Pointer => "pointer",
    FunctionPointer => "functionpointer",
    Array => "array",
    InplaceArray => "inplacearray",
    Enum => "enum",
    Struct => "struct",
    SimpleArray => "simplearray",
    HomogeneousArray => "homogeneousarray",
    Variant => "variant",
    CString => "cstring",
    ULong => "ulong",
    Flags => "flags",
    Half => "half",
    StringPtr => "stringptr",
    RelArray => "relarray",
    RelPtr => "relptr",
    RelArrayView => "relarrayview",
    RelArray64 => "relarray64",
}

impl TypeKind {
    /// Width in bytes of an integer type, used for enum and flags storage.
    pub const fn int_width(self) -> Option<u32> {
        match self {
            TypeKind::Bool | TypeKind::Char | TypeKind::Int8 | TypeKind::UInt8 => Some(1),
            TypeKind::Int16 | TypeKind::UInt16 => Some(2),
            TypeKind::Int32 | TypeKind::UInt32 => Some(4),
            TypeKind::Int64 | TypeKind::UInt64 => Some(8),
            _ => None,
        }
    }

    /// Whether the type is stored through a pointer the file fixes up.
    pub const fn is_pointer(self) -> bool {
        matches!(self, TypeKind::Pointer)
    }

    /// The types that hold the same kind of value in some generation: strings, arrays,
    /// pointers, rotations, integers of one width. A schema naming a type its generation
    /// lacks is told which of these the generation has (`stringptr` of 2010 is `cstring`
    /// in 5.5, docs/layout-and-signatures.md §5).
    pub fn kin(self) -> &'static [TypeKind] {
        use TypeKind::*;
        const FAMILIES: &[&[TypeKind]] = &[
            &[CString, StringPtr],
            &[
                Array,
                SimpleArray,
                InplaceArray,
                HomogeneousArray,
                RelArray,
                RelArray64,
                RelArrayView,
            ],
            &[Pointer, RelPtr, FunctionPointer],
            &[Quaternion, Rotation, Matrix3],
            &[Transform, QsTransform, Matrix4],
            &[Int32, UInt32, ULong],
            &[Int64, UInt64, ULong],
            &[Real, Half],
            &[Enum, Flags],
        ];
        FAMILIES
            .iter()
            .find(|f| f.contains(&self))
            .copied()
            .unwrap_or(&[])
    }
}

impl fmt::Display for TypeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Names of the member flags hk understands (`hkClassMember::FlagValues`).
///
/// The numeric values are per generation (`[member_flags]` in `generation.toml`).
pub mod flag_names {
    /// Align the member to 8 bytes.
    pub const ALIGN_8: &str = "align_8";
    /// Align the member to 16 bytes (docs/layout-and-signatures.md §3 rule 4; flag 256).
    pub const ALIGN_16: &str = "align_16";
    /// The member does not own what it points to.
    pub const NOT_OWNED: &str = "not_owned";
    /// The member is not serialized (docs/layout-and-signatures.md §4.2, rewrite 2).
    pub const SERIALIZE_IGNORED: &str = "serialize_ignored";
    /// Align the member to 32 bytes.
    pub const ALIGN_32: &str = "align_32";
}
