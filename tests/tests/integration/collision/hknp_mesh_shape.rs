//! Havok 2023.2 `hknpMeshShape` in phive `.bphsh` files (docs/collision-notes.md §13):
//! synthetic levels built here from faces, written through the TAG0 and phive writers
//! from schemas/havok-2023.2, read back through `file::open` and `collision::read_with`;
//! the `Vertex16_3` packing; and hostile shapes that must be errors naming the member.

use std::sync::Arc;

use hk_runtime::collision::hknp::mesh_build::{build, BuildOptions, Face};
use hk_runtime::collision::hknp::mesh_shape::{decode, pack, unpack, MeshShapeData};
use hk_runtime::collision::{read_with, Scene};
use hk_runtime::file::{self, Origin};
use hk_runtime::graph::{Graph, ObjectId};
use hk_runtime::tagfile::phive::{Extra, HitMask, Material, Phive, SHAPE};
use hk_runtime::tagfile::reflect;
use hk_runtime::ReadOptions;

fn materials(n: u32) -> Vec<Material> {
    (0..n)
        .map(|i| Material {
            material: 100 + i,
            sub_material: i % 3,
            shape_tags: 1 << (i % 64),
        })
        .collect()
}

fn hit_masks(n: u64) -> Vec<HitMask> {
    (0..n)
        .map(|i| HitMask {
            layers: 0xF0 | i,
            sub_layers: i << 8,
        })
        .collect()
}

/// A level: a grid of flat quads at stepped heights, and free triangles from a seeded
/// generator; tags cycle through `tags`.
fn level(tags: u16) -> Vec<Face> {
    let mut next = hk_tests::xorshift(0x2023_0200);
    let mut r = move || (next() % 20_000) as f32 / 1000.0 - 10.0;
    let mut faces = Vec::new();
    for i in 0..14 {
        for j in 0..9 {
            let (x, z, y) = (
                i as f32 * 2.0 - 14.0,
                j as f32 * 2.0 - 9.0,
                (i % 3) as f32 * 0.25,
            );
            faces.push(Face {
                points: vec![
                    [x, y, z],
                    [x, y, z + 2.0],
                    [x + 2.0, y, z + 2.0],
                    [x + 2.0, y, z],
                ],
                tag: ((i * 9 + j) % usize::from(tags)) as u16,
            });
        }
    }
    for k in 0..90 {
        let c = [r(), r() + 20.0, r()];
        let p = |d: f32| [c[0] + d, c[1] + d * 0.5, c[2] - d];
        faces.push(Face {
            points: vec![c, p(0.7), [c[0] - 0.4, c[1] + 0.9, c[2] + 0.3]],
            tag: (k % usize::from(tags)) as u16,
        });
    }
    faces
}

fn triangles_in(faces: &[Face]) -> usize {
    faces.iter().map(|f| f.points.len() - 2).sum()
}

/// `data` written as a `.bphsh`: its graph's TAG0 from the 2023.2 schema in a phive shape
/// container with the two arrays.
fn bphsh(data: &MeshShapeData, mats: Vec<Material>, hits: Vec<HitMask>) -> Vec<u8> {
    let schema = Arc::new(hk_tests::schema("havok-2023.2"));
    let mut g = Graph::new(Arc::clone(&schema));
    data.write(&mut g).unwrap();
    let tag0 = reflect::write(&g, &schema, &schema.generation.contents_version).unwrap();
    let phive = Phive {
        reserved: [1, 0],
        file_type: SHAPE,
        capacity: 4,
        extras: vec![Extra::Materials(mats), Extra::HitMasks(hits)],
    };
    phive.write(&tag0).unwrap()
}

