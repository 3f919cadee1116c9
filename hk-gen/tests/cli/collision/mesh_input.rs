//! The mesh reader of `hk import` (`hk_gen::collision::meshin`, docs/collision.md,
//! "Importing meshes") against `hk export`: every OBJ, glTF and GLB that `hk export`
//! writes of a corpus map or a collision sample reads back as the same objects, names,
//! world-space triangles and surfaces as the file's collision.

use std::path::{Path, PathBuf};

use hk_gen::collision::meshin;
use hk_gen::Context;
use hk_runtime::collision::input::InputMesh;

use crate::support::hk;
use hk_tests::{corpus, root, temp_dir};

/// A triangle as comparable data: its world corners (bits) and surface id.
type Key = ([[u32; 3]; 3], Option<u32>);

fn keys_of_input(m: &InputMesh) -> Vec<Key> {
    let mut k: Vec<Key> = m
        .triangles
        .iter()
        .map(|t| (m.corners(t).map(|p| p.map(f32::to_bits)), t.surface.id))
        .collect();
    k.sort_unstable();
    k
}

fn check_file(ctx: &Context, file: &Path, dir: &Path) -> usize {
    let scene = hk_gen::collision::scene(ctx, file).unwrap();
    let mut want: Vec<(String, Vec<Key>)> = Vec::new();
    for (b, m) in scene.meshes() {
        if m.triangles.is_empty() {
            continue;
        }
        let w = b.world_vertices(m);
        let mut k: Vec<Key> = m
            .triangles
            .iter()
            .map(|t| (t.v.map(|i| w[i as usize].map(f32::to_bits)), t.surface))
            .collect();
        k.sort_unstable();
        want.push((
            format!("{}/{}", b.name, m.name).replace(char::is_whitespace, "_"),
            k,
        ));
    }
    let stem = file.file_stem().unwrap().to_str().unwrap();
    for format in ["obj", "gltf", "glb"] {
        let out = dir.join(format!("{stem}.{format}"));
        let (code, _, err) = hk(&[
            "export",
            file.to_str().unwrap(),
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let got = meshin::read(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
        let got: Vec<(String, Vec<Key>)> = got
            .iter()
            .filter(|m| !m.triangles.is_empty())
            .map(|m| (m.name.replace(char::is_whitespace, "_"), keys_of_input(m)))
            .collect();
        assert_eq!(got.len(), want.len(), "{}: objects", out.display());
        for (g, w) in got.iter().zip(&want) {
            // OBJ names end at a blank, so `hk export` writes blanks as `_` there; an
            // import matches names either way.
            assert_eq!(g.0, w.0, "{}: names", out.display());
            // OBJ prints the shortest text that reads back as the same f32.
            assert!(g.1 == w.1, "{}: {}: triangles differ", out.display(), g.0);
        }
    }
    want.iter().map(|w| w.1.len()).sum()
}

#[test]
fn every_export_format_reads_back_as_the_collision_it_came_from() {
    let Some(dir) = corpus("mesh_input") else {
        return;
    };
    let ctx = Context::built_in().unwrap();
    let tmp = temp_dir("mesh-input");
    let mut files: Vec<(PathBuf, usize)> = [
        ("games/demons-souls-ps3/map_collision_h0004b0.hkx", 461),
        ("games/dark-souls-ptde/map_collision_template.hkx", 3469),
        ("games/dark-souls-remastered/map_collision_template.hkx", 2),
    ]
    .into_iter()
    .map(|(f, n)| (dir.join(f), n))
    .collect();
    for s in [
        "havok-710_level.hkx",
        "destiny-2012_level.hkx",
        "doom-2016_mesh.hkshape",
        "nso-2023_level.bphsh",
    ] {
        files.push((root().join("samples").join(s), 0));
    }
    for (file, n) in files {
        let got = check_file(&ctx, &file, tmp.as_ref());
        assert!(got > 0, "{}", file.display());
        if n > 0 {
            assert_eq!(got, n, "{}", file.display());
        }
    }
}

#[test]
fn a_gltf_buffer_outside_its_folder_is_refused() {
    let tmp = temp_dir("mesh-input-uri");
    let doc = r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"../secret.bin","byteLength":12}]}"#;
    let path = tmp.as_ref().join("m.gltf");
    std::fs::write(&path, doc).unwrap();
    let e = meshin::read(&path).unwrap_err().to_string();
    assert!(e.contains("not a file name beside the document"), "{e}");
}

#[test]
fn an_accessor_past_its_view_is_refused_before_reading() {
    let tmp = temp_dir("mesh-input-acc");
    // 3 positions claimed over a 12-byte buffer.
    let doc = r#"{"asset":{"version":"2.0"},
      "buffers":[{"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAA","byteLength":12}],
      "bufferViews":[{"buffer":0,"byteLength":12}],
      "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}],
      "meshes":[{"name":"m","primitives":[{"attributes":{"POSITION":0}}]}],
      "nodes":[{"mesh":0,"name":"a/b"}],"scenes":[{"nodes":[0]}],"scene":0}"#;
    let path = tmp.as_ref().join("m.gltf");
    std::fs::write(&path, doc).unwrap();
    let e = meshin::read(&path).unwrap_err().to_string();
    assert!(
        e.contains("object `a/b` primitive 0: accessor 0 runs past"),
        "{e}"
    );
}
