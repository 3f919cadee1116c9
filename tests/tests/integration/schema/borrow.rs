//! Per-class borrowing (docs/schema-selection.md, "Borrowed classes"): a class the folder
//! of a file's version lacks is read with another folder's class that computes the
//! signature the file stores, for that file only; a class no folder computes is refused.

use hk_runtime::collision;
use hk_runtime::dump;
use hk_runtime::error::{ErrorKind, SchemaError};
use hk_runtime::file::{self, SchemaChoice};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::packfile::Packfile;
use hk_tests::{corpus, read, schema_set};

/// The Dark Souls level collision (Havok 2010.2: a MOPP tree over an extended mesh),
/// written by hk as a Havok 2010.1 packfile: the header of 2010.1's generation, the classes
/// 2010.1 has from its folder, and the classes it lacks (the physics and shape classes)
/// from 2010.2, whose signatures are what the 2010.2 file stores.
fn level_2010_1(corpus: &std::path::Path) -> Vec<u8> {
    let schemas = schema_set();
    let bytes = read(&corpus.join("games/dark-souls-ptde/map_collision_template.hkx"));
    let doc = file::open(&bytes, &schemas, ReadOptions::default()).unwrap();
    let pf = Packfile::parse(&bytes).unwrap();
    let older = schemas.load("havok-2010.1").unwrap();
    let lacking: Vec<(&str, u32)> = pf
        .class_names
        .iter()
        .filter(|c| older.class(c.name).is_none())
        .map(|c| (c.name, c.signature))
        .collect();
    assert!(lacking.iter().any(|c| c.0 == "hkpMoppBvTreeShape"));
    let g = &older.generation;
    let b = schemas
        .borrowing(
            "havok-2010.1",
            &lacking,
            g.file_version,
            &g.contents_version,
        )
        .unwrap();
    assert!(b.uncomputed.is_empty(), "{:?}", b.uncomputed);
    let mut json = dump::to_json(&doc);
    json["schema"] = g.name.clone().into();
    json["file"]["file_version"] = g.file_version.into();
    json["file"]["contents_version"] = g.contents_version.clone().into();
    let built = dump::from_json(&json, &b.schema).unwrap();
    dump::write_built(&built).unwrap()
}

#[test]
fn a_2010_1_level_reads_with_classes_borrowed_from_2010_2() {
    let Some(corpus) = corpus("a_2010_1_level_reads_with_classes_borrowed_from_2010_2") else {
        return;
    };
    let bytes = level_2010_1(&corpus);
    let pf = Packfile::parse(&bytes).unwrap();
    assert_eq!(pf.header.contents_version(), "hk_2010.1.0-r1");
    let doc = file::open(&bytes, &schema_set(), ReadOptions::default()).unwrap();
    let SchemaChoice::Generation { name, borrowed, .. } = &doc.schema else {
        panic!("{:?}", doc.schema)
    };
    assert_eq!(name, "havok-2010.1");
    assert_eq!(doc.schema.warning(), None);
    let from = |class: &str| {
        borrowed
            .iter()
            .find(|b| b.class == class)
            .map(|b| (b.folder.as_str(), b.signature))
    };
    // Each class the file stores a signature for is borrowed by it; the parent of the
    // extended mesh storage comes with it.
    // (the nearest folder that computes it: 6.6 and 7.1 share 2010.1's file version and
    // come first, docs/schema-selection.md, "Nearest first").
    let schemas = schema_set();
    for c in &pf.class_names {
        if let Some((folder, sig)) = from(c.name) {
            assert_eq!(sig, Some(c.signature), "{}", c.name);
            let donor = schemas.load(folder).unwrap();
            let id = donor.class_id(c.name).unwrap();
            assert_eq!(donor.signature_of(id).unwrap(), c.signature, "{}", c.name);
        }
    }
    for class in ["hkpMoppBvTreeShape", "hkpMoppCode", "hkpExtendedMeshShape"] {
        assert!(from(class).is_some(), "{class}");
    }
    let mut folders: Vec<&str> = borrowed.iter().map(|b| b.folder.as_str()).collect();
    folders.sort_unstable();
    folders.dedup();
    assert_eq!(folders, ["havok-2010.2", "havok-7.1"]);
    let stored = borrowed.iter().filter(|b| b.signature.is_some()).count();
    println!(
        "{} classes borrowed, {stored} by their stored signature: {}",
        borrowed.len(),
        doc.schema.describe()
    );
    assert_eq!(from("hkpExtendedMeshShape").unwrap().1, None);
    // What `hk info` prints names them and their folder.
    let line = doc.schema.describe();
    assert!(
        line.starts_with("havok-2010.1 (exact); ")
            && line.contains("borrowed by signature")
            && line.contains("havok-2010.2: ")
            && line.contains("havok-7.1: "),
        "{line}"
    );
    // Byte for byte back, and the level collision exports.
    assert_eq!(file::write(&doc).unwrap(), bytes);
    let scene = collision::read(&doc.graph).unwrap();
    assert!(scene.triangle_count() > 1000, "{}", scene.triangle_count());
    let mut obj = Vec::new();
    collision::export::obj::write(&scene, &mut obj, 1).unwrap();
    let faces = obj
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"f "))
        .count();
    assert_eq!(faces, scene.triangle_count());
}

#[test]
fn strict_reading_refuses_a_class_no_folder_computes() {
    let Some(corpus) = corpus("strict_reading_refuses_a_class_no_folder_computes") else {
        return;
    };
    let mut bytes = level_2010_1(&corpus);
    // The stored signature of hkpMoppCode changed (a word of the class-name section, found
    // by hk's own parse): no folder computes it.
    let pf = Packfile::parse(&bytes).unwrap();
    let names = &pf.sections[pf.header.class_names_section as usize];
    let entry = pf
        .class_names
        .iter()
        .find(|c| c.name == "hkpMoppCode")
        .unwrap();
    let sig = entry.signature;
    // An entry is the signature, the separator 0x09, then the name at `offset`.
    let at = names.start as usize + entry.offset as usize - 5;
    assert_eq!(bytes[at..at + 4], sig.to_le_bytes());
    bytes[at..at + 4].copy_from_slice(&(sig ^ 1).to_le_bytes());
    let e = file::open(&bytes, &schema_set(), ReadOptions::default()).unwrap_err();
    let ErrorKind::Schema(SchemaError::Uncomputed { class, folder, .. }) = e.kind() else {
        panic!("{e}")
    };
    assert_eq!(
        (class.as_str(), folder.as_str()),
        ("hkpMoppCode", "havok-2010.1")
    );
    assert!(e.to_string().contains("no schema folder computes"), "{e}");
}
