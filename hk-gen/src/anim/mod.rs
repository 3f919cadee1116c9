//! `hk export` and `hk render` of skeletons and animations (docs/anim-export.md): a
//! file's skeletons, its animations decoded through [`hk_runtime::anim`] into every stored
//! frame, and the rigid bodies of its ragdolls, gathered into one [`Rig`], which
//! [`gltf`] writes as a glTF document and [`render`] draws as bones.

pub mod gltf;
pub mod pose;
pub mod render;

use std::path::Path;

use hk_runtime::anim::skeleton::Bone;
use hk_runtime::anim::{self, AnnotationTrack, Binding, Frames, Skeleton, Transform};
use hk_runtime::collision::{self, Scene};
use hk_runtime::file::Document;
use hk_runtime::graph::{Array, Graph, ObjectId, Ptr, Value};

use crate::context::Context;
use crate::error::{Error, Result};

/// One animation, decoded: every stored frame, and the bone each track drives.
#[derive(Clone, Debug)]
pub struct Clip {
    /// `#id class`, the animation object.
    pub name: String,
    /// The animation object.
    pub object: ObjectId,
    /// Its class.
    pub class: String,
    /// Seconds.
    pub duration: f32,
    /// Every frame, decoded.
    pub frames: Frames,
    /// The index (in [`Rig::skeletons`]) of the skeleton it animates.
    pub skeleton: usize,
    /// The bone each transform track drives (`None`: a track bound to no bone).
    pub bones: Vec<Option<usize>>,
    /// Its annotation tracks.
    pub annotations: Vec<AnnotationTrack>,
    /// Whether its binding marks it additive (its tracks add to the pose below).
    pub additive: bool,
}

impl Clip {
    /// The time of frame `i`: `i × duration / (frames − 1)`.
    pub fn time(&self, i: usize) -> f32 {
        let n = self.frames.frame_count;
        if n < 2 {
            0.0
        } else {
            i as f32 * self.duration / (n - 1) as f32
        }
    }
}

/// A rigid body a ragdoll drives by a bone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attached {
    /// The index of the body in [`Rig::bodies`]' bodies.
    pub body: usize,
    /// The skeleton (in [`Rig::skeletons`]) and bone.
    pub bone: Option<(usize, usize)>,
}

/// What one file holds of skeletons, animations and ragdoll bodies.
#[derive(Clone, Debug, Default)]
pub struct Rig {
    /// The skeletons: the file's own, then those of `--skeleton`'s file.
    pub skeletons: Vec<Skeleton>,
    /// The decoded animations.
    pub clips: Vec<Clip>,
    /// The rigid bodies of the file's ragdolls (empty without one).
    pub bodies: Scene,
    /// Each body of [`Rig::bodies`] and the bone that drives it.
    pub attached: Vec<Attached>,
    /// The animations left out because hk does not decode their format (`#id class`).
    pub skipped: Vec<String>,
    /// The animations bound to a stand-in skeleton because no skeleton was found
    /// (`#id class`): one root joint `bone N` per bone the binding maps a track to.
    pub stand_ins: Vec<String>,
}

/// How [`load`] reads a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions<'a> {
    /// A file whose skeletons the animations may be bound to.
    pub skeleton: Option<&'a Path>,
    /// Leave out animations whose format hk does not decode (listed in [`Rig::skipped`])
    /// instead of refusing the file.
    pub skip_undecodable: bool,
}

/// Whether `graph` holds a skeleton or an animation.
pub fn holds_animation(graph: &Graph) -> bool {
    !anim::skeleton::skeleton_ids(graph).is_empty() || !anim::animation_ids(graph).is_empty()
}

/// An animation error in file `path`.
fn anim_error(path: &Path, e: Box<anim::AnimError>) -> Error {
    Error::Runtime(hk_runtime::Error::from(e).in_file(path))
}

/// The skeletons of `graph`.
fn skeletons(graph: &Graph, path: &Path) -> Result<Vec<Skeleton>> {
    anim::skeleton::skeleton_ids(graph)
        .into_iter()
        .map(|id| Skeleton::read(graph, id).map_err(|e| anim_error(path, e)))
        .collect()
}

