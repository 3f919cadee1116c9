//! `hk bench --threads`: the thread speed-up is timed over passes long enough that waking
//! the pool is a small part of them (hk-gen/src/bench.rs, docs/status.md#speed).

use crate::support::hk;
use hk_tests::root;

/// On one small committed sample, a single read takes microseconds, so each speed-up pass
/// reads many copies of the file set; the JSON says how many, and the speed-up is a ratio
/// of two measured times.
#[test]
fn thread_speedup_reads_copies_of_a_small_file_set() {
    let sample = root().join("samples/shred_box.hkx");
    let (code, out, err) = hk(&[
        "bench",
        "--rounds",
        "2",
        "--threads",
        "2",
        "--json",
        sample.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("bench prints JSON");
    assert_eq!(doc["threads"], 2, "{out}");
    assert_eq!(doc["files"], 1, "{out}");
    let copies = doc["read_speedup_copies"]
        .as_u64()
        .expect("copies with threads");
    // A pass of one copy is far under the 250 ms each speed-up pass lasts.
    assert!(copies > 100, "{copies} copies: {out}");
    assert!(copies <= 1 << 16, "{copies} copies: {out}");
    let speedup = doc["read_speedup"]
        .as_f64()
        .expect("a speed-up with threads");
    assert!(speedup.is_finite() && speedup > 0.0, "{out}");
    // Without threads there is no speed-up and no copies.
    let (code, out, err) = hk(&["bench", "--rounds", "1", "--json", sample.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(doc["read_speedup"].is_null(), "{out}");
    assert!(doc["read_speedup_copies"].is_null(), "{out}");
    assert!(doc["compute_speedup"].is_null(), "{out}");
}

/// `hk bench --anim` counts one bone-frame per transform track and frame: the allosaur run
/// stores 101 frames of 93 tracks, so one round over one spline file is 9,393; a file of no
/// animation is refused.
#[test]
fn bench_anim_counts_bone_frames() {
    let Some(corpus) = hk_tests::corpus("bench_anim_counts_bone_frames") else {
        return;
    };
    let dir = corpus.join("packfile/havoklib-2014_1");
    let run = dir.join("allosaur_run_S40_V16_B25_D3[4011].hkx");
    let (code, out, err) = hk(&["bench", "--anim", "--rounds", "1", run.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("all: 1 animations, 9393 bone-frames in 1 rounds"),
        "{out}"
    );
    assert!(
        out.contains("hkaSplineCompressedAnimation: 1 animations"),
        "{out}"
    );
    let skel = dir.join("allosaur[4011].hkx");
    let (code, _, err) = hk(&["bench", "--anim", skel.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no animation hk decodes"), "{err}");
}
