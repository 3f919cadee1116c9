//! Folders and outputs of the commands that walk folders or write files
//! (docs/conversion.md, "Folders, links and outputs"): symbolic links found in folders are
//! not followed unless asked, and then each folder is searched once; no output is written
//! through a symbolic link; no output is written over an input unless `hk convert
//! --in-place` is asked. Every tree, link and input is made here, from hk's own samples.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{command, hk};
use hk_tests::{root, temp_dir};

/// A packfile sample that converts to every layout.
fn skeleton() -> PathBuf {
    root().join("samples/havok-demo-710_skeleton.hkx")
}

/// A sample with level collision (for `export` and `render`).
fn level() -> PathBuf {
    root().join("samples/havok-710_level.hkx")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `hk ARGS`, killed (and the test failed) past `limit`: (exit code, stdout, stderr).
fn hk_within(args: &[&str], limit: Duration) -> (i32, String, String) {
    let mut child = command()
        .args(args)
        .env_remove("HK_SCHEMAS")
        .env_remove("HK_GAMES")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hk");
    let t0 = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hk {args:?} still running after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file (and link) under `dir`, without following links, relative and sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// `in/skel.hkx`, `in/sub/skel2.hkx`, a link back up (`in/sub/loop -> ..`) and a link out
/// of the tree (`in/ext -> ../outside`, holding `far.hkx`).
fn tree_with_links(base: &Path) -> PathBuf {
    let input = base.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::copy(skeleton(), input.join("skel.hkx")).unwrap();
    std::fs::copy(skeleton(), input.join("sub/skel2.hkx")).unwrap();
    std::fs::copy(skeleton(), base.join("outside/far.hkx")).unwrap();
    symlink("..", input.join("sub/loop")).unwrap();
    symlink("../outside", input.join("ext")).unwrap();
    input
}

#[test]
fn convert_leaves_out_links_found_in_folders_unless_asked() {
    let base = temp_dir("walk-links");
    let input = tree_with_links(&base);
    let out = base.join("out");
    let (code, text, err) = hk_within(
        &["convert", s(&input), "-o", s(&out), "--layout", "win64"],
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("converted 2/2 files"), "{text}");
    assert!(
        err.contains("left out 2 symbolic link(s)") && err.contains("--follow-symlinks"),
        "{err}"
    );
    // Nothing from outside the tree, nothing twice.
    assert_eq!(tree(&out), ["skel.hkx", "sub/skel2.hkx"]);

    // Followed on request: the folder outside comes in, the loop is not entered again.
    let out2 = base.join("out2");
    let (code, text, err) = hk_within(
        &[
            "convert",
            s(&input),
            "-o",
            s(&out2),
            "--layout",
            "win64",
            "--follow-symlinks",
        ],
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("converted 3/3 files"), "{text}");
    assert!(
        err.contains("already searched") && err.contains("loop"),
        "{err}"
    );
    assert_eq!(tree(&out2), ["ext/far.hkx", "skel.hkx", "sub/skel2.hkx"]);
}

/// Three links back to the top of the tree in one folder: a walk that follows links
/// without remembering where it has been makes 3^40 paths before the system's limit on
/// links in a path stops it.
#[test]
fn a_folder_of_loops_is_searched_once() {
    let base = temp_dir("walk-loops");
    let input = base.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::copy(skeleton(), input.join("skel.hkx")).unwrap();
    for l in ["l1", "l2", "l3"] {
        symlink("..", input.join("sub").join(l)).unwrap();
    }
    // A chain of folders each linking twice to the next: 2^16 paths to one file, though
    // no link loops.
    let chain = base.join("chain");
    for k in 0..=16 {
        std::fs::create_dir_all(chain.join(format!("d{k:02}"))).unwrap();
    }
    for k in 0..16 {
        for l in ["a", "b"] {
            symlink(
                format!("../d{:02}", k + 1),
                chain.join(format!("d{k:02}")).join(l),
            )
            .unwrap();
        }
    }
    std::fs::copy(skeleton(), chain.join("d16/skel.hkx")).unwrap();
    let limit = Duration::from_secs(60);
    let out = base.join("out");
    let (code, text, err) = hk_within(
        &["convert", s(&input), "-o", s(&out), "--layout", "win64"],
        limit,
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("converted 1/1 files"), "{text}");
    let (code, text, err) = hk_within(&["roundtrip", s(&input)], limit);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("1/1 byte-identical"), "{text}");
    let (code, text, err) = hk_within(&["roundtrip", s(&input), "--follow-symlinks"], limit);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("1/1 byte-identical"), "{text}");
    assert!(
        err.contains("3 symbolic link(s) lead to a folder already searched"),
        "{err}"
    );
    let (code, text, err) = hk_within(&["roundtrip", s(&chain), "--follow-symlinks"], limit);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("1/1 byte-identical"), "{text}");
    let (code, text, err) = hk_within(&["bench", s(&input), "--rounds", "1"], limit);
    assert_eq!(code, 0, "{text}{err}");
    let out = base.join("obj");
    let (code, text, err) = hk_within(&["export", s(&input), "-o", s(&out)], limit);
    // The skeleton has no rigid body: passed over, once.
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("1 without rigid bodies"), "{text}");
}

