//! glTF 2.0 output of a [`Rig`] (docs/anim-export.md): each skeleton a hierarchy of joint
//! nodes (named as the bones, local translation, rotation and scale the reference pose)
//! with a skin whose inverse bind matrices come from the model-space reference pose; each
//! animation a glTF animation of translation, rotation and scale channels, one keyframe per
//! stored frame, LINEAR; each ragdoll body's shapes a mesh on a node under its bone.
//! Built with the collision glTF writer's builder, so the containers are the same.

use gltf::json::validation::Checked::Valid;
use gltf::json::{self, Index};
use hk_runtime::anim::{Skeleton, Transform};

use super::{Clip, Rig};
use crate::collision::gltf::{Builder, Container};

/// A rig as glTF bytes, with what they hold.
#[derive(Clone, Debug, Default)]
pub struct Encoded {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Joint nodes (bones over every skeleton).
    pub joints: usize,
    /// Animations.
    pub animations: usize,
    /// Channels over every animation.
    pub channels: usize,
    /// Keyframes over every animation (frames, once per animation).
    pub keyframes: usize,
    /// Body shapes written as meshes.
    pub meshes: usize,
}

/// A column-major 4 × 4 matrix, as glTF stores one.
pub type Mat4 = [f32; 16];

/// The matrix of `t`: translation × rotation × scale.
pub fn matrix(t: &Transform) -> Mat4 {
    let [x, y, z, w] = t.rotation;
    let [sx, sy, sz] = t.scale;
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let [tx, ty, tz] = t.translation;
    [
        r[0][0] * sx,
        r[0][1] * sx,
        r[0][2] * sx,
        0.0,
        r[1][0] * sy,
        r[1][1] * sy,
        r[1][2] * sy,
        0.0,
        r[2][0] * sz,
        r[2][1] * sz,
        r[2][2] * sz,
        0.0,
        tx,
        ty,
        tz,
        1.0,
    ]
}

/// `a × b`.
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut m = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            m[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    m
}

/// The inverse of an affine matrix (the identity for a singular one).
pub fn inverse(m: &Mat4) -> Mat4 {
    let a = |c: usize, r: usize| m[c * 4 + r];
    let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(2, 1) * a(1, 2))
        - a(1, 0) * (a(0, 1) * a(2, 2) - a(2, 1) * a(0, 2))
        + a(2, 0) * (a(0, 1) * a(1, 2) - a(1, 1) * a(0, 2));
    if det == 0.0 || !det.is_finite() {
        return matrix(&Transform::IDENTITY);
    }
    let i = 1.0 / det;
    // The inverse of the linear part: the transposed cofactors over the determinant.
    let l = [
        (a(1, 1) * a(2, 2) - a(2, 1) * a(1, 2)) * i,
        (a(2, 1) * a(0, 2) - a(0, 1) * a(2, 2)) * i,
        (a(0, 1) * a(1, 2) - a(1, 1) * a(0, 2)) * i,
        (a(2, 0) * a(1, 2) - a(1, 0) * a(2, 2)) * i,
        (a(0, 0) * a(2, 2) - a(2, 0) * a(0, 2)) * i,
        (a(1, 0) * a(0, 2) - a(0, 0) * a(1, 2)) * i,
        (a(1, 0) * a(2, 1) - a(2, 0) * a(1, 1)) * i,
        (a(2, 0) * a(0, 1) - a(0, 0) * a(2, 1)) * i,
        (a(0, 0) * a(1, 1) - a(1, 0) * a(0, 1)) * i,
    ];
    let t = [a(3, 0), a(3, 1), a(3, 2)];
    let lt = |r: usize| -(l[r] * t[0] + l[3 + r] * t[1] + l[6 + r] * t[2]);
    [
        l[0],
        l[1],
        l[2],
        0.0,
        l[3],
        l[4],
        l[5],
        0.0,
        l[6],
        l[7],
        l[8],
        0.0,
        lt(0),
        lt(1),
        lt(2),
        1.0,
    ]
}

/// `m` applied to point `p`.
pub fn apply(m: &Mat4, p: [f32; 3]) -> [f32; 3] {
    let c = |r: usize| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    [c(0), c(1), c(2)]
}

