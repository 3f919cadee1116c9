//! Delta-compressed `allosaur_run_D12_8_3` of every HavokLib set and layout against the
//! uncompressed `allosaur_run` of the same set and layout (docs/anim-delta-wavelet.md,
//! "Accuracy"), and hostile members of a real file refused with the member and byte.

use super::extent;
use std::path::{Path, PathBuf};

use hk_runtime::anim::{self, math, Frames, Skeleton};
use hk_runtime::file::{self, Document};
use hk_runtime::graph::{ObjectId, Value};
use hk_runtime::ReadOptions;

fn open(path: &Path) -> Document {
    let bytes = std::fs::read(path).unwrap();
    file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

/// Every `allosaur_run_D12_8_3[*].hkx` of the HavokLib packfile sets.
fn delta_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for set in std::fs::read_dir(root.join("packfile")).unwrap().flatten() {
        if !set.file_name().to_string_lossy().starts_with("havoklib-") {
            continue;
        }
        for f in std::fs::read_dir(set.path()).unwrap().flatten() {
            let n = f.file_name().to_string_lossy().to_string();
            if n.starts_with("allosaur_run_D12_8_3[") && n.ends_with(".hkx") {
                out.push(f.path());
            }
        }
    }
    out.sort();
    out
}

fn sibling(path: &Path, stem: &str) -> PathBuf {
    let name = path.file_name().unwrap().to_string_lossy();
    path.with_file_name(name.replace("allosaur_run_D12_8_3", stem))
}

fn frames_of(doc: &Document) -> (String, Frames, f32) {
    let ids = anim::animation_ids(&doc.graph);
    assert_eq!(ids.len(), 1);
    let a = anim::animation(&doc.graph, ids[0]).unwrap();
    (
        a.class.clone(),
        a.decoder.frames().unwrap(),
        a.decoder.duration(),
    )
}

/// The largest translation difference (relative to `extent`) and rotation difference in
/// degrees over every frame and track.
fn worst(a: &Frames, b: &Frames, extent: f32) -> (f32, f32) {
    let (mut t, mut r) = (0.0f32, 0.0f32);
    for (x, y) in a.transforms.iter().zip(&b.transforms) {
        let d: f32 = (0..3)
            .map(|i| (x.translation[i] - y.translation[i]).powi(2))
            .sum::<f32>()
            .sqrt();
        t = t.max(d / extent);
        r = r.max(math::angle_deg(x.rotation, y.rotation));
    }
    (t, r)
}

#[test]
fn every_delta_allosaur_run_matches_the_uncompressed_run() {
    let Some(root) = hk_tests::corpus("anim::delta") else {
        return;
    };
    let files = delta_files(&root);
    assert!(files.len() >= 32, "{} files", files.len());
    let mut per_set: std::collections::BTreeMap<String, (Frames, (f32, f32))> = Default::default();
    for path in &files {
        let (class, frames, duration) = frames_of(&open(path));
        let (_, reference, ref_duration) = frames_of(&open(&sibling(path, "allosaur_run")));
        let sdoc = open(&sibling(path, "allosaur"));
        let s = Skeleton::read(&sdoc.graph, anim::skeleton::skeleton_ids(&sdoc.graph)[0]).unwrap();
        assert!(class.starts_with("hkaDeltaCompressed"), "{class}");
        assert_eq!(frames.transform_tracks, 93, "{}", path.display());
        assert_eq!(
            frames.frame_count,
            reference.frame_count,
            "{}",
            path.display()
        );
        assert!((duration - ref_duration).abs() < 1e-4, "{}", path.display());
        for t in &frames.transforms {
            let n = math::dot(t.rotation, t.rotation).sqrt();
            assert!((n - 1.0).abs() < 1e-5, "{}: |q| = {n}", path.display());
        }
        let size = extent(&s);
        let (dt, dr) = worst(&frames, &reference, size);
        eprintln!(
            "{}: translation {dt:.2e} of the extent {size}, rotation {dr:.4} degrees",
            path.display()
        );
        // 12-bit differences after a raw first value per block of 8: at most 7 half steps
        // of the widest range per component (docs/anim-delta-wavelet.md, "Accuracy").
        assert!(dt < 1e-4, "{}: translation {dt}", path.display());
        assert!(dr < 0.08, "{}: rotation {dr}", path.display());
        let set = path.parent().unwrap().display().to_string();
        match per_set.get(&set) {
            None => {
                per_set.insert(set, (frames, (dt, dr)));
            }
            Some((first, worst)) => {
                assert_eq!(&frames, first, "{}: layouts differ", path.display());
                assert_eq!((dt, dr), *worst, "{}", path.display());
            }
        }
    }
    assert!(per_set.len() >= 4, "{} sets", per_set.len());
}

