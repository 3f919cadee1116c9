//! The Demon's Souls wavelet clip `a00_3000`, big-endian as shipped and little-endian as
//! re-saved: equal decodes, stored frame count and duration, unit rotations, motion without
//! jumps at block boundaries (docs/anim-delta-wavelet.md, "Wavelet"); hostile members of it
//! refused with the member and byte.

use std::path::Path;

use hk_runtime::anim::{self, math, Frames};
use hk_runtime::file::{self, Document};
use hk_runtime::graph::{ObjectId, Value};
use hk_runtime::ReadOptions;

fn open(path: &Path) -> Document {
    let bytes = std::fs::read(path).unwrap();
    file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

fn clip(root: &Path, name: &str) -> (Document, ObjectId) {
    let doc = open(&root.join("games/demons-souls-ps3").join(name));
    let ids = anim::animation_ids(&doc.graph);
    assert_eq!(ids.len(), 1, "{name}");
    let id = ids[0];
    (doc, id)
}

fn decode(doc: &Document, id: ObjectId) -> (String, Frames, f32) {
    let a = anim::animation(&doc.graph, id).unwrap();
    (
        a.class.clone(),
        a.decoder.frames().unwrap(),
        a.decoder.duration(),
    )
}

#[test]
fn the_demons_souls_clip_decodes_the_same_in_both_byte_orders() {
    let Some(root) = hk_tests::corpus("anim::wavelet") else {
        return;
    };
    let (be, be_id) = clip(&root, "a00_3000.hkx");
    let (le, le_id) = clip(&root, "a00_3000_le.hkx");
    let (class, a, duration) = decode(&be, be_id);
    let (_, b, duration_le) = decode(&le, le_id);
    assert_eq!(class, "hkaWaveletSkeletalAnimation");
    assert_eq!(a, b);
    assert_eq!(duration, duration_le);
    let stored = |n: &str| be.graph.get(be_id, n).unwrap();
    assert_eq!(stored("numberOfPoses"), Value::Int(a.frame_count as i64));
    assert_eq!(stored("duration"), Value::Real(duration));
    assert_eq!((a.frame_count, a.transform_tracks, duration), (61, 85, 2.0));
    for t in &a.transforms {
        let n = math::dot(t.rotation, t.rotation).sqrt();
        assert!((n - 1.0).abs() < 1e-3, "|q| = {n}");
    }
    // No track turns further between the frames either side of a block boundary than the
    // most it turns between two frames inside a block.
    for k in 0..a.transform_tracks {
        let turn = |f: usize| math::angle_deg(a.frame(f)[k].rotation, a.frame(f + 1)[k].rotation);
        let inside = (0..a.frame_count - 1)
            .filter(|f| (f + 1) % 8 != 0)
            .map(turn);
        let across = (0..a.frame_count - 1)
            .filter(|f| (f + 1) % 8 == 0)
            .map(turn);
        let inside = inside.fold(0.0f32, f32::max);
        let across = across.fold(0.0f32, f32::max);
        assert!(
            across <= inside + 0.5,
            "track {k}: {across} across, {inside} inside"
        );
    }
}

fn error_after(root: &Path, path: &str, value: Value) -> String {
    let (mut doc, id) = clip(root, "a00_3000.hkx");
    doc.graph.set(id, path, value).unwrap();
    let e = match anim::animation(&doc.graph, id) {
        Ok(_) => panic!("{path}: decoded"),
        Err(e) => e.to_string(),
    };
    e
}

#[test]
fn hostile_wavelet_members_are_refused_naming_member_and_byte() {
    let Some(root) = hk_tests::corpus("anim::wavelet") else {
        return;
    };
    let e = error_after(&root, "quantizedDataIdx", Value::UInt(10_000));
    assert!(e.contains("dataBuffer") && e.contains("block 1"), "{e}");
    let e = error_after(&root, "blockIndexIdx", Value::UInt(10_030));
    assert!(e.contains("dataBuffer") && e.contains("byte 10030"), "{e}");
    let e = error_after(&root, "numberOfPoses", Value::Int(0));
    assert!(e.contains("numberOfPoses"), "{e}");
    let e = error_after(&root, "numberOfPoses", Value::Int(-1));
    assert!(e.contains("numberOfPoses"), "{e}");
    let e = error_after(&root, "numberOfPoses", Value::Int(5000));
    assert!(e.contains("blockIndexSize"), "{e}");
    let e = error_after(&root, "blockSize", Value::Int(16));
    assert!(e.contains("blockSize"), "{e}");
    // The first component's bit width (byte 2892) past the format's 12.
    let e = error_after(&root, "dataBuffer[2892]", Value::UInt(40));
    assert!(e.contains("byte 2892") && e.contains("bit width 40"), "{e}");
    // The last block's entry pointing at the buffer's last byte: its codes run out.
    let (mut doc, id) = clip(&root, "a00_3000.hkx");
    let last = 10_031 - 2996;
    for (k, b) in (last as u32).to_le_bytes().iter().enumerate() {
        let p = format!("dataBuffer[{}]", 2964 + 28 + k);
        doc.graph.set(id, &p, Value::UInt(u64::from(*b))).unwrap();
    }
    let e = anim::animation(&doc.graph, id).unwrap_err().to_string();
    assert!(
        e.contains("dataBuffer") && e.contains("past the end"),
        "{e}"
    );
    // A stored scale that is not a number.
    let (mut doc, id) = clip(&root, "a00_3000.hkx");
    for (k, b) in f32::INFINITY.to_le_bytes().iter().enumerate() {
        let p = format!("dataBuffer[{}]", 2604 + k);
        doc.graph.set(id, &p, Value::UInt(u64::from(*b))).unwrap();
    }
    let e = anim::animation(&doc.graph, id).unwrap_err().to_string();
    assert!(e.contains("byte 2604") && e.contains("not a number"), "{e}");
}
