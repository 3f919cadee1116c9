//! `hk import MOTION.gltf --skeleton FILE (--into FILE | --game PROFILE) -o OUT`
//! (docs/anim-writing.md): the uncompressed `allosaur_run` written as a glTF animation of
//! its skeleton's bones, imported back uncompressed and spline compressed into the file
//! and as a new Havok 7.1 file, decodes as the motion within the tolerance.

use std::path::Path;

use base64::Engine as _;
use hk_runtime::anim::spline_encode::angle_between;
use hk_runtime::anim::{self, Frames, Skeleton};
use hk_runtime::file::{self, Document};
use hk_runtime::ReadOptions;
use serde_json::json;

use crate::support::hk;
use hk_tests::{corpus, temp_dir};

fn open(path: &Path) -> Document {
    let bytes = std::fs::read(path).unwrap();
    file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

fn frames(doc: &Document) -> (Frames, f32) {
    let id = anim::animation_ids(&doc.graph)[0];
    let a = anim::animation(&doc.graph, id).unwrap();
    (a.decoder.frames().unwrap(), a.decoder.duration())
}

fn skeleton(doc: &Document) -> Skeleton {
    Skeleton::read(&doc.graph, anim::skeleton::skeleton_ids(&doc.graph)[0]).unwrap()
}

fn floats(out: &mut Vec<u8>, v: &[f32]) {
    v.iter()
        .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
}

/// A glTF of `f` (tracks are bones) over `duration`: one node per bone, named as it, and
/// one animation of translation, rotation and scale channels per bone.
fn write_gltf(path: &Path, skel: &Skeleton, f: &Frames, duration: f32) {
    let n = f.frame_count;
    let times: Vec<f32> = (0..n)
        .map(|i| duration * i as f32 / (n - 1) as f32)
        .collect();
    let mut bin = Vec::new();
    floats(&mut bin, &times);
    let mut views = vec![json!({"buffer": 0, "byteOffset": 0, "byteLength": 4 * n})];
    let mut accessors = vec![json!({"bufferView": 0, "componentType": 5126, "count": n,
        "type": "SCALAR", "min": [0.0], "max": [duration]})];
    let (mut channels, mut samplers) = (Vec::new(), Vec::new());
    for b in 0..f.transform_tracks {
        for (path, kind, width) in [
            ("translation", "VEC3", 3),
            ("rotation", "VEC4", 4),
            ("scale", "VEC3", 3),
        ] {
            let at = bin.len();
            for i in 0..n {
                let t = f.frame(i)[b];
                match path {
                    "translation" => floats(&mut bin, &t.translation),
                    "rotation" => floats(&mut bin, &t.rotation),
                    _ => floats(&mut bin, &t.scale),
                }
            }
            views.push(json!({"buffer": 0, "byteOffset": at, "byteLength": 4 * width * n}));
            accessors.push(json!({"bufferView": views.len() - 1, "componentType": 5126,
                "count": n, "type": kind}));
            samplers.push(
                json!({"input": 0, "output": accessors.len() - 1, "interpolation": "LINEAR"}),
            );
            channels
                .push(json!({"sampler": samplers.len() - 1, "target": {"node": b, "path": path}}));
        }
    }
    let nodes: Vec<_> = skel
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let children: Vec<usize> = (0..skel.bones.len())
                .filter(|&c| skel.bones[c].parent == Some(i))
                .collect();
            if children.is_empty() {
                json!({"name": b.name})
            } else {
                json!({"name": b.name, "children": children})
            }
        })
        .collect();
    let roots: Vec<usize> = (0..skel.bones.len())
        .filter(|&i| skel.bones[i].parent.is_none())
        .collect();
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": nodes,
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": views,
        "accessors": accessors,
        "animations": [{"name": "run", "channels": channels, "samplers": samplers}],
    });
    std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
}

/// The largest translation distance and rotation angle between two decodes.
fn errors(a: &Frames, b: &Frames) -> (f32, f32) {
    assert_eq!(a.transforms.len(), b.transforms.len());
    let mut e = (0.0f32, 0.0f32);
    for (x, y) in a.transforms.iter().zip(&b.transforms) {
        let d: f32 = (0..3)
            .map(|i| (x.translation[i] - y.translation[i]).powi(2))
            .sum();
        e.0 = e.0.max(d.sqrt());
        e.1 = e.1.max(angle_between(x.rotation, y.rotation));
    }
    e
}

