//! `homogeneousarray` members (docs/packfile-format.md §7.8): Havok 5.5's
//! `hkxVertexBuffer.vertexData`, whose elements are structs of the class an hkClass object
//! of the file names. No corpus file holds a non-empty one, so each file here is written by
//! hk from a dump: the same objects in the four layouts of the generation (4- and 8-byte
//! pointers, both byte orders). Each reads, dumps and builds back byte for byte, converts
//! into each of the other three exactly, and its bytes hold the header the format states.

use hk_runtime::convert::convert;
use hk_runtime::dump;
use hk_runtime::file::{self, Document, Schemas};
use hk_runtime::packfile::check::pointer_slots;
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::packfile::{fixup, Loc, Packfile};
use hk_runtime::LayoutRules;
use serde_json::{json, Value as Json};

/// The generation's layouts: pointer size, byte order; reuse padding and empty base on.
const LAYOUTS: [&str; 4] = ["4011", "4111", "8011", "8111"];

/// `hkClassMember::Type` values of 5.5 (schemas/havok-5.5/generation.toml).
const TYPE_REAL: u64 = 11;
const TYPE_CSTRING: u64 = 29;

/// One declared member of an hkClass object.
fn class_member(name: &str, ty: u64, offset: u64) -> Json {
    json!({ "name": name, "class": null, "enum": null, "type": ty, "subtype": 0,
            "cArraySize": 0, "flags": 0, "offset": offset, "attributes": null })
}

/// The dump of a file with one `hkxVertexBuffer` holding three
/// `hkaAnnotationTrackAnnotation` elements (`real time`, `cstring text`), described by the
/// hkClass object #2, laid out under `tag`.
fn dump_for(tag: &str) -> Json {
    let p: u64 = if tag.starts_with('8') { 8 } else { 4 };
    let endian = if &tag[1..2] == "1" { "little" } else { "big" };
    json!({
        "hk_dump": 1,
        "schema": "havok-5.5",
        "file": {
            "file_version": 5, "contents_version": "Havok-5.5.0-r1",
            "layout": { "pointer_size": p, "endian": endian, "reuse_padding": true, "empty_base": true },
            "user_tag": 0, "flags": 0,
            "sections": ["__classnames__", "__types__", "__data__"],
            "class_names_section": 0, "contents_section": 2,
            "predicates": null, "class_names": null, "exports": []
        },
        "capacity_flags": [],
        "root": 0,
        "objects": [
            { "id": 0, "class": "hkRootLevelContainer", "section": 2, "fields": {
                "namedVariants": [ { "name": "vertices", "className": "hkxVertexBuffer",
                                     "variant": { "object": 1, "class": null } } ] } },
            { "id": 1, "class": "hkxVertexBuffer", "section": 2, "fields": {
                "vertexData": {
                    "class": 2,
                    "element": "hkaAnnotationTrackAnnotation",
                    "items": [ { "time": 0.5, "text": "first" },
                               { "time": 1.25, "text": "second" },
                               { "time": -2.0, "text": null } ]
                },
                "format": null } },
            { "id": 2, "class": "hkClass", "section": 2, "fields": {
                "name": "hkaAnnotationTrackAnnotation", "parent": null,
                // real at 0, cstring at the next pointer boundary, padded to the pointer.
                "objectSize": 2 * p, "numImplementedInterfaces": 0,
                "declaredEnums": [],
                "declaredMembers": [ class_member("time", TYPE_REAL, 0),
                                     class_member("text", TYPE_CSTRING, p) ],
                "defaults": null, "attributes": null, "flags": 0, "describedVersion": 0 } }
        ]
    })
}

fn open(schemas: &Schemas, bytes: &[u8]) -> Document {
    file::open(bytes, schemas, ReadOptions::default()).unwrap()
}

/// The NUL-terminated string at `at` of `file`.
fn c_string(pf: &Packfile<'_>, file: &[u8], at: Loc) -> String {
    let start = pf.abs(at) as usize;
    let end = file[start..].iter().position(|&b| b == 0).unwrap() + start;
    String::from_utf8(file[start..end].to_vec()).unwrap()
}

