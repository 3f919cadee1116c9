//! Bad schemas give clear errors with the file, line and key, and all of them at once.

use std::path::Path;

use hk_runtime::schema::Diagnostics;
use hk_runtime::Schema;

const GENERATION: &str = r#"name = "test"
container = "packfile"
file_version = 7
contents_version = "Havok-7.1.0-r1"

[layout]
pointer_size = 4
endian = "big"
reuse_padding = true
empty_base = true

[member_types]
void = 0
int32 = 7
real = 11
pointer = 20
struct = 25

[member_flags]
serialize_ignored = 1024
"#;

fn folder(name: &str, classes: &[(&str, &str)]) -> hk_tests::Scratch {
    let dir = hk_tests::temp_dir(name);
    std::fs::write(dir.join("generation.toml"), GENERATION).unwrap();
    std::fs::create_dir_all(dir.join("classes")).unwrap();
    for (file, text) in classes {
        std::fs::write(dir.join("classes").join(file), text).unwrap();
    }
    dir
}

fn errors(dir: &Path) -> Diagnostics {
    match Schema::load(dir) {
        Ok(_) => panic!("{} loaded without errors", dir.display()),
        Err(d) => {
            println!("{d}");
            d
        }
    }
}

const BASE: &str = "name = \"Base\"\n\n[[members]]\nname = \"x\"\ntype = \"real\"\n";

#[test]
fn broken_toml_names_file_and_line() {
    let dir = folder(
        "broken",
        &[
            ("Base.toml", BASE),
            (
                "Broken.toml",
                "name = \"Broken\"\n[[members]]\nname = \"a\"\ntype = real\n",
            ),
        ],
    );
    let d = errors(&dir);
    assert_eq!(d.0.len(), 1);
    assert!(
        d.0[0].file.ends_with("classes/Broken.toml"),
        "{:?}",
        d.0[0].file
    );
    assert_eq!(d.0[0].line, 4);
}

#[test]
fn unknown_type_names_file_line_and_key() {
    let text =
        "name = \"Shape\"\nparent = \"Base\"\n\n[[members]]\nname = \"radius\"\ntype = \"float\"\n";
    let dir = folder("unknown-type", &[("Base.toml", BASE), ("Shape.toml", text)]);
    let d = errors(&dir);
    assert_eq!(d.0.len(), 1);
    let e = &d.0[0];
    assert!(e.file.ends_with("classes/Shape.toml"));
    assert_eq!(e.line, 6);
    assert_eq!(e.key, "members.radius.type");
    assert!(e.message.contains("unknown type `float`"), "{}", e.message);
}

#[test]
fn type_missing_from_the_generation_is_an_error() {
    // `half` is a type hk knows, but this generation's numbering does not list it.
    let text = "name = \"Half\"\n\n[[members]]\nname = \"h\"\ntype = \"half\"\n";
    let d = errors(&folder("ungenerational-type", &[("Half.toml", text)]));
    assert_eq!(d.0[0].key, "members.h.type");
    assert!(
        d.0[0].message.contains("not a member type of test")
            && d.0[0].message.contains("of the same kind it has `real`"),
        "{}",
        d.0[0].message
    );
    // Havok 5.5 spells 2010's `stringptr` as `cstring`: the error says so.
    let text = "name = \"Named\"\n\n[[members]]\nname = \"name\"\ntype = \"stringptr\"\n";
    let classes = [("Named".to_string(), text.to_string())];
    let dir = hk_tests::schema_folder("havok-5.5", "stringptr-in-55", &classes);
    let d = errors(&dir);
    assert!(
        d.0[0].message.contains(
            "type `stringptr` is not a member type of havok-5.5; of the same kind it has `cstring`"
        ),
        "{}",
        d.0[0].message
    );
}

#[test]
fn missing_parent_names_file_and_line() {
    let text = "# a comment\nname = \"Orphan\"\nparent = \"Nowhere\"\n";
    let d = errors(&folder("missing-parent", &[("Orphan.toml", text)]));
    assert_eq!(d.0.len(), 1);
    let e = &d.0[0];
    assert!(e.file.ends_with("classes/Orphan.toml"));
    assert_eq!(e.line, 2);
    assert_eq!(e.key, "parent");
    assert!(e.message.contains("`Nowhere`"), "{}", e.message);
}

