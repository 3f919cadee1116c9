//! Animation bindings (`hkaAnimationBinding`): which bone each transform track drives,
//! which float slot each float track drives, and how the animation blends.

use crate::graph::{Graph, ObjectId};

use super::access::{is_a, Rec};
use super::skeleton::int_list;
use super::Result;

/// How a bound animation combines with the pose below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlendHint {
    /// Replaces the pose (`NORMAL`).
    Normal,
    /// Adds to the pose; deprecated form (`ADDITIVE_DEPRECATED`, Havok 5.5's `ADDITIVE`).
    AdditiveDeprecated,
    /// Adds to the pose (`ADDITIVE`).
    Additive,
}

/// A binding of an animation to a skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// The binding object.
    pub object: ObjectId,
    /// The animation it binds.
    pub animation: Option<ObjectId>,
    /// The skeleton's name, when stored (Havok 6.6 and later).
    pub skeleton_name: Option<String>,
    /// The bone of each transform track (empty: track `i` drives bone `i`).
    pub track_to_bone: Vec<i64>,
    /// The float slot of each float track (empty: track `i` drives slot `i`).
    pub float_track_to_slot: Vec<i64>,
    /// How the animation blends.
    pub blend_hint: BlendHint,
}

impl Binding {
    /// Object `id` as a binding.
    pub fn read(graph: &Graph, id: ObjectId) -> Result<Binding> {
        let rec: Rec<'_> = Rec::object(graph, id)?;
        let skeleton_name = match rec.opt("originalSkeletonName") {
            Some(_) => rec.string("originalSkeletonName")?.map(str::to_string),
            None => None,
        };
        let blend_hint = match rec.int("blendHint")? {
            0 => BlendHint::Normal,
            1 => BlendHint::AdditiveDeprecated,
            2 => BlendHint::Additive,
            v => return Err(rec.err("blendHint", format!("{v} is no blend hint"))),
        };
        Ok(Binding {
            object: id,
            animation: rec.ptr("animation")?,
            skeleton_name,
            track_to_bone: int_list(&rec, "transformTrackToBoneIndices")?,
            float_track_to_slot: int_list(&rec, "floatTrackToFloatSlotIndices")?,
            blend_hint,
        })
    }

    /// The bone transform track `track` drives (`None` for a track bound to no bone).
    pub fn bone_of_track(&self, track: usize) -> Option<usize> {
        if self.track_to_bone.is_empty() {
            return Some(track);
        }
        self.track_to_bone
            .get(track)
            .and_then(|&b| usize::try_from(b).ok())
    }

    /// Whether the animation adds to the pose below it.
    pub fn is_additive(&self) -> bool {
        matches!(
            self.blend_hint,
            BlendHint::Additive | BlendHint::AdditiveDeprecated
        )
    }
}

/// The binding objects of a graph, in object order.
pub fn binding_ids(graph: &Graph) -> Vec<ObjectId> {
    (0..graph.objects.len() as u32)
        .map(ObjectId)
        .filter(|&id| is_a(graph.schema(), graph.class_name(id), "hkaAnimationBinding"))
        .collect()
}
