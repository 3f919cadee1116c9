//! `collision::import::into_with` on the phive `hknpMeshShape` sample (`.bphsh`, docs/collision.md,
//! "hk import"; the compound of compressed meshes is tested from a file `hk_gen` makes, in
//! hk-gen's tests). Imported
//! unchanged, every triangle comes back within the format's quantum with its surface id
//! and phive material, the file round-trips byte for byte and its trees pass the checks;
//! moved by (10, 0, 0) with a triangle added, the read-back triangles and stored boxes show
//! both and the new triangle is found by its own box.

use std::path::{Path, PathBuf};

use hk_runtime::collision::check;
use hk_runtime::collision::import::{self, from_scene, IntoOptions, IntoReport};
use hk_runtime::collision::input::{InputMesh, InputTriangle};
use hk_runtime::collision::{self, Scene};
use hk_runtime::file::{self, Document, Origin};
use hk_runtime::tagfile::phive::Extra;
use hk_runtime::ReadOptions;

/// The sample and the largest distance a vertex may move (about a 1/512 m grid step).
fn files() -> Vec<(PathBuf, f32)> {
    vec![(hk_tests::root().join("samples/nso-2023_level.bphsh"), 0.003)]
}

fn open(bytes: &[u8]) -> Document {
    file::open(bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap()
}

fn extras(doc: &Document) -> Vec<Extra> {
    match &doc.origin {
        Origin::Tagfile { file, .. } => file
            .phive
            .as_ref()
            .map(|p| p.extras.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn scene(doc: &Document) -> Scene {
    collision::read_with(&doc.graph, &extras(doc)).unwrap()
}

/// Imports `meshes` into `path`; the bytes read back strictly, write back byte for byte
/// and every tree passes the survey of 10,000 random boxes.
fn import_into(path: &Path, meshes: &[InputMesh]) -> (Document, IntoReport) {
    let mut doc = open(&std::fs::read(path).unwrap());
    let extras = match &mut doc.origin {
        Origin::Tagfile { file, .. } => file.phive.as_mut().map(|p| &mut p.extras),
        _ => None,
    };
    let r = import::into_with(&mut doc.graph, extras, meshes, &IntoOptions::default()).unwrap();
    let bytes = file::write(&doc).unwrap();
    let back = open(&bytes);
    assert_eq!(file::write(&back).unwrap(), bytes, "{}", path.display());
    let s = scene(&back);
    let report = check::survey(&back.graph, &s, 10_000, 7).unwrap();
    assert!(
        report.trees.iter().any(|t| t.has_tree),
        "{}",
        path.display()
    );
    for t in &report.trees {
        assert!(t.passes(), "{}: {}", path.display(), t.line());
    }
    (back, r)
}

/// Every triangle of `got` matches one of `want` (same surface id and phive surface,
/// each corner within `tol`) over all objects, and the counts agree.
fn same_triangles(want: &[InputMesh], got: &[InputMesh], tol: f32, what: &str) {
    let all = |ms: &[InputMesh]| {
        ms.iter()
            .flat_map(|m| m.triangles.iter().map(move |t| (m.corners(t), t.surface)))
            .collect::<Vec<_>>()
    };
    let (w, g) = (all(want), all(got));
    assert_eq!(w.len(), g.len(), "{what}");
    for (c, s) in &g {
        let found = w.iter().any(|(d, u)| {
            u == s
                && d.iter()
                    .all(|p| c.iter().any(|q| (0..3).all(|i| (p[i] - q[i]).abs() <= tol)))
        });
        assert!(found, "{what}: {c:?} {s:?} has no match");
    }
}

/// Mesh objects whose shape another object shares (an instance name ends in `@N`).
fn shared(meshes: &[InputMesh], name: &str) -> bool {
    let shape = |n: &str| n.rsplit_once('@').map_or(n, |(s, _)| s).to_string();
    meshes
        .iter()
        .filter(|m| shape(&m.name) == shape(name))
        .count()
        > 1
}

#[test]
fn phive_meshes_imported_unchanged_give_the_same_triangles() {
    for (path, tol) in files() {
        let what = path.display().to_string();
        let before = scene(&open(&std::fs::read(&path).unwrap()));
        let meshes = from_scene(&before);
        assert!(!meshes.is_empty(), "{what}");
        let (after, r) = import_into(&path, &meshes);
        assert_eq!(r.replaced.len(), meshes.len(), "{what}");
        same_triangles(&meshes, &from_scene(&scene(&after)), tol, &what);
        // Unchanged surfaces append nothing to the palette.
        assert_eq!(
            extras(&after),
            extras(&open(&std::fs::read(&path).unwrap())),
            "{what}"
        );
    }
}

#[test]
fn phive_meshes_moved_with_a_triangle_added_show_both() {
    for (path, tol) in files() {
        let what = path.display().to_string();
        let original = open(&std::fs::read(&path).unwrap());
        let before = scene(&original);
        let mut meshes = from_scene(&before);
        let moved: Vec<bool> = meshes.iter().map(|m| !shared(&meshes, &m.name)).collect();
        if moved.iter().any(|m| !m) {
            // Moving every instance of a shared child in world space makes them disagree
            // in its own space (one is turned): an error naming both.
            let mut all = meshes.clone();
            all.iter_mut()
                .for_each(|m| m.vertices.iter_mut().for_each(|p| p[0] += 10.0));
            let mut doc = open(&std::fs::read(&path).unwrap());
            let e = import::into(&mut doc.graph, &all, &IntoOptions::default())
                .unwrap_err()
                .to_string();
            assert!(e.contains("shared"), "{e}");
        }
        assert!(moved.iter().any(|&m| m), "{what}: nothing to move");
        for (m, on) in meshes.iter_mut().zip(&moved) {
            if *on {
                m.vertices.iter_mut().for_each(|p| p[0] += 10.0);
            }
        }
        // A new triangle past the far side of the first moved object, with a new phive
        // material (appended to the palette) where the file has one.
        let k = moved.iter().position(|&m| m).unwrap();
        let first = &mut meshes[k];
        let n = first.vertices.len() as u32;
        let x = first.vertices.iter().map(|p| p[0]).fold(f32::MIN, f32::max) + 1.0;
        let [_, y, z] = first.vertices[0];
        first
            .vertices
            .extend([[x, y, z], [x + 1.0, y, z], [x, y + 1.0, z]]);
        let mut surface = first.triangles[0].surface;
        if let Some((m, h)) = &mut surface.phive {
            m.material = m.material.wrapping_add(1000);
            h.layers |= 1 << 30;
        }
        first.triangles.push(InputTriangle {
            v: [n, n + 1, n + 2],
            surface,
            face: first.triangles.len() as u32 + 1,
        });
        let (after, _) = import_into(&path, &meshes);
        let got = from_scene(&scene(&after));
        let new = [[x, y, z], [x + 1.0, y, z], [x, y + 1.0, z]];
        let added = got
            .iter()
            .flat_map(|m| m.triangles.iter().map(move |t| m.corners(t)))
            .filter(|c| {
                new.iter()
                    .all(|p| c.iter().any(|q| (0..3).all(|i| (p[i] - q[i]).abs() <= tol)))
            })
            .count();
        assert_eq!(added, 1, "{what}: the new triangle");
        if surface.phive.is_some() {
            // The new surface got a new palette entry, and the triangle its tag.
            let p = after_palette_len(&after);
            assert_eq!(p, before.phive.as_ref().unwrap().len() + 1, "{what}");
        }
        // Compare with the surface id the import chose for the new triangle.
        let mut want = meshes.clone();
        if surface.phive.is_some() {
            let id = after_palette_len(&after) as u32 - 1;
            want[k].triangles.last_mut().unwrap().surface.id = Some(id);
        }
        same_triangles(&want, &got, tol, &what);
        // The stored boxes moved: the trees' boxes reach the new triangle.
        let hi = |s: &Scene| {
            s.meshes()
                .filter_map(|(b, m)| {
                    let bx = m.stored_aabb?;
                    Some(b.to_world.then_inner(&m.to_body).apply(bx.max)[0])
                })
                .fold(f32::MIN, f32::max)
        };
        let (old, new) = (hi(&before), hi(&scene(&after)));
        assert!(new >= x + 1.0 - tol && new > old, "{what}: {old} -> {new}");
    }
}

fn after_palette_len(doc: &Document) -> usize {
    scene(doc).phive.map_or(0, |p| p.len())
}

#[test]
fn a_surface_id_past_the_palette_without_phive_data_names_object_and_face() {
    let (path, _) = files().remove(0);
    let before = scene(&open(&std::fs::read(&path).unwrap()));
    let mut meshes = from_scene(&before);
    let t = &mut meshes[1].triangles[2];
    t.surface.id = Some(99);
    t.surface.phive = None;
    let face = t.face;
    let mut doc = open(&std::fs::read(&path).unwrap());
    let mut extras = extras(&doc);
    let e = import::into_with(
        &mut doc.graph,
        Some(&mut extras),
        &meshes,
        &IntoOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(&meshes[1].name) && e.contains(&format!("face {face}")) && e.contains("palette"),
        "{e}"
    );
    // Without the container's sections a mesh shape is refused, naming an object.
    let e = import::into(
        &mut doc.graph,
        &from_scene(&before),
        &IntoOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("hknpMeshShape"), "{e}");
}