/// Reads the rig of `doc` (the file at `path`), with the skeletons of `opts.skeleton`.
///
/// # Errors
/// A skeleton, binding or animation that does not read; an animation of a format hk does
/// not decode (unless skipped); an animation with no skeleton to bind to, or whose tracks
/// name bones the skeleton lacks.
pub fn load(ctx: &Context, path: &Path, doc: &Document, opts: &LoadOptions<'_>) -> Result<Rig> {
    let graph = &*doc.graph.with_struct_values();
    let mut rig = Rig {
        skeletons: skeletons(graph, path)?,
        ..Rig::default()
    };
    let own = rig.skeletons.len();
    if let Some(s) = opts.skeleton {
        let other = ctx.open(s)?;
        let other = &*other.graph.with_struct_values();
        let more = skeletons(other, s)?;
        if more.is_empty() {
            return Err(Error::usage(format!("{}: holds no skeleton", s.display())));
        }
        rig.skeletons.extend(more);
    }
    let bindings = anim::binding::binding_ids(graph)
        .into_iter()
        .map(|id| Binding::read(graph, id).map_err(|e| anim_error(path, e)))
        .collect::<Result<Vec<_>>>()?;
    for id in anim::animation_ids(graph) {
        let class = graph.class_name(id).to_string();
        let name = format!("#{} {class}", id.0);
        if !anim::decodes(graph, &class) {
            if opts.skip_undecodable {
                rig.skipped.push(name);
                continue;
            }
            return Err(Error::geometry(
                path,
                format!("animation {name}: hk does not decode this format yet (--skip-undecodable leaves such animations out)"),
            ));
        }
        let a = anim::animation(graph, id).map_err(|e| anim_error(path, e))?;
        let binding = bindings.iter().find(|b| b.animation == Some(id));
        let tracks = a.decoder.transform_tracks();
        let skeleton = match pick_skeleton(&rig.skeletons, own, binding) {
            Some(s) => s,
            None => {
                rig.skeletons.push(stand_in(&name, id, binding, tracks));
                rig.stand_ins.push(name.clone());
                rig.skeletons.len() - 1
            }
        };
        let bones = track_bones(
            &rig.skeletons[skeleton],
            binding,
            a.decoder.transform_tracks(),
        )
        .map_err(|m| Error::geometry(path, format!("animation {name}: {m}")))?;
        rig.clips.push(Clip {
            name,
            object: id,
            class,
            duration: a.decoder.duration(),
            frames: a.decoder.frames().map_err(|e| anim_error(path, e))?,
            skeleton,
            bones,
            annotations: a.annotations,
            additive: binding.is_some_and(Binding::is_additive),
        });
    }
    if graph.first("hkaRagdollInstance").is_some() {
        rig.bodies = collision::read(graph).map_err(|e| Error::collision(path, e))?;
        rig.attached = attach(graph, &rig.bodies, &rig.skeletons[..own]);
    }
    Ok(rig)
}

/// A skeleton for an animation found with none (its skeleton is usually in another file):
/// one root joint per bone the binding maps a track to (per track without a binding),
/// named `bone N` by index, at the identity pose. The animation then exports and poses
/// track by track; `--skeleton` gives the real hierarchy (docs/anim-export.md).
fn stand_in(clip: &str, id: ObjectId, binding: Option<&Binding>, tracks: usize) -> Skeleton {
    let bones = (0..tracks)
        .map(|t| binding.map_or(Some(t), |b| b.bone_of_track(t)))
        .filter_map(|b| b.map(|b| b + 1))
        .max()
        .unwrap_or(0);
    Skeleton {
        object: id,
        name: format!("stand-in for {clip}"),
        bones: (0..bones)
            .map(|i| Bone {
                name: format!("bone {i}"),
                parent: None,
                reference: Transform::IDENTITY,
                lock_translation: false,
            })
            .collect(),
        float_slots: Vec::new(),
        reference_floats: Vec::new(),
    }
}

/// The skeleton a binding names (by `originalSkeletonName`), else `--skeleton`'s first,
/// else the file's first.
fn pick_skeleton(skeletons: &[Skeleton], own: usize, binding: Option<&Binding>) -> Option<usize> {
    let named = binding
        .and_then(|b| b.skeleton_name.as_deref())
        .and_then(|n| skeletons.iter().position(|s| s.name == n));
    named
        .or((skeletons.len() > own).then_some(own))
        .or((!skeletons.is_empty()).then_some(0))
}

