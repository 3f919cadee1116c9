//! `hk import MESH --into FILE -o OUT` (docs/collision.md, "hk import"): the export of each
//! collision sample with a mesh hk rewrites (and of the corpus maps), imported back, gives
//! a file that exports the same triangles and round-trips; an edited OBJ shows its edit;
//! names that match nothing, a surface the file cannot hold and `--game` without the
//! builder fail with exit status 2 and a message naming the object.

use std::path::Path;

use crate::support::hk;
use hk_tests::{corpus, root, temp_dir};

/// Exports `file` as OBJ, imports it back and checks the outcome; returns the OBJ path.
fn round_trip(file: &Path, dir: &Path) -> std::path::PathBuf {
    let name = file.file_name().unwrap().to_str().unwrap();
    let obj = dir.join(format!("{name}.obj"));
    let out = dir.join(format!("imported-{name}"));
    let (code, _, err) = hk(&[
        "export",
        file.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, stdout, err) = hk(&[
        "import",
        obj.to_str().unwrap(),
        "--into",
        file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--boxes",
        "1000",
    ]);
    assert_eq!(code, 0, "{name}: {err}");
    assert!(stdout.contains("round trip byte for byte"), "{stdout}");
    assert!(err.contains("replaced "), "{err}");
    let (code, stdout, err) = hk(&["roundtrip", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{name}: {stdout}{err}");
    obj
}

#[test]
fn samples_and_maps_import_their_own_export() {
    let tmp = temp_dir("import-samples");
    let mut files: Vec<_> = [
        "samples/destiny-2012_level.hkx",
        "samples/doom-2016_mesh.hkshape",
    ]
    .iter()
    .map(|f| root().join(f))
    .collect();
    if let Some(c) = corpus("samples_and_maps_import_their_own_export") {
        files.push(c.join("games/demons-souls-ps3/map_collision_h0004b0.hkx"));
        files.push(c.join("games/dark-souls-remastered/map_collision_template.hkx"));
    }
    for f in files {
        round_trip(&f, &tmp);
    }
}

#[test]
fn an_edited_obj_shows_its_edit_and_bad_input_names_the_object() {
    let Some(c) = corpus("an_edited_obj_shows_its_edit_and_bad_input_names_the_object") else {
        return;
    };
    let tmp = temp_dir("import-edit");
    let map = c.join("games/demons-souls-ps3/map_collision_h0004b0.hkx");
    let obj = round_trip(&map, &tmp);
    let text = std::fs::read_to_string(&obj).unwrap();
    // Every vertex moved by (10, 0, 0), one triangle added at the end.
    let mut edited = String::new();
    let mut n = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("v ") {
            let p: Vec<f32> = rest.split(' ').map(|x| x.parse().unwrap()).collect();
            edited += &format!("v {} {} {}\n", p[0] + 10.0, p[1], p[2]);
            n += 1;
        } else {
            edited += line;
            edited.push('\n');
        }
    }
    edited += &format!(
        "v 1000 0 0\nv 1001 0 0\nv 1000 1 0\nf {} {} {}\n",
        n + 1,
        n + 2,
        n + 3
    );
    let edit = tmp.join("edit.obj");
    std::fs::write(&edit, &edited).unwrap();
    let out = tmp.join("edit.hkx");
    let (code, _, err) = hk(&[
        "import",
        edit.to_str().unwrap(),
        "--into",
        map.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("#6/1: 213 vertices, 71 triangles"), "{err}");
    let (code, keys, err) = hk(&[
        "mopp",
        "query",
        out.to_str().unwrap(),
        "--aabb",
        "999.9,-0.1,-0.1,1001.1,1.1,0.1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(keys.trim(), ((1u32 << 20) | 70).to_string());
    // A name that matches nothing; a surface the subpart cannot hold; --game.
    let renamed = edited.replace(
        "o h0004B0/CustomParamStorageExtendedMeshShape#6/1",
        "o rock",
    );
    let bad = tmp.join("bad.obj");
    std::fs::write(&bad, renamed).unwrap();
    let run = |mesh: &Path, target: &[&str]| {
        let mut args = vec!["import", mesh.to_str().unwrap()];
        args.extend_from_slice(target);
        args.extend_from_slice(&["-o", out.to_str().unwrap()]);
        hk(&args)
    };
    let (code, _, err) = run(&bad, &["--into", map.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("CustomParamStorageExtendedMeshShape#6/1"),
        "{err}"
    );
    let (code, _, err) = run(&bad, &["--into", map.to_str().unwrap(), "--allow-missing"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("passed over mesh object rock"), "{err}");
    let surface = edited.replacen("usemtl surface_2", "usemtl surface_9", 1);
    std::fs::write(&bad, surface).unwrap();
    let (code, _, err) = run(&bad, &["--into", map.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("face 1") && err.contains("surface_9"), "{err}");
    let (code, _, err) = run(&edit, &["--game", "dark-souls-ptde"]);
    assert_eq!(code, 2, "{err}");
}
