//! The one tree model every stored tree is flattened into for a check: nodes of lanes, each
//! lane a box that leads to a node or to shape keys, and the query that runs a box through it
//! within a shared cap on lane tests.

use crate::collision::math::Aabb;
use crate::collision::{CollisionError, Result};

/// Where a lane leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Another node of the tree (its index).
    Node(u32),
    /// The shape keys a leaf holds.
    Keys(Vec<u32>),
}

/// One lane: a stored box and where it leads.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// The box as the file stores it, decoded.
    pub aabb: Aabb,
    /// What is under it.
    pub to: Link,
}

/// One node: its lanes, and how many stored nodes it stands for (1 for a node of a 4-wide
/// tree, which tests four boxes at once; one per lane for a binary tree, where every stored
/// node is a box of its own).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// Its lanes.
    pub lanes: Vec<Lane>,
    /// Whether it is one stored node of several lanes.
    pub wide: bool,
}

/// A tree: its nodes, the root first. Every link points to a later node and every node but
/// the root is linked once, so a query visits each node at most once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    /// The nodes.
    pub nodes: Vec<Node>,
    /// Stored nodes the tree holds (what its file stores, counted as a query counts them).
    pub stored: usize,
}

/// Lane tests several queries may run together: each query stops at the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The cap.
    pub cap: usize,
    /// Lane tests so far.
    pub used: usize,
}

impl Tree {
    /// Checks that every link points to a later node and every node but the root is linked
    /// exactly once (so queries visit a node at most once). `what` names the tree in errors.
    ///
    /// # Errors
    /// A link back or past the end, a node linked twice or never.
    pub fn validate(&self, what: &str) -> Result<()> {
        let mut linked = vec![false; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            for l in &n.lanes {
                if let Link::Node(c) = l.to {
                    let c = c as usize;
                    if c <= i || c >= self.nodes.len() {
                        return Err(bad(what, format!("node {i} links to node {c}")));
                    }
                    if std::mem::replace(&mut linked[c], true) {
                        return Err(bad(what, format!("node {c} is linked twice")));
                    }
                }
            }
        }
        if let Some(i) = linked.iter().skip(1).position(|l| !l) {
            return Err(bad(what, format!("node {} is never linked", i + 1)));
        }
        Ok(())
    }

    /// The keys of every leaf whose lanes down from the root all overlap `q` (each lane box
    /// widened by `slack`), and the stored nodes visited; `None` when `budget` runs out.
    pub fn query(&self, q: &Aabb, slack: f32, budget: &mut Budget) -> Option<(Vec<u32>, usize)> {
        let mut keys = Vec::new();
        let mut visited = 0usize;
        if self.nodes.is_empty() {
            return Some((keys, 0));
        }
        let mut stack = vec![0u32];
        while let Some(i) = stack.pop() {
            let n = &self.nodes[i as usize];
            let cost = if n.wide { 1 } else { n.lanes.len() };
            visited += cost;
            budget.used += n.lanes.len();
            if budget.used > budget.cap {
                return None;
            }
            for l in &n.lanes {
                if !overlaps(&l.aabb, q, slack) {
                    continue;
                }
                match &l.to {
                    Link::Node(c) => stack.push(*c),
                    Link::Keys(k) => keys.extend_from_slice(k),
                }
            }
        }
        keys.sort_unstable();
        keys.dedup();
        Some((keys, visited))
    }
}

/// Whether `a` widened by `slack` on every side overlaps `q`.
pub fn overlaps(a: &Aabb, q: &Aabb, slack: f32) -> bool {
    (0..3).all(|i| a.min[i] - slack <= q.max[i] && q.min[i] <= a.max[i] + slack)
}

fn bad(what: &str, msg: String) -> Box<CollisionError> {
    CollisionError::shape(what, "tree", msg)
}
