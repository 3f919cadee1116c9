//! Skeletons, animations and ragdolls as glTF (`hk export`) and poses as PNG (`hk
//! render`), docs/anim-export.md: every corpus file of skeletons or animations exports to a
//! document the `gltf` crate validates, the channels read back equal hk's decoder frame by
//! frame, and a pose draws inside the picture.

use std::path::{Path, PathBuf};

use hk_gen::anim::{self, LoadOptions};
use hk_gen::collision::gltf::Container;
use hk_gen::Context;
use hk_runtime::anim::{Binding, Transform};

use crate::support::hk;
use hk_tests::{corpus, temp_dir};

/// Every regular file under `dir`, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "hkx" || x == "hkt"))
        .collect();
    out.sort();
    out
}

/// The file holding the skeleton of an animation file of the corpus: HavokLib's
/// `allosaur[TAG].hkx` beside `…[TAG].hkx`, else the folder's `*skeleton*` file that shares
/// the animation's prefix (`c2240_`), else the folder's only skeleton file.
fn skeleton_for(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let name = path.file_name()?.to_str()?;
    if let Some(tag) = name.rfind('[').map(|i| &name[i..]) {
        let p = dir.join(format!("allosaur{tag}"));
        return p.is_file().then_some(p);
    }
    let prefix = name.split('_').next().unwrap_or("");
    let skeletons: Vec<PathBuf> = tree(dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains("skeleton"))
        })
        .collect();
    skeletons
        .iter()
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .or((skeletons.len() == 1).then(|| &skeletons[0]))
        .cloned()
}

/// Validates glTF bytes with the `gltf` crate and reads every accessor a skin or an
/// animation uses; gives (joints, channels).
fn validate(bytes: &[u8], what: &str) -> (usize, usize) {
    let doc =
        gltf::Gltf::from_slice(bytes).unwrap_or_else(|e| panic!("{what}: not valid glTF: {e}"));
    let blob = doc.blob.clone();
    let buffers: Vec<Vec<u8>> = doc
        .buffers()
        .map(|_| blob.clone().expect("a BIN chunk"))
        .collect();
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);
    let mut joints = 0;
    for skin in doc.skins() {
        let n = skin.joints().count();
        let m = skin
            .reader(get)
            .read_inverse_bind_matrices()
            .expect("inverse bind matrices");
        assert_eq!(m.count(), n, "{what}: one inverse bind matrix a joint");
        joints += n;
    }
    let mut channels = 0;
    for a in doc.animations() {
        for c in a.channels() {
            let r = c.reader(get);
            let times: Vec<f32> = r.read_inputs().expect("times").collect();
            assert!(
                times.windows(2).all(|w| w[0] < w[1]),
                "{what}: times increase"
            );
            let n = match r.read_outputs().expect("outputs") {
                gltf::animation::util::ReadOutputs::Translations(t) => t.count(),
                gltf::animation::util::ReadOutputs::Rotations(q) => q.into_f32().count(),
                gltf::animation::util::ReadOutputs::Scales(s) => s.count(),
                gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => 0,
            };
            assert_eq!(n, times.len(), "{what}: one output a keyframe");
            channels += 1;
        }
    }
    (joints, channels)
}

