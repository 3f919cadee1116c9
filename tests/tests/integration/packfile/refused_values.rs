//! Unchecked edits are gone: a value that does not fit its member is refused with an error
//! that names the object and the member, whichever way it comes in:
//! (a) `Graph::set` on the graph of a real corpus file,
//! (b) the packfile writer, after the value is put into `graph.objects[i].values[j]`
//!     directly (past every setter),
//! (c) `dump::build` of the file's JSON dump with the value edited in.
//! Dumps are also refused for tuples of the wrong length, integers, bools and floats out of
//! range, object ids past 32 bits, header fields wider than their words, and a file with no
//! sections.

use hk_runtime::dump;
use hk_runtime::error::{ErrorKind, WriteError};
use hk_runtime::file::{self, Document, Schemas};
use hk_runtime::graph::{value_at_mut, Floats, ObjectId, Ptr, Value};
use hk_runtime::schema::Shape;
use serde_json::{json, Value as Json};

/// A Dark Souls (Havok 2010.2) collision file: a rigid body, a MOPP tree and an extended
/// mesh shape, with members of every kind below.
const PTDE: &str = "games/dark-souls-ptde/map_collision_template.hkx";
/// A Havok 7.1 demo skeleton (big endian, 32-bit): four objects, no `vector4` or `uint8`
/// member at all.
const H710: &str = "packfile/havoklib-710/allosaur[4011].hkx";

/// The error kind a case must give.
#[derive(Clone, Copy, Debug)]
enum Expect {
    Range,
    Length,
    Kind,
    Missing,
    Invalid,
}

fn is(kind: &ErrorKind, want: Expect) -> bool {
    matches!(
        (kind, want),
        (ErrorKind::Write(WriteError::Range { .. }), Expect::Range)
            | (ErrorKind::Write(WriteError::Length { .. }), Expect::Length)
            | (ErrorKind::Write(WriteError::Kind { .. }), Expect::Kind)
            | (
                ErrorKind::Write(WriteError::MissingObject(_)),
                Expect::Missing
            )
            | (ErrorKind::Write(WriteError::Invalid(_)), Expect::Invalid)
    )
}

/// One bad value for one real member.
struct Case {
    file: &'static str,
    class: &'static str,
    /// Member path (`skeletons[0]`).
    path: &'static str,
    /// The member's shape in the file's schema (checked, so the case is what it says).
    shape: Shape,
    /// The bad value, given the file's object count.
    value: fn(usize) -> Value,
    /// The same value in a dump.
    json: fn(usize) -> Json,
    expect: Expect,
}

const U8: Shape = Shape::Int {
    bytes: 1,
    signed: false,
};
const U16: Shape = Shape::Int {
    bytes: 2,
    signed: false,
};
const I16: Shape = Shape::Int {
    bytes: 2,
    signed: true,
};
const I32: Shape = Shape::Int {
    bytes: 4,
    signed: true,
};