/// Checks the bytes of the `hkxVertexBuffer` of `file` against the format: class slot,
/// data slot and count at 0, p and 2p, the class slot naming the hkClass object, the data
/// slot the elements (time, then text at the next pointer boundary), and `format` after
/// the three words.
fn check_bytes(tag: &str, file: &[u8]) {
    let pf = Packfile::parse(file).unwrap();
    let rules = pf.rules();
    let p = u32::from(rules.pointer_size);
    let big = rules.endian == hk_runtime::Endian::Big;
    let word = |at: Loc| {
        let b: [u8; 4] = file[pf.abs(at) as usize..][..4].try_into().unwrap();
        if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    let class_of = |i: usize| {
        pf.class_names[pf.object_table()[i].1 as usize]
            .name
            .to_string()
    };
    let vb = (0..pf.object_table().len())
        .find(|&i| class_of(i) == "hkxVertexBuffer")
        .unwrap();
    let body = pf.object_table()[vb].0;
    assert_eq!(word(body.plus(2 * p)), 3, "{tag}: count at 2p");
    let class = pf.resolve(body).expect("class pointer");
    let hk_class = pf.object_at(class).expect("class pointer names an object");
    assert_eq!(class_of(hk_class), "hkClass", "{tag}");
    assert_eq!(
        c_string(&pf, file, pf.resolve(class).unwrap()),
        "hkaAnnotationTrackAnnotation",
        "{tag}: the hkClass object's name"
    );
    let data = pf.resolve(body.plus(p)).expect("data pointer");
    assert!(
        pf.object_at(data).is_none(),
        "{tag}: the data is owned, not an object"
    );
    assert_eq!(data.offset % 16, 0, "{tag}: elements on a 16-byte boundary");
    let stride = 2 * p;
    assert_eq!(f32::from_bits(word(data.plus(stride))), 1.25, "{tag}");
    let second = pf
        .resolve(data.plus(stride + p))
        .expect("text of element 1");
    assert_eq!(c_string(&pf, file, second), "second", "{tag}");
    assert!(
        pf.resolve(data.plus(2 * stride + p)).is_none(),
        "{tag}: null text"
    );
    assert!(
        pf.resolve(body.plus(3 * p)).is_none(),
        "{tag}: null format after the array"
    );
    // The class pointer is a global fixup (to an object), the data pointer a local one.
    let sec = &pf.sections[body.section as usize];
    let locals = fixup::local(&pf.bytes(), sec).unwrap();
    let globals = fixup::global(&pf.bytes(), sec).unwrap();
    assert!(
        globals.iter().any(|g| g.source == body.offset),
        "{tag}: class slot"
    );
    assert!(
        !locals.iter().any(|l| l.source == body.offset),
        "{tag}: class slot"
    );
    assert!(
        locals.iter().any(|l| l.source == body.offset + p),
        "{tag}: data slot"
    );
    assert!(
        !globals.iter().any(|g| g.source == body.offset + p),
        "{tag}: data slot"
    );
}

#[test]
fn homogeneous_arrays_read_dump_build_and_convert_in_every_layout() {
    let schemas = hk_tests::schema_set();
    let built: Vec<Vec<u8>> = LAYOUTS
        .iter()
        .map(|tag| dump::build(&dump_for(tag), &schemas).unwrap().0)
        .collect();
    let schema = hk_tests::schema("havok-5.5");
    for (tag, bytes) in LAYOUTS.iter().zip(&built) {
        check_bytes(tag, bytes);
        // `hk schema check`: every fixup, the elements' strings included, on a slot.
        let slots = pointer_slots(&schema, &Packfile::parse(bytes).unwrap()).unwrap();
        // Root: array, two strings, variant object; buffer: class, data, two texts; class:
        // name, member array, two member names.
        assert_eq!((slots.on_slots, slots.fixups), (12, 12), "{tag}: {slots:?}");
        let doc = open(&schemas, bytes);
        assert_eq!(file::write(&doc).unwrap(), *bytes, "{tag}: read -> write");
        let j = dump::to_json(&doc);
        let vd = &j["objects"][1]["fields"]["vertexData"];
        assert_eq!(vd["element"], "hkaAnnotationTrackAnnotation", "{tag}");
        assert_eq!(vd["class"], 2, "{tag}");
        assert_eq!(vd["items"][1]["text"], "second", "{tag}");
        assert_eq!(vd["items"][2]["time"], -2.0, "{tag}");
        assert_eq!(
            dump::build(&j, &schemas).unwrap().0,
            *bytes,
            "{tag}: dump -> build"
        );
        let toml = dump::to_toml(&doc).unwrap();
        let (from_toml, _) =
            dump::build_text(toml.as_bytes(), dump::Format::Toml, &schemas).unwrap();
        assert_eq!(from_toml, *bytes, "{tag}: TOML dump -> build");
    }
    let mut pairs = 0;
    for (i, from) in LAYOUTS.iter().enumerate() {
        for (k, to) in LAYOUTS.iter().enumerate() {
            if i == k {
                continue;
            }
            let mut doc = open(&schemas, &built[i]);
            let there = convert(&mut doc, LayoutRules::from_tag(to).unwrap()).unwrap();
            assert!(
                there == built[k],
                "{from} -> {to}: not the file built for {to}"
            );
            let back = convert(&mut open(&schemas, &there), doc_rules(from)).unwrap();
            assert!(back == built[i], "{from} -> {to} -> {from} differs");
            pairs += 1;
        }
    }
    println!("4 layouts built, read, dumped and built back; {pairs} conversions exact both ways");
    assert_eq!(pairs, 12);
}

fn doc_rules(tag: &str) -> LayoutRules {
    LayoutRules::from_tag(tag).unwrap()
}

#[test]
fn a_homogeneous_array_of_a_class_the_schema_lacks_is_refused_with_its_place() {
    let schemas = hk_tests::schema_set();
    let (mut bytes, _) = dump::build(&dump_for("4011"), &schemas).unwrap();
    // The hkClass object's name (the last copy of the text: the data section is last)
    // changed to a class no schema has.
    let name = b"hkaAnnotationTrackAnnotation\0";
    let at = bytes
        .windows(name.len())
        .rposition(|w| w == name)
        .expect("the hkClass object's name");
    bytes[at + name.len() - 2] = b'X';
    let e = file::open(&bytes, &schemas, ReadOptions::default()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("class `hkaAnnotationTrackAnnotatioX` is not in the schema"),
        "{msg}"
    );
    assert!(msg.contains("hkxVertexBuffer.vertexData"), "{msg}");
    assert!(msg.contains("0x"), "{msg}: no offset");
}

#[test]
fn a_homogeneous_array_whose_class_object_names_another_class_is_refused() {
    let schemas = hk_tests::schema_set();
    let mut j = dump_for("4011");
    j["objects"][2]["fields"]["name"] = json!("hkaBone");
    let e = dump::build(&j, &schemas).unwrap_err();
    assert!(
        e.to_string()
            .contains("points to the hkClass object of `hkaBone`"),
        "{e}"
    );
    let mut j = dump_for("8111");
    j["objects"][1]["fields"]["vertexData"]["items"][0]["time"] = json!("x");
    assert!(dump::build(&j, &schemas).is_err());
}

/// `hk schema layout` of `hkxVertexBuffer`: the member takes two pointers and an `int`,
/// padded to the pointer (12 bytes with 4-byte pointers, 24 with 8-byte ones), and the
/// 4 bytes after the count under 8-byte pointers are padding the reader checks.
#[test]
fn the_layout_of_a_homogeneous_array_is_two_pointers_and_a_count() {
    let schema = hk_tests::schema("havok-5.5");
    for (tag, member, format, size) in [("4011", 12, 12, 16), ("8111", 24, 24, 32)] {
        let rules = LayoutRules::from_tag(tag).unwrap();
        let mut layouts = hk_runtime::schema::layout::Layouts::new(&schema, rules);
        let flat = layouts.flattened("hkxVertexBuffer").unwrap();
        let of = |name: &str| flat.iter().find(|(_, m, _)| m.name == name).unwrap().2;
        assert_eq!(
            (of("vertexData").offset, of("vertexData").size),
            (0, member),
            "{tag}"
        );
        assert_eq!(of("format").offset, format, "{tag}");
        assert_eq!(
            layouts.class("hkxVertexBuffer").unwrap().size,
            size,
            "{tag}"
        );
        let id = schema.require("hkxVertexBuffer").unwrap();
        let plan = schema.plan(id, rules).unwrap();
        let padding: Vec<(u32, u32)> = plan.gaps.to_vec();
        let want: Vec<(u32, u32)> = if tag.starts_with('8') {
            vec![(20, 24)]
        } else {
            vec![]
        };
        assert_eq!(padding, want, "{tag}: padding of the body");
    }
}

/// A count past the bytes left is refused before anything is allocated, in both pointer
/// sizes (the count word is the third of the member, 2p into the `hkxVertexBuffer`).
#[test]
fn a_homogeneous_count_past_the_data_is_refused() {
    let schemas = hk_tests::schema_set();
    for tag in ["4011", "8111"] {
        let (mut bytes, _) = dump::build(&dump_for(tag), &schemas).unwrap();
        let pf = Packfile::parse(&bytes).unwrap();
        let p = u32::from(pf.rules().pointer_size);
        let vb = pf
            .object_table()
            .iter()
            .find(|(_, n)| pf.class_names[*n as usize].name == "hkxVertexBuffer")
            .unwrap()
            .0;
        let at = pf.abs(vb.plus(2 * p)) as usize;
        let huge = 0x7FFF_FFFFu32;
        let word = if tag == "4011" {
            huge.to_be_bytes()
        } else {
            huge.to_le_bytes()
        };
        drop(pf);
        bytes[at..at + 4].copy_from_slice(&word);
        let e = file::open(&bytes, &schemas, ReadOptions::default()).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("2147483647 elements of"), "{tag}: {msg}");
        assert!(msg.contains("do not fit"), "{tag}: {msg}");
        assert!(msg.contains("hkxVertexBuffer.vertexData"), "{tag}: {msg}");
    }
}
