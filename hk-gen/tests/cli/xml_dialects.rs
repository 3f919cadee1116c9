//! Havok XML on the command line: every command that reads files takes it by its content,
//! whatever its name, and `hk dump --format xml` writes the SDK's dialect (saying how many
//! floats it rounds) or hk's exact one.

use crate::support::hk;
use hk_tests::{corpus, temp_dir};

/// A Skyrim behaviour file named `.hkx`, as such files often are, is read by `info`,
/// `dump`, `diff`, `convert` and `roundtrip` as the packfile it describes.
#[test]
fn skyrim_xml_named_hkx_is_read_by_every_command() {
    let Some(corpus) = corpus("skyrim_xml_named_hkx_is_read_by_every_command") else {
        return;
    };
    let tmp = temp_dir("xml-named-hkx");
    let xml = tmp.join("shout.hkx");
    std::fs::copy(corpus.join("games/skyrim-se-xml/shout_behavior.xml"), &xml).unwrap();
    let x = xml.to_str().unwrap();
    let (code, out, err) = hk(&["info", x]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Havok XML: packfile version 8 \"hk_2010.2.0-r1\""),
        "{out}"
    );
    assert!(out.contains("285 objects"), "{out}");

    let built = tmp.join("built.hkx");
    let b = built.to_str().unwrap();
    let (code, out, err) = hk(&["build", x, "-o", b]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = hk(&["diff", x, b]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 difference(s)"), "{out}");
    let (code, out, err) = hk(&["roundtrip", x]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1/1 byte-identical"), "{out}");
    let converted = tmp.join("converted.hkx");
    let (code, out, err) = hk(&[
        "convert",
        x,
        "-o",
        converted.to_str().unwrap(),
        "--layout",
        "8101",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // Converted to the 64-bit layout: the objects are the same, only the layout differs.
    let (code, out, err) = hk(&["diff", x, converted.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("file.layout: 4101 vs 8101") && out.contains("1 difference(s)"),
        "{out}"
    );

    // The SDK dialect of the built file is the original text but for object numbers.
    let (code, text, err) = hk(&["dump", b, "--format", "xml"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "nothing is rounded: {err}");
    let original = std::fs::read_to_string(&xml).unwrap();
    let strip = |t: &str| -> String {
        t.split('#')
            .map(|p| p.trim_start_matches(|c: char| c.is_ascii_digit()))
            .collect()
    };
    assert!(
        strip(&text) == strip(&original),
        "the SDK dialect of the built file"
    );
}

/// `hk dump --format xml` says how many floats the SDK dialect rounds; `--xml exact`
/// rounds none, says nothing, and builds the same bytes.
#[test]
fn the_sdk_dialect_says_how_many_floats_it_rounds() {
    let Some(corpus) = corpus("the_sdk_dialect_says_how_many_floats_it_rounds") else {
        return;
    };
    let tmp = temp_dir("xml-rounded");
    let file = corpus.join("games/dark-souls-ptde/c2240_skeleton.hkx");
    let f = file.to_str().unwrap();
    let sdk = tmp.join("sdk.xml");
    let (code, out, err) = hk(&["dump", f, "--format", "xml", "-o", sdk.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("753 float values do not read back to the same bits")
            && err.contains("use --xml exact"),
        "{err}"
    );
    let exact = tmp.join("exact.xml");
    let e = exact.to_str().unwrap();
    let (code, out, err) = hk(&["dump", f, "--format", "xml", "--xml", "exact", "-o", e]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.is_empty(), "{err}");
    let built = tmp.join("exact.hkx");
    let (code, out, err) = hk(&["build", e, "-o", built.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::read(&built).unwrap() == std::fs::read(&file).unwrap());
    // The dialect names only XML's forms.
    let (code, _, err) = hk(&["dump", f, "--format", "xml", "--xml", "lossy"]);
    assert_eq!(code, 2, "{err}");
}