#[test]
fn every_corpus_skeleton_and_animation_exports_to_valid_gltf() {
    let Some(corpus) = corpus("every_corpus_skeleton_and_animation_exports_to_valid_gltf") else {
        return;
    };
    let ctx = Context::built_in().unwrap();
    let (mut exported, mut undecodable, mut no_skeleton) = (Vec::new(), Vec::new(), Vec::new());
    let (mut skeleton_files, mut animation_files, mut channels) = (0, 0, 0);
    for path in tree(&corpus) {
        let Ok(doc) = ctx.open(&path) else { continue };
        if !anim::holds_animation(&doc.graph) {
            continue;
        }
        let own = !hk_runtime::anim::skeleton::skeleton_ids(&doc.graph).is_empty();
        let animated = !hk_runtime::anim::animation_ids(&doc.graph).is_empty();
        skeleton_files += usize::from(own);
        animation_files += usize::from(animated);
        let skeleton = (animated && !own).then(|| skeleton_for(&path)).flatten();
        let opts = LoadOptions {
            skeleton: skeleton.as_deref(),
            skip_undecodable: false,
        };
        let rel = path.strip_prefix(&corpus).unwrap().display().to_string();
        match anim::export(&ctx, &path, &doc, Container::Binary, &opts) {
            Ok((bytes, line)) => {
                channels += validate(&bytes, &rel).1;
                if line.contains("no skeleton for") {
                    no_skeleton.push(rel.clone());
                }
                exported.push(rel);
            }
            Err(e) if e.to_string().contains("does not decode this format") => {
                undecodable.push(rel)
            }
            Err(e) => panic!("{rel}: {e}"),
        }
    }
    println!(
        "{} files with skeletons or animations ({skeleton_files} with skeletons, {animation_files} with animations): {} exported and validated ({channels} channels, {} on stand-in skeletons); refused: {} of formats not decoded yet",
        exported.len() + undecodable.len(),
        exported.len(),
        no_skeleton.len(),
        undecodable.len()
    );
    println!("stand-in skeletons: {no_skeleton:?}");
    // The HavokLib sets' skeletons and uncompressed runs, the Souls skeletons and ragdolls.
    assert!(exported.len() >= 60, "{}", exported.len());
    // A skeleton-holding file always exports (only its animations can be refused).
    for r in undecodable.iter().chain(&no_skeleton) {
        assert!(!r.contains("skeleton"), "{r}");
    }
}

/// Every transform of `track` at frame `f`, read back from a channel's outputs.
#[derive(Default)]
struct Channels {
    translation: Vec<[f32; 3]>,
    rotation: Vec<[f32; 4]>,
    scale: Vec<[f32; 3]>,
    times: Vec<f32>,
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6)
}

/// The channels of one exported animation, by joint name.
fn read_back(path: &Path) -> std::collections::HashMap<String, Channels> {
    let (doc, buffers) = crate::support::gltf_read(path);
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);
    let mut out: std::collections::HashMap<String, Channels> = Default::default();
    let a = doc.animations().next().expect("an animation");
    for c in a.channels() {
        let name = c.target().node().name().unwrap().to_string();
        let r = c.reader(get);
        let e = out.entry(name).or_default();
        e.times = r.read_inputs().unwrap().collect();
        match r.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(t) => e.translation = t.collect(),
            gltf::animation::util::ReadOutputs::Rotations(q) => e.rotation = q.into_f32().collect(),
            gltf::animation::util::ReadOutputs::Scales(s) => e.scale = s.collect(),
            gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => {}
        }
    }
    out
}

