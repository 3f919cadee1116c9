//! `hk export` and `hk mopp` as a user runs them (docs/collision.md): the committed 7.1
//! sample, and the corpus's Demon's Souls map.

use crate::support::hk;
use hk_tests::{corpus, root, temp_dir};

fn count(text: &str, prefix: &str) -> usize {
    text.lines().filter(|l| l.starts_with(prefix)).count()
}

#[test]
fn export_the_sample_box_body() {
    let dir = temp_dir("sample");
    let sample = root().join("samples/shred_box.hkx");
    let out = dir.join("box.obj");
    let (code, stdout, stderr) = hk(&[
        "export",
        sample.to_str().unwrap(),
        "--format",
        "obj",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1 bodies"), "{stdout}");
    let text = std::fs::read_to_string(&out).unwrap();
    // A box: 8 corners, 12 triangles, one object.
    assert_eq!(
        (count(&text, "v "), count(&text, "f "), count(&text, "o ")),
        (8, 12, 1)
    );
    // No MOPP code in it: an error (exit 2) that says so.
    let (code, _, stderr) = hk(&["mopp", "check", sample.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no MOPP code"), "{stderr}");
    // A box that is not six numbers.
    let (code, _, stderr) = hk(&["mopp", "query", sample.to_str().unwrap(), "--aabb", "1,2,3"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("six numbers"), "{stderr}");
}

#[test]
fn the_demons_souls_map_through_the_command_line() {
    let Some(corpus) = corpus("the_demons_souls_map_through_the_command_line") else {
        return;
    };
    let dir = corpus.join("games/demons-souls-ps3");
    let map = dir.join("map_collision_h0004b0.hkx");
    let map = map.to_str().unwrap();
    let (code, stdout, stderr) = hk(&["mopp", "check", map]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("found 461/461"), "{stdout}");
    // A box a kilometre off prints no key; the mesh's own box prints all 461.
    let (code, stdout, _) = hk(&[
        "mopp",
        "query",
        map,
        "--aabb",
        "1000,1000,1000,1001,1001,1001",
    ]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    let (code, stdout, _) = hk(&["mopp", "query", map, "--aabb=-41,478,-29,-4,507,10"]);
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), 461);
    // The folder: files without bodies are passed over, the map is written.
    let out = temp_dir("des");
    let (code, stdout, stderr) =
        hk(&["export", dir.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1 files exported"), "{stdout}");
    let text = std::fs::read_to_string(out.join("map_collision_h0004b0.obj")).unwrap();
    assert_eq!((count(&text, "v "), count(&text, "f ")), (764, 461));
    assert_eq!(count(&text, "o "), 2, "one object a subpart");
    assert!(text.contains("usemtl surface_2") && text.contains("usemtl surface_1"));
}
