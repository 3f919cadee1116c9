//! Writing typed objects through the packfile write engine ([`crate::packfile::engine::write`]):
//! a [`TypedFile`] is a [`Model`], so placement, padding, fixups, the class-name section
//! and the headers are the engine's, and the bytes are those the dynamic graph of the same
//! objects writes.

pub use super::engine::{ArrRef, Elements, Out};

use super::class::{AnyClass, TypedFile};
use super::engine::Members;
use super::member::Field;
use crate::error::{Error, Result, WriteError};
use crate::graph::{ObjectId, Ptr, Seg};
use crate::packfile::engine::write::{self, Body, Model};

/// Writes the members of a class, `fields` in flattened order, at `base` plus `offsets`
/// (the class's table for rules index `ri`), each inside its member path and named in
/// errors by `members`. What every generated encoder calls.
///
/// # Errors
/// A value that does not fit its member, with the member's name.
pub fn fields<'m>(
    w: &mut Out<'_, 'm>,
    base: u32,
    ri: usize,
    offsets: &[u32],
    members: Members,
    fields: &[&'m dyn Field],
) -> Result<()> {
    if fields.len() != offsets.len() || fields.len() != members.len() {
        return Err(Error::schema(
            "a class's fields and layout tables have different lengths",
        ));
    }
    for (i, ((f, off), m)) in fields.iter().zip(offsets).zip(members).enumerate() {
        w.enter(Seg::Member(i as u16));
        f.encode_field(w, base + off, ri, m.kind)
            .map_err(|e| e.in_member(m.owner, m.name))?;
        w.leave();
    }
    Ok(())
}

/// A typed file as the write engine sees it.
struct TypedModel<'f, A> {
    file: &'f TypedFile<A>,
    ri: usize,
}

impl<A: AnyClass> Model for TypedModel<'_, A> {
    type Arr<'m>
        = ArrRef<'m>
    where
        Self: 'm;

    fn len(&self) -> usize {
        self.file.objects.len()
    }

    fn root(&self) -> ObjectId {
        self.file.root
    }

    fn class_name(&self, id: ObjectId) -> &str {
        self.file
            .objects
            .get(id.0 as usize)
            .map_or("?", AnyClass::class_name)
    }

    fn body_size(&self, id: ObjectId) -> Result<u32> {
        self.file
            .objects
            .get(id.0 as usize)
            .map(|o| o.body_size(self.ri))
            .ok_or_else(|| Error::write(WriteError::MissingObject(u64::from(id.0))))
    }

    fn write_object<'m>(&'m self, id: ObjectId, w: &mut Body<'_, 'm, ArrRef<'m>>) -> Result<()> {
        let o = self
            .file
            .objects
            .get(id.0 as usize)
            .ok_or_else(|| Error::write(WriteError::MissingObject(u64::from(id.0))))?;
        o.encode(w, self.ri)
    }

    fn arr_len(&self, a: ArrRef<'_>) -> usize {
        a.elements().count()
    }

    fn arr_stride(&self, a: ArrRef<'_>) -> u32 {
        a.elements().stride(self.ri)
    }

    fn arr_strings(&self, a: ArrRef<'_>) -> bool {
        a.elements().strings()
    }

    fn write_elements<'m>(&'m self, a: ArrRef<'m>, w: &mut Body<'_, 'm, ArrRef<'m>>) -> Result<()> {
        a.elements().write(w, self.ri)
    }

    fn signature(&self, name: &str) -> Result<u32> {
        A::signature(name).ok_or_else(|| Error::missing_class(name))
    }

    fn interior_targets(&self) -> Vec<(ObjectId, Box<[Seg]>)> {
        let mut out = Vec::new();
        for o in &self.file.objects {
            o.each_ptr(&mut |p| {
                if let Ptr::Into { object, path } = p {
                    out.push((*object, path.clone()));
                }
            });
        }
        out
    }
}

/// Writes `file` as a packfile with its container facts.
///
/// # Errors
/// As [`write::write`].
pub fn write_file<A: AnyClass>(file: &TypedFile<A>) -> Result<Vec<u8>> {
    let model = TypedModel {
        file,
        ri: file.info.layout.index(),
    };
    write::write(&model, &file.info, A::STRING_ALIGN)
}
