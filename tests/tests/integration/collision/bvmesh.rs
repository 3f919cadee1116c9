//! Compressed meshes and static compounds (docs/collision-notes.md §11): the corpus's
//! Project Anarchy level mesh decoded and checked against what the file stores (primitive
//! and key counts, boxes, tree leaves), every packed number repacked, a mesh and compound
//! built here from triangles, written as a 2012.2 packfile and read back, and corrupted
//! counts and indices refused by name.

use std::sync::Arc;

use hk_runtime::collision::hkp::bvmesh::{self, BvMesh, PrimitiveKind};
use hk_runtime::collision::hkp::bvmesh_build::{build_compound, build_mesh, InstanceInput};
use hk_runtime::collision::hkp::compound;
use hk_runtime::collision::hkp::pack;
use hk_runtime::collision::{self, Aabb, Vec3};
use hk_runtime::file;
use hk_runtime::graph::{Array, Graph, ObjectId, Value};
use hk_runtime::packfile::PackfileInfo;
use hk_runtime::ReadOptions;

const FULL_LEVEL: &str =
    "games/project-anarchy-sample/Meshes__RL_FullLevel.vmesh_data__M_0.01_0.01_0.01_1_0.hkt";
const PILLAR: &str =
    "games/project-anarchy-sample/Meshes__RL_Pillar.vmesh_data__C_0.01_0.01_0.01.hkt";

fn inside(inner: &Aabb, outer: &Aabb, t: f32) -> bool {
    outer.contains(inner.min, t) && outer.contains(inner.max, t)
}

/// The length of array member `path` of object `id`, read from the graph.
fn len(g: &Graph, id: ObjectId, path: &str) -> usize {
    match g.get(id, path).unwrap() {
        Value::Array(a) => a.len(),
        v => panic!("{path}: {v:?}"),
    }
}

fn int(g: &Graph, id: ObjectId, path: &str) -> i64 {
    match g.get(id, path).unwrap() {
        Value::Int(i) => i,
        Value::UInt(u) => u as i64,
        v => panic!("{path}: {v:?}"),
    }
}

/// Every check of a decoded mesh against its own stored parts; returns the (packed,
/// shared) numbers repacked.
fn check_mesh(m: &BvMesh, what: &str) -> (usize, usize) {
    let tol = 1e-4;
    for (si, s) in m.sections.iter().enumerate() {
        assert!(s.primitives.1 <= 128, "{what}: section {si}");
        assert!(
            inside(&s.domain, &m.domain, tol),
            "{what}: section {si} in the domain"
        );
        if !m.section_boxes.is_empty() {
            let (node, leaf) = m.section_boxes[si];
            assert_eq!(
                s.leaf_index as usize, node,
                "{what}: section {si} leafIndex"
            );
            assert!(
                inside(&s.domain, &leaf, tol),
                "{what}: section {si} in its leaf"
            );
        }
        for k in 0..s.packed.1 {
            let p = s.codec.decode(m.packed[s.packed.0 + k]);
            assert!(s.domain.contains(p, tol), "{what}: section {si} packed {k}");
        }
    }
    for p in &m.primitives {
        let s = &m.sections[p.section];
        for c in &p.corners {
            assert!(m.domain.contains(*c, tol), "{what}: {p:?} in the domain");
            assert!(s.domain.contains(*c, tol), "{what}: {p:?} in its section");
            if !s.leaf_boxes.is_empty() {
                let leaf = s.leaf_boxes[p.local];
                assert!(leaf.contains(*c, tol), "{what}: {p:?} in its leaf {leaf:?}");
            }
        }
    }
    for &x in &m.packed {
        assert_eq!(
            pack::pack_packed(pack::unpack_packed(x)),
            Some(x),
            "{what}: {x:#x}"
        );
    }
    for &x in &m.shared {
        assert_eq!(
            pack::pack_shared(pack::unpack_shared(x)),
            Some(x),
            "{what}: {x:#x}"
        );
        assert!(m.domain.contains(pack::decode_shared(x, &m.domain), tol));
    }
    (m.packed.len(), m.shared.len())
}

