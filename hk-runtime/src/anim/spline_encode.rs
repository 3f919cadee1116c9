//! The spline encoder: per-frame transforms into the `data` array and block tables of an
//! `hkaSplineCompressedAnimation` whose decoded values stay within a tolerance of the
//! input at every frame (docs/anim-writing.md).
//!
//! Every block of up to [`BLOCK_FRAMES`] frames holds, per track, a mask (quantization
//! and sub-track kinds) and then its position, rotation and scale. A component (or the
//! whole rotation) that stays within the tolerance of one value is static (stored as one
//! float, or one quantized rotation), of the default (zero, identity, one) is left out;
//! the rest are degree-1 B-splines through a subset of the block's frames, chosen by
//! adding the frame of largest decoded error until every frame is within the tolerance.
//! The error is measured on the decoded values: quantized control points evaluated by the
//! format's own rule, so what is checked is what a reader gets.

use super::math::{dot, normalize, Quat};
use super::Transform;

/// Frames per block (knots are one byte of frame numbers within the block).
pub const BLOCK_FRAMES: usize = 255;

/// The spline degree the encoder writes.
const DEGREE: usize = 1;

/// Quantization codes of the mask's first byte: 8- or 16-bit positions and scales, 48-bit
/// rotations (three 15-bit components).
const QUANT_8: u8 = 0;
const QUANT_16: u8 = 1;
const QUANT_ROT48: u8 = 2;

/// The scale of a 48-bit rotation's stored components (`sqrt(1/2) / 16383`).
const ROT48_STEP: f32 = std::f32::consts::FRAC_1_SQRT_2 / 16383.0;

/// How far the decoded animation may stray from the input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Translation: the largest distance, in the skeleton's units.
    pub position: f32,
    /// Rotation: the largest angle, in degrees.
    pub rotation_deg: f32,
    /// Scale: the largest difference per axis.
    pub scale: f32,
}

/// An encoded spline animation: the values of `hkaSplineCompressedAnimation`'s members.
#[derive(Clone, Debug, PartialEq)]
pub struct SplineData {
    /// Frames (`numFrames`).
    pub frames: usize,
    /// Blocks (`numBlocks`).
    pub blocks: usize,
    /// Frames per block (`maxFramesPerBlock`).
    pub max_frames_per_block: usize,
    /// Bytes of the masks at each block's start (`maskAndQuantizationSize`).
    pub mask_size: usize,
    /// Seconds per block (`blockDuration`).
    pub block_duration: f32,
    /// Seconds per frame (`frameDuration`).
    pub frame_duration: f32,
    /// Each block's start in `data` (`blockOffsets`).
    pub block_offsets: Vec<u32>,
    /// Each block's float-track data, from the block's start (`floatBlockOffsets`).
    pub float_block_offsets: Vec<u32>,
    /// The blocks (`data`).
    pub data: Vec<u8>,
}

/// Encodes `frames` (frame after frame, `tracks` transforms each) spanning `duration`
/// seconds within `tol`.
///
/// # Panics
/// When `frames.len()` is not a whole number of frames of `tracks`.
pub fn encode(frames: &[Transform], tracks: usize, duration: f32, tol: Tolerance) -> SplineData {
    assert!(tracks > 0 && frames.len().is_multiple_of(tracks));
    let n = frames.len() / tracks;
    let blocks = if n < 2 {
        1
    } else {
        (n - 2) / (BLOCK_FRAMES - 1) + 1
    };
    let frame_duration = if n > 1 {
        duration / (n - 1) as f32
    } else {
        0.0
    };
    let mut data = Vec::new();
    let mut block_offsets = Vec::new();
    let mut float_block_offsets = Vec::new();
    for b in 0..blocks {
        let first = b * (BLOCK_FRAMES - 1);
        let count = (n - first).min(BLOCK_FRAMES);
        let start = data.len();
        block_offsets.push(start as u32);
        let track = |t: usize| -> Vec<Transform> {
            (first..first + count)
                .map(|f| frames[f * tracks + t])
                .collect()
        };
        encode_block(&mut data, tracks, &track, tol);
        float_block_offsets.push((data.len() - start) as u32);
        pad(&mut data, 16);
    }
    SplineData {
        frames: n,
        blocks,
        max_frames_per_block: BLOCK_FRAMES,
        mask_size: 4 * tracks,
        block_duration: (BLOCK_FRAMES - 1) as f32 * frame_duration,
        frame_duration,
        block_offsets,
        float_block_offsets,
        data,
    }
}

fn pad(data: &mut Vec<u8>, align: usize) {
    while !data.len().is_multiple_of(align) {
        data.push(0);
    }
}

