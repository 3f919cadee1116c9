//! `hk build` refuses what it cannot write as given (tuples of the wrong length, no
//! sections, integers that would wrap, ids that are not identities, unknown keys, header
//! fields hk cannot read back, pointers to nothing, deep JSON, NaN payloads), and every
//! error names the line and column of the value in the
//! dump text and its place in the dump's own syntax (`#2 hkaSkeleton.bones[0].name`,
//! `file.layout.pointer_size`), never a Rust debug path.
//!
//! The dumps are built in code: a Havok 7.1 file made by hk's writer from a graph (a root
//! container, an animation container, a skeleton with bones, parent indices and a
//! reference pose), dumped to JSON (or TOML), one value edited, and read back. Each edit
//! puts a marker value in the text; the expected line is found by searching the text for
//! it, not taken from the reader.

use std::ops::RangeInclusive;
use std::sync::Arc;

use hk_runtime::dump::{self, Format};
use hk_runtime::error::{ErrorKind, ReadError, WriteError};
use hk_runtime::file::{self, Schemas};
use hk_runtime::graph::{Array, Graph, ObjectId, Ptr, Value};
use hk_runtime::packfile::PackfileInfo;
use serde_json::{json, Value as Json};

/// The schemas and the bytes of the base file.
fn base() -> (Schemas, Vec<u8>) {
    let schemas = hk_tests::schema_set();
    let schema = schemas.load("havok-7.1").unwrap();
    let mut g = Graph::new(Arc::clone(&schema));
    let root = g.add_object("hkRootLevelContainer").unwrap();
    let ac = g.add_object("hkaAnimationContainer").unwrap();
    let sk = g.add_object("hkaSkeleton").unwrap();
    let s = |t: &str| Value::String(Some(t.into()));
    let named = Value::Struct(vec![
        s("Skeleton"),
        s("hkaAnimationContainer"),
        Value::Pointer(Some(Ptr::Object(ac))),
    ]);
    g.set(
        root,
        "namedVariants",
        Value::Array(Array::Values(vec![named])),
    )
    .unwrap();
    g.set(
        ac,
        "skeletons",
        Value::Array(Array::Values(vec![Value::Pointer(Some(Ptr::Object(sk)))])),
    )
    .unwrap();
    g.set(sk, "name", s("Reference")).unwrap();
    g.set(
        sk,
        "parentIndices",
        Value::Array(Array::I16(vec![-1, 0, 1])),
    )
    .unwrap();
    let bone = |n: &str, lock: u8| Value::Struct(vec![s(n), Value::Bool(lock)]);
    g.set(
        sk,
        "bones",
        Value::Array(Array::Values(vec![
            bone("Pelvis", 0),
            bone("Spine", 1),
            bone("Head", 0),
        ])),
    )
    .unwrap();
    let pose: [f32; 12] = [0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0];
    g.set(
        sk,
        "referencePose",
        Value::Array(Array::Mat3(vec![pose; 3])),
    )
    .unwrap();
    assert_eq!(g.root, ObjectId(0));
    let gen = &schema.generation;
    let bytes =
        hk_runtime::packfile::graph::write::write(&g, &PackfileInfo::new(gen, gen.layout)).unwrap();
    (schemas, bytes)
}

/// The base file's dump as a JSON value.
fn base_json(schemas: &Schemas, bytes: &[u8]) -> Json {
    let doc = file::open(bytes, schemas, Default::default()).unwrap();
    let mut text = Vec::new();
    dump::write_json(&doc, &mut text).unwrap();
    serde_json::from_slice(&text).unwrap()
}

/// The fields of dump object `id`.
fn fields(j: &mut Json, id: usize) -> &mut Json {
    &mut j["objects"][id]["fields"]
}

/// Pretty JSON text, as `hk dump` writes it.
fn text(j: &Json) -> String {
    serde_json::to_string_pretty(j).unwrap()
}

/// The 1-based lines of `text` holding `marker`.
fn lines_of(text: &str, marker: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect()
}

/// The one line holding `marker`.
fn line_of(text: &str, marker: &str) -> usize {
    let found = lines_of(text, marker);
    assert_eq!(found.len(), 1, "`{marker}` on lines {found:?}");
    found[0]
}

