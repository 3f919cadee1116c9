//! One exit-code convention for every `hk` command (docs/exit-codes.md): 0 success, 1
//! "checked and found different", 2 an error; errors go to stderr, results to stdout.
//! The inputs are made in code: bytes
//! that are no Havok file, a committed sample cut short, a schema folder written here.

use std::path::{Path, PathBuf};

use crate::support::hk;
use hk_tests::{root, temp_dir};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A sample packfile (committed), a copy cut short, and bytes that are no Havok file.
fn inputs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let good = root().join("samples/shred_box.hkx");
    let bytes = std::fs::read(&good).unwrap();
    let short = dir.join("short.hkx");
    std::fs::write(&short, &bytes[..0x120]).unwrap();
    let junk = dir.join("junk.hkx");
    std::fs::write(&junk, b"this is not a Havok file, just text\n".repeat(8)).unwrap();
    (good, short, junk)
}

/// An error: exit status 2, `error: ` on stderr naming `what`, nothing of it on stdout.
fn is_error((code, out, err): &(i32, String, String), what: &str) {
    assert_eq!(*code, 2, "stdout: {out}\nstderr: {err}");
    assert!(err.contains("error: "), "{err}");
    assert!(err.contains(what), "`{what}` not in: {err}");
    assert!(!out.contains(what), "`{what}` on stdout: {out}");
    assert!(!err.contains("error: : "), "an empty file name: {err}");
}

/// `roundtrip` prints a file it cannot read on stderr and ends with 2; the
/// others are still round-tripped and counted on stdout.
#[test]
fn roundtrip_errors_go_to_stderr_with_status_2() {
    let dir = temp_dir("roundtrip");
    let (good, short, junk) = inputs(&dir);
    let r = hk(&["roundtrip", s(&good)]);
    assert_eq!(r.0, 0, "{}{}", r.1, r.2);
    for bad in [&short, &junk] {
        let r = hk(&["roundtrip", s(&good), s(bad)]);
        is_error(&r, bad.file_name().unwrap().to_str().unwrap());
        assert!(r.1.contains("1/2 byte-identical"), "{}", r.1);
    }
}

/// `schema check` tells "cannot read" (2) from "mismatch" (1).
#[test]
fn schema_check_tells_unreadable_from_mismatch() {
    let dir = temp_dir("check");
    let (good, short, junk) = inputs(&dir);
    let ok = hk(&["schema", "check", "-q", s(&good)]);
    assert_eq!(ok.0, 0, "{}{}", ok.1, ok.2);
    // The Havok 7.1 sample against the 2012.2 schema: its signatures differ.
    let mismatch = hk(&[
        "schema",
        "check",
        "-q",
        "--schema",
        "havok-2012.2",
        s(&good),
    ]);
    assert_eq!(mismatch.0, 1, "{}{}", mismatch.1, mismatch.2);
    assert!(mismatch.1.contains("MISMATCH"), "{}", mismatch.1);
    assert!(!mismatch.2.contains("error"), "{}", mismatch.2);
    for bad in [&short, &junk] {
        let name = bad.file_name().unwrap().to_str().unwrap();
        is_error(&hk(&["schema", "check", "-q", s(bad)]), name);
        // With a good file and a mismatch beside it, still 2: an error outranks a
        // difference, and the other files are still checked.
        let r = hk(&["schema", "check", "-q", s(&good), s(bad)]);
        is_error(&r, name);
        assert!(r.1.contains("1/2 files agree"), "{}", r.1);
    }
}

/// `bench` on a file it cannot read is an error (2), with no figure printed.
#[test]
fn bench_fails_with_status_2_on_a_file_it_cannot_read() {
    let dir = temp_dir("bench");
    let (good, short, _) = inputs(&dir);
    let r = hk(&["bench", "--rounds", "1", s(&good), s(&short)]);
    is_error(&r, "short.hkx");
    assert!(!r.1.contains("MB/s") && !r.1.contains("inf"), "{}", r.1);
    // A folder with no Havok file: nothing to measure.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), b"no Havok file here").unwrap();
    let r = hk(&["bench", s(&empty)]);
    assert_eq!(r.0, 2, "{}{}", r.1, r.2);
    assert!(!r.1.contains("inf"), "{}", r.1);
}

