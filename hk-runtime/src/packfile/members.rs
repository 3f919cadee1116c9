//! Reading an object's members by name, at the offsets the layout engine gives.

use std::collections::HashMap;

use super::{Loc, Packfile};
use crate::error::{Error, Result};
use crate::schema::layout::{Layouts, MemberLayout};
use crate::schema::names::{self, NameKind};
use crate::schema::Member;
use crate::types::TypeKind;

/// Typed access to the members of one object of a packfile.
pub(crate) struct View<'p, 's, 'a> {
    pf: &'p Packfile<'a>,
    at: Loc,
    class: String,
    members: HashMap<&'s str, (&'s Member, MemberLayout)>,
}

impl<'p, 's, 'a> View<'p, 's, 'a> {
    /// A view of the object of class `class` at `at`.
    pub(crate) fn new(
        pf: &'p Packfile<'a>,
        layouts: &mut Layouts<'s>,
        class: &str,
        at: Loc,
    ) -> Result<Self> {
        let members = layouts
            .flattened(class)?
            .iter()
            .map(|&(_, m, l)| (m.name.as_str(), (m, l)))
            .collect();
        Ok(View {
            pf,
            at,
            class: class.to_string(),
            members,
        })
    }

    fn member(&self, name: &str) -> Result<(&'s Member, MemberLayout)> {
        self.members
            .get(name)
            .copied()
            .ok_or_else(|| Error::schema(format!("class `{}` has no member `{name}`", self.class)))
    }

    fn slot(&self, name: &str) -> Result<Loc> {
        let (_, l) = self.member(name)?;
        Ok(Loc {
            section: self.at.section,
            offset: self.at.offset + l.offset,
        })
    }

    /// `e` located at this object and member.
    pub(crate) fn err(&self, name: &str, e: Error) -> Error {
        e.at(self.pf.abs(self.at)).in_member(&self.class, name)
    }

    /// An integer, enum or flags member, sign-extended by its type.
    pub(crate) fn int(&self, name: &str) -> Result<i64> {
        let (m, l) = self.member(name)?;
        let ty = if matches!(m.ty, TypeKind::Enum | TypeKind::Flags) {
            m.subtype
        } else {
            m.ty
        };
        let w = ty.int_width().unwrap_or(l.size);
        let v = self
            .pf
            .bytes()
            .uint(self.pf.abs(self.slot(name)?), w)
            .map_err(|e| self.err(name, e))?;
        Ok(match ty {
            TypeKind::Int8 => i64::from(v as u8 as i8),
            TypeKind::Int16 => i64::from(v as u16 as i16),
            TypeKind::Int32 => i64::from(v as u32 as i32),
            _ => v as i64,
        })
    }

    /// Where a pointer member points, `None` for null.
    pub(crate) fn ptr(&self, name: &str) -> Result<Option<Loc>> {
        Ok(self.pf.resolve(self.slot(name)?))
    }

    /// A C-string member.
    pub(crate) fn string(&self, name: &str) -> Result<Option<String>> {
        match self.ptr(name)? {
            None => Ok(None),
            Some(t) => self
                .pf
                .bytes()
                .cstr(self.pf.abs(t))
                .map(|s| Some(s.to_string()))
                .map_err(|e| self.err(name, e)),
        }
    }

    /// A C-string member that names something (a class, member, enum or item), refused
    /// with the string's offset unless it is a `kind` name ([`names::check`]).
    pub(crate) fn name(&self, field: &str, kind: NameKind) -> Result<Option<String>> {
        let Some(s) = self.string(field)? else {
            return Ok(None);
        };
        match names::check(kind, &s) {
            Ok(()) => Ok(Some(s)),
            Err(m) => {
                let at = self.ptr(field)?.map_or(0, |p| self.pf.abs(p));
                Err(self.err(field, Error::invalid(at, m)))
            }
        }
    }

    /// A pointer-and-count array member: where its elements start and how many there are.
    /// The count is checked against the bytes left in the target section for elements of
    /// `stride` bytes before anyone allocates for it.
    pub(crate) fn array(&self, name: &str, stride: u32) -> Result<Option<(Loc, u32)>> {
        let count_at = self.pf.abs(self.slot(name)?) + u64::from(self.pf.rules().ptr());
        let count = self
            .pf
            .bytes()
            .u32(count_at)
            .map_err(|e| self.err(name, e))?;
        let Some(data) = self.ptr(name)? else {
            return Ok(None);
        };
        let sec = &self.pf.sections[data.section as usize];
        let left = u64::from(sec.local_fixups.saturating_sub(data.offset));
        if u64::from(count) * u64::from(stride) > left {
            return Err(self.err(
                name,
                Error::invalid(
                    count_at,
                    format!("array of {count} × {stride} bytes runs past its section"),
                ),
            ));
        }
        Ok(Some((data, count)))
    }

    /// The element locations of an array member.
    pub(crate) fn elements(&self, name: &str, stride: u32) -> Result<Vec<Loc>> {
        Ok(match self.array(name, stride)? {
            None => Vec::new(),
            Some((data, n)) => (0..n)
                .map(|i| Loc {
                    section: data.section,
                    offset: data.offset + i * stride,
                })
                .collect(),
        })
    }
}
