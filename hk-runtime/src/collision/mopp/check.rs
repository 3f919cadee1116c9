//! Checks of a MOPP code against the triangles it indexes (docs/mopp.md §5): every kept
//! triangle is found by its own box, no terminal names a triangle that is missing or left
//! out, and a box far outside the code's space finds nothing. All the queries of one check
//! run within one cap on commands ([`cap`]), linear in the code and the triangles.

use std::collections::HashSet;

use crate::collision::math::{Aabb, Vec3};
use crate::collision::mopp::{degenerate, Budget, Code};
use crate::collision::{CollisionError, Result, Scene};

/// Commands the queries of one check may run together, per code byte and per triangle.
pub const COMMANDS_PER_UNIT: usize = 128;

/// Commands the queries of one check may run together whatever the sizes.
pub const COMMANDS_BASE: usize = 4096;

/// The cap on the commands of one check of `code` against `triangles` triangles:
/// [`COMMANDS_PER_UNIT`] per code byte and per triangle, plus [`COMMANDS_BASE`]. A query of
/// a tree-shaped code runs the commands on its path and on the diagonal splits it follows
/// (measured on the corpus maps: under 200 a triangle, a check about a tenth of its cap;
/// docs/mopp.md §5); a code that makes every query run most of its bytes reaches the cap,
/// and the check is refused rather than taking the product of the two sizes.
pub fn cap(code: &Code, triangles: usize) -> usize {
    COMMANDS_PER_UNIT
        .saturating_mul(code.bytes.len().saturating_add(triangles))
        .saturating_add(COMMANDS_BASE)
}

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

/// The triangles of every mesh under code `code` as shape keys and corners, in the code's
/// space (what [`crate::collision::mopp::build::build`] takes).
pub fn triangles(scene: &Scene, code: usize) -> Vec<(u32, [Vec3; 3])> {
    let mut out = Vec::new();
    for (_, m) in scene.meshes().filter(|(_, m)| m.code == Some(code)) {
        let p: Vec<_> = m.vertices.iter().map(|&v| m.to_code.apply(v)).collect();
        for t in &m.triangles {
            out.push((t.key, t.v.map(|i| p[i as usize])));
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
    /// Commands the check ran, all queries together (at most [`cap`]).
    pub commands: usize,
}

impl Report {
    /// Whether everything checked holds.
    pub fn passes(&self) -> bool {
        self.found == self.kept && self.stray.is_empty() && self.far == 0
    }
}

/// Checks code `code` of `scene`, within [`cap`] commands.
///
/// # Panics
/// When `code` is not an index into [`Scene::codes`].
///
/// # Errors
/// What running the code reports (an unknown command, a jump out of the code), or the cap
/// reached: an error naming the cap, the code and how far the check got.
pub fn check(scene: &Scene, code: usize) -> Result<Report> {
    let c = &scene.codes[code];
    let tris = indexed(scene, code);
    let mut budget = Budget::new(cap(c, tris.len()));
    let mut r = Report::default();
    let capped = |e: Box<CollisionError>, budget: &Budget, r: &Report, stage: String| {
        if !budget.spent() {
            return e;
        }
        let address = match *e {
            CollisionError::Mopp { address, .. } => address,
            _ => 0,
        };
        CollisionError::mopp(
            address,
            format!(
                "the check of code #{} ({} bytes) reached its cap of {} commands ({COMMANDS_PER_UNIT} a code byte and a triangle, plus {COMMANDS_BASE}) {stage}, with {} of the {} kept triangles before it found: its queries run far more commands than a tree of its size holds",
                c.object.0,
                c.bytes.len(),
                budget.cap(),
                r.found,
                r.kept,
            ),
        )
    };
    for (i, t) in tris.iter().enumerate() {
        if t.degenerate {
            r.degenerate += 1;
            continue;
        }
        let keys = c.query_within(&t.aabb, &mut budget).map_err(|e| {
            let stage = format!("in the query of triangle {} of {}", i + 1, tris.len());
            capped(e, &budget, &r, stage)
        })?;
        r.kept += 1;
        if keys.binary_search(&t.key).is_ok() {
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
    let done = format!("after all {} triangle queries", tris.len());
    let terminals = c.terminals_within(&mut budget).map_err(|e| {
        capped(
            e,
            &budget,
            &r,
            format!("{done}, in the walk of every terminal"),
        )
    })?;
    r.terminals = terminals.len();
    r.stray = terminals
        .into_iter()
        .filter(|k| !kept.contains(k))
        .collect();
    // A metre-sized box 1000 units beyond the far corner of the code's space (2^24
    // integer units wide).
    let far = c.offset.map(|o| o + (1u32 << 24) as f32 / c.scale + 1000.0);
    r.far = c
        .query_within(&Aabb::centered(far, [1.0; 3]), &mut budget)
        .map_err(|e| capped(e, &budget, &r, format!("{done}, in the far-box query")))?
        .len();
    r.commands = budget.used();
    Ok(r)
}
