//! A version's folder from several neighbours (`hk schema new --from A B --roots-of FILE`),
//! its signatures stated by `hk schema record`, and the hints errors give, on a Havok
//! 2010.1 level file made by hk from a corpus 2010.2 one.

use std::path::{Path, PathBuf};

use hk_runtime::packfile::Packfile;

use super::new_version::{class_toml, copy_dir, edit, files_in, hk_with, s};
use hk_tests::{corpus, root, temp_dir};

/// The Dark Souls level file: 2010.2, with hkpMoppBvTreeShape, hkpMoppCode and an extended
/// mesh shape.
fn level(corpus: &Path) -> PathBuf {
    corpus.join("games/dark-souls-ptde/map_collision_template.hkx")
}

/// `(class, stored signature)` of a packfile, in file order.
fn stored(file: &Path) -> Vec<(String, u32)> {
    let data = std::fs::read(file).unwrap();
    let pf = Packfile::parse(&data).unwrap();
    pf.class_names
        .iter()
        .map(|c| (c.name.to_string(), c.signature))
        .collect()
}

/// The level file as Havok 2010.1 would store it, written by hk: its dump with the 2010.1
/// header, built with a folder of havok-2010.1's classes where it has them (the reflection
/// classes) and havok-2010.2's for the rest. `tweak` edits a class file of that folder
/// first (`class`, text, replacement): the file then stores a signature no shipped folder
/// computes.
fn level_2010_1(corpus: &Path, t: &Path, tweak: Option<(&str, &str, &str)>) -> PathBuf {
    let (code, dump, err) = hk_with(None, &["dump", s(&level(corpus))]);
    assert_eq!(code, 0, "{err}");
    let dump = dump
        .replacen("\"file_version\": 8,", "\"file_version\": 7,", 1)
        .replacen("\"hk_2010.2.0-r1\"", "\"hk_2010.1.0-r1\"", 1);
    let json = t.join("level.json");
    std::fs::write(&json, dump).unwrap();
    let writer = t.join("writer");
    let (code, out, err) = new_2010_1(&level(corpus), &writer);
    assert_eq!(code, 0, "{out}{err}");
    if let Some((class, from, to)) = tweak {
        edit(&writer.join(format!("classes/{class}.toml")), from, to);
    }
    let file = t.join("level_2010_1.hkx");
    let (code, out, err) = hk_with(
        None,
        &["build", "--schema", s(&writer), s(&json), "-o", s(&file)],
    );
    assert_eq!(code, 0, "{out}{err}");
    // A real 2010.1 file stores the same reflection-class signatures.
    let allosaur = corpus.join("packfile/havoklib-2010_2/allosaur_run[4101].hkx");
    let real = stored(&allosaur);
    let made = stored(&file);
    assert_eq!(made[..4], real[..4]);
    file
}

/// `hk schema new --from havok-2010.1 havok-2010.2 --version hk_2010.1.0-r1 --roots-of
/// ROOTS -o OUT`: exit code, stdout, stderr.
fn new_2010_1(roots: &Path, out: &Path) -> (i32, String, String) {
    hk_with(
        None,
        &[
            "schema",
            "new",
            "--from",
            "havok-2010.1",
            "havok-2010.2",
            "--version",
            "hk_2010.1.0-r1",
            "--roots-of",
            s(roots),
            "-o",
            s(out),
        ],
    )
}

fn header(file: &Path) -> [u8; 20] {
    std::fs::read(file).unwrap()[..20].try_into().unwrap()
}