/// A file the test owns outside every output, and what it holds.
fn victim(base: &Path) -> (PathBuf, Vec<u8>) {
    let v = base.join("victim.bin");
    let bytes = b"not hk's to write".to_vec();
    std::fs::write(&v, &bytes).unwrap();
    (v, bytes)
}

#[test]
fn convert_never_writes_through_a_link_in_the_output() {
    let base = temp_dir("out-links");
    let input = base.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::copy(skeleton(), input.join("skel.hkx")).unwrap();
    std::fs::copy(skeleton(), input.join("sub/skel2.hkx")).unwrap();
    let (v, bytes) = victim(&base);
    // A link where a converted file goes.
    let out = base.join("out");
    std::fs::create_dir_all(&out).unwrap();
    symlink(&v, out.join("skel.hkx")).unwrap();
    let (code, text, err) = hk(&["convert", s(&input), "-o", s(&out), "--layout", "win64"]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(
        err.contains("skel.hkx") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read(&v).unwrap(), bytes);
    // Refused before anything is written.
    assert_eq!(tree(&out), ["skel.hkx"]);
    // A link where a folder of the mirror goes.
    let out = base.join("out2");
    let elsewhere = base.join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    symlink(&elsewhere, out.join("sub")).unwrap();
    let (code, text, err) = hk(&["convert", s(&input), "-o", s(&out), "--layout", "win64"]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(
        err.contains("sub") && err.contains("symbolic link"),
        "{err}"
    );
    assert!(tree(&elsewhere).is_empty());
    // One file to a link.
    let link = base.join("one.hkx");
    symlink(&v, &link).unwrap();
    let (code, _, err) = hk(&[
        "convert",
        s(&input.join("skel.hkx")),
        "-o",
        s(&link),
        "--layout",
        "win64",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read(&v).unwrap(), bytes);
}

/// Every other command that writes a file refuses a link there the same way.
#[test]
fn every_output_refuses_a_link() {
    let base = temp_dir("out-links-all");
    let (v, bytes) = victim(&base);
    let link = base.join("link");
    symlink(&v, &link).unwrap();
    let dump = base.join("skel.json");
    let (code, _, err) = hk(&["dump", s(&skeleton()), "-o", s(&dump)]);
    assert_eq!(code, 0, "{err}");
    let (lvl, skel) = (level(), skeleton());
    let runs: Vec<Vec<&str>> = vec![
        vec!["dump", s(&skel), "-o", s(&link)],
        vec!["build", s(&dump), "-o", s(&link)],
        vec!["roundtrip", s(&skel), "-o", s(&link)],
        vec!["export", s(&lvl), "-o", s(&link)],
        vec!["render", s(&lvl), "-o", s(&link), "--size", "64x48"],
        vec!["cm", "box", "--half-extents", "1,2,3", "-o", s(&link)],
    ];
    for args in &runs {
        let (code, text, err) = hk(args);
        assert_eq!(code, 2, "{args:?}: {text}{err}");
        assert!(err.contains("symbolic link"), "{args:?}: {err}");
        assert_eq!(std::fs::read(&v).unwrap(), bytes, "{args:?}");
    }
    // Folders: `sample` writes fixed names, `export` mirrors its inputs.
    let samples = base.join("samples");
    std::fs::create_dir_all(&samples).unwrap();
    symlink(&v, samples.join("shred_box.hkx")).unwrap();
    let (code, text, err) = hk(&["sample", "--out", s(&samples)]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read(&v).unwrap(), bytes);
    let objs = base.join("objs");
    std::fs::create_dir_all(&objs).unwrap();
    symlink(&v, objs.join("havok-710_level.obj")).unwrap();
    let (code, text, err) = hk(&["export", s(&lvl), s(&skel), "-o", s(&objs)]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read(&v).unwrap(), bytes);
    // A schema folder written whole: a link in it is refused before it is written.
    let schema = base.join("schema");
    let elsewhere = base.join("elsewhere");
    std::fs::create_dir_all(&schema).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    symlink(&elsewhere, schema.join("classes")).unwrap();
    let tagfile = root().join("samples/doom-2016_box.hkshape");
    let (code, text, err) = hk(&["schema", "extract", s(&tagfile), "-o", s(&schema)]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(
        err.contains("classes") && err.contains("symbolic link"),
        "{err}"
    );
    assert!(tree(&elsewhere).is_empty());
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let base = temp_dir("out-is-in");
    let input = base.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    let x = input.join("skel.hkx");
    std::fs::copy(skeleton(), &x).unwrap();
    std::fs::copy(skeleton(), input.join("sub/skel2.hkx")).unwrap();
    let original = std::fs::read(&x).unwrap();
    let unchanged = |what: &str| {
        assert_eq!(std::fs::read(&x).unwrap(), original, "{what}");
        assert_eq!(
            std::fs::read(input.join("sub/skel2.hkx")).unwrap(),
            original,
            "{what}"
        );
    };
    // The same file, the same folder, another spelling, a hard link.
    let spelled = input.join("sub/../skel.hkx");
    let hard = base.join("hard.hkx");
    std::fs::hard_link(&x, &hard).unwrap();
    for (args, what) in [
        (vec!["convert", s(&x), "-o", s(&x)], "a file onto itself"),
        (
            vec!["convert", s(&input), "-o", s(&input)],
            "a folder onto itself",
        ),
        (
            vec!["convert", s(&x), "-o", s(&spelled)],
            "another spelling",
        ),
        (vec!["convert", s(&hard), "-o", s(&x)], "a hard link"),
    ] {
        let mut args = args.clone();
        args.extend(["--layout", "win64"]);
        let (code, text, err) = hk(&args);
        assert_eq!(code, 2, "{what}: {text}{err}");
        assert!(
            err.contains("is also an input") && err.contains("--in-place"),
            "{what}: {err}"
        );
        unchanged(what);
    }
    // The other commands that read a file and write one.
    let json = base.join("skel.json");
    let (code, _, err) = hk(&["dump", s(&x), "-o", s(&json)]);
    assert_eq!(code, 0, "{err}");
    let dump = std::fs::read(&json).unwrap();
    let lvl = base.join("level.hkx");
    std::fs::copy(level(), &lvl).unwrap();
    let level_bytes = std::fs::read(&lvl).unwrap();
    for args in [
        vec!["dump", s(&x), "-o", s(&x)],
        vec!["roundtrip", s(&x), "-o", s(&x)],
        vec!["build", s(&json), "-o", s(&json)],
        vec!["export", s(&lvl), "-o", s(&lvl)],
        vec!["render", s(&lvl), "-o", s(&lvl), "--size", "64x48"],
    ] {
        let (code, text, err) = hk(&args);
        assert_eq!(code, 2, "{args:?}: {text}{err}");
        assert!(err.contains("is also an input"), "{args:?}: {err}");
        unchanged(args[0]);
        assert_eq!(std::fs::read(&json).unwrap(), dump);
        assert_eq!(std::fs::read(&lvl).unwrap(), level_bytes);
    }
}

/// `--in-place` replaces each input with its conversion.
#[test]
fn convert_in_place_replaces_the_inputs() {
    let base = temp_dir("in-place");
    let input = base.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::copy(skeleton(), input.join("skel.hkx")).unwrap();
    std::fs::copy(skeleton(), input.join("sub/skel2.hkx")).unwrap();
    let (code, text, err) = hk(&["convert", s(&input), "--in-place", "--layout", "win64"]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("converted 2/2 files"), "{text}");
    // Nothing else is left in the folder.
    assert_eq!(tree(&input), ["skel.hkx", "sub/skel2.hkx"]);
    for f in ["skel.hkx", "sub/skel2.hkx"] {
        let (code, text, err) = hk(&["info", s(&input.join(f))]);
        assert_eq!(code, 0, "{err}");
        assert!(text.contains("ptr=8 LE reusePad=0 emptyBase=1"), "{text}");
    }
    // One file, back to the PS3 rules: the sample as committed.
    let one = input.join("skel.hkx");
    let (code, _, err) = hk(&["convert", s(&one), "--in-place", "--layout", "ps3"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&one).unwrap(),
        std::fs::read(skeleton()).unwrap()
    );
    // `-o` and `--in-place` do not go together; one of them is needed.
    let (code, _, err) = hk(&[
        "convert",
        s(&one),
        "--in-place",
        "-o",
        s(&base.join("x.hkx")),
        "--layout",
        "ps3",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = hk(&["convert", s(&one), "--layout", "ps3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--out") || err.contains("--in-place"), "{err}");
}
