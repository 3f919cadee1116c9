//! `hk export` and `hk render` on phive `.bphsh` mesh shapes (docs/collision.md): a file
//! built here from faces through the library's encoder and the TAG0 and phive writers, and
//! the committed level sample. Every GLB is read back and validated by the `gltf` crate;
//! each triangle's glTF material names the phive material its face was given.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use hk_runtime::collision::hknp::mesh_build::{build, BuildOptions, Face};
use hk_runtime::graph::Graph;
use hk_runtime::tagfile::phive::{Extra, HitMask, Material, Phive, SHAPE};
use hk_runtime::tagfile::reflect;

use crate::support;
use crate::support::hk;
use hk_tests::{root, temp_dir};

/// Triangles per glTF material name in a GLB (validated by the `gltf` crate).
fn glb_materials(path: &Path) -> BTreeMap<String, usize> {
    let bytes = std::fs::read(path).unwrap();
    let g = gltf::Gltf::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{}: not valid glTF: {e}", path.display()));
    let blob = g.blob.clone().expect("a BIN chunk");
    let mut out = BTreeMap::new();
    for mesh in g.meshes() {
        for p in mesh.primitives() {
            let reader = p.reader(|_| Some(blob.as_slice()));
            let n = reader.read_indices().expect("indices").into_u32().count() / 3;
            let name = p.material().name().expect("a material name").to_string();
            *out.entry(name).or_insert(0) += n;
        }
    }
    out
}

/// Triangles per `usemtl` group of an OBJ, and its `#` comment lines.
fn obj_groups(text: &str) -> (BTreeMap<String, usize>, Vec<&str>) {
    let mut groups = BTreeMap::new();
    let mut current = String::new();
    for l in text.lines() {
        if let Some(m) = l.strip_prefix("usemtl ") {
            current = m.to_string();
        } else if l.starts_with("f ") {
            *groups.entry(current.clone()).or_insert(0) += 1;
        }
    }
    (
        groups,
        text.lines()
            .filter(|l| l.starts_with("# surface_"))
            .collect(),
    )
}

/// Renders `file` small and returns the pixels that are not the background.
fn drawn(file: &Path, png: &Path) -> usize {
    support::render_drawn(file, png, (200, 150)).1
}

#[test]
fn a_bphsh_built_from_faces_exports_each_triangle_with_its_material() {
    // Three quads and four triangles over three materials.
    let mut faces = Vec::new();
    for (k, tag) in [0u16, 1, 2].iter().enumerate() {
        let x = k as f32 * 3.0;
        faces.push(Face {
            points: vec![
                [x, 0.0, 0.0],
                [x, 0.0, 2.0],
                [x + 2.0, 0.0, 2.0],
                [x + 2.0, 0.0, 0.0],
            ],
            tag: *tag,
        });
    }
    for (k, tag) in [2u16, 2, 1, 0].iter().enumerate() {
        let z = k as f32;
        faces.push(Face {
            points: vec![[0.0, 1.0, z], [1.0, 2.0, z], [0.5, 1.0, z + 0.5]],
            tag: *tag,
        });
    }
    // Triangles per tag, counted from the faces: tag 0: 2 + 1, tag 1: 2 + 1, tag 2: 2 + 2.
    let want = [3usize, 3, 4];
    let mats: Vec<Material> = (0..3)
        .map(|i| Material {
            material: 40 + i,
            sub_material: 7,
            shape_tags: 0x10 << i,
        })
        .collect();
    let hits: Vec<HitMask> = (0..3)
        .map(|i| HitMask {
            layers: 1 << i,
            sub_layers: 0,
        })
        .collect();
    let schema = Arc::new(hk_tests::schema("havok-2023.2"));
    let mut g = Graph::new(Arc::clone(&schema));
    build(&faces, &BuildOptions::default())
        .unwrap()
        .write(&mut g)
        .unwrap();
    let tag0 = reflect::write(&g, &schema, &schema.generation.contents_version).unwrap();
    let phive = Phive {
        reserved: [1, 0],
        file_type: SHAPE,
        capacity: 4,
        extras: vec![
            Extra::Materials(mats.clone()),
            Extra::HitMasks(hits.clone()),
        ],
    };
    let dir = temp_dir("meshshape-built");
    let file = dir.as_ref().join("built.bphsh");
    std::fs::write(&file, phive.write(&tag0).unwrap()).unwrap();
    let glb = dir.as_ref().join("built.glb");
    let (code, out, err) = hk(&[
        "export",
        file.to_str().unwrap(),
        "--format",
        "glb",
        "-o",
        glb.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("10 triangles"), "{out}");
    let got = glb_materials(&glb);
    assert_eq!(got.len(), 3, "{got:?}");
    for (tag, n) in want.iter().enumerate() {
        let (m, h) = (mats[tag], hits[tag]);
        let name = format!(
            "surface_{tag} material={} sub={} tags=0x{:X} layers=0x{:X} sublayers=0x{:X}",
            m.material, m.sub_material, m.shape_tags, h.layers, h.sub_layers
        );
        assert_eq!(got.get(&name), Some(n), "{name} in {got:?}");
    }
    let obj = dir.as_ref().join("built.obj");
    let (code, out, err) = hk(&[
        "export",
        file.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&obj).unwrap();
    let (groups, notes) = obj_groups(&text);
    for (tag, n) in want.iter().enumerate() {
        assert_eq!(groups.get(&format!("surface_{tag}")), Some(n), "{groups:?}");
        assert!(
            notes[tag].contains(&format!("material={} ", mats[tag].material)),
            "{notes:?}"
        );
    }
    assert!(drawn(&file, &dir.as_ref().join("built.png")) > 500);
}

#[test]
fn the_level_sample_exports_and_renders() {
    let file = root().join("samples/nso-2023_level.bphsh");
    let dir = temp_dir("meshshape-level");
    // 144 floor quads, 16 ramp triangles and a box of 6 quads.
    let triangles = 144 * 2 + 16 + 6 * 2;
    let obj = dir.as_ref().join("level.obj");
    let (code, out, err) = hk(&[
        "export",
        file.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&obj).unwrap();
    let (groups, notes) = obj_groups(&text);
    assert_eq!(groups.values().sum::<usize>(), triangles);
    assert_eq!((groups.len(), notes.len()), (4, 4), "{groups:?}");
    let glb = dir.as_ref().join("level.glb");
    let (code, out, err) = hk(&[
        "export",
        file.to_str().unwrap(),
        "--format",
        "glb",
        "-o",
        glb.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let got = glb_materials(&glb);
    assert_eq!(got.values().sum::<usize>(), triangles);
    // The same split by surface in both formats.
    for (name, n) in &got {
        let surface = name.split(' ').next().unwrap();
        assert_eq!(groups.get(surface), Some(n), "{name}");
        assert!(name.contains(" material=1"), "{name}");
    }
    let px = drawn(&file, &dir.as_ref().join("level.png"));
    assert!(px > 200 * 150 / 10, "{px} pixels drawn");
}
