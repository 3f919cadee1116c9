//! The `hk` binary end to end.

use std::process::Command;

fn hk(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hk"))
        .args(args)
        .output()
        .expect("run hk");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

mod common;
use common::{corpus, root};

#[test]
fn signatures_show_pinned_values_with_the_computed_one() {
    let dir = root().join("schemas/havok-7.1");
    let (code, out, err) = hk(&["schema", "signatures", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("hkpRigidBody "))
        .expect("hkpRigidBody listed");
    assert!(
        line.starts_with("hkpRigidBody 0xAA8C3B19 pinned (computed 0x"),
        "{line}"
    );
    assert!(!line.contains("(computed 0xAA8C3B19)"), "{line}");
    let boxes = out.lines().find(|l| l.starts_with("hkpBoxShape ")).unwrap();
    assert_eq!(boxes, "hkpBoxShape 0x3444D2D5");
    assert_eq!(
        out.lines().filter(|l| l.contains("pinned")).count(),
        7,
        "{out}"
    );
}

#[test]
fn verify_passes_on_every_shipped_schema() {
    let (code, out, err) = hk(&["schema", "verify"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("havok-7.1:"), "{out}");
}

#[test]
fn check_prints_a_table_and_fails_on_mismatch() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("packfile/havoklib-710/allosaur[4011].hkx");
    let (code, out, err) = hk(&["schema", "check", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("hkaSkeleton") && out.contains("0xB892FD4F"),
        "{out}"
    );
    // The same file against the 2012.2 schema: signatures differ, exit code 1.
    let other = root().join("schemas/havok-2012.2");
    let (code, out, _) = hk(&[
        "schema",
        "check",
        "--schema",
        other.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("MISMATCH"), "{out}");
}

#[test]
fn extract_then_check_round_trips_a_metadata_file() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("games/dark-souls-ptde/c2240_ragdoll_with_types.hkx");
    let out_dir = std::env::temp_dir().join(format!("hk-cli-extract-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let (code, out, err) = hk(&[
        "schema",
        "extract",
        file.to_str().unwrap(),
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = hk(&[
        "schema",
        "check",
        "-q",
        "--schema",
        out_dir.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("signatures 16/16")
            && out.contains("offsets 376/376")
            && out.contains("sizes 87/87"),
        "{out}"
    );
}

#[test]
fn tagfiles_extract_merged_and_check_against_their_type_tables() {
    let Some(corpus) = corpus() else { return };
    let dsr = corpus.join("games/dark-souls-remastered");
    let files: Vec<String> = ["c2240_ragdoll.hkx", "c2240_skeleton.hkx"]
        .iter()
        .map(|f| dsr.join(f).to_str().unwrap().to_string())
        .collect();
    let out_dir = std::env::temp_dir().join(format!("hk-cli-tagx-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let mut args = vec!["schema", "extract", "-o", out_dir.to_str().unwrap()];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = hk(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 tagfile(s) of SDK 20150100"), "{out}");
    let mut args = vec!["schema", "check", "--schema", out_dir.to_str().unwrap()];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = hk(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("sizes 100/100, member offsets 409/409"),
        "{out}"
    );
    // A file of another SDK against it: a table of mismatches and exit status 1.
    let totk = corpus.join("games/totk/Armor_225_Head.bphcl");
    let (code, out, _) = hk(&[
        "schema",
        "check",
        "--schema",
        out_dir.to_str().unwrap(),
        totk.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("MISMATCH") && out.contains("stored"), "{out}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let junk = std::env::temp_dir().join(format!("hk-cli-junk-{}.hkx", std::process::id()));
    std::fs::write(&junk, b"not a havok file at all").unwrap();
    let (code, _, err) = hk(&[
        "schema",
        "extract",
        junk.to_str().unwrap(),
        "-o",
        "/tmp/never",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not a Havok file"), "{err}");
    let (code, _, err) = hk(&["schema", "signatures", "/nonexistent/schema"]);
    assert_eq!(code, 2);
    assert!(err.contains("generation.toml"), "{err}");
}

#[test]
fn samples_are_reproducible_and_read_back_strictly() {
    // The committed samples are what `hk sample` writes; refresh them only with HK_BLESS=1.
    let out = std::env::temp_dir().join(format!("hk-cli-samples-{}", std::process::id()));
    let (code, text, err) = hk(&["sample", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    let committed = root().join("samples");
    let mut n = 0;
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        let fresh = std::fs::read(&p).unwrap();
        if std::env::var("HK_BLESS").is_ok_and(|v| v == "1") {
            std::fs::write(committed.join(name), &fresh).unwrap();
        }
        let old = std::fs::read(committed.join(name)).unwrap_or_default();
        assert_eq!(
            fresh,
            old,
            "{}: differs from the committed sample (HK_BLESS=1 refreshes)",
            name.to_string_lossy()
        );
        n += 1;
    }
    assert!(n >= 2);
    let (code, text, _) = hk(&["roundtrip", committed.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(&format!("{n}/{n} byte-identical")), "{text}");
}

#[test]
fn dump_edit_build_diff_and_info() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("packfile/havoklib-2012_2/allosaur[8101].hkx");
    let tmp = std::env::temp_dir().join(format!("hk-cli-dump-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (f, json, toml, rebuilt, edited) = (
        file.to_str().unwrap(),
        tmp.join("a.json"),
        tmp.join("a.toml"),
        tmp.join("rebuilt.hkx"),
        tmp.join("edited.hkx"),
    );
    let (code, out, err) = hk(&["info", f]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("hkaSkeleton") && out.contains("0xFC2A095F"),
        "{out}"
    );
    for (dump, fmt) in [(&json, "json"), (&toml, "toml")] {
        let (code, _, err) = hk(&["dump", f, "--format", fmt, "-o", dump.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let (code, _, err) = hk(&[
            "build",
            dump.to_str().unwrap(),
            "-o",
            rebuilt.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            std::fs::read(&rebuilt).unwrap(),
            std::fs::read(&file).unwrap(),
            "{fmt} dump -> build"
        );
    }
    // Edit the dump: rename the skeleton's first bone.
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(text.contains("\"Allosaur\""));
    std::fs::write(&json, text.replacen("\"Allosaur\"", "\"Renamed\"", 1)).unwrap();
    let (code, _, err) = hk(&[
        "build",
        json.to_str().unwrap(),
        "-o",
        edited.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = hk(&["diff", f, edited.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("bones[0].name") && out.contains("Renamed") && out.contains("1 difference(s)"),
        "{out}"
    );
    let (code, out, _) = hk(&["diff", f, rebuilt.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 difference(s)"), "{out}");
}

/// Tagfile dumps build again: the samples (whose type tables hk wrote from the schema) come
/// back byte for byte in JSON and TOML; corpus tagfiles come back with a type table from
/// the shipped schema and the same objects (`hk diff`: 0 differences), container included.
#[test]
fn tagfile_dumps_build_back() {
    let tmp = std::env::temp_dir().join(format!("hk-cli-tagdump-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let dump_build = |file: &std::path::Path, ext: &str| -> std::path::PathBuf {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let dump = tmp.join(format!("{name}.{ext}"));
        let built = tmp.join(format!("{ext}-{name}"));
        let (code, out, err) = hk(&[
            "dump",
            file.to_str().unwrap(),
            "--format",
            ext,
            "--out",
            dump.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}{err}");
        let (code, out, err) = hk(&[
            "build",
            dump.to_str().unwrap(),
            "-o",
            built.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        built
    };
    let samples = [
        "doom-2016_box.hkshape",
        "doom-2016_compound.hkshape",
        "doom-2016_mesh.hkshape",
        "nso-2023_box.bphsh",
    ];
    for s in samples {
        let file = root().join("samples").join(s);
        for ext in ["json", "toml"] {
            let built = dump_build(&file, ext);
            assert!(
                std::fs::read(&built).unwrap() == std::fs::read(&file).unwrap(),
                "{s} ({ext}): rebuilt bytes differ"
            );
        }
    }
    println!(
        "{0}/{0} synthetic tagfiles: dump -> build byte-identical (JSON and TOML)",
        samples.len()
    );
    let Some(corpus) = corpus() else { return };
    let files = [
        "games/dark-souls-remastered/c2240_a00_3000.hkx",
        "games/dark-souls-remastered/c2240_ragdoll.hkx",
        "games/dark-souls-remastered/c2240_skeleton.hkx",
        "games/dark-souls-remastered/map_collision_template.hkx",
        "games/totk/Armor_225_Head.bphcl",
        "games/totk/Armor_999_Head.bphcl",
    ];
    for f in files {
        let file = corpus.join(f);
        let built = dump_build(&file, "json");
        let (code, out, err) = hk(&["diff", file.to_str().unwrap(), built.to_str().unwrap()]);
        assert_eq!(code, 0, "{f}: {out}{err}");
        assert!(out.trim_end().ends_with("0 difference(s)"), "{f}: {out}");
    }
    println!(
        "{0}/{0} corpus tagfiles: dump -> build -> diff 0 differences",
        files.len()
    );
}
