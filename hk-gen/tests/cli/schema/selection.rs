//! The schema-selection rule seen from the command line (docs/schema-selection.md): each
//! way a file used to be read or written with another version's folder without a word now
//! either passes a check on the file and says so, or is refused with what was tried.

use std::path::{Path, PathBuf};

use hk_runtime::packfile::Packfile;
use hk_runtime::schema::signature;
use hk_runtime::{Endian, Schema};

use crate::support::{command, hk, run};
use hk_tests::{corpus, root, temp_dir};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Copies schema folder `name` from the checkout's `schemas/` into `root`.
fn copy_schema(name: &str, root: &Path) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let p = e.unwrap().path();
            let q = to.join(p.file_name().unwrap());
            if p.is_dir() {
                copy(&p, &q);
            } else {
                std::fs::copy(&p, &q).unwrap();
            }
        }
    }
    copy(&root_schemas().join(name), &root.join(name));
}

fn root_schemas() -> PathBuf {
    root().join("schemas")
}

/// `bytes` with its header's contents version replaced by `version` (same length).
fn relabel(bytes: &[u8], version: &str) -> Vec<u8> {
    let old = Packfile::parse(bytes).unwrap().header.contents_version();
    assert_eq!(old.len(), version.len(), "{old} -> {version}");
    let mut out = bytes.to_vec();
    let header = &mut out[..0x40];
    let at = header
        .windows(old.len())
        .position(|w| w == old.as_bytes())
        .expect("the contents version is in the header");
    header[at..at + old.len()].copy_from_slice(version.as_bytes());
    out
}

/// `bytes` with the stored signature of each class in `classes` replaced by what schema
/// folder `folder` computes for it; asserts each one changes.
fn resign(bytes: &[u8], folder: &str, classes: &[&str]) -> Vec<u8> {
    let schema = Schema::load(root_schemas().join(folder)).unwrap();
    let pf = Packfile::parse(bytes).unwrap();
    let names = pf
        .sections
        .iter()
        .find(|s| s.tag == "__classnames__")
        .unwrap()
        .start;
    let mut out = bytes.to_vec();
    for class in classes {
        let cn = pf.class_names.iter().find(|c| c.name == *class).unwrap();
        let new = signature::compute(&schema, class).unwrap();
        assert_ne!(
            new, cn.signature,
            "{class}: {folder} gives the stored value"
        );
        let enc = |v: u32| match pf.header.layout.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        // Each entry is the signature, a tag byte, then the name the offset points at.
        let at = (names + cn.offset) as usize - 5;
        assert_eq!(out[at..at + 4], enc(cn.signature), "{class}");
        out[at..at + 4].copy_from_slice(&enc(new));
    }
    out
}

