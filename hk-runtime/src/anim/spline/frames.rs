//! Every frame of a spline animation, block by block: the basis weights of each of the
//! block's knot vectors at its whole frames are computed once (tracks share vectors, see
//! [`super::block::Pools::vectors`]), then each part of each track (translation, rotation,
//! scale) is filled over the block's frames in its own pass: a constant, or a weighted sum
//! of control points in a loop unrolled for the spline's degree.

use super::block::Channel;
use super::eval::{basis_frames, Basis, Curve};
use super::SplineAnimation;
use crate::anim::math::normalize;
use crate::anim::Transform;

/// Which part of a transform a pass fills.
#[derive(Clone, Copy)]
enum Which {
    Translation,
    Rotation,
    Scale,
}

impl Which {
    /// Stores `v` as this part of `x` (rotations normalised).
    #[inline(always)]
    fn store(self, x: &mut Transform, v: [f32; 4]) {
        match self {
            Which::Translation => x.translation = [v[0], v[1], v[2]],
            Which::Scale => x.scale = [v[0], v[1], v[2]],
            Which::Rotation => x.rotation = unit(v),
        }
    }
}

/// `r` normalised (the identity when it has no length).
#[inline(always)]
fn unit(r: [f32; 4]) -> [f32; 4] {
    let n2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
    if n2 > 0.0 && n2.is_finite() {
        let k = 1.0 / n2.sqrt();
        [r[0] * k, r[1] * k, r[2] * k, r[3] * k]
    } else {
        normalize(r)
    }
}

/// The weighted sum of `N` control points from `b.first`.
#[inline(always)]
fn sum<const N: usize>(points: &[[f32; 4]], b: &Basis) -> Option<[f32; 4]> {
    let first = b.first as usize;
    let pts = <&[[f32; 4]; N]>::try_from(points.get(first..first + N)?).ok()?;
    let mut out = [0.0f32; 4];
    for (p, w) in pts.iter().zip(&b.w) {
        for i in 0..4 {
            out[i] += p[i] * w;
        }
    }
    Some(out)
}

/// Fills one part of one track over a block's rows (`stride` transforms apart, from
/// `k`): `N` is the spline's degree + 1.
#[inline(always)]
fn fill_spline<const N: usize>(
    rows: &mut [Transform],
    stride: usize,
    k: usize,
    which: Which,
    c: &Curve<'_>,
    weights: &[Basis],
) {
    for (row, b) in rows.chunks_exact_mut(stride).zip(weights) {
        let v = sum::<N>(c.points, b).unwrap_or_else(|| c.at(b));
        which.store(&mut row[k], v);
    }
}

impl SplineAnimation {
    /// Writes block `b`'s `count` frames, from frame `first`, into `out` (every frame of
    /// every track), part by part; `weights` is scratch space.
    pub(super) fn block_frames(
        &self,
        b: usize,
        first: usize,
        count: usize,
        out: &mut [Transform],
        weights: &mut Vec<Basis>,
    ) {
        let (lo, hi) = (self.vectors[b] as usize, self.vectors[b + 1] as usize);
        weights.clear();
        for v in &self.pools.vectors[lo..hi] {
            let (d, k) = (usize::from(v.degree), self.pools.knots(*v));
            basis_frames(d, k, count, weights);
        }
        let t = self.tracks;
        let rows = &mut out[first * t..(first + count) * t];
        let parts = [Which::Translation, Which::Rotation, Which::Scale];
        for (k, ch) in self.blocks[b].chunks_exact(3).enumerate() {
            for (c, which) in ch.iter().zip(parts) {
                match c {
                    Channel::Const(v) => {
                        let mut x = Transform::IDENTITY;
                        which.store(&mut x, *v);
                        let rows = rows.chunks_exact_mut(t);
                        match which {
                            Which::Translation => {
                                rows.for_each(|row| row[k].translation = x.translation)
                            }
                            Which::Rotation => rows.for_each(|row| row[k].rotation = x.rotation),
                            Which::Scale => rows.for_each(|row| row[k].scale = x.scale),
                        }
                    }
                    Channel::Spline(s) => {
                        let curve = self.curve(s);
                        let at = (s.vector as usize - lo) * count;
                        let w = &weights[at..at + count];
                        match (curve.degree, which) {
                            (1, Which::Rotation) => {
                                fill_spline::<2>(rows, t, k, Which::Rotation, &curve, w)
                            }
                            (3, Which::Rotation) => {
                                fill_spline::<4>(rows, t, k, Which::Rotation, &curve, w)
                            }
                            (1, _) => fill_spline::<2>(rows, t, k, which, &curve, w),
                            (2, _) => fill_spline::<3>(rows, t, k, which, &curve, w),
                            (3, _) => fill_spline::<4>(rows, t, k, which, &curve, w),
                            _ => {
                                for (row, b) in rows.chunks_exact_mut(t).zip(w) {
                                    which.store(&mut row[k], curve.at(b));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
