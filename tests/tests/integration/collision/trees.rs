//! The check of every stored tree (docs/collision.md, "Checking trees"): it passes on the
//! corpus's collision files and on every sample, fails on a tree whose node box was
//! spoiled, and hk's compressed-mesh builders, rebuilt from an original's own primitives,
//! stay within 1.2× of its state bytes and nodes per box; every vertex they write lies
//! within its format's quantum of its input (docs/compressed-mesh-encoders.md).

use std::sync::Arc;

use hk_runtime::collision::check::{self, rebuild};
use hk_runtime::collision::hknp::build::{add_compressed_mesh, MeshInput};
use hk_runtime::collision::hknp::mesh_build::{build, BuildOptions, Face};
use hk_runtime::collision::hkp::{bvmesh, bvmesh_build, pack};
use hk_runtime::collision::{self, read_with, Vec3};
use hk_runtime::file::{self, Origin};
use hk_runtime::graph::{Array, Graph, ObjectId, Value};
use hk_runtime::ReadOptions;

/// The corpus's files with trees, and the trees each holds.
const CORPUS: &[(&str, usize)] = &[
    (
        "games/project-anarchy-sample/Meshes__RL_FullLevel.vmesh_data__M_0.01_0.01_0.01_1_0.hkt",
        1,
    ),
    ("games/demons-souls-ps3/map_collision_h0004b0.hkx", 1),
    ("games/dark-souls-ptde/map_collision_template.hkx", 1),
    ("games/dark-souls-remastered/map_collision_template.hkx", 1),
];

/// The samples with trees, and the trees each holds.
const SAMPLES: &[(&str, usize)] = &[
    ("destiny-2012_level.hkx", 3),
    ("destiny-2012_compound.hkx", 2),
    ("doom-2016_compound.hkshape", 1),
    ("doom-2016_mesh.hkshape", 1),
    ("havok-710_level.hkx", 1),
    ("nso-2023_box.bphsh", 1),
    ("nso-2023_level.bphsh", 1),
];

fn open(path: &std::path::Path) -> (Graph, collision::Scene) {
    let doc = file::open_path(path, &hk_tests::schema_set(), ReadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let extras = match &doc.origin {
        Origin::Tagfile { file, .. } => file.phive.as_ref().map(|p| p.extras.clone()),
        _ => None,
    };
    let scene = read_with(&doc.graph, extras.as_deref().unwrap_or(&[]))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (doc.graph, scene)
}

fn check_all(path: &std::path::Path, trees: usize) {
    let (g, scene) = open(path);
    let r = check::check_trees(&g, &scene, 2_000, 7).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.trees.len(), trees, "{}", path.display());
    for t in &r.trees {
        assert!(t.passes(), "{}: {}", path.display(), t.line());
        if t.has_tree && t.items > 0 {
            assert_eq!(
                (t.found, t.misses, t.boxes),
                (t.items, 0, 2_000),
                "{}",
                t.line()
            );
        }
    }
}

#[test]
fn every_tree_of_the_corpus_passes() {
    let Some(corpus) = hk_tests::corpus("every_tree_of_the_corpus_passes") else {
        return;
    };
    for (rel, n) in CORPUS {
        check_all(&corpus.join(rel), *n);
    }
}

#[test]
fn every_tree_of_the_samples_passes() {
    for (name, n) in SAMPLES {
        check_all(&hk_tests::root().join("samples").join(name), *n);
    }
}

/// Sets node `k` of section `s`'s tree of the compressed mesh `id` to the code `xyz`.
fn set_xyz(g: &mut Graph, id: ObjectId, s: usize, k: usize, xyz: u8) {
    let path = format!("tree.sections[{s}].nodes[{k}].xyz");
    let v = match g.get(id, &path).unwrap() {
        Value::CArray(v) => Value::CArray(vec![Value::UInt(u64::from(xyz)); v.len()]),
        Value::Array(Array::U8(_)) => Value::Array(Array::U8(vec![xyz; 3])),
        v => panic!("{path}: {v:?}"),
    };
    g.set(id, &path, v).unwrap();
}

