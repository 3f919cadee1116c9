//! Writing animations into graphs (docs/anim-writing.md): per-frame bone-local transforms
//! become an `hkaInterleavedUncompressedAnimation` (every frame stored) or an
//! `hkaSplineCompressedAnimation` within a tolerance ([`spline_encode`]), either as a new
//! animation file's objects ([`new_file`]) or in place of a file's animation, its binding
//! and everything else kept ([`replace`]).
//!
//! [`spline_encode`]: super::spline_encode

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::graph::{Array, Graph, ObjectId, Ptr, Value};
use crate::schema::{Schema, Shape};

use super::binding::Binding;
use super::skeleton::Skeleton;
use super::spline_encode::{self, Tolerance};
use super::Transform;

/// The name Havok's tools give the root-level entry of an animation file.
pub const CONTAINER_NAME: &str = "Merged Animation Container";

/// A motion to write: `frames × tracks` bone-local transforms, frame after frame, the
/// first frame at time 0 and the last at `duration`.
#[derive(Clone, Debug, PartialEq)]
pub struct Motion {
    /// Seconds from the first frame to the last.
    pub duration: f32,
    /// Transform tracks per frame.
    pub tracks: usize,
    /// `frame × tracks + track`.
    pub transforms: Vec<Transform>,
    /// The name of each track (its bone's), for the annotation tracks.
    pub track_names: Vec<String>,
}

impl Motion {
    /// A motion of `pose` (`frames × bones` of `skeleton`, bone-local) over `duration`
    /// seconds, with the tracks of `binding` (track `i` drives the bone it maps to; a
    /// track bound to no bone stays at the identity), or one track per bone without one.
    pub fn from_bones(
        skeleton: &Skeleton,
        binding: Option<&Binding>,
        duration: f32,
        pose: &[Transform],
    ) -> Motion {
        let bones = skeleton.bones.len().max(1);
        let frames = pose.len() / bones;
        let tracks = match binding {
            Some(b) if !b.track_to_bone.is_empty() => b.track_to_bone.len(),
            _ => skeleton.bones.len(),
        };
        let bone_of = |t: usize| binding.map_or(Some(t), |b| b.bone_of_track(t));
        let mut transforms = Vec::with_capacity(frames * tracks);
        for f in 0..frames {
            for t in 0..tracks {
                let x = bone_of(t)
                    .filter(|&b| b < bones)
                    .map_or(Transform::IDENTITY, |b| pose[f * bones + b]);
                transforms.push(x);
            }
        }
        let track_names = (0..tracks)
            .map(|t| {
                bone_of(t)
                    .and_then(|b| skeleton.bones.get(b))
                    .map_or_else(String::new, |b| b.name.clone())
            })
            .collect();
        Motion {
            duration,
            tracks,
            transforms,
            track_names,
        }
    }

    /// Frames held.
    pub fn frame_count(&self) -> usize {
        self.transforms.len().checked_div(self.tracks).unwrap_or(0)
    }
}

/// How the animation is stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Compression {
    /// Every frame, as given (`hkaInterleavedUncompressedAnimation`).
    Uncompressed,
    /// Spline compressed within a tolerance (`hkaSplineCompressedAnimation`).
    Spline(Tolerance),
}

impl Compression {
    /// The class the animation is written as.
    pub fn class(&self) -> &'static str {
        match self {
            Compression::Uncompressed => "hkaInterleavedUncompressedAnimation",
            Compression::Spline(_) => "hkaSplineCompressedAnimation",
        }
    }

    /// The `type` member's value (`hkaAnimation::AnimationType`).
    fn type_code(&self) -> i64 {
        match self {
            Compression::Uncompressed => 1,
            Compression::Spline(_) => 3,
        }
    }
}

