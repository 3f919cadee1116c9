//! Skeletons and animations as poses (layer 5, beside `collision`): the skeletons,
//! bindings and animations of an `hkaAnimationContainer` graph, every animation decoded
//! through one [`Decoder`] interface into bone-local [`Transform`]s per frame, and sampled
//! at any time by its format's interpolation rule (docs/animation.md).
//!
//! Everything is read through the schema by member name (the private `access` module), so
//! Havok 5.5's `hka…SkeletalAnimation` classes and the later `hka…Animation` ones, in
//! packfiles and tagfiles, go through the same code.
//!
//! | module | holds |
//! |---|---|
//! | `access` | members by name through the schema, with animation errors |
//! | [`skeleton`] | bones, parents, the reference pose and float slots |
//! | [`binding`] | the track-to-bone and track-to-slot maps and the blend hint |
//! | [`interleaved`] | uncompressed animations: every frame stored |
//! | [`spline`] | spline-compressed animations: quantized B-splines per block |
//! | [`delta`] | delta-compressed animations: quantized differences frame to frame |
//! | [`wavelet`] | wavelet-compressed animations: quantized 5/3 wavelet coefficients per block |
//! | `quantized_bits` | what the delta and wavelet formats share: masks, static values, bits |
//! | [`math`] | quaternion and interpolation helpers |
//! | [`reference_frame`] | root motion: translation and yaw samples |
//! | [`spline_encode`] | the spline encoder: transforms to a tolerance-bounded spline |
//! | [`write`](mod@write) | animations into graphs: new files, or in place of a file's animation |

mod access;
pub mod binding;
pub mod delta;
pub mod interleaved;
pub mod math;
mod quantized_bits;
pub mod reference_frame;
pub mod skeleton;
pub mod spline;
pub mod spline_encode;
pub mod wavelet;
pub mod write;

use crate::graph::{Graph, ObjectId};

pub use crate::error::AnimError;
pub use binding::{Binding, BlendHint};
pub use reference_frame::ReferenceFrame;
pub use skeleton::{Bone, Skeleton};

use access::Rec;

/// Results of the animation readers.
pub type Result<T> = std::result::Result<T, Box<AnimError>>;

/// A bone's transform relative to its parent: translation, rotation (a quaternion x, y, z,
/// w) and scale, applied scale first, then rotation, then translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation, a unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
    /// Scale per axis.
    pub scale: [f32; 3],
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Transform = Transform {
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };

    /// A `qstransform` as stored: translation, rotation and scale, each in four floats.
    pub fn from_floats(f: &[f32; 12]) -> Transform {
        Transform {
            translation: [f[0], f[1], f[2]],
            rotation: [f[4], f[5], f[6], f[7]],
            scale: [f[8], f[9], f[10]],
        }
    }

    /// The stored form: translation, rotation and scale, each padded to four floats.
    pub fn to_floats(&self) -> [f32; 12] {
        let (t, r, s) = (self.translation, self.rotation, self.scale);
        [
            t[0], t[1], t[2], 0.0, r[0], r[1], r[2], r[3], s[0], s[1], s[2], 0.0,
        ]
    }
}

/// What every animation format gives: its frames decoded, and a sample at any time.
///
/// Tracks are the animation's: transform track `i` drives the bone the binding maps it to
/// ([`Binding::bone_of_track`]), or bone `i` without a binding.
pub trait Decoder {
    /// Frames stored (the first at time 0, the last at the duration).
    fn frame_count(&self) -> usize;
    /// Transform tracks.
    fn transform_tracks(&self) -> usize;
    /// Float tracks.
    fn float_tracks(&self) -> usize;
    /// The length in seconds.
    fn duration(&self) -> f32;
    /// Frame `frame`'s transforms (`out.len()` is the transform tracks) and floats
    /// (`floats.len()` is the float tracks).
    fn frame(&self, frame: usize, out: &mut [Transform], floats: &mut [f32]) -> Result<()>;
    /// The pose at `time` seconds (clamped to the animation), by the format's
    /// interpolation rule (docs/animation.md).
    fn sample(&self, time: f32, out: &mut [Transform], floats: &mut [f32]) -> Result<()>;

    /// Every frame: `frame_count × transform_tracks` transforms and `frame_count ×
    /// float_tracks` floats, frame after frame.
    fn frames(&self) -> Result<Frames> {
        let (n, t, f) = (
            self.frame_count(),
            self.transform_tracks(),
            self.float_tracks(),
        );
        let mut out = Frames {
            frame_count: n,
            transform_tracks: t,
            float_tracks: f,
            transforms: vec![Transform::IDENTITY; n * t],
            floats: vec![0.0; n * f],
        };
        for i in 0..n {
            self.frame(
                i,
                &mut out.transforms[i * t..(i + 1) * t],
                &mut out.floats[i * f..(i + 1) * f],
            )?;
        }
        Ok(out)
    }
}

