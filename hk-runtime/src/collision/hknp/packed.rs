//! Packed vectors of the Havok 2016 hknp shapes (docs/collision-notes.md §12): the
//! `hkPackedVector3` of mass properties, and the two vertex forms of a compressed mesh tree
//! (a `u32` relative to its section's box, a `u64` relative to the whole mesh's box).
//!
//! Every `pack` here is the inverse of its `unpack` on what `pack` writes:
//! `pack(unpack(x)) == x` for every `x` that `pack` can produce (tests/tests/integration/collision/hknp_shapes.rs).

use crate::collision::math::Vec3;

/// The stored form of a zero `hkPackedVector3`: three zeros and the upper half of the
/// float 2^-76 (docs/collision-notes.md §4).
pub const PACKED_ZERO: [i16; 4] = [0, 0, 0, 0x1980];

/// The float whose upper 16 bits are `w` (the low 16 bits zero).
fn scale_of(w: i16) -> f32 {
    f32::from_bits(u32::from(w as u16) << 16)
}

/// An `hkPackedVector3` as three floats: each `int16` times the scale whose upper 16 bits
/// the fourth value holds.
pub fn unpack_vector3(v: [i16; 4]) -> Vec3 {
    let s = scale_of(v[3]);
    [0, 1, 2].map(|i| f32::from(v[i]) * s)
}

/// Three floats as an `hkPackedVector3`: the scale a power of two chosen so the largest
/// component's magnitude lands in [2^14, 2^15), each component rounded to the nearest
/// `int16`. Zero (and a vector with a non-finite component) packs as [`PACKED_ZERO`];
/// magnitudes below 2^-112 pack as zero too (the scale would leave the normal floats).
pub fn pack_vector3(v: Vec3) -> [i16; 4] {
    let max = v.iter().fold(0f32, |a, x| a.max(x.abs()));
    if max == 0.0 || !max.is_finite() || v.iter().any(|x| !x.is_finite()) {
        return PACKED_ZERO;
    }
    // The binary exponent of the largest magnitude, from its bits (exact, unlike log2).
    let exp = ((max.to_bits() >> 23) & 0xFF) as i32 - 127;
    let mut e = exp - 14;
    if e < -126 {
        return PACKED_ZERO;
    }
    let round = |e: i32| -> Option<[i16; 3]> {
        let m = 2f64.powi(-e);
        let q = v.map(|x| (f64::from(x) * m).round());
        q.iter()
            .all(|x| (-32768.0..=32767.0).contains(x))
            .then(|| q.map(|x| x as i16))
    };
    // Rounding can carry the largest component to 2^15: one step coarser then.
    let q = match round(e) {
        Some(q) => q,
        None => {
            e += 1;
            round(e).unwrap_or([0; 3])
        }
    };
    let w = ((2f32.powi(e)).to_bits() >> 16) as u16 as i16;
    [q[0], q[1], q[2], w]
}

/// Bits per axis of a section's packed vertex (x, y, z: 11, 11, 10 from the low bit up).
pub const PACKED_BITS: [u32; 3] = [11, 11, 10];
/// Bits per axis of a shared vertex (x, y, z: 21, 21, 22 from the low bit up).
pub const SHARED_BITS: [u32; 3] = [21, 21, 22];

/// The grid of a quantised vertex form: `origin + q · step` per axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// The position of grid point 0.
    pub origin: Vec3,
    /// The distance between grid points per axis.
    pub step: Vec3,
}

impl Grid {
    /// The grid spanning `lo..=hi` with `bits` per axis (the last grid point on `hi`; an
    /// axis of zero extent gets step 0).
    pub fn spanning(lo: Vec3, hi: Vec3, bits: [u32; 3]) -> Grid {
        Grid {
            origin: lo,
            step: [0, 1, 2].map(|a| (hi[a] - lo[a]) / ((1u64 << bits[a]) - 1) as f32),
        }
    }

    /// The grid point nearest `p` on axis `a` with `bits` bits (clamped into range).
    fn quantise(&self, p: Vec3, a: usize, bits: u32) -> u64 {
        let max = (1u64 << bits) - 1;
        if self.step[a] == 0.0 || !self.step[a].is_finite() {
            return 0;
        }
        let q = ((f64::from(p[a]) - f64::from(self.origin[a])) / f64::from(self.step[a])).round();
        if q.is_nan() || q <= 0.0 {
            0
        } else {
            (q as u64).min(max)
        }
    }

    fn pack(&self, p: Vec3, bits: [u32; 3]) -> u64 {
        let mut out = 0u64;
        let mut shift = 0;
        for (a, &b) in bits.iter().enumerate() {
            out |= self.quantise(p, a, b) << shift;
            shift += b;
        }
        out
    }

    fn unpack(&self, v: u64, bits: [u32; 3]) -> Vec3 {
        let mut shift = 0;
        [0, 1, 2].map(|a| {
            let q = (v >> shift) & ((1u64 << bits[a]) - 1);
            shift += bits[a];
            self.origin[a] + q as f32 * self.step[a]
        })
    }

    /// `p` as a section's packed `u32` vertex.
    pub fn pack32(&self, p: Vec3) -> u32 {
        self.pack(p, PACKED_BITS) as u32
    }

    /// A section's packed `u32` vertex as a point.
    pub fn unpack32(&self, v: u32) -> Vec3 {
        self.unpack(u64::from(v), PACKED_BITS)
    }

    /// `p` as a shared `u64` vertex.
    pub fn pack64(&self, p: Vec3) -> u64 {
        self.pack(p, SHARED_BITS)
    }

    /// A shared `u64` vertex as a point.
    pub fn unpack64(&self, v: u64) -> Vec3 {
        self.unpack(v, SHARED_BITS)
    }

    /// The largest distance per axis between a point inside the grid's span and the grid
    /// point it packs to (half a step).
    pub fn tolerance(&self) -> Vec3 {
        self.step.map(|s| s.abs() * 0.5)
    }
}
