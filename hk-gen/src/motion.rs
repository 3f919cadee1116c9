//! `hk import MOTION.glb --skeleton FILE (--into FILE | --game PROFILE) -o OUT`: a glTF
//! animation of a skeleton's bones resampled at a fixed frame rate and written as an
//! uncompressed or spline-compressed Havok animation ([`hk_runtime::anim::write`],
//! docs/anim-writing.md); the file is read back strictly, written again byte for byte and
//! decoded before OUT is written.

use std::path::{Path, PathBuf};

use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};
use gltf::Gltf;
use hk_runtime::anim::spline_encode::{angle_between, Tolerance};
use hk_runtime::anim::write::{self, Compression, Motion};
use hk_runtime::anim::{self, math, Binding, Frames, Skeleton, Transform};
use hk_runtime::packfile::PackfileInfo;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::outputs::Outputs;
use crate::Status;

/// What the motion goes into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// An existing file whose animation it replaces, the binding kept.
    Into(PathBuf),
    /// A new animation file for a game profile.
    Game(String),
}

/// How `hk import` runs for a motion.
#[derive(Clone, Debug)]
pub struct MotionOptions {
    /// The glTF or GLB file with the animation.
    pub input: PathBuf,
    /// The file holding the skeleton the animation's nodes are named after.
    pub skeleton: PathBuf,
    /// What the motion goes into.
    pub target: Target,
    /// The file to write.
    pub out: PathBuf,
    /// Uncompressed, or spline compressed within a tolerance.
    pub compression: Compression,
    /// Frames per second; `None` takes it from the keyframe times.
    pub fps: Option<f32>,
}

/// `hk import` of a motion: reads the animation, builds the file, checks it and writes it.
///
/// # Errors
/// An input that does not read, a skeleton file without a skeleton, a target without a
/// binding or a profile without the animation classes, or an output that cannot be
/// written. A file that fails its checks is not written ([`Status::Failure`]).
pub fn import(ctx: &Context, opts: &MotionOptions, o: &mut Out<'_>) -> Result<Status> {
    let mut inputs = vec![opts.input.as_path(), opts.skeleton.as_path()];
    if let Target::Into(f) = &opts.target {
        inputs.push(f);
    }
    let outputs = Outputs::reading(inputs);
    outputs.check(&opts.out)?;
    let skel_doc = ctx.open(&opts.skeleton)?;
    // Tagfile readers keep arrays of structs (the reference pose) as columns.
    let skel_graph = skel_doc.graph.with_struct_values();
    let skel_id = anim::skeleton::skeleton_ids(&skel_graph)
        .into_iter()
        .next()
        .ok_or_else(|| Error::usage(format!("{}: holds no skeleton", opts.skeleton.display())))?;
    let skeleton = Skeleton::read(&skel_graph, skel_id)
        .map_err(|e| Error::from(hk_runtime::Error::from(e)).in_file(&opts.skeleton))?;
    let clip = read_clip(&opts.input, &skeleton, opts.fps)?;
    let (bytes, input) = match &opts.target {
        Target::Into(file) => into_file(ctx, file, &skeleton, &clip, opts.compression)?,
        Target::Game(p) => new_file(ctx, p, &skeleton, &clip, opts.compression)?,
    };
    let failures = verify(ctx, &bytes, &input, opts.compression)?;
    for f in &failures {
        o.error(format_args!("{}: {f}", opts.out.display()))?;
    }
    if !failures.is_empty() {
        o.error(format_args!(
            "{} not written: the written file fails its checks",
            opts.out.display()
        ))?;
        return Ok(Status::Failure);
    }
    outputs.write(&opts.out, &bytes)?;
    outln!(
        o,
        "{} -> {}: {} frames at {:.3} fps, {} of {} bones animated, {}; read back strictly, round trip byte for byte",
        opts.input.display(),
        opts.out.display(),
        clip.frames,
        clip.fps,
        clip.animated,
        skeleton.bones.len(),
        opts.compression.class()
    );
    Ok(Status::Success)
}

/// A glTF animation resampled: `frames × bones` local transforms.
#[derive(Clone, Debug)]
pub struct Clip {
    /// Frames.
    pub frames: usize,
    /// Frames per second.
    pub fps: f32,
    /// Seconds from the first frame to the last.
    pub duration: f32,
    /// Bones some channel animates.
    pub animated: usize,
    /// `frame × bones + bone`.
    pub pose: Vec<Transform>,
}

/// One channel's keys: times and values (3 or 4 floats each).
struct Channel {
    bone: usize,
    property: Property,
    step: bool,
    times: Vec<f32>,
    values: Vec<[f32; 4]>,
}