/// One block: the masks, then each track's position, rotation and scale.
fn encode_block(
    data: &mut Vec<u8>,
    tracks: usize,
    track: &dyn Fn(usize) -> Vec<Transform>,
    tol: Tolerance,
) {
    let masks_at = data.len();
    data.resize(masks_at + 4 * tracks, 0);
    pad(data, 4);
    // A margin of 2% for readers that round differently.
    let budget = 0.98 * tol.position / 3f32.sqrt();
    let scale_budget = 0.98 * tol.scale;
    for t in 0..tracks {
        let v = track(t);
        let pos: Vec<[f32; 3]> = v.iter().map(|x| x.translation).collect();
        let rot: Vec<Quat> = v.iter().map(|x| x.rotation).collect();
        let scale: Vec<[f32; 3]> = v.iter().map(|x| x.scale).collect();
        let (pos_types, pos_q) = write_vector(data, &pos, 0.0, budget);
        let rot_types = write_rotation(data, &rot, 0.98 * tol.rotation_deg);
        pad(data, 4);
        let (scale_types, scale_q) = write_vector(data, &scale, 1.0, scale_budget);
        let m = masks_at + 4 * t;
        data[m] = pos_q | (QUANT_ROT48 << 2) | (scale_q << 6);
        data[m + 1] = pos_types;
        data[m + 2] = rot_types;
        data[m + 3] = scale_types;
    }
}

/// What one component of a vector track is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// The default value, not stored.
    Default,
    /// One value.
    Static(f32),
    /// On the spline.
    Dynamic,
}

/// A vector track (translation or scale): its section, the mask byte (bits 0 to 2:
/// static X, Y, Z; bits 4 to 6: spline X, Y, Z) and its quantization code (8 bits when
/// half a step of the widest range is within a quarter of the budget, else 16).
fn write_vector(data: &mut Vec<u8>, v: &[[f32; 3]], default: f32, budget: f32) -> (u8, u8) {
    let kinds: [Kind; 3] = std::array::from_fn(|c| component_kind(v, c, default, budget));
    let mut mask = 0u8;
    for (c, k) in kinds.iter().enumerate() {
        match k {
            Kind::Static(_) => mask |= 1 << c,
            Kind::Dynamic => mask |= 1 << (c + 4),
            Kind::Default => {}
        }
    }
    let dynamic: Vec<usize> = (0..3).filter(|&c| kinds[c] == Kind::Dynamic).collect();
    if dynamic.is_empty() {
        for k in kinds {
            if let Kind::Static(x) = k {
                data.extend_from_slice(&x.to_le_bytes());
            }
        }
        return (mask, QUANT_16);
    }
    let ranges: Vec<(f32, f32)> = dynamic.iter().map(|&c| range(v, c)).collect();
    let widest = ranges.iter().map(|(lo, hi)| hi - lo).fold(0.0f32, f32::max);
    let max = if widest / 255.0 / 2.0 <= budget / 4.0 {
        255.0
    } else {
        65535.0
    };
    let eval = |keys: &[usize]| -> Vec<[f32; 3]> {
        let points: Vec<[f32; 3]> = keys
            .iter()
            .map(|&k| {
                let mut p = v[k];
                for (&c, &(lo, hi)) in dynamic.iter().zip(&ranges) {
                    p[c] = dequantize(quantize(p[c], lo, hi, max), lo, hi, max);
                }
                p
            })
            .collect();
        linear(keys, &points, v.len(), |a, b, t| {
            std::array::from_fn(|c| a[c] + (b[c] - a[c]) * t)
        })
    };
    let err = |k: usize, d: &[[f32; 3]]| {
        dynamic
            .iter()
            .map(|&c| (d[k][c] - v[k][c]).abs() / budget.max(f32::MIN_POSITIVE))
            .fold(0.0f32, f32::max)
    };
    let keys = fit(v.len(), &eval, &err);
    write_knots(data, &keys);
    pad(data, 4);
    for (c, k) in kinds.iter().enumerate() {
        match k {
            Kind::Static(x) => data.extend_from_slice(&x.to_le_bytes()),
            Kind::Dynamic => {
                let (lo, hi) = ranges[dynamic.iter().position(|&d| d == c).unwrap_or(0)];
                data.extend_from_slice(&lo.to_le_bytes());
                data.extend_from_slice(&hi.to_le_bytes());
            }
            Kind::Default => {}
        }
    }
    for &k in &keys {
        for (&c, &(lo, hi)) in dynamic.iter().zip(&ranges) {
            let q = quantize(v[k][c], lo, hi, max);
            if max > 255.0 {
                data.extend_from_slice(&q.to_le_bytes());
            } else {
                data.push(q as u8);
            }
        }
    }
    pad(data, 4);
    (mask, if max > 255.0 { QUANT_16 } else { QUANT_8 })
}

