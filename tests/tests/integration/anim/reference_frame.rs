//! Root motion of HavokLib's `animref` sets (`anim::ReferenceFrame`, docs/animation.md
//! "Root motion"): the animation points at it, it spans the animation's duration, a sample
//! time gives its sample exactly, the rotation turns about `up` only, and times past the
//! ends hold the first and last sample.

use hk_runtime::anim::{self, math, ReferenceFrame};
use hk_runtime::file;
use hk_runtime::ReadOptions;

#[test]
fn every_animref_reference_frame_samples_as_stored() {
    let Some(root) = hk_tests::corpus("anim::reference_frame") else {
        return;
    };
    let mut seen = 0;
    for set in std::fs::read_dir(root.join("packfile")).unwrap().flatten() {
        for f in std::fs::read_dir(set.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if !name.starts_with("animref[") {
                continue;
            }
            let bytes = std::fs::read(f.path()).unwrap();
            let doc = file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap();
            let ids = anim::animation_ids(&doc.graph);
            let a = anim::animation(&doc.graph, ids[0]).unwrap();
            let rf_id = a.extracted_motion.expect("animref has root motion");
            let rf = ReferenceFrame::read(&doc.graph, rf_id).unwrap();
            assert!((rf.duration - a.decoder.duration()).abs() < 1e-6, "{name}");
            let n = rf.samples.len();
            assert!(n >= 2, "{name}: {n} samples");
            let step = rf.duration / (n - 1) as f32;
            for (k, s) in rf.samples.iter().enumerate() {
                let t = rf.sample(k as f32 * step);
                for (got, want) in t.translation.iter().zip(s) {
                    assert!(
                        (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{name} {k}"
                    );
                }
                // The rotation turns about `up` by the sample's yaw.
                let q = t.rotation;
                let axis = [q[0], q[1], q[2]];
                let cross = [
                    axis[1] * rf.up[2] - axis[2] * rf.up[1],
                    axis[2] * rf.up[0] - axis[0] * rf.up[2],
                    axis[0] * rf.up[1] - axis[1] * rf.up[0],
                ];
                assert!(cross.iter().all(|c| c.abs() < 1e-5), "{name} {k}: {q:?}");
                let yaw = math::angle_deg(q, [0.0, 0.0, 0.0, 1.0]);
                assert!(
                    (yaw - s[3].abs().to_degrees()).abs() < 1e-2
                        || s[3].abs() > std::f32::consts::PI,
                    "{name} {k}"
                );
            }
            assert_eq!(
                rf.sample(-1.0).translation,
                rf.sample(0.0).translation,
                "{name}"
            );
            let last = rf.samples[n - 1];
            assert_eq!(
                rf.sample(rf.duration * 2.0).translation,
                [last[0], last[1], last[2]],
                "{name}"
            );
            seen += 1;
        }
    }
    assert!(seen >= 40, "{seen} animref files");
}
