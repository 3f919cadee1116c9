//! `collision::import::into` on the extended meshes under MOPP codes of the corpus's
//! three maps (docs/collision.md, "hk import"): the exported meshes imported unchanged give
//! the same triangles and surface ids, a file that round-trips byte for byte and a code
//! that passes its check; every vertex moved by (10, 0, 0) and one triangle added show in
//! the read-back triangles, the stored box and a query.

use std::path::Path;

use hk_runtime::collision::import::{self, from_scene, IntoOptions};
use hk_runtime::collision::input::{InputMesh, InputTriangle};
use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self, Aabb, Scene};
use hk_runtime::file::{self, Document};
use hk_runtime::ReadOptions;

const MAPS: [&str; 3] = [
    "games/demons-souls-ps3/map_collision_h0004b0.hkx",
    "games/dark-souls-ptde/map_collision_template.hkx",
    "games/dark-souls-remastered/map_collision_template.hkx",
];

fn open(bytes: &[u8]) -> Document {
    file::open(bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

/// Imports `meshes` into the file at `path`: the written bytes, read back strictly, must
/// write back byte for byte; returns the read-back scene.
fn import_into(path: &Path, meshes: &[InputMesh]) -> Scene {
    let mut doc = open(&std::fs::read(path).unwrap());
    let report = import::into(&mut doc.graph, meshes, &IntoOptions::default()).unwrap();
    assert_eq!(report.replaced.len(), meshes.len(), "{}", path.display());
    assert_eq!(report.codes, 1, "{}", path.display());
    let bytes = file::write(&doc).unwrap();
    let back = open(&bytes);
    assert_eq!(file::write(&back).unwrap(), bytes, "{}", path.display());
    let scene = collision::read(&back.graph).unwrap();
    for c in 0..scene.codes.len() {
        let r = check::check(&scene, c).unwrap();
        assert!(r.passes(), "{}: {r:?}", path.display());
    }
    scene
}

/// Every triangle's world corners and surface id, per object, in order.
fn triangles(m: &InputMesh) -> Vec<([[f32; 3]; 3], Option<u32>)> {
    m.triangles
        .iter()
        .map(|t| (m.corners(t), t.surface.id))
        .collect()
}

#[test]
fn exported_meshes_imported_unchanged_give_the_same_triangles() {
    let Some(corpus) =
        hk_tests::corpus("exported_meshes_imported_unchanged_give_the_same_triangles")
    else {
        return;
    };
    for rel in MAPS {
        let path = corpus.join(rel);
        let before = collision::read(&open(&std::fs::read(&path).unwrap()).graph).unwrap();
        let meshes = from_scene(&before);
        let after = from_scene(&import_into(&path, &meshes));
        assert_eq!(after.len(), meshes.len(), "{rel}");
        for (a, b) in meshes.iter().zip(&after) {
            assert_eq!(a.name, b.name, "{rel}");
            let (ta, tb) = (triangles(a), triangles(b));
            assert_eq!(ta.len(), tb.len(), "{rel} {}", a.name);
            for ((pa, sa), (pb, sb)) in ta.iter().zip(&tb) {
                assert_eq!(sa, sb, "{rel} {}", a.name);
                // Vertices are stored as f32: the same up to the placement's rounding.
                for (x, y) in pa.iter().flatten().zip(pb.iter().flatten()) {
                    assert!((x - y).abs() <= 1e-4, "{rel} {}: {x} {y}", a.name);
                }
            }
        }
    }
}

#[test]
fn moved_vertices_and_an_added_triangle_show_in_triangles_boxes_and_queries() {
    let Some(corpus) = hk_tests::corpus(
        "moved_vertices_and_an_added_triangle_show_in_triangles_boxes_and_queries",
    ) else {
        return;
    };
    for rel in MAPS {
        let path = corpus.join(rel);
        let before = collision::read(&open(&std::fs::read(&path).unwrap()).graph).unwrap();
        let mut meshes = from_scene(&before);
        for m in &mut meshes {
            m.vertices.iter_mut().for_each(|p| p[0] += 10.0);
        }
        let last = meshes.last_mut().unwrap();
        let n = last.vertices.len() as u32;
        last.vertices
            .extend([[1000.0, 0.0, 0.0], [1001.0, 0.0, 0.0], [1000.0, 1.0, 0.0]]);
        let surface = last.triangles[0].surface;
        last.triangles.push(InputTriangle {
            v: [n, n + 1, n + 2],
            surface,
            face: last.triangles.len() as u32 + 1,
        });
        let after = import_into(&path, &meshes);
        // The read-back triangles are the edited ones.
        for (a, b) in meshes.iter().zip(&from_scene(&after)) {
            assert_eq!(triangles(a).len(), triangles(b).len(), "{rel}");
            for ((pa, _), (pb, _)) in triangles(a).iter().zip(&triangles(b)) {
                for (x, y) in pa.iter().flatten().zip(pb.iter().flatten()) {
                    assert!((x - y).abs() <= 1e-3, "{rel}: {x} {y}");
                }
            }
        }
        // The stored box spans the moved vertices and the new triangle.
        let (_, m) = after.meshes().last().unwrap();
        let stored = m.stored_aabb.unwrap();
        let (_, m0) = before.meshes().last().unwrap();
        let old = m0.stored_aabb.unwrap();
        assert_eq!(stored.max[0], 1001.0, "{rel}");
        assert!((stored.min[0] - (old.min[0] + 10.0)).abs() < 1e-3, "{rel}");
        // A query around the new triangle returns its key.
        let key = m.triangles.last().unwrap().key;
        let q = Aabb {
            min: [999.9, -0.1, -0.1],
            max: [1001.1, 1.1, 0.1],
        };
        let code = &after.codes[m.code.unwrap()];
        assert_eq!(code.query(&q).unwrap(), vec![key], "{rel}");
    }
}

#[test]
fn names_that_match_nothing_are_errors_naming_them() {
    let Some(corpus) = hk_tests::corpus("names_that_match_nothing_are_errors_naming_them") else {
        return;
    };
    let path = corpus.join(MAPS[0]);
    let bytes = std::fs::read(&path).unwrap();
    let scene = collision::read(&open(&bytes).graph).unwrap();
    let mut meshes = from_scene(&scene);
    meshes[1].name = "nobody/nothing".to_string();
    let e = import::into(&mut open(&bytes).graph, &meshes, &IntoOptions::default())
        .unwrap_err()
        .to_string();
    // The shape left without a mesh is named first.
    assert!(
        e.contains("h0004B0/CustomParamStorageExtendedMeshShape#6/1"),
        "{e}"
    );
    let allow = IntoOptions {
        allow_missing: true,
    };
    let r = import::into(&mut open(&bytes).graph, &meshes, &allow).unwrap();
    assert_eq!(
        r.missing,
        ["h0004B0/CustomParamStorageExtendedMeshShape#6/1"]
    );
    assert_eq!(r.unmatched, ["nobody/nothing"]);
    assert_eq!(r.replaced.len(), 1);
    // A surface id the subpart cannot hold names the object and the face.
    let mut meshes = from_scene(&scene);
    meshes[0].triangles[4].surface.id = Some(9);
    let e = import::into(&mut open(&bytes).graph, &meshes, &IntoOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("#6/0") && e.contains("face 5") && e.contains("surface_9"),
        "{e}"
    );
}
