//! The packed numbers of Havok's static trees (2012.2 to 2014; docs/collision-notes.md §11):
//! 11-11-10 section vertices, 21-21-22 shared vertices, and the one-byte-per-axis child box
//! code of `hkcdStaticTree` nodes, both ways. The decoders here are what the readers use;
//! the encoders are what `bvmesh_build` writes with, so `pack(unpack(x)) == x` is testable.

use crate::collision::math::{Aabb, Vec3};

/// Bits of x, y, z in a packed (section) vertex.
pub const PACKED_BITS: [u32; 3] = [11, 11, 10];

/// Bits of x, y, z in a shared (mesh-wide) vertex.
pub const SHARED_BITS: [u32; 3] = [21, 21, 22];

/// The largest code of each axis of a packed vertex.
pub const PACKED_MAX: [u32; 3] = [(1 << 11) - 1, (1 << 11) - 1, (1 << 10) - 1];

/// The largest code of each axis of a shared vertex.
pub const SHARED_MAX: [u32; 3] = [(1 << 21) - 1, (1 << 21) - 1, (1 << 22) - 1];

/// The three codes of a packed vertex: x in bits 0-10, y in 11-21, z in 22-31.
pub fn unpack_packed(v: u32) -> [u32; 3] {
    [v & 0x7FF, (v >> 11) & 0x7FF, v >> 22]
}

/// A packed vertex from its codes (`None` when one is out of its range).
pub fn pack_packed(q: [u32; 3]) -> Option<u32> {
    (0..3)
        .all(|i| q[i] <= PACKED_MAX[i])
        .then(|| q[0] | q[1] << 11 | q[2] << 22)
}

/// The three codes of a shared vertex: x in bits 0-20, y in 21-41, z in 42-63.
pub fn unpack_shared(v: u64) -> [u32; 3] {
    [
        (v & 0x1F_FFFF) as u32,
        ((v >> 21) & 0x1F_FFFF) as u32,
        (v >> 42) as u32,
    ]
}

/// A shared vertex from its codes (`None` when one is out of its range).
pub fn pack_shared(q: [u32; 3]) -> Option<u64> {
    (0..3)
        .all(|i| q[i] <= SHARED_MAX[i])
        .then(|| u64::from(q[0]) | u64::from(q[1]) << 21 | u64::from(q[2]) << 42)
}

/// A section's vertex codec: `offset + code · scale` per axis (the section's `codecParms`:
/// three offsets, then three scales).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SectionCodec {
    /// Where code 0 lies.
    pub offset: Vec3,
    /// The step of one code.
    pub scale: Vec3,
}

impl SectionCodec {
    /// The codec that spans `b` with the full code range of each axis.
    pub fn spanning(b: &Aabb) -> SectionCodec {
        SectionCodec {
            offset: b.min,
            scale: [0, 1, 2].map(|i| (b.max[i] - b.min[i]) / PACKED_MAX[i] as f32),
        }
    }

    /// A packed vertex's position.
    pub fn decode(&self, v: u32) -> Vec3 {
        let q = unpack_packed(v);
        [0, 1, 2].map(|i| self.offset[i] + q[i] as f32 * self.scale[i])
    }

    /// The nearest packed vertex to `p` (codes clamped to their range).
    pub fn encode(&self, p: Vec3) -> u32 {
        let q = [0, 1, 2].map(|i| quantise(p[i], self.offset[i], self.scale[i], PACKED_MAX[i]));
        q[0] | q[1] << 11 | q[2] << 22
    }
}

/// A shared vertex's position in the mesh's `domain`: `min + code · (max - min) / (2ⁿ - 1)`.
pub fn decode_shared(v: u64, domain: &Aabb) -> Vec3 {
    let q = unpack_shared(v);
    [0, 1, 2].map(|i| {
        let step = (domain.max[i] - domain.min[i]) / SHARED_MAX[i] as f32;
        domain.min[i] + q[i] as f32 * step
    })
}

/// The nearest shared vertex to `p` in `domain` (codes clamped to their range).
pub fn encode_shared(p: Vec3, domain: &Aabb) -> u64 {
    let q = [0, 1, 2].map(|i| {
        let step = (domain.max[i] - domain.min[i]) / SHARED_MAX[i] as f32;
        quantise(p[i], domain.min[i], step, SHARED_MAX[i])
    });
    u64::from(q[0]) | u64::from(q[1]) << 21 | u64::from(q[2]) << 42
}