/// The bone of each of `tracks` transform tracks, checked against the skeleton.
fn track_bones(
    skeleton: &Skeleton,
    binding: Option<&Binding>,
    tracks: usize,
) -> std::result::Result<Vec<Option<usize>>, String> {
    let bones = skeleton.bones.len();
    (0..tracks)
        .map(|t| {
            let bone = match binding {
                Some(b) => b.bone_of_track(t),
                None => Some(t),
            };
            match bone {
                Some(b) if b >= bones => Err(format!(
                    "track {t} drives bone {b}, but skeleton {:?} has {bones} bones",
                    skeleton.name
                )),
                b => Ok(b),
            }
        })
        .collect()
}

/// The bone of each body of `bodies`: the ragdoll instances' `rigidBodies[i]` is driven
/// by the bone `boneToRigidBodyMap` maps to `i` (bone `i` without a map) of the
/// instance's skeleton.
fn attach(graph: &Graph, bodies: &Scene, skeletons: &[Skeleton]) -> Vec<Attached> {
    let mut attached: Vec<Attached> = (0..bodies.bodies.len())
        .map(|body| Attached { body, bone: None })
        .collect();
    for id in graph.find("hkaRagdollInstance").collect::<Vec<_>>() {
        let list = match graph.get(id, "rigidBodies") {
            Ok(Value::Array(a)) => pointers(&a),
            _ => continue,
        };
        let Some(skel) = (match graph.get(id, "skeleton") {
            Ok(Value::Pointer(Some(Ptr::Object(o)))) => {
                skeletons.iter().position(|s| s.object == o)
            }
            _ => None,
        }) else {
            continue;
        };
        let map = match graph.get(id, "boneToRigidBodyMap") {
            Ok(Value::Array(a)) => integers(&a),
            _ => Vec::new(),
        };
        for bone in 0..skeletons[skel].bones.len() {
            let index = if map.is_empty() {
                Some(bone as i64)
            } else {
                map.get(bone).copied()
            };
            let object = index
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| list.get(i).copied().flatten());
            let at = object.and_then(|o| bodies.bodies.iter().position(|b| b.object == o));
            if let Some(at) = at {
                attached[at].bone.get_or_insert((skel, bone));
            }
        }
    }
    attached
}

