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

/// The union of the leaves' boxes.
pub(super) fn union(leaves: &[Leaf]) -> IBox {
    let mut b = [[i64::MAX, i64::MIN]; 3];
    for l in leaves {
        for a in 0..3 {
            b[a][0] = b[a][0].min(l.b[a][0]);
            b[a][1] = b[a][1].max(l.b[a][1]);
        }
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
        t.node(0, n, query);
        t
    }

    /// Adds the node over `start..end` and its subtree; returns its index.
    fn node(&mut self, start: usize, end: usize, query: f64) -> usize {
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
        let (axis, mid) = self.partition(start, end, query);
        let left = self.node(start, mid, query);
        let right = self.node(mid, end, query);
        self.nodes[id].split = Some((axis, left, right));
        id
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
            let mut boxes = [[[i64::MAX, i64::MIN]; 3]; BINS];
            for l in leaves.iter() {
                let k = bin(l.centre(axis));
                count[k] += 1;
                for a in 0..3 {
                    boxes[k][a][0] = boxes[k][a][0].min(l.b[a][0]);
                    boxes[k][a][1] = boxes[k][a][1].max(l.b[a][1]);
                }
            }
            // Costs of the left parts (bins 0..=k) swept up, then of the right parts down.
            let grow = |acc: &mut IBox, b: &IBox| {
                for a in 0..3 {
                    acc[a][0] = acc[a][0].min(b[a][0]);
                    acc[a][1] = acc[a][1].max(b[a][1]);
                }
            };
            let mut left = [0f64; BINS];
            let (mut acc, mut n) = ([[i64::MAX, i64::MIN]; 3], 0);
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
            let (mut acc, mut n) = ([[i64::MAX, i64::MIN]; 3], 0);
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
                if best.map_or(true, |b| cost < b.0) {
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
