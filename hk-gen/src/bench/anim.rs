//! `hk bench --anim`: animation decoding throughput, in bone-frames per second (one
//! transform track of one frame), over every animation hk decodes in the files given
//! (docs/animation.md). One thread; the unpacking when an animation is read (block
//! offsets, knots, masks) is timed apart from decoding every frame.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use hk_runtime::anim;
use serde_json::json;

use super::Input;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::Status;

/// Per class: (animations, bone-frames of one pass, seconds decoding, seconds reading).
type ByClass = BTreeMap<String, (usize, u64, f64, f64)>;

fn anim_error(path: &Path, e: Box<anim::AnimError>) -> Error {
    Error::Runtime(hk_runtime::Error::from(e).in_file(path))
}

/// Reads each animation and decodes every frame, `rounds` times, adding to `by`.
fn measure(ctx: &Context, input: &Input, rounds: usize, by: &mut ByClass) -> Result<()> {
    let doc = ctx
        .open_bytes(&input.bytes)
        .map_err(|e| e.in_file(&input.path))?;
    let graph = &*doc.graph.with_struct_values();
    for id in anim::animation_ids(graph) {
        let class = graph.class_name(id).to_string();
        if !anim::decodes(graph, &class) {
            continue;
        }
        let entry = by.entry(class).or_default();
        entry.0 += 1;
        for _ in 0..rounds {
            let t = Instant::now();
            let a = anim::animation(graph, id).map_err(|e| anim_error(&input.path, e))?;
            entry.3 += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let f = a.decoder.frames().map_err(|e| anim_error(&input.path, e))?;
            entry.2 += t.elapsed().as_secs_f64();
            entry.1 += (f.frame_count * f.transform_tracks) as u64;
            std::hint::black_box(&f);
        }
    }
    Ok(())
}

fn rate(bone_frames: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bone_frames as f64 / seconds / 1e6
    } else {
        0.0
    }
}

/// Runs the animation benchmark over `inputs` and prints a line per class and a total
/// (or one JSON object).
///
/// # Errors
/// A file that does not read or an animation that does not decode; no animation found.
pub(super) fn run(
    ctx: &Context,
    inputs: &[Input],
    rounds: usize,
    json_out: bool,
    o: &mut Out<'_>,
) -> Result<Status> {
    let mut by = ByClass::new();
    for input in inputs {
        measure(ctx, input, rounds, &mut by)?;
    }
    if by.is_empty() {
        return Err(Error::usage("no animation hk decodes in the files given"));
    }
    let total = by.values().fold((0, 0, 0.0, 0.0), |a, v| {
        (a.0 + v.0, a.1 + v.1, a.2 + v.2, a.3 + v.3)
    });
    if json_out {
        let classes: serde_json::Map<_, _> = by
            .iter()
            .map(|(c, v)| {
                (
                    c.clone(),
                    json!({"animations": v.0, "bone_frames": v.1,
                    "decode_m_per_s": rate(v.1, v.2), "with_read_m_per_s": rate(v.1, v.2 + v.3)}),
                )
            })
            .collect();
        let doc = json!({"animations": total.0, "rounds": rounds, "bone_frames": total.1,
            "decode_m_per_s": rate(total.1, total.2),
            "with_read_m_per_s": rate(total.1, total.2 + total.3), "classes": classes});
        outln!(o, "{doc}");
        return Ok(Status::Success);
    }
    for (c, v) in &by {
        outln!(
            o,
            "{c}: {} animations, {:.1} M bone-frames/s decoding ({:.1} M counting the read)",
            v.0,
            rate(v.1, v.2),
            rate(v.1, v.2 + v.3)
        );
    }
    outln!(
        o,
        "all: {} animations, {} bone-frames in {rounds} rounds, {:.1} M bone-frames/s decoding ({:.1} M counting the read), one thread",
        total.0,
        total.1,
        rate(total.1, total.2),
        rate(total.1, total.2 + total.3)
    );
    Ok(Status::Success)
}
