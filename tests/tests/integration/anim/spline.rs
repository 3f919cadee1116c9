//! Spline-compressed animations (docs/anim-spline.md): the HavokLib `allosaur_run`
//! settings against the uncompressed motion of the same set and layout, game files from
//! three Havok versions and containers, and hostile edits of a real file's members.

use super::extent;
use std::path::{Path, PathBuf};

use hk_runtime::anim::{self, math, AnimError, Frames, Skeleton};
use hk_runtime::file::{self, Document};
use hk_runtime::graph::{Array, Graph, ObjectId, Value};
use hk_runtime::ReadOptions;

/// The three HavokLib settings and the largest errors each may reach: translation as a
/// fraction of the skeleton's extent, rotation in degrees (docs/anim-spline.md,
/// "Accuracy").
const SETTINGS: [(&str, f32, f32); 3] = [
    ("S32_V16_B255_D1", 1.6e-5, 1.0),
    ("S40_V16_B25_D3", 1.6e-5, 0.25),
    ("S48_V8_B255_D2", 3.9e-3, 0.25),
];

fn open(path: &Path) -> Document {
    let bytes = std::fs::read(path).unwrap();
    file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

/// The frames of a file's only animation.
fn frames_of(doc: &Document) -> Frames {
    let ids = anim::animation_ids(&doc.graph);
    assert_eq!(ids.len(), 1);
    anim::animation(&doc.graph, ids[0])
        .unwrap()
        .decoder
        .frames()
        .unwrap()
}

/// The HavokLib sets.
fn sets(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root.join("packfile"))
        .unwrap()
        .flatten()
        .filter(|s| s.file_name().to_string_lossy().starts_with("havoklib-"))
        .map(|s| s.path())
        .collect();
    out.sort();
    out
}

/// The layouts (`4011`, ...) of `name[layout].hkx` in `set`.
fn layouts(set: &Path, name: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(set)
        .unwrap()
        .flatten()
        .filter_map(|f| {
            let n = f.file_name().to_string_lossy().to_string();
            let rest = n.strip_prefix(name)?.strip_prefix('[')?;
            Some(rest.strip_suffix("].hkx")?.to_string())
        })
        .collect();
    out.sort();
    out
}

/// The largest translation (absolute) and rotation (degrees) differences of two
/// animations' common frames.
fn max_errors(a: &Frames, b: &Frames) -> (f32, f32) {
    assert_eq!(a.transform_tracks, b.transform_tracks);
    let (mut dt, mut dr) = (0.0f32, 0.0f32);
    for f in 0..a.frame_count.min(b.frame_count) {
        for (x, y) in a.frame(f).iter().zip(b.frame(f)) {
            let d: f32 = (0..3)
                .map(|i| (x.translation[i] - y.translation[i]).powi(2))
                .sum();
            dt = dt.max(d.sqrt());
            dr = dr.max(math::angle_deg(x.rotation, y.rotation));
        }
    }
    (dt, dr)
}