/// Reads `text`, expecting an error whose message holds every one of `needles`, at a line
/// in `lines` (and a column within that line); returns the error.
fn refused(
    schemas: &Schemas,
    text: &str,
    format: Format,
    lines: RangeInclusive<usize>,
    needles: &[&str],
) -> hk_runtime::Error {
    let e = match dump::read(text.as_bytes(), format, schemas) {
        Ok(_) => panic!("built, but must be refused: {needles:?}"),
        Err(e) => e,
    };
    let msg = e.to_string();
    println!("{msg}");
    for n in needles {
        assert!(msg.contains(n), "`{n}` not in: {msg}");
    }
    let (l, c) = e
        .line_column()
        .unwrap_or_else(|| panic!("no line and column: {msg}"));
    assert!(lines.contains(&l), "line {l}, expected {lines:?}: {msg}");
    let width = text.lines().nth(l - 1).map_or(0, |x| x.chars().count());
    assert!(
        c >= 1 && c <= width + 1,
        "column {c} of a {width}-character line"
    );
    assert!(msg.starts_with(&format!("line {l}, column {c}: ")), "{msg}");
    for debug in ["Member(", "Index(", "Field(", "[Seg"] {
        assert!(!msg.contains(debug), "a Rust debug path in: {msg}");
    }
    e
}

fn kind_is(e: &hk_runtime::Error, f: fn(&WriteError) -> bool) -> bool {
    matches!(e.kind(), ErrorKind::Write(w) if f(w))
}

#[test]
fn the_base_dump_builds_the_file_it_came_from() {
    let (schemas, bytes) = base();
    let j = base_json(&schemas, &bytes);
    for format in [Format::Json, Format::Toml] {
        let t = match format {
            Format::Json => text(&j),
            Format::Toml => {
                let doc = file::open(&bytes, &schemas, Default::default()).unwrap();
                dump::to_toml(&doc).unwrap()
            }
        };
        let (built, _) = dump::build_text(t.as_bytes(), format, &schemas).unwrap();
        assert_eq!(built, bytes, "{format:?}");
    }
}

/// A last `qstransform` element with 13 floats; 11 floats, and a float
/// past the `f32` range.
#[test]
fn qstransforms_take_twelve_finite_floats() {
    let (schemas, bytes) = base();
    for (n, what) in [(13, "13 given"), (11, "11 given")] {
        let mut j = base_json(&schemas, &bytes);
        let mut pose: Vec<Json> = (0..n).map(|i| json!(i as f64 + 0.25)).collect();
        pose[n - 1] = json!(777.125);
        fields(&mut j, 2)["referencePose"][2] = Json::Array(pose);
        let t = text(&j);
        let at = line_of(&t, "777.125");
        let e = refused(
            &schemas,
            &t,
            Format::Json,
            at..=at + 1,
            &["#2 hkaSkeleton.referencePose[2]", "takes 12 values", what],
        );
        assert!(kind_is(&e, |w| matches!(w, WriteError::Length { .. })));
    }
    let mut j = base_json(&schemas, &bytes);
    fields(&mut j, 2)["referencePose"][1][4] = json!(1e39);
    let t = text(&j);
    // However serde_json spells it (`1e39`, `1e+39`).
    let at = line_of(&t, &serde_json::to_string(&json!(1e39)).unwrap());
    let e = refused(
        &schemas,
        &t,
        Format::Json,
        at..=at,
        &["#2 hkaSkeleton.referencePose[1][4]", "real", "f32"],
    );
    assert!(kind_is(&e, |w| matches!(w, WriteError::Range { .. })));
}

/// No sections.
#[test]
fn a_packfile_needs_its_sections() {
    let (schemas, bytes) = base();
    let mut j = base_json(&schemas, &bytes);
    j["file"]["sections"] = json!([]);
    let t = text(&j);
    let at = line_of(&t, "\"sections\": []");
    refused(
        &schemas,
        &t,
        Format::Json,
        at..=at,
        &["file.sections", "two sections", "0 given"],
    );
}

