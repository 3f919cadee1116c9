//! `hk anim`: the pose printed at a time is the decoder's sample there. At a stored
//! frame's time the interleaved clip's line equals that frame as `--json` prints it, the
//! spline clip of the same motion stays within its stated error of it, and names the
//! skeleton lacks are refused.

use std::path::Path;

use crate::support::hk;
use hk_tests::corpus;

/// `(translation, rotation)` of the one bone `hk anim --time` prints.
fn line_pose(run: &Path, skel: &Path, bone: &str, time: f32) -> ([f64; 3], [f64; 4]) {
    let t = time.to_string();
    let (code, out, err) = hk(&[
        "anim",
        run.to_str().unwrap(),
        "--skeleton",
        skel.to_str().unwrap(),
        "--bone",
        bone,
        "--time",
        &t,
    ]);
    assert_eq!(code, 0, "{err}");
    let line = out.lines().nth(1).expect("a bone line");
    assert!(line.starts_with(&format!("{bone}: ")), "{line}");
    let nums: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .filter_map(|s| s.parse().ok())
        .collect();
    assert_eq!(nums.len(), 10, "{line}");
    (
        [nums[0], nums[1], nums[2]],
        [nums[3], nums[4], nums[5], nums[6]],
    )
}

fn angle_deg(a: [f64; 4], b: [f64; 4]) -> f64 {
    let norm = |q: [f64; 4]| q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let d: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() / (norm(a) * norm(b));
    2.0 * d.abs().min(1.0).acos().to_degrees()
}

#[test]
fn anim_prints_the_decoded_pose_at_a_time() {
    let Some(corpus) = corpus("anim_prints_the_decoded_pose_at_a_time") else {
        return;
    };
    let dir = corpus.join("packfile/havoklib-2014_1");
    let run = dir.join("allosaur_run[4011].hkx");
    let spline = dir.join("allosaur_run_S40_V16_B25_D3[4011].hkx");
    let skel = dir.join("allosaur[4011].hkx");
    let bone = "AllosaurPelvis";
    let (code, out, err) = hk(&[
        "anim",
        run.to_str().unwrap(),
        "--skeleton",
        skel.to_str().unwrap(),
        "--bone",
        bone,
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["frame_count"], 101);
    assert_eq!(doc["bones"], serde_json::json!([bone]));
    let frames = doc["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 101);
    let extent = 311.289; // the skeleton's extent, docs/anim-spline.md
    for i in [0usize, 12, 50, 100] {
        let f = &frames[i];
        let time = f["time"].as_f64().unwrap() as f32;
        let b = &f["bones"][0];
        let t: Vec<f64> = (0..3)
            .map(|k| b["translation"][k].as_f64().unwrap())
            .collect();
        let r: Vec<f64> = (0..4).map(|k| b["rotation"][k].as_f64().unwrap()).collect();
        let (lt, lr) = line_pose(&run, &skel, bone, time);
        for k in 0..3 {
            assert!((lt[k] - t[k]).abs() < 1e-4, "frame {i}: {lt:?} vs {t:?}");
        }
        let a = angle_deg(lr, [r[0], r[1], r[2], r[3]]);
        assert!(a < 0.01, "frame {i}: {a}° {lr:?} vs {r:?}");
        let (st, sr) = line_pose(&spline, &skel, bone, time);
        for k in 0..3 {
            assert!(
                (st[k] - t[k]).abs() < 1e-5 * extent * 10.0,
                "spline frame {i}: {st:?}"
            );
        }
        assert!(
            angle_deg(sr, [r[0], r[1], r[2], r[3]]) < 0.2,
            "spline frame {i}"
        );
    }
    let (code, _, err) = hk(&[
        "anim",
        run.to_str().unwrap(),
        "--skeleton",
        skel.to_str().unwrap(),
        "--bone",
        "NoSuchBone",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no bone named \"NoSuchBone\""), "{err}");
    let (code, _, err) = hk(&["anim", skel.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds no animation"), "{err}");
}
