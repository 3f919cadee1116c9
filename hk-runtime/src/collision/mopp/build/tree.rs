//! The tree a MOPP code is written from: a binary partition of the triangles' integer
//! boxes, each split chosen among binned planes on the three axes by the expected number of
//! triangle boxes a random query box overlaps below it (docs/mopp.md §6).

/// Per axis `[min, max]` in the code's root integer units.
pub(super) type IBox = [[i64; 2]; 3];

/// One triangle's key and integer box.
#[derive(Clone, Copy, Debug)]
pub(super) struct Leaf {
    pub key: u32,
    pub b: IBox,
}

impl Leaf {
    /// Twice the centre of the box on `axis`.
    fn centre(&self, axis: usize) -> i64 {
        self.b[axis][0] + self.b[axis][1]
    }
}

/// A node of the tree: the leaves `start..end` of [`Tree::leaves`] (contiguous, the left
/// child's first) and their union box.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    pub b: IBox,
    pub start: usize,
    pub end: usize,
    /// The split axis and the two children (indices into [`Tree::nodes`]); `None` for a
    /// leaf (one triangle).
    pub split: Option<(usize, usize, usize)>,
}

/// The partition: nodes (the root first) over the leaves in tree order.
pub(super) struct Tree {
    pub nodes: Vec<Node>,
    pub leaves: Vec<Leaf>,
}

/// Planes tried per axis: the boundaries between this many bins of the centres.
const BINS: usize = 16;

/// Below this depth a node halves its triangles at the median instead (on the axis where
/// the centres spread most), so no input makes the tree, and the writer's recursion over
/// it, deeper than this plus log₂ of the triangles.
const DEEPEST: usize = 48;

/// The empty box (the identity of [`grow`]).
const EMPTY: IBox = [[i64::MAX, i64::MIN]; 3];

/// Grows `acc` to hold `b`.
fn grow(acc: &mut IBox, b: &IBox) {
    for (x, y) in acc.iter_mut().zip(b) {
        x[0] = x[0].min(y[0]);
        x[1] = x[1].max(y[1]);
    }
}

/// The union of the leaves' boxes.
pub(super) fn union(leaves: &[Leaf]) -> IBox {
    let mut b = EMPTY;
    for l in leaves {
        grow(&mut b, &l.b);
    }
    b
}

/// How likely a random query box of side `query` overlaps box `b`: the volume of `b`
/// grown by the query on every axis (up to a common factor).
fn reach(b: &IBox, query: f64) -> f64 {
    b.iter().map(|[lo, hi]| (hi - lo) as f64 + query).product()
}

impl Tree {
    /// Partitions `leaves` (not empty) down to one leaf per node; `query` is the side of the
    /// query boxes the split costs assume, in integer units.
    pub fn build(leaves: Vec<Leaf>, query: f64) -> Tree {
        let mut t = Tree {
            nodes: Vec::with_capacity(2 * leaves.len()),
            leaves,
        };
        let n = t.leaves.len();
        t.node(0, n, query, 0);
        t
    }

    /// Adds the node over `start..end` and its subtree; returns its index.
    fn node(&mut self, start: usize, end: usize, query: f64, depth: usize) -> usize {
        let id = self.nodes.len();
        let b = union(&self.leaves[start..end]);
        self.nodes.push(Node {
            b,
            start,
            end,
            split: None,
        });
        if end - start == 1 {
            return id;
        }
        let (axis, mid) = if depth < DEEPEST {
            self.partition(start, end, query)
        } else {
            self.halve(start, end)
        };
        let left = self.node(start, mid, query, depth + 1);
        let right = self.node(mid, end, query, depth + 1);
        self.nodes[id].split = Some((axis, left, right));
        id
    }

    /// Halves `start..end` at the median centre on the axis where the centres spread most;
    /// returns the axis and where the right half starts.
    fn halve(&mut self, start: usize, end: usize) -> (usize, usize) {
        let leaves = &mut self.leaves[start..end];
        let spread = |axis: usize| {
            let (lo, hi) = leaves.iter().fold((i64::MAX, i64::MIN), |(lo, hi), l| {
                (lo.min(l.centre(axis)), hi.max(l.centre(axis)))
            });
            hi - lo
        };
        let axis = (0..3).max_by_key(|&a| (spread(a), 3 - a)).unwrap_or(0);
        let mid = leaves.len() / 2;
        leaves.select_nth_unstable_by_key(mid, |l| (l.centre(axis), l.key));
        (axis, start + mid)
    }

    /// Reorders `start..end` into a left and a right part on one axis; returns the axis
    /// and where the right part starts (both parts non-empty).
    fn partition(&mut self, start: usize, end: usize, query: f64) -> (usize, usize) {
        let leaves = &mut self.leaves[start..end];
        let mut best: Option<(f64, usize, i64, i64, usize)> = None;
        for axis in 0..3 {
            let (lo, hi) = leaves.iter().fold((i64::MAX, i64::MIN), |(lo, hi), l| {
                (lo.min(l.centre(axis)), hi.max(l.centre(axis)))
            });
            if hi == lo {
                continue;
            }
            let width = hi - lo;
            let bin = |c: i64| ((c - lo) as i128 * BINS as i128 / (width as i128 + 1)) as usize;
            let mut count = [0usize; BINS];
            let mut boxes = [EMPTY; BINS];
            for l in leaves.iter() {
                let k = bin(l.centre(axis));
                count[k] += 1;
                grow(&mut boxes[k], &l.b);
            }
            // Costs of the left parts (bins 0..=k) swept up, then of the right parts down.
            let mut left = [0f64; BINS];
            let (mut acc, mut n) = (EMPTY, 0);
            for k in 0..BINS {
                if count[k] > 0 {
                    grow(&mut acc, &boxes[k]);
                    n += count[k];
                }
                left[k] = if n > 0 {
                    reach(&acc, query) * n as f64
                } else {
                    0.0
                };
            }
            let (mut acc, mut n) = (EMPTY, 0);
            for k in (1..BINS).rev() {
                if count[k] > 0 {
                    grow(&mut acc, &boxes[k]);
                    n += count[k];
                }
                let nl = leaves.len() - n;
                if n == 0 || nl == 0 {
                    continue;
                }
                let cost = left[k - 1] + reach(&acc, query) * n as f64;
                if best.is_none_or(|b| cost < b.0) {
                    best = Some((cost, axis, lo, width, k));
                }
            }
        }
        let Some((_, axis, lo, width, k)) = best else {
            // Every centre the same: halves in key order.
            leaves.sort_unstable_by_key(|l| l.key);
            return (0, start + leaves.len() / 2);
        };
        let bin = |c: i64| ((c - lo) as i128 * BINS as i128 / (width as i128 + 1)) as usize;
        let mut mid = 0;
        for i in 0..leaves.len() {
            if bin(leaves[i].centre(axis)) < k {
                leaves.swap(i, mid);
                mid += 1;
            }
        }
        (axis, start + mid)
    }
}