fn five_floats(_: usize) -> Value {
    Value::Floats(Floats::new(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap())
}

fn missing(objects: usize) -> Value {
    Value::Pointer(Some(Ptr::Object(ObjectId(objects as u32 + 100))))
}

fn cases() -> Vec<Case> {
    vec![
        // A vector4 given 5 floats.
        Case {
            file: PTDE,
            class: "CustomParamStorageExtendedMeshShape",
            path: "aabbHalfExtents",
            shape: Shape::Floats(4),
            value: five_floats,
            json: |_| json!([1.0, 2.0, 3.0, 4.0, 5.0]),
            expect: Expect::Length,
        },
        // 300 given to a uint8.
        Case {
            file: PTDE,
            class: "hkpRigidBody",
            path: "numShapeKeysInContactPointProperties",
            shape: U8,
            value: |_| Value::UInt(300),
            json: |_| json!(300),
            expect: Expect::Range,
        },
        // -1 given to a uint16.
        Case {
            file: PTDE,
            class: "hkpRigidBody",
            path: "storageIndex",
            shape: U16,
            value: |_| Value::Int(-1),
            json: |_| json!(-1),
            expect: Expect::Range,
        },
        Case {
            file: H710,
            class: "hkaSkeleton",
            path: "memSizeAndFlags",
            shape: U16,
            value: |_| Value::Int(-1),
            json: |_| json!(-1),
            expect: Expect::Range,
        },
        // A string given to an int.
        Case {
            file: PTDE,
            class: "CustomParamStorageExtendedMeshShape",
            path: "numBitsForSubpartIndex",
            shape: I32,
            value: |_| Value::String(Some("twelve".into())),
            json: |_| json!("twelve"),
            expect: Expect::Kind,
        },
        Case {
            file: H710,
            class: "hkaSkeleton",
            path: "referenceCount",
            shape: I16,
            value: |_| Value::String(Some("one".into())),
            json: |_| json!("one"),
            expect: Expect::Kind,
        },
        // A pointer to a missing object.
        Case {
            file: PTDE,
            class: "hkpMoppBvTreeShape",
            path: "code",
            shape: Shape::Pointer,
            value: missing,
            json: |n| json!(n + 100),
            expect: Expect::Missing,
        },
        Case {
            file: H710,
            class: "hkaAnimationContainer",
            path: "skeletons[0]",
            shape: Shape::Pointer,
            value: missing,
            json: |n| json!(n + 100),
            expect: Expect::Missing,
        },
    ]
}

fn open(corpus: &std::path::Path, file: &str, schemas: &Schemas) -> (Vec<u8>, Document) {
    let data = hk_tests::read(&corpus.join(file));
    let doc = file::open(&data, schemas, Default::default()).unwrap();
    (data, doc)
}

/// The last member name of a path (`skeletons` for `skeletons[0]`).
fn member_name(path: &str) -> &str {
    let last = path.rsplit('.').next().unwrap_or(path);
    last.split('[').next().unwrap_or(last)
}

/// Checks `err` against the case: its kind, and a message naming the object and member;
/// `Err` says what is wrong.
fn check_error(
    how: &str,
    err: &hk_runtime::Error,
    label: &str,
    member: &str,
    want: Expect,
) -> Result<(), String> {
    println!("{how}: {err}");
    let msg = err.to_string();
    if !is(err.kind(), want) {
        return Err(format!(
            "{how}: expected {want:?}, got {:?}: {msg}",
            err.kind()
        ));
    }
    if !msg.contains(label) {
        return Err(format!("{how}: `{label}` not named in: {msg}"));
    }
    if !msg.contains(member) {
        return Err(format!("{how}: member `{member}` not named in: {msg}"));
    }
    Ok(())
}

/// The JSON value at member path `path` of a dumped object's fields.
fn json_at<'j>(fields: &'j mut Json, path: &str) -> &'j mut Json {
    let mut at = fields;
    for step in hk_runtime::graph::parse_path(path).unwrap() {
        at = match step {
            hk_runtime::graph::PathStep::Name(n) => &mut at[n],
            hk_runtime::graph::PathStep::Index(k) => &mut at[k as usize],
        };
        assert!(!at.is_null(), "{path} is not in the dump");
    }
    at
}