/// The objects an array of pointers names.
fn pointers(a: &Array) -> Vec<Option<ObjectId>> {
    match a {
        Array::Values(v) => v
            .iter()
            .map(|x| match x {
                Value::Pointer(Some(Ptr::Object(o))) => Some(*o),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// An integer array's values.
fn integers(a: &Array) -> Vec<i64> {
    match a {
        Array::I8(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::I16(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::U16(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::U32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        _ => Vec::new(),
    }
}

/// The glTF bytes of the rig of `doc` (the file at `path`) and a line saying what they
/// hold.
///
/// # Errors
/// As [`load`], and values glTF cannot hold ([`gltf::encode`]).
pub fn export(
    ctx: &Context,
    path: &Path,
    doc: &Document,
    container: crate::collision::gltf::Container,
    opts: &LoadOptions<'_>,
) -> Result<(Vec<u8>, String)> {
    let rig = load(ctx, path, doc, opts)?;
    let e = gltf::encode(&rig, container).map_err(|m| Error::geometry(path, m))?;
    let mut line = format!(
        "{} skeletons, {} joints, {} animations ({} channels, {} keyframes), {} body meshes",
        rig.skeletons.len(),
        e.joints,
        e.animations,
        e.channels,
        e.keyframes,
        e.meshes
    );
    if !rig.skipped.is_empty() {
        line += &format!(
            "; {} animations of formats hk does not decode left out ({})",
            rig.skipped.len(),
            rig.skipped.join(", ")
        );
    }
    if !rig.stand_ins.is_empty() {
        line += &format!(
            "; warning: no skeleton for {} (exported on stand-in joints `bone N`, one per bound bone, without hierarchy; --skeleton names the file that holds the skeleton)",
            rig.stand_ins.join(", ")
        );
    }
    Ok((e.bytes, line))
}

/// What `hk render` poses.
#[derive(Clone, Copy, Debug, Default)]
pub struct PoseOptions<'a> {
    /// How the file is read.
    pub load: LoadOptions<'a>,
    /// The animation to pose (its index among the file's decoded ones); the first when a
    /// frame or time is given without one.
    pub animation: Option<usize>,
    /// The pose.
    pub when: render::When,
}

/// `hk render FILE -o OUT.png` of a file of skeletons and animations: the pose drawn as
/// bones ([`render::pose`]); a file of neither goes to the collision renderer
/// ([`crate::collision::render_file`]).
///
/// # Errors
/// A file that does not read, nothing to draw, a pose asked of a file without skeletons,
/// or a PNG that cannot be written.
pub fn render_file(
    ctx: &Context,
    path: &Path,
    out: &Path,
    opts: &crate::collision::render::RenderOptions,
    pose: &PoseOptions<'_>,
    o: &mut crate::out::Out<'_>,
) -> Result<crate::Status> {
    use crate::out::outln;
    let outputs = crate::outputs::Outputs::reading([path]);
    outputs.check(out)?;
    let doc = ctx.open(path)?;
    let posed = pose.animation.is_some() || pose.when != render::When::Reference;
    if !holds_animation(&doc.graph) {
        if posed || pose.load.skeleton.is_some() {
            return Err(Error::usage(format!(
                "{}: holds no skeleton or animation to pose",
                path.display()
            )));
        }
        drop(doc);
        return crate::collision::render_file(ctx, path, out, opts, o);
    }
    let rig = load(ctx, path, &doc, &pose.load)?;
    drop(doc);
    let clip = match pose.animation {
        Some(a) => Some(a),
        None if posed && !rig.clips.is_empty() => Some(0),
        None if posed => {
            return Err(Error::usage(format!(
                "{}: no animation to pose",
                path.display()
            )))
        }
        None => None,
    };
    let (pixmap, drawn) =
        render::pose(&rig, clip, pose.when, opts).map_err(|m| Error::geometry(path, m))?;
    let png = pixmap
        .encode_png()
        .map_err(|e| Error::geometry(path, format!("encoding the PNG: {e}")))?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    outputs.write(out, &png)?;
    outln!(
        o,
        "{}: {} joints, {} bones drawn{} -> {} ({}x{}, {} bytes)",
        path.display(),
        drawn.joints,
        drawn.bones,
        match (&drawn.animation, drawn.frame) {
            (Some(a), Some(f)) => format!(" posed by animation {a} at frame {f}"),
            _ => " in the reference pose".to_string(),
        },
        out.display(),
        opts.width,
        opts.height,
        png.len()
    );
    Ok(crate::Status::Success)
}

/// Lines describing the skeletons and animations of `graph` for `hk info`: each
/// skeleton's name, bones and float slots; each animation's class, duration, frames and
/// tracks (frames only for the formats hk decodes).
pub fn describe(graph: &Graph) -> Vec<String> {
    let graph = &*graph.with_struct_values();
    let mut out = Vec::new();
    for id in anim::skeleton::skeleton_ids(graph) {
        out.push(match Skeleton::read(graph, id) {
            Ok(s) => format!(
                "skeleton #{} {:?}: {} bones, {} float slots",
                id.0,
                s.name,
                s.bones.len(),
                s.float_slots.len()
            ),
            Err(e) => format!("skeleton #{}: {e}", id.0),
        });
    }
    for id in anim::animation_ids(graph) {
        let class = graph.class_name(id);
        let head = format!("animation #{} {class}", id.0);
        if !anim::decodes(graph, class) {
            let real = |m: &str| match graph.get(id, m) {
                Ok(Value::Real(v)) => format!("{v}"),
                _ => "?".to_string(),
            };
            let int = |m: &str| match graph.get(id, m) {
                Ok(Value::Int(v)) => format!("{v}"),
                Ok(Value::UInt(v)) => format!("{v}"),
                _ => "?".to_string(),
            };
            out.push(format!(
                "{head}: {} s, {} transform and {} float tracks (a format hk does not decode yet)",
                real("duration"),
                int("numberOfTransformTracks"),
                int("numberOfFloatTracks")
            ));
            continue;
        }
        out.push(match anim::animation(graph, id) {
            Ok(a) => format!(
                "{head}: {} s, {} frames, {} transform and {} float tracks, {} annotation tracks",
                a.decoder.duration(),
                a.decoder.frame_count(),
                a.decoder.transform_tracks(),
                a.decoder.float_tracks(),
                a.annotations.len()
            ),
            Err(e) => format!("{head}: {e}"),
        });
    }
    out
}