/// Integers that would wrap, in members and in header fields.
#[test]
fn integers_that_would_wrap_are_refused() {
    let (schemas, bytes) = base();
    type Edit = fn(&mut Json);
    let cases: [(Edit, &str, &[&str]); 6] = [
        (
            |j| fields(j, 2)["parentIndices"][1] = json!(40000),
            "40000",
            &[
                "#2 hkaSkeleton.parentIndices[1]",
                "int16",
                "-32768 to 32767",
            ],
        ),
        (
            |j| fields(j, 2)["memSizeAndFlags"] = json!(-1),
            "-1,",
            &["#2 hkaSkeleton.memSizeAndFlags", "uint16", "0 to 65535"],
        ),
        (
            |j| fields(j, 2)["bones"][2]["lockTranslation"] = json!(300),
            "300",
            &["#2 hkaSkeleton.bones[2].lockTranslation", "bool"],
        ),
        (
            |j| fields(j, 1)["skeletons"][0] = json!((1u64 << 32) + 2),
            "4294967298",
            &[
                "#1 hkaAnimationContainer.skeletons[0]",
                "object #4294967298",
                "does not exist",
            ],
        ),
        (
            |j| j["file"]["file_version"] = json!((1u64 << 32) + 8),
            "4294967304",
            &["file.file_version", "uint32"],
        ),
        (
            |j| j["file"]["layout"]["pointer_size"] = json!(256),
            "256",
            &["file.layout.pointer_size", "uint8"],
        ),
    ];
    for (edit, marker, needles) in cases {
        let mut j = base_json(&schemas, &bytes);
        edit(&mut j);
        let t = text(&j);
        // `-1,` is also a parent index: the member's own line.
        let at = if marker == "-1," {
            line_of(&t, "\"memSizeAndFlags\": -1")
        } else {
            line_of(&t, marker)
        };
        refused(&schemas, &t, Format::Json, at..=at, needles);
    }
}

/// Ids are identities. A pointer to an object no longer listed names the object
/// and member that hold it; two objects with one id are refused; swapped objects (ids
/// kept) build the same file.
#[test]
fn object_ids_are_identities() {
    let (schemas, bytes) = base();
    let mut j = base_json(&schemas, &bytes);
    j["objects"].as_array_mut().unwrap().remove(1);
    let t = text(&j);
    let at = line_of(&t, "\"variant\": 1");
    let e = refused(
        &schemas,
        &t,
        Format::Json,
        at..=at,
        &[
            "#0 hkRootLevelContainer.namedVariants[0].variant",
            "object #1",
        ],
    );
    assert!(kind_is(&e, |w| matches!(w, WriteError::MissingObject(1))));

    let mut j = base_json(&schemas, &bytes);
    j["objects"][2]["id"] = json!(1);
    let t = text(&j);
    // The second object with id 1 is the third of the list.
    let at = lines_of(&t, "\"id\": 1")[1];
    refused(
        &schemas,
        &t,
        Format::Json,
        at..=at,
        &["objects[2].id", "two objects have id 1"],
    );

    let mut j = base_json(&schemas, &bytes);
    j["objects"].as_array_mut().unwrap().swap(1, 2);
    let (built, _) = dump::build_text(text(&j).as_bytes(), Format::Json, &schemas).unwrap();
    let a = file::open(&bytes, &schemas, Default::default()).unwrap();
    let b = file::open(&built, &schemas, Default::default()).unwrap();
    assert_eq!(hk_runtime::diff::diff(&a, &b, 10).total, 0);
}

/// Unknown or misspelled keys, a dump format hk does not read, a capacity flag on
/// a member that does not exist, a byte order that is neither.
#[test]
fn unknown_keys_and_values_are_refused() {
    let (schemas, bytes) = base();
    type Edit = fn(&mut Json);
    let cases: [(Edit, &str, &[&str]); 5] = [
        (
            |j| {
                let f = fields(j, 2).as_object_mut().unwrap();
                let v = f.shift_remove("name").unwrap();
                f.insert("nmae".into(), v);
            },
            "\"nmae\"",
            &["#2 hkaSkeleton", "no member `nmae`"],
        ),
        (
            |j| j["hk_dump"] = json!(99),
            "\"hk_dump\": 99",
            &["hk_dump", "dump format 99"],
        ),
        (
            |j| j["capacity_flags"] = json!([{"object": 2, "path": "bnoes", "flags": 0}]),
            "\"bnoes\"",
            &["capacity_flags[0].path", "no member `bnoes`"],
        ),
        (
            |j| j["file"]["layout"]["endian"] = json!("middle"),
            "\"middle\"",
            &["file.layout.endian", "\"middle\""],
        ),
        (
            |j| j["file"]["userTag"] = json!(0),
            "\"userTag\"",
            &["file.userTag", "unknown key `userTag`"],
        ),
    ];
    for (edit, marker, needles) in cases {
        let mut j = base_json(&schemas, &bytes);
        edit(&mut j);
        let t = text(&j);
        let at = line_of(&t, marker);
        refused(&schemas, &t, Format::Json, at..=at, needles);
    }
}

