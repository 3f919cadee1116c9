//! Skeletons (`hkaSkeleton`): bones with their parents and reference pose, float slots.

use crate::graph::{Graph, ObjectId};

use super::access::{is_a, Rec};
use super::{Result, Transform};

/// One bone.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Its name.
    pub name: String,
    /// Its parent's index, `None` for a root.
    pub parent: Option<usize>,
    /// Its reference (bind) pose, relative to the parent.
    pub reference: Transform,
    /// Whether animations leave its translation at the reference pose.
    pub lock_translation: bool,
}

/// A skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// The skeleton object.
    pub object: ObjectId,
    /// Its name.
    pub name: String,
    /// Bones, parents before children as Havok stores them.
    pub bones: Vec<Bone>,
    /// Names of the float slots.
    pub float_slots: Vec<String>,
    /// The float slots' reference values.
    pub reference_floats: Vec<f32>,
}

impl Skeleton {
    /// Object `id` as a skeleton.
    pub fn read(graph: &Graph, id: ObjectId) -> Result<Skeleton> {
        let rec: Rec<'_> = Rec::object(graph, id)?;
        let name = rec.string("name")?.unwrap_or_default().to_string();
        let parents: Vec<i64> = int_list(&rec, "parentIndices")?;
        let bones = rec.items("bones")?;
        let pose = rec.transforms("referencePose")?;
        if parents.len() != bones.len() || pose.len() != bones.len() {
            return Err(rec.err(
                "bones",
                format!(
                    "{} bones, {} parent indices and {} reference transforms",
                    bones.len(),
                    parents.len(),
                    pose.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(bones.len());
        for (i, (b, (&p, &reference))) in bones.iter().zip(parents.iter().zip(&pose)).enumerate() {
            let parent = match usize::try_from(p) {
                Ok(p) if p < i => Some(p),
                Err(_) if p == -1 => None,
                _ => {
                    return Err(rec.err(
                        "parentIndices",
                        format!("bone {i}'s parent {p} is not an earlier bone"),
                    ))
                }
            };
            let lock = b.opt("lockTranslation").is_some() && b.int("lockTranslation")? != 0;
            out.push(Bone {
                name: b.string("name")?.unwrap_or_default().to_string(),
                parent,
                reference,
                lock_translation: lock,
            });
        }
        let float_slots = string_list(&rec, "floatSlots")?;
        let reference_floats = if rec.opt("referenceFloats").is_some() {
            rec.reals("referenceFloats")?
        } else {
            Vec::new()
        };
        Ok(Skeleton {
            object: id,
            name,
            bones: out,
            float_slots,
            reference_floats,
        })
    }

    /// The index of the bone named `name`.
    pub fn bone(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// Model-space transforms of a local pose (one per bone): each bone's transform
    /// composed with its parent's. Scale is composed per axis, as Havok's
    /// `hkQsTransform` does.
    pub fn model_pose(&self, local: &[Transform]) -> Vec<Transform> {
        let mut out: Vec<Transform> = Vec::with_capacity(local.len());
        for (i, l) in local.iter().enumerate() {
            let m = match self.bones.get(i).and_then(|b| b.parent) {
                Some(p) if p < out.len() => compose(&out[p], l),
                _ => *l,
            };
            out.push(m);
        }
        out
    }
}

/// `parent` then `child`: the child's frame expressed in the parent's space.
pub fn compose(parent: &Transform, child: &Transform) -> Transform {
    use super::math::{mul, normalize, rotate};
    let s = [
        child.translation[0] * parent.scale[0],
        child.translation[1] * parent.scale[1],
        child.translation[2] * parent.scale[2],
    ];
    let r = rotate(parent.rotation, s);
    Transform {
        translation: [
            parent.translation[0] + r[0],
            parent.translation[1] + r[1],
            parent.translation[2] + r[2],
        ],
        rotation: normalize(mul(parent.rotation, child.rotation)),
        scale: [
            parent.scale[0] * child.scale[0],
            parent.scale[1] * child.scale[1],
            parent.scale[2] * child.scale[2],
        ],
    }
}

/// The skeleton objects of a graph, in object order.
pub fn skeleton_ids(graph: &Graph) -> Vec<ObjectId> {
    (0..graph.objects.len() as u32)
        .map(ObjectId)
        .filter(|&id| is_a(graph.schema(), graph.class_name(id), "hkaSkeleton"))
        .collect()
}

/// An integer array member as signed values.
pub(crate) fn int_list(rec: &Rec<'_>, name: &str) -> Result<Vec<i64>> {
    use crate::graph::Array;
    Ok(match rec.array(name)? {
        Array::I16(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::I8(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::U16(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::U32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::U8(v) => v.iter().map(|&x| i64::from(x)).collect(),
        Array::I64(v) => v.clone(),
        Array::U64(v) => v.iter().map(|&x| x as i64).collect(),
        Array::Values(v) if v.is_empty() => Vec::new(),
        a if a.is_empty() => Vec::new(),
        _ => return Err(rec.err(name, "expected an array of integers")),
    })
}

/// A string array member (null strings as empty), or nothing when the class lacks it.
fn string_list(rec: &Rec<'_>, name: &str) -> Result<Vec<String>> {
    use crate::graph::{Array, Value};
    if rec.opt(name).is_none() {
        return Ok(Vec::new());
    }
    match rec.array(name)? {
        Array::Values(v) => v
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone().unwrap_or_default()),
                _ => Err(rec.err(name, "expected strings")),
            })
            .collect(),
        _ => Err(rec.err(name, "expected an array of strings")),
    }
}
