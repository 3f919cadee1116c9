//! Writes a [`Tree`] as MOPP commands (docs/mopp.md §2 and §6).
//!
//! Every command the writer emits is conservative: a query box that overlaps a triangle's
//! integer box is never sent away from that triangle's terminal. The argument:
//!
//! - A frame maps a root coordinate `v` to `(v − o) << s` (the interpreter's rescales
//!   compose to this, docs/mopp.md §2), and a command compares the high byte
//!   `((v − o) << s) >> 16`. Both steps, and the interpreter's clamp to ±2⁴⁰, are
//!   non-decreasing in `v`; call the composition `h`.
//! - A query `[qmin, qmax]` overlaps a box `[bmin, bmax]` on an axis exactly when
//!   `qmin ≤ bmax` and `qmax ≥ bmin`; then `h(qmin) ≤ h(bmax)` and `h(qmax) ≥ h(bmin)`.
//! - A split stores `left_max = h(max of the left part's maxima)` and `right_min = h(min of
//!   the right part's minima)`: a query overlapping a left triangle has
//!   `h(qmin) ≤ left_max` and takes the left branch; one overlapping a right triangle has
//!   `h(qmax) ≥ right_min` and takes the right branch. A single-value split uses a value
//!   `v` with `left_max ≤ v ≤ right_min`, so both tests stay implied.
//! - A bound stores `h(bmin)` and `h(bmax)` of the node's union box, which holds every
//!   triangle below it, and passes every query that overlaps one of them.
//! - A rescale is written only when the node's box lies inside the new frame's window
//!   (`[f << 16, (f << 16) + 2^(24 − t))` of the old frame), so every high byte the subtree
//!   stores is in `0..=255` and fits its argument; the query's own coordinates may fall
//!   outside, and are only compared.
//! - Terminal offsets only add (`09`, `0A`) or set (`0B`) the value a terminal adds its
//!   own to; the writer sets the offset of a subtree to at most its smallest key, so each
//!   terminal's value is the key minus the offset, never negative.

use super::tree::{IBox, Node, Tree};

/// The writer's tuning: when a rescale, a bound or an offset pays.
#[derive(Clone, Copy, Debug)]
pub struct Tuning {
    /// The side of the query boxes the bounds' gains assume, in root integer units.
    pub query: f64,
    /// A bound is written at a leaf when it cuts at least this share of the query
    /// positions that reach it.
    pub leaf_gain: f64,
    /// The same for a node above several triangles.
    pub node_gain: f64,
    /// Rescale only at nodes over at least this many triangles.
    pub rescale_min: usize,
}

/// The current frame: root coordinate `v` reads `(v − o) << s`.
#[derive(Clone, Copy, Debug)]
struct Frame {
    o: [i64; 3],
    s: u32,
}

impl Frame {
    /// The high byte of root coordinate `v` on `axis`.
    fn hi(&self, v: i64, axis: usize) -> i64 {
        ((v - self.o[axis]) << self.s) >> 16
    }

    /// The lowest root coordinate whose high byte is `h`.
    fn first(&self, h: i64, axis: usize) -> i64 {
        self.o[axis] + (h << (16 - self.s))
    }

    /// The highest root coordinate whose high byte is `h`.
    fn last(&self, h: i64, axis: usize) -> i64 {
        self.first(h + 1, axis) - 1
    }
}

/// What the commands above a node already tell about a query that reaches it, per axis:
/// its maximum is at least `[0]` and its minimum at most `[1]` (root units).
type Window = [[i64; 2]; 3];

/// The writer's state for one tree.
pub(super) struct Writer<'a> {
    tree: &'a Tree,
    tuning: Tuning,
}

/// The bytes of a terminal for key `key` under offset `offset` (`key ≥ offset`).
fn terminal_bytes(key: u32, offset: u32) -> usize {
    match key - offset {
        0..=0x1F => 1,
        0x20..=0xFF => 2,
        0x100..=0xFFFF => 3,
        0x1_0000..=0xFF_FFFF => 4,
        _ => 5,
    }
}

/// The bytes of the command that moves the terminal offset from `from` to `to`.
fn offset_bytes(from: u32, to: u32) -> usize {
    match to.checked_sub(from) {
        Some(0) => 0,
        Some(1..=0xFF) => 2,
        Some(0x100..=0xFFFF) => 3,
        _ => 5,
    }
}

