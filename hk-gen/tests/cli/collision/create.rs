//! New level files from meshes (`hk_gen::collision::create`, docs/collision.md "New level
//! files from meshes"): for every generation a terrain of several surface ids and a box,
//! made here, become a file that reads back strictly, writes back byte for byte, gives the
//! triangles and surface ids back, passes the tree checks, exports and renders. `--like`
//! takes the kind and layout of the Souls maps and of the samples.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hk_gen::collision::create::verify::{self, expected_surface};
use hk_gen::collision::create::{create, Created, Kind, Target};
use hk_gen::context::Context;
use hk_runtime::collision::input::{InputMesh, InputTriangle, Surface};
use hk_runtime::collision::{self, Scene};
use hk_runtime::file::{self, Origin};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::tagfile::phive::{HitMask, Material};

use crate::support::{self, hk};
use hk_tests::{corpus, root, temp_dir};

/// A terrain of `n` × `n` quads of 2 units (two triangles each, rolling heights), surface
/// ids 1, 4 and 9 in bands; one face a quad.
pub fn terrain(name: &str, n: u32) -> InputMesh {
    let mut m = InputMesh {
        name: name.into(),
        ..InputMesh::default()
    };
    for j in 0..=n {
        for i in 0..=n {
            let (x, z) = (i as f32 * 2.0 - n as f32, j as f32 * 2.0 - n as f32);
            m.vertices
                .push([x, (x * 0.3).sin() * (z * 0.2).cos() * 1.5, z]);
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            let id = [1, 4, 9][(j * 3 / n) as usize];
            let face = j * n + i + 1;
            let surface = Surface {
                id: Some(id),
                phive: None,
            };
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            for v in [[a, d, c], [a, c, b]] {
                m.triangles.push(InputTriangle { v, surface, face });
            }
        }
    }
    m
}

/// The 2012.2 sample's unit box (12 triangles, two a quad face) moved to `centre`, surface
/// id 2 with a stated phive material and hit mask.
pub fn boxed(name: &str, centre: [f32; 3]) -> InputMesh {
    let unit = hk_gen::sample::destiny::unit_box();
    let surface = Surface {
        id: Some(2),
        phive: Some((
            Material {
                material: 7,
                sub_material: 1,
                shape_tags: 4,
            },
            HitMask {
                layers: 3,
                sub_layers: 0,
            },
        )),
    };
    InputMesh {
        name: name.into(),
        vertices: unit
            .vertices
            .iter()
            .map(|v| [0, 1, 2].map(|a| centre[a] + v[a]))
            .collect(),
        triangles: (0..unit.triangles.len())
            .map(|k| InputTriangle {
                v: unit.triangles[k],
                surface,
                face: k as u32 / 2 + 1,
            })
            .collect(),
    }
}

/// The two objects every generation is built from.
fn level() -> Vec<InputMesh> {
    vec![terrain("ground", 12), boxed("crate", [3.0, 4.0, -2.0])]
}

fn ctx() -> Context {
    Context::built_in().unwrap()
}

/// Reads `bytes` strictly, checks the byte-for-byte round trip, and gives the collision.
fn read_back(ctx: &Context, bytes: &[u8]) -> (Scene, Origin, bool) {
    let doc = file::open(bytes, ctx.schemas(), ReadOptions::strict()).unwrap();
    assert_eq!(
        file::write(&doc).unwrap(),
        bytes,
        "byte-for-byte round trip"
    );
    let extras = match &doc.origin {
        Origin::Tagfile { file, .. } => file.phive.as_ref().map(|p| p.extras.clone()),
        _ => None,
    };
    let scene = collision::read_with(&doc.graph, &extras.unwrap_or_default()).unwrap();
    // Every stored tree finds its items and agrees with brute force.
    collision::check::check_trees(&doc.graph, &scene, 2_000, 7).unwrap();
    let kept = verify::surfaces_kept(doc.graph.schema());
    (scene, doc.origin, kept)
}

/// The surface ids of `scene` (a cm file's material values).
fn surfaces(scene: &Scene, kind: Kind) -> BTreeSet<Option<u32>> {
    scene
        .meshes()
        .flat_map(|(_, m)| m.triangles.iter())
        .map(|t| {
            if kind == Kind::CompressedCm {
                t.material
            } else {
                t.surface
            }
        })
        .collect()
}

