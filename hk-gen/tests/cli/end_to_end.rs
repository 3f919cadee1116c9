//! The `hk` binary end to end, and the `hk_gen` library behind it.

use std::path::PathBuf;

use crate::support::{command, hk, run};
use hk_tests::{corpus, root, temp_dir};

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
    let Some(corpus) = corpus("check_prints_a_table_and_fails_on_mismatch") else {
        return;
    };
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
    let Some(corpus) = corpus("extract_then_check_round_trips_a_metadata_file") else {
        return;
    };
    let file = corpus.join("games/dark-souls-ptde/c2240_ragdoll_with_types.hkx");
    let scratch = temp_dir("cli-extract");
    let out_dir = scratch.join("schema");
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
    let Some(corpus) = corpus("tagfiles_extract_merged_and_check_against_their_type_tables") else {
        return;
    };
    let dsr = corpus.join("games/dark-souls-remastered");
    let files: Vec<String> = ["c2240_ragdoll.hkx", "c2240_skeleton.hkx"]
        .iter()
        .map(|f| dsr.join(f).to_str().unwrap().to_string())
        .collect();
    let scratch = temp_dir("cli-tagx");
    let out_dir = scratch.join("schema");
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
    let scratch = temp_dir("cli-junk");
    let junk = scratch.join("junk.hkx");
    std::fs::write(&junk, b"not a havok file at all").unwrap();
    let (code, _, err) = hk(&[
        "schema",
        "extract",
        junk.to_str().unwrap(),
        "-o",
        scratch.join("never").to_str().unwrap(),
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
    let out = temp_dir("cli-samples");
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
    let Some(corpus) = corpus("dump_edit_build_diff_and_info") else {
        return;
    };
    let file = corpus.join("packfile/havoklib-2012_2/allosaur[8101].hkx");
    let tmp = temp_dir("cli-dump");
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

/// Tagfile dumps build again: the samples come back byte for byte in JSON and TOML; corpus
/// tagfiles too (the dump carries the file's own type table), container included, with
/// the same objects (`hk diff`: 0 differences).
#[test]
fn tagfile_dumps_build_back() {
    let tmp = temp_dir("cli-tagdump");
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
    let Some(corpus) = corpus("tagfile_dumps_build_back") else {
        return;
    };
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
        let same = std::fs::read(&built).unwrap() == std::fs::read(&file).unwrap();
        assert!(same, "{f}: rebuilt bytes differ");
        let (code, out, err) = hk(&["diff", file.to_str().unwrap(), built.to_str().unwrap()]);
        assert_eq!(code, 0, "{f}: {out}{err}");
        assert!(out.trim_end().ends_with("0 difference(s)"), "{f}: {out}");
    }
    println!(
        "{0}/{0} corpus tagfiles: dump -> build byte-identical, diff 0 differences",
        files.len()
    );
}

/// `hk` needs nothing of its checkout: from an empty folder, without `$HK_SCHEMAS`, it
/// reads, checks and round-trips files with the schemas built into it.
#[test]
fn works_from_another_folder_without_a_checkout() {
    let tmp = temp_dir("elsewhere");
    for s in ["shred_box.hkx", "nso-2023_box.bphsh"] {
        std::fs::copy(root().join("samples").join(s), tmp.join(s)).unwrap();
    }
    let hk_here = |args: &[&str]| {
        run(command()
            .args(args)
            .current_dir(&tmp)
            .env_remove("HK_SCHEMAS")
            .env_remove("HK_GAMES")
            .env_remove("CARGO_MANIFEST_DIR"))
    };
    let (code, out, err) = hk_here(&["info", "shred_box.hkx"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("schema: havok-7.1 (exact)"), "{out}");
    assert!(err.is_empty(), "{err}");
    let (code, out, err) = hk_here(&["info", "nso-2023_box.bphsh"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("writer rules of havok-2023.2 (exact)"),
        "{out}"
    );
    let (code, out, err) = hk_here(&["roundtrip", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2/2 byte-identical"), "{out}");
    let (code, out, err) = hk_here(&["schema", "check", "-q", "shred_box.hkx"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("vs havok-7.1: signatures"), "{out}");
    let (code, out, err) = hk_here(&["schema", "signatures", "havok-7.1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hkpBoxShape 0x3444D2D5"), "{out}");
    let (code, out, err) = hk_here(&["sample", "--out", "fresh"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        std::fs::read(tmp.join("fresh/shred_box.hkx")).unwrap(),
        std::fs::read(root().join("samples/shred_box.hkx")).unwrap()
    );
    // Generated crates need a checkout to depend on; a folder that is none is refused.
    let (code, _, err) = hk_here(&[
        "gen",
        "crate",
        "--game",
        "shred",
        "--out",
        "crate",
        "--hk-path",
        ".",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not an hk checkout"), "{err}");
}

/// The library: commands print into any writer, and errors stay typed (the runtime's
/// kind, offset and object/member path; parse errors with line and column).
#[test]
fn library_commands_print_into_buffers_and_fail_with_typed_errors() {
    use hk_gen::{Context, Out, Status};
    use hk_runtime::error::{ErrorKind, ReadError, WriteError};
    let ctx = Context::built_in().unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let file = root().join("samples/shred_box.hkx");
    let status = hk_gen::info::info(&ctx, &file, &mut Out::new(&mut out, &mut err)).unwrap();
    assert_eq!(status, Status::Success);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("hkpRigidBody") && text.contains("havok-7.1 (exact)"),
        "{text}"
    );
    assert!(err.is_empty());

    // A dump with a value wider than its member: refused, naming the object and member.
    let tmp = temp_dir("typed");
    let doc = ctx.open(&file).unwrap();
    let mut json = hk_runtime::dump::to_json(&doc);
    let body = json["objects"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|o| o["class"] == "hkpRigidBody")
        .unwrap();
    body["fields"]["motion"]["type"] = serde_json::json!(300);
    let dump = tmp.join("wide.json");
    std::fs::write(&dump, serde_json::to_string(&json).unwrap()).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let e = hk_gen::dump::build(
        &ctx,
        &dump,
        &tmp.join("never.hkx"),
        None,
        &mut Out::new(&mut out, &mut err),
    )
    .unwrap_err();
    let r = e.runtime().expect("a runtime error");
    assert!(
        matches!(r.kind(), ErrorKind::Write(WriteError::Range { .. })),
        "{r:?}"
    );
    assert!(r.path().iter().any(|p| p.contains("hkpRigidBody")), "{r:?}");
    assert!(e.to_string().contains("300"), "{e}");

    // A dump that is not JSON: the file, line and column.
    let bad = tmp.join("bad.json");
    std::fs::write(&bad, "{\n  \"hk_dump\": 1,\n  oops\n}").unwrap();
    let e = hk_gen::dump::read_dump(&ctx, &bad).unwrap_err();
    let r = e.runtime().expect("a runtime error");
    assert!(
        matches!(r.kind(), ErrorKind::Read(ReadError::Syntax { .. })),
        "{r:?}"
    );
    assert_eq!(r.line_column().map(|(l, _)| l), Some(3), "{e}");
    assert!(
        e.to_string().starts_with(&format!("{}:3:", bad.display())),
        "{e}"
    );

    // A truncated packfile: the offset where reading stopped.
    let bytes = std::fs::read(&file).unwrap();
    let e = ctx.open_bytes(&bytes[..0x100]).unwrap_err();
    assert!(e.runtime().and_then(|r| r.offset()).is_some(), "{e}");
}

/// Writing into a closed pipe ends quietly with status 0 (`hk info FILE | head -1`).
#[test]
fn a_closed_output_pipe_is_not_an_error() {
    let file = root().join("samples/shred_box.hkx");
    let mut child = command()
        .args(["dump", file.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Round trips report the first differing offset and what owns it.
#[test]
fn roundtrip_names_what_owns_the_first_difference() {
    let tmp = temp_dir("differs");
    // A stored signature the writer regenerates differently: the class-name section.
    let mut bytes = std::fs::read(root().join("samples/shred_box.hkx")).unwrap();
    let name = b"hkpBoxShape\0";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap();
    bytes[at - 5] ^= 0xFF;
    let file = tmp.join("changed.hkx");
    std::fs::write(&file, &bytes).unwrap();
    let (code, out, err) = hk(&["roundtrip", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!("differs at 0x{:X} (__classnames__", at - 5))
            && out.contains("0/1 byte-identical"),
        "{out}"
    );
    // A file that is no Havok file, named on the command line, fails; found in a folder, it
    // is skipped.
    std::fs::write(tmp.join("notes.xml"), "<?xml version=\"1.0\"?>").unwrap();
    let (code, out, err) = hk(&["roundtrip", tmp.join("notes.xml").to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("error: ") && err.contains("not a Havok file"),
        "{err}"
    );
    assert!(out.contains("0/1 byte-identical"), "{out}");
    std::fs::remove_file(&file).unwrap();
    std::fs::copy(root().join("samples/shred_box.hkx"), tmp.join("box.hkx")).unwrap();
    let (code, out, _) = hk(&["roundtrip", tmp.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("1 file(s) skipped") && out.contains("1/1 byte-identical"),
        "{out}"
    );
}

/// `hk gen crate` writes a crate for every built-in profile, with the profile's schema
/// files and path dependencies on this checkout (building the crates is
/// `gen_crates.rs`'s job).
#[test]
fn every_profile_generates_a_crate() {
    let tmp = temp_dir("gen");
    for profile in [
        "havok-demo-710",
        "shred",
        "destiny-2012",
        "doom-2016",
        "nso-2023",
    ] {
        let dir = tmp.join(profile);
        let (code, out, err) = hk(&[
            "gen",
            "crate",
            "--game",
            profile,
            "--out",
            dir.to_str().unwrap(),
            "--hk-path",
            root().to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{profile}: {out}{err}");
        assert!(out.contains(&format!("hk-game-{profile}: ")), "{out}");
        let cargo = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let runtime = root().canonicalize().unwrap().join("hk-runtime");
        assert!(
            cargo.contains(&format!("path = \"{}\"", runtime.display())),
            "{cargo}"
        );
        let generation = std::fs::read_to_string(dir.join("schema/generation.toml")).unwrap();
        let profile_text =
            std::fs::read_to_string(root().join("games").join(format!("{profile}.toml"))).unwrap();
        let folder = profile_text
            .lines()
            .find_map(|l| l.strip_prefix("generation = "))
            .unwrap()
            .trim_matches('"');
        assert_eq!(
            generation,
            std::fs::read_to_string(root().join("schemas").join(folder).join("generation.toml"))
                .unwrap(),
            "{profile}: generation.toml is copied as it is"
        );
        assert!(dir.join("src/lib.rs").is_file() && dir.join("README.md").is_file());
    }
}

/// `hk convert`: a folder converts into a mirror of its tree; tagfiles found there are left
/// out with a note; a class laid out for its own rules only is named, and the command exits
/// 2 after converting the rest; presets and digits name the same rules.
#[test]
fn convert_mirrors_a_folder_and_names_what_it_cannot_lay_out() {
    let out = temp_dir("convert");
    let (code, text, err) = hk(&[
        "convert",
        root().join("samples").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--layout",
        "win64",
    ]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(text.contains("left out 5 tagfile(s)"), "{text}");
    assert!(text.contains("to 8101"), "{text}");
    // The 7.1 rigid body's signature is pinned: its layout is known for 7.1's rules only.
    assert!(
        err.contains("shred_box.hkx") && err.contains("class `hkpRigidBody` cannot be laid out"),
        "{err}"
    );
    let skeleton = out.join("havok-demo-710_skeleton.hkx");
    let (code, text, err) = hk(&["info", skeleton.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("ptr=8 LE reusePad=0 emptyBase=1"), "{text}");
    // Back to the PS3 rules by their digits: the sample as committed.
    let back = out.join("back.hkx");
    let (code, _, err) = hk(&[
        "convert",
        skeleton.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
        "--layout",
        "4011",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(root().join("samples/havok-demo-710_skeleton.hkx")).unwrap()
    );
    let (code, _, err) = hk(&[
        "convert",
        skeleton.to_str().unwrap(),
        "-o",
        "x",
        "--layout",
        "xbox",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("xbox360 (4001)"), "{err}");
}

/// Converting the SDK's 7.1 demo folder from its PS3 files gives its 64-bit PC files.
#[test]
fn convert_reproduces_the_sdk_files_of_another_platform() {
    let Some(corpus) = corpus("convert_reproduces_the_sdk_files_of_another_platform") else {
        return;
    };
    let dir = corpus.join("packfile/havoklib-710");
    let out = temp_dir("convert-sdk");
    let ps3: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("[4011].hkx"))
        .collect();
    let mut args = vec!["convert".to_string()];
    args.extend(ps3.iter().map(|p| p.to_string_lossy().into_owned()));
    args.extend([
        "-o".into(),
        out.to_string_lossy().into_owned(),
        "--layout".into(),
        "win64".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, text, err) = hk(&args);
    assert_eq!(code, 0, "{text}{err}");
    assert!(ps3.len() >= 7, "{}", ps3.len());
    for p in &ps3 {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let want = std::fs::read(dir.join(name.replace("[4011]", "[8101]"))).unwrap();
        assert!(std::fs::read(out.join(&name)).unwrap() == want, "{name}");
    }
}

/// `hk dump --format xml` then `hk build --layout`: the SDK's PS3 file as Havok XML builds
/// the SDK's 64-bit PC file; without `--layout` it builds the PS3 file again.
#[test]
fn xml_dump_builds_back_and_for_another_platform() {
    let Some(corpus) = corpus("xml_dump_builds_back_and_for_another_platform") else {
        return;
    };
    let dir = corpus.join("packfile/havoklib-710");
    let out = temp_dir("xml");
    let ps3 = dir.join("allosaur[4011].hkx");
    let xml = out.join("allosaur.xml");
    let (code, text, err) = hk(&[
        "dump",
        ps3.to_str().unwrap(),
        "--format",
        "xml",
        "-o",
        xml.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    let written = std::fs::read_to_string(&xml).unwrap();
    assert!(
        written.contains("<hkpackfile classversion=\"7\""),
        "{written:.300}"
    );
    assert!(written.contains("<hkparam name=\"parentIndices\" numelements="));
    for (layout, want) in [(None, "[4011]"), (Some("win64"), "[8101]")] {
        let built = out.join(format!("built{want}.hkx"));
        let mut args = vec![
            "build",
            xml.to_str().unwrap(),
            "-o",
            built.to_str().unwrap(),
        ];
        if let Some(l) = layout {
            args.extend(["--layout", l]);
        }
        let (code, text, err) = hk(&args);
        assert_eq!(code, 0, "{text}{err}");
        let sdk = std::fs::read(dir.join(format!("allosaur{want}.hkx"))).unwrap();
        assert!(std::fs::read(&built).unwrap() == sdk, "{want}");
    }
    // `hk convert` reads XML too.
    let converted = out.join("converted.hkx");
    let (code, text, err) = hk(&[
        "convert",
        xml.to_str().unwrap(),
        "-o",
        converted.to_str().unwrap(),
        "--layout",
        "8101",
    ]);
    assert_eq!(code, 0, "{text}{err}");
    let sdk = std::fs::read(dir.join("allosaur[8101].hkx")).unwrap();
    assert!(std::fs::read(&converted).unwrap() == sdk, "convert");
    // A mistyped tag is an error with its line and column.
    std::fs::write(&xml, written.replacen("</hkparam>", "</hkparan>", 1)).unwrap();
    let (code, _, err) = hk(&["build", xml.to_str().unwrap(), "-o", "never.hkx"]);
    assert_ne!(code, 0);
    // The first `</hkparam>` closes line 11's param at column 32 (after the
    // `SERIALIZE_IGNORED` comments of the SDK dialect).
    assert!(err.contains("allosaur.xml:11:32: "), "{err}");
    assert!(err.contains("</hkparan>"), "{err}");
}
