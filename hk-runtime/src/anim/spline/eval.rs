//! B-spline evaluation: the knot span holding a parameter and the basis weights of the
//! control points there (the Cox–de Boor recursion), for the clamped knot vectors spline
//! animations store (docs/anim-spline.md, "Splines").

/// The highest degree a stored spline may have.
pub(super) const MAX_DEGREE: usize = 7;

/// The weights of the `degree + 1` control points from `first` at one parameter.
#[derive(Clone, Copy, Debug)]
pub(super) struct Basis {
    /// The first control point weighted.
    pub first: u32,
    /// The weights, `degree + 1` of them used.
    pub w: [f32; MAX_DEGREE + 1],
}

/// A spline: its degree, knots (`points + degree + 1`, non-decreasing, with
/// `knots[degree] < knots[points]`, as the block reader checks) and control points.
#[derive(Clone, Copy, Debug)]
pub(super) struct Curve<'a> {
    pub degree: usize,
    pub knots: &'a [f32],
    pub points: &'a [[f32; 4]],
}

/// The span `i` of a knot vector of degree `p` with `knots[i] <= u < knots[i + 1]` (the
/// last non-empty span for `u` at or past the end), `u` clamped to the spline's domain;
/// and the clamped `u`.
fn span(p: usize, knots: &[f32], u: f32) -> (usize, f32) {
    let n = knots.len() - p - 1;
    let (lo, hi) = (knots[p], knots[n]);
    let u = if u.is_nan() { lo } else { u.clamp(lo, hi) };
    let inner = &knots[p..n];
    let count = if u >= hi {
        inner.partition_point(|k| *k < hi)
    } else {
        inner.partition_point(|k| *k <= u)
    };
    (p + count.max(1) - 1, u)
}

/// The basis weights at parameter `u` of a knot vector of degree `p` (with at least
/// `2p + 2` knots and a non-empty domain, as the block reader checks).
pub(super) fn basis(p: usize, k: &[f32], u: f32) -> Basis {
    let (span, u) = span(p, k, u);
    weights(p, k, span, u)
}

/// The basis weights at frames `0..count` of a knot vector of degree `p`, into `out`: the
/// span is searched for only when a frame leaves the previous one.
pub(super) fn basis_frames(p: usize, k: &[f32], count: usize, out: &mut Vec<Basis>) {
    // The recursion unrolled for the degrees stored files use.
    match p {
        1 => basis_frames_of(1, k, count, out),
        2 => basis_frames_of(2, k, count, out),
        3 => basis_frames_of(3, k, count, out),
        _ => basis_frames_of(p, k, count, out),
    }
}

/// [`basis_frames`], inlined so that a constant degree unrolls the recursion.
#[inline(always)]
fn basis_frames_of(p: usize, k: &[f32], count: usize, out: &mut Vec<Basis>) {
    let n = k.len() - p - 1;
    let hi = k[n];
    let mut cur = (p, k[p], k[p + 1]);
    for f in 0..count {
        let u = f as f32;
        if !(cur.1 <= u && u < cur.2 && u < hi) {
            let (i, _) = span(p, k, u);
            cur = (i, k[i], k[i + 1]);
        }
        let u = u.clamp(k[p], hi);
        out.push(weights(p, k, cur.0, u));
    }
}

/// The Cox–de Boor weights at `u` in span `span`.
#[inline(always)]
fn weights(p: usize, k: &[f32], span: usize, u: f32) -> Basis {
    let mut w = [0.0f32; MAX_DEGREE + 1];
    let mut left = [0.0f32; MAX_DEGREE + 1];
    let mut right = [0.0f32; MAX_DEGREE + 1];
    w[0] = 1.0;
    for j in 1..=p {
        left[j] = u - k[span + 1 - j];
        right[j] = k[span + j] - u;
        let mut saved = 0.0;
        for r in 0..j {
            let t = w[r] / (right[r + 1] + left[j - r]);
            w[r] = saved + right[r + 1] * t;
            saved = left[j - r] * t;
        }
        w[j] = saved;
    }
    Basis {
        first: (span - p) as u32,
        w,
    }
}

impl Curve<'_> {
    /// The basis weights at parameter `u`.
    pub(super) fn basis(&self, u: f32) -> Basis {
        basis(self.degree, self.knots, u)
    }

    /// The point the weights `b` give.
    #[inline]
    pub(super) fn at(&self, b: &Basis) -> [f32; 4] {
        match self.degree {
            1 => self.at_n::<2>(b),
            2 => self.at_n::<3>(b),
            3 => self.at_n::<4>(b),
            _ => self.at_any(b),
        }
    }

    /// [`Curve::at`] for `N = degree + 1` points, unrolled.
    #[inline]
    fn at_n<const N: usize>(&self, b: &Basis) -> [f32; 4] {
        let first = b.first as usize;
        let Some(pts) = self
            .points
            .get(first..first + N)
            .and_then(|p| <&[[f32; 4]; N]>::try_from(p).ok())
        else {
            return self.at_any(b);
        };
        let mut out = [0.0f32; 4];
        for (p, w) in pts.iter().zip(&b.w) {
            for i in 0..4 {
                out[i] += p[i] * w;
            }
        }
        out
    }

    /// [`Curve::at`] for any degree.
    fn at_any(&self, b: &Basis) -> [f32; 4] {
        let mut out = [0.0f32; 4];
        let first = b.first as usize;
        let pts = self.points.get(first..=first + self.degree).unwrap_or(&[]);
        for (p, w) in pts.iter().zip(&b.w) {
            for i in 0..4 {
                out[i] += p[i] * w;
            }
        }
        out
    }

    /// The spline's value at `u`.
    pub(super) fn value(&self, u: f32) -> [f32; 4] {
        self.at(&self.basis(u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clamped_cubic_passes_its_end_points_and_weights_sum_to_one() {
        let knots = [0.0, 0.0, 0.0, 0.0, 2.0, 4.0, 4.0, 4.0, 4.0];
        let points = [
            [0.0; 4],
            [1.0, 0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0, 0.0],
            [3.0, 0.0, 0.0, 0.0],
            [4.0, 0.0, 0.0, 0.0],
        ];
        let c = Curve {
            degree: 3,
            knots: &knots,
            points: &points,
        };
        assert_eq!(c.value(0.0)[0], 0.0);
        assert!((c.value(4.0)[0] - 4.0).abs() < 1e-6);
        assert!((c.value(9.0)[0] - 4.0).abs() < 1e-6);
        for u in [0.3f32, 1.9, 2.0, 3.7] {
            let b = c.basis(u);
            let s: f32 = b.w[..4].iter().sum();
            assert!((s - 1.0).abs() < 1e-6, "{u}");
        }
    }
}