#[test]
fn a_spoiled_node_box_fails_the_check() {
    let (mut g, _) = open(&hk_tests::root().join("samples/destiny-2012_level.hkx"));
    let id = (0..g.objects.len() as u32)
        .map(ObjectId)
        .find(|&i| g.class_name(i) == "hkpBvCompressedMeshShape")
        .unwrap();
    // The first leaf of section 0 (its `data` bit 0 clear): its box squeezed to the far
    // corner of its parent's.
    let leaf = (0..)
        .find(
            |&k| match g.get(id, &format!("tree.sections[0].nodes[{k}].data")) {
                Ok(Value::UInt(d)) => d & 1 == 0,
                Ok(Value::Int(d)) => d & 1 == 0,
                _ => panic!("no leaf"),
            },
        )
        .unwrap();
    set_xyz(&mut g, id, 0, leaf, 0xF0);
    let scene = collision::read(&g).unwrap();
    let survey = check::survey(&g, &scene, 500, 7).unwrap();
    let bad = survey
        .trees
        .iter()
        .find(|t| !t.passes())
        .expect("a failing tree");
    assert!(bad.found < bad.items, "{}", bad.line());
    assert!(
        bad.line().contains("not found by their own box"),
        "{}",
        bad.line()
    );
    let e = check::check_trees(&g, &scene, 500, 7)
        .unwrap_err()
        .to_string();
    assert!(e.contains("fails its check"), "{e}");
}

fn schema(name: &str) -> Arc<hk_runtime::Schema> {
    Arc::new(hk_tests::schema(name))
}

/// (state ratio, nodes-per-box ratio) of every compressed mesh of `path` rebuilt.
fn ratios(path: &std::path::Path, boxes: usize) -> Vec<(String, f64, f64)> {
    let (g, _) = open(path);
    let mut out = Vec::new();
    let originals = check::subjects(&g).unwrap();
    for o in &originals {
        let id = ObjectId(o.name[1..].split(' ').next().unwrap().parse().unwrap());
        let Some(kind) = rebuild::kind(&g, id) else {
            continue;
        };
        let folder = match kind {
            "hkpBvCompressedMeshShape" => "havok-2012.2",
            "hknpCompressedMeshShape" => "havok-2016",
            _ => "havok-2023.2",
        };
        let before = rebuild::state_bytes(&g, id).unwrap().unwrap();
        let (g2, id2) = rebuild::rebuild(&g, id, schema(folder)).unwrap().unwrap();
        let after = rebuild::state_bytes(&g2, id2).unwrap().unwrap();
        let new = check::subjects(&g2).unwrap().remove(0);
        let b = check::union(&o.items).map_or(Vec::new(), |w| check::random_boxes(&w, boxes, 1));
        let (a, n) = (
            check::check_subject(o, &b).unwrap(),
            check::check_subject(&new, &b).unwrap(),
        );
        assert!(n.passes() && a.passes(), "{} / {}", a.line(), n.line());
        assert_eq!(a.items, n.items, "{}: triangles", o.name);
        let nodes = if a.has_tree {
            n.visited_per_box() / a.visited_per_box()
        } else {
            1.0
        };
        out.push((o.name.clone(), after as f64 / before as f64, nodes));
    }
    out
}

fn assert_within(rows: &[(String, f64, f64)]) {
    assert!(!rows.is_empty());
    for (name, bytes, nodes) in rows {
        assert!(
            *bytes <= 1.2 && *nodes <= 1.2,
            "{name}: {bytes:.2}× bytes, {nodes:.2}× nodes/box"
        );
    }
}

#[test]
fn the_project_anarchy_level_rebuilt_is_within_a_fifth() {
    let Some(corpus) = hk_tests::corpus("the_project_anarchy_level_rebuilt_is_within_a_fifth")
    else {
        return;
    };
    assert_within(&ratios(&corpus.join(CORPUS[0].0), 2_000));
}

