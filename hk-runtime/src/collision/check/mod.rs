//! Checks of every tree a file stores against the triangles (or instances) it indexes: MOPP
//! codes (through [`crate::collision::mopp::check`]), the static trees of
//! `hkpBvCompressedMeshShape` and `hkpStaticCompoundShape`, the `hkcdDynamicTree` of an
//! `hknpCompoundShape`, and the two trees of an `hknpMeshShape` (docs/collision.md, "Checking
//! trees").
//!
//! For each tree: every item is found by a query of its own box, and random boxes return
//! every item whose box overlaps them (brute force); keys a query returns beyond those are
//! counted, never an error. All the queries of one tree run within one cap of lane tests
//! ([`cap`]), linear in the tree, its items and the boxes.

mod kinds;
pub mod rebuild;
pub mod tree;

use crate::graph::Graph;

pub use crate::collision::math::random_boxes;
pub use kinds::{subjects, Item, Subject};
use tree::{Budget, Tree};

use crate::collision::math::Aabb;
use crate::collision::mopp::{self, check as mcheck};
use crate::collision::{CollisionError, Result, Scene};

/// Lane tests (or MOPP commands) the queries of one check may run, per stored node, item
/// and random box.
pub const TESTS_PER_UNIT: usize = 128;

/// Lane tests the queries of one check may run whatever the sizes.
pub const TESTS_BASE: usize = 4096;

/// The cap on the lane tests of one tree's check: [`TESTS_PER_UNIT`] per stored node, item
/// and box, plus [`TESTS_BASE`].
pub fn cap(nodes: usize, items: usize, boxes: usize) -> usize {
    TESTS_PER_UNIT
        .saturating_mul(nodes.saturating_add(items).saturating_add(boxes))
        .saturating_add(TESTS_BASE)
}

/// What the check of one tree found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeCheck {
    /// The tree: `MOPP code #4`, `hkpBvCompressedMeshShape#0`.
    pub name: String,
    /// What it indexes (`triangles`, `instances`).
    pub items_are: &'static str,
    /// Whether the shape stores a tree hk reads (when not, nothing below was run).
    pub has_tree: bool,
    /// Stored nodes (MOPP: code bytes).
    pub nodes: usize,
    /// Items indexed (MOPP: kept triangles).
    pub items: usize,
    /// Items found by their own box.
    pub found: usize,
    /// Keys of items not found by their own box (at most 100).
    pub missed: Vec<u32>,
    /// Random boxes run.
    pub boxes: usize,
    /// Over the random boxes, items whose box overlaps that the tree did not return.
    pub misses: usize,
    /// Over the random boxes, keys returned whose item does not overlap (or that name no
    /// item).
    pub extra: usize,
    /// Over the random boxes, keys brute force expects.
    pub expected: usize,
    /// Over the random boxes, stored nodes visited (MOPP: commands run).
    pub visited: usize,
    /// What else fails (a MOPP code's stray terminals or far box), when something does.
    pub other: Option<String>,
}

impl TreeCheck {
    /// Whether the tree passes: every item found, no miss, nothing else wrong (a shape
    /// without a stored tree has nothing to fail).
    pub fn passes(&self) -> bool {
        !self.has_tree || (self.found == self.items && self.misses == 0 && self.other.is_none())
    }

    /// Stored nodes visited (MOPP: commands) per random box.
    pub fn visited_per_box(&self) -> f64 {
        self.visited as f64 / self.boxes.max(1) as f64
    }

    /// One line: `name: triangles found X/Y, N random boxes, M misses, E extra keys, V nodes/box`.
    pub fn line(&self) -> String {
        if !self.has_tree {
            return format!(
                "{}: {} {}, no tree stored that hk reads",
                self.name, self.items, self.items_are
            );
        }
        let (unit, stored) = if self.name.starts_with("MOPP") {
            ("commands", "code bytes")
        } else {
            ("nodes", "nodes stored")
        };
        let mut s = format!(
            "{}: {} found {}/{}, {} random boxes, {} misses, {} extra keys, {:.1} {unit}/box, {:.2} keys/box ({} {stored})",
            self.name,
            self.items_are,
            self.found,
            self.items,
            self.boxes,
            self.misses,
            self.extra,
            self.visited_per_box(),
            self.expected as f64 / self.boxes.max(1) as f64,
            self.nodes,
        );
        if !self.missed.is_empty() {
            s += &format!("; not found by their own box: {:?}", self.missed);
        }
        if let Some(o) = &self.other {
            s += &format!("; {o}");
        }
        s
    }
}