/// Adds the animation object of `motion` to `graph`, stored as `how` says.
///
/// # Errors
/// A schema without the class or one of its members, a motion without frames, or a value
/// that does not fit its member.
pub fn add_animation(graph: &mut Graph, motion: &Motion, how: Compression) -> Result<ObjectId> {
    let n = motion.frame_count();
    if n == 0 || motion.tracks == 0 {
        return Err(Error::invalid_write(
            "a motion needs at least one frame and one track",
        ));
    }
    if !motion.duration.is_finite() || motion.duration < 0.0 {
        return Err(Error::invalid_write(format!(
            "{} is not a duration",
            motion.duration
        )));
    }
    let id = graph.add_object(how.class())?;
    num(graph, id, "type", how.type_code())?;
    graph.set(id, "duration", Value::Real(motion.duration))?;
    num(graph, id, "numberOfTransformTracks", motion.tracks as i64)?;
    num(graph, id, "numberOfFloatTracks", 0)?;
    annotation_tracks(graph, id, &motion.track_names)?;
    match how {
        Compression::Uncompressed => {
            let t = motion.transforms.iter().map(Transform::to_floats).collect();
            graph.set(id, "transforms", Value::Array(Array::Mat3(t)))?;
        }
        Compression::Spline(tol) => {
            let s = spline_encode::encode(&motion.transforms, motion.tracks, motion.duration, tol);
            spline_members(graph, id, &s)?;
        }
    }
    Ok(id)
}

/// The spline members of object `id` from encoded data `s`.
fn spline_members(graph: &mut Graph, id: ObjectId, s: &spline_encode::SplineData) -> Result<()> {
    num(graph, id, "numFrames", s.frames as i64)?;
    num(graph, id, "numBlocks", s.blocks as i64)?;
    num(
        graph,
        id,
        "maxFramesPerBlock",
        s.max_frames_per_block as i64,
    )?;
    num(graph, id, "maskAndQuantizationSize", s.mask_size as i64)?;
    graph.set(id, "blockDuration", Value::Real(s.block_duration))?;
    let inverse = if s.block_duration > 0.0 {
        1.0 / s.block_duration
    } else {
        0.0
    };
    graph.set(id, "blockInverseDuration", Value::Real(inverse))?;
    graph.set(id, "frameDuration", Value::Real(s.frame_duration))?;
    graph.set(
        id,
        "blockOffsets",
        Value::Array(Array::U32(s.block_offsets.clone())),
    )?;
    let floats = Value::Array(Array::U32(s.float_block_offsets.clone()));
    graph.set(id, "floatBlockOffsets", floats)?;
    graph.set(id, "data", Value::Array(Array::U8(s.data.clone())))?;
    if has(graph, id, "endian") {
        num(graph, id, "endian", 0)?;
    }
    Ok(())
}

/// One annotation track per transform track, named as the track's bone (what Havok's
/// tools write), when the class has them.
fn annotation_tracks(graph: &mut Graph, id: ObjectId, names: &[String]) -> Result<()> {
    if names.is_empty() || !has(graph, id, "annotationTracks") {
        return Ok(());
    }
    let class = graph.object(id).class;
    let (_, shape) = graph.resolve(class, "annotationTracks")?;
    let Shape::Array(_, elem) = shape else {
        return Ok(());
    };
    let Shape::Struct(_) = *elem else {
        // Havok 5.5 keeps annotation tracks as objects: none are written.
        return Ok(());
    };
    let zero = crate::graph::default_value(graph.schema(), &elem)?;
    graph.set(id, "annotationTracks", Value::list(vec![zero; names.len()]))?;
    let field = ["trackName", "name"]
        .into_iter()
        .find(|f| has(graph, id, &format!("annotationTracks[0].{f}")));
    if let Some(f) = field {
        for (i, n) in names.iter().enumerate() {
            graph.set(id, &format!("annotationTracks[{i}].{f}"), Value::text(n))?;
        }
    }
    Ok(())
}