impl<'a> Writer<'a> {
    pub fn new(tree: &'a Tree, tuning: Tuning) -> Writer<'a> {
        Writer { tree, tuning }
    }

    /// The code of the whole tree.
    pub fn code(&self) -> Vec<u8> {
        let frame = Frame { o: [0; 3], s: 0 };
        // Queries may lie anywhere, past the code's space too (a box a kilometre away):
        // against this window the root's bounds always pay, so no query outside the
        // triangles' box reaches a terminal, however small the tree.
        let far = 1i64 << 40;
        self.node(0, frame, [[-far, far]; 3], 0)
    }

    /// The code of node `id`, position-independent (every jump relative and forward).
    fn node(&self, id: usize, mut frame: Frame, mut win: Window, mut offset: u32) -> Vec<u8> {
        let n: &Node = &self.tree.nodes[id];
        let count = n.end - n.start;
        let mut out = Vec::new();
        if count >= self.tuning.rescale_min {
            self.rescale(&n.b, &mut frame, &mut out);
        }
        let gain = if count == 1 {
            self.tuning.leaf_gain
        } else {
            self.tuning.node_gain
        };
        self.bounds(&n.b, &frame, &mut win, gain, &mut out);
        self.offset(n, &mut offset, &mut out);
        let Some((axis, l, r)) = n.split else {
            let key = self.tree.leaves[n.start].key;
            terminal(key - offset, &mut out);
            return out;
        };
        let (left, right) = (&self.tree.nodes[l], &self.tree.nodes[r]);
        let mut left_max = frame.hi(left.b[axis][1], axis);
        let right_min = frame.hi(right.b[axis][0], axis);
        let single = right_min == left_max || right_min == left_max + 1;
        if single {
            // One value between the two: both tests stay implied (module comment).
            left_max = right_min;
        }
        let mut lw = win;
        lw[axis][1] = lw[axis][1].min(frame.last(left_max, axis));
        let mut rw = win;
        rw[axis][0] = rw[axis][0].max(frame.first(right_min, axis));
        let lc = self.node(l, frame, lw, offset);
        let rc = self.node(r, frame, rw, offset);
        let a = axis as u8;
        let (lm, rm) = (left_max as u8, right_min as u8);
        match (u8::try_from(lc.len()), u16::try_from(lc.len())) {
            (Ok(j), _) if single => out.extend_from_slice(&[0x20 + a, lm, j]),
            (Ok(j), _) => out.extend_from_slice(&[0x10 + a, lm, rm, j]),
            (_, Ok(j)) => {
                out.extend_from_slice(&[0x23 + a, lm, rm, 0, 0]);
                out.extend_from_slice(&j.to_be_bytes());
            }
            _ => {
                // Left 5 bytes on (past the long jump), right straight to the long jump
                // over the left subtree.
                out.extend_from_slice(&[0x23 + a, lm, rm, 0, 5, 0, 0, 0x08]);
                out.extend_from_slice(&(lc.len() as u32).to_be_bytes());
            }
        }
        out.extend_from_slice(&lc);
        out.extend_from_slice(&rc);
        out
    }

    /// Writes a rescale into a frame around `b` when one fits (by up to 4 bits, to at
    /// most 16 in all), and moves `frame` into it.
    fn rescale(&self, b: &IBox, frame: &mut Frame, out: &mut Vec<u8>) {
        let f = [0, 1, 2].map(|a| frame.hi(b[a][0], a));
        let fits = |t: u32| {
            (0..3).all(|a| {
                let span = ((b[a][1] - frame.o[a]) << frame.s) - (f[a] << 16);
                span < 1i64 << (24 - t)
            })
        };
        let Some(t) = (1..=4u32.min(16 - frame.s)).rev().find(|&t| fits(t)) else {
            return;
        };
        out.extend_from_slice(&[t as u8, f[0] as u8, f[1] as u8, f[2] as u8]);
        for (o, f) in frame.o.iter_mut().zip(f) {
            *o += f << (16 - frame.s);
        }
        frame.s += t;
    }

    /// Writes the bounds of `b` on the axes where they cut at least `gain` of what
    /// reaches the node, and narrows `win` by them.
    fn bounds(&self, b: &IBox, frame: &Frame, win: &mut Window, gain: f64, out: &mut Vec<u8>) {
        for a in 0..3 {
            let (lo, hi) = (frame.hi(b[a][0], a), frame.hi(b[a][1], a));
            let (first, last) = (frame.first(lo, a), frame.last(hi, a));
            let cut = (first - win[a][0]).max(0) + (win[a][1] - last).max(0);
            let span = (win[a][1] - win[a][0]) as f64 + self.tuning.query;
            if cut as f64 >= gain * span && cut > 0 {
                out.extend_from_slice(&[0x26 + a as u8, lo as u8, hi as u8]);
                win[a] = [win[a][0].max(first), win[a][1].min(last)];
            }
        }
    }

    /// Moves the terminal offset to the node's smallest key when that makes its terminals
    /// shorter by more than the command's bytes.
    fn offset(&self, n: &Node, offset: &mut u32, out: &mut Vec<u8>) {
        let keys = || self.tree.leaves[n.start..n.end].iter().map(|l| l.key);
        let Some(kmin) = keys().min() else { return };
        if kmin == *offset {
            return;
        }
        let stay: usize = keys().map(|k| terminal_bytes(k, *offset)).sum();
        let moved: usize =
            offset_bytes(*offset, kmin) + keys().map(|k| terminal_bytes(k, kmin)).sum::<usize>();
        if moved >= stay {
            return;
        }
        match kmin - *offset {
            d @ 0..=0xFF => out.extend_from_slice(&[0x09, d as u8]),
            d @ 0x100..=0xFFFF => {
                out.push(0x0A);
                out.extend_from_slice(&(d as u16).to_be_bytes());
            }
            _ => {
                out.push(0x0B);
                out.extend_from_slice(&kmin.to_be_bytes());
            }
        }
        *offset = kmin;
    }
}

/// A terminal whose key is the offset plus `v`.
fn terminal(v: u32, out: &mut Vec<u8>) {
    match v {
        0..=0x1F => out.push(0x30 + v as u8),
        0x20..=0xFF => out.extend_from_slice(&[0x50, v as u8]),
        0x100..=0xFFFF => {
            out.push(0x51);
            out.extend_from_slice(&(v as u16).to_be_bytes());
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0x52);
            out.extend_from_slice(&v.to_be_bytes()[1..]);
        }
        _ => {
            out.push(0x53);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}