#[test]
fn bad_values_are_refused_by_set_by_the_writer_and_by_build() {
    let Some(corpus) = hk_tests::corpus("bad_values_are_refused") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let mut files: Vec<&str> = cases().iter().map(|c| c.file).collect();
    files.sort_unstable();
    files.dedup();
    for file in files {
        // The untouched file writes and builds back to its own bytes: what is refused
        // below is refused for the edit alone.
        let (data, doc) = open(&corpus, file, &schemas);
        assert_eq!(file::write(&doc).unwrap(), data, "{file}: write");
        let (built, _) = dump::build(&dump::to_json(&doc), &schemas).unwrap();
        assert_eq!(built, data, "{file}: dump -> build");
    }
    let mut refused = 0;
    let mut failures = Vec::new();
    for case in cases() {
        let (_, mut doc) = open(&corpus, case.file, &schemas);
        let n = doc.graph.objects.len();
        let id = doc
            .graph
            .first(case.class)
            .unwrap_or_else(|| panic!("{}: no {}", case.file, case.class));
        let label = doc.graph.object_label(id);
        assert_eq!(label, format!("object #{} {}", id.0, case.class));
        let class = doc.graph.object(id).class;
        let (segs, shape) = doc.graph.resolve(class, case.path).unwrap();
        assert_eq!(shape, case.shape, "{}.{}", case.class, case.path);
        let member = member_name(case.path);
        let what = format!("{} {}.{}", case.file, case.class, case.path);

        // (a) Graph::set refuses it and leaves the value as it was.
        let before = doc.graph.get(id, case.path).unwrap();
        let err = doc
            .graph
            .set(id, case.path, (case.value)(n))
            .expect_err(&what);
        failures
            .extend(check_error(&format!("{what}: set"), &err, &label, member, case.expect).err());
        assert_eq!(doc.graph.get(id, case.path).unwrap(), before, "{what}");

        // (b) Put in directly, the writer refuses it.
        let slot = value_at_mut(&mut doc.graph.objects[id.0 as usize].values, &segs)
            .unwrap_or_else(|| panic!("{what}: no value to overwrite"));
        *slot = (case.value)(n);
        let err = file::write(&doc).expect_err(&what);
        failures.extend(
            check_error(&format!("{what}: write"), &err, &label, member, case.expect).err(),
        );

        // (c) Edited into the dump, build refuses it.
        let (_, doc) = open(&corpus, case.file, &schemas);
        let mut j = dump::to_json(&doc);
        *json_at(&mut j["objects"][id.0 as usize]["fields"], case.path) = (case.json)(n);
        let err = dump::build(&j, &schemas).map(|_| ()).expect_err(&what);
        // In the dump's syntax: the object's dump id and class, then the member path.
        let dump_path = format!("#{} {}.{}", id.0, case.class, case.path);
        failures.extend(
            check_error(
                &format!("{what}: build"),
                &err,
                &dump_path,
                member,
                case.expect,
            )
            .err(),
        );
        refused += 3;
    }
    println!("{refused} bad values refused");
    assert_eq!(refused, 3 * cases().len());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// A dump edit that `dump::build` must refuse.
struct DumpCase {
    what: &'static str,
    file: &'static str,
    edit: fn(&mut Json),
    /// What the message must name, in the dump's syntax (`#2 hkaSkeleton.bones[0]`,
    /// `file.layout.pointer_size`).
    names: &'static [&'static str],
    expect: Expect,
}

/// The fields of the first object of `class` in a dump.
fn fields<'j>(j: &'j mut Json, class: &str) -> &'j mut Json {
    let objects = j["objects"].as_array_mut().unwrap();
    let o = objects
        .iter_mut()
        .find(|o| o["class"] == class)
        .unwrap_or_else(|| panic!("no {class} in the dump"));
    &mut o["fields"]
}

fn floats(n: usize) -> Json {
    Json::Array((0..n).map(|i| json!(i as f64 * 0.5)).collect())
}

fn dump_cases() -> Vec<DumpCase> {
    vec![
        DumpCase {
            what: "qstransform with 13 floats",
            file: H710,
            edit: |j| fields(j, "hkaSkeleton")["referencePose"][0] = floats(13),
            names: &["#2 hkaSkeleton.referencePose[0]"],
            expect: Expect::Length,
        },
        DumpCase {
            what: "qstransform with 11 floats",
            file: H710,
            edit: |j| fields(j, "hkaSkeleton")["referencePose"][3] = floats(11),
            names: &["#2 hkaSkeleton.referencePose[3]"],
            expect: Expect::Length,
        },
        DumpCase {
            what: "int16 40000",
            file: H710,
            edit: |j| fields(j, "hkaSkeleton")["parentIndices"][1] = json!(40000),
            names: &["#2 hkaSkeleton.parentIndices[1]", "40000"],
            expect: Expect::Range,
        },
        DumpCase {
            what: "bool 300",
            file: H710,
            edit: |j| fields(j, "hkaSkeleton")["bones"][0]["lockTranslation"] = json!(300),
            names: &["#2 hkaSkeleton.bones[0].lockTranslation", "300"],
            expect: Expect::Range,
        },
        DumpCase {
            what: "float 1e39",
            file: PTDE,
            edit: |j| fields(j, "hkpRigidBody")["damageMultiplier"] = json!(1e39),
            names: &["#3 hkpRigidBody.damageMultiplier"],
            expect: Expect::Range,
        },
        DumpCase {
            what: "pointer id 2^32+2",
            file: H710,
            edit: |j| fields(j, "hkaAnimationContainer")["skeletons"][0] = json!((1u64 << 32) + 2),
            names: &["#1 hkaAnimationContainer.skeletons[0]", "4294967298"],
            expect: Expect::Missing,
        },
        DumpCase {
            what: "file_version 2^32+8",
            file: H710,
            edit: |j| j["file"]["file_version"] = json!((1u64 << 32) + 8),
            names: &["file.file_version", "4294967304"],
            expect: Expect::Range,
        },
        DumpCase {
            // A dump written by hand may leave out the schema folder; the file version
            // then chooses it, and is refused the same way.
            what: "file_version 2^32+8, no `schema`",
            file: H710,
            edit: |j| {
                j.as_object_mut().unwrap().remove("schema");
                j["file"]["file_version"] = json!((1u64 << 32) + 8);
            },
            names: &["file.file_version", "4294967304"],
            expect: Expect::Range,
        },
        DumpCase {
            what: "pointer_size 256",
            file: H710,
            edit: |j| j["file"]["layout"]["pointer_size"] = json!(256),
            names: &["file.layout.pointer_size", "256"],
            expect: Expect::Range,
        },
        DumpCase {
            what: "no sections",
            file: H710,
            edit: |j| j["file"]["sections"] = json!([]),
            names: &["file.sections", "0 given"],
            expect: Expect::Invalid,
        },
    ]
}

