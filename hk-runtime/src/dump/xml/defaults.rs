//! The value of a member an XML object leaves out, as the dump's reader asks for it: zero,
//! false, null or empty; a struct's members and a C array's elements each their own
//! default. Each value is charged to the read's budget as it is made (a struct can hold
//! many).

use std::sync::Arc;

use serde::de::{DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::events::Located;
use super::leaf::{only_any, DeErr, Lit};
use super::meter::{MEMBER, VALUE};
use super::walk::Shared;
use crate::schema::{FlatMember, Shape};

/// The value of a member the file leaves out: zero, false, null, empty; a struct's members
/// and a C array's elements each their own default.
pub(super) struct DefaultDe<'s, 'a, 'x> {
    pub(super) sh: &'s Shared<'a>,
    pub(super) shape: &'x Shape,
    /// Where the object or struct that leaves it out is.
    pub(super) at: usize,
}

impl<'de> serde::Deserializer<'de> for DefaultDe<'_, '_, '_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        match self.shape {
            Shape::Bool => v.visit_bool(false),
            Shape::Int { .. } | Shape::ULong => v.visit_u64(0),
            Shape::Real | Shape::Half => v.visit_f64(0.0),
            Shape::Floats(n) => Lit::Seq(vec![Lit::F64(0.0); usize::from(*n)]).deserialize_any(v),
            Shape::Struct(c) => {
                let members = self
                    .sh
                    .schema
                    .members(*c)
                    .map_err(|error| self.sh.fail(Located { error, at: self.at }))?;
                v.visit_map(Defaults {
                    d: self,
                    members,
                    next: 0,
                    left: 0,
                })
            }
            Shape::CArray(n, _) => v.visit_seq(Defaults {
                d: self,
                members: Arc::from([]),
                next: 0,
                left: usize::from(*n),
            }),
            _ => v.visit_unit(),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_unit()
    }

    only_any!();
}

/// A default struct's members, or a default C array's elements.
struct Defaults<'s, 'a, 'x> {
    d: DefaultDe<'s, 'a, 'x>,
    members: Arc<[FlatMember]>,
    next: usize,
    left: usize,
}

impl<'de> MapAccess<'de> for Defaults<'_, '_, '_> {
    type Error = DeErr;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeErr> {
        let Some(m) = self.members.get(self.next) else {
            return Ok(None);
        };
        let name = self.d.sh.schema.member_of(m).name.as_str();
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeErr> {
        let members = Arc::clone(&self.members);
        let m = &members[self.next];
        self.next += 1;
        self.d.sh.charge(MEMBER, self.d.at)?;
        seed.deserialize(DefaultDe {
            sh: self.d.sh,
            shape: &m.shape,
            at: self.d.at,
        })
    }
}

impl<'de> SeqAccess<'de> for Defaults<'_, '_, '_> {
    type Error = DeErr;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeErr> {
        let Shape::CArray(_, e) = self.d.shape else {
            return Ok(None);
        };
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.d.sh.charge(VALUE, self.d.at)?;
        seed.deserialize(DefaultDe {
            sh: self.d.sh,
            shape: e,
            at: self.d.at,
        })
        .map(Some)
    }
}
