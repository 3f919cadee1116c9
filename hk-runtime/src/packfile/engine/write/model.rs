//! What a model writes through: the [`Model`] trait the engine writes, and the [`Body`] a
//! model writes each object body and array into, which records the slots the engine places
//! afterwards.

use crate::bytes::Scalar;
use crate::error::{Error, Result, WriteError};
use crate::graph::{ObjectId, Ptr, Seg};
use crate::packfile::header::DONT_DEALLOCATE;
use crate::packfile::info::PackfileInfo;
use crate::rules::Endian;
use crate::schema::ArrayKind;

/// An object model the engine writes: objects by id, each writing its body through a
/// [`Body`], and arrays as copyable handles the engine asks to write their elements later.
pub trait Model {
    /// A handle to one array's elements.
    type Arr<'m>: Copy
    where
        Self: 'm;

    /// Number of objects (ids are `0..len`).
    fn len(&self) -> usize;

    /// Whether there are no objects.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The root object.
    fn root(&self) -> ObjectId;

    /// The class name of object `id`.
    fn class_name(&self, id: ObjectId) -> &str;

    /// The size of object `id`'s body under the writer's rules.
    ///
    /// # Errors
    /// A class the model cannot lay out.
    fn body_size(&self, id: ObjectId) -> Result<u32>;

    /// Writes object `id`'s members into `w` (offsets from the body's start).
    ///
    /// # Errors
    /// A value that does not fit its member.
    fn write_object<'m>(&'m self, id: ObjectId, w: &mut Body<'_, 'm, Self::Arr<'m>>) -> Result<()>;

    /// Elements in the array.
    fn arr_len(&self, a: Self::Arr<'_>) -> usize;

    /// Bytes from one element to the next.
    fn arr_stride(&self, a: Self::Arr<'_>) -> u32;

    /// Whether the elements are strings (their data is packed, see [`Body::string`]).
    fn arr_strings(&self, a: Self::Arr<'_>) -> bool;

    /// Writes the array's elements into `w` (offsets from the first element's start).
    ///
    /// # Errors
    /// A value that does not fit its element type.
    fn write_elements<'m>(
        &'m self,
        a: Self::Arr<'m>,
        w: &mut Body<'_, 'm, Self::Arr<'m>>,
    ) -> Result<()>;

    /// The signature stored beside class `name` in the class-name section.
    ///
    /// # Errors
    /// A class the model cannot describe.
    fn signature(&self, name: &str) -> Result<u32>;

    /// Every place an interior pointer ([`Ptr::Into`]) of the model names.
    fn interior_targets(&self) -> Vec<(ObjectId, Box<[Seg]>)>;

    /// A path into object `id` as errors show it (`bones[2].name`); without member names,
    /// `member4[2]`.
    fn path_text(&self, id: ObjectId, path: &[Seg]) -> String {
        let _ = id;
        let mut s = String::new();
        for seg in path {
            match seg {
                Seg::Member(i) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(&format!("member{i}"));
                }
                Seg::Index(k) => s.push_str(&format!("[{k}]")),
            }
        }
        s
    }

    /// About how many bytes the file will take (the output buffer is reserved once).
    fn size_hint(&self) -> usize {
        0
    }

    /// Names the member an array belongs to (`hkaSkeleton.bones`), for errors in its
    /// elements, which are written after the body they belong to.
    fn arr_context(&self, a: Self::Arr<'_>) -> String {
        let _ = a;
        String::new()
    }

    /// Appends the elements of an array that names no slots (a column of primitives)
    /// to `out` in byte order `e`, and says so; `None` leaves them to
    /// [`Model::write_elements`].
    ///
    /// # Errors
    /// A value that does not fit its element type.
    fn append_elements(
        &self,
        a: Self::Arr<'_>,
        out: &mut Vec<u8>,
        e: Endian,
    ) -> Option<Result<()>> {
        let _ = (a, out, e);
        None
    }
}

/// A slot met while writing a body or an array's elements.
pub(super) enum Slot<'m, A> {
    String {
        at: u32,
        bytes: &'m [u8],
    },
    Ptr {
        at: u32,
        target: &'m Ptr,
    },
    Array {
        at: u32,
        arr: A,
        path: Option<Box<[Seg]>>,
    },
    Rel {
        at: u32,
        arr: A,
        path: Option<Box<[Seg]>>,
    },
}

impl<A> Slot<'_, A> {
    pub(super) fn at(&self) -> u32 {
        match self {
            Slot::String { at, .. }
            | Slot::Ptr { at, .. }
            | Slot::Array { at, .. }
            | Slot::Rel { at, .. } => *at,
        }
    }
}

/// Where a body or an array's elements are being written: the model writes values at
/// offsets from `base`, and names its slots, which the engine places afterwards.
pub struct Body<'w, 'm, A> {
    pub(super) data: &'w mut Vec<u8>,
    /// Where the body (or first element) starts in `data`.
    pub(super) base: u32,
    /// Where its section starts in `data`: slots are recorded section-relative.
    pub(super) origin: u32,
    pub(super) endian: Endian,
    pub(super) ptr: u32,
    pub(super) slots: &'w mut Vec<Slot<'m, A>>,
    pub(super) path: &'w mut Vec<Seg>,
    pub(super) cx: &'w Context<'w>,
    pub(super) erased: &'w mut usize,
}