fn quantise(x: f32, offset: f32, step: f32, max: u32) -> u32 {
    if step.is_nan() || step <= 0.0 {
        return 0;
    }
    let q = ((x - offset) / step).round();
    if q.is_nan() || q <= 0.0 {
        0
    } else if q >= max as f32 {
        max
    } else {
        q as u32
    }
}

/// The box a node's code `xyz` gives inside its parent's box: per axis, with
/// `s = (parent max - parent min) / 226` and code byte `c`,
/// `min = parent min + (c >> 4)² · s` and `max = parent max - (c & 15)² · s`.
pub fn child_box(parent: &Aabb, xyz: [u8; 3]) -> Aabb {
    let mut b = *parent;
    for (i, c) in xyz.iter().enumerate() {
        let s = (parent.max[i] - parent.min[i]) * (1.0 / 226.0);
        let (hi, lo) = (f32::from(c >> 4), f32::from(c & 15));
        b.min[i] = parent.min[i] + hi * hi * s;
        b.max[i] = parent.max[i] - lo * lo * s;
    }
    b
}

/// The code whose [`child_box`] inside `parent` is the smallest box that still holds
/// `child` (conservative: the decoded box always contains `child`, as far as `child` lies
/// in `parent`).
pub fn child_code(parent: &Aabb, child: &Aabb) -> [u8; 3] {
    let mut xyz = [0u8; 3];
    for (i, c) in xyz.iter_mut().enumerate() {
        let (mut hi, mut lo) = (0u8, 0u8);
        for k in (0..16u8).rev() {
            let mut code = [0u8; 3];
            code[i] = k << 4;
            if child_box(parent, code).min[i] <= child.min[i] {
                hi = k;
                break;
            }
        }
        for k in (0..16u8).rev() {
            let mut code = [0u8; 3];
            code[i] = k;
            if child_box(parent, code).max[i] >= child.max[i] {
                lo = k;
                break;
            }
        }
        *c = hi << 4 | lo;
    }
    xyz
}

/// One node of a static tree, whatever its storage width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// The child box code.
    pub xyz: [u8; 3],
    /// Whether the node has two children (the next node, and the one `2 · index` on).
    pub internal: bool,
    /// An internal node: the leaves under its first child. A leaf: what it holds (a
    /// primitive of the section, a section of the mesh, an instance of the compound).
    pub index: u32,
}

/// How a tree's nodes store [`Node::internal`] and [`Node::index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `Codec3Axis4` (a section's tree over its primitives): one `data` byte, bit 0 set
    /// for an internal node, the index in bits 1-7.
    Axis4,
    /// `Codec3Axis5` (the mesh's tree over its sections): `hiData` bit 7 set for an
    /// internal node, the index `(hiData & 0x7F) << 8 | loData`.
    Axis5,
    /// `Codec3Axis6` (a compound's tree over its instances): as `Axis5` with a 16-bit
    /// `loData`.
    Axis6,
}

impl Storage {
    /// The largest index a node can hold.
    pub fn max_index(self) -> u32 {
        match self {
            Storage::Axis4 => 0x7F,
            Storage::Axis5 => 0x7FFF,
            Storage::Axis6 => 0x7F_FFFF,
        }
    }

    /// A node from its stored data (`data` for `Axis4`; `hiData` and `loData` otherwise).
    pub fn node(self, xyz: [u8; 3], hi: u32, lo: u32) -> Node {
        match self {
            Storage::Axis4 => Node {
                xyz,
                internal: hi & 1 == 1,
                index: (hi >> 1) & 0x7F,
            },
            Storage::Axis5 | Storage::Axis6 => {
                let shift = if self == Storage::Axis5 { 8 } else { 16 };
                Node {
                    xyz,
                    internal: hi & 0x80 != 0,
                    index: (hi & 0x7F) << shift | lo,
                }
            }
        }
    }

