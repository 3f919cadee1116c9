//! The little geometry the collision model needs: affine transforms (rotation columns and a
//! translation, as Havok stores a `transform`) and axis-aligned boxes.

/// A point or vector.
pub type Vec3 = [f32; 3];

/// `x · col0 + y · col1 + z · col2 + t` (docs/collision-notes.md §8: a body's transform
/// maps a vertex this way; the transposed rule does not fit the data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine {
    /// The three columns of the linear part (rotation, possibly scaled).
    pub cols: [Vec3; 3],
    /// The translation.
    pub t: Vec3,
}

impl Default for Affine {
    fn default() -> Self {
        Affine::IDENTITY
    }
}

impl Affine {
    /// The identity.
    pub const IDENTITY: Affine = Affine {
        cols: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
    };

    /// A translation.
    pub fn translation(t: Vec3) -> Affine {
        Affine {
            t,
            ..Affine::IDENTITY
        }
    }

    /// Havok's `transform` (16 floats: three rotation columns then the translation, each
    /// four lanes; the fourth lanes are ignored).
    pub fn from_transform(f: &[f32]) -> Option<Affine> {
        if f.len() < 16 {
            return None;
        }
        let col = |i: usize| [f[4 * i], f[4 * i + 1], f[4 * i + 2]];
        Some(Affine {
            cols: [col(0), col(1), col(2)],
            t: col(3),
        })
    }

    /// A unit quaternion `x, y, z, w` as a rotation.
    pub fn from_quaternion(q: [f32; 4]) -> Affine {
        let [x, y, z, w] = q;
        Affine {
            cols: [
                [
                    1.0 - 2.0 * (y * y + z * z),
                    2.0 * (x * y + z * w),
                    2.0 * (x * z - y * w),
                ],
                [
                    2.0 * (x * y - z * w),
                    1.0 - 2.0 * (x * x + z * z),
                    2.0 * (y * z + x * w),
                ],
                [
                    2.0 * (x * z + y * w),
                    2.0 * (y * z - x * w),
                    1.0 - 2.0 * (x * x + y * y),
                ],
            ],
            t: [0.0; 3],
        }
    }

    /// Havok's `qstransform` (12 floats: translation, rotation quaternion, scale, each four
    /// lanes): scale first, then rotate, then translate.
    pub fn from_qs(f: &[f32]) -> Option<Affine> {
        if f.len() < 12 {
            return None;
        }
        let mut a = Affine::from_quaternion([f[4], f[5], f[6], f[7]]);
        for (i, c) in a.cols.iter_mut().enumerate() {
            for v in c.iter_mut() {
                *v *= f[8 + i];
            }
        }
        a.t = [f[0], f[1], f[2]];
        Some(a)
    }

    /// The point `p` transformed.
    pub fn apply(&self, p: Vec3) -> Vec3 {
        let [c0, c1, c2] = self.cols;
        [
            p[0] * c0[0] + p[1] * c1[0] + p[2] * c2[0] + self.t[0],
            p[0] * c0[1] + p[1] * c1[1] + p[2] * c2[1] + self.t[1],
            p[0] * c0[2] + p[1] * c1[2] + p[2] * c2[2] + self.t[2],
        ]
    }

    /// The vector `v` transformed (no translation).
    pub fn apply_vector(&self, v: Vec3) -> Vec3 {
        let t = self.apply(v);
        [t[0] - self.t[0], t[1] - self.t[1], t[2] - self.t[2]]
    }

    /// `self ∘ inner`: first `inner`, then `self`.
    pub fn then_inner(&self, inner: &Affine) -> Affine {
        Affine {
            cols: inner.cols.map(|c| self.apply_vector(c)),
            t: self.apply(inner.t),
        }
    }
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// The minimum corner.
    pub min: Vec3,
    /// The maximum corner.
    pub max: Vec3,
}

impl Aabb {
    /// The box of `points` (`None` for none).
    pub fn of(points: impl IntoIterator<Item = Vec3>) -> Option<Aabb> {
        let mut it = points.into_iter();
        let first = it.next()?;
        let mut b = Aabb {
            min: first,
            max: first,
        };
        for p in it {
            b.add(p);
        }
        Some(b)
    }

    /// Grows the box to hold `p`.
    pub fn add(&mut self, p: Vec3) {
        for (i, &x) in p.iter().enumerate() {
            self.min[i] = self.min[i].min(x);
            self.max[i] = self.max[i].max(x);
        }
    }

    /// A box from a centre and half extents.
    pub fn centered(center: Vec3, half: Vec3) -> Aabb {
        Aabb {
            min: [0, 1, 2].map(|i| center[i] - half[i]),
            max: [0, 1, 2].map(|i| center[i] + half[i]),
        }
    }

    /// Whether the two boxes share a point (touching counts).
    pub fn overlaps(&self, o: &Aabb) -> bool {
        (0..3).all(|i| self.min[i] <= o.max[i] && o.min[i] <= self.max[i])
    }

    /// Whether `p` lies in the box grown by `tolerance`.
    pub fn contains(&self, p: Vec3, tolerance: f32) -> bool {
        (0..3).all(|i| p[i] >= self.min[i] - tolerance && p[i] <= self.max[i] + tolerance)
    }
}

/// A xorshift generator of floats in [0, 1): reproducible without a dependency.
fn xorshift(mut state: u64) -> impl FnMut() -> f32 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` random boxes over `within` from `seed`: per axis a minimum anywhere in the box and
/// a side up to a tenth of its extent (the boxes of `hk mopp bench`, `hk mopp rebuild`
/// and the tree checks).
pub fn random_boxes(within: &Aabb, n: usize, seed: u64) -> Vec<Aabb> {
    random_boxes_sized(within, n, 0.1, seed)
}

/// [`random_boxes`] whose sides reach up to `size` of the extent on each axis.
pub fn random_boxes_sized(within: &Aabb, n: usize, size: f32, seed: u64) -> Vec<Aabb> {
    let mut r = xorshift(seed.max(1));
    (0..n)
        .map(|_| {
            let mut b = *within;
            for i in 0..3 {
                let ext = within.max[i] - within.min[i];
                b.min[i] = within.min[i] + r() * ext;
                b.max[i] = b.min[i] + r() * size * ext;
            }
            b
        })
        .collect()
}
