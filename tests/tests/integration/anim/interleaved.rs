//! The uncompressed `allosaur_run` of every HavokLib set against its skeleton: frame
//! counts and durations as stored, unit rotations, and a sample halfway between two
//! frames lying between them.

use hk_runtime::anim::{self, math, Binding, Skeleton};
use hk_runtime::file::{self, Document};
use hk_runtime::ReadOptions;

fn open(path: &std::path::Path) -> Document {
    let bytes = std::fs::read(path).unwrap();
    file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

/// Every `allosaur_run[*].hkx` of the HavokLib sets (the uncompressed motion).
fn runs(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for set in std::fs::read_dir(root.join("packfile")).unwrap().flatten() {
        if !set.file_name().to_string_lossy().starts_with("havoklib-") {
            continue;
        }
        for f in std::fs::read_dir(set.path()).unwrap().flatten() {
            let n = f.file_name().to_string_lossy().to_string();
            if n.starts_with("allosaur_run[") && n.ends_with(".hkx") {
                out.push(f.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_uncompressed_allosaur_run_decodes_whole_unit_frames() {
    let Some(root) = hk_tests::corpus("anim::interleaved") else {
        return;
    };
    let files = runs(&root);
    assert!(files.len() >= 40, "{} files", files.len());
    for path in files {
        let doc = open(&path);
        let ids = anim::animation_ids(&doc.graph);
        assert_eq!(ids.len(), 1, "{}", path.display());
        let a = anim::animation(&doc.graph, ids[0]).unwrap();
        let d = &a.decoder;
        assert_eq!(d.transform_tracks(), 93, "{}", path.display());
        assert!(
            d.frame_count() > 90,
            "{}: {} frames",
            path.display(),
            d.frame_count()
        );
        assert!((d.duration() - 3.3335).abs() < 1e-3, "{}", path.display());
        assert_eq!(a.annotations.len(), 93, "{}", path.display());
        let frames = d.frames().unwrap();
        for t in &frames.transforms {
            let n = math::dot(t.rotation, t.rotation).sqrt();
            assert!((n - 1.0).abs() < 1e-3, "{}: |q| = {n}", path.display());
        }
        // Halfway between frames 10 and 11, every track lies between them.
        let step = d.duration() / (d.frame_count() - 1) as f32;
        let mut out = vec![anim::Transform::IDENTITY; 93];
        d.sample(10.5 * step, &mut out, &mut []).unwrap();
        for (k, o) in out.iter().enumerate() {
            let (a, b) = (frames.frame(10)[k], frames.frame(11)[k]);
            let gap = math::angle_deg(a.rotation, b.rotation);
            assert!(
                math::angle_deg(o.rotation, a.rotation) <= gap / 2.0 + 1e-2,
                "{k}"
            );
            for i in 0..3 {
                let (lo, hi) = (
                    a.translation[i].min(b.translation[i]),
                    a.translation[i].max(b.translation[i]),
                );
                assert!(
                    o.translation[i] >= lo - 1e-5 && o.translation[i] <= hi + 1e-5,
                    "{k}"
                );
            }
        }
        // The binding maps every track to a bone of the skeleton file beside it.
        let b = Binding::read(&doc.graph, anim::binding::binding_ids(&doc.graph)[0]).unwrap();
        let skel_path = path.with_file_name(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .replace("allosaur_run", "allosaur"),
        );
        let sdoc = open(&skel_path);
        let s = Skeleton::read(&sdoc.graph, anim::skeleton::skeleton_ids(&sdoc.graph)[0]).unwrap();
        assert_eq!(s.bones.len(), 93, "{}", skel_path.display());
        for t in 0..93 {
            assert!(b.bone_of_track(t).is_some_and(|x| x < s.bones.len()), "{t}");
        }
    }
}
