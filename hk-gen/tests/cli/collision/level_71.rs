//! The synthetic Havok 7.1 level (`samples/havok-710_level.hkx`, docs/collision.md "A
//! synthetic 7.1 level"): hk writes it from the schema, reads it back through
//! `file::open`, reads its collision, exports it (OBJ, glTF validated by the `gltf` crate)
//! and renders it. Every body keeps the placement, motion type and filter word it was
//! given, and exports the triangles its shape should make, counted here from the
//! description and the documented tessellation (docs/collision-notes.md §10, §14).

use std::collections::BTreeMap;
use std::path::Path;

use hk_gen::sample::level71;
use hk_runtime::collision::hkp::level_build::{BodyDesc, ShapeDesc};
use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self, Aabb, Scene, ShapeKind};
use hk_runtime::file::{self, Schemas};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::packfile::PackfileInfo;

use crate::support;
use crate::support::hk;
use hk_tests::{root, temp_dir};

/// Segments around a round primitive (docs/collision-notes.md §10).
const SEGMENTS: usize = 12;

/// The triangles shape `d` should export: a box two a face; a sphere or capsule
/// `SEGMENTS / 2` bands of `SEGMENTS` quads; a cylinder `SEGMENTS` side quads and two caps
/// fanned into `SEGMENTS - 2` triangles each; a convex face of k corners k − 2; meshes
/// their triangles.
fn expected(d: &ShapeDesc) -> usize {
    match d {
        ShapeDesc::Box { .. } => 6 * 2,
        ShapeDesc::Sphere { .. } | ShapeDesc::Capsule { .. } => SEGMENTS / 2 * SEGMENTS * 2,
        ShapeDesc::Cylinder { .. } => SEGMENTS * 2 + 2 * (SEGMENTS - 2),
        ShapeDesc::ConvexVertices { faces, .. } => faces.iter().map(|f| f.len() - 2).sum(),
        ShapeDesc::ConvexTranslate { child, .. }
        | ShapeDesc::ConvexTransform { child, .. }
        | ShapeDesc::Transform { child, .. } => expected(child),
        ShapeDesc::List(c) => c.iter().map(expected).sum(),
        ShapeDesc::SimpleMesh(m) | ShapeDesc::MoppMesh(m) => m.triangles.len(),
        _ => panic!("a shape kind this test does not count"),
    }
}

/// The level written as a 7.1 packfile, and the schemas that read it.
fn written() -> (Vec<u8>, Schemas) {
    let schemas = Schemas::from_dir(&hk_tests::schemas()).unwrap();
    let schema = schemas.load("havok-7.1").unwrap();
    let graph = level71::graph(schema.clone()).unwrap();
    let g = &schema.generation;
    let bytes =
        hk_runtime::packfile::graph::write::write(&graph, &PackfileInfo::new(g, g.layout)).unwrap();
    (bytes, schemas)
}

fn read_back() -> (Vec<u8>, Scene) {
    let (bytes, schemas) = written();
    let doc = file::open(&bytes, &schemas, ReadOptions::default()).unwrap();
    let scene = collision::read(&doc.graph).unwrap();
    (bytes, scene)
}

fn close(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() <= tol)
}

#[test]
fn the_level_reads_back_as_it_was_put_in() {
    let (bytes, scene) = read_back();
    // A 7.1 big-endian packfile: magic, version 7, the 7.1 contents version.
    assert_eq!(
        &bytes[..8],
        &[0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10]
    );
    assert_eq!(u32::from_be_bytes(bytes[12..16].try_into().unwrap()), 7);
    assert!(bytes.windows(14).any(|w| w == b"Havok-7.1.0-r1"));
    let want: Vec<BodyDesc> = level71::bodies();
    assert_eq!(scene.bodies.len(), want.len());
    let mut kinds = Vec::new();
    for (b, d) in scene.bodies.iter().zip(&want) {
        assert_eq!(b.name, d.name);
        assert!(!b.free);
        assert_eq!(
            b.motion_name.as_deref(),
            Some(d.motion.as_str()),
            "{}",
            d.name
        );
        assert_eq!(b.filter_info, d.filter_info, "{}", d.name);
        let a = d.at.affine();
        for i in 0..3 {
            assert!(close(b.to_world.cols[i], a.cols[i], 1e-6), "{}", d.name);
        }
        assert_eq!(b.to_world.t, d.at.translation, "{}", d.name);
        let got: usize = b.meshes.iter().map(|m| m.triangles.len()).sum();
        assert_eq!(got, expected(&d.shape), "{}: triangles", d.name);
        kinds.extend(b.meshes.iter().map(|m| m.kind));
    }
    for k in [
        ShapeKind::ExtendedMesh,
        ShapeKind::SimpleMesh,
        ShapeKind::ConvexVertices,
        ShapeKind::Box,
        ShapeKind::Sphere,
        ShapeKind::Capsule,
        ShapeKind::Cylinder,
    ] {
        assert!(kinds.contains(&k), "no {k:?} mesh");
    }
    assert_eq!(
        scene.triangle_count(),
        want.iter().map(|d| expected(&d.shape)).sum::<usize>()
    );
}

