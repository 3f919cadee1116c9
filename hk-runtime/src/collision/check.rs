//! Checks of a MOPP code against the triangles it indexes (docs/mopp.md §5): every kept
//! triangle is found by its own box, no terminal names a triangle that is missing or left
//! out, and a box far outside the code's space finds nothing.

use std::collections::HashSet;

use super::math::Aabb;
use super::mopp::degenerate;
use super::{Result, Scene};

/// One triangle a code indexes, in the code's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Indexed {
    /// Its shape key.
    pub key: u32,
    /// Its box in the code's space.
    pub aabb: Aabb,
    /// Whether the degenerate-triangle rule leaves it out of the code.
    pub degenerate: bool,
}

/// The triangles of every mesh under code `code`, in the code's space.
pub fn indexed(scene: &Scene, code: usize) -> Vec<Indexed> {
    let mut out = Vec::new();
    for (_, m) in scene.meshes().filter(|(_, m)| m.code == Some(code)) {
        let p: Vec<_> = m.vertices.iter().map(|&v| m.to_code.apply(v)).collect();
        for t in &m.triangles {
            let [a, b, c] = t.v.map(|i| p[i as usize]);
            if let Some(aabb) = Aabb::of([a, b, c]) {
                out.push(Indexed {
                    key: t.key,
                    aabb,
                    degenerate: degenerate(a, b, c),
                });
            }
        }
    }
    out
}

/// What [`check`] found for one code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Kept (not degenerate) triangles whose own box query returns their key.
    pub found: usize,
    /// Kept triangles.
    pub kept: usize,
    /// Triangles the degenerate rule leaves out.
    pub degenerate: usize,
    /// Distinct keys the code's terminals name.
    pub terminals: usize,
    /// Terminal keys that name no triangle, or a degenerate one (sorted).
    pub stray: Vec<u32>,
    /// Keys a box a kilometre outside the code's space returns.
    pub far: usize,
    /// Kept triangles not found (their keys, sorted; at most 100).
    pub missed: Vec<u32>,
}

impl Report {
    /// Whether everything checked holds.
    pub fn passes(&self) -> bool {
        self.found == self.kept && self.stray.is_empty() && self.far == 0
    }
}

/// Checks code `code` of `scene`.
///
/// # Panics
/// When `code` is not an index into [`Scene::codes`].
///
/// # Errors
/// What running the code reports (an unknown command, a jump out of the code).
pub fn check(scene: &Scene, code: usize) -> Result<Report> {
    let c = &scene.codes[code];
    let tris = indexed(scene, code);
    let mut r = Report::default();
    for t in &tris {
        if t.degenerate {
            r.degenerate += 1;
            continue;
        }
        r.kept += 1;
        if c.query(&t.aabb)?.binary_search(&t.key).is_ok() {
            r.found += 1;
        } else if r.missed.len() < 100 {
            r.missed.push(t.key);
        }
    }
    let kept: HashSet<u32> = tris
        .iter()
        .filter(|t| !t.degenerate)
        .map(|t| t.key)
        .collect();
    let terminals = c.terminals()?;
    r.terminals = terminals.len();
    r.stray = terminals
        .into_iter()
        .filter(|k| !kept.contains(k))
        .collect();
    // A metre-sized box 1000 units beyond the far corner of the code's space (2^24
    // integer units wide).
    let far = c.offset.map(|o| o + (1u32 << 24) as f32 / c.scale + 1000.0);
    r.far = c.query(&Aabb::centered(far, [1.0; 3]))?.len();
    Ok(r)
}
