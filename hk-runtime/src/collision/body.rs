//! Rigid bodies: where a body puts its shape (docs/collision-notes.md §8).

use crate::graph::{Graph, ObjectId, Value};

use super::shapes::{Place, Walker};
use super::{Affine, Body, Result};
use crate::collision::access::Rec;

/// Reads rigid body `id` and its shape tree.
pub(crate) fn read(graph: &Graph, id: ObjectId, walker: &mut Walker<'_>) -> Result<Body> {
    let r = Rec::object(graph, id)?;
    let name = match r.opt("name") {
        Some(Value::String(Some(s))) => s.clone(),
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        _ => format!("body#{}", id.0),
    };
    let collidable = r.rec("collidable")?;
    let filter_info = collidable
        .rec("broadPhaseHandle")?
        .int("collisionFilterInfo")?;
    let motion = r.rec("motion")?;
    let state = motion.rec("motionState")?;
    let tf = state.floats("transform", 16)?;
    let to_world =
        Affine::from_transform(tf).ok_or_else(|| state.err("transform", "expected 16 floats"))?;
    let motion_type = motion.int("type")?;
    let motion_name = motion.enum_item("type").map(str::to_string);
    let mut meshes = Vec::new();
    if let Some(shape) = collidable.ptr("shape")? {
        walker.walk(shape, Place::BODY, 0, &mut meshes)?;
    }
    Ok(Body {
        name,
        object: id,
        to_world,
        motion_type,
        motion_name,
        filter_info: u32::try_from(filter_info)
            .map_err(|_| collidable.err("collisionFilterInfo", "out of range"))?,
        meshes,
        free: false,
    })
}

/// Free shape `id` (a shape no object points to, in a file without rigid bodies) as a
/// body at the origin, named `Class#id`.
pub(crate) fn free(graph: &Graph, id: ObjectId, walker: &mut Walker<'_>) -> Result<Body> {
    let mut meshes = Vec::new();
    walker.walk(id, Place::BODY, 0, &mut meshes)?;
    Ok(Body {
        name: format!("{}#{}", graph.class_name(id), id.0),
        object: id,
        to_world: Affine::IDENTITY,
        motion_type: 0,
        motion_name: None,
        filter_info: 0,
        meshes,
        free: true,
    })
}
