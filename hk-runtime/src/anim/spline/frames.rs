//! Every frame of a spline animation, block by block: per track, each part's basis
//! weights at the block's whole frames are computed once per knot vector (tracks of a
//! block mostly share theirs), then each frame is a weighted sum of control points.

use super::block::Channel;
use super::eval::{Basis, Curve};
use super::{transform, SplineAnimation};
use crate::anim::Transform;

/// The weights of a block's frames for the last few knot vectors seen by one part.
#[derive(Default)]
struct BasisCache {
    slots: Vec<Slot>,
    next: usize,
}

/// One knot vector's weights at a block's frames.
struct Slot {
    knots: Vec<f32>,
    degree: usize,
    weights: Vec<Basis>,
}

/// Knot vectors each part remembers.
const SLOTS: usize = 4;

impl BasisCache {
    /// The weights at frames `0..count` of `c`'s knot vector.
    fn get(&mut self, c: &Curve<'_>, count: usize) -> &[Basis] {
        let hit = self
            .slots
            .iter()
            .position(|s| s.degree == c.degree && s.weights.len() == count && s.knots == c.knots);
        let i = match hit {
            Some(i) => i,
            None => self.fill(c, count),
        };
        &self.slots[i].weights
    }

    /// Computes `c`'s weights into the oldest slot; returns the slot.
    fn fill(&mut self, c: &Curve<'_>, count: usize) -> usize {
        if self.slots.len() < SLOTS {
            self.slots.push(Slot {
                knots: Vec::new(),
                degree: 0,
                weights: Vec::new(),
            });
            self.next = self.slots.len() - 1;
        }
        let i = self.next;
        self.next = (i + 1) % SLOTS;
        let s = &mut self.slots[i];
        s.degree = c.degree;
        s.knots.clear();
        s.knots.extend_from_slice(c.knots);
        s.weights.clear();
        s.weights.extend((0..count).map(|u| c.basis(u as f32)));
        i
    }
}

/// One cache per part: translation, rotation, scale.
#[derive(Default)]
pub(super) struct Caches([BasisCache; 3]);

/// A part of a track over a block: a constant, or a spline and its weights per frame.
enum Part<'a> {
    Const([f32; 4]),
    Spline(Curve<'a>, &'a [Basis]),
}

impl Part<'_> {
    #[inline]
    fn at(&self, f: usize) -> [f32; 4] {
        match self {
            Part::Const(v) => *v,
            Part::Spline(c, w) => c.at(&w[f]),
        }
    }
}

impl SplineAnimation {
    /// Writes block `b`'s `count` frames, from frame `first`, into `out` (every frame of
    /// every track), track by track.
    pub(super) fn block_frames(
        &self,
        b: usize,
        first: usize,
        count: usize,
        out: &mut [Transform],
        caches: &mut Caches,
    ) {
        let t = self.tracks;
        let rows = &mut out[first * t..(first + count) * t];
        for (k, ch) in self.blocks[b].chunks_exact(3).enumerate() {
            let [c0, c1, c2] = &mut caches.0;
            let p = [
                self.part(&ch[0], c0, count),
                self.part(&ch[1], c1, count),
                self.part(&ch[2], c2, count),
            ];
            if let [Part::Const(a), Part::Const(b), Part::Const(c)] = &p {
                let x = transform(*a, *b, *c);
                rows.chunks_exact_mut(t).for_each(|row| row[k] = x);
                continue;
            }
            for (f, row) in rows.chunks_exact_mut(t).enumerate() {
                row[k] = transform(p[0].at(f), p[1].at(f), p[2].at(f));
            }
        }
    }

    /// Channel `c` over a block of `count` frames.
    fn part<'a>(&'a self, c: &Channel, cache: &'a mut BasisCache, count: usize) -> Part<'a> {
        match c {
            Channel::Const(v) => Part::Const(*v),
            Channel::Spline(s) => {
                let curve = self.curve(s);
                Part::Spline(curve, cache.get(&curve, count))
            }
        }
    }
}