/// `schema extract` errors name the file.
#[test]
fn schema_extract_errors_name_the_file() {
    let dir = temp_dir("extract");
    let (_, short, junk) = inputs(&dir);
    for bad in [&short, &junk] {
        let name = bad.file_name().unwrap().to_str().unwrap();
        is_error(
            &hk(&["schema", "extract", s(bad), "-o", s(&dir.join("out"))]),
            name,
        );
    }
    // An output folder that cannot be made: under a plain file.
    let tagfile = root().join("samples/doom-2016_box.hkshape");
    let blocker = dir.join("blocker");
    std::fs::write(&blocker, b"a file").unwrap();
    let out = blocker.join("schema");
    is_error(
        &hk(&["schema", "extract", s(&tagfile), "-o", s(&out)]),
        "blocker",
    );
}

/// A class whose size passes 4 GiB (16,384 members of 4,096 `matrix4`s; an
/// interface count of 2^32 - 1) cannot be laid out: `schema verify` says so and ends with
/// 2 (a stated offset the layout does not reproduce is a difference: 1).
#[test]
fn schema_verify_refuses_classes_past_4_gib() {
    let dir = temp_dir("verify");
    let generation =
        std::fs::read_to_string(root().join("schemas/havok-7.1/generation.toml")).unwrap();
    let folder = |name: &str, classes: &[(&str, String)]| {
        let d = dir.join(name);
        std::fs::create_dir_all(d.join("classes")).unwrap();
        std::fs::write(d.join("generation.toml"), &generation).unwrap();
        for (class, text) in classes {
            std::fs::write(d.join("classes").join(format!("{class}.toml")), text).unwrap();
        }
        d
    };
    let mut big = String::from("name = \"Big\"\n");
    for i in 0..16_384 {
        big.push_str(&format!(
            "\n[[members]]\nname = \"m{i}\"\ntype = \"matrix4\"\narray_size = 4096\n"
        ));
    }
    let ifc =
        "name = \"Ifc\"\ninterfaces = 4294967295\n\n[[members]]\nname = \"a\"\ntype = \"int32\"\n";
    let wide = folder("wide", &[("Big", big), ("Ifc", ifc.to_string())]);
    let r = hk(&["schema", "verify", s(&wide)]);
    is_error(&r, "Big");
    assert!(r.2.contains("Ifc") && r.2.contains("4 GiB"), "{}", r.2);

    let stated = "name = \"Small\"\nsize = 0x8\n\n[[members]]\nname = \"a\"\ntype = \"int32\"\n";
    let off = folder("off", &[("Small", stated.to_string())]);
    let r = hk(&["schema", "verify", s(&off)]);
    assert_eq!(r.0, 1, "{}{}", r.1, r.2);
    assert!(r.1.contains("Small: states 0x8"), "{}", r.1);
}

/// Every command that reads a file: an unreadable one is exit status 2 with the error on
/// stderr; a `build` error names the dump's line and column and the member in the dump's
/// syntax.
#[test]
fn every_command_fails_with_status_2_on_stderr() {
    let dir = temp_dir("all");
    let (good, short, junk) = inputs(&dir);
    for bad in [&short, &junk] {
        let name = bad.file_name().unwrap().to_str().unwrap();
        // `info` prints the file's name as the heading of what follows, then the error.
        let r = hk(&["info", s(bad)]);
        assert_eq!(r.0, 2, "{}{}", r.1, r.2);
        assert!(r.2.contains("error: ") && r.2.contains(name), "{}", r.2);
        for args in [
            vec!["dump", s(bad)],
            vec!["diff", s(&good), s(bad)],
            vec!["schema", "extract", s(bad), "-o", s(&dir)],
        ] {
            is_error(&hk(&args), name);
        }
    }
    let dump = dir.join("box.json");
    let r = hk(&["dump", s(&good), "-o", s(&dump)]);
    assert_eq!(r.0, 0, "{}", r.2);
    let text = std::fs::read_to_string(&dump).unwrap();
    let edited = text.replacen("\"hk_dump\": 1", "\"hk_dump\": 1, \"hk_dmp\": 2", 1);
    assert_ne!(edited, text);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, edited).unwrap();
    let r = hk(&["build", s(&bad), "-o", s(&dir.join("out.hkx"))]);
    is_error(&r, "bad.json:2:");
    assert!(r.2.contains("unknown key `hk_dmp`"), "{}", r.2);
}
