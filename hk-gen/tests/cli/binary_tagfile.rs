//! Old binary tagfiles through the `hk` commands: `info` shows the version and the class
//! definitions, `dump` the objects and class definitions, `build` writes the dump back
//! byte for byte, `roundtrip` writes all 11 corpus files back byte for byte, `schema
//! extract` writes their classes; `schema check` and `convert` say
//! what they cannot do, with the exit statuses of docs/exit-codes.md; the global read
//! limits apply to them.

use crate::support::hk;
use hk_tests::{corpus, temp_dir};

#[test]
fn binary_tagfiles_through_the_commands() {
    let Some(corpus) = corpus("binary_tagfiles_through_the_commands") else {
        return;
    };
    let hat = corpus.join("games/project-anarchy-sample/HAT__Export__RL_Character_HAT.hkt");
    let hat = hat.to_str().unwrap();
    let (code, out, err) = hk(&["info", hat]);
    assert_eq!(code, 0, "{out}{err}");
    for line in [
        "binary tagfile version 4, SDK hk_2014.0.5-r1",
        "hkbProjectStringData",
        "34 strings remembered; 0 bytes after the end tag",
        "schema: the file's own class definitions (binary-tagfile-hk_2014.0.5-r1)",
        "3 objects, root #0 hkRootLevelContainer",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    let tmp = temp_dir("commands");
    let json = tmp.join("hat.json");
    let (code, out, err) = hk(&["dump", hat, "-o", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let dump = std::fs::read_to_string(&json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&dump).unwrap();
    assert_eq!(v["container"], "binary-tagfile");
    assert_eq!(v["tagfile_version"], 4);
    assert_eq!(v["sdk_version"], "hk_2014.0.5-r1");
    assert_eq!(v["schema"], "binary-tagfile-hk_2014.0.5-r1");
    assert_eq!(v["objects"].as_array().map(Vec::len), Some(3));
    assert!(dump.contains("RL_Character_Attack.hkt"), "{dump}");
    // The dump holds the class definitions too: it builds the file back.
    let built = tmp.join("hat.hkt");
    let (code, out, err) = hk(&[
        "build",
        json.to_str().unwrap(),
        "-o",
        built.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::read(&built).unwrap() == std::fs::read(hat).unwrap());
    let dirs = [
        corpus.join("games/ffxiv-and-xat-tests"),
        corpus.join("games/project-anarchy-sample"),
    ];
    let (code, out, err) = hk(&[
        "roundtrip",
        dirs[0].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("11/11 byte-identical"), "{out}");
    let schema = tmp.join("schema");
    let skeleton = dirs[0].join("skeleton.hkt");
    let (code, out, err) = hk(&[
        "schema",
        "extract",
        "-o",
        schema.to_str().unwrap(),
        skeleton.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("wrote 31 classes (binary-tagfile-v3)"),
        "{out}"
    );
    let skel = std::fs::read_to_string(schema.join("classes/hkaSkeleton.toml")).unwrap();
    assert!(skel.contains("name = \"bones\""), "{skel}");
    // The folder extracted from the file, named: every class it defines alike.
    let (code, out, err) = hk(&[
        "info",
        "--schema",
        schema.to_str().unwrap(),
        skeleton.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("it holds all 31 classes the file defines alike"),
        "{out}"
    );
    assert!(!err.contains("warning"), "{err}");
    // Nothing to check: an error naming the file, the others still checked.
    let (code, _, err) = hk(&["schema", "check", skeleton.to_str().unwrap(), hat]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("states no sizes or offsets"), "{err}");
    assert!(err.contains("skeleton.hkt") && err.contains("RL_Character_HAT"));
    // A folder of them converts nothing, and says why.
    let (code, out, err) = hk(&[
        "convert",
        dirs[1].to_str().unwrap(),
        "-o",
        tmp.join("converted").to_str().unwrap(),
        "--layout",
        "win64",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("left out 7 old binary tagfile(s)"), "{out}");
    let _ = std::fs::remove_dir_all(tmp);
}

#[test]
fn the_read_limits_apply_to_binary_tagfiles() {
    let Some(corpus) = corpus("the_read_limits_apply_to_binary_tagfiles") else {
        return;
    };
    let dir = corpus.join("games/project-anarchy-sample");
    let hat = dir.join("HAT__Export__RL_Character_HAT.hkt");
    let hat = hat.to_str().unwrap();
    // hkbCharacterData nests structs three levels below the object.
    let character = dir.join("HAT__Characters__Export__RL_Character.hkt");
    let character = character.to_str().unwrap();
    for (args, limit) in [
        (&["--max-objects", "2", "info", hat][..], "max-objects"),
        (&["dump", "--max-memory", "1K", hat][..], "max-memory"),
        (
            &["roundtrip", character, "--max-depth", "1"][..],
            "max-depth",
        ),
        (&["--max-expansion", "1", "dump", hat][..], "max-expansion"),
    ] {
        let (code, out, err) = hk(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains(&format!("read limit {limit} reached")),
            "{err}"
        );
        assert!(
            err.contains("at 0x") && err.contains(&format!("--{limit}")),
            "{err}"
        );
    }
    // With the depth the file needs, it reads.
    let (code, out, err) = hk(&["roundtrip", character, "--max-depth", "3"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// `info` counts each class's objects in one pass: 50,000 classes and 200,000 objects,
/// written by hk's own encoder, took the old per-class scan of the objects 16 s.
#[test]
fn info_counts_the_objects_of_many_classes_in_linear_time() {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use hk_runtime::graph::{Graph, Object, ObjectId};
    use hk_runtime::schema::ClassId;
    use hk_runtime::tagfile::binary::{self, BinaryTagfile, ClassDef};

    let classes = (0..50_000)
        .map(|i| ClassDef {
            name: format!("C{i}"),
            version: 0,
            parent: 0,
            members: Vec::new(),
        })
        .collect();
    let file = BinaryTagfile {
        version: 3,
        sdk: None,
        predicates: None,
        classes,
        int_widths: Default::default(),
        strings: 0,
        trailing: Vec::new(),
    };
    let schema = Arc::new(binary::schema::extract(&[&file], "many").unwrap());
    // Object k is of class k mod 50: 4,000 of each of the first 50 classes.
    let objects = (0..200_000u32)
        .map(|k| Object {
            class: ClassId(k % 50),
            values: Vec::new(),
        })
        .collect();
    let graph = Graph::from_objects(schema, objects, ObjectId(0));
    let tmp = temp_dir("many-classes");
    let path = tmp.join("many.hkt");
    std::fs::write(&path, binary::write(&graph, &file).unwrap()).unwrap();
    let started = Instant::now();
    let (code, out, err) = hk(&["--max-memory", "1G", "info", path.to_str().unwrap()]);
    let took = started.elapsed();
    assert_eq!(code, 0, "{out}{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no row for {name}: {out}"))
            .split_whitespace()
            .last()
            .map(str::to_string)
    };
    assert_eq!(row("C3").as_deref(), Some("4000"));
    assert_eq!(row("C50").as_deref(), Some("0"));
    assert!(out.contains("200000 objects, root #0 C0"), "{out}");
}