/// The checks of every tree of a file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeReport {
    /// One per tree, MOPP codes first, then the other shapes in object order.
    pub trees: Vec<TreeCheck>,
}

impl TreeReport {
    /// Whether every tree passes.
    pub fn passes(&self) -> bool {
        self.trees.iter().all(TreeCheck::passes)
    }
}

/// Checks every tree of `graph` (whose collision `scene` is) with `boxes` random boxes from
/// `seed`, and fails on the first tree that does not pass.
///
/// # Errors
/// A tree that does not decode, whose queries reach their cap, or that misses an item:
/// the error names the tree and gives its line ([`TreeCheck::line`]).
pub fn check_trees(graph: &Graph, scene: &Scene, boxes: usize, seed: u64) -> Result<TreeReport> {
    let r = survey(graph, scene, boxes, seed)?;
    if let Some(t) = r.trees.iter().find(|t| !t.passes()) {
        return Err(CollisionError::shape(
            t.name.clone(),
            "tree",
            format!("the tree fails its check: {}", t.line()),
        ));
    }
    Ok(r)
}

/// [`check_trees`] without failing on a tree that does not pass: every tree's findings.
///
/// # Errors
/// A tree that does not decode or whose queries reach their cap.
pub fn survey(graph: &Graph, scene: &Scene, boxes: usize, seed: u64) -> Result<TreeReport> {
    let mut r = TreeReport::default();
    for i in 0..scene.codes.len() {
        r.trees.push(check_code(scene, i, boxes, seed)?);
    }
    for s in subjects(graph)? {
        let within = union(&s.items);
        let b = within.map_or(Vec::new(), |w| random_boxes(&w, boxes, seed));
        r.trees.push(check_subject(&s, &b)?);
    }
    Ok(r)
}

/// Items sorted by the low x of their boxes, for brute-force overlap queries.
struct Brute<'a> {
    items: Vec<&'a Item>,
    widest: f32,
}