#[test]
fn a_gltf_motion_imports_into_a_file_and_as_a_new_file() {
    let Some(c) = corpus("a_gltf_motion_imports_into_a_file_and_as_a_new_file") else {
        return;
    };
    let tmp = temp_dir("motion-import");
    let run = c.join("packfile/havoklib-2014_1/allosaur_run[4011].hkx");
    let skel_file = c.join("packfile/havoklib-2014_1/allosaur[4011].hkx");
    let skel = skeleton(&open(&skel_file));
    let (source, duration) = frames(&open(&run));
    let gltf = tmp.join("run.gltf");
    write_gltf(&gltf, &skel, &source, duration);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let args = |out: &Path, extra: &[&str], target: &[&str]| {
        let mut v = vec![
            "import".to_string(),
            s(&gltf),
            "--skeleton".into(),
            s(&skel_file),
        ];
        v.extend(target.iter().map(|x| x.to_string()));
        v.extend(["-o".to_string(), s(out)]);
        v.extend(extra.iter().map(|x| x.to_string()));
        v
    };
    let cases: [(&str, &[&str], f32, f32); 2] = [
        ("plain.hkx", &[], 1e-3, 1e-3),
        (
            "spline.hkx",
            &["--compress", "spline", "--tolerance", "0.05,0.2"],
            0.05,
            0.2,
        ),
    ];
    for (name, extra, pos, rot) in cases {
        let out = tmp.join(name);
        let a = args(&out, extra, &["--into", &s(&run)]);
        let (code, stdout, err) = hk(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 0, "{name}: {err}");
        assert!(stdout.contains("round trip byte for byte"), "{stdout}");
        let (back, d) = frames(&open(&out));
        assert!((d - duration).abs() < 1e-3, "{d} {duration}");
        let (p, r) = errors(&source, &back);
        assert!(p <= pos && r <= rot, "{name}: {p} units, {r}°");
        let (code, _, err) = hk(&["roundtrip", &s(&out)]);
        assert_eq!(code, 0, "{err}");
    }
    // A new Havok 7.1 file: tracks are the skeleton's bones.
    let skel71 = c.join("packfile/havoklib-710/allosaur[4011].hkx");
    let out = tmp.join("new71.hkx");
    let a = args(
        &out,
        &["--compress", "spline", "--tolerance", "0.05,0.2"],
        &["--game", "havok-demo-710"],
    );
    let a = a
        .iter()
        .map(|x| x.replace(&s(&skel_file), &s(&skel71)))
        .collect::<Vec<_>>();
    let (code, stdout, err) = hk(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("hkaSplineCompressedAnimation"), "{stdout}");
    let doc = open(&out);
    assert_eq!(doc.graph.schema().generation.name, "havok-7.1");
    let (back, _) = frames(&doc);
    assert_eq!(back.transform_tracks, skel.bones.len());
    let (p, r) = errors(&source, &back);
    assert!(p <= 0.05 && r <= 0.2, "{p} units, {r}°");
    // Without --into or --game, or with a bad tolerance: a usage error.
    let a = args(
        &tmp.join("x.hkx"),
        &["--compress", "spline", "--tolerance", "x"],
        &["--into", &s(&run)],
    );
    let (code, _, err) = hk(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 2, "{err}");
}

/// A game's tagfile motion (Dark Souls Remastered, TAG0, whose skeleton's reference pose is
/// read as columns): `hk export` to GLB with the skeleton file, then `hk import` back into
/// the animation file spline compressed, decodes as the original within the tolerance.
#[test]
fn a_tagfile_motion_exports_and_imports_back_spline_compressed() {
    let Some(c) = corpus("a_tagfile_motion_exports_and_imports_back_spline_compressed") else {
        return;
    };
    let tmp = temp_dir("motion-import-tag0");
    let anim_file = c.join("games/dark-souls-remastered/c2240_a00_3000.hkx");
    let skel_file = c.join("games/dark-souls-remastered/c2240_skeleton.hkx");
    let glb = tmp.join("dsr.glb");
    let out = tmp.join("dsr.hkx");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (code, _, err) = hk(&[
        "export",
        &s(&anim_file),
        "--skeleton",
        &s(&skel_file),
        "-o",
        &s(&glb),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, said, err) = hk(&[
        "import",
        &s(&glb),
        "--skeleton",
        &s(&skel_file),
        "--into",
        &s(&anim_file),
        "--compress",
        "spline",
        "--tolerance",
        "0.001,0.1",
        "-o",
        &s(&out),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("round trip byte for byte"), "{said}");
    let (a, _) = frames(&open(&anim_file));
    let (b, _) = frames(&open(&out));
    let (pos, rot) = errors(&a, &b);
    // The tolerance, plus the glTF's own rounding of the original (floats kept as they are).
    assert!(pos <= 0.001 + 1e-5 && rot <= 0.1 + 1e-3, "{pos} {rot}");
}