/// Every frame of an animation, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Frames {
    /// Frames.
    pub frame_count: usize,
    /// Transform tracks.
    pub transform_tracks: usize,
    /// Float tracks.
    pub float_tracks: usize,
    /// `frame × transform_tracks + track`.
    pub transforms: Vec<Transform>,
    /// `frame × float_tracks + track`.
    pub floats: Vec<f32>,
}

impl Frames {
    /// Frame `frame`'s transforms.
    pub fn frame(&self, frame: usize) -> &[Transform] {
        let t = self.transform_tracks;
        &self.transforms[frame * t..(frame + 1) * t]
    }
}

/// One annotation: a text at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    /// Seconds from the start.
    pub time: f32,
    /// The text.
    pub text: String,
}

/// A track's annotations, named as the track's bone.
#[derive(Clone, Debug, PartialEq)]
pub struct AnnotationTrack {
    /// The track's name (usually its bone's).
    pub name: String,
    /// The annotations, as stored.
    pub annotations: Vec<Annotation>,
}

/// An animation: its object, class and a decoder of its format.
pub struct Animation<'g> {
    /// The animation object.
    pub object: ObjectId,
    /// Its class (`hkaSplineCompressedAnimation`, ...).
    pub class: String,
    /// Annotation tracks.
    pub annotations: Vec<AnnotationTrack>,
    /// The root motion (`extractedMotion`) object, when the animation has one.
    pub extracted_motion: Option<ObjectId>,
    /// The decoder.
    pub decoder: Box<dyn Decoder + 'g>,
}

impl std::fmt::Debug for Animation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Animation")
            .field("object", &self.object)
            .field("class", &self.class)
            .field("frames", &self.decoder.frame_count())
            .field("duration", &self.decoder.duration())
            .finish_non_exhaustive()
    }
}

/// The animation classes hk decodes, each with its reader (Havok 5.5's names and the later
/// ones).
type Reader = for<'g> fn(&Rec<'g>) -> Result<Box<dyn Decoder + 'g>>;

const FORMATS: &[(&str, Reader)] = &[
    ("hkaInterleavedUncompressedAnimation", interleaved::read),
    ("hkaInterleavedSkeletalAnimation", interleaved::read),
    ("hkaSplineCompressedAnimation", spline::read),
    ("hkaSplineSkeletalAnimation", spline::read),
    ("hkaDeltaCompressedAnimation", delta::read),
    ("hkaDeltaCompressedSkeletalAnimation", delta::read),
    ("hkaWaveletCompressedAnimation", wavelet::read),
    ("hkaWaveletSkeletalAnimation", wavelet::read),
];

/// Whether class `class` (or a parent) is an animation hk can decode.
pub fn decodes(graph: &Graph, class: &str) -> bool {
    FORMATS
        .iter()
        .any(|(c, _)| access::is_a(graph.schema(), class, c))
}

/// Object `id` as an animation.
pub fn animation(graph: &Graph, id: ObjectId) -> Result<Animation<'_>> {
    let rec = Rec::object(graph, id)?;
    let class = rec.class_name().to_string();
    let read = FORMATS
        .iter()
        .find(|(c, _)| access::is_a(graph.schema(), &class, c))
        .map(|(_, r)| *r)
        .ok_or_else(|| AnimError::member(rec.label(), "", "not an animation hk decodes"))?;
    let decoder = read(&rec)?;
    let annotations = annotation_tracks(&rec)?;
    let extracted_motion = rec
        .opt("extractedMotion")
        .and(rec.ptr("extractedMotion").ok())
        .flatten();
    Ok(Animation {
        object: id,
        class,
        annotations,
        extracted_motion,
        decoder,
    })
}

fn annotation_tracks(rec: &Rec<'_>) -> Result<Vec<AnnotationTrack>> {
    if rec.opt("annotationTracks").is_none() {
        return Ok(Vec::new());
    }
    let tracks = rec.items("annotationTracks")?;
    tracks
        .iter()
        .map(|t| {
            let name = t
                .string_of(&["trackName", "name"])?
                .unwrap_or_default()
                .to_string();
            let annotations = t
                .recs("annotations")?
                .iter()
                .map(|a| {
                    Ok(Annotation {
                        time: a.real("time")?,
                        text: a.string("text")?.unwrap_or_default().to_string(),
                    })
                })
                .collect::<Result<_>>()?;
            Ok(AnnotationTrack { name, annotations })
        })
        .collect()
}

/// The animation objects of a graph, in object order.
pub fn animation_ids(graph: &Graph) -> Vec<ObjectId> {
    (0..graph.objects.len() as u32)
        .map(ObjectId)
        .filter(|&id| is_animation(graph, id))
        .collect()
}

fn is_animation(graph: &Graph, id: ObjectId) -> bool {
    let class = graph.class_name(id);
    ["hkaAnimation", "hkaSkeletalAnimation"]
        .iter()
        .any(|c| access::is_a(graph.schema(), class, c))
}
