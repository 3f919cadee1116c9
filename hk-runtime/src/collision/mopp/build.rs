//! A MOPP encoder: a correct (not optimal) code over a set of triangles, in the commands
//! [`Code::query`] runs (docs/mopp.md §2 and §6).
//!
//! The integer space is the one docs/mopp.md §1 describes: the origin is the minimum corner
//! of the triangles' box and the scale puts its largest extent at 0.99 × 2²⁴ units. The
//! tree splits the triangles in two halves at the median of their centres on the axis where
//! the centres spread most (`10`–`12`, or `23`–`25` with a 32-bit forward jump `08` when a
//! left subtree is longer than 255 bytes), and each leaf is one triangle: its box as three
//! 24-bit bounds against the query's root coordinates (`29`–`2B`) and a terminal (`30`–`4F`
//! or `50`–`53`). Triangles the degenerate rule leaves out ([`crate::collision::mopp::degenerate`])
//! get no terminal, as in a Havok build.

use crate::graph::ObjectId;

use crate::collision::math::{Aabb, Vec3};
use crate::collision::mopp::{degenerate, Code, MARGIN};

/// The integer extent the largest side of the box is scaled to (docs/mopp.md §1).
const EXTENT: f32 = 0.99 * (1u32 << 24) as f32;

/// The largest integer coordinate of the space.
const TOP: i64 = (1 << 24) - 1;

/// One triangle's key and integer box.
#[derive(Clone, Copy, Debug)]
struct Leaf {
    key: u32,
    /// Per axis `[min, max]`, within `0..=TOP`.
    b: [[i64; 2]; 3],
}

impl Leaf {
    fn centre(&self, axis: usize) -> i64 {
        self.b[axis][0] + self.b[axis][1]
    }
}

/// Builds a MOPP code over `triangles` (each a shape key and its three corners, in the
/// space the code's queries take). `None` when every triangle is degenerate (or there are
/// none).
pub fn build(triangles: &[(u32, [Vec3; 3])]) -> Option<Code> {
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
    let mut leaves: Vec<Leaf> = kept
        .iter()
        .filter_map(|(key, p)| {
            let aabb = Aabb::of(p.iter().copied())?;
            // The query's own quantization, without its margin: the same f32 arithmetic.
            let q = code.quantize(&aabb);
            let b = q.map(|[lo, hi]| [(lo + MARGIN).clamp(0, TOP), (hi - MARGIN).clamp(0, TOP)]);
            Some(Leaf { key: *key, b })
        })
        .collect();
    code.bytes = emit(&mut leaves);
    Some(code)
}

/// The code of a subtree over `leaves` (not empty): position-independent, every jump
/// relative and forward.
fn emit(leaves: &mut [Leaf]) -> Vec<u8> {
    if let [leaf] = leaves {
        return terminal(leaf);
    }
    let spread = |axis: usize| {
        let (lo, hi) = leaves.iter().fold((i64::MAX, i64::MIN), |(lo, hi), l| {
            (lo.min(l.centre(axis)), hi.max(l.centre(axis)))
        });
        hi - lo
    };
    let axis = (0..3)
        .max_by_key(|&a| (spread(a), std::cmp::Reverse(a)))
        .unwrap_or(0);
    leaves.sort_by_key(|l| (l.centre(axis), l.key));
    let (left, right) = leaves.split_at_mut(leaves.len() / 2);
    // A query reaches a left triangle only when its minimum is at most the triangle's
    // maximum, and a right one only when its maximum is at least the triangle's minimum
    // (compared in high bytes, as the split command does).
    let left_max = left.iter().map(|l| l.b[axis][1] >> 16).max().unwrap_or(0) as u8;
    let right_min = right.iter().map(|l| l.b[axis][0] >> 16).min().unwrap_or(0) as u8;
    let l = emit(left);
    let r = emit(right);
    let mut out = Vec::with_capacity(l.len() + r.len() + 12);
    let a = axis as u8;
    if let Ok(n) = u8::try_from(l.len()) {
        out.extend_from_slice(&[0x10 + a, left_max, right_min, n]);
    } else if let Ok(n) = u16::try_from(l.len()) {
        out.extend_from_slice(&[0x23 + a, left_max, right_min, 0, 0]);
        out.extend_from_slice(&n.to_be_bytes());
    } else {
        // Left 5 bytes on (past the long jump), right straight to the long jump over the
        // left subtree.
        out.extend_from_slice(&[0x23 + a, left_max, right_min, 0, 5, 0, 0, 0x08]);
        out.extend_from_slice(&(l.len() as u32).to_be_bytes());
    }
    out.extend_from_slice(&l);
    out.extend_from_slice(&r);
    out
}

/// A leaf: the triangle's box as three root-space bounds, then its terminal.
fn terminal(leaf: &Leaf) -> Vec<u8> {
    let mut out = Vec::with_capacity(26);
    for (axis, [lo, hi]) in leaf.b.iter().enumerate() {
        out.push(0x29 + axis as u8);
        out.extend_from_slice(&(*lo as u32).to_be_bytes()[1..]);
        out.extend_from_slice(&(*hi as u32).to_be_bytes()[1..]);
    }
    let k = leaf.key;
    match k {
        0..=0x1F => out.push(0x30 + k as u8),
        0x20..=0xFF => out.extend_from_slice(&[0x50, k as u8]),
        0x100..=0xFFFF => {
            out.push(0x51);
            out.extend_from_slice(&(k as u16).to_be_bytes());
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0x52);
            out.extend_from_slice(&k.to_be_bytes()[1..]);
        }
        _ => {
            out.push(0x53);
            out.extend_from_slice(&k.to_be_bytes());
        }
    }
    out
}