/// Opens a `.bphsh` and reads its collision with its phive arrays.
fn open(bytes: &[u8]) -> (Graph, hk_runtime::collision::Result<Scene>) {
    let doc = file::open(bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap();
    let extras = match &doc.origin {
        Origin::Tagfile { file, .. } => file.phive.as_ref().unwrap().extras.clone(),
        _ => panic!("not a tagfile"),
    };
    let scene = read_with(&doc.graph, &extras);
    (doc.graph, scene)
}

#[test]
fn a_synthetic_level_reads_back_with_its_triangles_materials_and_vertices() {
    let faces = level(5);
    let opts = BuildOptions {
        max_error: 0.002,
        faces_per_section: 17,
    };
    let data = build(&faces, &opts).unwrap();
    let step = data.bit_scale16_inv[0];
    assert!(step <= 2.0 * opts.max_error && step > 0.0);
    let (mats, hits) = (materials(5), hit_masks(6));
    let (_, scene) = open(&bphsh(&data, mats.clone(), hits.clone()));
    let scene = scene.unwrap();
    assert_eq!(scene.bodies.len(), 1, "one free shape");
    assert!(scene.bodies[0].free);
    let sections = scene.bodies[0].meshes.len();
    assert!(sections >= faces.len() / 17, "{sections} sections");
    assert_eq!(scene.triangle_count(), triangles_in(&faces));
    // Every triangle lies on the corners of one face (within the grid step) and resolves
    // to that face's material and hit mask; each face gives its triangles once.
    let mut used = vec![0usize; faces.len()];
    let mut worst = 0.0f32;
    for (b, m) in scene.meshes() {
        let world = b.world_vertices(m);
        for t in &m.triangles {
            let pts = t.v.map(|i| world[i as usize]);
            let near =
                |p: [f32; 3], q: [f32; 3]| (0..3).map(|a| (p[a] - q[a]).abs()).fold(0.0, f32::max);
            let f = faces
                .iter()
                .position(|f| {
                    pts.iter()
                        .all(|&p| f.points.iter().any(|&q| near(p, q) <= step))
                })
                .unwrap_or_else(|| panic!("{}: triangle {t:?} matches no face", m.name));
            for p in pts {
                worst = worst.max(
                    faces[f]
                        .points
                        .iter()
                        .map(|&q| near(p, q))
                        .fold(f32::MAX, f32::min),
                );
            }
            used[f] += 1;
            let s = scene.phive_surface(t).expect("a phive surface");
            let tag = usize::from(faces[f].tag);
            assert_eq!((s.material, s.hit_mask), (mats[tag], hits[tag]), "face {f}");
            assert_eq!(t.surface, Some(u32::from(faces[f].tag)));
        }
    }
    for (f, n) in used.iter().enumerate() {
        assert_eq!(*n, faces[f].points.len() - 2, "face {f}");
    }
    assert!(
        worst <= 0.5 * step + 1e-5,
        "worst vertex error {worst} for a step of {step}"
    );
    println!(
        "{} faces -> {} triangles in {sections} sections; worst vertex error {worst} (step {step})",
        faces.len(),
        scene.triangle_count()
    );
}

/// `pack(unpack(x)) == x` for every stored vertex of a file's mesh shapes; the count.
fn vertices_round_trip(bytes: &[u8]) -> usize {
    let (g, scene) = open(bytes);
    scene.unwrap();
    let mut n = 0;
    for i in 0..g.objects.len() {
        let id = ObjectId(i as u32);
        if g.class_name(id) != "hknpMeshShape" {
            continue;
        }
        let d = decode(&g, id).unwrap();
        for s in &d.sections {
            for &v in &s.vertices {
                let p = unpack(v, s.offset, d.bit_scale16_inv);
                assert_eq!(pack(p, s.offset, d.bit_scale16), Some(v), "{v:?} -> {p:?}");
                n += 1;
            }
        }
    }
    n
}

#[test]
fn every_vertex16_3_packs_back_to_itself() {
    let faces = level(3);
    let data = build(&faces, &BuildOptions::default()).unwrap();
    let synthetic = vertices_round_trip(&bphsh(&data, materials(3), hit_masks(3)));
    assert!(synthetic > 300, "{synthetic} vertices");
    let mut total = synthetic;
    for s in ["nso-2023_box.bphsh", "nso-2023_level.bphsh"] {
        let n = vertices_round_trip(&hk_tests::read(&hk_tests::root().join("samples").join(s)));
        assert!(n >= 8, "{s}: {n} vertices");
        total += n;
    }
    println!("pack(unpack(x)) == x for {total} Vertex16_3 ({synthetic} synthetic)");
}

#[test]
fn the_box_sample_is_a_unit_box_of_twelve_triangles() {
    let (_, scene) = open(&hk_tests::read(
        &hk_tests::root().join("samples/nso-2023_box.bphsh"),
    ));
    let scene = scene.unwrap();
    assert_eq!((scene.triangle_count(), scene.vertex_count()), (12, 8));
    for (b, m) in scene.meshes() {
        for p in b.world_vertices(m) {
            assert!(p.iter().all(|c| (c.abs() - 0.5).abs() < 1e-3), "{p:?}");
        }
    }
}

/// A change that spoils a shape.
type Spoil = Box<dyn Fn(&mut MeshShapeData)>;

/// Reads `data` (after `f` spoils it) and returns the error text; never a panic.
fn spoiled(data: &MeshShapeData, f: impl FnOnce(&mut MeshShapeData)) -> String {
    let mut d = data.clone();
    f(&mut d);
    let (_, scene) = open(&bphsh(&d, materials(4), hit_masks(4)));
    scene.expect_err("a spoiled shape").to_string()
}

#[test]
fn spoiled_shapes_are_errors_naming_the_member() {
    let faces = level(4);
    let opts = BuildOptions {
        faces_per_section: 30,
        ..BuildOptions::default()
    };
    let good = build(&faces, &opts).unwrap();
    assert!(good.sections.len() > 4 && good.top.len() > 2);
    let cases: Vec<(&str, Spoil)> = vec![
        (
            "primitives[3].cId",
            Box::new(|d| d.sections[1].primitives[3][2] = 255),
        ),
        (
            "primitives[0].aId",
            Box::new(|d| d.sections[0].vertices.truncate(0)),
        ),
        // A primitive more than the tree knows, and one fewer than it names.
        (
            "in no leaf of the section tree",
            Box::new(|d| {
                let p = d.sections[2].primitives[0];
                d.sections[2].primitives.push(p);
            }),
        ),
        (
            "sectionBvh",
            Box::new(|d| {
                d.sections[2].primitives.pop();
            }),
        ),
        // Tree nodes: a child pointing back at the root (a loop), one past the end, a box
        // that misses its primitive.
        (
            "not after node",
            Box::new(|d| {
                let n = &mut d.sections[0].bvh[0];
                n.data[0] = 0;
                n.data[3] = n.data[2].max(1);
            }),
        ),
        (
            "not after node",
            Box::new(|d| {
                let len = d.sections[0].bvh.len() as u8;
                d.sections[0].bvh[0].data[1] = len;
            }),
        ),
        (
            "outside its leaf box",
            Box::new(|d| {
                // Lane 0 of a leaf squeezed to the bottom of the 8-bit grid in y.
                let leaf = d.sections[1].bvh.iter_mut().find(|n| n.is_leaf()).unwrap();
                (leaf.lo[1][0], leaf.hi[1][0]) = (0, 0);
            }),
        ),
        (
            "sectionBvh[0].data",
            Box::new(|d| {
                let n = &mut d.sections[3].bvh[0];
                if n.is_leaf() {
                    n.data[0] = 200;
                } else {
                    n.data[0] = 250;
                }
            }),
        ),
        ("numShapeKeyBits", Box::new(|d| d.num_shape_key_bits = 2)),
        (
            "shapeTagTable[1].meshPrimitiveKey",
            Box::new(|d| d.tag_table[1].0 = 0),
        ),
        ("shape tag 9 past", Box::new(|d| d.tag_table[0].1 = 9)),
        (
            "topLevelTree.nodes[1].data",
            Box::new(|d| {
                let n = &mut d.top[1];
                n.data[0] = if n.leaf { 10_000 } else { 1 };
            }),
        ),
        (
            "in no leaf of the top-level tree",
            Box::new(|d| {
                d.sections.push(d.sections[0].clone());
                let m = d.mapping.as_mut().unwrap();
                let last = *m.section_start.last().unwrap();
                m.section_start
                    .push(last + d.sections[d.sections.len() - 2].primitives.len() as u32);
                d.num_shape_key_bits += 1;
            }),
        ),
        (
            "primitiveMapping.sectionStart",
            Box::new(|d| {
                d.mapping.as_mut().unwrap().section_start.pop();
            }),
        ),
        (
            "primitiveMapping.sectionStart[2]",
            Box::new(|d| {
                d.mapping.as_mut().unwrap().section_start[2] += 1;
            }),
        ),
        (
            "primitiveMapping.bitString",
            Box::new(|d| {
                d.mapping.as_mut().unwrap().bit_string.truncate(1);
            }),
        ),
        ("bitScale16Inv", Box::new(|d| d.bit_scale16_inv[1] = 0.0)),
    ];
    for (want, f) in &cases {
        let msg = spoiled(&good, f);
        assert!(msg.contains(want), "want `{want}` in: {msg}");
        assert!(msg.contains("#0 hknpMeshShape"), "{msg}");
    }
    println!(
        "{} spoiled shapes, each an error naming its member",
        cases.len()
    );
}

#[test]
fn a_vertex_buffer_of_partial_vertices_is_an_error() {
    let data = build(&level(2), &BuildOptions::default()).unwrap();
    let schema = Arc::new(hk_tests::schema("havok-2023.2"));
    let mut g = Graph::new(Arc::clone(&schema));
    let id = data.write(&mut g).unwrap();
    let path = "geometrySections[0].vertexBuffer";
    let mut bytes = match hk_runtime::collision::hknp::mesh_shape::decode(&g, id) {
        Ok(d) => d.sections[0].vertices.len() * 6,
        Err(e) => panic!("{e}"),
    };
    bytes -= 1;
    let v = (0..bytes)
        .map(|_| hk_runtime::graph::Value::UInt(0))
        .collect();
    g.set(
        id,
        path,
        hk_runtime::graph::Value::Array(hk_runtime::graph::Array::Values(v)),
    )
    .unwrap();
    let e = hk_runtime::collision::read(&g).unwrap_err().to_string();
    assert!(e.contains("vertexBuffer") && e.contains("6-byte"), "{e}");
}

#[test]
fn corrupted_bphsh_files_never_panic() {
    let data = build(&level(4), &BuildOptions::default()).unwrap();
    let good = bphsh(&data, materials(4), hit_masks(4));
    let schemas = hk_tests::schema_set();
    let mut next = hk_tests::xorshift(0xB9_4502);
    let (mut opened, mut refused) = (0, 0);
    let t0 = std::time::Instant::now();
    for _ in 0..3000 {
        let bad = hk_tests::corrupt(&good, &mut next);
        let Ok(doc) = file::open(&bad, &schemas, ReadOptions::default()) else {
            continue;
        };
        opened += 1;
        let extras = match &doc.origin {
            Origin::Tagfile { file, .. } => file.phive.as_ref().map(|p| p.extras.clone()),
            _ => None,
        };
        if read_with(&doc.graph, &extras.unwrap_or_default()).is_err() {
            refused += 1;
        }
    }
    assert!(opened > 100, "{opened}");
    println!(
        "3000 corrupted .bphsh: {opened} opened, {refused} of them refused by the collision reader, in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}