#[test]
fn the_samples_rebuilt_are_within_a_fifth() {
    for s in [
        "destiny-2012_level.hkx",
        "doom-2016_mesh.hkshape",
        "nso-2023_level.bphsh",
    ] {
        assert_within(&ratios(&hk_tests::root().join("samples").join(s), 2_000));
    }
}

/// A 12 × 12 grid of quads over uneven ground: the vertices and the quads.
fn ground() -> (Vec<Vec3>, Vec<[u32; 4]>) {
    let n = 12u32;
    let mut v = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let z = ((i * 37 + j * 11) % 17) as f32 * 0.173 - 1.3;
            v.push([i as f32 * 3.71 - 20.0, j as f32 * 2.93 + 5.0, z]);
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    let mut q = Vec::new();
    for j in 0..n {
        for i in 0..n {
            q.push([at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (v, q)
}

/// The largest distance, per axis, of each of `decoded` to its nearest input vertex.
fn nearest_errors(input: &[Vec3], decoded: &[Vec3]) -> Vec<Vec3> {
    decoded
        .iter()
        .map(|d| {
            let p = input
                .iter()
                .min_by(|a, b| dist(a, d).total_cmp(&dist(b, d)))
                .unwrap();
            [0, 1, 2].map(|i| (p[i] - d[i]).abs())
        })
        .collect()
}

fn dist(a: &Vec3, b: &Vec3) -> f32 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum()
}

#[test]
fn bv_compressed_mesh_vertices_lie_within_half_a_step() {
    let (v, q) = ground();
    let mut g = Graph::new(schema("havok-2012.2"));
    let id = bvmesh_build::build_primitives(&mut g, &v, &q, &[]).unwrap();
    let m = bvmesh::decode(&g, id).unwrap();
    assert_eq!(m.triangle_count(), 2 * q.len());
    let shared_step =
        [0, 1, 2].map(|i| (m.domain.max[i] - m.domain.min[i]) / pack::SHARED_MAX[i] as f32);
    for p in &m.primitives {
        let s = &m.sections[p.section];
        let err = nearest_errors(&v, &p.corners);
        for (k, e) in err.iter().enumerate() {
            let packed = usize::from(p.indices[k]) < s.packed.1;
            for a in 0..3 {
                let step = if packed {
                    s.codec.scale[a]
                } else {
                    shared_step[a]
                };
                assert!(
                    e[a] <= 0.5 * step * 1.001 + 1e-6,
                    "section {} corner {k} axis {a}: {} over half of {step}",
                    p.section,
                    e[a]
                );
            }
        }
    }
}

#[test]
fn hknp_compressed_mesh_vertices_lie_within_half_a_step() {
    let (v, q) = ground();
    let mut g = Graph::new(schema("havok-2016"));
    let input = MeshInput {
        vertices: v.clone(),
        primitives: q.clone(),
        materials: Vec::new(),
    };
    add_compressed_mesh(&mut g, &input).unwrap();
    let scene = collision::read(&g).unwrap();
    let (_, mesh) = scene.meshes().next().unwrap();
    assert_eq!(mesh.triangles.len(), 2 * q.len());
    let d = mesh.stored_aabb.unwrap();
    // A section's grid spans its own vertices, inside the domain: its step is at most the
    // domain's extent over the 11-11-10 codes; shared vertices are finer still.
    let step = [0, 1, 2].map(|i| (d.max[i] - d.min[i]) / pack::PACKED_MAX[i] as f32);
    for e in nearest_errors(&v, &mesh.vertices) {
        for a in 0..3 {
            assert!(
                e[a] <= 0.5 * step[a] * 1.001 + 1e-6,
                "axis {a}: {} over half of {}",
                e[a],
                step[a]
            );
        }
    }
}

#[test]
fn mesh_shape_vertices_lie_within_the_allowed_error() {
    let (v, q) = ground();
    let faces: Vec<Face> = q
        .iter()
        .map(|f| Face {
            points: f.iter().map(|&i| v[i as usize]).collect(),
            tag: 0,
        })
        .collect();
    for max_error in [0.001f32, 0.004, 0.03] {
        let opts = BuildOptions {
            max_error,
            ..BuildOptions::default()
        };
        let d = build(&faces, &opts).unwrap();
        let step = d.bit_scale16_inv[0];
        assert!(step <= 2.0 * max_error, "step {step} for {max_error}");
        let decoded: Vec<Vec3> = d
            .sections
            .iter()
            .flat_map(|s| s.vertices.iter().map(|&x| d.vertex(s, x)))
            .collect();
        for e in nearest_errors(&v, &decoded).iter().flatten() {
            assert!(
                *e <= 0.5 * step + 1e-6,
                "{max_error}: {e} over half of {step}"
            );
        }
    }
}

/// The nodes per box of the trees of `g` (one tree), over `boxes`.
fn nodes_per_box(g: &Graph, boxes: &[hk_runtime::collision::Aabb]) -> f64 {
    let s = check::subjects(g).unwrap().remove(0);
    let c = check::check_subject(&s, boxes).unwrap();
    assert!(c.passes(), "{}", c.line());
    c.visited_per_box()
}

#[test]
fn hknp_compressed_sections_do_not_depend_on_the_input_order() {
    let (v, q) = ground();
    let mut shuffled = q.clone();
    // A fixed interleaving that scatters neighbours across the list.
    shuffled.sort_by_key(|p| (p[0] * 7919) % 101);
    let mut trees = Vec::new();
    for prims in [q, shuffled] {
        let mut g = Graph::new(schema("havok-2016"));
        let input = MeshInput {
            vertices: v.clone(),
            primitives: prims,
            materials: Vec::new(),
        };
        add_compressed_mesh(&mut g, &input).unwrap();
        trees.push(g);
    }
    let within = check::union(&check::subjects(&trees[0]).unwrap()[0].items).unwrap();
    let boxes = check::random_boxes(&within, 2_000, 3);
    let (a, b) = (
        nodes_per_box(&trees[0], &boxes),
        nodes_per_box(&trees[1], &boxes),
    );
    assert!(b <= 1.2 * a, "in order {a:.1}, shuffled {b:.1} nodes/box");
}

#[test]
fn the_project_anarchy_level_as_an_hknp_compressed_mesh_is_within_a_fifth() {
    let Some(corpus) = hk_tests::corpus("the_project_anarchy_level_as_an_hknp_compressed_mesh")
    else {
        return;
    };
    let (g, _) = open(&corpus.join(CORPUS[0].0));
    let m = bvmesh::decode(&g, g.root).unwrap();
    let mut input = MeshInput::default();
    // Corners welded by their bits, as the original's sections share them.
    let mut at = std::collections::HashMap::new();
    for p in &m.primitives {
        let ix: Vec<u32> = p
            .corners
            .iter()
            .map(|c| {
                *at.entry(c.map(f32::to_bits)).or_insert_with(|| {
                    input.vertices.push(*c);
                    input.vertices.len() as u32 - 1
                })
            })
            .collect();
        input.primitives.push(match ix[..] {
            [a, b, c, d] => [a, b, c, d],
            [a, b, c] => [a, b, c, c],
            _ => continue,
        });
    }
    let mut h = Graph::new(schema("havok-2016"));
    let id = add_compressed_mesh(&mut h, &input).unwrap().shape;
    let original = check::subjects(&g).unwrap().remove(0);
    let boxes = check::random_boxes(&check::union(&original.items).unwrap(), 2_000, 1);
    let a = check::check_subject(&original, &boxes).unwrap();
    let b = nodes_per_box(&h, &boxes);
    let bytes = |g: &Graph, id| rebuild::state_bytes(g, id).unwrap().unwrap() as f64;
    let ratio = bytes(&h, id) / bytes(&g, g.root);
    assert!(
        b <= 1.2 * a.visited_per_box(),
        "{b:.1} against {}",
        a.line()
    );
    assert!(ratio <= 1.2, "{ratio:.2}× the state bytes");
}