#[test]
fn meshes_keep_their_vertices_surfaces_and_placements() {
    let (_, scene) = read_back();
    let want = level71::bodies();
    let by_name = |n: &str| scene.bodies.iter().find(|b| b.name == n).unwrap();
    let desc = |n: &str| want.iter().find(|d| d.name == n).unwrap();
    for name in ["terrain", "ramp"] {
        let (b, d) = (by_name(name), desc(name));
        let (ShapeDesc::MoppMesh(m) | ShapeDesc::SimpleMesh(m)) = &d.shape else {
            panic!("{name} is not a mesh")
        };
        let [mesh] = &b.meshes[..] else {
            panic!("{name}: one mesh")
        };
        // World vertices: the body's rotation and translation of the stored ones.
        let a = d.at.affine();
        for (w, v) in b.world_vertices(mesh).iter().zip(&m.vertices) {
            assert!(close(*w, a.apply(*v), 1e-5), "{name}");
        }
        // Triangles in order, each with its surface id.
        for (k, t) in mesh.triangles.iter().enumerate() {
            assert_eq!(t.v, m.triangles[k].map(u32::from), "{name} {k}");
            assert_eq!(t.surface, Some(u32::from(m.surfaces[k])), "{name} {k}");
        }
    }
    // The terrain's materials are filter words with the surface id in bits 3 to 8.
    let terrain = &by_name("terrain").meshes[0];
    assert_eq!(terrain.kind, ShapeKind::ExtendedMesh);
    assert_eq!(
        terrain.declared_triangles,
        Some(terrain.triangles.len() as u64)
    );
    assert!(terrain
        .triangles
        .iter()
        .all(|t| t.material == t.surface.map(|s| s << 3)));
    // A translate shape moves its child: the shifted crate's box centre is the body's
    // placement of the translation.
    let (b, d) = (by_name("shifted crate"), desc("shifted crate"));
    let ShapeDesc::ConvexTranslate { translation, .. } = &d.shape else {
        panic!("shifted crate is not a translate shape")
    };
    let w = Aabb::of(b.world_vertices(&b.meshes[0])).unwrap();
    let centre = [0, 1, 2].map(|i| (w.min[i] + w.max[i]) / 2.0);
    assert!(close(centre, d.at.affine().apply(*translation), 1e-4));
    // The list's three children are keyed by their index.
    let keys: Vec<u32> = by_name("cluster")
        .meshes
        .iter()
        .map(|m| m.triangles[0].key)
        .collect();
    assert_eq!(keys, [0, 1, 2]);
}

#[test]
fn the_built_mopp_code_finds_every_triangle_and_matches_brute_force() {
    let (_, scene) = read_back();
    assert_eq!(scene.codes.len(), 1);
    let r = check::check(&scene, 0).unwrap();
    assert!(r.passes(), "{r:?}");
    assert_eq!((r.found, r.kept, r.degenerate), (50, 50, 0));
    let tris = check::indexed(&scene, 0);
    let code = &scene.codes[0];
    let all = Aabb::of(tris.iter().flat_map(|t| [t.aabb.min, t.aabb.max])).unwrap();
    let (mut hits, mut empty, mut returned) = (0, 0, 0);
    for q in hk_runtime::collision::math::random_boxes_sized(&all, 1500, 0.3, 17) {
        let got = code.query(&q).unwrap();
        let mut want: Vec<u32> = tris
            .iter()
            .filter(|t| t.aabb.overlaps(&q))
            .map(|t| t.key)
            .collect();
        want.sort_unstable();
        for k in &want {
            assert!(got.binary_search(k).is_ok(), "key {k} missed by {q:?}");
        }
        for k in &got {
            assert!(tris.iter().any(|t| t.key == *k), "key {k} for {q:?}");
        }
        hits += want.len();
        returned += got.len();
        empty += usize::from(want.is_empty());
    }
    assert!(hits > 1500 && empty > 0, "{hits} hits, {empty} empty boxes");
    // The encoder writes a bound only where it cuts enough (docs/mopp.md §6): a query
    // returns a few triangles near its box, not many.
    assert!(
        returned * 4 <= hits * 5,
        "{returned} keys for {hits} overlaps"
    );
}