#[test]
fn havoklib_settings_stay_near_the_uncompressed_motion_in_every_layout() {
    let Some(root) = hk_tests::corpus("anim::spline") else {
        return;
    };
    let mut checked = 0;
    for set in sets(&root) {
        let Some(first) = layouts(&set, "allosaur").into_iter().next() else {
            continue;
        };
        let sdoc = open(&set.join(format!("allosaur[{first}].hkx")));
        let s = Skeleton::read(&sdoc.graph, anim::skeleton::skeleton_ids(&sdoc.graph)[0]).unwrap();
        let size = extent(&s);
        for (setting, t_bound, r_bound) in SETTINGS {
            let name = format!("allosaur_run_{setting}");
            let mut same: Option<Frames> = None;
            for layout in layouts(&set, &name) {
                let path = set.join(format!("{name}[{layout}].hkx"));
                let got = frames_of(&open(&path));
                let truth = frames_of(&open(&set.join(format!("allosaur_run[{layout}].hkx"))));
                assert_eq!(got.frame_count, truth.frame_count, "{}", path.display());
                let (dt, dr) = max_errors(&got, &truth);
                println!(
                    "{} {setting} [{layout}]: translation {:.3e} of {size:.3}, rotation {dr:.3}°",
                    set.file_name().unwrap().to_string_lossy(),
                    dt / size
                );
                assert!(dt / size <= t_bound, "{}: {}", path.display(), dt / size);
                assert!(dr <= r_bound, "{}: {dr}°", path.display());
                match &same {
                    Some(f) => assert_eq!(f, &got, "{}", path.display()),
                    None => same = Some(got),
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 120, "{checked} files");
}

const GAMES: [&str; 3] = [
    "games/dark-souls-3/c1240_a00_3000.hkx",
    "games/ffxiv-and-xat-tests/animation.hkt",
    "games/dark-souls-remastered/c2240_a00_3000.hkx",
];

/// The stored integer or real member `name` of object `id`.
fn member(g: &Graph, id: ObjectId, name: &str) -> Value {
    g.get(id, name).unwrap()
}

#[test]
fn game_files_decode_whole_unit_frames_that_sampling_reproduces() {
    let Some(root) = hk_tests::corpus("anim::spline") else {
        return;
    };
    for rel in GAMES {
        let doc = open(&root.join(rel));
        let ids = anim::animation_ids(&doc.graph);
        assert_eq!(ids.len(), 1, "{rel}");
        let a = anim::animation(&doc.graph, ids[0]).unwrap();
        assert_eq!(a.class, "hkaSplineCompressedAnimation", "{rel}");
        let d = &a.decoder;
        let Value::Int(n) = member(&doc.graph, ids[0], "numFrames") else {
            panic!("{rel}: numFrames")
        };
        let Value::Real(dur) = member(&doc.graph, ids[0], "duration") else {
            panic!("{rel}: duration")
        };
        assert_eq!(d.frame_count() as i64, n, "{rel}");
        assert_eq!(d.duration(), dur, "{rel}");
        let frames = d.frames().unwrap();
        let t = d.transform_tracks();
        let mut out = vec![anim::Transform::IDENTITY; t];
        for f in 0..d.frame_count() {
            for x in frames.frame(f) {
                let len = math::dot(x.rotation, x.rotation).sqrt();
                assert!((len - 1.0).abs() < 1e-3, "{rel} frame {f}: |q| = {len}");
            }
            d.frame(f, &mut out, &mut []).unwrap();
            assert_eq!(out, frames.frame(f), "{rel} frame {f}");
            let time = f as f32 * d.duration() / (d.frame_count() - 1) as f32;
            d.sample(time, &mut out, &mut []).unwrap();
            for (x, y) in out.iter().zip(frames.frame(f)) {
                let s = math::dot(x.rotation, y.rotation).signum();
                for i in 0..4 {
                    let d = (x.rotation[i] - s * y.rotation[i]).abs();
                    assert!(d < 1e-5, "{rel} frame {f}: {x:?} {y:?}");
                }
                for i in 0..3 {
                    assert!(
                        (x.translation[i] - y.translation[i]).abs() < 1e-4,
                        "{rel} frame {f}"
                    );
                }
            }
        }
    }
}

/// A spline file of the 2010 set, its animation object and its graph.
fn hostile_base(root: &Path) -> (Graph, ObjectId) {
    let path = root.join("packfile/havoklib-2010_2/allosaur_run_S40_V16_B25_D3[4011].hkx");
    let doc = open(&path);
    let id = anim::animation_ids(&doc.graph)[0];
    (doc.graph, id)
}

/// The value of member `name` of object `id`, to edit.
fn value_mut<'a>(g: &'a mut Graph, id: ObjectId, name: &str) -> &'a mut Value {
    let class = g.objects[id.0 as usize].class;
    let i = (0..g.objects[id.0 as usize].values.len())
        .find(|&i| g.member_name(class, i).as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no member {name}"));
    &mut g.objects[id.0 as usize].values[i]
}

/// The error decoding (and then taking every frame of) the edited animation.
fn decode_err(g: &Graph, id: ObjectId) -> AnimError {
    match anim::animation(g, id).and_then(|a| a.decoder.frames().map(|_| ())) {
        Ok(()) => panic!("the edited animation decoded"),
        Err(e) => *e,
    }
}

fn data_mut(g: &mut Graph, id: ObjectId) -> &mut Vec<u8> {
    match value_mut(g, id, "data") {
        Value::Array(Array::U8(v)) => v,
        v => panic!("data is {v:?}"),
    }
}

fn offsets_mut<'a>(g: &'a mut Graph, id: ObjectId, name: &str) -> &'a mut Vec<u32> {
    match value_mut(g, id, name) {
        Value::Array(Array::U32(v)) => v,
        v => panic!("{name} is {v:?}"),
    }
}

/// Asserts `e` is a data error at byte `offset` of `member`.
fn assert_data(e: &AnimError, member: &str, offset: usize) {
    match e {
        AnimError::Data {
            member: m,
            offset: o,
            ..
        } => assert!(m.ends_with(member) && *o == offset, "{e}"),
        _ => panic!("not a data error: {e}"),
    }
}

