//! Spline-compressed animations (`hkaSplineCompressedAnimation`, Havok 5.5's
//! `hkaSplineSkeletalAnimation`): the frames cut into blocks that share their end frames,
//! each track of each block a constant or a quantized B-spline over the block's frames
//! (docs/anim-spline.md).
//!
//! Every block is decoded when the animation is read (knots and control points into
//! pools), so bad data is refused up front and [`Decoder::frames`] only evaluates splines,
//! block by block, reusing the basis weights of tracks that share a knot vector.
//!
//! Sampling at time `t` (docs/anim-spline.md, "Time"): the frame position is
//! `t / frameDuration` (clamped to the animation, snapped to a whole frame within 1/1000
//! of one); block `b = min(⌊position / (maxFramesPerBlock − 1)⌋, numBlocks − 1)`, so a
//! time on a block boundary belongs to the later block; the block's splines are evaluated
//! at `position − b × (maxFramesPerBlock − 1)` frames. Rotations are normalised.

mod block;
mod bytes;
mod eval;
mod frames;
mod quat;

use super::access::Rec;
use super::math::normalize;
use super::{Decoder, Frames, Result, Transform};

use block::{BlockAt, Channel, Pools};
use eval::Curve;

/// A decoded spline-compressed animation.
#[derive(Clone, Debug)]
pub struct SplineAnimation {
    duration: f32,
    frame_duration: f32,
    frames: usize,
    tracks: usize,
    /// Frames from one block's start to the next's (`maxFramesPerBlock − 1`).
    step: usize,
    blocks: Vec<Vec<Channel>>,
    /// Block `b`'s knot vectors are `vectors[b]..vectors[b + 1]` of the pool's.
    vectors: Vec<u32>,
    pools: Pools,
}

/// Reads a spline-compressed animation object.
pub(crate) fn read<'g>(rec: &Rec<'g>) -> Result<Box<dyn Decoder + 'g>> {
    Ok(Box::new(SplineAnimation::read(rec)?))
}

/// The scalar members that shape the blocks.
struct Shape {
    frames: usize,
    blocks: usize,
    step: usize,
    tracks: usize,
}

impl SplineAnimation {
    /// Reads and checks `rec`'s members and decodes every block.
    pub(crate) fn read(rec: &Rec<'_>) -> Result<SplineAnimation> {
        let shape = shape(rec)?;
        let duration = positive(rec, "duration", true)?;
        let frame_duration = positive(rec, "frameDuration", shape.frames < 2)?;
        let big = match rec.int("endian")? {
            0 => false,
            1 => true,
            e => return Err(rec.err("endian", format!("{e} is neither 0 (little) nor 1 (big)"))),
        };
        let mask_size = rec.count("maskAndQuantizationSize")?;
        if mask_size != (4 * shape.tracks).next_multiple_of(4) {
            return Err(rec.err(
                "maskAndQuantizationSize",
                format!("{mask_size} bytes of masks for {} tracks", shape.tracks),
            ));
        }
        let (blocks, vectors, pools) = read_blocks(rec, &shape, mask_size, big)?;
        Ok(SplineAnimation {
            duration,
            frame_duration,
            frames: shape.frames,
            tracks: shape.tracks,
            step: shape.step,
            blocks,
            vectors,
            pools,
        })
    }
}

/// Frames, blocks and tracks, checked against each other: at least one frame, at most
/// 256 frames per block (knots are bytes), and exactly the blocks the frames need.
fn shape(rec: &Rec<'_>) -> Result<Shape> {
    let tracks = rec.count("numberOfTransformTracks")?;
    if rec.count("numberOfFloatTracks")? > 0 {
        return Err(rec.err(
            "numberOfFloatTracks",
            "float tracks of spline animations are not decoded (no sample file has them)",
        ));
    }
    let frames = rec.count("numFrames")?;
    let per_block = rec.count("maxFramesPerBlock")?;
    let blocks = rec.count("numBlocks")?;
    if frames == 0 {
        return Err(rec.err("numFrames", "an animation of no frames"));
    }
    let fits = (2..=256).contains(&per_block) || (frames == 1 && per_block == 1);
    if !fits {
        return Err(rec.err("maxFramesPerBlock", format!("{per_block} frames per block")));
    }
    let step = per_block.saturating_sub(1).max(1);
    let needed = (frames - 1).div_ceil(step).max(1);
    if blocks != needed {
        return Err(rec.err(
            "numBlocks",
            format!("{blocks} blocks, but {frames} frames of {per_block} per block need {needed}"),
        ));
    }
    Ok(Shape {
        frames,
        blocks,
        step,
        tracks,
    })
}

/// A finite non-negative real member (positive unless `zero_ok`).
fn positive(rec: &Rec<'_>, name: &str, zero_ok: bool) -> Result<f32> {
    let v = rec.real(name)?;
    if !v.is_finite() || v < 0.0 || (v == 0.0 && !zero_ok) {
        return Err(rec.err(name, format!("{v} is not a length of time")));
    }
    Ok(v)
}