/// The model-space matrix of each bone in the reference pose: its parent's times its own.
pub fn model_matrices(s: &Skeleton) -> Vec<Mat4> {
    let mut out: Vec<Mat4> = Vec::with_capacity(s.bones.len());
    for b in &s.bones {
        let local = matrix(&b.reference);
        let m = match b.parent.and_then(|p| out.get(p)) {
            Some(p) => mul(p, &local),
            None => local,
        };
        out.push(m);
    }
    out
}

fn floats_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// A finite number, or an error naming what it belongs to.
fn finite(what: &str, v: &[f32]) -> Result<(), String> {
    match v.iter().all(|x| x.is_finite()) {
        true => Ok(()),
        false => Err(format!("{what}: a value is not finite ({v:?})")),
    }
}

/// Encodes `rig` as glTF.
///
/// # Errors
/// A value that is not finite (naming the bone or animation), or a buffer past 4 GiB.
pub fn encode(rig: &Rig, container: Container) -> Result<Encoded, String> {
    let mut b = Builder::new();
    let mut out = Encoded::default();
    let mut roots = Vec::new();
    // The joint node of each bone of each skeleton.
    let mut joints: Vec<Vec<Index<json::Node>>> = Vec::new();
    for s in &rig.skeletons {
        let (top, nodes) = skeleton_nodes(&mut b, s)?;
        out.joints += nodes.len();
        roots.push(top);
        joints.push(nodes);
    }
    for a in &rig.attached {
        let body = &rig.bodies.bodies[a.body];
        let to_bone = a
            .bone
            .map(|(s, bone)| inverse(&model_matrices(&rig.skeletons[s])[bone]));
        for mesh in &body.meshes {
            if mesh.triangles.is_empty() || mesh.vertices.is_empty() {
                continue;
            }
            let mut v = body.world_vertices(mesh);
            if let Some(m) = &to_bone {
                v.iter_mut().for_each(|p| *p = apply(m, *p));
            }
            let name = format!("{}/{}", body.name, mesh.name);
            let node = b.mesh_node(&name, &v, mesh, &rig.bodies)?;
            out.meshes += 1;
            match a.bone {
                Some((s, bone)) => add_child(&mut b, joints[s][bone], node),
                None => roots.push(node),
            }
        }
    }
    for clip in &rig.clips {
        let (channels, keys) = animation(&mut b, clip, &joints[clip.skeleton])?;
        out.animations += 1;
        out.channels += channels;
        out.keyframes += keys;
    }
    b.finish_buffer(container)?;
    if !roots.is_empty() {
        let scene = b.root.push(json::Scene {
            extensions: None,
            extras: Default::default(),
            name: Some("skeletons".to_string()),
            nodes: roots,
        });
        b.root.scene = Some(scene);
    }
    out.bytes = b.bytes(container)?;
    Ok(out)
}

fn add_child(b: &mut Builder, parent: Index<json::Node>, child: Index<json::Node>) {
    b.root.nodes[parent.value()]
        .children
        .get_or_insert_with(Vec::new)
        .push(child);
}

/// Node indices.
type Nodes = Vec<Index<json::Node>>;

/// The nodes of `s`: a node named as the skeleton (no joint, the identity), whose children
/// are the root bones' joint nodes, so every joint has one common root; and the joint nodes
/// (one per bone, in bone order), with the skin.
fn skeleton_nodes(b: &mut Builder, s: &Skeleton) -> Result<(Index<json::Node>, Nodes), String> {
    let top = b.root.push(json::Node {
        name: Some(if s.name.is_empty() {
            format!("skeleton #{}", s.object.0)
        } else {
            s.name.clone()
        }),
        ..Default::default()
    });
    let mut nodes: Nodes = Vec::with_capacity(s.bones.len());
    for bone in &s.bones {
        let t = &bone.reference;
        let what = format!("skeleton {:?}, bone {:?}", s.name, bone.name);
        finite(&what, &t.to_floats())?;
        let node = b.root.push(json::Node {
            name: Some(bone.name.clone()),
            translation: Some(t.translation),
            rotation: Some(json::scene::UnitQuaternion(unit(t.rotation))),
            scale: Some(t.scale),
            ..Default::default()
        });
        add_child(b, bone.parent.map_or(top, |p| nodes[p]), node);
        nodes.push(node);
    }
    if nodes.is_empty() {
        return Ok((top, nodes));
    }
    let ibm: Vec<f32> = model_matrices(s).iter().flat_map(inverse).collect();
    finite(
        &format!("skeleton {:?}, inverse bind matrices", s.name),
        &ibm,
    )?;
    let view = b.view_for(&floats_bytes(ibm), None);
    let acc = b.accessor_within(
        view,
        nodes.len(),
        json::accessor::ComponentType::F32,
        json::accessor::Type::Mat4,
        None,
    );
    b.root.push(json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: Some(acc),
        joints: nodes.clone(),
        name: Some(s.name.clone()),
        skeleton: Some(top),
    });
    Ok((top, nodes))
}