/// A new animation file's graph over `schema`: a root-level container holding an
/// `hkaAnimationContainer` ([`CONTAINER_NAME`]) with the animation and its binding to
/// `skeleton` (track `i` drives bone `i`), as Havok's tools lay animation files out.
///
/// # Errors
/// A schema without one of the classes or members, or a motion that does not fit.
pub fn new_file(
    schema: Arc<Schema>,
    skeleton: &Skeleton,
    motion: &Motion,
    how: Compression,
) -> Result<Graph> {
    let mut g = Graph::new(schema);
    let root = g.add_object("hkRootLevelContainer")?;
    let container = g.add_object("hkaAnimationContainer")?;
    let anim = add_animation(&mut g, motion, how)?;
    let binding = g.add_object("hkaAnimationBinding")?;
    g.set(binding, "animation", Value::object(anim))?;
    if has(&g, binding, "originalSkeletonName") {
        g.set(binding, "originalSkeletonName", Value::text(&skeleton.name))?;
    }
    let bones = (0..motion.tracks as i64).map(|i| i as i16).collect();
    g.set(
        binding,
        "transformTrackToBoneIndices",
        Value::Array(Array::I16(bones)),
    )?;
    g.set(
        container,
        "animations",
        Value::list(vec![Value::object(anim)]),
    )?;
    g.set(
        container,
        "bindings",
        Value::list(vec![Value::object(binding)]),
    )?;
    let zero = {
        let (_, shape) = g.resolve(g.object(root).class, "namedVariants")?;
        let Shape::Array(_, elem) = shape else {
            return Err(Error::invalid_write("namedVariants is not an array"));
        };
        crate::graph::default_value(g.schema(), &elem)?
    };
    g.set(root, "namedVariants", Value::list(vec![zero]))?;
    g.set(root, "namedVariants[0].name", Value::text(CONTAINER_NAME))?;
    g.set(
        root,
        "namedVariants[0].className",
        Value::text("hkaAnimationContainer"),
    )?;
    let variant = match g.resolve(g.object(root).class, "namedVariants[0].variant")? {
        (_, Shape::Variant) => Value::variant(Some(Ptr::Object(container)), None),
        _ => Value::object(container),
    };
    g.set(root, "namedVariants[0].variant", variant)?;
    g.root = root;
    Ok(g)
}

/// Replaces the animation `binding` binds with `motion` stored as `how`, in place: the
/// object keeps its id (so every pointer to it, the binding's and the container's, and
/// the container's facts about it hold), takes the new class and values, and keeps its
/// annotation tracks and extracted motion. `motion`'s tracks are the binding's.
///
/// # Errors
/// A binding without an animation, or a motion whose track count is not the old one's.
pub fn replace(
    graph: &mut Graph,
    binding: &Binding,
    motion: &Motion,
    how: Compression,
) -> Result<ObjectId> {
    let old = binding
        .animation
        .ok_or_else(|| Error::invalid_write("the binding binds no animation"))?;
    let tracks = graph
        .get(old, "numberOfTransformTracks")?
        .as_i64()
        .unwrap_or(-1);
    if tracks != motion.tracks as i64 {
        return Err(Error::invalid_write(format!(
            "the motion has {} tracks, the animation it replaces {tracks}",
            motion.tracks
        )));
    }
    let new = add_animation(graph, motion, how)?;
    for member in ["annotationTracks", "extractedMotion"] {
        if has(graph, old, member) && has(graph, new, member) {
            let v = graph.get(old, member)?;
            graph.set(new, member, v)?;
        }
    }
    // The new object was added last and nothing points to it: it moves into the old
    // one's slot.
    let object = graph
        .objects
        .pop()
        .ok_or_else(|| Error::invalid_write("no object was added"))?;
    graph.objects[old.0 as usize] = object;
    Ok(old)
}

/// Whether object `id`'s class has member path `path`.
fn has(graph: &Graph, id: ObjectId, path: &str) -> bool {
    graph.resolve(graph.object(id).class, path).is_ok()
}

/// An integer member, signed or unsigned as the member is.
fn num(graph: &mut Graph, id: ObjectId, path: &str, v: i64) -> Result<()> {
    let (_, shape) = graph.resolve(graph.object(id).class, path)?;
    let value = match shape {
        Shape::Int { signed: false, .. } | Shape::ULong => Value::UInt(v as u64),
        _ => Value::Int(v),
    };
    graph.set(id, path, value)
}
