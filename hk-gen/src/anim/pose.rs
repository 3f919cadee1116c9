//! `hk anim`: an animation's pose printed per bone, at a time or every stored frame
//! (docs/animation.md). Times are sampled by the runtime decoder, so each format's own
//! interpolation rule applies (spline evaluation between knots, linear and normalised
//! between the stored frames of the other formats).

use std::path::Path;

use hk_runtime::anim::{self, Transform};
use hk_runtime::file::Document;
use serde_json::json;

use super::{load, Clip, LoadOptions, Rig};
use crate::context::Context;
use crate::error::{Error, Result};

/// What `hk anim` prints.
#[derive(Clone, Copy, Debug, Default)]
pub struct PoseQuery<'a> {
    /// How the file is read (`--skeleton`).
    pub load: LoadOptions<'a>,
    /// The animation (its index among the file's decoded ones), the first by default.
    pub animation: Option<usize>,
    /// Only this bone.
    pub bone: Option<&'a str>,
    /// The time in seconds (clamped to the animation).
    pub time: f32,
}

/// The local pose of every bone of `clip`'s skeleton: each track's transform on its
/// bone, the reference pose on the bones no track drives (`true`: a track drives it).
pub fn bone_pose(rig: &Rig, clip: &Clip, tracks: &[Transform]) -> Vec<(Transform, bool)> {
    let skeleton = &rig.skeletons[clip.skeleton];
    let mut pose: Vec<(Transform, bool)> = skeleton
        .bones
        .iter()
        .map(|b| (b.reference, false))
        .collect();
    for (t, bone) in clip.bones.iter().enumerate() {
        if let (Some(b), Some(tr)) = (bone, tracks.get(t)) {
            pose[*b] = (*tr, true);
        }
    }
    pose
}

fn pick<'r>(rig: &'r Rig, path: &Path, q: &PoseQuery<'_>) -> Result<(&'r Clip, Option<usize>)> {
    if rig.clips.is_empty() {
        return Err(Error::usage(format!(
            "{}: holds no animation hk decodes{}",
            path.display(),
            if rig.skipped.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} left out: {})",
                    rig.skipped.len(),
                    rig.skipped.join(", ")
                )
            }
        )));
    }
    let i = q.animation.unwrap_or(0);
    let clip = rig.clips.get(i).ok_or_else(|| {
        Error::usage(format!(
            "{}: --animation {i}, but the file has {} decoded animations (0 to {})",
            path.display(),
            rig.clips.len(),
            rig.clips.len() - 1
        ))
    })?;
    let skeleton = &rig.skeletons[clip.skeleton];
    let bone = match q.bone {
        None => None,
        Some(name) => Some(skeleton.bone(name).ok_or_else(|| {
            Error::usage(format!(
                "{}: skeleton {:?} has no bone named {name:?} ({} bones; `hk anim --json` lists them)",
                path.display(),
                skeleton.name,
                skeleton.bones.len()
            ))
        })?),
    };
    Ok((clip, bone))
}

