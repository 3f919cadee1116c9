//! Names from files become file names (`classes/<Name>.toml`), TOML keys and Rust
//! identifiers, so the readers refuse a class, member, type or SDK name that breaks its
//! rule (schemas/README.md, "Names") where they read it, with its offset, and a
//! schema folder refuses one with its file, line and key.

use std::path::Path;

use hk_runtime::limits::ReadOptions;
use hk_runtime::tagfile::{binary, TagFile};
use hk_runtime::Schema;
use hk_tests::hostile::{binary_tagfile, rename};

const SDK: &str = "hk_2014.0.5-r1";

#[test]
fn binary_tagfile_names_are_refused_where_they_are_read() {
    let ok = binary_tagfile(SDK, "hkPlain", "value");
    binary::read(&ok, ReadOptions::strict()).expect("the plain file reads");
    let cases = [
        (
            "a class name",
            binary_tagfile(SDK, "../../escaped_by_hk", "value"),
        ),
        ("a class name", binary_tagfile(SDK, "/tmp/x/ABS", "value")),
        ("a class name", binary_tagfile(SDK, "a\n#[used]", "value")),
        (
            "a member name",
            binary_tagfile(SDK, "hkPlain", "value: u8 } fn evil() {"),
        ),
        (
            "the SDK string",
            binary_tagfile("x\n#[used] static EVIL: u8 = 0;", "hkPlain", "value"),
        ),
    ];
    for (what, data) in cases {
        for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
            let e = binary::read(&data, opts).expect_err(what);
            let text = e.to_string();
            assert!(text.contains(what) && text.contains("is refused"), "{text}");
            // The offset of the string's length, after the magic.
            assert!(e.offset().is_some_and(|o| o >= 8), "{text}");
        }
    }
}

#[test]
fn tagfile_type_names_are_refused_where_they_are_read() {
    let sample = hk_tests::read(&hk_tests::root().join("samples/nso-2023_box.bphsh"));
    TagFile::parse(&sample).expect("the sample parses");
    for to in [
        "../../escaped_by_hk",
        "hknp\nShapePropertie",
        "/tmp/abs/escaped_12",
    ] {
        let bad = rename(&sample, "hknpShapeProperties", to);
        let e = TagFile::parse(&bad).expect_err(to);
        let text = e.to_string();
        assert!(
            text.contains("type name") && text.contains("TNAM"),
            "{text}"
        );
        assert!(e.offset().is_some(), "{text}");
    }
}

/// A copy of the `good` schema folder of hk-derive's UI tests, with `generation.toml`'s
/// name and one member name replaced.
fn folder(dir: &Path, generation: &str, member: &str) {
    let good = hk_tests::root().join("hk-derive/tests/ui/schemas/good");
    std::fs::create_dir_all(dir.join("classes")).unwrap();
    let g = std::fs::read_to_string(good.join("generation.toml")).unwrap();
    let g = g.replace("name = \"ui-good\"", &format!("name = {generation:?}"));
    std::fs::write(dir.join("generation.toml"), g).unwrap();
    for c in ["uiBase", "uiThing"] {
        let f = format!("classes/{c}.toml");
        let t = std::fs::read_to_string(good.join(&f)).unwrap();
        let t = t.replace("name = \"refCount\"", &format!("name = {member:?}"));
        std::fs::write(dir.join(f), t).unwrap();
    }
}

#[test]
fn schema_folders_refuse_hostile_names_with_file_line_and_key() {
    let tmp = hk_tests::temp_dir("hostile-folder");
    let plain = tmp.join("plain");
    folder(&plain, "ui-good", "refCount");
    Schema::load(&plain).expect("the plain folder loads");
    let bad = tmp.join("bad");
    folder(
        &bad,
        "x\n#[used] static EVIL: u8 = 0;",
        "refCount: i32 } fn evil() {",
    );
    let d = Schema::load(&bad).expect_err("hostile names load");
    let find = |file: &str, key: &str| {
        d.0.iter()
            .find(|x| x.file.ends_with(file) && x.key == key)
            .unwrap_or_else(|| panic!("no {file} `{key}` in:\n{d}"))
    };
    let g = find("generation.toml", "name");
    assert_eq!(g.line, 1, "{g}");
    assert!(g.message.contains("generation name"), "{g}");
    let m = find("classes/uiBase.toml", "members[0].name");
    assert_eq!(m.line, 5, "{m}");
    assert!(m.message.contains("member name"), "{m}");
}