#[test]
fn the_project_anarchy_level_mesh() {
    let Some(corpus) = hk_tests::corpus("the_project_anarchy_level_mesh") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let doc = file::open_path(&corpus.join(FULL_LEVEL), &schemas, ReadOptions::default()).unwrap();
    let g = &doc.graph;
    let root = g.root;
    let m = bvmesh::decode(g, root).unwrap();
    // Against the stored counts, read from the graph here.
    let sections = len(g, root, "tree.sections");
    assert_eq!((m.sections.len(), sections), (5, 5));
    let stored_primitives = len(g, root, "tree.primitives");
    let per_section: usize = (0..sections)
        .map(|i| int(g, root, &format!("tree.sections[{i}].primitives.data")) as usize & 0xFF)
        .sum();
    assert_eq!((per_section, stored_primitives), (427, 427));
    assert_eq!(m.primitives.len(), 427);
    let keys = int(g, root, "tree.numPrimitiveKeys");
    assert_eq!(keys, 840, "numPrimitiveKeys");
    assert_eq!(m.triangle_count() as i64, keys);
    assert_eq!(
        i64::from(m.max_key().unwrap()),
        int(g, root, "tree.maxKeyValue")
    );
    let quads = m
        .primitives
        .iter()
        .filter(|p| p.kind == PrimitiveKind::Quad)
        .count();
    let tris = m
        .primitives
        .iter()
        .filter(|p| p.kind == PrimitiveKind::Triangle)
        .count();
    assert_eq!((quads, tris), (413, 14));
    let (packed, shared) = check_mesh(&m, FULL_LEVEL);
    assert_eq!((packed, shared), (405, 53));
    assert_eq!(packed, len(g, root, "tree.packedVertices"));
    assert_eq!(shared, len(g, root, "tree.sharedVertices"));
    // The scene: one free shape, every vertex in the stored box.
    let scene = collision::read(g).unwrap();
    assert_eq!(scene.bodies.len(), 1);
    assert_eq!(scene.triangle_count(), 840);
    assert_eq!(scene.vertex_count(), packed + shared);
    let mesh = &scene.bodies[0].meshes[0];
    assert_eq!(mesh.declared_triangles, Some(840));
    let b = mesh.stored_aabb.unwrap();
    assert!(mesh.vertices.iter().all(|&v| b.contains(v, 1e-4)));
}

#[test]
fn the_project_anarchy_pillar_convex_shape() {
    let Some(corpus) = hk_tests::corpus("the_project_anarchy_pillar_convex_shape") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let doc = file::open_path(&corpus.join(PILLAR), &schemas, ReadOptions::default()).unwrap();
    let g = &doc.graph;
    // The binary tagfile stores each FourVectors as one vec12.
    assert!(matches!(
        g.get(g.root, "rotatedVertices").unwrap(),
        Value::Array(Array::Mat3(_))
    ));
    let scene = collision::read(g).unwrap();
    let m = &scene.bodies[0].meshes[0];
    assert_eq!(m.vertices.len() as i64, int(g, g.root, "numVertices"));
    assert!(m.triangles.len() >= 12, "{}", m.triangles.len());
    let b = m.stored_aabb.unwrap();
    assert!(m.vertices.iter().all(|&v| b.contains(v, 1e-4)));
}

/// A wavy grid of `n`² cells (two triangles each) with data value `i % 3` per column.
fn grid(n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>, Vec<u32>) {
    let mut v = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let (x, y) = (i as f32, j as f32 * 0.5);
            v.push([x, y, (x * 0.7).sin() + y * 0.1]);
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    let (mut t, mut d) = (Vec::new(), Vec::new());
    for j in 0..n {
        for i in 0..n {
            t.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            t.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
            d.extend([i % 3, i % 3]);
        }
    }
    (v, t, d)
}

/// The graph read back, and what was put in.
struct Synthetic {
    g: Graph,
    v: Vec<Vec3>,
    t: Vec<[u32; 3]>,
    d: Vec<u32>,
    inputs: Vec<InstanceInput>,
}

