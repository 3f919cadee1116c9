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
    let mut out = Vec::with_capacity(1);
    read_run(c, f, 1, &mut out)?;
    Ok(out.first().copied().unwrap_or([0.0, 0.0, 0.0, 1.0]))
}

/// Reads `n` rotations in format `f` into `out`: the bytes are checked once, then each
/// fixed-size record is decoded without further checks.
pub(super) fn read_run(
    c: &mut Cursor<'_>,
    f: RotFormat,
    n: usize,
    out: &mut Vec<[f32; 4]>,
) -> Res<()> {
    let at = c.pos;
    let bytes = c.take(n.saturating_mul(f.size()), "rotations")?;
    let big = c.big();
    let be16 = |b: &[u8], i: usize| {
        let w = [b[2 * i], b[2 * i + 1]];
        if big {
            u16::from_be_bytes(w)
        } else {
            u16::from_le_bytes(w)
        }
    };
    match f {
        RotFormat::Polar32 => out.extend(bytes.chunks_exact(4).map(|b| {
            let w = [b[0], b[1], b[2], b[3]];
            polar32(if big {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            })
        })),
        RotFormat::ThreeComp40 => out.extend(bytes.chunks_exact(5).map(|b| {
            let mut w = [0u8; 8];
            three_comp40(if big {
                w[3..].copy_from_slice(b);
                u64::from_be_bytes(w)
            } else {
                w[..5].copy_from_slice(b);
                u64::from_le_bytes(w)
            })
        })),
        RotFormat::ThreeComp48 => out.extend(
            bytes
                .chunks_exact(6)
                .map(|b| three_comp48([be16(b, 0), be16(b, 1), be16(b, 2)])),
        ),
        RotFormat::Uncompressed => {
            for (i, b) in bytes.chunks_exact(16).enumerate() {
                let mut q = [0.0f32; 4];
                for (k, x) in q.iter_mut().enumerate() {
                    let w = [b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]];
                    *x = f32::from_bits(if big {
                        u32::from_be_bytes(w)
                    } else {
                        u32::from_le_bytes(w)
                    });
                    if !x.is_finite() {
                        let name = ["x", "y", "z", "w"][k];
                        return Err((
                            at + 16 * i + 4 * k,
                            format!("a rotation's {name} is {x}, not a finite number"),
                        ));
                    }
                }
                out.push(q);
            }
        }
        RotFormat::ThreeComp24 | RotFormat::Straight16 => {
            return Err((
                at,
                format!("rotation format {f:?} is not decoded (no sample file uses it)"),
            ))
        }
    }
    Ok(())
}

/// `(sin x, cos x)` for `x` in `[0, π/2]`, within 2e-7 of the true values: the Taylor
/// series about `π/4` (of `x − π/4`, at most `π/4` away), to the ninth power.
#[inline]
fn sin_cos_quarter(x: f32) -> (f32, f32) {
    // Reciprocals of 2·3, 4·5, 6·7, 8·9 and of 1·2, 3·4, 5·6, 7·8.
    const S: [f32; 4] = [1.0 / 6.0, 1.0 / 20.0, 1.0 / 42.0, 1.0 / 72.0];
    const C: [f32; 4] = [1.0 / 2.0, 1.0 / 12.0, 1.0 / 30.0, 1.0 / 56.0];
    let a = x - std::f32::consts::FRAC_PI_4;
    let a2 = a * a;
    let s = a * (1.0 - a2 * S[0] * (1.0 - a2 * S[1] * (1.0 - a2 * S[2] * (1.0 - a2 * S[3]))));
    let c = 1.0 - a2 * C[0] * (1.0 - a2 * C[1] * (1.0 - a2 * C[2] * (1.0 - a2 * C[3])));
    let k = std::f32::consts::FRAC_1_SQRT_2;
    ((s + c) * k, (c - s) * k)
}

/// `⌊√v⌋` for `v < 2^24`.
#[inline]
fn isqrt(v: u32) -> u32 {
    let mut s = (v as f32).sqrt() as u32;
    if s * s > v {
        s -= 1;
    } else if (s + 1) * (s + 1) <= v {
        s += 1;
    }
    s
}

/// POLAR32: bits 0-17 a packed pair of angles, bits 18-27 `1 - w` as a square root, bits
/// 28-31 the signs of x, y, z, w.
fn polar32(v: u32) -> [f32; 4] {
    use std::f32::consts::{FRAC_PI_2, FRAC_PI_4};
    const PHI_STEP: f32 = FRAC_PI_2 / 511.0;
    let r = ((v >> 18) & 0x3FF) as f32 * (1.0 / 1023.0);
    let w = 1.0 - r * r;
    let packed = v & 0x3FFFF;
    let ring = isqrt(packed);
    let theta = if ring > 0 {
        FRAC_PI_4 * (packed - ring * ring) as f32 / ring as f32
    } else {
        0.0
    };
    // φ takes 512 values: their sines and cosines are computed once.
    static PHI: std::sync::OnceLock<Vec<(f32, f32)>> = std::sync::OnceLock::new();
    let phi = PHI.get_or_init(|| {
        (0..512)
            .map(|s| sin_cos_quarter(s as f32 * PHI_STEP))
            .collect()
    });
    let (sp, cp) = phi.get(ring as usize).copied().unwrap_or((1.0, 0.0));
    let (st, ct) = sin_cos_quarter(theta.min(FRAC_PI_2));
    let m = (1.0 - w * w).max(0.0).sqrt();
    let q = [sp * ct * m, sp * st * m, cp * m, w];
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
    // Where the three stored components go, for each position of the largest.
    const PLACES: [[usize; 3]; 4] = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]];
    let rest = 1.0 - (small[0] * small[0] + small[1] * small[1] + small[2] * small[2]);
    let big = rest.max(0.0).sqrt();
    let mut q = [0.0; 4];
    let places = PLACES[largest & 3];
    q[places[0]] = small[0];
    q[places[1]] = small[1];
    q[places[2]] = small[2];
    q[largest & 3] = if negative { -big } else { big };
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

    #[test]
    fn the_quarter_sine_and_cosine_are_within_2e_7() {
        for i in 0..=10_000 {
            let x = std::f32::consts::FRAC_PI_2 * i as f32 / 10_000.0;
            let (s, c) = sin_cos_quarter(x);
            let xd = f64::from(x);
            assert!((f64::from(s) - xd.sin()).abs() < 2e-7, "sin {x}");
            assert!((f64::from(c) - xd.cos()).abs() < 2e-7, "cos {x}");
        }
    }

    #[test]
    fn the_integer_square_root_is_exact_over_polar32s_range() {
        for v in 0..(1u32 << 18) {
            let s = isqrt(v);
            assert!(s * s <= v && (s + 1) * (s + 1) > v, "{v}");
        }
    }
}