/// Whether component `c` of `v` is the default, one value, or needs a spline.
fn component_kind(v: &[[f32; 3]], c: usize, default: f32, budget: f32) -> Kind {
    let (lo, hi) = range(v, c);
    if lo >= default - budget && hi <= default + budget {
        Kind::Default
    } else if (hi - lo) / 2.0 <= budget {
        Kind::Static((lo + hi) / 2.0)
    } else {
        Kind::Dynamic
    }
}

fn range(v: &[[f32; 3]], c: usize) -> (f32, f32) {
    v.iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p[c]), hi.max(p[c]))
        })
}

/// `x` in `[lo, hi]` as a step of `max` (255 or 65535).
pub fn quantize(x: f32, lo: f32, hi: f32, max: f32) -> u16 {
    if hi <= lo {
        return 0;
    }
    ((x - lo) / (hi - lo) * max).round().clamp(0.0, max) as u16
}

/// The value step `q` of `max` (255 or 65535) stands for in `[lo, hi]`.
pub fn dequantize(q: u16, lo: f32, hi: f32, max: f32) -> f32 {
    lo + (hi - lo) * (f32::from(q) / max)
}

/// The knot header: the control points less one (u16), the degree, and the clamped
/// knot vector (frame numbers within the block, the ends repeated).
fn write_knots(data: &mut Vec<u8>, keys: &[usize]) {
    let n = keys.len() - 1;
    data.extend_from_slice(&(n as u16).to_le_bytes());
    data.push(DEGREE as u8);
    data.push(keys[0] as u8);
    data.extend(keys.iter().map(|&k| k as u8));
    data.push(keys[n] as u8);
}

/// A rotation track's section and mask byte (`0xF0` spline, `0x0F` static, 0 identity).
fn write_rotation(data: &mut Vec<u8>, q: &[Quat], tol_deg: f32) -> u8 {
    let q = same_hemisphere(q);
    let within = |r: Quat| q.iter().all(|&x| angle_between(r, x) <= tol_deg);
    if within([0.0, 0.0, 0.0, 1.0]) {
        return 0;
    }
    let mean = normalize(q.iter().fold([0.0; 4], |a, x| {
        [a[0] + x[0], a[1] + x[1], a[2] + x[2], a[3] + x[3]]
    }));
    let packed = pack48(mean);
    if within(unpack48(packed)) {
        write48(data, packed);
        return 0x0F;
    }
    let eval = |keys: &[usize]| -> Vec<Quat> {
        let points: Vec<Quat> = keys.iter().map(|&k| unpack48(pack48(q[k]))).collect();
        linear(keys, &points, q.len(), |a, b, t| {
            normalize(std::array::from_fn(|c| a[c] + (b[c] - a[c]) * t))
        })
    };
    let err = |k: usize, d: &[Quat]| angle_between(d[k], q[k]) / tol_deg.max(f32::MIN_POSITIVE);
    let keys = fit(q.len(), &eval, &err);
    write_knots(data, &keys);
    pad(data, 2);
    for &k in &keys {
        write48(data, pack48(q[k]));
    }
    0xF0
}

/// `q` with each rotation negated where needed to lie on the previous one's hemisphere
/// (the spline blends components, so neighbours must agree in sign).
fn same_hemisphere(q: &[Quat]) -> Vec<Quat> {
    let mut out: Vec<Quat> = Vec::with_capacity(q.len());
    for &x in q {
        let x = normalize(x);
        let flip = out.last().is_some_and(|&p| dot(p, x) < 0.0);
        out.push(if flip { x.map(|c| -c) } else { x });
    }
    out
}

/// The frames kept as control points: the first and last, then the frame of largest
/// error (`err` above 1 is out of tolerance) added until none is out, or every frame is
/// kept.
fn fit<T>(
    n: usize,
    eval: &dyn Fn(&[usize]) -> Vec<T>,
    err: &dyn Fn(usize, &[T]) -> f32,
) -> Vec<usize> {
    let mut keys: Vec<usize> = if n > 1 { vec![0, n - 1] } else { vec![0] };
    while keys.len() < n {
        let decoded = eval(&keys);
        let (worst, e) = (0..n)
            .map(|k| (k, err(k, &decoded)))
            .fold((0, 0.0f32), |a, b| if b.1 > a.1 { b } else { a });
        if e <= 1.0 {
            break;
        }
        let at = keys.partition_point(|&k| k < worst);
        if keys.get(at) == Some(&worst) {
            break;
        }
        keys.insert(at, worst);
    }
    keys
}

