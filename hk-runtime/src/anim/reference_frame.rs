//! Root motion (`hkaDefaultAnimatedReferenceFrame`): the motion an exporter took out of a
//! clip's root, stored as samples evenly spread over the duration, each a translation and
//! a yaw angle (radians) about the `up` axis. Between samples the four numbers are
//! interpolated linearly; before the start and past the end the first and last sample
//! hold; the rotation is the yaw about `up`, the scale one (docs/animation.md, "Root
//! motion").

use crate::graph::{Graph, ObjectId};

use super::access::Rec;
use super::{Result, Transform};

/// A clip's extracted root motion.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceFrame {
    /// The object.
    pub object: ObjectId,
    /// The axis yaw turns about.
    pub up: [f32; 3],
    /// The character's forward direction.
    pub forward: [f32; 3],
    /// Seconds the samples span.
    pub duration: f32,
    /// Translation (x, y, z) and yaw (w), first to last.
    pub samples: Vec<[f32; 4]>,
}

impl ReferenceFrame {
    /// Object `id` as a default animated reference frame.
    pub fn read(graph: &Graph, id: ObjectId) -> Result<ReferenceFrame> {
        let rec: Rec<'_> = Rec::object(graph, id)?;
        let duration = rec.real("duration")?;
        if !duration.is_finite() || duration < 0.0 {
            return Err(rec.err("duration", format!("{duration} is not a duration")));
        }
        let samples = match rec.array("referenceFrameSamples")? {
            crate::graph::Array::Vec4(v) => v.clone(),
            crate::graph::Array::Values(v) if v.is_empty() => Vec::new(),
            _ => return Err(rec.err("referenceFrameSamples", "expected vector4 samples")),
        };
        Ok(ReferenceFrame {
            object: id,
            up: rec.vec3("up")?,
            forward: rec.vec3("forward")?,
            duration,
            samples,
        })
    }

    /// The root motion at `time` seconds.
    pub fn sample(&self, time: f32) -> Transform {
        let n = self.samples.len();
        let v = match n {
            0 => [0.0; 4],
            1 => self.samples[0],
            _ if time.is_nan() || time <= 0.0 => self.samples[0],
            _ if time >= self.duration => self.samples[n - 1],
            _ => {
                let x = time / (self.duration / (n - 1) as f32);
                let i = (x as usize).min(n - 2);
                let d = x - i as f32;
                let (a, b) = (self.samples[i], self.samples[i + 1]);
                [0, 1, 2, 3].map(|k| a[k] + (b[k] - a[k]) * d)
            }
        };
        Transform {
            translation: [v[0], v[1], v[2]],
            rotation: axis_angle(self.up, v[3]),
            scale: [1.0; 3],
        }
    }
}

/// The rotation by `angle` radians about `axis` (normalised; no rotation about a zero axis).
fn axis_angle(axis: [f32; 3], angle: f32) -> [f32; 4] {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if n == 0.0 || !n.is_finite() || !angle.is_finite() {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let (s, c) = (angle / 2.0).sin_cos();
    [axis[0] / n * s, axis[1] / n * s, axis[2] / n * s, c]
}
