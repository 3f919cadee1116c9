//! Adding a version from files that carry only signatures: `hk schema new` and `hk schema
//! explain` end to end (the walkthrough of schemas/README.md).

use std::collections::BTreeSet;
use std::path::Path;

use hk_runtime::packfile::Packfile;

use crate::support::command;
use hk_tests::{corpus, root, temp_dir};

/// `hk ARGS`: exit code, stdout, stderr. Built-in schemas unless `schemas` names a root.
pub(super) fn hk_with(schemas: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut cmd = command();
    cmd.env_remove("HK_SCHEMAS").env_remove("HK_GAMES");
    if let Some(s) = schemas {
        cmd.arg("--schemas").arg(s);
    }
    let out = cmd.args(args).output().expect("run hk");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(super) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub(super) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Replaces `from` by `to` in a file, once; panics unless it occurs exactly once.
pub(super) fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert_eq!(
        text.matches(from).count(),
        1,
        "{}: `{from}`",
        file.display()
    );
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

/// A class file of a schema folder, as TOML.
pub(super) fn class_toml(dir: &Path, class: &str) -> toml::Table {
    let p = dir.join("classes").join(format!("{class}.toml"));
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .parse()
        .unwrap()
}

/// The closure of `roots` in the folder `dir`, read from its TOML directly: parents, member
/// classes (`class = ...`) and classes of `Class.Enum` references.
fn closure_of(dir: &Path, roots: &[&str]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
    while let Some(c) = todo.pop() {
        if !seen.insert(c.clone()) {
            continue;
        }
        let t = class_toml(dir, &c);
        if let Some(p) = t.get("parent").and_then(|v| v.as_str()) {
            todo.push(p.to_string());
        }
        for m in t
            .get("members")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(cl) = m.get("class").and_then(|v| v.as_str()) {
                todo.push(cl.to_string());
            }
            if let Some((owner, _)) = m
                .get("enum")
                .and_then(|v| v.as_str())
                .and_then(|e| e.split_once('.'))
            {
                todo.push(owner.to_string());
            }
        }
    }
    seen
}

pub(super) fn files_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir.join("classes"))
        .unwrap()
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".toml")
                .to_string()
        })
        .collect()
}

