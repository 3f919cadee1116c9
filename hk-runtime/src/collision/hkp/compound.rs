//! `hkpStaticCompoundShape` (Havok 2012.2 to 2014): instances of child shapes, each placed
//! by a `qstransform` (scale included) whose translation's w lane carries flags, and a
//! static tree over the instances (docs/collision-notes.md §11).

use crate::graph::{Graph, ObjectId};

use crate::collision::access::Rec;
use crate::collision::hkp::bvmesh::{aabb, leaf_table, nodes};
use crate::collision::hkp::pack::Storage;
use crate::collision::math::{Aabb, Affine};
use crate::collision::{Mesh, Result};

/// Instance flag: the child shape is convex.
pub const FLAG_CONVEX: u32 = 1;
/// Instance flag: the transform is not the identity.
pub const FLAG_TRANSFORMED: u32 = 2;
/// Instance flag: some scale lane is not 1.
pub const FLAG_SCALED: u32 = 4;
/// Instance flag: an odd number of scale lanes are negative (the child is mirrored).
pub const FLAG_FLIPPED: u32 = 8;

/// The bits Havok keeps in the w lane besides the flags (its 24-bit integer in a float:
/// the float is `0x3F000000 | value`, about 0.5).
pub const W_BASE: u32 = 0x3F00_0000;

/// One instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// The child shape (`None` for a null pointer).
    pub shape: Option<ObjectId>,
    /// The stored `qstransform`: translation, rotation quaternion, scale (four lanes each).
    pub qs: [f32; 12],
    /// Its transform (scale, then rotation, then translation).
    pub transform: Affine,
    /// The flags: the low 24 bits of the translation's w lane.
    pub flags: u32,
    /// `userData`.
    pub user_data: u64,
    /// `filterInfo`.
    pub filter_info: u32,
}

/// The flags a `qstransform` calls for ([`FLAG_TRANSFORMED`], [`FLAG_SCALED`],
/// [`FLAG_FLIPPED`]; `convex` adds [`FLAG_CONVEX`]).
pub fn flags_of(qs: &[f32; 12], convex: bool) -> u32 {
    let scale = &qs[8..11];
    let identity = qs[..3] == [0.0; 3] && qs[4..8] == [0.0, 0.0, 0.0, 1.0] && scale == [1.0; 3];
    let mut f = u32::from(convex) * FLAG_CONVEX;
    if !identity {
        f |= FLAG_TRANSFORMED;
    }
    if scale != [1.0; 3] {
        f |= FLAG_SCALED;
    }
    if scale.iter().filter(|s| **s < 0.0).count() % 2 == 1 {
        f |= FLAG_FLIPPED;
    }
    f
}

/// A decoded compound.
#[derive(Clone, Debug, PartialEq)]
pub struct Compound {
    /// The instances.
    pub instances: Vec<Instance>,
    /// The bits of a child's shape key under the instance index
    /// (`numBitsForChildShapeKey`).
    pub child_key_bits: u32,
    /// The tree's box (`tree.domain`).
    pub domain: Aabb,
    /// Per instance, its leaf box in the tree (empty when no tree is stored).
    pub leaf_boxes: Vec<Aabb>,
}

/// Decodes static compound `id`.
///
/// # Errors
/// A member missing or of the wrong kind, a transform that is not a `qstransform`, a
/// child key width outside 0-31, a tree that does not cover every instance once: each
/// naming the object and member.
pub fn decode(graph: &Graph, id: ObjectId) -> Result<Compound> {
    decode_rec(&Rec::object(&graph.with_struct_values(), id)?)
}

pub(crate) fn decode_rec(r: &Rec<'_>) -> Result<Compound> {
    let bits = r.int("numBitsForChildShapeKey")?;
    let child_key_bits = u32::try_from(bits)
        .ok()
        .filter(|&b| b < 32)
        .ok_or_else(|| r.err("numBitsForChildShapeKey", format!("{bits}: not 0 to 31")))?;
    let mut instances = Vec::new();
    for i in r.recs("instances")? {
        let f = i.floats("transform", 12)?;
        let mut qs = [0f32; 12];
        qs.copy_from_slice(&f[..12]);
        let transform =
            Affine::from_qs(&qs).ok_or_else(|| i.err("transform", "expected a qstransform"))?;
        let filter = i.int("filterInfo")?;
        instances.push(Instance {
            shape: i.ptr("shape")?,
            qs,
            transform,
            flags: qs[3].to_bits() & 0xFF_FFFF,
            user_data: i.int("userData")? as u64,
            filter_info: u32::try_from(filter)
                .map_err(|_| i.err("filterInfo", format!("{filter}: not a 32-bit word")))?,
        });
    }
    let n = instances.len();
    if n > 0 && (n as u64 - 1) >> (32 - child_key_bits) != 0 {
        return Err(r.err(
            "instances",
            format!("{n} instances do not fit a key above {child_key_bits} child bits"),
        ));
    }
    let t = r.rec("tree")?;
    let domain = aabb(&t, "domain")?;
    let tree = nodes(&t, Storage::Axis6)?;
    let leaf_boxes = if tree.is_empty() {
        Vec::new()
    } else {
        leaf_table(&t, "nodes", &tree, &domain, n)?
            .into_iter()
            .map(|(_, b)| b)
            .collect()
    };
    Ok(Compound {
        instances,
        child_key_bits,
        domain,
        leaf_boxes,
    })
}

/// The meshes of instance `index`, walked from its child: named `…@index`, each triangle's
/// key `index << child_key_bits | child key`.
pub(crate) fn rekey(meshes: &mut [Mesh], index: usize, child_key_bits: u32) {
    for m in meshes {
        m.name = format!("{}@{index}", m.name);
        for t in &mut m.triangles {
            t.key = ((index as u64) << child_key_bits | u64::from(t.key)) as u32;
        }
    }
}
