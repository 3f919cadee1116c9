//! `collision::import::into` on compressed meshes (docs/collision.md, "hk import"): the
//! Project Anarchy level mesh (`hkvBvCompressedMeshShape`), the static compound sample
//! (`hkpBvCompressedMeshShape` children, one shared by two instances) and the id Tech
//! `hknpCompressedMeshShape` sample. Imported unchanged, every triangle comes back within
//! the format's quantum with its surface id and the file round-trips byte for byte; moved
//! by (10, 0, 0) with a triangle added, the read-back triangles and stored boxes show both.

use std::path::{Path, PathBuf};

use hk_runtime::collision::import::{self, from_scene, IntoOptions};
use hk_runtime::collision::input::{InputMesh, InputTriangle};
use hk_runtime::collision::{self, Scene};
use hk_runtime::file::{self, Document};
use hk_runtime::ReadOptions;

/// Files with compressed meshes, and the largest distance a vertex may move by
/// quantisation (half the coarsest grid step of the file's meshes, with room for the
/// placement's rounding).
fn files() -> Vec<(PathBuf, f32)> {
    let mut v = vec![
        (
            hk_tests::root().join("samples/destiny-2012_level.hkx"),
            0.02,
        ),
        (
            hk_tests::root().join("samples/doom-2016_mesh.hkshape"),
            0.05,
        ),
    ];
    if let Some(c) = hk_tests::corpus("import_compressed") {
        v.push((
            c.join("games/project-anarchy-sample/Meshes__RL_FullLevel.vmesh_data__M_0.01_0.01_0.01_1_0.hkt"),
            0.01,
        ));
    }
    v
}

fn open(bytes: &[u8]) -> Document {
    file::open(bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

fn read(path: &Path) -> Scene {
    collision::read(&open(&std::fs::read(path).unwrap()).graph).unwrap()
}

/// Imports `meshes` into `path`; the bytes read back strictly and write back byte for
/// byte.
fn import_into(path: &Path, meshes: &[InputMesh]) -> Scene {
    let mut doc = open(&std::fs::read(path).unwrap());
    let r = import::into(&mut doc.graph, meshes, &IntoOptions::default()).unwrap();
    assert_eq!(r.replaced.len(), meshes.len(), "{}", path.display());
    let bytes = file::write(&doc).unwrap();
    let back = open(&bytes);
    assert_eq!(file::write(&back).unwrap(), bytes, "{}", path.display());
    collision::read(&back.graph).unwrap()
}

/// Every triangle of `got` is a triangle of `want` (same object, same surface id, each
/// corner within `tol`), and the counts agree.
fn same_triangles(want: &[InputMesh], got: &[InputMesh], tol: f32, what: &str) {
    assert_eq!(want.len(), got.len(), "{what}");
    for (w, g) in want.iter().zip(got) {
        assert_eq!(w.name, g.name, "{what}");
        assert_eq!(w.triangles.len(), g.triangles.len(), "{what} {}", w.name);
        for t in &g.triangles {
            let c = g.corners(t);
            let found = w.triangles.iter().any(|u| {
                u.surface.id == t.surface.id
                    && w.corners(u)
                        .iter()
                        .all(|p| c.iter().any(|q| (0..3).all(|i| (p[i] - q[i]).abs() <= tol)))
            });
            assert!(
                found,
                "{what} {}: face {} {c:?} has no match",
                w.name, t.face
            );
        }
    }
}

#[test]
fn compressed_meshes_imported_unchanged_give_the_same_triangles() {
    for (path, tol) in files() {
        let before = read(&path);
        let meshes = from_scene(&before);
        let scene = import_into(&path, &meshes);
        same_triangles(
            &meshes,
            &from_scene(&scene),
            tol,
            &path.display().to_string(),
        );
        // The material values (data runs) stay, one a triangle.
        let values = |s: &Scene| {
            let mut v: Vec<Option<u32>> = s
                .meshes()
                .flat_map(|(_, m)| m.triangles.iter().map(|t| t.material))
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(values(&before), values(&scene), "{}", path.display());
    }
}

#[test]
fn compressed_meshes_moved_with_a_triangle_added_show_both() {
    for (path, tol) in files() {
        let before = read(&path);
        let mut meshes = from_scene(&before);
        // A shape shared by instances (`…#3@1`, `…#3@2` in the compound sample, one of
        // them turned 45°) cannot take a world-space move: its instances would disagree in
        // its own space, which is an error naming both.
        let shared = |name: &str| {
            let shape = name.split('@').next().unwrap_or(name);
            meshes
                .iter()
                .filter(|m| m.name.split('@').next() == Some(shape))
                .count()
                > 1
        };
        let moved: Vec<bool> = meshes.iter().map(|m| !shared(&m.name)).collect();
        if moved.iter().any(|m| !m) {
            let mut all = meshes.clone();
            all.iter_mut()
                .for_each(|m| m.vertices.iter_mut().for_each(|p| p[0] += 10.0));
            let mut doc = open(&std::fs::read(&path).unwrap());
            let e = import::into(&mut doc.graph, &all, &IntoOptions::default())
                .unwrap_err()
                .to_string();
            assert!(e.contains("shared"), "{e}");
        }
        for (m, on) in meshes.iter_mut().zip(moved) {
            if on {
                m.vertices.iter_mut().for_each(|p| p[0] += 10.0);
            }
        }
        // The added triangle goes into the first object (the terrain, or the only mesh),
        // just past its far side, so that the sections' grids stay as fine.
        let first = &mut meshes[0];
        let n = first.vertices.len() as u32;
        let x = first.vertices.iter().map(|p| p[0]).fold(f32::MIN, f32::max) + 1.0;
        let [_, y, z] = first.vertices[0];
        first
            .vertices
            .extend([[x, y, z], [x + 1.0, y, z], [x, y + 1.0, z]]);
        let surface = first.triangles[0].surface;
        first.triangles.push(InputTriangle {
            v: [n, n + 1, n + 2],
            surface,
            face: first.triangles.len() as u32 + 1,
        });
        let after = import_into(&path, &meshes);
        let what = path.display().to_string();
        same_triangles(&meshes, &from_scene(&after), tol, &what);
        // The stored box of the first mesh now reaches the new triangle.
        let (_, m) = after.meshes().next().unwrap();
        let (_, m0) = before.meshes().next().unwrap();
        let (stored, old) = (m.stored_aabb.unwrap(), m0.stored_aabb.unwrap());
        assert!(stored.max[0] > old.max[0], "{what}: {stored:?} {old:?}");
    }
}