/// The degree-1 spline through `points` at frames `keys`, evaluated at frames `0..n`.
fn linear<T: Copy>(
    keys: &[usize],
    points: &[T],
    n: usize,
    blend: impl Fn(T, T, f32) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(n);
    let mut span = 0;
    for f in 0..n {
        if keys.len() == 1 {
            out.push(points[0]);
            continue;
        }
        while span + 2 < keys.len() && f >= keys[span + 1] {
            span += 1;
        }
        let (a, b) = (keys[span], keys[span + 1]);
        let t = ((f as f32 - a as f32) / (b - a) as f32).clamp(0.0, 1.0);
        out.push(blend(points[span], points[span + 1], t));
    }
    out
}

/// A unit quaternion in 48 bits: the largest component left out (its index in the top
/// bits of the first two words, its sign in the third's), the others in 15 bits each.
pub fn pack48(q: Quat) -> [u16; 3] {
    let q = normalize(q);
    let big = (0..4)
        .max_by(|&a, &b| q[a].abs().total_cmp(&q[b].abs()))
        .unwrap_or(3);
    let mut w = [0u16; 3];
    let mut j = 0;
    for (i, &c) in q.iter().enumerate() {
        if i == big {
            continue;
        }
        w[j] = ((c / ROT48_STEP).round() + 16383.0).clamp(0.0, 32766.0) as u16;
        j += 1;
    }
    w[0] |= ((big & 1) as u16) << 15;
    w[1] |= ((big >> 1) as u16) << 15;
    if q[big] < 0.0 {
        w[2] |= 1 << 15;
    }
    w
}

/// The rotation 48 bits stand for ([`pack48`]).
pub fn unpack48(w: [u16; 3]) -> Quat {
    let big = usize::from(w[0] >> 15) | (usize::from(w[1] >> 15) << 1);
    let c: [f32; 3] = std::array::from_fn(|i| (f32::from(w[i] & 0x7FFF) - 16383.0) * ROT48_STEP);
    let rest = (1.0 - c.iter().map(|x| x * x).sum::<f32>()).max(0.0).sqrt();
    let rest = if w[2] >> 15 != 0 { -rest } else { rest };
    let mut q = [0.0; 4];
    let mut j = 0;
    for (i, slot) in q.iter_mut().enumerate() {
        if i == big {
            *slot = rest;
        } else {
            *slot = c[j];
            j += 1;
        }
    }
    q
}

fn write48(data: &mut Vec<u8>, w: [u16; 3]) {
    for x in w {
        data.extend_from_slice(&x.to_le_bytes());
    }
}

/// The angle in degrees between the rotations of two quaternions (`q` and `-q` are the
/// same rotation), from the length of their difference in double precision: exact for
/// small angles, where the arc cosine of the dot product in single precision is not.
pub fn angle_between(a: Quat, b: Quat) -> f32 {
    let unit = |q: Quat| {
        let q = q.map(f64::from);
        let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.0 {
            q.map(|x| x / n)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        }
    };
    let (a, b) = (unit(a), unit(b));
    let s = if a.iter().zip(&b).map(|(x, y)| x * y).sum::<f64>() < 0.0 {
        -1.0
    } else {
        1.0
    };
    let d = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - s * y).powi(2))
        .sum::<f64>()
        .sqrt();
    (4.0 * (d / 2.0).min(1.0).asin()).to_degrees() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotations_survive_48_bits_within_a_hundredth_of_a_degree() {
        for i in 0..200 {
            let a = i as f32 * 0.37;
            let q = normalize([a.sin(), (a * 1.3).cos(), -(a * 0.7).sin(), (a * 2.1).cos()]);
            let back = unpack48(pack48(q));
            assert!(angle_between(q, back) < 0.01, "{q:?} -> {back:?}");
            assert!(dot(q, back) > 0.0, "the sign is kept");
        }
    }

    #[test]
    fn a_smooth_track_keeps_fewer_control_points_than_frames() {
        let v: Vec<[f32; 3]> = (0..200)
            .map(|f| [f as f32 * 0.1, (f as f32 * 0.05).sin() * 10.0, 5.0])
            .collect();
        for budget in [0.001f32, 0.01, 0.1] {
            let mut data = Vec::new();
            let (mask, _) = write_vector(&mut data, &v, 0.0, budget);
            // X and Y on the spline, Z static.
            assert_eq!(mask, 0b0011_0100);
            let n = usize::from(u16::from_le_bytes([data[0], data[1]])) + 1;
            assert!(n < 200, "{n} control points at {budget}");
        }
        assert!(angle_between([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, -1.0]) < 1e-6);
    }
}
