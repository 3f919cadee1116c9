//! `hk export --format gltf|glb` and `hk render` as a user runs them (docs/collision.md):
//! every glTF and GLB is read back and validated by the `gltf` crate and holds the OBJ's
//! triangles; renders have their size, are not blank, and wireframe differs from shaded.

use std::path::Path;

use crate::support;
use crate::support::hk;
use hk_tests::{corpus, root, temp_dir};

/// What a glTF or GLB holds, read with the `gltf` crate (which validates the document).
#[derive(Debug, Default)]
struct Read {
    nodes: usize,
    vertices: usize,
    triangles: usize,
    materials: Vec<String>,
}

fn read_gltf(path: &Path) -> Read {
    let (g, buffers) = support::gltf_read(path);
    for (b, data) in g.buffers().zip(&buffers) {
        assert!(data.len() >= b.length(), "{}", path.display());
    }
    let mut r = Read {
        nodes: g.nodes().count(),
        materials: g
            .materials()
            .filter_map(|m| m.name().map(str::to_string))
            .collect(),
        ..Read::default()
    };
    let scene = g.default_scene().expect("a default scene");
    assert_eq!(scene.nodes().count(), r.nodes);
    for mesh in g.meshes() {
        let mut positions = None;
        for p in mesh.primitives() {
            assert_eq!(p.mode(), gltf::mesh::Mode::Triangles);
            let reader = p.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let pos: Vec<[f32; 3]> = reader.read_positions().expect("positions").collect();
            assert!(pos.iter().flatten().all(|c| c.is_finite()));
            let idx: Vec<u32> = reader.read_indices().expect("indices").into_u32().collect();
            assert_eq!(idx.len() % 3, 0);
            assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
            r.triangles += idx.len() / 3;
            // The primitives of a mesh share its positions.
            positions.get_or_insert(pos.len());
        }
        r.vertices += positions.unwrap_or(0);
    }
    r
}

fn count(text: &str, prefix: &str) -> usize {
    text.lines().filter(|l| l.starts_with(prefix)).count()
}

/// Exports `file` as OBJ, glTF and GLB and checks the three agree.
fn export_three(file: &Path, dir: &Path, triangles: usize) {
    let stem = file.file_stem().unwrap().to_str().unwrap();
    let obj = dir.join(format!("{stem}.obj"));
    let f = file.to_str().unwrap();
    let (code, _, stderr) = hk(&["export", f, "-o", obj.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&obj).unwrap();
    let want = (count(&text, "o "), count(&text, "v "), count(&text, "f "));
    assert_eq!(want.2, triangles, "{}: OBJ triangles", file.display());
    let mut materials = text
        .lines()
        .filter_map(|l| l.strip_prefix("usemtl "))
        .map(str::to_string)
        .collect::<Vec<_>>();
    materials.sort();
    materials.dedup();
    for format in ["gltf", "glb"] {
        let out = dir.join(format!("{stem}.{format}"));
        let (code, stdout, stderr) =
            hk(&["export", f, "--format", format, "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stdout.contains(&format!("{triangles} triangles")),
            "{stdout}"
        );
        let r = read_gltf(&out);
        assert_eq!(
            (r.nodes, r.vertices, r.triangles),
            want,
            "{}: (nodes, vertices, triangles) against the OBJ",
            out.display()
        );
        let mut got = r.materials.clone();
        got.sort();
        assert_eq!(
            got,
            materials,
            "{}: a material per surface id",
            out.display()
        );
    }
}

#[test]
fn the_sample_box_as_gltf_and_glb() {
    let dir = temp_dir("sample");
    export_three(&root().join("samples/shred_box.hkx"), &dir, 12);
    // The GLB is the binary container: magic, version 2, its own length.
    let glb = std::fs::read(dir.join("shred_box.glb")).unwrap();
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(u32::from_le_bytes(glb[4..8].try_into().unwrap()), 2);
    assert_eq!(
        u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
        glb.len()
    );
}

#[test]
fn the_three_corpus_maps_as_gltf_and_glb() {
    let Some(corpus) = corpus("the_three_corpus_maps_as_gltf_and_glb") else {
        return;
    };
    let dir = temp_dir("maps");
    for (game, triangles) in [
        ("demons-souls-ps3/map_collision_h0004b0.hkx", 461),
        ("dark-souls-ptde/map_collision_template.hkx", 3469),
        ("dark-souls-remastered/map_collision_template.hkx", 2),
    ] {
        let file = corpus.join("games").join(game);
        let sub = dir.join(game.split('/').next().unwrap());
        std::fs::create_dir_all(&sub).unwrap();
        export_three(&file, &sub, triangles);
    }
}

/// Decodes a PNG: (width, height, RGB pixels).
fn png(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let p = tiny_skia::Pixmap::load_png(path).unwrap();
    let px = p
        .pixels()
        .iter()
        .map(|c| [c.red(), c.green(), c.blue()])
        .collect();
    (p.width(), p.height(), px)
}

#[test]
fn render_the_demons_souls_map() {
    let Some(corpus) = corpus("render_the_demons_souls_map") else {
        return;
    };
    let dir = temp_dir("render");
    let map = corpus.join("games/demons-souls-ps3/map_collision_h0004b0.hkx");
    let map = map.to_str().unwrap();
    let shaded = dir.join("shaded.png");
    let wire = dir.join("wire.png");
    let (code, stdout, stderr) = hk(&[
        "render",
        map,
        "-o",
        shaded.to_str().unwrap(),
        "--size",
        "240x160",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("461 triangles drawn"), "{stdout}");
    let (code, _, stderr) = hk(&[
        "render",
        map,
        "-o",
        wire.to_str().unwrap(),
        "--size",
        "240x160",
        "--wireframe",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let background = hk_gen::collision::render::background();
    let (w, h, a) = png(&shaded);
    assert_eq!((w, h), (240, 160));
    let drawn = a.iter().filter(|&&c| c != background).count();
    assert!(
        drawn > a.len() / 5,
        "only {drawn} of {} pixels drawn",
        a.len()
    );
    let (w, h, b) = png(&wire);
    assert_eq!((w, h), (240, 160));
    let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!(
        differ > a.len() / 10,
        "wireframe and shaded differ in {differ} pixels"
    );
    // A bad size is an error that says so; a file without bodies but with a skeleton draws
    // its pose (docs/anim-export.md), and a pose of a file without animations is refused.
    let (code, _, stderr) = hk(&["render", map, "-o", "x.png", "--size", "240"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("WIDTHxHEIGHT"), "{stderr}");
    let skeleton = root().join("samples/havok-demo-710_skeleton.hkx");
    let out = dir.join("none.png");
    let (code, _, stderr) = hk(&[
        "render",
        skeleton.to_str().unwrap(),
        "--frame",
        "0",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("havok-demo-710_skeleton.hkx") && stderr.contains("no animation to pose"),
        "{stderr}"
    );
    assert!(!out.exists());
    let (code, stdout, stderr) = hk(&[
        "render",
        skeleton.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("in the reference pose"), "{stdout}");
}