/// Header fields and strings hk's reader would not read back.
#[test]
fn what_would_not_read_back_is_refused() {
    let (schemas, bytes) = base();
    type Edit = fn(&mut Json);
    let cases: [(Edit, &str, &[&str]); 4] = [
        (
            |j| j["file"]["layout"]["pointer_size"] = json!(3),
            "\"pointer_size\": 3",
            &["file.layout.pointer_size", "pointer size 3"],
        ),
        (
            |j| j["file"]["file_version"] = json!(99),
            "\"file_version\": 99",
            &["file.file_version", "file version 99"],
        ),
        (
            |j| j["file"]["contents_section"] = json!(9),
            "\"contents_section\": 9",
            &["file.contents_section", "section 9"],
        ),
        (
            |j| fields(j, 2)["bones"][1]["name"] = json!("Sp\u{0}ine"),
            "Sp\\u0000ine",
            &["#2 hkaSkeleton.bones[1].name", "NUL"],
        ),
    ];
    for (edit, marker, needles) in cases {
        let mut j = base_json(&schemas, &bytes);
        edit(&mut j);
        let t = text(&j);
        let at = line_of(&t, marker);
        refused(&schemas, &t, Format::Json, at..=at, needles);
    }
}

/// Pointers to objects or elements that do not exist name the object and member
/// that hold them, and paths are in the dump's syntax.
#[test]
fn missing_targets_name_their_holder_in_dump_syntax() {
    let (schemas, bytes) = base();
    let mut j = base_json(&schemas, &bytes);
    fields(&mut j, 1)["skeletons"][0] = json!(99);
    let t = text(&j);
    let at = line_of(&t, "99");
    refused(
        &schemas,
        &t,
        Format::Json,
        at..=at,
        &[
            "#1 hkaAnimationContainer.skeletons[0]",
            "pointer to object #99, which does not exist",
        ],
    );

    // A pointer into an element past the end of an array of an object listed after it.
    let mut j = base_json(&schemas, &bytes);
    fields(&mut j, 0)["namedVariants"][0]["variant"] = json!({"object": 2, "path": "bones[999]"});
    let t = text(&j);
    let at = line_of(&t, "bones[999]");
    refused(
        &schemas,
        &t,
        Format::Json,
        at - 2..=at + 1,
        &[
            "#0 hkRootLevelContainer.namedVariants[0].variant",
            "pointer into #2 hkaSkeleton.bones[999], which does not exist",
        ],
    );
    // The same pointer to an element that exists builds.
    fields(&mut j, 0)["namedVariants"][0]["variant"] = json!({"object": 2, "path": "bones[1]"});
    dump::build_text(text(&j).as_bytes(), Format::Json, &schemas).unwrap();

    // A capacity flag on an element that does not exist.
    let mut j = base_json(&schemas, &bytes);
    j["capacity_flags"] = json!([{"object": 2, "path": "bones[999].name", "flags": 0}]);
    let t = text(&j);
    let at = line_of(&t, "bones[999]");
    refused(
        &schemas,
        &t,
        Format::Json,
        at..=at,
        &[
            "capacity_flags[0].path",
            "#2 hkaSkeleton.bones[999].name does not exist",
        ],
    );
}

/// Deep JSON is a JSON error (with its line and column), never a TOML one,
/// whichever way the text starts; a byte-order mark does not make JSON TOML.
#[test]
fn deep_json_is_reported_as_json() {
    let (schemas, bytes) = base();
    let deep =
        |open: &str, close: &str| format!("{}{}", open.repeat(100_000), close.repeat(100_000));
    for t in [
        deep("[", "]"),
        format!("{{\n  \"hk_dump\": {}\n}}", deep("[", "]")),
        format!(
            "{{\n  \"x\": {}1{}\n}}",
            "{\"a\": ".repeat(5_000),
            "}".repeat(5_000)
        ),
    ] {
        let format = Format::detect(None, t.as_bytes());
        assert_eq!(format, Format::Json);
        let e = dump::read(t.as_bytes(), format, &schemas).unwrap_err();
        let msg = e.to_string();
        println!("{}", &msg[..msg.len().min(200)]);
        assert!(!msg.contains("TOML"), "{msg}");
        assert!(e.line_column().is_some(), "{msg}");
    }
    // The JSON parser's own depth limit, with its place.
    let t = format!("{{\n  \"hk_dump\": {}\n}}", deep("[", "]"));
    let e = dump::read(t.as_bytes(), Format::Json, &schemas).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::Read(ReadError::Syntax { format: "JSON", .. })
    ));
    assert!(e.to_string().contains("recursion limit"), "{e}");
    assert_eq!(e.line_column().map(|(l, _)| l), Some(2));
    // A dump saved with a byte-order mark (as some editors do) is still JSON, and reads.
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(text(&base_json(&schemas, &bytes)).as_bytes());
    assert_eq!(Format::detect(None, &with_bom), Format::Json);
    dump::read(&with_bom, Format::Json, &schemas).unwrap();
    // A TOML table header is TOML.
    assert_eq!(Format::detect(None, b"[file]\nx = 1\n"), Format::Toml);
    assert_eq!(Format::detect(None, b"  hk_dump = 1\n"), Format::Toml);
}

