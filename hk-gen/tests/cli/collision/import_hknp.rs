//! `hk import MESH --into FILE` on the phive `hknpMeshShape` sample and on an
//! `hknpCompoundShape` of `hknpCompressedMeshShape`s (a 2016 file of two objects made by
//! `hk import --game doom-2016`), docs/collision.md "hk import": the OBJ and GLB exports
//! imported back give the same triangles, surface ids and phive materials and a file that
//! round-trips and passes its checks; moved by (10, 0, 0) with a triangle added, the
//! compound's export, its stored box and its trees show both; a shared child edited
//! unlike in its own space is an error naming both objects.

use std::path::{Path, PathBuf};

use hk_gen::collision::create::{create, Target};
use hk_gen::collision::import::{into_bytes, verify};
use hk_gen::collision::meshin;
use hk_gen::context::Context;
use hk_runtime::collision::import::{self, from_scene, IntoOptions};
use hk_runtime::collision::input::{InputMesh, InputTriangle};
use hk_runtime::collision::{self, Scene};
use hk_runtime::file::{self, Document, Origin};
use hk_runtime::graph::ObjectId;
use hk_runtime::packfile::graph::read::ReadOptions;

use super::create::{boxed, terrain};
use crate::support::hk;
use hk_tests::{root, temp_dir};

fn ctx() -> Context {
    Context::built_in().unwrap()
}

fn open(bytes: &[u8]) -> Document {
    file::open(bytes, ctx().schemas(), ReadOptions::strict()).unwrap()
}

fn scene(doc: &Document) -> Scene {
    let extras = match &doc.origin {
        Origin::Tagfile { file, .. } => file.phive.as_ref().map(|p| p.extras.clone()),
        _ => None,
    };
    collision::read_with(&doc.graph, &extras.unwrap_or_default()).unwrap()
}

/// A 2016 cm file of two objects: an `hknpCompoundShape` over two compressed meshes.
fn compound_file(dir: &Path) -> PathBuf {
    let meshes = vec![terrain("ground", 8), boxed("crate", [3.0, 4.0, -2.0])];
    let c = create(&ctx(), Target::Profile("doom-2016"), &meshes).unwrap();
    let path = dir.join("compound.hkshape");
    std::fs::write(&path, &c.bytes).unwrap();
    let doc = open(&c.bytes);
    assert!(
        (0..doc.graph.objects.len() as u32)
            .any(|i| doc.graph.class_name(ObjectId(i)) == "hknpCompoundShape"),
        "the 2016 file of two objects holds a compound"
    );
    path
}

/// Every triangle of `got` matches one of `want` (surface id, phive surface, corners
/// within `tol`) over all objects, and the counts agree.
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