/// Everything a new file must pass: strict read, round trip, triangles and surfaces, body
/// names, tree checks; then `hk export` and `hk render` on it.
fn check_created(name: &str, c: &Created, kind: Kind, meshes: &[InputMesh]) {
    let ctx = ctx();
    let (scene, _, kept) = read_back(&ctx, &c.bytes);
    let want: usize = meshes.iter().map(|m| m.triangles.len()).sum();
    assert_eq!(scene.triangle_count(), want, "{name}: triangles");
    verify::compare(&scene, kind, meshes, kept).unwrap_or_else(|e| panic!("{name}: {e}"));
    let ids: BTreeSet<Option<u32>> = meshes
        .iter()
        .flat_map(|m| m.triangles.iter())
        .map(|t| expected_surface(kind, t.surface.id, kept))
        .collect();
    assert_eq!(surfaces(&scene, kind), ids, "{name}: surface ids");
    // Files of rigid bodies keep the object names; shape files (one free shape) cannot.
    if scene.bodies.iter().all(|b| !b.free) {
        assert!(matches!(kind, Kind::Mopp | Kind::BvCompound), "{name}");
        let bodies: BTreeSet<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
        let objects: BTreeSet<&str> = meshes.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(bodies, objects, "{name}: one body per object");
        // A fixed motion: by name, or (a tagfile names no enum items) MOTION_FIXED's
        // value from 7.1 on, 5.
        for b in &scene.bodies {
            match b.motion_name.as_deref() {
                Some(n) => assert_eq!(n, "MOTION_FIXED", "{name}: {}", b.name),
                None => assert_eq!(b.motion_type, 5, "{name}: {}", b.name),
            }
        }
    }
    if kind == Kind::Mopp {
        assert_eq!(
            scene.codes.len(),
            scene.bodies.len(),
            "{name}: a code a body"
        );
    }
    let scratch = temp_dir("create");
    let dir: &Path = scratch.as_ref();
    let file = dir.join(name);
    std::fs::write(&file, &c.bytes).unwrap();
    let obj = dir.join("out.obj");
    let (code, out, err) = hk(&[
        "export",
        file.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{name}: {out}{err}");
    let text = std::fs::read_to_string(&obj).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), want);
    let (_, drawn) = support::render_drawn(&file, &dir.join("out.png"), (160, 120));
    assert!(drawn > 500, "{name}: {drawn} pixels drawn");
    let (code, out, err) = hk(&["roundtrip", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{name}: {out}{err}");
}

#[test]
fn every_profile_gives_a_level_in_its_native_shape() {
    let meshes = level();
    for (profile, kind, file, root_class) in [
        ("shred", Kind::Mopp, "new.hkx", "hkpMoppBvTreeShape"),
        (
            "havok-demo-710",
            Kind::Mopp,
            "new.hkx",
            "hkpMoppBvTreeShape",
        ),
        (
            "destiny-2012",
            Kind::BvCompound,
            "new.hkx",
            "hkpStaticCompoundShape",
        ),
        (
            "doom-2016",
            Kind::CompressedCm,
            "new.hkshape",
            "hknpCompoundShape",
        ),
        ("nso-2023", Kind::MeshShape, "new.bphsh", "hknpMeshShape"),
    ] {
        let c = create(&ctx(), Target::Profile(profile), &meshes)
            .unwrap_or_else(|e| panic!("{profile}: {e}"));
        let doc = file::open(&c.bytes, ctx().schemas(), ReadOptions::strict()).unwrap();
        assert!(
            doc.graph.find(root_class).next().is_some(),
            "{profile}: a {root_class}"
        );
        check_created(file, &c, kind, &meshes);
        println!("{profile}: {} bytes, notes {:?}", c.bytes.len(), c.notes);
        // One shape holds every object: a note that the names are not stored.
        let merged =
            profile == "destiny-2012" || matches!(kind, Kind::CompressedCm | Kind::MeshShape);
        assert_eq!(
            c.notes.len(),
            usize::from(merged),
            "{profile}: {:?}",
            c.notes
        );
    }
}

#[test]
fn a_shred_level_is_a_big_endian_7_1_packfile() {
    let c = create(&ctx(), Target::Profile("shred"), &level()).unwrap();
    assert_eq!(&c.bytes[..4], &[0x57, 0xE0, 0xE0, 0x57]);
    assert_eq!(u32::from_be_bytes(c.bytes[12..16].try_into().unwrap()), 7);
    assert!(c.bytes.windows(14).any(|w| w == b"Havok-7.1.0-r1"));
}

#[test]
fn a_profile_without_level_collision_is_refused_by_name() {
    let scratch = temp_dir("create-profile");
    let dir: &Path = scratch.as_ref();
    std::fs::write(
        dir.join("anim.toml"),
        "name = \"anim\"\ndescription = \"x\"\ngeneration = \"havok-2022.1\"\ncontainer = \"tagfile\"\nfile_kinds = [\"hkx\"]\nroots = [\"hkRootLevelContainer\"]\ncorpus = []\n",
    )
    .unwrap();
    let path = dir.join("anim.toml");
    let e = create(&ctx(), Target::Profile(path.to_str().unwrap()), &level())
        .unwrap_err()
        .to_string();
    assert!(e.contains("anim") && e.contains("--like"), "{e}");
}

#[test]
fn a_2014_2_level_has_a_fixed_body_per_object_over_its_static_compound() {
    let scratch = temp_dir("create-2014");
    let dir: &Path = scratch.as_ref();
    let path = dir.join("level2014.toml");
    std::fs::write(
        &path,
        "name = \"level2014\"\ndescription = \"x\"\ngeneration = \"havok-2014.2\"\ncontainer = \"packfile\"\nfile_kinds = [\"hkx\"]\nroots = [\"hkRootLevelContainer\"]\ncorpus = []\n",
    )
    .unwrap();
    let meshes = level();
    let c = create(&ctx(), Target::Profile(path.to_str().unwrap()), &meshes).unwrap();
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    check_created("level2014.hkx", &c, Kind::BvCompound, &meshes);
    let doc = file::open(&c.bytes, ctx().schemas(), ReadOptions::strict()).unwrap();
    let g = &doc.graph;
    assert_eq!(g.schema().generation.name, "havok-2014.2");
    assert_eq!(g.find("hkpRigidBody").count(), 2);
    assert_eq!(g.find("hkpStaticCompoundShape").count(), 2);
    assert_eq!(g.find("hkpBvCompressedMeshShape").count(), 2);
    // The placeholder shapes the bodies were built around are gone.
    assert_eq!(g.find("hkpSphereShape").count(), 0);
}

/// The new file of `template`'s kind, checked, with the template's document.
fn like(template: &Path, kind: Kind) -> (Created, hk_runtime::file::Document) {
    let meshes = level();
    let c = create(&ctx(), Target::Like(template), &meshes)
        .unwrap_or_else(|e| panic!("{}: {e}", template.display()));
    let name = template.file_name().unwrap().to_str().unwrap();
    check_created(name, &c, kind, &meshes);
    println!("like {name}: {} bytes, notes {:?}", c.bytes.len(), c.notes);
    (c, ctx().open(template).unwrap())
}

/// The new packfile keeps the template's header: versions and layout.
fn same_packfile_header(c: &Created, template: &hk_runtime::file::Document) {
    let doc = file::open(&c.bytes, ctx().schemas(), ReadOptions::strict()).unwrap();
    let (Origin::Packfile(a), Origin::Packfile(b)) = (&doc.origin, &template.origin) else {
        panic!("not packfiles");
    };
    assert_eq!(a.layout, b.layout);
    assert_eq!(a.file_version, b.file_version);
    assert_eq!(a.contents_version, b.contents_version);
    assert_eq!(
        doc.graph.schema().generation.name,
        template.graph.schema().generation.name
    );
}

fn souls(rel: &str, test: &str) -> Option<PathBuf> {
    Some(corpus(test)?.join("games").join(rel))
}

#[test]
fn like_the_demons_souls_map_is_a_5_5_big_endian_mopp_packfile() {
    let Some(t) = souls("demons-souls-ps3/map_collision_h0004b0.hkx", "like_des") else {
        return;
    };
    let (c, template) = like(&t, Kind::Mopp);
    same_packfile_header(&c, &template);
    assert_eq!(&c.bytes[..4], &[0x57, 0xE0, 0xE0, 0x57]);
    // 5.5 storage meshes hold materials as plain words: no surface ids, said in a note.
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("surface ids are not stored")),
        "{:?}",
        c.notes
    );
    assert!(c.bytes.windows(14).any(|w| w == b"Havok-5.5.0-r1"));
}

