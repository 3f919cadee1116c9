//! The synthetic 2012.2 level (`hk sample`'s `destiny-2012_level.hkx`: a static compound of
//! compressed meshes built from triangles, docs/collision-notes.md §11) and the corpus's
//! Project Anarchy level mesh, as a user exports and renders them: OBJ, glTF and GLB
//! (validated by the `gltf` crate) with the triangles put in, vertices within quantisation
//! of the input, every packed vertex repacked, and a render that is not blank.

use std::path::Path;

use hk_gen::sample::destiny;
use hk_runtime::collision::hkp::{bvmesh, pack};
use hk_runtime::collision::{self, Affine};
use hk_runtime::file::{self, Schemas};
use hk_runtime::ReadOptions;

use crate::support;
use crate::support::hk;
use hk_tests::{corpus, root, temp_dir};

/// (vertices, triangles) of a glTF or GLB, read with the `gltf` crate (which validates the
/// document).
fn read_gltf(path: &Path) -> (usize, usize) {
    let (g, buffers) = support::gltf_read(path);
    let (mut vertices, mut triangles) = (0, 0);
    for mesh in g.meshes() {
        let mut positions = None;
        for p in mesh.primitives() {
            let reader = p.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let pos: Vec<[f32; 3]> = reader.read_positions().expect("positions").collect();
            let idx: Vec<u32> = reader.read_indices().expect("indices").into_u32().collect();
            assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
            triangles += idx.len() / 3;
            positions.get_or_insert(pos.len());
        }
        vertices += positions.unwrap_or(0);
    }
    (vertices, triangles)
}

/// Exports `file` as OBJ, glTF and GLB; each holds `triangles`. Returns the OBJ text.
fn export(file: &Path, dir: &Path, triangles: usize) -> String {
    let f = file.to_str().unwrap();
    let obj = dir.join("out.obj");
    let (code, stdout, stderr) = hk(&["export", f, "-o", obj.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!("{triangles} triangles")),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&obj).unwrap();
    let faces = text.lines().filter(|l| l.starts_with("f ")).count();
    let verts = text.lines().filter(|l| l.starts_with("v ")).count();
    assert_eq!(faces, triangles);
    for format in ["gltf", "glb"] {
        let out = dir.join(format!("out.{format}"));
        let (code, _, stderr) = hk(&["export", f, "--format", format, "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(read_gltf(&out), (verts, triangles), "{format}");
    }
    text
}

/// Renders `file` and checks the picture is not blank.
fn render(file: &Path, dir: &Path, triangles: usize) {
    let (stdout, drawn) = support::render_drawn(file, &dir.join("out.png"), (200, 150));
    assert!(
        stdout.contains(&format!("{triangles} triangles drawn")),
        "{stdout}"
    );
    assert!(drawn > 200 * 150 / 20, "only {drawn} pixels drawn");
}

#[test]
fn the_synthetic_level_exports_renders_and_keeps_its_input() {
    let dir = temp_dir("bvlevel");
    // The committed sample is what `hk sample` writes (cli.rs checks), so write it afresh.
    let (code, _, stderr) = hk(&["sample", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let file = dir.join(destiny::NAME);
    // The input: per instance, its mesh's triangles.
    let meshes = [destiny::terrain(), destiny::unit_box()];
    let instances = destiny::instances();
    let put_in: usize = instances.iter().map(|i| meshes[i.0].triangles.len()).sum();
    assert_eq!(put_in, 800 + 12 + 12);
    export(&file, &dir, put_in);
    render(&file, &dir, put_in);

    let schemas = Schemas::from_dir(&root().join("schemas")).unwrap();
    let doc = file::open_path(&file, &schemas, ReadOptions::default()).unwrap();
    let scene = collision::read(&doc.graph).unwrap();
    assert_eq!(scene.triangle_count(), put_in);
    let body = &scene.bodies[0];
    assert_eq!(body.meshes.len(), instances.len());
    let mut checked = (0, 0);
    for (mesh, (k, t, q, s)) in body.meshes.iter().zip(&instances) {
        let input = &meshes[*k];
        assert_eq!(mesh.triangles.len(), input.triangles.len());
        let d = bvmesh::decode(&doc.graph, mesh.object).unwrap();
        // Half the largest step of any section's codec, and of the shared codes.
        let step = d
            .sections
            .iter()
            .flat_map(|s| s.codec.scale)
            .fold(0f32, f32::max)
            * 0.5
            + 1e-4;
        let mut placed = Affine::from_quaternion(*q);
        for (c, f) in placed.cols.iter_mut().zip(s) {
            *c = c.map(|x| x * f);
        }
        placed.t = *t;
        let world = body.world_vertices(mesh);
        let tol = step * s.iter().fold(1f32, |m, x| m.max(x.abs())) + 1e-4;
        for w in &world {
            let near = input.vertices.iter().any(|p| {
                let want = placed.apply(*p);
                (0..3).all(|a| (want[a] - w[a]).abs() <= tol)
            });
            assert!(near, "instance {k}: {w:?} is no input vertex within {tol}");
        }
        // The surface ids are the data values put in.
        let mut got: Vec<u32> = mesh.triangles.iter().filter_map(|t| t.surface).collect();
        let mut want = input.data.clone();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
        for &x in &d.packed {
            assert_eq!(pack::pack_packed(pack::unpack_packed(x)), Some(x));
        }
        for &x in &d.shared {
            assert_eq!(pack::pack_shared(pack::unpack_shared(x)), Some(x));
        }
        checked.0 += d.packed.len();
        checked.1 += d.shared.len();
    }
    assert!(checked.0 > 0 && checked.1 > 0, "{checked:?}");
}

#[test]
fn the_project_anarchy_level_mesh_exports_and_renders() {
    let Some(corpus) = corpus("the_project_anarchy_level_mesh_exports_and_renders") else {
        return;
    };
    let dir = temp_dir("bvfull");
    let games = corpus.join("games/project-anarchy-sample");
    let full = games.join("Meshes__RL_FullLevel.vmesh_data__M_0.01_0.01_0.01_1_0.hkt");
    // 840 triangles: the file's numPrimitiveKeys (tests/tests/integration/collision/bvmesh.rs).
    let obj = export(&full, &dir, 840);
    assert_eq!(obj.lines().filter(|l| l.starts_with("v ")).count(), 458);
    render(&full, &dir, 840);
    let pillar = games.join("Meshes__RL_Pillar.vmesh_data__C_0.01_0.01_0.01.hkt");
    let sub = dir.join("pillar");
    std::fs::create_dir_all(&sub).unwrap();
    let (code, _, stderr) = hk(&[
        "export",
        pillar.to_str().unwrap(),
        "-o",
        sub.join("p.obj").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
}
