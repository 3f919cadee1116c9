//! The stored rotation formats of spline animations: their sizes, alignments and
//! decoding into quaternions (docs/anim-spline.md, "Rotations").

use super::bytes::{Cursor, Res};

/// A rotation format: the mask's quantization byte, bits 2 to 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RotFormat {
    /// Polar angles and a 10-bit w in 32 bits.
    Polar32,
    /// Three 12-bit components, the largest dropped, in 40 bits.
    ThreeComp40,
    /// Three 15-bit components, the largest dropped, in 48 bits.
    ThreeComp48,
    /// 24 bits (no corpus file uses it; refused).
    ThreeComp24,
    /// 16 bits (no corpus file uses it; refused).
    Straight16,
    /// Four floats.
    Uncompressed,
}

impl RotFormat {
    /// The format numbered `n`, if it is one.
    pub(super) fn from_bits(n: u8) -> Option<RotFormat> {
        use RotFormat::*;
        [
            Polar32,
            ThreeComp40,
            ThreeComp48,
            ThreeComp24,
            Straight16,
            Uncompressed,
        ]
        .get(usize::from(n))
        .copied()
    }

    /// The alignment of a spline's control points in this format.
    pub(super) fn align(self) -> usize {
        match self {
            RotFormat::Polar32 | RotFormat::Uncompressed => 4,
            RotFormat::ThreeComp48 | RotFormat::Straight16 => 2,
            RotFormat::ThreeComp40 | RotFormat::ThreeComp24 => 1,
        }
    }

    /// Bytes per stored rotation.
    pub(super) fn size(self) -> usize {
        match self {
            RotFormat::Polar32 => 4,
            RotFormat::ThreeComp40 => 5,
            RotFormat::ThreeComp48 => 6,
            RotFormat::ThreeComp24 => 3,
            RotFormat::Straight16 => 2,
            RotFormat::Uncompressed => 16,
        }
    }
}

/// Reads one rotation in format `f`.
pub(super) fn read(c: &mut Cursor<'_>, f: RotFormat) -> Res<[f32; 4]> {
    match f {
        RotFormat::Polar32 => Ok(polar32(c.u32("a POLAR32 rotation")?)),
        RotFormat::ThreeComp40 => Ok(three_comp40(c.u40("a THREECOMP40 rotation")?)),
        RotFormat::ThreeComp48 => {
            let w = [
                c.u16("THREECOMP48")?,
                c.u16("THREECOMP48")?,
                c.u16("THREECOMP48")?,
            ];
            Ok(three_comp48(w))
        }
        RotFormat::Uncompressed => Ok([
            c.finite("a rotation's x")?,
            c.finite("a rotation's y")?,
            c.finite("a rotation's z")?,
            c.finite("a rotation's w")?,
        ]),
        RotFormat::ThreeComp24 | RotFormat::Straight16 => Err((
            c.pos,
            format!("rotation format {f:?} is not decoded (no sample file uses it)"),
        )),
    }
}

/// POLAR32: bits 0-17 a packed pair of angles, bits 18-27 `1 - w` as a square root, bits
/// 28-31 the signs of x, y, z, w.
fn polar32(v: u32) -> [f32; 4] {
    use std::f32::consts::FRAC_PI_2;
    let r = ((v >> 18) & 0x3FF) as f32 / 1023.0;
    let w = 1.0 - r * r;
    let packed = (v & 0x3FFFF) as f32;
    let ring = packed.sqrt().floor();
    let (phi, theta) = if ring > 0.0 {
        let theta = FRAC_PI_2 * 0.5 * (packed - ring * ring) / ring;
        (ring * FRAC_PI_2 / 511.0, theta)
    } else {
        (0.0, 0.0)
    };
    let m = (1.0 - w * w).max(0.0).sqrt();
    let q = [
        phi.sin() * theta.cos() * m,
        phi.sin() * theta.sin() * m,
        phi.cos() * m,
        w,
    ];
    let mut out = [0.0; 4];
    for (i, o) in out.iter_mut().enumerate() {
        let neg = v & (1 << (28 + i)) != 0;
        *o = if neg { -q[i] } else { q[i] };
    }
    out
}

/// The three smallest components of a unit quaternion, each in `[-1/√2, 1/√2]`, and the
/// largest one rebuilt at position `largest` with its sign.
fn rebuild(small: [f32; 3], largest: usize, negative: bool) -> [f32; 4] {
    let rest = 1.0 - small.iter().map(|x| x * x).sum::<f32>();
    let big = rest.max(0.0).sqrt();
    let big = if negative { -big } else { big };
    let mut q = [0.0; 4];
    let mut k = 0;
    for (i, o) in q.iter_mut().enumerate() {
        if i == largest {
            *o = big;
        } else {
            *o = small[k];
            k += 1;
        }
    }
    q
}

/// THREECOMP40: three 12-bit components (bits 0-11, 12-23, 24-35), the largest's index in
/// bits 36-37 and its sign in bit 38.
fn three_comp40(v: u64) -> [f32; 4] {
    const SCALE: f32 = std::f32::consts::FRAC_1_SQRT_2 / 2047.0;
    let c = |shift: u32| (((v >> shift) & 0xFFF) as f32 - 2047.0) * SCALE;
    rebuild(
        [c(0), c(12), c(24)],
        ((v >> 36) & 3) as usize,
        (v >> 38) & 1 != 0,
    )
}

/// THREECOMP48: three 16-bit words holding 15-bit components; the top bits of the first
/// two give the largest's index (low bit, high bit), the third's its sign.
fn three_comp48(w: [u16; 3]) -> [f32; 4] {
    const SCALE: f32 = std::f32::consts::FRAC_1_SQRT_2 / 16383.0;
    let c = |x: u16| (f32::from(x & 0x7FFF) - 16383.0) * SCALE;
    let largest = usize::from(w[0] >> 15) | (usize::from(w[1] >> 15) << 1);
    rebuild([c(w[0]), c(w[1]), c(w[2])], largest, w[2] >> 15 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_middle_codes_are_the_identity() {
        // Zero small components, the largest (w, index 3) positive.
        let q = three_comp40((3 << 36) | (2047 << 24) | (2047 << 12) | 2047);
        assert_eq!(q, [0.0, 0.0, 0.0, 1.0]);
        let q = three_comp48([16383 | 0x8000, 16383 | 0x8000, 16383]);
        assert_eq!(q, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(polar32(0), [0.0, 0.0, 0.0, 1.0]);
    }
}