#[test]
fn like_the_dark_souls_map_is_a_2010_2_mopp_packfile() {
    let Some(t) = souls("dark-souls-ptde/map_collision_template.hkx", "like_ptde") else {
        return;
    };
    let (c, template) = like(&t, Kind::Mopp);
    same_packfile_header(&c, &template);
}

#[test]
fn like_the_remastered_map_is_a_2015_tag0_with_mopp() {
    let Some(t) = souls(
        "dark-souls-remastered/map_collision_template.hkx",
        "like_dsr",
    ) else {
        return;
    };
    let (c, _) = like(&t, Kind::Mopp);
    assert_eq!(&c.bytes[4..8], b"TAG0");
    assert!(c.bytes.windows(8).any(|w| w == b"20150100"));
}

#[test]
fn like_the_samples_takes_their_kind() {
    for (sample, kind) in [
        ("havok-710_level.hkx", Kind::Mopp),
        ("destiny-2012_level.hkx", Kind::BvCompound),
        ("doom-2016_mesh.hkshape", Kind::CompressedCm),
        ("nso-2023_level.bphsh", Kind::MeshShape),
    ] {
        like(&root().join("samples").join(sample), kind);
    }
}

#[test]
fn a_file_without_level_collision_is_refused_as_a_model() {
    let t = root().join("samples/havok-demo-710_skeleton.hkx");
    let e = create(&ctx(), Target::Like(&t), &level())
        .unwrap_err()
        .to_string();
    assert!(e.contains("holds no MOPP tree"), "{e}");
}
