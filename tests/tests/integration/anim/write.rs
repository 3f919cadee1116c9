//! Writing animations (`hk_runtime::anim::write`, docs/anim-writing.md): the uncompressed
//! `allosaur_run` written back uncompressed and spline compressed at three tolerances,
//! read back strictly, written again byte for byte, and decoded within the tolerance.

use super::extent;
use hk_runtime::anim::spline_encode::angle_between;
use hk_runtime::anim::spline_encode::Tolerance;
use hk_runtime::anim::write::{self, Compression, Motion};
use hk_runtime::anim::{self, Binding, Frames, Skeleton};
use hk_runtime::file::{self, Document};
use hk_runtime::ReadOptions;

fn open_bytes(bytes: &[u8]) -> Document {
    file::open(bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

fn open(path: &std::path::Path) -> Document {
    open_bytes(&std::fs::read(path).unwrap())
}

/// The decoded frames of a file's one animation.
fn frames_of(doc: &Document) -> (Frames, f32, String) {
    let ids = anim::animation_ids(&doc.graph);
    assert_eq!(ids.len(), 1);
    let a = anim::animation(&doc.graph, ids[0]).unwrap();
    (a.decoder.frames().unwrap(), a.decoder.duration(), a.class)
}

/// The motion of the interleaved `allosaur_run` with its binding's tracks.
fn source(doc: &Document) -> (Motion, Binding) {
    let binding = Binding::read(&doc.graph, anim::binding::binding_ids(&doc.graph)[0]).unwrap();
    let (frames, duration, _) = frames_of(doc);
    let motion = Motion {
        duration,
        tracks: frames.transform_tracks,
        transforms: frames.transforms,
        track_names: Vec::new(),
    };
    (motion, binding)
}

/// Writes `doc`, reads it back strictly and checks it writes again byte for byte.
fn round_trip(doc: &Document) -> (Vec<u8>, Document) {
    let bytes = file::write(doc).unwrap();
    let back = open_bytes(&bytes);
    assert!(back.violations.is_empty());
    assert_eq!(file::write(&back).unwrap(), bytes, "not byte for byte");
    (bytes, back)
}

const RUN: &str = "packfile/havoklib-2014_1/allosaur_run[4011].hkx";
const SKELETON: &str = "packfile/havoklib-2014_1/allosaur[4011].hkx";

#[test]
fn uncompressed_write_round_trips_and_decodes_equal() {
    let Some(root) = hk_tests::corpus("anim::write") else {
        return;
    };
    let mut doc = open(&root.join(RUN));
    let (motion, binding) = source(&doc);
    let (before, _, _) = frames_of(&doc);
    write::replace(&mut doc.graph, &binding, &motion, Compression::Uncompressed).unwrap();
    let (_, back) = round_trip(&doc);
    let (after, duration, class) = frames_of(&back);
    assert_eq!(class, "hkaInterleavedUncompressedAnimation");
    assert_eq!(after, before);
    assert_eq!(duration, motion.duration);
    // A new file over the skeleton's schema, laid out as the motion's file.
    let skel_doc = open(&root.join(SKELETON));
    let skeleton = Skeleton::read(
        &skel_doc.graph,
        anim::skeleton::skeleton_ids(&skel_doc.graph)[0],
    )
    .unwrap();
    let m = Motion::from_bones(
        &skeleton,
        Some(&binding),
        motion.duration,
        &motion.transforms,
    );
    let g = write::new_file(
        doc.graph.schema().clone(),
        &skeleton,
        &m,
        Compression::Uncompressed,
    )
    .unwrap();
    let new = Document { graph: g, ..doc };
    let (_, back) = round_trip(&new);
    let (after, _, _) = frames_of(&back);
    assert_eq!(after, before);
    let b = Binding::read(&back.graph, anim::binding::binding_ids(&back.graph)[0]).unwrap();
    assert_eq!(b.track_to_bone.len(), 93);
}

/// The largest translation distance, rotation angle (degrees) and scale difference
/// between two decodes of the same frames.
fn errors(a: &Frames, b: &Frames) -> (f32, f32, f32) {
    assert_eq!(a.transforms.len(), b.transforms.len());
    let mut e = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.transforms.iter().zip(&b.transforms) {
        let d: f32 = (0..3)
            .map(|i| (x.translation[i] - y.translation[i]).powi(2))
            .sum();
        e.0 = e.0.max(d.sqrt());
        e.1 = e.1.max(angle_between(x.rotation, y.rotation));
        e.2 = e.2.max(
            (0..3)
                .map(|i| (x.scale[i] - y.scale[i]).abs())
                .fold(0.0, f32::max),
        );
    }
    e
}

#[test]
fn spline_write_stays_within_each_tolerance() {
    let Some(root) = hk_tests::corpus("anim::write") else {
        return;
    };
    let skel_doc = open(&root.join(SKELETON));
    let skeleton = Skeleton::read(
        &skel_doc.graph,
        anim::skeleton::skeleton_ids(&skel_doc.graph)[0],
    )
    .unwrap();
    let size = extent(&skeleton);
    assert!(size > 1.0, "extent {size}");
    let original = open(&root.join(RUN));
    let (before, _, _) = frames_of(&original);
    let mut sizes = Vec::new();
    for (rel, rot) in [(1e-4, 0.01), (1e-3, 0.1), (1e-2, 1.0)] {
        let tol = Tolerance {
            position: rel * size,
            rotation_deg: rot,
            scale: 1e-3,
        };
        let mut doc = open(&root.join(RUN));
        let (motion, binding) = source(&doc);
        write::replace(&mut doc.graph, &binding, &motion, Compression::Spline(tol)).unwrap();
        let (_, back) = round_trip(&doc);
        let (after, _, class) = frames_of(&back);
        assert_eq!(class, "hkaSplineCompressedAnimation");
        let (p, r, s) = errors(&before, &after);
        assert!(
            p <= tol.position,
            "position error {p} over {}",
            tol.position
        );
        assert!(
            r <= tol.rotation_deg,
            "rotation error {r}° over {}°",
            tol.rotation_deg
        );
        assert!(s <= tol.scale, "scale error {s}");
        let id = anim::animation_ids(&back.graph)[0];
        let data = back.graph.get(id, "data").unwrap();
        let len = data.as_array().map_or(0, |a| a.len());
        sizes.push(len);
        eprintln!("tolerance {rel} of {size:.1} / {rot}°: {len} bytes of data; errors {p:.5} / {r:.5}° / {s:.6}");
    }
    // Looser tolerances take less data.
    assert!(sizes[0] > sizes[1] && sizes[1] > sizes[2], "{sizes:?}");
    // The SDK's own spline files of the motion, for comparison.
    for name in ["S32_V16_B255_D1", "S40_V16_B25_D3", "S48_V8_B255_D2"] {
        let doc = open(&root.join(format!(
            "packfile/havoklib-2014_1/allosaur_run_{name}[4011].hkx"
        )));
        let id = anim::animation_ids(&doc.graph)[0];
        let len = doc
            .graph
            .get(id, "data")
            .unwrap()
            .as_array()
            .map_or(0, |a| a.len());
        let (sdk, _, _) = frames_of(&doc);
        let (p, r, s) = errors(&before, &sdk);
        eprintln!("SDK {name}: {len} bytes of data; errors {p:.5} / {r:.5}° / {s:.6}");
    }
}