/// Reads the first animation of `path`: channels on nodes named as `skeleton`'s bones,
/// resampled at `fps` (or the rate of the keyframe times); bones and properties no
/// channel drives stay at the reference pose.
///
/// # Errors
/// A file that does not read, without an animation or without a channel on a bone.
pub fn read_clip(path: &Path, skeleton: &Skeleton, fps: Option<f32>) -> Result<Clip> {
    let bad = |message: String| Error::Import {
        input: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let doc = Gltf::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
    let buffers = doc
        .buffers()
        .map(|b| crate::collision::meshin::gltf_in::buffer(&doc, &b, path))
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(bad)?;
    let animation = doc
        .animations()
        .next()
        .ok_or_else(|| bad("holds no animation".into()))?;
    let mut channels = Vec::new();
    for ch in animation.channels() {
        let node = ch.target().node();
        let Some(bone) = node.name().and_then(|n| skeleton.bone(n)) else {
            continue;
        };
        let reader = ch.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
        let times: Vec<f32> = reader
            .read_inputs()
            .ok_or_else(|| {
                bad(format!(
                    "channel on `{}` has no key times",
                    skeleton.bones[bone].name
                ))
            })?
            .collect();
        let values: Vec<[f32; 4]> = match reader.read_outputs() {
            Some(ReadOutputs::Translations(v)) => v.map(|x| [x[0], x[1], x[2], 0.0]).collect(),
            Some(ReadOutputs::Scales(v)) => v.map(|x| [x[0], x[1], x[2], 0.0]).collect(),
            Some(ReadOutputs::Rotations(v)) => v.into_f32().collect(),
            _ => continue,
        };
        let interpolation = ch.sampler().interpolation();
        // A cubic spline key holds an in-tangent, the value and an out-tangent.
        let values = if interpolation == Interpolation::CubicSpline {
            values.chunks(3).filter_map(|c| c.get(1).copied()).collect()
        } else {
            values
        };
        if values.len() != times.len() || times.is_empty() {
            return Err(bad(format!(
                "channel on `{}`: {} keys and {} values",
                skeleton.bones[bone].name,
                times.len(),
                values.len()
            )));
        }
        channels.push(Channel {
            bone,
            property: ch.target().property(),
            step: interpolation == Interpolation::Step,
            times,
            values,
        });
    }
    if channels.is_empty() {
        return Err(bad(format!(
            "no animation channel drives a node named as a bone of skeleton `{}`",
            skeleton.name
        )));
    }
    Ok(resample(skeleton, &channels, fps))
}

/// The smallest step between keys, `None` for channels of one key each.
fn key_step(channels: &[Channel]) -> Option<f32> {
    let step = channels
        .iter()
        .flat_map(|c| c.times.windows(2).map(|w| w[1] - w[0]))
        .filter(|d| *d > 1e-5)
        .fold(f32::INFINITY, f32::min);
    step.is_finite().then_some(step)
}

/// The channels sampled at evenly spread frames from the first key to the last: as many
/// as `fps` gives over that time, or as the smallest key step does (so evenly spaced keys
/// are frames).
fn resample(skeleton: &Skeleton, channels: &[Channel], fps: Option<f32>) -> Clip {
    let start = channels
        .iter()
        .map(|c| c.times[0])
        .fold(f32::INFINITY, f32::min);
    let end = channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(start, f32::max);
    let duration = end - start;
    let steps = match (fps, key_step(channels)) {
        (Some(fps), _) => (duration * fps).round(),
        (None, Some(step)) => (duration / step).round(),
        (None, None) => 0.0,
    };
    let frames = steps.max(0.0) as usize + 1;
    let bones = skeleton.bones.len();
    let mut pose = Vec::with_capacity(frames * bones);
    for f in 0..frames {
        pose.extend(skeleton.bones.iter().map(|b| b.reference));
        let t = if frames > 1 {
            start + duration * f as f32 / (frames - 1) as f32
        } else {
            start
        };
        for c in channels {
            let v = sample(c, t);
            let x = &mut pose[f * bones + c.bone];
            match c.property {
                Property::Translation => x.translation = [v[0], v[1], v[2]],
                Property::Rotation => x.rotation = math::normalize(v),
                Property::Scale => x.scale = [v[0], v[1], v[2]],
                Property::MorphTargetWeights => {}
            }
        }
    }
    let mut animated: Vec<usize> = channels.iter().map(|c| c.bone).collect();
    animated.sort_unstable();
    animated.dedup();
    let fps = if duration > 0.0 {
        (frames - 1) as f32 / duration
    } else {
        0.0
    };
    Clip {
        frames,
        fps,
        duration,
        animated: animated.len(),
        pose,
    }
}

/// A channel's value at `t`: held before the first key and after the last, stepped or
/// blended (rotations by normalised linear interpolation) between keys.
fn sample(c: &Channel, t: f32) -> [f32; 4] {
    let i = c.times.partition_point(|&k| k <= t);
    if i == 0 {
        return c.values[0];
    }
    if i >= c.times.len() || c.step {
        return c.values[i - 1];
    }
    let (a, b) = (c.values[i - 1], c.values[i]);
    let d = (t - c.times[i - 1]) / (c.times[i] - c.times[i - 1]);
    if c.property == Property::Rotation {
        math::nlerp(a, b, d)
    } else {
        std::array::from_fn(|k| a[k] + (b[k] - a[k]) * d)
    }
}

/// `--into FILE`: FILE's bytes with its (first bound) animation replaced, and the motion
/// as written (the binding's tracks).
fn into_file(
    ctx: &Context,
    file: &Path,
    skeleton: &Skeleton,
    clip: &Clip,
    how: Compression,
) -> Result<(Vec<u8>, Motion)> {
    let mut doc = ctx.open(file)?;
    let binding_id = anim::binding::binding_ids(&doc.graph)
        .into_iter()
        .next()
        .ok_or_else(|| Error::usage(format!("{}: holds no animation binding", file.display())))?;
    let in_file = |e: hk_runtime::Error| Error::from(e).in_file(file);
    let binding = Binding::read(&doc.graph, binding_id).map_err(|e| in_file(e.into()))?;
    let motion = Motion::from_bones(skeleton, Some(&binding), clip.duration, &clip.pose);
    write::replace(&mut doc.graph, &binding, &motion, how).map_err(in_file)?;
    let bytes = hk_runtime::file::write(&doc).map_err(in_file)?;
    Ok((bytes, motion))
}

/// `--game PROFILE`: a new animation file's bytes in the profile's generation and layout,
/// and the motion as written (one track per bone).
fn new_file(
    ctx: &Context,
    name: &str,
    skeleton: &Skeleton,
    clip: &Clip,
    how: Compression,
) -> Result<(Vec<u8>, Motion)> {
    let p = crate::gen::profile(ctx, name)?;
    if p.container != "packfile" {
        return Err(Error::usage(format!(
            "profile `{}` ({} {}): hk writes new animation files as packfiles; use --into with a file of the game",
            p.name, p.generation, p.container
        )));
    }
    let schema = ctx.schemas().load(&p.generation)?;
    if schema.class(how.class()).is_none() {
        return Err(Error::usage(format!(
            "profile `{}` ({}): the schema has no {}",
            p.name,
            p.generation,
            how.class()
        )));
    }
    let layout = p.layout_rules(&schema)?;
    let info = PackfileInfo::new(&schema.generation, layout);
    let motion = Motion::from_bones(skeleton, None, clip.duration, &clip.pose);
    let graph = write::new_file(schema.clone(), skeleton, &motion, how)?;
    let bytes = hk_runtime::packfile::graph::write::write(&graph, &info)?;
    Ok((bytes, motion))
}

/// The checks of a written motion file: it reads back strictly, writes back byte for
/// byte, holds one animation of the motion's frames and tracks, and decodes equal
/// (uncompressed) or within the tolerance (spline) at every frame and track.
///
/// # Errors
/// The bytes do not read as a Havok file.
pub fn verify(
    ctx: &Context,
    bytes: &[u8],
    motion: &Motion,
    how: Compression,
) -> Result<Vec<String>> {
    let (doc, _) = ctx.open_written(bytes)?;
    let mut failures = Vec::new();
    if hk_runtime::file::write(&doc)? != bytes {
        failures.push("it does not write back byte for byte".to_string());
    }
    let graph = doc.graph.with_struct_values();
    let ids = anim::animation_ids(&graph);
    let Some(&id) = ids.iter().find(|&&id| graph.class_name(id) == how.class()) else {
        failures.push(format!("it holds no {}", how.class()));
        return Ok(failures);
    };
    let frames = match anim::animation(&graph, id).and_then(|a| a.decoder.frames()) {
        Ok(f) => f,
        Err(e) => {
            failures.push(format!("its animation does not decode: {e}"));
            return Ok(failures);
        }
    };
    if frames.transforms.len() != motion.transforms.len() {
        failures.push(format!(
            "{} frames of {} tracks decoded, {} of {} written",
            frames.frame_count,
            frames.transform_tracks,
            motion.frame_count(),
            motion.tracks
        ));
        return Ok(failures);
    }
    failures.extend(compare(&frames, motion, how));
    Ok(failures)
}

/// What is out of tolerance between decoded `frames` and `motion`.
fn compare(frames: &Frames, motion: &Motion, how: Compression) -> Option<String> {
    let tol = match how {
        Compression::Uncompressed => Tolerance {
            position: 0.0,
            rotation_deg: 0.0,
            scale: 0.0,
        },
        Compression::Spline(t) => t,
    };
    for (i, (a, b)) in frames.transforms.iter().zip(&motion.transforms).enumerate() {
        let p = (0..3)
            .map(|k| (a.translation[k] - b.translation[k]).powi(2))
            .sum::<f32>()
            .sqrt();
        let r = if a.rotation == b.rotation {
            0.0
        } else {
            angle_between(a.rotation, b.rotation)
        };
        let s = (0..3)
            .map(|k| (a.scale[k] - b.scale[k]).abs())
            .fold(0.0, f32::max);
        if p > tol.position || r > tol.rotation_deg || s > tol.scale {
            return Some(format!(
                "frame {} track {}: decoded {p} units, {r}°, {s} scale from the input (tolerance {} / {}° / {})",
                i / motion.tracks,
                i % motion.tracks,
                tol.position,
                tol.rotation_deg,
                tol.scale
            ));
        }
    }
    None
}
