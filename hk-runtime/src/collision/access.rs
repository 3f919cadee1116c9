//! The collision readers' view of records ([`crate::graph::rec`]): errors are
//! [`CollisionError`]s naming the object and member.

use crate::graph::rec::RecordError;

use super::CollisionError;

pub(crate) use crate::graph::rec::{ints, is_a, objects, pointees_from, points};

/// A record whose complaints are collision errors.
pub(crate) type Rec<'g> = crate::graph::rec::Rec<'g, CollisionError>;

impl RecordError for CollisionError {
    fn member(object: String, member: String, message: String) -> Box<Self> {
        CollisionError::shape(object, member, message)
    }
}