impl<'a> Brute<'a> {
    fn new(items: &'a [Item]) -> Brute<'a> {
        let mut v: Vec<&Item> = items.iter().collect();
        v.sort_by(|a, b| a.aabb.min[0].total_cmp(&b.aabb.min[0]));
        let widest = v
            .iter()
            .map(|i| i.aabb.max[0] - i.aabb.min[0])
            .fold(0f32, f32::max);
        Brute { items: v, widest }
    }

    /// The sorted distinct keys of the items whose boxes overlap `q`.
    fn keys(&self, q: &Aabb) -> Vec<u32> {
        let lo = self
            .items
            .partition_point(|i| i.aabb.min[0] < q.min[0] - self.widest);
        let hi = self.items.partition_point(|i| i.aabb.min[0] <= q.max[0]);
        let mut k: Vec<u32> = self.items[lo..hi.max(lo)]
            .iter()
            .filter(|i| i.aabb.overlaps(q))
            .map(|i| i.key)
            .collect();
        k.sort_unstable();
        k.dedup();
        k
    }
}

/// Counts of `want` missing from `got`, and of `got` beyond `want` (both sorted).
fn compare(want: &[u32], got: &[u32]) -> (usize, usize) {
    let missing = want
        .iter()
        .filter(|k| got.binary_search(k).is_err())
        .count();
    let extra = got
        .iter()
        .filter(|k| want.binary_search(k).is_err())
        .count();
    (missing, extra)
}

/// The box of every item.
pub fn union(items: &[Item]) -> Option<Aabb> {
    Aabb::of(items.iter().flat_map(|i| [i.aabb.min, i.aabb.max]))
}

/// The slack a lane box is widened by: float roundings at the scale of `within`.
fn slack(within: &Aabb) -> f32 {
    let m = (0..3)
        .map(|i| within.min[i].abs().max(within.max[i].abs()))
        .fold(1f32, f32::max);
    m * 1e-6
}

fn capped(name: &str, cap: usize, stage: &str) -> Box<CollisionError> {
    CollisionError::shape(
        name,
        "tree",
        format!(
            "the check reached its cap of {cap} lane tests ({TESTS_PER_UNIT} a stored node, item and box, plus {TESTS_BASE}) {stage}: its queries visit far more nodes than a tree of its size holds"
        ),
    )
}

/// Checks one stored tree: every item by its own box, then `boxes` against brute force.
///
/// # Errors
/// The queries reaching their cap ([`cap`]).
pub fn check_subject(s: &Subject, boxes: &[Aabb]) -> Result<TreeCheck> {
    let mut c = TreeCheck {
        name: s.name.clone(),
        items_are: s.items_are,
        items: s.items.len(),
        ..TreeCheck::default()
    };
    let (Some(t), Some(within)) = (&s.tree, union(&s.items)) else {
        c.has_tree = s.tree.is_some();
        c.nodes = s.tree.as_ref().map_or(0, |t| t.stored);
        return Ok(c);
    };
    c.has_tree = true;
    c.nodes = t.stored;
    let mut budget = Budget {
        cap: cap(t.stored, s.items.len(), boxes.len()),
        used: 0,
    };
    let e = slack(&within);
    for (i, it) in s.items.iter().enumerate() {
        let (keys, _) = t.query(&it.aabb, e, &mut budget).ok_or_else(|| {
            let stage = format!("in the query of item {} of {}", i + 1, s.items.len());
            capped(&s.name, budget.cap, &stage)
        })?;
        if keys.binary_search(&it.key).is_ok() {
            c.found += 1;
        } else if c.missed.len() < 100 {
            c.missed.push(it.key);
        }
    }
    run_boxes(&mut c, t, &s.items, &within, boxes, &mut budget)?;
    Ok(c)
}

fn run_boxes(
    c: &mut TreeCheck,
    t: &Tree,
    items: &[Item],
    within: &Aabb,
    boxes: &[Aabb],
    budget: &mut Budget,
) -> Result<()> {
    let brute = Brute::new(items);
    let e = slack(within);
    for b in boxes {
        let want = brute.keys(b);
        let (got, visited) = t
            .query(b, e, budget)
            .ok_or_else(|| capped(&c.name, budget.cap, "in the random boxes"))?;
        let (missing, extra) = compare(&want, &got);
        c.boxes += 1;
        c.misses += missing;
        c.extra += extra;
        c.expected += want.len();
        c.visited += visited;
    }
    Ok(())
}

/// Checks MOPP code `i` of `scene`: [`mopp::check::check`], then the random boxes.
fn check_code(scene: &Scene, i: usize, boxes: usize, seed: u64) -> Result<TreeCheck> {
    let code = &scene.codes[i];
    let r = mcheck::check(scene, i)?;
    let items: Vec<Item> = mcheck::indexed(scene, i)
        .into_iter()
        .filter(|t| !t.degenerate)
        .map(|t| Item {
            key: t.key,
            aabb: t.aabb,
        })
        .collect();
    let mut c = TreeCheck {
        name: format!("MOPP code #{}", code.object.0),
        items_are: "triangles",
        has_tree: true,
        nodes: code.bytes.len(),
        items: r.kept,
        found: r.found,
        missed: r.missed.clone(),
        ..TreeCheck::default()
    };
    if !r.stray.is_empty() || r.far != 0 {
        c.other = Some(format!(
            "{} terminals name no kept triangle, a box 1 km away returns {} keys",
            r.stray.len(),
            r.far
        ));
    }
    let Some(within) = union(&items) else {
        return Ok(c);
    };
    let cap = cap(code.bytes.len(), items.len(), boxes);
    let mut budget = mopp::Budget::new(cap);
    let brute = Brute::new(&items);
    for b in random_boxes(&within, boxes, seed) {
        let want = brute.keys(&b);
        let before = budget.used();
        let got = code.query_within(&b, &mut budget).map_err(|e| {
            if budget.spent() {
                capped(&c.name, cap, "in the random boxes")
            } else {
                e
            }
        })?;
        let (missing, extra) = compare(&want, &got);
        c.boxes += 1;
        c.misses += missing;
        c.extra += extra;
        c.expected += want.len();
        c.visited += budget.used() - before;
    }
    Ok(c)
}
