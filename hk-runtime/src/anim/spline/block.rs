//! One block of a spline animation's `data`: the per-track masks, then each track's
//! translation, rotation and scale as constants or quantized B-splines
//! (docs/anim-spline.md, "Block layout", "Masks" and "Quantization").

use super::bytes::{Cursor, Res};
use super::eval::MAX_DEGREE;
use super::quat::{self, RotFormat};

/// The decoded values of all blocks: knots and control points, indexed by [`Spline`]s.
#[derive(Clone, Debug, Default)]
pub(super) struct Pools {
    /// Knots, in frames from the block's start.
    pub knots: Vec<f32>,
    /// Control points (translation and scale use the first three components).
    pub points: Vec<[f32; 4]>,
}

/// A stored spline: where its knots and control points lie in the [`Pools`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Spline {
    pub degree: u8,
    pub points: u32,
    pub knots_at: u32,
    pub points_at: u32,
}

/// One component group of a track: a constant, or a spline.
#[derive(Clone, Copy, Debug)]
pub(super) enum Channel {
    Const([f32; 4]),
    Spline(Spline),
}

/// Where a block lies in `data` and how it is read.
pub(super) struct BlockAt {
    /// The block's first byte.
    pub start: usize,
    /// The byte after its last.
    pub end: usize,
    /// The byte its track data starts at (after the masks).
    pub tracks_at: usize,
    /// Transform tracks.
    pub tracks: usize,
    /// Whether multi-byte values are big-endian.
    pub big: bool,
}

/// Reads a block's tracks: three channels per track (translation, rotation, scale);
/// returns them and the byte after the transform data (aligned to four).
pub(super) fn read_block(
    data: &[u8],
    at: &BlockAt,
    pools: &mut Pools,
) -> Res<(Vec<Channel>, usize)> {
    let masks =
        Cursor::new(data, at.start, at.end, at.big).take(4 * at.tracks, "the track masks")?;
    let mut c = Cursor::new(data, at.tracks_at, at.end, at.big);
    let mut out = Vec::with_capacity(3 * at.tracks);
    for (i, m) in masks.chunks_exact(4).enumerate() {
        let mask_at = at.start + 4 * i;
        out.extend(read_track(&mut c, m, mask_at, pools)?);
    }
    Ok((out, c.pos))
}

/// One track: mask bytes `m` (quantization, translation, rotation, scale) at `mask_at`.
fn read_track(
    c: &mut Cursor<'_>,
    m: &[u8],
    mask_at: usize,
    pools: &mut Pools,
) -> Res<[Channel; 3]> {
    let q = m[0];
    let pos_q = scalar_width(q & 3, mask_at, "translation")?;
    let rot_f = RotFormat::from_bits((q >> 2) & 0xF).ok_or((
        mask_at,
        format!("rotation format {} is not one", (q >> 2) & 0xF),
    ))?;
    let scale_q = scalar_width(q >> 6, mask_at, "scale")?;
    let pos = vector(c, m[1], pos_q, 0.0, mask_at + 1, pools)?;
    let rot = rotation(c, m[2], rot_f, pools)?;
    c.align(4)?;
    let scale = vector(c, m[3], scale_q, 1.0, mask_at + 3, pools)?;
    Ok([pos, rot, scale])
}

/// Bytes per quantized scalar for width code `code` (0: 8 bits, 1: 16 bits).
fn scalar_width(code: u8, at: usize, what: &str) -> Res<usize> {
    match code {
        0 => Ok(1),
        1 => Ok(2),
        _ => Err((
            at,
            format!("{what} quantization {code} is not one (0: 8 bits, 1: 16 bits)"),
        )),
    }
}