#[test]
fn duplicate_member_names_file_and_line() {
    let text = "name = \"Dup\"\n\n[[members]]\nname = \"a\"\ntype = \"int32\"\n\n[[members]]\nname = \"a\"\ntype = \"real\"\n";
    let d = errors(&folder("duplicate-member", &[("Dup.toml", text)]));
    assert_eq!(d.0.len(), 1);
    let e = &d.0[0];
    assert!(e.file.ends_with("classes/Dup.toml"));
    assert_eq!(e.line, 8);
    assert_eq!(e.key, "members.a.name");
    assert!(e.message.contains("duplicate member `a`"), "{}", e.message);
}

#[test]
fn every_error_is_reported_not_just_the_first() {
    let cycle_a = "name = \"A\"\nparent = \"B\"\n";
    let cycle_b = "name = \"B\"\nparent = \"A\"\n";
    let by_value =
        "name = \"Loop\"\n\n[[members]]\nname = \"me\"\ntype = \"struct\"\nclass = \"Loop\"\n";
    let bad_enum = "name = \"E\"\n\n[[members]]\nname = \"e\"\ntype = \"int32\"\nenum = \"Nope\"\n";
    let wrong_file = "name = \"NotMyName\"\n";
    let unknown_key = "name = \"Typo\"\nparnet = \"Base\"\n";
    let d = errors(&folder(
        "many",
        &[
            ("A.toml", cycle_a),
            ("B.toml", cycle_b),
            ("Loop.toml", by_value),
            ("E.toml", bad_enum),
            ("Wrong.toml", wrong_file),
            ("Typo.toml", unknown_key),
        ],
    ));
    let text = d.to_string();
    for needle in [
        "parent cycle",
        "contain each other by value",
        "enum `Nope`",
        "file stem must be the class name",
        "parnet",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    assert!(d.0.len() >= 6, "{text}");
}

#[test]
fn duplicate_class_across_files_and_missing_folder() {
    let d = errors(Path::new("/nonexistent/hk-schema"));
    assert!(d.to_string().contains("generation.toml"));
    let twice = "name = \"Base\"\n";
    let dir = folder("dup-class", &[("Base.toml", BASE)]);
    std::fs::create_dir_all(dir.join("classes/more")).unwrap();
    // Same class in a second file whose stem differs: the stem error and nothing silent.
    std::fs::write(dir.join("classes/Base2.toml"), twice).unwrap();
    let d = errors(&dir);
    assert!(d.to_string().contains("Base2.toml"), "{d}");
}

#[test]
fn every_problem_in_one_file_is_reported_with_its_line_column_and_key() {
    let text = "name = \"Many\"\nversion = \"two\"\nsize = 70000000000\ncolour = 3\n\n\
                [[members]]\nname = \"a\"\n\n[[members]]\nname = \"b\"\ntype = \"int32\"\n\
                array_size = -1\n";
    let d = errors(&folder(
        "many-in-one",
        &[("Base.toml", BASE), ("Many.toml", text)],
    ));
    let found: Vec<(usize, usize, &str)> =
        d.0.iter()
            .map(|e| (e.line, e.column, e.key.as_str()))
            .collect();
    let text = d.to_string();
    for want in [
        (2, 11, "version"),
        (3, 8, "size"),
        (4, 1, "colour"),
        (6, 1, "members.a.type"),
        (12, 14, "members.b.array_size"),
    ] {
        assert!(found.contains(&want), "no {want:?} in:\n{text}");
    }
    assert_eq!(d.0.len(), 5, "{text}");
    assert!(text.contains("found the string \"two\""), "{text}");
    assert!(text.contains("70000000000 does not fit a u32"), "{text}");
    assert!(text.contains("unknown key `colour`"), "{text}");
    assert!(text.contains("missing key `type`"), "{text}");
    assert!(text.contains("-1 does not fit a u16"), "{text}");
}
