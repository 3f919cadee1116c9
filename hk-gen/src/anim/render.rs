//! `hk render` of a pose: the bones of a skeleton as lines from each parent to its child
//! and the joints as dots, in the reference pose or at a frame of an animation, drawn from
//! the collision renderer's camera ([`crate::collision::render`]: orthographic, the
//! three-quarter view, +Y up) fitted to the pose's bounds.

use hk_runtime::anim::math::{lerp3, nlerp};
use hk_runtime::anim::Transform;
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke};

use super::Rig;
use crate::collision::render::{background, Camera, RenderOptions, MAX_SIDE};

/// Which pose to draw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum When {
    /// The skeletons' reference pose.
    #[default]
    Reference,
    /// A stored frame of an animation (clamped to its last).
    Frame(usize),
    /// A time in seconds (clamped to the animation), between stored frames by linear
    /// interpolation (normalised for rotations), as the glTF channels play it.
    Time(f32),
}

/// What [`pose`] drew.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    /// Bones (lines) drawn.
    pub bones: usize,
    /// Joints (dots) drawn.
    pub joints: usize,
    /// The animation, when one was posed.
    pub animation: Option<String>,
    /// The frame drawn (the one at or before the time for [`When::Time`]).
    pub frame: Option<usize>,
}

/// The bone-local pose of skeleton `s`: the reference, with the tracks of animation
/// `clip` at `when` in place of the bones they drive.
fn local_pose(
    rig: &Rig,
    s: usize,
    clip: Option<usize>,
    when: When,
) -> (Vec<Transform>, Option<usize>) {
    let mut local: Vec<Transform> = rig.skeletons[s].bones.iter().map(|b| b.reference).collect();
    let Some(c) = clip.map(|c| &rig.clips[c]).filter(|c| c.skeleton == s) else {
        return (local, None);
    };
    let n = c.frames.frame_count;
    if n == 0 || when == When::Reference {
        return (local, None);
    }
    let (i, d) = match when {
        When::Frame(f) => (f.min(n - 1), 0.0),
        When::Time(t) => hk_runtime::anim::math::frame_and_delta(t, c.duration, n),
        When::Reference => (0, 0.0),
    };
    let a = c.frames.frame(i);
    let b = c.frames.frame((i + 1).min(n - 1));
    for (t, bone) in c.bones.iter().enumerate() {
        if let Some(bone) = *bone {
            local[bone] = Transform {
                translation: lerp3(a[t].translation, b[t].translation, d),
                rotation: nlerp(a[t].rotation, b[t].rotation, d),
                scale: lerp3(a[t].scale, b[t].scale, d),
            };
        }
    }
    (local, Some(i))
}

/// Draws the skeletons of `rig` (only the animated one when `clip` is given), posed at
/// `when` by animation `clip`.
///
/// # Errors
/// No bone to draw, an animation index past the file's, a size out of range.
pub fn pose(
    rig: &Rig,
    clip: Option<usize>,
    when: When,
    opts: &RenderOptions,
) -> Result<(Pixmap, Drawn), String> {
    let (w, h) = (opts.width, opts.height);
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(format!("size {w}x{h}: each side must be 1 to {MAX_SIDE}"));
    }
    if let Some(c) = clip.filter(|&c| c >= rig.clips.len()) {
        return Err(format!(
            "animation {c}: the file decodes {} animations",
            rig.clips.len()
        ));
    }
    let cam = Camera::three_quarter();
    let mut segments: Vec<([f32; 3], [f32; 3])> = Vec::new();
    let mut dots: Vec<[f32; 3]> = Vec::new();
    let mut frame = None;
    for s in 0..rig.skeletons.len() {
        if clip.is_some_and(|c| rig.clips[c].skeleton != s) {
            continue;
        }
        let (local, f) = local_pose(rig, s, clip, when);
        frame = frame.or(f);
        let model = rig.skeletons[s].model_pose(&local);
        for (i, bone) in rig.skeletons[s].bones.iter().enumerate() {
            let p = cam.project(model[i].translation);
            if !p.iter().all(|c| c.is_finite()) {
                continue;
            }
            dots.push(p);
            if let Some(q) = bone.parent.map(|j| cam.project(model[j].translation)) {
                if q.iter().all(|c| c.is_finite()) {
                    segments.push((q, p));
                }
            }
        }
    }
    if dots.is_empty() {
        return Err("no bones to draw".to_string());
    }
    let pixmap = draw(&segments, &dots, w, h).ok_or("cannot allocate the picture")?;
    Ok((
        pixmap,
        Drawn {
            bones: segments.len(),
            joints: dots.len(),
            animation: clip.map(|c| rig.clips[c].name.clone()),
            frame,
        },
    ))
}

/// Draws projected `segments` and `dots` fitted to a `w` × `h` picture (a 5% margin each
/// side), nearer bones over farther ones.
fn draw(segments: &[([f32; 3], [f32; 3])], dots: &[[f32; 3]], w: u32, h: u32) -> Option<Pixmap> {
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    for p in dots {
        for i in 0..2 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    let fit = |side: u32, extent: f32| side as f32 * 0.9 / extent;
    let mut scale = fit(w, hi[0] - lo[0]).min(fit(h, hi[1] - lo[1]));
    if !(scale.is_finite() && scale > 0.0) {
        scale = 1.0;
    }
    let (cx, cy) = ((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0);
    let px = |q: [f32; 3]| {
        (
            w as f32 / 2.0 + (q[0] - cx) * scale,
            h as f32 / 2.0 - (q[1] - cy) * scale,
        )
    };
    let mut pm = Pixmap::new(w, h)?;
    let [r, g, b] = background();
    pm.fill(Color::from_rgba8(r, g, b, 255));
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    let stroke = Stroke {
        width: (w.min(h) as f32 / 250.0).clamp(1.5, 4.0),
        ..Stroke::default()
    };
    let mut order: Vec<&([f32; 3], [f32; 3])> = segments.iter().collect();
    order.sort_by(|a, b| (b.0[2] + b.1[2]).total_cmp(&(a.0[2] + a.1[2])));
    paint.set_color_rgba8(0xd8, 0xdc, 0xe4, 255);
    for (a, b) in order {
        let (mut p, q) = (px(*a), px(*b));
        if p == q {
            p.0 += 0.01;
        }
        let mut pb = PathBuilder::new();
        pb.move_to(p.0, p.1);
        pb.line_to(q.0, q.1);
        if let Some(path) = pb.finish() {
            pm.stroke_path(
                &path,
                &paint,
                &stroke,
                tiny_skia::Transform::identity(),
                None,
            );
        }
    }
    paint.set_color_rgba8(0xf0, 0xa0, 0x30, 255);
    let radius = stroke.width * 1.2;
    for d in dots {
        let (x, y) = px(*d);
        if let Some(path) = PathBuilder::from_circle(x, y, radius) {
            pm.fill_path(
                &path,
                &paint,
                FillRule::Winding,
                tiny_skia::Transform::identity(),
                None,
            );
        }
    }
    Some(pm)
}
