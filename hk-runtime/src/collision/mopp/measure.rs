//! How good a MOPP code is over its triangles (docs/mopp.md §6): its bytes, the commands a
//! query runs and the keys it returns over random boxes, and the triangles it misses
//! against a brute-force overlap test.

pub use crate::collision::math::random_boxes;
use crate::collision::math::{Aabb, Vec3};
use crate::collision::mopp::{degenerate, Budget, Code};
use crate::collision::Result;

/// The figures of one code over a set of random boxes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Code bytes.
    pub bytes: usize,
    /// Commands run per query, on average.
    pub commands: f64,
    /// Keys returned per query, on average.
    pub keys: f64,
    /// Pairs of a box and a kept triangle whose box overlaps it that the query did not
    /// return.
    pub misses: usize,
    /// Kept triangles their own box does not find.
    pub own_misses: usize,
    /// Terminals that name a degenerate triangle or no triangle.
    pub stray: usize,
}

/// Measures `code` over `triangles` (shape keys and corners in the code's space) with
/// `boxes`.
///
/// # Errors
/// What running the code reports.
pub fn measure(code: &Code, triangles: &[(u32, [Vec3; 3])], boxes: &[Aabb]) -> Result<Figures> {
    let mut kept: Vec<(u32, Aabb)> = Vec::new();
    let mut left_out = Vec::new();
    for (k, [a, b, c]) in triangles {
        let Some(aabb) = Aabb::of([*a, *b, *c]) else {
            continue;
        };
        if degenerate(*a, *b, *c) {
            left_out.push(*k);
        } else {
            kept.push((*k, aabb));
        }
    }
    let mut f = Figures {
        bytes: code.bytes.len(),
        ..Figures::default()
    };
    let (mut commands, mut keys) = (0usize, 0usize);
    for q in boxes {
        let mut budget = Budget::unlimited();
        let got = code.query_within(q, &mut budget)?;
        commands += budget.used();
        keys += got.len();
        f.misses += kept
            .iter()
            .filter(|(k, b)| b.overlaps(q) && got.binary_search(k).is_err())
            .count();
    }
    let n = boxes.len().max(1) as f64;
    f.commands = commands as f64 / n;
    f.keys = keys as f64 / n;
    for (k, b) in &kept {
        if code.query(b)?.binary_search(k).is_err() {
            f.own_misses += 1;
        }
    }
    let mut kept_keys: Vec<u32> = kept.iter().map(|(k, _)| *k).collect();
    kept_keys.sort_unstable();
    f.stray = code
        .terminals()?
        .iter()
        .filter(|k| kept_keys.binary_search(k).is_err())
        .count();
    Ok(f)
}