/// What was silent: a file of a version with no folder read with the nearest one. Now the
/// nearest folder is taken only when every stored signature recomputes from it, and `hk
/// info` says so; the file still round-trips.
#[test]
fn a_nearest_folder_is_used_when_every_stored_signature_recomputes_and_info_says_so() {
    let tmp = temp_dir("nearest");
    let sample = std::fs::read(root().join("samples/destiny-2012_compound.hkx")).unwrap();
    let (code, out, err) = hk(&["info", s(&root().join("samples/destiny-2012_compound.hkx"))]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("schema: havok-2012.2 (exact)"), "{out}");
    let stored = Packfile::parse(&sample).unwrap().class_names.len();
    let file = tmp.join("hk_2011.hkx");
    std::fs::write(&file, relabel(&sample, "hk_2011.1.0-r1")).unwrap();
    let (code, out, err) = hk(&["info", s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!(
            "schema: havok-2012.2 (nearest: hk_2011.1.0-r1 has no folder; all {stored} stored signatures recompute)"
        )),
        "{out}"
    );
    assert!(err.is_empty(), "{err}");
    let (code, out, err) = hk(&["roundtrip", s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1/1 byte-identical"), "{out}");
    // A dump names the folder it was read with, so it builds back without the rule.
    let dump = tmp.join("d.json");
    let (code, _, err) = hk(&["dump", s(&file), "-o", s(&dump)]);
    assert_eq!(code, 0, "{err}");
    let built = tmp.join("b.hkx");
    let (code, _, err) = hk(&["build", s(&dump), "-o", s(&built)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&built).unwrap(),
        std::fs::read(&file).unwrap()
    );
}

/// What was silent: an `hk_2011.1.0-r1` file read with a neighbour whose classes are not
/// its own, failing far from the cause. The file here mixes generations as a version
/// between two folders does: 2012.2's physics classes, 2010.2's reflection classes.
#[test]
fn a_version_without_a_folder_whose_signatures_disagree_is_refused_naming_what_was_tried() {
    let tmp = temp_dir("refused");
    let sample = std::fs::read(root().join("samples/destiny-2012_compound.hkx")).unwrap();
    let mixed = resign(
        &relabel(&sample, "hk_2011.1.0-r1"),
        "havok-2010.2",
        &["hkClass", "hkClassMember"],
    );
    let stored = Packfile::parse(&mixed).unwrap().class_names.len();
    let file = tmp.join("hk_2011_mixed.hkx");
    std::fs::write(&file, &mixed).unwrap();
    for args in [vec!["info"], vec!["dump"], vec!["schema", "check", "-q"]] {
        let mut a = args.clone();
        a.push(s(&file));
        let (code, out, err) = hk(&a);
        if args[0] == "schema" {
            // `check` compares with the closest folder, warning that none passes.
            assert_eq!(code, 1, "{out}{err}");
            assert!(
                err.contains("warning:") && err.contains("no schema folder passes"),
                "{err}"
            );
            continue;
        }
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        for needle in [
            "no schema folder is of hk_2011.1.0-r1",
            // 2012.2 recomputes all but the two classes taken from 2010.2.
            &format!("havok-2012.2: {}/{stored}", stored - 2),
            "havok-2010.2: ",
            "--schema DIR",
            "schemas/README.md",
            "Adding a version when files carry only signatures",
            "--lenient",
        ] {
            assert!(err.contains(needle), "{args:?}: `{needle}` in {err}");
        }
    }
    // A file that cannot be read is an error (docs/exit-codes.md), not a difference.
    let (code, _, err) = hk(&["roundtrip", s(&file)]);
    assert_eq!(code, 2, "{err}");
    // Lenient reading takes the closest folder, and warns.
    let (code, out, err) = hk(&["info", "--lenient", s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("closest, read leniently: hk_2011.1.0-r1 has no folder and none passes"),
        "{out}"
    );
    assert!(
        err.contains("warning:") && err.contains("may not be its own"),
        "{err}"
    );
    // `--schema NAME` (a folder among the schemas) or `--schema DIR` reads it anyway,
    // saying how the folder fares.
    let dir = root_schemas().join("havok-2012.2");
    for given in ["havok-2012.2", s(&dir)] {
        let (code, out, err) = hk(&["info", "--schema", given, s(&file)]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            out.contains(&format!(
                "schema: {given} (given; {} of {stored} stored signatures recompute)",
                stored - 2
            )),
            "{out}"
        );
        assert!(err.contains("warning:"), "{err}");
    }
    let (code, _, err) = hk(&["info", "--schema", "havok-2099.1", s(&file)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("schema `havok-2099.1`") && err.contains("havok-2012.2"),
        "{err}"
    );
    // A dump read with a folder given by path names that path; building it back needs the
    // folder again rather than falling back to a neighbour.
    let dump = tmp.join("given.json");
    let (code, _, err) = hk(&["dump", "--schema", s(&dir), s(&file), "-o", s(&dump)]);
    assert_eq!(code, 0, "{err}");
    let built = tmp.join("given.hkx");
    let (code, _, err) = hk(&["build", s(&dump), "-o", s(&built)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no folder is of hk_2011.1.0-r1") && err.contains("--schema"),
        "{err}"
    );
    let (code, _, err) = hk(&["build", "--schema", s(&dir), s(&dump), "-o", s(&built)]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = hk(&["diff", "--schema", s(&dir), s(&file), s(&built)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 difference(s)"), "{out}");

    // The case this guards: an animation binding read with a neighbour's classes failed
    // in `partitionIndices`. Relabelled, the 2010.2 corpus file is read with its folder;
    // given 2012.2's classes, the error names the classes and how few signatures matched.
    let Some(corpus) = corpus(
        "a_version_without_a_folder_whose_signatures_disagree_is_refused_naming_what_was_tried",
    ) else {
        return;
    };
    let animref = std::fs::read(corpus.join("packfile/havoklib-2010_2/animref[4101].hkx")).unwrap();
    let file = tmp.join("animref_2011.hkx");
    std::fs::write(&file, relabel(&animref, "hk_2011.1.0-r1")).unwrap();
    let (code, out, err) = hk(&["info", s(&file)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("havok-2010.2 (nearest: hk_2011.1.0-r1 has no folder; all 9 stored signatures recompute)"),
        "{out}"
    );
    let (code, _, err) = hk(&["dump", "--schema", "havok-2012.2", s(&file)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("classes of havok-2012.2 (given; 4 of 9 stored signatures recompute)")
            && err.contains("partitionIndices"),
        "{err}"
    );
}

/// A tagfile carries its own types, but its folder gives the rules that write it back.
fn sdk_corrupted(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let tf = hk_runtime::tagfile::TagFile::parse(bytes).unwrap();
    assert_eq!(tf.sdk_version, from);
    let sdkv = tf.root.child(b"SDKV").expect("an SDKV section");
    let mut out = bytes.to_vec();
    let body = &mut out[sdkv.offset as usize..(sdkv.offset + sdkv.size) as usize];
    let at = body
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .unwrap();
    body[at..at + to.len()].copy_from_slice(to.as_bytes());
    out
}

/// What was silent: a tagfile whose SDKV is corrupted to `70150100` was written back with
/// the newest generation's rules, 10 KB shorter. Now the rules of another version stand in
/// only when they write the file back byte for byte (and `info` says which); otherwise
/// strict reading refuses, and lenient reading warns.
#[test]
fn a_tagfile_of_an_sdk_without_a_folder_names_the_writer_rules_or_is_refused() {
    let Some(corpus) =
        corpus("a_tagfile_of_an_sdk_without_a_folder_names_the_writer_rules_or_is_refused")
    else {
        return;
    };
    let tmp = temp_dir("sdkv");
    let original =
        std::fs::read(corpus.join("games/dark-souls-remastered/c2240_ragdoll.hkx")).unwrap();
    let file = tmp.join("sdkv_70150100.hkx");
    std::fs::write(&file, sdk_corrupted(&original, "20150100", "70150100")).unwrap();
    let (code, out, err) = hk(&["info", s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("SDK version 70150100"), "{out}");
    assert!(
        out.contains("writer rules of havok-2015.1 (nearest: SDK 70150100 has no folder; its rules write the file back byte for byte; nearer ones tried: havok-2023.2: written back, differs at 0x"),
        "{out}"
    );
    let (code, out, err) = hk(&["roundtrip", s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1/1 byte-identical"), "{out}");

    // Only a folder whose rules do not write it back: refused, naming what was tried.
    let only = tmp.join("schemas");
    copy_schema("havok-2022.1", &only);
    let with = |args: &[&str]| run(command().arg("--schemas").arg(&only).args(args));
    for cmd in ["info", "dump"] {
        let (code, out, err) = with(&[cmd, s(&file)]);
        assert_eq!(code, 2, "{cmd}: {out}{err}");
        for needle in [
            "no schema folder is of SDK 70150100",
            "havok-2022.1: written back, differs at 0x",
            "--schema NAME",
            "--lenient",
        ] {
            assert!(err.contains(needle), "{cmd}: `{needle}` in {err}");
        }
    }
    let (code, out, _) = with(&["roundtrip", s(&file)]);
    assert_eq!(code, 2);
    assert!(out.contains("0/1 byte-identical"), "{out}");
    // Leniently it is written with those rules, shorter, and with a warning saying so.
    let (code, out, err) = with(&["roundtrip", "--lenient", s(&file)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("warning:")
            && err.contains("writer rules of havok-2022.1 (closest, read leniently"),
        "{err}"
    );
    let lengths = out
        .split("; ")
        .nth(1)
        .and_then(|t| t.split(" out").next())
        .unwrap();
    let (inn, outn) = lengths.split_once(" bytes in, ").unwrap();
    let (inn, outn): (usize, usize) = (inn.parse().unwrap(), outn.parse().unwrap());
    assert_eq!(inn, original.len());
    assert!(outn < inn, "{out}");
    // `--schema NAME` names the rules; `info` says how they fare.
    let (code, out, err) = hk(&["info", "--schema", "havok-2022.1", s(&file)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("writer rules of havok-2022.1 (given; its rules: written back, differs at 0x"),
        "{out}"
    );
    assert!(err.contains("warning:"), "{err}");
}

/// The same rule without the corpus: the 2016 sample with its SDK version corrupted.
#[test]
fn a_sample_tagfile_of_an_unknown_sdk_is_written_with_rules_that_reproduce_it() {
    let tmp = temp_dir("sdkv-sample");
    let sample = std::fs::read(root().join("samples/doom-2016_box.hkshape")).unwrap();
    let sdk = hk_runtime::tagfile::TagFile::parse(&sample)
        .unwrap()
        .sdk_version;
    let bad: String = std::iter::once('7').chain(sdk.chars().skip(1)).collect();
    let file = tmp.join("box.hkshape");
    std::fs::write(&file, sdk_corrupted(&sample, &sdk, &bad)).unwrap();
    let (code, out, err) = hk(&["info", s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    // 2023.2 and 2022.1 are nearer and fail; havok-2018.1, the next, has 2016's rules.
    assert!(
        out.contains(&format!(
            "writer rules of havok-2018.1 (nearest: SDK {bad} has no folder; its rules write the file back byte for byte"
        )),
        "{out}"
    );
    let (code, out, err) = hk(&["roundtrip", s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
}

/// What was silent: a `generation.toml` with a value of the wrong type left its folder out
/// without a word. Now it is an error of every command, naming the file, line and key.
#[test]
fn a_broken_generation_file_is_an_error_everywhere_with_file_line_and_key() {
    let tmp = temp_dir("broken");
    let root_dir = tmp.join("schemas");
    copy_schema("havok-7.1", &root_dir);
    copy_schema("havok-2010.2", &root_dir);
    let gen = root_dir.join("havok-2010.2/generation.toml");
    let text = std::fs::read_to_string(&gen).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("file_version"))
        .unwrap()
        + 1;
    std::fs::write(
        &gen,
        text.replacen("file_version = 8", "file_version = \"9\"", 1),
    )
    .unwrap();
    let at = format!("{}:{line}:", gen.display());
    let sample = root().join("samples/shred_box.hkx");
    let cases: Vec<Vec<&str>> = vec![
        vec!["schema", "verify"],
        vec!["info", s(&sample)],
        vec!["dump", s(&sample)],
        vec!["roundtrip", s(&sample)],
        vec!["schema", "check", s(&sample)],
        vec!["schema", "signatures", "havok-7.1"],
    ];
    for how in ["flag", "env"] {
        for args in &cases {
            let mut cmd = command();
            match how {
                "flag" => cmd.arg("--schemas").arg(&root_dir),
                _ => cmd.env("HK_SCHEMAS", &root_dir),
            };
            let (code, out, err) = run(cmd.args(args));
            assert_eq!(code, 2, "{how} {args:?}: {out}{err}");
            assert!(
                err.contains("havok-2010.2")
                    && err.contains(&at)
                    && err.contains("`file_version`")
                    && err.contains("\"9\""),
                "{how} {args:?}: {err}"
            );
        }
    }
    // A broken folder named directly is the same error.
    let (code, _, err) = hk(&["schema", "verify", s(&root_dir.join("havok-2010.2"))]);
    assert_eq!(code, 2);
    assert!(err.contains(&at) && err.contains("`file_version`"), "{err}");
}