impl<A> std::fmt::Debug for Body<'_, '_, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Body")
            .field("base", &self.base)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// What the engine knows while writing one object.
pub(super) struct Context<'w> {
    pub(super) object: ObjectId,
    pub(super) info: &'w PackfileInfo,
    pub(super) track: bool,
}

impl<'m, A: Copy> Body<'_, 'm, A> {
    /// The pointer size under the writer's rules.
    pub fn ptr(&self) -> u32 {
        self.ptr
    }

    /// The byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The bytes from `off` (relative to the body) for `n` bytes.
    ///
    /// # Errors
    /// When they lie outside the body (a model whose offsets do not fit its size).
    pub fn bytes_mut(&mut self, off: u32, n: usize) -> Result<&mut [u8]> {
        let a = self.base as usize + off as usize;
        let len = self.data.len();
        self.data.get_mut(a..a + n).ok_or_else(|| {
            Error::write(WriteError::Invalid(format!(
                "{n} bytes at +0x{off:X} fall outside the {} bytes being written",
                len - self.base as usize
            )))
        })
    }

    /// Writes `v` at `off`.
    ///
    /// # Errors
    /// As [`Body::bytes_mut`].
    #[inline]
    pub fn put<T: Scalar>(&mut self, off: u32, v: T) -> Result<()> {
        let e = self.endian;
        v.write(self.bytes_mut(off, T::SIZE)?, e);
        Ok(())
    }

    /// Writes the low `width` bytes of `v` at `off` (the caller checked that it fits).
    ///
    /// # Errors
    /// As [`Body::bytes_mut`].
    pub fn put_uint(&mut self, off: u32, v: u64, width: u8) -> Result<()> {
        match width {
            1 => self.put(off, v as u8),
            2 => self.put(off, v as u16),
            4 => self.put(off, v as u32),
            _ => self.put(off, v),
        }
    }

    /// Enters member or element `seg` (kept for array capacity flags and interior
    /// pointers).
    #[inline]
    pub fn enter(&mut self, seg: Seg) {
        self.path.push(seg);
    }

    /// Leaves the innermost member or element.
    #[inline]
    pub fn leave(&mut self) {
        self.path.pop();
    }

    /// A pointer slot at `off` naming `target`.
    pub fn pointer(&mut self, off: u32, target: &'m Ptr) {
        self.slots.push(Slot::Ptr {
            at: self.base - self.origin + off,
            target,
        });
    }

    /// A string slot at `off` naming `bytes` (without the NUL).
    pub fn string(&mut self, off: u32, bytes: &'m [u8]) {
        self.slots.push(Slot::String {
            at: self.base - self.origin + off,
            bytes,
        });
    }

    /// A variant at `off`: its object pointer, then its class pointer. An object whose
    /// class description is not in the file keeps an erased global fixup (havoklib-550/660:
    /// two all-0xFF records for the root container's two named variants).
    pub fn variant(&mut self, off: u32, object: Option<&'m Ptr>, class: Option<&'m Ptr>) {
        if let Some(p) = object {
            self.pointer(off, p);
            if class.is_none() {
                *self.erased += 1;
            }
        }
        if let Some(p) = class {
            self.pointer(off + self.ptr, p);
        }
    }

    /// An array of `kind` at `off` holding `len` elements of `arr`: its header now, its
    /// elements when the engine places the data the body owns.
    ///
    /// # Errors
    /// A relative array of more than 65,535 elements, or a header outside the body.
    pub fn array(&mut self, off: u32, kind: ArrayKind, arr: A, len: usize) -> Result<()> {
        let path = (self.cx.track && len > 0).then(|| self.path.as_slice().into());
        let at = self.base - self.origin + off;
        match kind {
            ArrayKind::Array | ArrayKind::Simple => {
                let n = u32::try_from(len).map_err(|_| {
                    Error::write(WriteError::TooLarge(format!(
                        "an array of {len} elements (a packfile array holds at most 2^32 - 1)"
                    )))
                })?;
                let p = self.ptr;
                self.put(off + p, n)?;
                if kind == ArrayKind::Array {
                    let flags = self.capacity_flags();
                    if n & flags != 0 {
                        return Err(Error::write(WriteError::TooLarge(format!(
                            "an array of {len} elements (the capacity word keeps its top two bits for flags)"
                        ))));
                    }
                    self.put(off + p + 4, n | flags)?;
                }
                if n > 0 {
                    self.slots.push(Slot::Array { at, arr, path });
                }
            }
            ArrayKind::Rel => {
                let n = u16::try_from(len).map_err(|_| {
                    Error::write(WriteError::TooLarge(format!(
                        "a relative array of {len} elements (it holds at most 65,535)"
                    )))
                })?;
                self.put(off, n)?;
                if n > 0 {
                    self.slots.push(Slot::Rel { at, arr, path });
                }
            }
            ArrayKind::Rel64 | ArrayKind::RelView => {
                return Err(Error::write(WriteError::Invalid(
                    "64-bit relative arrays and relative views exist only in tagfiles".into(),
                )))
            }
        }
        Ok(())
    }

    fn capacity_flags(&self) -> u32 {
        let flags = &self.cx.info.capacity_flags;
        if flags.is_empty() {
            return DONT_DEALLOCATE;
        }
        flags
            .get(&(self.cx.object, self.path.as_slice().into()))
            .copied()
            .unwrap_or(DONT_DEALLOCATE)
    }
}