/// `q` normalised (the identity for a zero quaternion).
fn unit(q: [f32; 4]) -> [f32; 4] {
    hk_runtime::anim::math::normalize(q)
}

/// Adds `clip` as an animation of the nodes `joints`: (channels, keyframes).
fn animation(
    b: &mut Builder,
    clip: &Clip,
    joints: &[Index<json::Node>],
) -> Result<(usize, usize), String> {
    let n = clip.frames.frame_count;
    if n == 0 {
        return Ok((0, 0));
    }
    let times: Vec<f32> = (0..n).map(|i| clip.time(i)).collect();
    finite(&format!("animation {}, times", clip.name), &times)?;
    if times.windows(2).any(|w| w[1] <= w[0]) {
        return Err(format!(
            "animation {}: {n} frames over {} s give no increasing keyframe times",
            clip.name, clip.duration
        ));
    }
    let (lo, hi) = (times[0], times[n - 1]);
    let view = b.view_for(&floats_bytes(times), None);
    let input = b.accessor_within(
        view,
        n,
        json::accessor::ComponentType::F32,
        json::accessor::Type::Scalar,
        Some((vec![lo], vec![hi])),
    );
    let mut anim = json::Animation {
        extensions: None,
        extras: extras(clip),
        channels: Vec::new(),
        name: Some(clip.name.clone()),
        samplers: Vec::new(),
    };
    let mut done = vec![false; joints.len()];
    for (track, bone) in clip.bones.iter().enumerate() {
        let Some(bone) = *bone else { continue };
        if std::mem::replace(&mut done[bone], true) {
            continue;
        }
        let keys: Vec<Transform> = (0..n).map(|f| clip.frames.frame(f)[track]).collect();
        for (path, values, type_) in track_outputs(&keys) {
            finite(&format!("animation {}, track {track}", clip.name), &values)?;
            let view = b.view_for(&floats_bytes(values), None);
            let output =
                b.accessor_within(view, n, json::accessor::ComponentType::F32, type_, None);
            anim.channels.push(json::animation::Channel {
                sampler: Index::new(anim.samplers.len() as u32),
                target: json::animation::Target {
                    extensions: None,
                    extras: Default::default(),
                    node: joints[bone],
                    path: Valid(path),
                },
                extensions: None,
                extras: Default::default(),
            });
            anim.samplers.push(json::animation::Sampler {
                extensions: None,
                extras: Default::default(),
                input,
                interpolation: Valid(json::animation::Interpolation::Linear),
                output,
            });
        }
    }
    let channels = anim.channels.len();
    if channels > 0 {
        b.root.push(anim);
    }
    Ok((channels, if channels > 0 { n } else { 0 }))
}

/// A track's translation, rotation and scale keys as sampler outputs. Rotations are unit
/// quaternions, each on the same hemisphere as the one before (`q` and `-q` are one
/// rotation; glTF interpolates the stored pair as given).
fn track_outputs(
    keys: &[Transform],
) -> [(json::animation::Property, Vec<f32>, json::accessor::Type); 3] {
    use json::accessor::Type;
    use json::animation::Property;
    let mut prev = [0.0, 0.0, 0.0, 1.0];
    let mut rotations = Vec::with_capacity(keys.len() * 4);
    for k in keys {
        let mut q = unit(k.rotation);
        if hk_runtime::anim::math::dot(prev, q) < 0.0 {
            q = q.map(|c| -c);
        }
        rotations.extend_from_slice(&q);
        prev = q;
    }
    [
        (
            Property::Translation,
            keys.iter().flat_map(|k| k.translation).collect(),
            Type::Vec3,
        ),
        (Property::Rotation, rotations, Type::Vec4),
        (
            Property::Scale,
            keys.iter().flat_map(|k| k.scale).collect(),
            Type::Vec3,
        ),
    ]
}