/// A `D12_8_3` file, its animation object and the first `dataBuffer` indices.
fn hostile_doc(root: &Path) -> (Document, ObjectId) {
    let path = root.join("packfile/havoklib-550/allosaur_run_D12_8_3[4101].hkx");
    let doc = open(&path);
    let id = anim::animation_ids(&doc.graph)[0];
    (doc, id)
}

fn error_after(root: &Path, path: &str, value: Value) -> String {
    let (mut doc, id) = hostile_doc(root);
    doc.graph.set(id, path, value).unwrap();
    let e = match anim::animation(&doc.graph, id) {
        Ok(_) => panic!("{path}: decoded"),
        Err(e) => e.to_string(),
    };
    e
}

#[test]
fn hostile_delta_members_are_refused_naming_member_and_byte() {
    let Some(root) = hk_tests::corpus("anim::delta") else {
        return;
    };
    let e = error_after(&root, "quantizedDataIdx", Value::UInt(43_000));
    assert!(e.contains("dataBuffer") && e.contains("byte 43000"), "{e}");
    let e = error_after(&root, "qFormat.offsetIdx", Value::UInt(1 << 30));
    assert!(e.contains("dataBuffer") && e.contains("offsets"), "{e}");
    let e = error_after(&root, "staticDOFsIdx", Value::UInt(43_700));
    assert!(
        e.contains("dataBuffer") && e.contains("static values"),
        "{e}"
    );
    let e = error_after(&root, "numberOfPoses", Value::Int(0));
    assert!(
        e.contains("numberOfPoses") && e.contains("frame count"),
        "{e}"
    );
    let e = error_after(&root, "numberOfPoses", Value::Int(-1));
    assert!(e.contains("numberOfPoses"), "{e}");
    let e = error_after(&root, "numberOfPoses", Value::Int(i32::MAX as i64));
    assert!(e.contains("numberOfPoses"), "{e}");
    let e = error_after(&root, "numberOfPoses", Value::Int(5000));
    assert!(e.contains("dataBuffer") && e.contains("past the"), "{e}");
    let e = error_after(&root, "blockSize", Value::Int(0));
    assert!(e.contains("blockSize"), "{e}");
    // The first component's bit width (byte 3612) past the format's 12.
    let e = error_after(&root, "dataBuffer[3612]", Value::UInt(200));
    assert!(
        e.contains("byte 3612") && e.contains("bit width 200"),
        "{e}"
    );
    // A track type the format lacks (3) in the first mask.
    let e = error_after(&root, "dataBuffer[4]", Value::UInt(0xFF));
    assert!(e.contains("byte 4") && e.contains("track type 3"), "{e}");
    // The first track's static rotation made dynamic in all four components: the masks
    // name more dynamic components than numD.
    let (mut doc, id) = hostile_doc(&root);
    doc.graph
        .set(id, "dataBuffer[4]", Value::UInt(0x22))
        .unwrap();
    doc.graph
        .set(id, "dataBuffer[5]", Value::UInt(0x1E))
        .unwrap();
    let e = anim::animation(&doc.graph, id).unwrap_err().to_string();
    assert!(e.contains("qFormat") && e.contains("214 dynamic"), "{e}");
    // More tracks than masks fit.
    let e = error_after(&root, "numberOfTransformTracks", Value::Int(1 << 20));
    assert!(e.contains("dataBuffer") && e.contains("masks"), "{e}");
    // A stored offset that is not a number.
    let (mut doc, id) = hostile_doc(&root);
    for (k, b) in f32::NAN.to_le_bytes().iter().enumerate() {
        let p = format!("dataBuffer[{}]", 1932 + k);
        doc.graph.set(id, &p, Value::UInt(u64::from(*b))).unwrap();
    }
    let e = anim::animation(&doc.graph, id).unwrap_err().to_string();
    assert!(e.contains("byte 1932") && e.contains("not a number"), "{e}");
}
