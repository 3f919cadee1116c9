//! The engines as generated code sees them: the packfile read engine with the file's rules
//! index ([`Decoder`]), the write engine's body with typed arrays as its handles ([`Out`],
//! [`ArrRef`]), and what the runtime knows of each flattened member ([`MemberInfo`]).

use crate::error::Result;
use crate::packfile::engine::read::{ReadOptions, Reader};
use crate::packfile::engine::write::Body;
use crate::packfile::Packfile;
use crate::rules::Endian;
use crate::schema::ArrayKind;

/// The read engine and the rules index of the file being decoded: what every generated
/// decoder reads through.
#[derive(Debug)]
pub struct Decoder<'p, 'a> {
    pub(crate) r: Reader<'p, 'a>,
    pub(crate) ri: usize,
    pub(crate) endian: Endian,
}

impl<'p, 'a> Decoder<'p, 'a> {
    /// A decoder over `pf`.
    ///
    /// # Errors
    /// As [`Reader::new`]: the file is past `opts.limits` from the start.
    pub fn new(pf: &'p Packfile<'a>, opts: ReadOptions) -> Result<Self> {
        Ok(Decoder {
            r: Reader::new(pf, opts)?,
            ri: pf.rules().index(),
            endian: pf.rules().endian,
        })
    }

    /// The engine.
    #[inline]
    pub fn reader(&mut self) -> &mut Reader<'p, 'a> {
        &mut self.r
    }

    /// The rules index of the file ([`crate::LayoutRules::index`]).
    #[inline]
    pub fn ri(&self) -> usize {
        self.ri
    }

    /// The file's byte order.
    #[inline]
    pub fn endian(&self) -> Endian {
        self.endian
    }
}

/// Where generated code writes: the engine's [`Body`] with typed arrays as its handles.
pub type Out<'w, 'm> = Body<'w, 'm, ArrRef<'m>>;

/// One array's elements, type-erased for the engine (which writes them after the body that
/// names them).
pub trait Elements {
    /// Number of elements.
    fn count(&self) -> usize;
    /// Bytes from one element to the next under rules index `ri`.
    fn stride(&self, ri: usize) -> u32;
    /// Whether the elements are strings.
    fn strings(&self) -> bool;
    /// Writes the elements (offsets from the first element).
    ///
    /// # Errors
    /// A value that does not fit its element type.
    fn write<'m>(&'m self, w: &mut Out<'_, 'm>, ri: usize) -> Result<()>;
}

/// A copyable handle to one array of a typed object: what the engine keeps until it places
/// the array's elements.
#[derive(Clone, Copy)]
pub struct ArrRef<'m>(&'m dyn Elements);

impl<'m> ArrRef<'m> {
    /// A handle to the elements `v`.
    pub fn new(v: &'m dyn Elements) -> Self {
        ArrRef(v)
    }

    /// The elements.
    pub fn elements(self) -> &'m dyn Elements {
        self.0
    }
}

impl std::fmt::Debug for ArrRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ArrRef({} elements)", self.0.count())
    }
}

/// What the runtime knows of one flattened member besides its offsets: the class that
/// declares it, its name (both for errors and schema checks), and for an array its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberInfo {
    /// The declaring class.
    pub owner: &'static str,
    /// The member name.
    pub name: &'static str,
    /// The array form, for array members (`Array` otherwise, unused).
    pub kind: ArrayKind,
}

impl MemberInfo {
    /// Member `name` of `owner`, not an array (or an `hkArray`).
    pub const fn new(owner: &'static str, name: &'static str) -> Self {
        MemberInfo {
            owner,
            name,
            kind: ArrayKind::Array,
        }
    }

    /// An array member of `kind`.
    pub const fn array(owner: &'static str, name: &'static str, kind: ArrayKind) -> Self {
        MemberInfo { owner, name, kind }
    }
}

/// Every flattened member of a class, root class first.
pub type Members = &'static [MemberInfo];
