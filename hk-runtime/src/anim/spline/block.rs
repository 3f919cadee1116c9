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
    /// The knots as stored (bytes), for comparing a new vector with earlier ones.
    stored: Vec<u8>,
    /// Knot vectors, each stored once per block (a spline whose knots equal one of the
    /// last [`RECENT`] vectors of its block shares it), in block order.
    pub vectors: Vec<KnotVector>,
    /// The first vector of the block being read.
    block_first: usize,
}

/// Knot vectors of a block compared against when a spline's knots are read: enough for
/// the few shapes a block's tracks share, few enough to keep reading linear.
const RECENT: usize = 8;

/// A knot vector in the [`Pools`]: its degree and where its knots lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KnotVector {
    pub degree: u8,
    pub at: u32,
    pub len: u32,
}

impl Pools {
    /// Empty pools for `bytes` of block data, with room for what such data usually holds
    /// (at least two bytes per control point and knot), so that reading seldom grows them.
    pub(super) fn with_capacity(bytes: usize) -> Pools {
        Pools {
            knots: Vec::with_capacity(bytes / 4),
            stored: Vec::with_capacity(bytes / 4),
            points: Vec::with_capacity(bytes / 4),
            vectors: Vec::with_capacity(bytes / 64),
            block_first: 0,
        }
    }

    /// Starts a block: later splines share knot vectors only within it.
    pub(super) fn start_block(&mut self) {
        self.block_first = self.vectors.len();
    }

    /// The knots of vector `v`.
    pub(super) fn knots(&self, v: KnotVector) -> &[f32] {
        &self.knots[v.at as usize..(v.at + v.len) as usize]
    }

    /// The vector of degree `degree` with knots `bytes`: a recent one of this block if
    /// equal, else a new one. Returns its index.
    fn vector(&mut self, degree: u8, bytes: &[u8]) -> u32 {
        let from = self
            .block_first
            .max(self.vectors.len().saturating_sub(RECENT));
        let same = |v: &KnotVector| {
            v.degree == degree
                && v.len as usize == bytes.len()
                && self.stored[v.at as usize..(v.at + v.len) as usize] == *bytes
        };
        if let Some(i) = self.vectors[from..].iter().rposition(same) {
            return (from + i) as u32;
        }
        let at = self.knots.len() as u32;
        self.knots.extend(bytes.iter().map(|k| f32::from(*k)));
        self.stored.extend_from_slice(bytes);
        self.vectors.push(KnotVector {
            degree,
            at,
            len: bytes.len() as u32,
        });
        (self.vectors.len() - 1) as u32
    }
}

/// A stored spline: where its knots and control points lie in the [`Pools`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Spline {
    pub points: u32,
    /// The knot vector, an index into [`Pools::vectors`].
    pub vector: u32,
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
    pools.start_block();
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
    let rot_f = RotFormat::from_bits((q >> 2) & 0xF).ok_or_else(|| {
        (
            mask_at,
            format!("rotation format {} is not one", (q >> 2) & 0xF),
        )
    })?;
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
    let (points, vector) = header(c, pools)?;
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
    let mut which = [0usize; 3];
    let mut n = 0;
    for k in (0..3).filter(|k| spl & (1 << k) != 0) {
        which[n] = k;
        n += 1;
    }
    let q = Quantized {
        base,
        range,
        which: &which[..n],
    };
    pools.points.reserve(points);
    match (width, c.big()) {
        (1, _) => q.decode(raw, 1, |b| f32::from(b[0]) * (1.0 / 255.0), pools),
        (_, true) => q.decode(
            raw,
            2,
            |b| f32::from(u16::from_be_bytes([b[0], b[1]])) * (1.0 / 65535.0),
            pools,
        ),
        (_, false) => q.decode(
            raw,
            2,
            |b| f32::from(u16::from_le_bytes([b[0], b[1]])) * (1.0 / 65535.0),
            pools,
        ),
    }
    c.align(4)?;
    Ok(Channel::Spline(Spline {
        points: points as u32,
        vector,
        points_at,
    }))
}

/// How a translation or scale spline's control points are stored: the default and static
/// components, the range of each spline component, and which components are splines.
struct Quantized<'a> {
    base: [f32; 4],
    range: [(f32, f32); 3],
    which: &'a [usize],
}

impl Quantized<'_> {
    /// Decodes the control points in `raw` (each spline component's scalar of `width`
    /// bytes, read into `0..=1` by `unit`) into the pool: `min + (max − min) × unit`.
    #[inline(always)]
    fn decode(&self, raw: &[u8], width: usize, unit: impl Fn(&[u8]) -> f32, pools: &mut Pools) {
        let per_point = width * self.which.len();
        pools.points.extend(raw.chunks_exact(per_point).map(|b| {
            let mut p = self.base;
            for (j, &k) in self.which.iter().enumerate() {
                let (lo, hi) = self.range[k];
                p[k] = lo + (hi - lo) * unit(&b[j * width..]);
            }
            p
        }));
    }
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
    let (points, vector) = header(c, pools)?;
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
    quat::read_run(c, f, points, &mut pools.points)?;
    Ok(Channel::Spline(Spline {
        points: points as u32,
        vector,
        points_at,
    }))
}

/// A spline's header: the control point count less one (16 bits), the degree (8 bits) and
/// `points + degree + 1` knots (8 bits each), checked: a degree up to [`MAX_DEGREE`], at
/// least `degree + 1` points, knots non-decreasing over a non-empty domain. Returns the
/// control point count and the knot vector's index in the pool.
fn header(c: &mut Cursor<'_>, pools: &mut Pools) -> Res<(usize, u32)> {
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
    Ok((points, pools.vector(degree, knots)))
}