/// An animation's extras: its object, class, duration, frames, blend and annotations.
fn extras(clip: &Clip) -> json::extras::Extras {
    let annotations: Vec<serde_json::Value> = clip
        .annotations
        .iter()
        .flat_map(|t| {
            t.annotations.iter().map(
                move |a| serde_json::json!({ "track": t.name, "time": a.time, "text": a.text }),
            )
        })
        .collect();
    let v = serde_json::json!({
        "object": clip.object.0,
        "class": clip.class,
        "duration": clip.duration,
        "frames": clip.frames.frame_count,
        "additive": clip.additive,
        "annotations": annotations,
    });
    serde_json::value::to_raw_value(&v).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hk_runtime::anim::Bone;
    use hk_runtime::graph::ObjectId;

    fn near(a: &Mat4, b: &Mat4) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    fn bone(name: &str, parent: Option<usize>, reference: Transform) -> Bone {
        Bone {
            name: name.into(),
            parent,
            reference,
            lock_translation: false,
        }
    }

    #[test]
    fn inverse_bind_matrices_undo_the_model_pose() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let a = Transform {
            translation: [1.0, 2.0, 3.0],
            rotation: [0.0, h, 0.0, h],
            scale: [1.0, 2.0, 0.5],
        };
        let b = Transform {
            translation: [0.0, 1.0, 0.0],
            rotation: [h, 0.0, 0.0, h],
            scale: [1.0; 3],
        };
        let s = Skeleton {
            object: ObjectId(0),
            name: "s".into(),
            bones: vec![bone("root", None, a), bone("child", Some(0), b)],
            float_slots: Vec::new(),
            reference_floats: Vec::new(),
        };
        let m = model_matrices(&s);
        let id = matrix(&Transform::IDENTITY);
        for x in &m {
            assert!(near(&mul(&inverse(x), x), &id), "{x:?}");
        }
        // The child's origin: the parent's transform applied to its translation.
        let p = apply(&m[0], [0.0, 1.0, 0.0]);
        assert!(p
            .iter()
            .zip(&m[1][12..15])
            .all(|(x, y)| (x - y).abs() < 1e-5));
        // A singular matrix inverts to the identity rather than to infinities.
        let flat = Transform {
            scale: [0.0; 3],
            ..Transform::IDENTITY
        };
        assert_eq!(inverse(&matrix(&flat)), id);
    }

    #[test]
    fn a_rig_without_animations_is_a_valid_skinned_hierarchy() {
        let s = Skeleton {
            object: ObjectId(0),
            name: "s".into(),
            bones: vec![
                bone("root", None, Transform::IDENTITY),
                bone("child", Some(0), Transform::IDENTITY),
            ],
            float_slots: Vec::new(),
            reference_floats: Vec::new(),
        };
        let rig = Rig {
            skeletons: vec![s],
            ..Rig::default()
        };
        for c in [Container::Json, Container::Binary] {
            let e = encode(&rig, c).unwrap();
            assert_eq!((e.joints, e.animations), (2, 0));
            let g = ::gltf::Gltf::from_slice(&e.bytes).unwrap();
            let skin = g.skins().next().unwrap();
            assert_eq!(skin.joints().count(), 2);
            // The skeleton's own node is the joints' common root.
            assert_eq!(skin.skeleton().map(|n| n.index()), Some(0));
            let top = g.nodes().next().unwrap();
            assert_eq!(top.name(), Some("s"));
            let root = g.nodes().nth(1).unwrap();
            assert_eq!(
                top.children().map(|n| n.index()).collect::<Vec<_>>(),
                [root.index()]
            );
            assert_eq!(
                root.children().map(|n| n.name()).collect::<Vec<_>>(),
                [Some("child")]
            );
            let scene = g.default_scene().unwrap();
            assert_eq!(scene.nodes().map(|n| n.index()).collect::<Vec<_>>(), [0]);
        }
    }
}