/// The number in `... of N classes` after `prefix` on some line of `out`.
fn number_after(out: &str, prefix: &str) -> usize {
    let at = out
        .find(prefix)
        .unwrap_or_else(|| panic!("`{prefix}` in:\n{out}"));
    out[at + prefix.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn new_copies_the_closure_and_drops_every_stated_signature() {
    let src = root().join("schemas/havok-2010.2");
    let t = temp_dir("closure");
    let out = t.join("havok-2011.1");
    let (code, stdout, err) = hk_with(
        None,
        &[
            "schema",
            "new",
            "--from",
            "havok-2010.2",
            "--version",
            "hk_2011.1.0-r1",
            "--roots",
            "hkaSkeleton",
            "hkaAnimationContainer",
            "-o",
            s(&out),
        ],
    );
    assert_eq!(code, 0, "{stdout}{err}");
    let want = closure_of(
        &src,
        &[
            "hkaSkeleton",
            "hkaAnimationContainer",
            "hkClass",
            "hkClassMember",
            "hkClassEnum",
            "hkClassEnumItem",
        ],
    );
    assert_eq!(files_in(&out), want);
    let stated = want
        .iter()
        .filter(|c| {
            let t = class_toml(&src, c);
            t.contains_key("signature") || t.contains_key("pinned")
        })
        .count();
    assert!(stated > 10, "{stated}");
    assert_eq!(
        number_after(&stdout, "dropped the stated signatures of "),
        stated,
        "{stdout}"
    );
    for c in &want {
        let t = class_toml(&out, c);
        assert!(
            !t.contains_key("signature") && !t.contains_key("pinned"),
            "{c}"
        );
        // Everything else is copied: members (without the neighbour's stated offsets)
        // and enums.
        let mut before = class_toml(&src, c);
        if let Some(toml::Value::Array(members)) = before.get_mut("members") {
            for m in members.iter_mut().filter_map(|m| m.as_table_mut()) {
                m.remove("offset");
            }
        }
        assert_eq!(t.get("members"), before.get("members"), "{c}");
        assert_eq!(t.get("enums"), before.get("enums"), "{c}");
    }
    let g: toml::Table = std::fs::read_to_string(out.join("generation.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(g["name"].as_str(), Some("havok-2011.1"));
    assert_eq!(g["contents_version"].as_str(), Some("hk_2011.1.0-r1"));
    assert_eq!(g["file_version"].as_integer(), Some(8));
    // Nothing is stated, so nothing is checked yet.
    let (code, v, err) = hk_with(None, &["schema", "verify", s(&out)]);
    assert_eq!(code, 0, "{v}{err}");
    assert!(v.contains("signatures 0/0"), "{v}");

    // Writing over a schema folder is refused (exit 2).
    let (code, _, err) = hk_with(
        None,
        &[
            "schema",
            "new",
            "--from",
            "havok-2010.2",
            "--version",
            "x",
            "--roots",
            "hkaBone",
            "-o",
            s(&out),
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("already holds a schema folder"), "{err}");
    // A root the source lacks: the rest is written and the root named in a warning; a
    // folder written is a success.
    let (code, _, err) = hk_with(
        None,
        &[
            "schema",
            "new",
            "--from",
            "havok-2010.2",
            "--version",
            "x",
            "--file-version",
            "9",
            "--roots",
            "hkaBone",
            "hkNoSuchClass",
            "-o",
            s(&t.join("partial")),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: 1 roots are not in") && err.contains("hkNoSuchClass"),
        "{err}"
    );
    assert!(t.join("partial/classes/hkaBone.toml").is_file());
    let g = std::fs::read_to_string(t.join("partial/generation.toml")).unwrap();
    assert!(g.contains("file_version = 9"), "{g}");
    // No roots at all: a usage error.
    let (code, _, _) = hk_with(
        None,
        &[
            "schema",
            "new",
            "--from",
            "havok-2010.2",
            "--version",
            "x",
            "-o",
            s(&t.join("none")),
        ],
    );
    assert_eq!(code, 2);
}

#[test]
fn explain_is_an_error_on_what_is_not_a_packfile() {
    let t = temp_dir("notpf");
    let f = t.join("x.hkx");
    std::fs::write(&f, vec![0u8; 64]).unwrap();
    let (code, _, err) = hk_with(
        None,
        &["schema", "explain", "--schema", "havok-2010.2", s(&f)],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.hkx"), "{err}");
}

/// The walkthrough: a copy of havok-2010.2 with one enum item renamed stands for a
/// neighbouring version. `hk schema explain` names the class and member; `hk schema new`
/// from it plus one edit makes every stored signature of the Dark Souls files recompute.
#[test]
fn walkthrough_from_a_neighbour_with_one_renamed_enum_item() {
    let Some(corpus) = corpus("walkthrough_from_a_neighbour_with_one_renamed_enum_item") else {
        return;
    };
    let ds = corpus.join("games/dark-souls-ptde");
    let ragdoll = ds.join("c2240_ragdoll_with_types.hkx");
    let map = ds.join("map_collision_template.hkx");
    let skeleton = ds.join("c2240_skeleton.hkx");
    let stored = |f: &Path, c: &str| {
        let data = std::fs::read(f).unwrap();
        let pf = Packfile::parse(&data).unwrap();
        (pf.stored_signature(c), pf.class_names.len())
    };
    let (Some(body_sig), ragdoll_n) = stored(&ragdoll, "hkpRigidBody") else {
        panic!("the ragdoll stores hkpRigidBody")
    };
    let body = format!("0x{body_sig:08X}");

    // The neighbour: hkpMotion's MotionType item 4 renamed. hkpRigidBody includes it through
    // its parent hkpEntity's struct member `motion`.
    let t = temp_dir("walk");
    let root_dir = t.join("schemas");
    let neighbour = root_dir.join("havok-2010.2");
    copy_dir(&root().join("schemas/havok-2010.2"), &neighbour);
    let motion = |dir: &Path| dir.join("classes/hkpMotion.toml");
    edit(
        &motion(&neighbour),
        "name = \"MOTION_KEYFRAMED\",",
        "name = \"MOTION_KEYFRAMED_RENAMED\",",
    );
    let (code, out, _) = hk_with(
        None,
        &[
            "schema",
            "check",
            "-q",
            "--schema",
            s(&neighbour),
            s(&ragdoll),
        ],
    );
    assert_eq!(code, 1, "the rename breaks a stored signature:\n{out}");

    // Explained against the neighbour, with the shipped folders to compare: only
    // hkpRigidBody disagrees, havok-2010.2 computes its stored value, and the difference is
    // hkpMotion's enum and its member `type`.
    let (code, out, err) = hk_with(
        None,
        &[
            "schema",
            "explain",
            "--schema",
            s(&neighbour),
            s(&ragdoll),
            s(&map),
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!("1 of {ragdoll_n} stored signatures disagree")),
        "{out}"
    );
    assert!(
        out.contains(&format!("hkpRigidBody: stored {body}")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "nearest shipped folder that computes {body}: havok-2010.2"
        )),
        "{out}"
    );
    assert!(
        out.contains(
            "hkpMotion.type: here `… MOTION_KEYFRAMED_RENAMED …`, havok-2010.2 `… MOTION_KEYFRAMED …`"
        ),
        "{out}"
    );
    assert!(out.contains("hkpMotion enum MotionType: here"), "{out}");
    // The second file stores the same value: explained once.
    assert!(out.contains("as above: hkpRigidBody"), "{out}");

    // Now as if the neighbour were all there is: a schemas root holding only it.
    let files = [s(&ragdoll), s(&map), s(&skeleton)];
    let new_dir = t.join("havok-2010.2-new");
    let mut args = vec![
        "schema",
        "new",
        "--from",
        "havok-2010.2",
        "--version",
        "hk_2010.2.0-r1",
        "-o",
        s(&new_dir),
        "--roots-of",
    ];
    args.extend(files);
    let (code, out, err) = hk_with(Some(&root_dir), &args);
    assert_eq!(code, 0, "{out}{err}");
    let copied = files_in(&new_dir);
    let stated = copied
        .iter()
        .filter(|c| class_toml(&neighbour, c).contains_key("signature"))
        .count();
    let dropped = number_after(&out, "dropped the stated signatures of ");
    assert_eq!(dropped, stated, "{out}");
    println!(
        "hk schema new: {} classes copied, stated signatures dropped from {dropped}",
        copied.len()
    );
    assert!(copied.contains("hkpMotion") && copied.contains("hkpRigidBody"));
    // The neighbour's stated sizes, member offsets and notes are not copied.
    let neighbour_states = copied.iter().any(|c| {
        let t = class_toml(&neighbour, c);
        t.contains_key("size") || t.contains_key("note")
    });
    for c in &copied {
        let t = class_toml(&new_dir, c);
        assert!(
            !t.contains_key("size") && !t.contains_key("note"),
            "{c}: {t}"
        );
        let members = t.get("members").and_then(|m| m.as_array());
        let offsets = members
            .into_iter()
            .flatten()
            .filter_map(|m| m.get("offset"));
        assert_eq!(offsets.count(), 0, "{c}");
    }
    if neighbour_states {
        assert!(
            out.contains("stated sizes, offsets and notes: they were"),
            "{out}"
        );
    }

    let mut args = vec!["schema", "explain", "--schema", s(&new_dir)];
    args.extend(&files[..2]);
    let (code, out, err) = hk_with(Some(&root_dir), &args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!("hkpRigidBody: stored {body}")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "no shipped folder computes {body} for hkpRigidBody"
        )),
        "{out}"
    );
    // And what to do next: the guide's section, and the dumps `schema import` converts.
    assert!(
        out.contains("next: edit classes/hkpRigidBody.toml")
            && out.contains("\"Adding a version when files carry only signatures\"")
            && out.contains("hk schema import DUMP -o DIR"),
        "{out}"
    );
    // The file stores no signature for hkpEntity or hkpMotion: explain says where to look,
    // and the full description shows the renamed item inside hkpEntity.motion.
    assert!(
        out.contains("no class it includes disagrees in the file"),
        "{out}"
    );
    args.insert(2, "--full");
    let (_, full, _) = hk_with(Some(&root_dir), &args);
    let item = full
        .lines()
        .find(|l| l.contains("type: enum MotionType") && l.contains("MOTION_KEYFRAMED_RENAMED = 4"))
        .unwrap_or_else(|| panic!("{full}"));
    let nested = full
        .lines()
        .find(|l| l.trim_start().starts_with("hkpMotion: interfaces"));
    assert!(nested.is_some(), "{full}");
    assert!(
        item.starts_with("        "),
        "nested deeper than hkpRigidBody's own lines: {item}"
    );

    // The one edit.
    edit(
        &motion(&new_dir),
        "name = \"MOTION_KEYFRAMED_RENAMED\",",
        "name = \"MOTION_KEYFRAMED\",",
    );
    let mut args = vec!["schema", "explain", "--schema", s(&new_dir)];
    args.extend(files);
    let (code, out, err) = hk_with(Some(&root_dir), &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("3 of 3 files: every stored signature agrees"),
        "{out}"
    );
    let mut args = vec!["schema", "check", "-q", "--schema", s(&new_dir)];
    args.extend(files);
    let (code, out, err) = hk_with(Some(&root_dir), &args);
    assert_eq!(code, 0, "{out}{err}");
    for (f, line) in files.iter().zip(out.lines()) {
        let n = stored(Path::new(f), "").1;
        assert!(line.contains(&format!("signatures {n}/{n};")), "{line}");
    }
}
