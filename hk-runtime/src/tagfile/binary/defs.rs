//! The header rules of each binary tagfile version and the class definitions a file
//! carries (docs/binary-tagfile-format.md §2 and §4).

/// The first eight bytes: `0xCAB00D1E`, `0xD011FACE`, little endian.
pub const MAGIC: [u8; 8] = [0x1E, 0x0D, 0xB0, 0xCA, 0xCE, 0xFA, 0x11, 0xD0];

/// Tag codes (docs/binary-tagfile-format.md §3).
pub mod tag {
    /// File information: the version and what the version adds.
    pub const FILE_INFO: i64 = 1;
    /// A class definition.
    pub const METADATA: i64 = 2;
    /// An object that later references may name (the only object tag of versions 3-5).
    pub const OBJECT_REMEMBER: i64 = 4;
    /// The end of the stream.
    pub const FILE_END: i64 = 7;
}

/// What one version of the format writes in its file information, as data: the reader
/// and writer look the version up here rather than branching on its number
/// (docs/binary-tagfile-format.md §2 measures each on the corpus).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionRules {
    /// The version number after the file-information tag.
    pub version: u32,
    /// A string naming the SDK follows the version (`hk_2014.0.5-r1`).
    pub sdk_string: bool,
    /// A predicate block follows: a `u16` maximum, a `u16` count, that many `u16`s.
    pub predicates: bool,
    /// Integer arrays start with the byte width of their elements (4 or 8).
    pub int_width: bool,
}

/// The versions hk reads and writes: 3 (FFXIV), 4 (hk_2014.0.5), 5 (hk_2014.1).
pub const VERSIONS: [VersionRules; 3] = [
    VersionRules {
        version: 3,
        sdk_string: false,
        predicates: false,
        int_width: true,
    },
    VersionRules {
        version: 4,
        sdk_string: true,
        predicates: false,
        int_width: true,
    },
    VersionRules {
        version: 5,
        sdk_string: true,
        predicates: true,
        int_width: true,
    },
];

/// The rules of `version`, if hk knows it.
pub fn rules(version: u32) -> Option<VersionRules> {
    VERSIONS.iter().copied().find(|r| r.version == version)
}

/// The basic type of a member (the low four bits of its type code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// Not stored (`+nosave` members): never present.
    Void,
    /// One raw byte.
    Byte,
    /// A signed varint.
    Int,
    /// A little-endian `f32`.
    Real,
    /// 4 floats.
    Vec4,
    /// 8 floats.
    Vec8,
    /// 12 floats.
    Vec12,
    /// 16 floats.
    Vec16,
    /// An object reference (a varint: 0 for null, else the object's number).
    Object,
    /// A struct held by value: a member bitfield and the present members.
    Struct,
    /// A string: a length and its bytes, or a reference to a string read before.
    CString,
}

impl Base {
    const ALL: [Base; 11] = [
        Base::Void,
        Base::Byte,
        Base::Int,
        Base::Real,
        Base::Vec4,
        Base::Vec8,
        Base::Vec12,
        Base::Vec16,
        Base::Object,
        Base::Struct,
        Base::CString,
    ];

    /// Floats of a vector type (4, 8, 12, 16), else 0.
    pub fn floats(self) -> usize {
        match self {
            Base::Vec4 => 4,
            Base::Vec8 => 8,
            Base::Vec12 => 12,
            Base::Vec16 => 16,
            _ => 0,
        }
    }

    /// Whether a member of this type names a class.
    pub fn has_class(self) -> bool {
        matches!(self, Base::Struct | Base::Object)
    }

    /// The fewest bytes one element of this type takes in an array: 0 for structs, whose
    /// elements take none when every column is left out (the reader's value budget bounds
    /// those).
    pub fn min_bytes(self) -> u64 {
        match self {
            Base::Struct => 0,
            Base::Real => 4,
            b if b.floats() > 0 => 4 * b.floats() as u64,
            _ => 1,
        }
    }
}

/// A member's type code: basic type, array flag (`0x10`) and tuple flag (`0x20`, with a
/// count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeCode {
    /// The basic type.
    pub base: Base,
    /// An array of `base` (a count, then the items).
    pub array: bool,
    /// A C array of this many `base` items (0: not a tuple).
    pub tuple: u32,
}

/// The array flag of a type code.
pub const ARRAY: i64 = 0x10;
/// The tuple flag of a type code.
pub const TUPLE: i64 = 0x20;

impl TypeCode {
    /// The code's basic type and flags, or `None` for bits hk does not know (a basic type
    /// past `cstring`, other flags, or both array and tuple).
    pub fn decode(code: i64) -> Option<(Base, bool, bool)> {
        if code & !0x3F != 0 || (code & ARRAY != 0 && code & TUPLE != 0) {
            return None;
        }
        let base = *Base::ALL.get((code & 0xF) as usize)?;
        Some((base, code & ARRAY != 0, code & TUPLE != 0))
    }

    /// The number written for this type.
    pub fn code(&self) -> i64 {
        let base = Base::ALL.iter().position(|b| *b == self.base).unwrap_or(0) as i64;
        base | if self.array { ARRAY } else { 0 } | if self.tuple > 0 { TUPLE } else { 0 }
    }
}

/// One member as a class definition declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemberDef {
    /// Member name.
    pub name: String,
    /// Its type.
    pub ty: TypeCode,
    /// The struct or pointed-to class (`None` for a pointer to any object).
    pub class: Option<String>,
}

/// The most members one class definition may declare: a schema numbers a class's members
/// in 16 bits.
pub const MAX_MEMBERS: usize = u16::MAX as usize;

/// One class definition (a metadata record), as the file stores it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClassDef {
    /// Class name.
    pub name: String,
    /// Class version (negative for classes Havok marks as in development).
    pub version: i32,
    /// The parent's 1-based number among the definitions, 0 for none.
    pub parent: u32,
    /// Declared members, in order.
    pub members: Vec<MemberDef>,
}