/// A 2012.2 graph: a grid mesh and a compound of two instances of it (one scaled, one
/// rotated), under a root-level container; written and read back.
fn synthetic() -> Synthetic {
    let schema = Arc::new(hk_tests::schema("havok-2012.2"));
    let mut g = Graph::new(Arc::clone(&schema));
    let root = g.add_object("hkRootLevelContainer").unwrap();
    let (v, t, d) = grid(16);
    let mesh = build_mesh(&mut g, &v, &t, &d).unwrap();
    let b = Aabb::of(v.iter().copied()).unwrap();
    let (s, c) = (0.3f32.sin(), 0.3f32.cos());
    let inputs = vec![
        InstanceInput {
            shape: mesh,
            translation: [1.0, 2.0, 3.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [2.0, -1.0, 0.5],
            child_box: b,
            convex: false,
            user_data: 5,
        },
        InstanceInput {
            shape: mesh,
            translation: [-20.0, 0.0, 0.0],
            rotation: [s, 0.0, 0.0, c],
            scale: [1.0; 3],
            child_box: b,
            convex: false,
            user_data: 6,
        },
    ];
    let comp = build_compound(&mut g, &inputs, 12).unwrap();
    let (_, shape) = g.resolve(g.object(root).class, "namedVariants[0]").unwrap();
    let zero = hk_runtime::graph::default_value(&schema, &shape).unwrap();
    g.set(
        root,
        "namedVariants",
        Value::Array(Array::Values(vec![zero])),
    )
    .unwrap();
    let text = |s: &str| Value::String(Some(s.to_string()));
    g.set(root, "namedVariants[0].name", text("Static Compound"))
        .unwrap();
    g.set(
        root,
        "namedVariants[0].className",
        text("hkpStaticCompoundShape"),
    )
    .unwrap();
    let ptr = Value::Pointer(Some(hk_runtime::graph::Ptr::Object(comp)));
    g.set(root, "namedVariants[0].variant", ptr).unwrap();
    let info = PackfileInfo::new(&schema.generation, schema.generation.layout);
    let bytes = hk_runtime::packfile::graph::write::write(&g, &info).unwrap();
    let schemas = hk_tests::schema_set();
    let doc = file::open(&bytes, &schemas, ReadOptions::default()).unwrap();
    Synthetic {
        g: doc.graph,
        v,
        t,
        d,
        inputs,
    }
}

#[test]
fn a_built_mesh_and_compound_read_back() {
    let Synthetic { g, v, t, d, inputs } = synthetic();
    let mesh = g.first("hkpBvCompressedMeshShape").unwrap();
    let comp = g.first("hkpStaticCompoundShape").unwrap();
    let m = bvmesh::decode(&g, mesh).unwrap();
    assert!(m.sections.len() >= 4, "{} sections", m.sections.len());
    assert_eq!(m.triangle_count(), t.len());
    assert_eq!(
        m.primitives
            .iter()
            .map(|p| p.data)
            .collect::<Vec<_>>()
            .len(),
        d.len()
    );
    let (packed, shared) = check_mesh(&m, "synthetic");
    assert_eq!(
        packed + shared,
        v.len(),
        "every vertex packed or shared once"
    );
    assert!(shared > 0, "sections share their borders");
    // Each primitive's corners within quantisation of an input triangle with its data.
    let step = m
        .sections
        .iter()
        .flat_map(|s| s.codec.scale)
        .fold(0f32, f32::max)
        * 0.5
        + 1e-4;
    for p in &m.primitives {
        let hit = t.iter().zip(&d).any(|(tri, &dv)| {
            dv == p.data
                && tri
                    .iter()
                    .zip(&p.corners)
                    .all(|(&i, c)| (0..3).all(|a| (v[i as usize][a] - c[a]).abs() <= step))
        });
        assert!(hit, "{p:?} matches no input triangle within {step}");
    }
    // The compound: flags, transforms, leaf boxes around each placed child.
    let c = compound::decode(&g, comp).unwrap();
    assert_eq!(c.instances.len(), 2);
    assert_eq!(c.child_key_bits, 12);
    let want = [
        compound::FLAG_TRANSFORMED | compound::FLAG_SCALED | compound::FLAG_FLIPPED,
        compound::FLAG_TRANSFORMED,
    ];
    for (k, inst) in c.instances.iter().enumerate() {
        assert_eq!(inst.flags, want[k], "instance {k}");
        assert_eq!(inst.qs[3].to_bits() & !0xFF_FFFF, compound::W_BASE);
        assert_eq!(inst.user_data, inputs[k].user_data);
        for p in &m.primitives {
            for corner in &p.corners {
                let w = inst.transform.apply(*corner);
                assert!(c.leaf_boxes[k].contains(w, 1e-3), "instance {k}");
                assert!(c.domain.contains(w, 1e-3));
            }
        }
    }
    let scene = collision::read(&g).unwrap();
    assert_eq!(scene.bodies.len(), 1, "the compound is the one free shape");
    assert_eq!(scene.triangle_count(), 2 * t.len());
    // Keys: instance above 12 bits of the mesh's key.
    let keys: Vec<u32> = scene.bodies[0].meshes[1]
        .triangles
        .iter()
        .map(|t| t.key)
        .collect();
    assert!(keys.iter().all(|k| k >> 12 == 1));
    // World vertices of the scaled instance: the input's, scaled and moved.
    let b = &scene.bodies[0];
    let world = b.world_vertices(&b.meshes[0]);
    for w in &world {
        let near = v.iter().any(|p| {
            let q = [p[0] * 2.0 + 1.0, -p[1] + 2.0, p[2] * 0.5 + 3.0];
            (0..3).all(|a| (q[a] - w[a]).abs() <= 2.0 * step)
        });
        assert!(near, "{w:?}");
    }
}

/// Sets `path` of object `id` to `v` in a copy of `g` and reads the collision.
fn corrupt(g: &Graph, id: ObjectId, path: &str, v: Value) -> String {
    let mut g = g.clone();
    g.set(id, path, v).unwrap_or_else(|e| panic!("{path}: {e}"));
    match collision::read(&g) {
        Ok(s) => panic!("{path}: read {} triangles", s.triangle_count()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn corrupt_counts_and_indices_are_refused_by_name() {
    let g = synthetic().g;
    let mesh = g.first("hkpBvCompressedMeshShape").unwrap();
    let comp = g.first("hkpStaticCompoundShape").unwrap();
    let n = len(&g, mesh, "tree.primitives") as u64;
    let cases: Vec<(ObjectId, String, Value, &str)> = vec![
        // 255 primitives from the last one on.
        (
            mesh,
            "tree.sections[0].primitives.data".into(),
            Value::UInt((n - 1) << 8 | 255),
            "primitives",
        ),
        (
            mesh,
            "tree.sections[1].sharedVertices.data".into(),
            Value::UInt(0xFF_FFFF << 8),
            "sharedVertices",
        ),
        (
            mesh,
            "tree.sections[0].firstPackedVertex".into(),
            Value::UInt(u64::from(u32::MAX)),
            "firstPackedVertex",
        ),
        (
            mesh,
            "tree.sections[0].numSharedIndices".into(),
            Value::UInt(250),
            "sharedVertices",
        ),
        (
            mesh,
            "tree.primitives[0].indices".into(),
            Value::CArray(vec![
                Value::UInt(250),
                Value::UInt(1),
                Value::UInt(2),
                Value::UInt(2),
            ]),
            "indices",
        ),
        (
            mesh,
            "tree.sections[0].dataRuns.data".into(),
            Value::UInt(0xFF_FFFF << 8 | 1),
            "dataRuns",
        ),
        (
            mesh,
            "tree.primitiveDataRuns[0].count".into(),
            Value::UInt(255),
            "index",
        ),
        (
            mesh,
            "tree.sections[0].nodes[0].data".into(),
            Value::UInt(0xFF),
            "nodes",
        ),
        (
            mesh,
            "tree.nodes[0].hiData".into(),
            Value::UInt(0xFF),
            "nodes",
        ),
        (
            mesh,
            "tree.sections[0].page".into(),
            Value::UInt(9),
            "indices",
        ),
        (
            mesh,
            "tree.domain.min".into(),
            Value::Floats(hk_runtime::graph::Floats::from([1e9f32, 0.0, 0.0, 0.0])),
            "domain",
        ),
        (
            comp,
            "numBitsForChildShapeKey".into(),
            Value::Int(40),
            "numBitsForChildShapeKey",
        ),
        (
            comp,
            "tree.nodes[0].loData".into(),
            Value::UInt(60000),
            "nodes",
        ),
    ];
    for (id, path, v, member) in cases {
        let e = corrupt(&g, id, &path, v);
        let class = g.class_name(id);
        assert!(e.contains(&format!("#{}", id.0)), "{path}: {e}");
        assert!(e.contains(member) && e.contains('('), "{path}: {e}");
        assert!(
            e.contains(class)
                || e.contains("hkcdStatic")
                || e.contains("hkpBvCompressedMeshShapeTree"),
            "{path}: {e}"
        );
    }
}

#[test]
fn packing_and_tree_codes_round_trip() {
    // Every code of each axis at its bit edges.
    for q in [
        [0, 0, 0],
        [2047, 0, 1023],
        [1, 2047, 512],
        [2047, 2047, 1023],
    ] {
        let p = pack::pack_packed(q).unwrap();
        assert_eq!(pack::unpack_packed(p), q);
    }
    assert_eq!(pack::pack_packed([2048, 0, 0]), None);
    assert_eq!(pack::pack_packed([0, 0, 1024]), None);
    for q in [
        [0, 0, 0],
        [(1 << 21) - 1, 0, (1 << 22) - 1],
        [5, (1 << 21) - 1, 7],
    ] {
        let p = pack::pack_shared(q).unwrap();
        assert_eq!(pack::unpack_shared(p), q);
    }
    assert_eq!(pack::pack_shared([1 << 21, 0, 0]), None);
    // A child code holds its child and gives back a box within the parent.
    let parent = Aabb {
        min: [-3.0, 0.0, 10.0],
        max: [5.0, 1.0, 10.5],
    };
    let child = Aabb {
        min: [-1.0, 0.25, 10.1],
        max: [4.0, 0.3, 10.5],
    };
    let code = pack::child_code(&parent, &child);
    let b = pack::child_box(&parent, code);
    assert!(inside(&child, &b, 0.0), "{b:?}");
    assert!(inside(&b, &parent, 0.0));
    // The smallest such: one step tighter on any side would cut the child.
    for axis in 0..3 {
        let hi = code[axis] >> 4;
        if hi < 15 {
            let mut c = code;
            c[axis] += 16;
            assert!(pack::child_box(&parent, c).min[axis] > child.min[axis]);
        }
    }
    assert_eq!(pack::child_box(&parent, [0; 3]), parent);
}
