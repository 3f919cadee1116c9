//! The two dialects of Havok XML hk writes (docs/havok-xml.md §3): the SDK's, which the
//! Skyrim behaviour files of the corpus are written in, and hk's exact one.

use std::collections::HashMap;

use hk_runtime::dump::{self, xml};
use hk_runtime::file;
use serde_json::Value as Json;

/// The text with every object name (`#0042`) replaced by the position of the object it
/// names in the file, so two files that name their objects differently compare.
fn renumbered(text: &str) -> String {
    let mut names = HashMap::new();
    for (i, part) in text.split("<hkobject name=\"").skip(1).enumerate() {
        let name = &part[..part.find('"').unwrap()];
        names.insert(name.to_string(), format!("@{i}"));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        let name = &rest[at..at + 1 + digits];
        out.push_str(names.get(name).map_or(name, String::as_str));
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    out
}

/// The first line where two texts differ, for a failure message.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    for n in 1.. {
        match (la.next(), lb.next()) {
            (None, None) => break,
            (x, y) if x != y => return format!("line {n}: {x:?} vs {y:?}"),
            _ => {}
        }
    }
    "none".into()
}

/// Each Skyrim XML file built to binary and written back in the SDK dialect is the
/// original text, character for character, but for the numbers objects are named by; the
/// binary it builds round-trips.
#[test]
fn skyrim_files_come_back_as_the_sdk_wrote_them() {
    let Some(corpus) = hk_tests::corpus("skyrim_files_come_back_as_the_sdk_wrote_them") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    for name in ["characters_defaultmale.xml", "shout_behavior.xml"] {
        let text = std::fs::read_to_string(corpus.join("games/skyrim-se-xml").join(name)).unwrap();
        let (bytes, _) = xml::build_xml(&text, &schemas, None, &Default::default()).unwrap();
        let doc = file::open(&bytes, &schemas, Default::default()).unwrap();
        assert!(file::write(&doc).unwrap() == bytes, "{name}: round trip");
        let x = xml::to_xml(&doc, xml::Dialect::Sdk).unwrap();
        assert_eq!((x.rounded, x.ignored), (0, 0), "{name}: nothing lost");
        assert!(x.text.contains(" signature=\"0x") && !x.text.contains("xmlns:hk"));
        let (want, got) = (renumbered(&text), renumbered(&x.text));
        assert!(
            want == got,
            "{name}: first difference at {}",
            first_difference(&want, &got)
        );
    }
}

/// Float members of two dumps of the same objects whose bits differ.
fn changed_floats(a: &Json, b: &Json) -> usize {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            let bits = |n: &serde_json::Number| n.as_f64().map(|f| (f as f32).to_bits());
            usize::from(bits(x) != bits(y))
        }
        (Json::Array(x), Json::Array(y)) => {
            x.iter().zip(y).map(|(p, q)| changed_floats(p, q)).sum()
        }
        (Json::Object(x), Json::Object(y)) => x
            .iter()
            .map(|(k, v)| y.get(k).map_or(0, |w| changed_floats(v, w)))
            .sum(),
        _ => 0,
    }
}

/// The SDK dialect of `doc`, built back: the XML and how many float values changed.
fn sdk_build(doc: &file::Document, schemas: &file::Schemas) -> (xml::Xml, usize) {
    let sdk = xml::to_xml(doc, xml::Dialect::Sdk).unwrap();
    let (built, _) = xml::build_xml(&sdk.text, schemas, None, &Default::default()).unwrap();
    let rebuilt = file::open(&built, schemas, Default::default()).unwrap();
    let (a, b) = (dump::to_json(doc), dump::to_json(&rebuilt));
    let classes = |j: &Json| -> Vec<Json> {
        j["objects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["class"].clone())
            .collect()
    };
    assert_eq!(
        classes(&a),
        classes(&b),
        "the same objects in the same order"
    );
    let changed = changed_floats(&a["objects"], &b["objects"]);
    (sdk, changed)
}

/// A level whose rigid body holds `half` members (2010.2 `hkpMotion` damping) builds from
/// the SDK dialect: six decimals name each half again, so the halves come back exactly and
/// only the floats counted as rounded change.
#[test]
fn halves_come_back_from_six_decimals() {
    let Some(corpus) = hk_tests::corpus("halves_come_back_from_six_decimals") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let path = corpus.join("games/dark-souls-ptde/map_collision_template.hkx");
    let doc = file::open(&hk_tests::read(&path), &schemas, Default::default()).unwrap();
    let (sdk, changed) = sdk_build(&doc, &schemas);
    assert!(sdk.text.contains("angularDamping"));
    assert_eq!(sdk.rounded, changed);
}

/// A Dark Souls skeleton (2010.2) in the SDK dialect loses bits in its floats and in the
/// fourth components of its transforms, and says exactly how many values changed; in hk's
/// exact dialect it loses none and builds the same bytes. The SDK dialect writes each
/// transform as groups of three, four and three numbers.
#[test]
fn the_sdk_dialect_counts_what_it_rounds_and_the_exact_one_keeps_every_bit() {
    let Some(corpus) = hk_tests::corpus("the_sdk_dialect_counts_what_it_rounds") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let bytes = hk_tests::read(&corpus.join("games/dark-souls-ptde/c2240_skeleton.hkx"));
    let doc = file::open(&bytes, &schemas, Default::default()).unwrap();

    let exact = xml::to_xml(&doc, xml::Dialect::Exact).unwrap();
    assert_eq!((exact.rounded, exact.ignored), (0, 0));
    let (again, _) = xml::build_xml(&exact.text, &schemas, None, &Default::default()).unwrap();
    assert!(again == bytes, "the exact dialect builds the same bytes");

    let (sdk, changed) = sdk_build(&doc, &schemas);
    assert_eq!(sdk.ignored, 0);
    assert!(sdk.rounded > 0);
    assert_eq!(
        sdk.rounded, changed,
        "the count is of the values that changed"
    );

    let pose = sdk
        .text
        .lines()
        .find(|l| l.trim_start().starts_with("(0.000000 1.436664"))
        .expect("a reference pose transform");
    let groups: Vec<usize> = pose
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(")(")
        .map(|g| g.split(' ').count())
        .collect();
    assert_eq!(groups, [3, 4, 3], "{pose}");
    assert!(sdk
        .text
        .contains("<!-- referenceCount SERIALIZE_IGNORED -->"));
    assert!(!exact.text.contains("SERIALIZE_IGNORED"));
}

/// The front door reads Havok XML by its first element, whatever the file is called, as
/// the packfile `hk build` makes of it.
#[test]
fn the_front_door_reads_havok_xml_by_its_content() {
    let Some(corpus) = hk_tests::corpus("the_front_door_reads_havok_xml_by_its_content") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let raw = hk_tests::read(&corpus.join("games/skyrim-se-xml/shout_behavior.xml"));
    assert!(file::is_xml(&raw) && file::detect(&raw).is_none());
    let doc = file::open(&raw, &schemas, Default::default()).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (bytes, built) = xml::build_xml(&text, &schemas, None, &Default::default()).unwrap();
    assert_eq!(doc.graph.objects.len(), built.graph.objects.len());
    assert!(file::write(&doc).unwrap() == bytes);
    // A byte-order mark and blank lines before it change nothing.
    let marked = format!("\u{FEFF}\n\n{text}");
    let again = file::open(marked.as_bytes(), &schemas, Default::default()).unwrap();
    assert!(file::write(&again).unwrap() == bytes);
}
