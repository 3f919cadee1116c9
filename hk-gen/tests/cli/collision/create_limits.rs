//! Meshes past a format's limits (docs/collision.md "New level files from meshes"): the
//! documented fix-up (an object split into more bodies or compound instances, named in the
//! notes) or an error naming the object and the face.

use hk_gen::collision::create::shapes::{BV_TRIANGLES, MOPP_VERTICES, PHIVE_FACE};
use hk_gen::collision::create::verify;
use hk_gen::collision::create::{create, Kind, Target};
use hk_gen::context::Context;
use hk_runtime::collision::input::{InputMesh, InputTriangle, Surface};
use hk_runtime::collision::{self};
use hk_runtime::file;
use hk_runtime::packfile::graph::read::ReadOptions;

use super::create::{boxed, terrain};

fn ctx() -> Context {
    Context::built_in().unwrap()
}

/// `n` separate small triangles in a row (three vertices each), surface id 5.
fn soup(name: &str, n: u32) -> InputMesh {
    let mut m = InputMesh {
        name: name.into(),
        ..InputMesh::default()
    };
    for k in 0..n {
        let (x, z) = ((k % 200) as f32 * 0.5, (k / 200) as f32 * 0.5);
        m.vertices
            .extend([[x, 0.0, z], [x + 0.4, 0.0, z], [x, 0.1, z + 0.4]]);
        m.triangles.push(InputTriangle {
            v: [3 * k, 3 * k + 1, 3 * k + 2],
            surface: Surface {
                id: Some(5),
                phive: None,
            },
            face: k + 1,
        });
    }
    m
}

fn read(bytes: &[u8]) -> collision::Scene {
    let doc = file::open(bytes, ctx().schemas(), ReadOptions::strict()).unwrap();
    assert_eq!(file::write(&doc).unwrap(), bytes);
    let scene = collision::read(&doc.graph).unwrap();
    collision::check::check_trees(&doc.graph, &scene, 2_000, 7).unwrap();
    scene
}

#[test]
fn a_mopp_object_past_16_bit_vertices_is_split_into_bodies() {
    // 22,000 triangles of their own vertices: 66,000 vertices, past one mesh's 65,536.
    let n = 22_000;
    assert!(3 * n as usize > MOPP_VERTICES);
    let meshes = vec![soup("rubble", n), boxed("crate", [0.0, 5.0, 0.0])];
    let c = create(&ctx(), Target::Profile("shred"), &meshes).unwrap();
    assert_eq!(c.notes.len(), 1, "{:?}", c.notes);
    assert!(
        c.notes[0].starts_with("rubble: 66000 vertices") && c.notes[0].contains("2 bodies"),
        "{}",
        c.notes[0]
    );
    let scene = read(&c.bytes);
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["rubble#1", "rubble#2", "crate"]);
    assert_eq!(scene.triangle_count(), n as usize + 12);
    verify::compare(&scene, Kind::Mopp, &meshes, true).unwrap();
}

#[test]
fn a_compressed_mesh_past_its_key_width_is_split_into_compound_instances() {
    // 130 × 130 quads: 33,800 triangles, past one compressed mesh's 32,768.
    let ground = terrain("ground", 130);
    assert!(ground.triangles.len() > BV_TRIANGLES);
    let meshes = vec![ground];
    let c = create(&ctx(), Target::Profile("destiny-2012"), &meshes).unwrap();
    assert_eq!(c.notes.len(), 1, "{:?}", c.notes);
    assert!(
        c.notes[0].contains("split into 2 compressed meshes"),
        "{}",
        c.notes[0]
    );
    let scene = read(&c.bytes);
    assert_eq!(scene.bodies.len(), 1);
    assert_eq!(scene.bodies[0].meshes.len(), 2);
    verify::compare(&scene, Kind::BvCompound, &meshes, true).unwrap();
}

#[test]
fn a_face_wider_than_a_phive_section_is_an_error_naming_it() {
    let mut wide = boxed("crate", [0.0; 3]);
    wide.vertices[7] = [PHIVE_FACE + 10.0, 1.0, 1.0];
    let e = create(&ctx(), Target::Profile("nso-2023"), &[wide])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("crate: face 2:") && e.contains("16-bit grid"),
        "{e}"
    );
}

#[test]
fn an_extent_past_a_float_is_an_error_naming_the_face() {
    for profile in ["shred", "destiny-2012", "doom-2016", "nso-2023"] {
        let mut far = boxed("tower", [0.0; 3]);
        far.vertices[0] = [-3.0e38, 0.0, 0.0];
        far.vertices[7] = [3.0e38, 0.0, 0.0];
        let e = create(&ctx(), Target::Profile(profile), &[far])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tower: face") && e.contains("overflows"),
            "{profile}: {e}"
        );
    }
}

#[test]
fn a_surface_id_past_the_material_word_is_an_error_naming_the_face() {
    let mut m = boxed("crate", [0.0; 3]);
    m.triangles[5].surface.id = Some(64);
    let e = create(&ctx(), Target::Profile("shred"), &[m.clone()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("crate: face 3: surface id 64"), "{e}");
    // The other formats hold it.
    for profile in ["destiny-2012", "doom-2016", "nso-2023"] {
        create(&ctx(), Target::Profile(profile), &[m.clone()]).unwrap();
    }
}

#[test]
fn conflicting_phive_materials_for_one_surface_id_are_an_error() {
    let mut m = boxed("crate", [0.0; 3]);
    if let Some((mat, _)) = &mut m.triangles[9].surface.phive {
        mat.material = 99;
    }
    let e = create(&ctx(), Target::Profile("nso-2023"), &[m])
        .unwrap_err()
        .to_string();
    assert!(e.contains("crate: face 5: surface id 2"), "{e}");
}

#[test]
fn the_phive_palette_holds_each_surface_id_at_its_index() {
    use hk_gen::collision::create::shapes::{PHIVE_HIT_MASK, PHIVE_MATERIAL};
    use hk_runtime::tagfile::phive::Extra;
    let meshes = vec![terrain("ground", 6), boxed("crate", [0.0, 5.0, 0.0])];
    let c = create(&ctx(), Target::Profile("nso-2023"), &meshes).unwrap();
    let doc = file::open(&c.bytes, ctx().schemas(), ReadOptions::strict()).unwrap();
    let file::Origin::Tagfile { file, .. } = &doc.origin else {
        panic!("not a tagfile")
    };
    let extras = &file.phive.as_ref().expect("a phive container").extras;
    let [Extra::Materials(mats), Extra::HitMasks(masks)] = extras.as_slice() else {
        panic!("{extras:?}")
    };
    // Ids 1, 4, 9 (terrain, no phive stated) and 2 (the box's stated entry): ten entries.
    assert_eq!((mats.len(), masks.len()), (10, 10));
    assert_eq!(
        (mats[2].material, mats[2].sub_material, mats[2].shape_tags),
        (7, 1, 4)
    );
    assert_eq!((masks[2].layers, masks[2].sub_layers), (3, 0));
    for i in [0, 1, 3, 4, 9] {
        assert_eq!(mats[i], PHIVE_MATERIAL);
        assert_eq!(masks[i], PHIVE_HIT_MASK);
    }
}