    /// The stored data of `n`: `(data, 0)` for `Axis4`, `(hiData, loData)` otherwise.
    pub fn data(self, n: &Node) -> (u32, u32) {
        let flag = u32::from(n.internal);
        match self {
            Storage::Axis4 => (n.index << 1 | flag, 0),
            Storage::Axis5 => ((n.index >> 8) | flag << 7, n.index & 0xFF),
            Storage::Axis6 => ((n.index >> 16) | flag << 7, n.index & 0xFFFF),
        }
    }
}

/// The leaves of a tree whose root box is coded against `domain`: `(node, index, box)` in
/// node order. Every node must be reached once (no node shared, none left over).
///
/// # Errors
/// A child past the end of the nodes, a node reached twice or never: a message naming
/// the node.
pub fn leaves(nodes: &[Node], domain: &Aabb) -> Result<Vec<(usize, u32, Aabb)>, String> {
    let mut out = Vec::new();
    if nodes.is_empty() {
        return Ok(out);
    }
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![(0usize, *domain)];
    while let Some((i, parent)) = stack.pop() {
        let n = nodes
            .get(i)
            .ok_or_else(|| format!("a child at node {i}, past the {} nodes", nodes.len()))?;
        if std::mem::replace(&mut seen[i], true) {
            return Err(format!("node {i} is reached twice"));
        }
        let b = child_box(&parent, n.xyz);
        if n.internal {
            let right = i
                .checked_add(2 * n.index as usize)
                .filter(|&r| r > i + 1)
                .ok_or_else(|| format!("node {i}: internal with a first child of no leaves"))?;
            stack.push((right, b));
            stack.push((i + 1, b));
        } else {
            out.push((i, n.index, b));
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        return Err(format!("node {i} of {} is never reached", nodes.len()));
    }
    Ok(out)
}

/// A tree over `boxes` for `storage`: nodes in depth-first order, the first child next,
/// each box coded conservatively against its parent's decoded box (the root against
/// `domain`), leaves holding the indices of `boxes`. The split halves the items along the
/// widest axis of their centres.
pub fn build_tree(boxes: &[Aabb], domain: &Aabb, storage: Storage) -> Vec<Node> {
    let mut nodes = Vec::with_capacity(boxes.len().saturating_mul(2));
    if boxes.is_empty() {
        return nodes;
    }
    let items: Vec<u32> = (0..boxes.len() as u32).collect();
    build_into(&items, boxes, domain, storage, &mut nodes);
    nodes
}

fn build_into(items: &[u32], boxes: &[Aabb], parent: &Aabb, storage: Storage, out: &mut Vec<Node>) {
    let bound = Aabb::of(items.iter().flat_map(|&k| {
        let b = boxes[k as usize];
        [b.min, b.max]
    }))
    .unwrap_or(*parent);
    let xyz = child_code(parent, &bound);
    let decoded = child_box(parent, xyz);
    let at = out.len();
    if let [one] = items {
        out.push(Node {
            xyz,
            internal: false,
            index: *one,
        });
        return;
    }
    let (left, right) = split(items, boxes);
    out.push(Node {
        xyz,
        internal: true,
        index: left.len() as u32,
    });
    debug_assert!(left.len() as u32 <= storage.max_index());
    build_into(&left, boxes, &decoded, storage, out);
    build_into(&right, boxes, &decoded, storage, out);
    debug_assert_eq!(out.len() - at, 2 * items.len() - 1);
}

/// Halves `items` along the widest axis of their box centres.
pub(crate) fn split(items: &[u32], boxes: &[Aabb]) -> (Vec<u32>, Vec<u32>) {
    let centre = |k: u32| {
        let b = boxes[k as usize];
        [0, 1, 2].map(|i| (b.min[i] + b.max[i]) * 0.5)
    };
    let c = Aabb::of(items.iter().map(|&k| centre(k))).unwrap_or(Aabb {
        min: [0.0; 3],
        max: [0.0; 3],
    });
    let axis = (0..3)
        .max_by(|&a, &b| (c.max[a] - c.min[a]).total_cmp(&(c.max[b] - c.min[b])))
        .unwrap_or(0);
    let mut sorted = items.to_vec();
    sorted.sort_by(|&a, &b| centre(a)[axis].total_cmp(&centre(b)[axis]).then(a.cmp(&b)));
    let right = sorted.split_off(sorted.len() / 2);
    (sorted, right)
}