/// TOML's `nan` and `inf` are floats; NaN payloads keep their bits through both
/// formats (dumps write a non-finite float as `"f32:0x…"` in JSON and TOML alike).
#[test]
fn non_finite_floats_keep_their_bits_in_json_and_toml() {
    let (schemas, bytes) = base();
    let doc = file::open(&bytes, &schemas, Default::default()).unwrap();
    let pose_at = |built: &dump::Built, k: usize| -> u32 {
        match built.graph.get(ObjectId(2), "referencePose").unwrap() {
            Value::Array(Array::Mat3(v)) => v[0][k].to_bits(),
            other => panic!("{other:?}"),
        }
    };
    let toml = dump::to_toml(&doc).unwrap();
    let first = "referencePose = [\n    [\n    0.0,\n    1.0,\n    2.0,";
    assert!(toml.contains(first), "the TOML layout changed:\n{toml}");
    for (word, bits) in [
        ("nan", 0x7FC0_0000u32),
        ("+inf", 0x7F80_0000),
        ("-inf", 0xFF80_0000),
    ] {
        let edited = toml.replacen(first, &first.replacen("1.0", word, 1), 1);
        let built = dump::read(edited.as_bytes(), Format::Toml, &schemas)
            .unwrap_or_else(|e| panic!("{word}: {e}"));
        assert_eq!(pose_at(&built, 1), bits, "{word}");
    }
    // A NaN with a payload, set in the graph: dumped as its bits in both formats, built
    // back to the same bits.
    let mut doc = doc;
    let mut pose = [0.0f32; 12];
    pose[1] = f32::from_bits(0x7FC0_1234);
    pose[2] = f32::NEG_INFINITY;
    doc.graph
        .set(
            ObjectId(2),
            "referencePose",
            Value::Array(Array::Mat3(vec![pose; 3])),
        )
        .unwrap();
    let mut json = Vec::new();
    dump::write_json(&doc, &mut json).unwrap();
    let toml = dump::to_toml(&doc).unwrap();
    for (t, format) in [(json, Format::Json), (toml.into_bytes(), Format::Toml)] {
        let s = String::from_utf8_lossy(&t);
        assert!(s.contains("\"f32:0x7FC01234\""), "{format:?}");
        assert!(s.contains("\"f32:0xFF800000\""), "{format:?}");
        let built = dump::read(&t, format, &schemas).unwrap();
        assert_eq!(pose_at(&built, 1), 0x7FC0_1234, "{format:?}");
        assert_eq!(pose_at(&built, 2), 0xFF80_0000, "{format:?}");
    }
}

/// TOML dumps get the same checks, with TOML's line and column.
#[test]
fn toml_errors_have_lines_and_columns() {
    let (schemas, bytes) = base();
    let doc = file::open(&bytes, &schemas, Default::default()).unwrap();
    let toml = dump::to_toml(&doc).unwrap();
    let t = toml.replacen("name = \"Reference\"", "nmae = \"Reference\"", 1);
    let at = line_of(&t, "nmae");
    refused(
        &schemas,
        &t,
        Format::Toml,
        at..=at,
        &["#2 hkaSkeleton", "nmae"],
    );
    let first = "parentIndices = [\n    -1,\n    0,";
    assert!(toml.contains(first), "the TOML layout changed:\n{toml}");
    let t = toml.replacen(first, &first.replacen("0,", "40000,", 1), 1);
    let at = line_of(&t, "40000");
    refused(
        &schemas,
        &t,
        Format::Toml,
        at..=at,
        &["#2 hkaSkeleton.parentIndices[1]", "40000"],
    );
}
