//! `hk gen crate`: every shipped profile whose schema exists generates a crate that builds
//! offline against this workspace, and its generated types take the profile's corpus files
//! (or its samples) back to the same bytes; `--expand` writes the same classes as plain
//! Rust, which builds without hk-derive and takes the same files back. A new version goes
//! the same way from a schema extracted out of a file's own metadata.
//!
//! The crates build offline from the lock file they carry, in one target folder shared
//! by the tests (`gen-crates` under `$CARGO_TARGET_DIR`, else the checkout's `target/`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::command;
use hk_tests::{corpus, root, temp_dir};

/// `hk ARGS`, which must succeed: its stdout and stderr.
fn hk_ok(args: &[&str]) -> String {
    let out = command().args(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "hk {args:?}:\n{text}");
    text
}

/// Builds a generated crate offline (sharing one target folder) and returns its
/// `roundtrip` binary.
fn build(dir: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), PathBuf::from)
        .join("gen-crates");
    // The crate carries the checkout's lock file, so it builds offline with the versions
    // hk is tested with.
    assert!(
        dir.join("Cargo.lock").is_file(),
        "{}: no Cargo.lock",
        dir.display()
    );
    let out = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} does not build:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    target.join("debug/roundtrip")
}

fn run(bin: &Path, files: &[PathBuf]) -> String {
    let out = Command::new(bin).args(files).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    text.lines().last().unwrap_or("").to_string()
}

#[test]
fn shipped_profiles_generate_build_and_round_trip() {
    let Some(corpus) = corpus("shipped_profiles_generate_build_and_round_trip") else {
        return;
    };
    for profile in [
        "havok-demo-710",
        "shred",
        "destiny-2012",
        "doom-2016",
        "nso-2023",
    ] {
        let scratch = temp_dir(profile);
        let dir = scratch.join("crate");
        println!(
            "{}",
            hk_ok(&[
                "gen",
                "crate",
                "--game",
                profile,
                "--out",
                dir.to_str().unwrap()
            ])
            .trim()
        );
        let bin = build(&dir);
        let files: Vec<PathBuf> = match profile {
            "havok-demo-710" => {
                let mut v: Vec<PathBuf> = std::fs::read_dir(corpus.join("packfile/havoklib-710"))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .collect();
                v.sort();
                v
            }
            _ => std::fs::read_dir(root().join("samples"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with(profile)
                })
                .collect(),
        };
        assert!(!files.is_empty(), "{profile}: no files to round-trip");
        let all = format!(
            "{0}/{0} byte-identical through the {profile} types",
            files.len()
        );
        let line = run(&bin, &files);
        println!("{profile}: {line}");
        assert_eq!(line, all);
        if profile == "havok-demo-710" {
            let line = run(&build(&expanded_crate(profile, &scratch)), &files);
            println!("{profile} (expanded): {line}");
            assert_eq!(line, all);
        }
    }
}

/// `hk gen crate --expand` for `profile` under `scratch`: plain Rust in `src/lib.rs` (no
/// macro call) and no hk-derive dependency; the crate folder.
fn expanded_crate(profile: &str, scratch: &Path) -> PathBuf {
    let dir = scratch.join("expanded");
    let out = dir.to_str().unwrap();
    println!(
        "{}",
        hk_ok(&["gen", "crate", "--game", profile, "--out", out, "--expand"]).trim()
    );
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(
        !lib.contains("schema!("),
        "src/lib.rs still calls the macro"
    );
    assert!(
        lib.contains("pub struct HkaSkeleton {"),
        "no HkaSkeleton struct"
    );
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("hk-derive"), "{manifest}");
    dir
}

/// Havok 5.5's skeleton file describes its own classes: extract them as a schema and
/// generate a crate from that schema alone; the crate folder and the file.
/// Everything is written under `scratch`, one folder per test.
fn extracted_crate(corpus: &Path, scratch: &Path) -> (PathBuf, PathBuf) {
    let file = corpus.join("games/demons-souls-ps3/skeleton_with_types.hkx");
    let schema = scratch.join("extracted-5.5");
    hk_ok(&[
        "schema",
        "extract",
        file.to_str().unwrap(),
        "-o",
        schema.to_str().unwrap(),
    ]);
    let mut classes: Vec<String> = std::fs::read_dir(schema.join("classes"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    classes.sort();
    let profile = scratch.join("profile-5.5.toml");
    std::fs::write(
        &profile,
        format!(
            "name = \"des-skeleton\"\ndescription = \"Demon's Souls skeletons, from the file's own metadata\"\ngeneration = \"extracted\"\ncontainer = \"packfile\"\nfile_kinds = [\"hkx\"]\nroots = [{}]\n",
            classes.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ")
        ),
    )
    .unwrap();
    let dir = scratch.join("des-skeleton");
    println!(
        "{}",
        hk_ok(&[
            "gen",
            "crate",
            "--game",
            profile.to_str().unwrap(),
            "--schema",
            schema.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap()
        ])
        .trim()
    );
    // The crate carries the extracted files as they were written.
    for c in &classes {
        let name = format!("{c}.toml");
        assert_eq!(
            std::fs::read_to_string(dir.join("schema/classes").join(&name)).unwrap(),
            std::fs::read_to_string(schema.join("classes").join(&name)).unwrap(),
            "{name}"
        );
    }
    (dir, file)
}

#[test]
fn a_crate_from_extracted_metadata() {
    let Some(corpus) = corpus("a_crate_from_extracted_metadata") else {
        return;
    };
    let scratch = temp_dir("gen-extracted");
    let (dir, _) = extracted_crate(&corpus, &scratch);
    assert!(dir.join("Cargo.toml").is_file() && dir.join("src/lib.rs").is_file());
}

#[test]
fn a_new_version_from_extracted_metadata() {
    let Some(corpus) = corpus("a_new_version_from_extracted_metadata") else {
        return;
    };
    let scratch = temp_dir("gen-extracted-build");
    let (dir, file) = extracted_crate(&corpus, &scratch);
    let line = run(&build(&dir), &[file]);
    println!("extracted 5.5 schema: {line}");
    assert_eq!(line, "1/1 byte-identical through the des-skeleton types");
}
