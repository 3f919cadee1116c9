//! Uncompressed animations (`hkaInterleavedUncompressedAnimation`, Havok 5.5's
//! `hkaInterleavedSkeletalAnimation`): every frame's transform of every track stored, frame
//! after frame, and the float tracks likewise. Between frames translation and scale are
//! interpolated linearly and rotation by normalised linear interpolation along the shorter
//! arc (docs/animation.md, "Interleaved").

use super::access::Rec;
use super::math::{frame_and_delta, lerp3, nlerp};
use super::{Decoder, Result, Transform};

/// A decoded uncompressed animation.
#[derive(Clone, Debug)]
pub struct Interleaved {
    duration: f32,
    tracks: usize,
    float_tracks: usize,
    frames: usize,
    transforms: Vec<Transform>,
    floats: Vec<f32>,
}

/// Reads an uncompressed animation object.
pub(crate) fn read<'g>(rec: &Rec<'g>) -> Result<Box<dyn Decoder + 'g>> {
    Ok(Box::new(Interleaved::read(rec)?))
}

impl Interleaved {
    /// Reads `rec`'s transforms and floats, checking that they hold whole frames.
    pub(crate) fn read(rec: &Rec<'_>) -> Result<Interleaved> {
        let tracks = rec.count("numberOfTransformTracks")?;
        let float_tracks = rec.count("numberOfFloatTracks")?;
        let duration = rec.real("duration")?;
        if !duration.is_finite() || duration < 0.0 {
            return Err(rec.err("duration", format!("{duration} is not a duration")));
        }
        let transforms = rec.transforms("transforms")?;
        let floats = rec.reals("floats")?;
        let frames = whole_frames(rec, "transforms", transforms.len(), tracks)?
            .or(whole_frames(rec, "floats", floats.len(), float_tracks)?)
            .unwrap_or(0);
        if tracks > 0 && float_tracks > 0 && floats.len() != frames * float_tracks {
            return Err(rec.err(
                "floats",
                format!(
                    "{} floats for {frames} frames of {float_tracks} tracks",
                    floats.len()
                ),
            ));
        }
        Ok(Interleaved {
            duration,
            tracks,
            float_tracks,
            frames,
            transforms,
            floats,
        })
    }
}

/// The frames `len` values of `per` tracks make, refusing a partial frame.
fn whole_frames(rec: &Rec<'_>, name: &str, len: usize, per: usize) -> Result<Option<usize>> {
    if per == 0 {
        return Ok(None);
    }
    if !len.is_multiple_of(per) {
        return Err(rec.err(
            name,
            format!("{len} values are not whole frames of {per} tracks"),
        ));
    }
    Ok(Some(len / per))
}

impl Decoder for Interleaved {
    fn frame_count(&self) -> usize {
        self.frames
    }

    fn transform_tracks(&self) -> usize {
        self.tracks
    }

    fn float_tracks(&self) -> usize {
        self.float_tracks
    }

    fn duration(&self) -> f32 {
        self.duration
    }

    fn frame(&self, frame: usize, out: &mut [Transform], floats: &mut [f32]) -> Result<()> {
        let f = frame.min(self.frames.saturating_sub(1));
        if self.frames > 0 {
            let t = &self.transforms[f * self.tracks..(f + 1) * self.tracks];
            out.iter_mut().zip(t).for_each(|(o, t)| *o = *t);
            let v = &self.floats[f * self.float_tracks..(f + 1) * self.float_tracks];
            floats.iter_mut().zip(v).for_each(|(o, v)| *o = *v);
        }
        Ok(())
    }

    fn sample(&self, time: f32, out: &mut [Transform], floats: &mut [f32]) -> Result<()> {
        let (i, d) = frame_and_delta(time, self.duration, self.frames);
        self.frame(i, out, floats)?;
        if self.frames < 2 || d == 0.0 {
            return Ok(());
        }
        let next = &self.transforms[(i + 1) * self.tracks..(i + 2) * self.tracks];
        for (a, b) in out.iter_mut().zip(next) {
            a.translation = lerp3(a.translation, b.translation, d);
            a.rotation = nlerp(a.rotation, b.rotation, d);
            a.scale = lerp3(a.scale, b.scale, d);
        }
        let next = &self.floats[(i + 1) * self.float_tracks..(i + 2) * self.float_tracks];
        for (a, b) in floats.iter_mut().zip(next) {
            *a += (b - *a) * d;
        }
        Ok(())
    }
}