#[test]
fn the_level_code_with_any_byte_flipped_never_panics_or_loops() {
    let (_, scene) = read_back();
    let good = scene.codes[0].clone();
    let mut errors = 0;
    for i in 0..good.bytes.len() {
        let mut s = scene.clone();
        s.codes[0].bytes[i] ^= 0xFF;
        // Every triangle's own box, the terminal walk and the far box.
        errors += usize::from(check::check(&s, 0).is_err());
    }
    assert!(errors > 0);
}

/// Faces per object of an OBJ, by the object's body (the name before `/`).
fn obj_faces(text: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let mut body = String::new();
    for l in text.lines() {
        if let Some(o) = l.strip_prefix("o ") {
            body = o.split('/').next().unwrap().to_string();
        } else if l.starts_with("f ") {
            *out.entry(body.clone()).or_insert(0) += 1;
        }
    }
    out
}

/// Triangles per body of a glTF or GLB, read and validated by the `gltf` crate.
fn gltf_triangles(path: &Path) -> BTreeMap<String, usize> {
    let (doc, buffers) = support::gltf_read(path);
    let mut out = BTreeMap::new();
    for node in doc.nodes() {
        let body = node.name().unwrap().split('/').next().unwrap().to_string();
        let mesh = node.mesh().expect("a node per mesh");
        for p in mesh.primitives() {
            assert_eq!(p.mode(), gltf::mesh::Mode::Triangles);
            let r = p.reader(|b| buffers.get(b.index()).map(|d| &d[..]));
            let pos: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
            let idx: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
            assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
            *out.entry(body.clone()).or_insert(0) += idx.len() / 3;
        }
    }
    out
}

#[test]
fn export_and_render_give_the_triangles_that_were_put_in() {
    let dir = temp_dir("level71");
    let (bytes, _) = written();
    let file = dir.join("level.hkx");
    std::fs::write(&file, &bytes).unwrap();
    let f = file.to_str().unwrap();
    let want: BTreeMap<String, usize> = level71::bodies()
        .iter()
        .map(|d| (d.name.clone(), expected(&d.shape)))
        .collect();
    let total: usize = want.values().sum();
    // OBJ (object names have spaces as underscores).
    let obj = dir.join("level.obj");
    let (code, out, err) = hk(&["export", f, "-o", obj.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("11 bodies, 13 objects"), "{out}");
    let got = obj_faces(&std::fs::read_to_string(&obj).unwrap());
    let under: BTreeMap<String, usize> = want
        .iter()
        .map(|(k, v)| (k.replace(' ', "_"), *v))
        .collect();
    assert_eq!(got, under);
    // glTF and GLB, validated, the same triangles per body.
    for format in ["gltf", "glb"] {
        let out_path = dir.join(format!("level.{format}"));
        let (code, out, err) = hk(&[
            "export",
            f,
            "--format",
            format,
            "-o",
            out_path.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("{total} triangles")), "{out}");
        assert_eq!(gltf_triangles(&out_path), want, "{format}");
    }
    // The render draws every triangle and covers a good part of the picture.
    let (out, drawn) = support::render_drawn(Path::new(f), &dir.join("level.png"), (240, 160));
    assert!(out.contains(&format!("{total} triangles drawn")), "{out}");
    assert!(drawn > 240 * 160 / 5, "{drawn} pixels drawn");
    // The MOPP check and the byte-for-byte round trip, as a user runs them.
    let (code, out, err) = hk(&["mopp", "check", f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("found 50/50"), "{out}");
    let (code, out, err) = hk(&["roundtrip", f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1/1 byte-identical"), "{out}");
}

#[test]
fn the_committed_sample_is_the_level() {
    let (bytes, _) = written();
    assert_eq!(
        std::fs::read(root().join("samples/havok-710_level.hkx")).unwrap(),
        bytes
    );
}