/// Decodes every block: block `b` runs from `blockOffsets[b]` to the next offset (the
/// last to the data's end), its track data ending where `floatBlockOffsets[b]` says the
/// float data begins.
fn read_blocks(
    rec: &Rec<'_>,
    s: &Shape,
    mask_size: usize,
    big: bool,
) -> Result<(Vec<Vec<Channel>>, Vec<u32>, Pools)> {
    let offsets = rec.u32s("blockOffsets")?;
    let float_offsets = rec.u32s("floatBlockOffsets")?;
    let data = rec.bytes("data")?;
    if offsets.len() != s.blocks {
        return Err(rec.err(
            "blockOffsets",
            format!("{} offsets for {} blocks", offsets.len(), s.blocks),
        ));
    }
    let mut pools = Pools::with_capacity(data.len());
    let mut blocks = Vec::with_capacity(s.blocks);
    let mut vectors = Vec::with_capacity(s.blocks + 1);
    for (b, &start) in offsets.iter().enumerate() {
        vectors.push(pools.vectors.len() as u32);
        let start = start as usize;
        let end = offsets.get(b + 1).map_or(data.len(), |&e| e as usize);
        if start > end || end > data.len() {
            return Err(rec.data_err(
                "blockOffsets",
                4 * b,
                format!(
                    "block {b} runs from byte {start} to {end} of {} bytes of data",
                    data.len()
                ),
            ));
        }
        let at = BlockAt {
            start,
            end,
            tracks_at: start + mask_size,
            tracks: s.tracks,
            big,
        };
        let (channels, stop) = block::read_block(data, &at, &mut pools)
            .map_err(|(o, m)| rec.data_err("data", o, format!("block {b}: {m}")))?;
        check_float_start(rec, &float_offsets, b, start, stop)?;
        blocks.push(channels);
    }
    vectors.push(pools.vectors.len() as u32);
    Ok((blocks, vectors, pools))
}

/// The transform data of block `b` (from `start`) ended at `stop`, which must not pass
/// where its float data begins.
fn check_float_start(
    rec: &Rec<'_>,
    float_offsets: &[u32],
    b: usize,
    start: usize,
    stop: usize,
) -> Result<()> {
    let Some(&f) = float_offsets.get(b) else {
        return Ok(());
    };
    let floats_at = start.saturating_add(f as usize);
    if stop.next_multiple_of(4) != floats_at {
        return Err(rec.data_err(
            "floatBlockOffsets",
            4 * b,
            format!("block {b}'s transform data ends at byte {stop}, its float data begins at {floats_at}"),
        ));
    }
    Ok(())
}

impl SplineAnimation {
    /// The channel's curve, when it is a spline.
    fn curve(&self, s: &block::Spline) -> Curve<'_> {
        let v = self.pools.vectors[s.vector as usize];
        let p = s.points_at as usize;
        Curve {
            degree: usize::from(v.degree),
            knots: self.pools.knots(v),
            points: &self.pools.points[p..p + s.points as usize],
        }
    }

    /// A channel's value at `u` frames into its block.
    fn value(&self, c: &Channel, u: f32) -> [f32; 4] {
        match c {
            Channel::Const(v) => *v,
            Channel::Spline(s) => self.curve(s).value(u),
        }
    }

    /// Block `b`'s tracks at `u` frames into it.
    fn eval_block(&self, b: usize, u: f32, out: &mut [Transform]) {
        for (o, ch) in out.iter_mut().zip(self.blocks[b].chunks_exact(3)) {
            *o = transform(
                self.value(&ch[0], u),
                self.value(&ch[1], u),
                self.value(&ch[2], u),
            );
        }
    }

    /// The block and the frames into it for a frame position `x` (in `0..frames`).
    fn locate(&self, x: f32) -> (usize, f32) {
        let b = ((x / self.step as f32) as usize).min(self.blocks.len() - 1);
        (b, (x - (b * self.step) as f32).max(0.0))
    }
}

/// A transform from a translation, a rotation (normalised here) and a scale.
#[inline]
fn transform(t: [f32; 4], r: [f32; 4], s: [f32; 4]) -> Transform {
    let n2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
    let rotation = if n2 > 0.0 && n2.is_finite() {
        let k = 1.0 / n2.sqrt();
        [r[0] * k, r[1] * k, r[2] * k, r[3] * k]
    } else {
        normalize(r)
    };
    Transform {
        translation: [t[0], t[1], t[2]],
        rotation,
        scale: [s[0], s[1], s[2]],
    }
}

impl Decoder for SplineAnimation {
    fn frame_count(&self) -> usize {
        self.frames
    }

    fn transform_tracks(&self) -> usize {
        self.tracks
    }

    fn float_tracks(&self) -> usize {
        0
    }

    fn duration(&self) -> f32 {
        self.duration
    }

    fn frame(&self, frame: usize, out: &mut [Transform], _floats: &mut [f32]) -> Result<()> {
        let f = frame.min(self.frames - 1);
        let b = (f / self.step).min(self.blocks.len() - 1);
        self.eval_block(b, (f - b * self.step) as f32, out);
        Ok(())
    }

    fn sample(&self, time: f32, out: &mut [Transform], _floats: &mut [f32]) -> Result<()> {
        let last = (self.frames - 1) as f32;
        let t = if time.is_finite() {
            time.clamp(0.0, self.duration)
        } else {
            0.0
        };
        let mut x = if self.frame_duration > 0.0 {
            t / self.frame_duration
        } else {
            0.0
        };
        if (x - x.round()).abs() < 1e-3 {
            x = x.round();
        }
        let (b, u) = self.locate(x.clamp(0.0, last));
        self.eval_block(b, u, out);
        Ok(())
    }

    fn frames(&self) -> Result<Frames> {
        let (n, t) = (self.frames, self.tracks);
        let mut out = Frames {
            frame_count: n,
            transform_tracks: t,
            float_tracks: 0,
            transforms: vec![Transform::IDENTITY; n * t],
            floats: Vec::new(),
        };
        let most = self
            .vectors
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0);
        let mut weights = Vec::with_capacity(most as usize * (self.step + 1).min(n));
        for b in 0..self.blocks.len() {
            let first = b * self.step;
            let count = (n - first).min(self.step + 1);
            self.block_frames(b, first, count, &mut out.transforms, &mut weights);
        }
        Ok(out)
    }
}
