//! `hk build` is strict: a dump is read back only when every part of it means something.
//! Object ids are identities (pointers name ids, not positions), unknown keys are errors,
//! the dump format version is checked, and header fields must be ones hk can read back.
//! Each case edits the JSON dump of a real corpus file and asserts the error.

use hk_runtime::dump;
use hk_runtime::error::{ErrorKind, WriteError};
use hk_runtime::file::{self, Schemas};
use serde_json::{json, Value as Json};

const H710: &str = "packfile/havoklib-710/allosaur[4011].hkx";

fn setup() -> Option<(Vec<u8>, Json, Schemas)> {
    let corpus = hk_tests::corpus("strict_build")?;
    let data = hk_tests::read(&corpus.join(H710));
    let schemas = hk_tests::schema_set();
    let doc = file::open(&data, &schemas, Default::default()).unwrap();
    Some((data, dump::to_json(&doc), schemas))
}

/// Builds `doc`, expecting an error whose text holds every one of `needles`.
fn refused(schemas: &Schemas, doc: &Json, what: &str, needles: &[&str]) -> ErrorKind {
    let err = match dump::build(doc, schemas) {
        Ok(_) => panic!("{what}: built, but must be refused"),
        Err(e) => e,
    };
    let msg = err.to_string();
    println!("{what}: {msg}");
    for n in needles {
        assert!(msg.contains(n), "{what}: `{n}` not in: {msg}");
    }
    err.kind().clone()
}

/// The index of the first object of `class` in the dump.
fn find(doc: &Json, class: &str) -> usize {
    doc["objects"]
        .as_array()
        .unwrap()
        .iter()
        .position(|o| o["class"] == class)
        .unwrap_or_else(|| panic!("no {class}"))
}

#[test]
fn object_ids_are_identities() {
    let Some((data, doc, schemas)) = setup() else {
        return;
    };
    // The dump as written builds the file itself.
    let (bytes, _) = dump::build(&doc, &schemas).unwrap();
    assert_eq!(bytes, data);

    // Swapping two objects in the list (ids unchanged) changes nothing: pointers name ids.
    let mut swapped = doc.clone();
    let objects = swapped["objects"].as_array_mut().unwrap();
    objects.swap(1, 2);
    let (bytes, built) = dump::build(&swapped, &schemas).unwrap();
    assert_eq!(built.graph.objects.len(), 4);
    let back = file::open(&bytes, &schemas, Default::default()).unwrap();
    let (a, b) = (
        file::open(&data, &schemas, Default::default()).unwrap(),
        back,
    );
    assert_eq!(
        hk_runtime::diff::diff(&a, &b, 10).total,
        0,
        "swapped list order, same objects"
    );

    // Removing an object others point at: the pointers name a missing id.
    let mut removed = doc.clone();
    let env = find(&removed, "hkxEnvironment");
    let env_id = removed["objects"][env]["id"].as_u64().unwrap();
    removed["objects"].as_array_mut().unwrap().remove(env);
    let kind = refused(
        &schemas,
        &removed,
        "removed object",
        &[&format!("#{env_id}")],
    );
    assert!(matches!(
        kind,
        ErrorKind::Write(WriteError::MissingObject(_))
    ));

    // Two objects with one id.
    let mut dup = doc.clone();
    dup["objects"][2]["id"] = json!(1);
    refused(&schemas, &dup, "duplicate id", &["two objects have id 1"]);
}

#[test]
fn unknown_keys_and_versions_are_errors() {
    let Some((_, doc, schemas)) = setup() else {
        return;
    };
    let sk = find(&doc, "hkaSkeleton");
    let mut misspelled = doc.clone();
    misspelled["objects"][sk]["fields"]["nmae"] = json!("x");
    refused(
        &schemas,
        &misspelled,
        "misspelled member",
        &["nmae", "hkaSkeleton"],
    );

    let mut top = doc.clone();
    top["hk_dmp"] = json!(1);
    refused(&schemas, &top, "unknown top-level key", &["hk_dmp"]);

    let mut version = doc.clone();
    version["hk_dump"] = json!(99);
    refused(&schemas, &version, "dump format 99", &["format 99"]);

    let mut flags = doc.clone();
    flags["capacity_flags"] = json!([{"object": sk, "path": "bnoes", "flags": 0xC000_0000u32}]);
    refused(&schemas, &flags, "capacity flag path", &["bnoes"]);

    let mut endian = doc.clone();
    endian["file"]["layout"]["endian"] = json!("middle");
    refused(
        &schemas,
        &endian,
        "endian middle",
        &["file.layout", "middle"],
    );

    let mut header = doc.clone();
    header["file"]["userTag"] = json!(0);
    refused(&schemas, &header, "unknown header key", &["userTag"]);
}

#[test]
fn header_fields_must_read_back() {
    let Some((_, doc, schemas)) = setup() else {
        return;
    };
    let cases: [(&str, &str, Json, &[&str]); 3] = [
        (
            "pointer size 3",
            "pointer_size",
            json!(3),
            &["file.layout", "pointer size 3"],
        ),
        (
            "file version 99",
            "file_version",
            json!(99),
            &["file.file_version", "99"],
        ),
        (
            "contents section 9",
            "contents_section",
            json!(9),
            &["file.contents_section", "section 9"],
        ),
    ];
    for (what, key, v, needles) in cases {
        let mut d = doc.clone();
        if key == "pointer_size" {
            d["file"]["layout"][key] = v;
        } else {
            d["file"][key] = v;
        }
        refused(&schemas, &d, what, needles);
    }
    // A string holding a NUL would be cut short when read back.
    let sk = find(&doc, "hkaSkeleton");
    let mut nul = doc.clone();
    nul["objects"][sk]["fields"]["name"] = json!("Bip\u{0}01");
    refused(&schemas, &nul, "string with a NUL", &["NUL", "hkaSkeleton"]);
}