#[test]
fn interleaved_runs_read_back_equal_the_decoder_at_every_frame() {
    let Some(corpus) = corpus("interleaved_runs_read_back_equal_the_decoder_at_every_frame") else {
        return;
    };
    let ctx = Context::built_in().unwrap();
    let dir = temp_dir("anim-readback");
    let (mut files, mut values) = (0, 0usize);
    for set in [
        "havoklib-550",
        "havoklib-660",
        "havoklib-710",
        "havoklib-2010_2",
        "havoklib-2012_2",
        "havoklib-2014_1",
    ] {
        for tag in [
            "4001", "4011", "4101", "4111", "8001", "8011", "8101", "8111",
        ] {
            let run = corpus.join(format!("packfile/{set}/allosaur_run[{tag}].hkx"));
            let skel = corpus.join(format!("packfile/{set}/allosaur[{tag}].hkx"));
            let out = dir.join(format!("{set}_{tag}.glb"));
            let (code, stdout, stderr) = hk(&[
                "export",
                run.to_str().unwrap(),
                "--skeleton",
                skel.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{set} {tag}: {stdout}{stderr}");
            assert!(stdout.contains("1 animations"), "{stdout}");
            let back = read_back(&out);
            let doc = ctx.open(&run).unwrap();
            let sdoc = ctx.open(&skel).unwrap();
            let sid = hk_runtime::anim::skeleton::skeleton_ids(&sdoc.graph)[0];
            let skeleton = hk_runtime::anim::Skeleton::read(&sdoc.graph, sid).unwrap();
            let id = hk_runtime::anim::animation_ids(&doc.graph)[0];
            let a = hk_runtime::anim::animation(&doc.graph, id).unwrap();
            let binding = hk_runtime::anim::binding::binding_ids(&doc.graph)
                .into_iter()
                .map(|b| Binding::read(&doc.graph, b).unwrap())
                .find(|b| b.animation == Some(id));
            let d = &a.decoder;
            let (n, tracks) = (d.frame_count(), d.transform_tracks());
            assert!(n > 1 && tracks > 0);
            let mut frame = vec![Transform::IDENTITY; tracks];
            let mut floats = vec![0.0; d.float_tracks()];
            let mut seen = std::collections::HashSet::new();
            for f in 0..n {
                d.frame(f, &mut frame, &mut floats).unwrap();
                for (t, x) in frame.iter().enumerate() {
                    let bone = binding.as_ref().map_or(Some(t), |b| b.bone_of_track(t));
                    let Some(bone) = bone else { continue };
                    if !seen.insert((f, bone)) {
                        continue;
                    }
                    let name = &skeleton.bones[bone].name;
                    let c = back
                        .get(name)
                        .unwrap_or_else(|| panic!("{set} {tag}: no channel for {name}"));
                    let time = f as f32 * d.duration() / (n - 1) as f32;
                    assert_eq!(c.times.len(), n);
                    assert!(
                        (c.times[f] - time).abs() <= 1e-6,
                        "{set} {tag} frame {f} time"
                    );
                    assert!(
                        close(&c.translation[f], &x.translation),
                        "{set} {tag} {name} frame {f}: {:?} vs {:?}",
                        c.translation[f],
                        x.translation
                    );
                    assert!(
                        close(&c.scale[f], &x.scale),
                        "{set} {tag} {name} frame {f} scale"
                    );
                    // `q` and `-q` are one rotation: the export keeps neighbours on one hemisphere.
                    let q = c.rotation[f];
                    let neg = q.map(|v| -v);
                    assert!(
                        close(&q, &x.rotation) || close(&neg, &x.rotation),
                        "{set} {tag} {name} frame {f}: {q:?} vs {:?}",
                        x.rotation
                    );
                    values += 10;
                }
            }
            files += 1;
        }
    }
    println!("{files} interleaved runs: {values} exported values equal the decoder's within 1e-6");
    assert_eq!(files, 48);
}

/// The pixels of a PNG that are not the background, and whether any lies on its border.
fn drawn(png: &Path, (w, h): (u32, u32)) -> (usize, bool) {
    let p = tiny_skia::Pixmap::load_png(png).unwrap();
    assert_eq!((p.width(), p.height()), (w, h));
    let bg = hk_gen::collision::render::background();
    let mut n = 0;
    let mut border = false;
    for (i, c) in p.pixels().iter().enumerate() {
        if [c.red(), c.green(), c.blue()] != bg {
            n += 1;
            let (x, y) = (i as u32 % w, i as u32 / w);
            border |= x == 0 || y == 0 || x == w - 1 || y == h - 1;
        }
    }
    (n, border)
}

#[test]
fn render_draws_a_skeleton_and_an_animation_frame_inside_the_picture() {
    let Some(corpus) = corpus("render_draws_a_skeleton_and_an_animation_frame_inside_the_picture")
    else {
        return;
    };
    let dir = temp_dir("anim-render");
    let set = corpus.join("packfile/havoklib-2014_1");
    let skel = set.join("allosaur[4011].hkx");
    let run = set.join("allosaur_run[4011].hkx");
    let png = dir.join("skeleton.png");
    let (code, out, err) = hk(&[
        "render",
        skel.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        "320x240",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("93 joints, 89 bones drawn in the reference pose"),
        "{out}"
    );
    let (reference, border) = drawn(&png, (320, 240));
    assert!(reference > 500 && !border, "{reference} {border}");
    let mut pictures = Vec::new();
    for frame in ["0", "50"] {
        let png = dir.join(format!("frame{frame}.png"));
        let (code, out, err) = hk(&[
            "render",
            run.to_str().unwrap(),
            "--skeleton",
            skel.to_str().unwrap(),
            "--frame",
            frame,
            "-o",
            png.to_str().unwrap(),
            "--size",
            "320x240",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(&format!("at frame {frame}")), "{out}");
        let (n, border) = drawn(&png, (320, 240));
        assert!(n > 500 && !border, "{n} {border}");
        pictures.push(std::fs::read(&png).unwrap());
    }
    assert_ne!(pictures[0], pictures[1], "two frames of a run differ");
    // `hk info` lists the skeleton and the animation.
    let (code, out, err) = hk(&["info", skel.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("skeleton #2 \"Reference\": 93 bones"), "{out}");
    let (code, out, err) = hk(&["info", run.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("animation #2 hkaInterleavedUncompressedAnimation: 3.333542 s, 101 frames, 93 transform and 0 float tracks"),
        "{out}"
    );
    // A pose asked of a file that holds no skeleton or animation is refused.
    let blank = corpus.join("games/ffxiv-and-xat-tests/blank.hkt");
    let (code, _, err) = hk(&[
        "render",
        blank.to_str().unwrap(),
        "--frame",
        "0",
        "-o",
        dir.join("x.png").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no skeleton or animation"), "{err}");
}

#[test]
fn ragdoll_bodies_hang_under_their_bones_and_animations_need_a_decoder() {
    let Some(corpus) =
        corpus("ragdoll_bodies_hang_under_their_bones_and_animations_need_a_decoder")
    else {
        return;
    };
    let dir = temp_dir("anim-ragdoll");
    let rag = corpus.join("games/dark-souls-ptde/c2240_ragdoll_with_types.hkx");
    let out = dir.join("ragdoll.gltf");
    let (code, stdout, err) = hk(&["export", rag.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{err}");
    let (doc, _) = crate::support::gltf_read(&out);
    assert_eq!(doc.skins().count(), 2);
    // Every mesh node is the child of a joint.
    let joints: std::collections::HashSet<usize> = doc
        .skins()
        .flat_map(|s| s.joints().map(|j| j.index()).collect::<Vec<_>>())
        .collect();
    let meshes: Vec<usize> = doc
        .nodes()
        .filter(|n| n.mesh().is_some())
        .map(|n| n.index())
        .collect();
    assert!(!meshes.is_empty());
    for m in &meshes {
        assert!(
            doc.nodes()
                .any(|n| joints.contains(&n.index()) && n.children().any(|c| c.index() == *m)),
            "mesh node {m} hangs under no joint"
        );
    }
    // OBJ cannot hold a skeleton.
    let (code, _, err) = hk(&[
        "export",
        rag.to_str().unwrap(),
        "--format",
        "obj",
        "-o",
        dir.join("r.obj").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("glTF only"), "{err}");
    // An animation whose skeleton is in another file exports on stand-in joints, with a
    // warning that names it and points to --skeleton.
    let a = corpus.join("games/dark-souls-3/c1240_a00_3000.hkx");
    let (code, out, err) = hk(&[
        "export",
        a.to_str().unwrap(),
        "-o",
        dir.join("a.glb").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let said = format!("{out}{err}");
    assert!(
        said.contains("no skeleton for #2 hka") && said.contains("--skeleton"),
        "{said}"
    );
    let (joints, channels) = validate(&std::fs::read(dir.join("a.glb")).unwrap(), "DS3 stand-in");
    assert!(
        joints > 0 && channels > 0,
        "{joints} joints, {channels} channels"
    );
}