#[test]
fn obj_and_glb_exports_import_back_unchanged() {
    let tmp = temp_dir("import-hknp");
    let files = [
        (root().join("samples/nso-2023_level.bphsh"), 0.003),
        (compound_file(&tmp), 0.05),
    ];
    for (file, tol) in files {
        let name = file.file_name().unwrap().to_str().unwrap().to_string();
        for ext in ["obj", "glb"] {
            let mesh = tmp.join(format!("{name}.{ext}"));
            let out = tmp.join(format!("imported-{ext}-{name}"));
            let again = tmp.join(format!("again-{name}.{ext}"));
            let (code, _, err) = hk(&[
                "export",
                file.to_str().unwrap(),
                "--format",
                ext,
                "-o",
                mesh.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{err}");
            let (code, stdout, err) = hk(&[
                "import",
                mesh.to_str().unwrap(),
                "--into",
                file.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{name} {ext}: {err}");
            assert!(
                stdout.contains("random boxes agree with brute force"),
                "{stdout}"
            );
            assert!(stdout.contains("round trip byte for byte"), "{stdout}");
            assert!(err.contains("replaced "), "{err}");
            let (code, stdout, err) = hk(&["roundtrip", out.to_str().unwrap()]);
            assert_eq!(code, 0, "{name}: {stdout}{err}");
            let (code, _, err) = hk(&[
                "export",
                out.to_str().unwrap(),
                "--format",
                ext,
                "-o",
                again.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{err}");
            let (a, b) = (meshin::read(&mesh).unwrap(), meshin::read(&again).unwrap());
            same_triangles(&a, &b, tol, &format!("{name} {ext}"));
        }
    }
}

#[test]
fn a_compound_moved_with_a_triangle_added_shows_both() {
    let tmp = temp_dir("import-hknp-edit");
    let path = compound_file(&tmp);
    let before_doc = open(&std::fs::read(&path).unwrap());
    let before = scene(&before_doc);
    let mut meshes = from_scene(&before);
    assert_eq!(
        meshes.len(),
        2,
        "{:?}",
        meshes.iter().map(|m| &m.name).collect::<Vec<_>>()
    );
    meshes
        .iter_mut()
        .for_each(|m| m.vertices.iter_mut().for_each(|p| p[0] += 10.0));
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
    let (bytes, report) = into_bytes(&ctx(), &path, &meshes, &IntoOptions::default()).unwrap();
    assert_eq!(report.replaced.len(), 2);
    // Strict read back, byte-for-byte round trip, every tree (the two meshes' and the
    // compound's) finds each item by its own box and agrees with brute force.
    let v = verify(&ctx(), &bytes, 10_000, 3).unwrap();
    assert!(v.failures.is_empty(), "{:?}", v.failures);
    assert_eq!(v.trees, 3, "{v:?}");
    assert_eq!(v.found, v.kept, "{v:?}");
    let after_doc = open(&bytes);
    let after = scene(&after_doc);
    same_triangles(&meshes, &from_scene(&after), 0.05, "compound");
    // The compound's stored box moved by 10 and reaches the new triangle.
    let aabb_max = |d: &Document| {
        let c = (0..d.graph.objects.len() as u32)
            .map(ObjectId)
            .find(|&i| d.graph.class_name(i) == "hknpCompoundShape")
            .unwrap();
        let v = d.graph.get(c, "aabb.max").unwrap();
        v.as_floats().unwrap()[0]
    };
    let (old, new) = (aabb_max(&before_doc), aabb_max(&after_doc));
    assert!(new >= x + 1.0 - 0.05 && new >= old + 10.0, "{old} -> {new}");
}

#[test]
fn a_shared_compound_child_edited_unlike_is_an_error_naming_both() {
    let tmp = temp_dir("import-hknp-shared");
    let path = compound_file(&tmp);
    // Both instances made to hold the first child: a child shared by two instances.
    let mut doc = open(&std::fs::read(&path).unwrap());
    let c = (0..doc.graph.objects.len() as u32)
        .map(ObjectId)
        .find(|&i| doc.graph.class_name(i) == "hknpCompoundShape")
        .unwrap();
    let shape = doc.graph.get(c, "instances.elements[0].shape").unwrap();
    doc.graph
        .set(c, "instances.elements[1].shape", shape)
        .unwrap();
    // The file no longer reaches the second child, so this is checked on the graph.
    let g = doc.graph.clone();
    let mut meshes = from_scene(&collision::read(&g).unwrap());
    // The two instances (`…@0`, `…@1`), and the child no instance holds now.
    let inst: Vec<usize> = (0..meshes.len())
        .filter(|&i| meshes[i].name.contains('@'))
        .collect();
    assert_eq!(
        inst.len(),
        2,
        "{:?}",
        meshes.iter().map(|m| &m.name).collect::<Vec<_>>()
    );
    // Edited alike, the shared child is rewritten once.
    let r = import::into(&mut doc.graph, &meshes, &IntoOptions::default()).unwrap();
    assert_eq!(r.replaced.len(), meshes.len());
    // Edited unlike: an error naming both objects.
    meshes[inst[1]]
        .vertices
        .iter_mut()
        .for_each(|p| p[1] += 1.0);
    let mut g = g;
    let e = import::into(&mut g, &meshes, &IntoOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("shared")
            && e.contains(&meshes[inst[0]].name)
            && e.contains(&meshes[inst[1]].name),
        "{e}"
    );
}