#[test]
fn bad_dumps_are_refused_naming_the_object_member_or_file_field() {
    let Some(corpus) = hk_tests::corpus("bad_dumps_are_refused") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let mut failures = Vec::new();
    for case in dump_cases() {
        let (data, doc) = open(&corpus, case.file, &schemas);
        let mut j = dump::to_json(&doc);
        assert_eq!(
            dump::build(&j, &schemas).unwrap().0,
            data,
            "{}: the unedited dump builds",
            case.file
        );
        (case.edit)(&mut j);
        let outcome = std::panic::catch_unwind(|| dump::build(&j, &schemas).map(|_| ()));
        let err = outcome
            .unwrap_or_else(|_| panic!("{}: build panicked", case.what))
            .expect_err(case.what);
        println!("{}: {err}", case.what);
        let msg = err.to_string();
        if !is(err.kind(), case.expect) {
            failures.push(format!(
                "{}: expected {:?}, got {:?}: {msg}",
                case.what,
                case.expect,
                err.kind()
            ));
        }
        for name in case.names {
            if !msg.contains(name) {
                failures.push(format!("{}: `{name}` not in: {msg}", case.what));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// An integer array stored in a wider column than its member (an `I64` column for an
/// `int16` member, as an edit past the setters may leave it) is checked element by
/// element: values that fit pass, the first that does not is named with its index.
#[test]
fn wide_integer_columns_are_checked_element_by_element() {
    let Some(corpus) = hk_tests::corpus("wide_integer_columns") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let (_, mut doc) = open(&corpus, H710, &schemas);
    let id = doc.graph.first("hkaSkeleton").unwrap();
    let class = doc.graph.object(id).class;
    let (segs, shape) = doc.graph.resolve(class, "parentIndices").unwrap();
    assert!(matches!(shape, Shape::Array(..)), "{shape:?}");
    let set = |doc: &mut Document, column: Vec<i64>| {
        let v = value_at_mut(&mut doc.graph.objects[id.0 as usize].values, &segs).unwrap();
        *v = Value::Array(hk_runtime::graph::Array::I64(column));
    };
    set(&mut doc, vec![-1, 0, 1, 32767, -32768]);
    doc.graph.check().unwrap();
    set(&mut doc, vec![-1, 0, 70000, 1]);
    let err = doc.graph.check().unwrap_err();
    let msg = err.to_string();
    println!("{msg}");
    assert!(
        matches!(err.kind(), ErrorKind::Write(WriteError::Range { .. })),
        "{msg}"
    );
    for want in [
        "hkaSkeleton",
        "parentIndices",
        "[2]",
        "70000",
        "-32768 to 32767",
    ] {
        assert!(msg.contains(want), "`{want}` not in: {msg}");
    }
}