fn fmt3(v: [f32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}

/// The local pose of every bone of `clip` (of `rig`, read from `doc`, the file at `path`)
/// at `time` seconds, sampled by the runtime decoder and so by the format's own
/// interpolation rule ([`bone_pose`]): what `hk anim --time` prints, and what the Python
/// package's `Animation.pose` returns.
///
/// # Errors
/// The animation does not read or decode.
pub fn sample(
    doc: &Document,
    path: &Path,
    rig: &Rig,
    clip: &Clip,
    time: f32,
) -> Result<Vec<(Transform, bool)>> {
    let graph = &*doc.graph.with_struct_values();
    let a = anim::animation(graph, clip.object)
        .map_err(|e| Error::Runtime(hk_runtime::Error::from(e).in_file(path)))?;
    let d = &a.decoder;
    let mut tracks = vec![Transform::IDENTITY; d.transform_tracks()];
    let mut floats = vec![0.0; d.float_tracks()];
    d.sample(time, &mut tracks, &mut floats)
        .map_err(|e| Error::Runtime(hk_runtime::Error::from(e).in_file(path)))?;
    Ok(bone_pose(rig, clip, &tracks))
}

/// The pose at `q.time`, one line per bone: name, translation, rotation (x, y, z, w) and
/// scale, in the bone's parent space.
///
/// # Errors
/// As [`load`]; no decoded animation, an animation index or bone name the file lacks, a
/// time that is not finite.
pub fn pose_lines(ctx: &Context, path: &Path, q: &PoseQuery<'_>) -> Result<Vec<String>> {
    if !q.time.is_finite() {
        return Err(Error::usage(format!(
            "--time {}: not a finite number of seconds",
            q.time
        )));
    }
    let doc = ctx.open(path)?;
    let rig = load(ctx, path, &doc, &q.load)?;
    let (clip, only) = pick(&rig, path, q)?;
    let time = q.time.clamp(0.0, clip.duration.max(0.0));
    let pose = sample(&doc, path, &rig, clip, time)?;
    let skeleton = &rig.skeletons[clip.skeleton];
    let mut out = vec![format!(
        "{} {} at {time} s of {} s ({} frames), skeleton {:?}",
        path.display(),
        clip.name,
        clip.duration,
        clip.frames.frame_count,
        skeleton.name
    )];
    for (b, (t, tracked)) in pose.into_iter().enumerate() {
        if only.is_some_and(|o| o != b) {
            continue;
        }
        out.push(format!(
            "{}: translation {} rotation ({}, {}, {}, {}) scale {}{}",
            skeleton.bones[b].name,
            fmt3(t.translation),
            t.rotation[0],
            t.rotation[1],
            t.rotation[2],
            t.rotation[3],
            fmt3(t.scale),
            if tracked {
                ""
            } else {
                " (reference pose: no track)"
            }
        ));
    }
    Ok(out)
}

/// Every stored frame of the animation as JSON: its class, duration, frame count, bone
/// names and, per frame, the time and each bone's translation, rotation and scale.
///
/// # Errors
/// As [`pose_lines`].
pub fn pose_json(ctx: &Context, path: &Path, q: &PoseQuery<'_>) -> Result<serde_json::Value> {
    let doc = ctx.open(path)?;
    let rig = load(ctx, path, &doc, &q.load)?;
    drop(doc);
    let (clip, only) = pick(&rig, path, q)?;
    let skeleton = &rig.skeletons[clip.skeleton];
    let keep = |b: usize| only.is_none_or(|o| o == b);
    let frames: Vec<_> = (0..clip.frames.frame_count)
        .map(|i| {
            let pose = bone_pose(&rig, clip, clip.frames.frame(i));
            let bones: Vec<_> = pose
                .iter()
                .enumerate()
                .filter(|(b, _)| keep(*b))
                .map(|(_, (t, tracked))| {
                    json!({"translation": t.translation, "rotation": t.rotation,
                           "scale": t.scale, "tracked": tracked})
                })
                .collect();
            json!({"frame": i, "time": clip.time(i), "bones": bones})
        })
        .collect();
    let names: Vec<_> = skeleton
        .bones
        .iter()
        .enumerate()
        .filter(|(b, _)| keep(*b))
        .map(|(_, b)| b.name.as_str())
        .collect();
    Ok(json!({
        "file": path.display().to_string(),
        "animation": clip.name,
        "class": clip.class,
        "duration": clip.duration,
        "frame_count": clip.frames.frame_count,
        "skeleton": skeleton.name,
        "bones": names,
        "frames": frames,
    }))
}

/// `hk anim`: prints [`pose_lines`], or with `json` [`pose_json`] pretty-printed.
///
/// # Errors
/// As [`pose_lines`], and an output that cannot be written.
pub fn print(
    ctx: &Context,
    path: &Path,
    q: &PoseQuery<'_>,
    json: bool,
    o: &mut crate::out::Out<'_>,
) -> Result<crate::Status> {
    use crate::out::outln;
    if json {
        let v = pose_json(ctx, path, q)?;
        outln!(o, "{v:#}");
    } else {
        for line in pose_lines(ctx, path, q)? {
            outln!(o, "{line}");
        }
    }
    Ok(crate::Status::Success)
}