/// Asserts `e` is an error about member `member`.
fn assert_member(e: &AnimError, member: &str) {
    match e {
        AnimError::Member { member: m, .. } => assert!(m.ends_with(member), "{e}"),
        _ => panic!("not a member error: {e}"),
    }
}

#[test]
fn hostile_members_are_refused_with_their_member_and_byte() {
    let Some(root) = hk_tests::corpus("anim::spline") else {
        return;
    };
    let (base, id) = hostile_base(&root);
    assert!(anim::animation(&base, id).unwrap().decoder.frames().is_ok());

    let mut g = base.clone();
    offsets_mut(&mut g, id, "blockOffsets")[2] = 1 << 30;
    assert_data(&decode_err(&g, id), "blockOffsets", 4);

    for frames in [0i64, -1] {
        let mut g = base.clone();
        *value_mut(&mut g, id, "numFrames") = Value::Int(frames);
        assert_member(&decode_err(&g, id), "numFrames");
    }
    // More frames than the blocks hold.
    for frames in [u32::MAX as i64, 1000] {
        let mut g = base.clone();
        *value_mut(&mut g, id, "numFrames") = Value::Int(frames);
        assert_member(&decode_err(&g, id), "numBlocks");
    }

    // Track 0's quantization byte: rotation format 7 does not exist.
    let mut g = base.clone();
    data_mut(&mut g, id)[0] = 0x45 | (7 << 2);
    assert_data(&decode_err(&g, id), "data", 0);

    // Track 0's translation quantization 3 does not exist.
    let mut g = base.clone();
    data_mut(&mut g, id)[0] = 0x47;
    assert_data(&decode_err(&g, id), "data", 0);

    // Track 1 (mask at byte 4) is a spline from byte 380: its degree (byte 382) past the
    // largest, then a knot that decreases (byte 383 + 5), then a NaN range (byte 412).
    let mut g = base.clone();
    data_mut(&mut g, id)[382] = 200;
    assert_data(&decode_err(&g, id), "data", 380);
    let mut g = base.clone();
    data_mut(&mut g, id)[383 + 5] = 0;
    assert_data(&decode_err(&g, id), "data", 383 + 5);
    let mut g = base.clone();
    data_mut(&mut g, id)[412..416].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_data(&decode_err(&g, id), "data", 412);

    // A control point count past the block.
    let mut g = base.clone();
    data_mut(&mut g, id)[380..382].copy_from_slice(&60000u16.to_le_bytes());
    assert_data(&decode_err(&g, id), "data", 383);

    // More masks than the block holds.
    let mut g = base.clone();
    *value_mut(&mut g, id, "numberOfTransformTracks") = Value::Int(100_000);
    assert_member(&decode_err(&g, id), "maskAndQuantizationSize");
    *value_mut(&mut g, id, "maskAndQuantizationSize") = Value::Int(400_000);
    assert_data(&decode_err(&g, id), "data", 0);

    // A truncated data array.
    let mut g = base.clone();
    data_mut(&mut g, id).truncate(40_000);
    assert_data(&decode_err(&g, id), "blockOffsets", 12);
}

/// Bone-frames per second of `frames()` over every spline file of the corpus.
#[test]
#[ignore]
fn spline_frames_throughput() {
    let Some(root) = hk_tests::corpus("anim::spline") else {
        return;
    };
    let mut docs = Vec::new();
    for set in sets(&root) {
        for (setting, _, _) in SETTINGS {
            let name = format!("allosaur_run_{setting}");
            for layout in layouts(&set, &name) {
                docs.push(open(&set.join(format!("{name}[{layout}].hkx"))));
            }
        }
    }
    docs.extend(GAMES.iter().map(|g| open(&root.join(g))));
    let anims: Vec<_> = docs
        .iter()
        .map(|d| anim::animation(&d.graph, anim::animation_ids(&d.graph)[0]).unwrap())
        .collect();
    let (start, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
    let mut bone_frames = 0usize;
    while start.elapsed().as_secs_f32() < 5.0 {
        for a in &anims {
            let f = a.decoder.frames().unwrap();
            bone_frames += f.frame_count * f.transform_tracks;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = thread_cpu_seconds() - cpu;
    println!(
        "{} animations: {:.1} M bone-frames per second of wall time, {:.1} M per second of the thread's CPU time",
        anims.len(),
        bone_frames as f64 / wall / 1e6,
        bone_frames as f64 / cpu / 1e6
    );
}

/// This thread's user and system time in seconds (Linux; 0 elsewhere).
fn thread_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else {
        return 0.0;
    };
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}