/// A translation or scale: per component (bit k static, bit 4 + k spline, neither the
/// default `def`).
fn vector(
    c: &mut Cursor<'_>,
    flags: u8,
    width: usize,
    def: f32,
    at: usize,
    pools: &mut Pools,
) -> Res<Channel> {
    let (stat, spl) = (flags & 7, (flags >> 4) & 7);
    if stat & spl != 0 {
        return Err((
            at,
            format!("mask 0x{flags:02X} makes a component both static and a spline"),
        ));
    }
    if spl == 0 {
        let mut v = [def, def, def, 0.0];
        for (k, x) in v.iter_mut().take(3).enumerate() {
            if stat & (1 << k) != 0 {
                *x = c.finite("a static component")?;
            }
        }
        return Ok(Channel::Const(v));
    }
    let (degree, points, knots_at) = header(c, pools)?;
    c.align(4)?;
    let mut base = [def, def, def, 0.0];
    let mut range = [(0.0f32, 0.0f32); 3];
    for k in 0..3 {
        if spl & (1 << k) != 0 {
            range[k] = (
                c.finite("a range's minimum")?,
                c.finite("a range's maximum")?,
            );
        } else if stat & (1 << k) != 0 {
            base[k] = c.finite("a static component")?;
        }
    }
    let comps = spl.count_ones() as usize;
    let raw = c.take(points * comps * width, "control points")?;
    let points_at = pools.points.len() as u32;
    let big = c.big();
    let scale = if width == 1 {
        1.0 / 255.0
    } else {
        1.0 / 65535.0
    };
    let mut words = raw.chunks_exact(width).map(|b| match b {
        [x] => f32::from(*x),
        [a, b] if big => f32::from(u16::from_be_bytes([*a, *b])),
        [a, b] => f32::from(u16::from_le_bytes([*a, *b])),
        _ => 0.0,
    });
    for _ in 0..points {
        let mut p = base;
        for k in 0..3 {
            if spl & (1 << k) != 0 {
                let (lo, hi) = range[k];
                p[k] = lo + (hi - lo) * (words.next().unwrap_or(0.0) * scale);
            }
        }
        pools.points.push(p);
    }
    c.align(4)?;
    Ok(Channel::Spline(Spline {
        degree,
        points: points as u32,
        knots_at,
        points_at,
    }))
}

/// A rotation: a spline when any of bits 4-7 is set (whatever bits 0-3 say), else a
/// constant when any of bits 0-3 is, else the identity.
fn rotation(c: &mut Cursor<'_>, flags: u8, f: RotFormat, pools: &mut Pools) -> Res<Channel> {
    if flags & 0xF0 == 0 {
        if flags & 0x0F == 0 {
            return Ok(Channel::Const([0.0, 0.0, 0.0, 1.0]));
        }
        return Ok(Channel::Const(super::super::math::normalize(quat::read(
            c, f,
        )?)));
    }
    let (degree, points, knots_at) = header(c, pools)?;
    c.align(f.align())?;
    if c.remaining() < points.saturating_mul(f.size()) {
        return Err((
            c.pos,
            format!(
                "{points} rotations of {} bytes run past the block's end",
                f.size()
            ),
        ));
    }
    let points_at = pools.points.len() as u32;
    for _ in 0..points {
        pools.points.push(quat::read(c, f)?);
    }
    Ok(Channel::Spline(Spline {
        degree,
        points: points as u32,
        knots_at,
        points_at,
    }))
}

/// A spline's header: the control point count less one (16 bits), the degree (8 bits) and
/// `points + degree + 1` knots (8 bits each), checked: a degree up to [`MAX_DEGREE`], at
/// least `degree + 1` points, knots non-decreasing over a non-empty domain. Returns the
/// degree, the control point count and where the knots went in the pool.
fn header(c: &mut Cursor<'_>, pools: &mut Pools) -> Res<(u8, usize, u32)> {
    let at = c.pos;
    let points = usize::from(c.u16("a spline's control point count")?) + 1;
    let degree = c.u8("a spline's degree")?;
    let p = usize::from(degree);
    if p > MAX_DEGREE || points < p + 1 {
        return Err((
            at,
            format!("a spline of degree {degree} with {points} control points"),
        ));
    }
    let knots_pos = c.pos;
    let knots = c.take(points + p + 1, "a spline's knots")?;
    if let Some(i) = knots.windows(2).position(|w| w[1] < w[0]) {
        return Err((knots_pos + i + 1, "the knots decrease".to_string()));
    }
    if knots[p] >= knots[points] {
        return Err((
            knots_pos,
            "the knots leave the spline no domain".to_string(),
        ));
    }
    let knots_at = pools.knots.len() as u32;
    pools.knots.extend(knots.iter().map(|k| f32::from(*k)));
    Ok((degree, points, knots_at))
}
