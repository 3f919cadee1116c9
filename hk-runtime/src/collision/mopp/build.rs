//! A MOPP encoder: a compact code over a set of triangles, in the commands [`Code::query`]
//! runs (docs/mopp.md §2 and §6).
//!
//! The integer space is the one docs/mopp.md §1 describes: the origin is the minimum corner
//! of the triangles' box and the scale puts its largest extent at 127/128 × 2²⁴ units. Each
//! triangle's box is quantized with the query's own arithmetic. A binned split search
//! (`tree`) partitions the boxes down to one triangle a leaf; the writer (`emit`)
//! rescales into a node's box where it fits a smaller frame (`01`–`04`), so the 8-bit
//! splits (`10`–`12`, `20`–`22`) and bounds (`26`–`28`) below it stay precise, writes a
//! bound only where it cuts, and moves the terminal offset (`09`, `0A`, `0B`) so most
//! terminals are one byte (`30`–`4F`). Triangles the degenerate rule leaves out
//! ([`crate::collision::mopp::degenerate`]) get no terminal, as in a Havok build.

mod emit;
mod tree;

pub use emit::Tuning;

use crate::graph::ObjectId;

use crate::collision::math::{Aabb, Vec3};
use crate::collision::mopp::{degenerate, Code, MARGIN};
use tree::{Leaf, Tree};

/// The integer extent the largest side of the box is scaled to: 127/128 of 2²⁴, as in the
/// corpus maps' codes (docs/mopp.md §1).
const EXTENT: f32 = ((1u32 << 24) - (1u32 << 17)) as f32;

/// The largest integer coordinate of the space.
const TOP: i64 = (1 << 24) - 1;

impl Default for Tuning {
    /// The tuning measured on the corpus maps (docs/mopp.md §6).
    fn default() -> Tuning {
        Tuning {
            query: (1u64 << 24) as f64 / 16.0,
            leaf_gain: 0.04,
            node_gain: 0.1,
            rescale_min: 4,
        }
    }
}

/// Builds a MOPP code over `triangles` (each a shape key and its three corners, in the
/// space the code's queries take). `None` when every triangle is degenerate (or there are
/// none).
pub fn build(triangles: &[(u32, [Vec3; 3])]) -> Option<Code> {
    build_with(triangles, &Tuning::default())
}

/// As [`build`], with the writer's tuning given.
pub fn build_with(triangles: &[(u32, [Vec3; 3])], tuning: &Tuning) -> Option<Code> {
    let kept: Vec<&(u32, [Vec3; 3])> = triangles
        .iter()
        .filter(|(_, [a, b, c])| !degenerate(*a, *b, *c))
        .collect();
    let all = Aabb::of(kept.iter().flat_map(|(_, p)| p.iter().copied()))?;
    let extent = (0..3).map(|i| all.max[i] - all.min[i]).fold(0f32, f32::max);
    let scale = if extent > 0.0 { EXTENT / extent } else { 1.0 };
    let mut code = Code {
        object: ObjectId(u32::MAX),
        offset: all.min,
        scale,
        bytes: Vec::new(),
    };
    let leaves: Vec<Leaf> = kept
        .iter()
        .filter_map(|(key, p)| {
            let aabb = Aabb::of(p.iter().copied())?;
            // The query's own quantization, without its margin: the same f32 arithmetic.
            let q = code.quantize(&aabb);
            let b = q.map(|[lo, hi]| [(lo + MARGIN).clamp(0, TOP), (hi - MARGIN).clamp(0, TOP)]);
            Some(Leaf { key: *key, b })
        })
        .collect();
    let tree = Tree::build(leaves, tuning.query);
    code.bytes = emit::Writer::new(&tree, *tuning).code();
    Some(code)
}