fn generation(dir: &Path) -> toml::Table {
    std::fs::read_to_string(dir.join("generation.toml"))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn new_takes_each_class_from_the_first_folder_and_the_layout_from_the_files() {
    let Some(corpus) = corpus("new_takes_each_class_from_the_first_folder") else {
        return;
    };
    let t = temp_dir("new-sources");
    let out = t.join("havok-2010.1-level");
    let file = level(&corpus);
    let (code, stdout, err) = new_2010_1(&file, &out);
    assert_eq!(code, 0, "{stdout}{err}");
    let first = root().join("schemas/havok-2010.1");
    let second = root().join("schemas/havok-2010.2");
    let (in_first, in_second) = (files_in(&first), files_in(&second));
    let (mut n1, mut n2) = (0, 0);
    for c in files_in(&out) {
        let from = if in_first.contains(&c) {
            n1 += 1;
            &first
        } else {
            assert!(in_second.contains(&c), "{c}");
            n2 += 1;
            &second
        };
        let (made, src) = (class_toml(&out, &c), class_toml(from, &c));
        assert_eq!(made.get("enums"), src.get("enums"), "{c}");
        assert_eq!(made.get("parent"), src.get("parent"), "{c}");
        let names = |t: &toml::Table| -> Vec<String> {
            let m = t.get("members").and_then(|m| m.as_array());
            m.into_iter()
                .flatten()
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names(&made), names(&src), "{c}");
        // The neighbours' stated values are not copied.
        for key in ["signature", "size", "note", "pinned"] {
            assert!(!made.contains_key(key), "{c}: {key}");
        }
        let members = made.get("members").and_then(|m| m.as_array());
        assert!(
            members
                .into_iter()
                .flatten()
                .all(|m| m.get("offset").is_none()),
            "{c}"
        );
    }
    assert!(n1 > 0 && n2 > 0, "{n1} {n2}");
    assert!(
        err.contains(&format!("{n1} classes from havok-2010.1")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{n2} classes from havok-2010.2")),
        "{err}"
    );
    // The layout bytes and file version of the file's header.
    let h = header(&file);
    let g = generation(&out);
    let l = g["layout"].as_table().unwrap();
    assert_eq!(l["pointer_size"].as_integer(), Some(i64::from(h[16])));
    let endian = if h[17] == 1 { "little" } else { "big" };
    assert_eq!(l["endian"].as_str(), Some(endian));
    assert_eq!(l["reuse_padding"].as_bool(), Some(h[18] == 1));
    assert_eq!(l["empty_base"].as_bool(), Some(h[19] == 1));
    let version = u32::from_le_bytes(h[12..16].try_into().unwrap());
    assert_eq!(g["file_version"].as_integer(), Some(i64::from(version)));
    // Nothing stated, nothing to disagree with.
    let (code, v, e) = hk_with(None, &["schema", "verify", s(&out)]);
    assert_eq!(code, 0, "{v}{e}");
    assert!(v.contains("offsets and sizes 0/0; signatures 0/0"), "{v}");

    // A big-endian Havok 5.5 file from havok-2010.2 (little endian, string boundary 2):
    // the file's layout and its boundary of 1; roots 2010.2 lacks are a warning, and the
    // folder written a success.
    let be55 = corpus.join("packfile/havoklib-550/allosaur[4001].hkx");
    let h = header(&be55);
    assert_eq!(h[17], 0, "a big-endian file");
    let out55 = t.join("from-2010.2");
    let (code, stdout, err) = hk_with(
        None,
        &[
            "schema",
            "new",
            "--from",
            "havok-2010.2",
            "--version",
            "Havok-5.5.0-r1",
            "--roots-of",
            s(&be55),
            "-o",
            s(&out55),
        ],
    );
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(
        err.contains("warning: ") && err.contains("roots are not in havok-2010.2"),
        "{err}"
    );
    let g = generation(&out55);
    assert_eq!(g["layout"]["endian"].as_str(), Some("big"));
    assert_eq!(g["file_version"].as_integer(), Some(5));
    assert_eq!(g["packfile"]["string_align"].as_integer(), Some(1));
    // And the other way: havok-5.5's boundary of 1 is not kept for a 2010.1 file.
    let allosaur = corpus.join("packfile/havoklib-2010_2/allosaur_run[4101].hkx");
    let out101 = t.join("from-5.5");
    let (code, stdout, err) = hk_with(
        None,
        &[
            "schema",
            "new",
            "--from",
            "havok-5.5",
            "--version",
            "hk_2010.1.0-r1",
            "--roots-of",
            s(&allosaur),
            "-o",
            s(&out101),
        ],
    );
    assert_eq!(code, 0, "{stdout}{err}");
    let g = generation(&out101);
    assert!(
        g.get("packfile").is_none(),
        "string_align 2 is the default: {g}"
    );
    assert_eq!(g["layout"]["endian"].as_str(), Some("little"));
}

#[test]
fn record_states_the_signatures_a_folder_computes_and_lists_the_rest() {
    let Some(corpus) = corpus("record_states_the_signatures_a_folder_computes") else {
        return;
    };
    let t = temp_dir("record");
    let case = level_2010_1(&corpus, &t, None);
    // The folder of its version lacks the physics classes: explain names the folders that
    // compute them, the one that computes the most first, as a `schema new` to run.
    let (code, out, err) = hk_with(None, &["schema", "explain", s(&case)]);
    assert_eq!(code, 1, "{out}{err}");
    let hint = format!(
        "next: hk schema new --from havok-2010.1 havok-2010.2 --version hk_2010.1.0-r1 --roots-of {}",
        s(&case)
    );
    assert!(out.contains(&hint), "{out}");
    let schemas = t.join("schemas");
    let dir = schemas.join("havok-2010.1-level");
    let (code, out, err) = new_2010_1(&case, &dir);
    assert_eq!(code, 0, "{out}{err}");
    // A comment the user wrote, and one class made to disagree.
    let shape = dir.join("classes/hkpMoppBvTreeShape.toml");
    let before = format!(
        "# kept as written\n{}",
        std::fs::read_to_string(&shape).unwrap()
    );
    std::fs::write(&shape, &before).unwrap();
    let code_file = dir.join("classes/hkpMoppCode.toml");
    edit(&code_file, "\"BUILD_NOT_SET\"", "\"BUILD_NOT_SET_RENAMED\"");
    let classes = stored(&case);
    let code_sig = classes.iter().find(|c| c.0 == "hkpMoppCode").unwrap().1;

    let (code, out, err) = hk_with(None, &["schema", "record", s(&dir), s(&case)]);
    assert_eq!(code, 0, "disagreeing classes are a report: {out}{err}");
    let n = classes.len();
    assert!(
        out.contains(&format!(
            "recorded {} stored signatures; 0 already stated; 1 disagree",
            n - 1
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("hkpMoppCode: stored 0x{code_sig:08X}")),
        "{out}"
    );
    assert!(out.contains("next: hk schema explain --schema"), "{out}");
    for (c, sig) in &classes {
        let t = class_toml(&dir, c);
        let want = format!("0x{sig:08X}");
        let have = t.get("signature").and_then(|v| v.as_str());
        if c == "hkpMoppCode" {
            assert_eq!(have, None, "{c}");
        } else {
            assert_eq!(have, Some(want.as_str()), "{c}");
        }
    }
    // The rest of the file is as it was: only the signature line is new.
    let after = std::fs::read_to_string(&shape).unwrap();
    let without: String = after
        .lines()
        .filter(|l| !l.starts_with("signature = "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(without, before);
    let (code, v, e) = hk_with(None, &["schema", "verify", s(&dir)]);
    assert_eq!(code, 0, "{v}{e}");
    assert!(
        v.contains(&format!("signatures {}/{}", n - 1, n - 1)),
        "{v}"
    );

    // The fix, recorded: every class now states its signature; a second run writes nothing.
    edit(&code_file, "\"BUILD_NOT_SET_RENAMED\"", "\"BUILD_NOT_SET\"");
    let (code, out, _) = hk_with(None, &["schema", "record", s(&dir), s(&case)]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!(
            "recorded 1 stored signatures; {} already stated; 0 disagree",
            n - 1
        )),
        "{out}"
    );
    let (code, out, _) = hk_with(None, &["schema", "record", s(&dir), s(&case)]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!("recorded 0 stored signatures; {n} already stated")),
        "{out}"
    );
    // The folder reads the file and writes it back byte for byte.
    let (code, out, err) = hk_with(Some(&schemas), &["roundtrip", s(&case)]);
    assert_eq!((code, out.trim()), (0, "1/1 byte-identical"), "{err}");
    let (_, info, _) = hk_with(Some(&schemas), &["info", s(&case)]);
    assert!(
        info.contains("schema: havok-2010.1-level (exact)"),
        "{info}"
    );

    // Errors (exit 2), with nothing written: a generation name instead of a folder, a
    // tagfile, a class file that is a symbolic link out of the folder.
    let (code, _, err) = hk_with(None, &["schema", "record", "havok-2010.2", s(&case)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a schema folder"), "{err}");
    let tagfile = corpus.join("games/dark-souls-remastered/map_collision_template.hkx");
    let (code, _, err) = hk_with(None, &["schema", "record", s(&dir), s(&tagfile)]);
    assert_eq!(code, 2, "{err}");
    let dir2 = t.join("linked");
    copy_dir(&dir, &dir2);
    let victim = dir2.join("classes/hkpPhysicsData.toml");
    let text = std::fs::read_to_string(&victim).unwrap();
    let unsigned: String = text
        .lines()
        .filter(|l| !l.starts_with("signature = "))
        .map(|l| format!("{l}\n"))
        .collect();
    let outside = t.join("outside.toml");
    std::fs::write(&outside, &unsigned).unwrap();
    std::fs::remove_file(&victim).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, &victim).unwrap();
        let (code, _, err) = hk_with(None, &["schema", "record", s(&dir2), s(&case)]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), unsigned);
    }
}

#[test]
fn errors_say_what_the_generation_or_the_user_has_instead() {
    // A member type the generation lacks: the hint is the same kind of type its table has.
    let t = temp_dir("hints");
    let g = t.join("havok-x");
    std::fs::create_dir_all(g.join("classes")).unwrap();
    let gen55 = std::fs::read_to_string(root().join("schemas/havok-5.5/generation.toml")).unwrap();
    let gen55 = gen55.replacen("name = \"havok-5.5\"", "name = \"havok-x\"", 1);
    std::fs::write(g.join("generation.toml"), &gen55).unwrap();
    std::fs::write(
        g.join("classes/hkNamed.toml"),
        "name = \"hkNamed\"\n\n[[members]]\nname = \"name\"\ntype = \"stringptr\"\n",
    )
    .unwrap();
    let (code, out, err) = hk_with(None, &["schema", "verify", s(&g)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(
            "type `stringptr` is not a member type of havok-x; of the same kind it has `cstring`"
        ),
        "{err}"
    );
    // Taken from the table: without `cstring` there, nothing to suggest.
    let line = gen55.lines().find(|l| l.starts_with("cstring = ")).unwrap();
    std::fs::write(
        g.join("generation.toml"),
        gen55.replacen(&format!("{line}\n"), "", 1),
    )
    .unwrap();
    let (code, _, err) = hk_with(None, &["schema", "verify", s(&g)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("type `stringptr` is not a member type of havok-x"),
        "{err}"
    );
    assert!(!err.contains("of the same kind"), "{err}");

    // A class no shipped folder computes: explain says what to do next, naming the guide's
    // sections, `hk schema record` and every format `hk schema import` takes.
    let Some(corpus) = corpus("errors_say_what_the_generation_or_the_user_has_instead") else {
        return;
    };
    let renamed = (
        "hkpMoppCode",
        "\"BUILD_NOT_SET\"",
        "\"BUILD_NOT_SET_RENAMED\"",
    );
    let case = level_2010_1(&corpus, &t, Some(renamed));
    let dir = t.join("havok-2010.1-level");
    let (code, out, err) = new_2010_1(&case, &dir);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = hk_with(None, &["schema", "explain", "--schema", s(&dir), s(&case)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("no shipped folder computes"), "{out}");
    let (_, help, _) = hk_with(None, &["schema", "import", "-h"]);
    let formats = help
        .lines()
        .find_map(|l| l.split_once("[possible values: "))
        .map(|(_, v)| v.trim_end_matches(']').replace(", ", "|"))
        .unwrap_or_else(|| panic!("{help}"));
    for want in [
        "next: edit classes/hkpMoppCode.toml",
        "then `hk schema record`",
        "\"Adding a version when files carry only signatures\"",
        "\"A class no folder has\"",
        &format!("hk schema import DUMP -o DIR [--format {formats}]"),
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    let guide = std::fs::read_to_string(root().join("schemas/README.md")).unwrap();
    for section in [
        "Adding a version when files carry only signatures",
        "A class no folder has",
    ] {
        assert!(guide.contains(&format!("# {section}")), "{section}");
    }
}
