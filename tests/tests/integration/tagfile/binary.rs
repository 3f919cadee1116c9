//! Old binary tagfiles (docs/binary-tagfile-format.md): every corpus file reads into the
//! graph and is written back byte for byte, its counts agree with an independent walk of
//! the stream (`binary_tagfile/walk.rs`), every prefix is refused without a panic, its
//! classes extract into a schema folder that loads, and edits write back.

use hk_runtime::file::{self, Container, Origin};
use hk_runtime::tagfile::binary;

#[allow(dead_code)]
use crate::tagfile::binary_walk::*;

#[test]
fn corpus_round_trips_through_the_front_door() {
    let Some(corpus) = hk_tests::corpus("corpus_round_trips_through_the_front_door") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let mut identical = 0;
    for f in FILES {
        let data = hk_tests::read(&corpus.join(f));
        let walk = Walk::new(&data);
        let doc = file::open(&data, &schemas, strict()).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(doc.container(), Container::BinaryTagfile, "{f}");
        assert!(doc.violations.is_empty(), "{f}");
        let Origin::BinaryTagfile(bt) = &doc.origin else {
            panic!("{f}: origin")
        };
        // What the independent walk counts.
        assert_eq!(doc.graph.objects.len(), walk.objects, "{f}: objects");
        assert_eq!(bt.classes.len(), walk.classes.len(), "{f}: classes");
        assert_eq!(bt.strings, walk.strings.len() - 2, "{f}: strings");
        assert_eq!(
            bt.trailing.len(),
            data.len() - walk.p,
            "{f}: trailing bytes"
        );
        // The root is the first object the stream holds.
        let first = walk.find("object_class", |_| true).value as usize - 1;
        assert_eq!(
            doc.graph.class_name(doc.graph.root),
            walk.classes[first].0,
            "{f}"
        );
        let out = file::write(&doc).unwrap();
        if out == data {
            identical += 1;
        } else {
            let at = out.iter().zip(&data).position(|(a, b)| a != b);
            println!("{f}: first difference at {at:?}");
        }
        let json = hk_runtime::dump::to_json(&doc);
        assert_eq!(json["container"], "binary-tagfile", "{f}");
    }
    println!("{identical}/{} byte-identical", FILES.len());
    assert_eq!(identical, FILES.len());
}

#[test]
fn versions_and_header_facts() {
    let Some(corpus) = hk_tests::corpus("versions_and_header_facts") else {
        return;
    };
    let read = |f: &str| binary::read(&hk_tests::read(&corpus.join(f)), strict()).unwrap();
    let v3 = read(SKELETON);
    assert_eq!((v3.file.version, v3.file.sdk.as_deref()), (3, None));
    let v4 = read(HAT);
    assert_eq!(v4.file.version, 4);
    assert_eq!(v4.file.sdk.as_deref(), Some("hk_2014.0.5-r1"));
    let v5 = read(BLANK);
    assert_eq!(v5.file.sdk.as_deref(), Some("hk_2014.1.0-r1"));
    let p = v5.file.predicates.as_ref().unwrap();
    assert_eq!((p.max, p.verified.as_slice()), (21, &[20u16][..]));
    // FFXIV's animation carries one zero byte after its end tag.
    let anim = read("games/ffxiv-and-xat-tests/animation.hkt");
    assert_eq!(anim.file.trailing, vec![0]);
    // The FullLevel mesh declares one 8-byte integer member; the schema makes it int64.
    let mesh = read(MESH);
    let wide: Vec<_> = mesh
        .file
        .int_widths
        .iter()
        .filter(|(_, &w)| w == 8)
        .map(|(&(d, m), _)| {
            let c = &mesh.file.classes[d];
            format!("{}.{}", c.name, c.members[m].name)
        })
        .collect();
    assert_eq!(wide.len(), 1, "{wide:?}");
    let (class, member) = wide[0].split_once('.').unwrap();
    let m = mesh.graph.schema().class(class).unwrap();
    let m = m.members.iter().find(|x| x.name == member).unwrap();
    assert_eq!(m.subtype, hk_runtime::types::TypeKind::Int64, "{}", wide[0]);
}

#[test]
fn extracted_schema_loads_back() {
    let Some(corpus) = hk_tests::corpus("extracted_schema_loads_back") else {
        return;
    };
    let reads: Vec<_> = FILES[4..]
        .iter()
        .map(|f| binary::read(&hk_tests::read(&corpus.join(f)), strict()).unwrap())
        .collect();
    let refs: Vec<&binary::BinaryTagfile> = reads.iter().map(|r| &r.file).collect();
    let schema = binary::schema::extract(&refs, "pa").unwrap();
    let dir = hk_tests::temp_dir("binary-tagfile-schema");
    schema.to_folder(&dir).unwrap();
    let back = hk_runtime::Schema::load(&dir).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(back.classes().len(), schema.classes().len());
    let distinct: std::collections::BTreeSet<&str> = refs
        .iter()
        .flat_map(|f| f.classes.iter().map(|c| c.name.as_str()))
        .collect();
    assert_eq!(schema.classes().len(), distinct.len());
    for c in schema.classes() {
        let mut loaded = back.class(&c.name).unwrap().members.clone();
        loaded.iter_mut().for_each(|m| m.line = 0);
        assert_eq!(loaded, c.members, "{}", c.name);
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_prefix_is_refused() {
    let Some(corpus) = hk_tests::corpus("every_prefix_is_refused") else {
        return;
    };
    let mut prefixes = 0;
    for f in FILES {
        let data = hk_tests::read(&corpus.join(f));
        // The stream ends where the walk finds the end tag; bytes after it (one in
        // animation.hkt) are not part of the stream.
        let end = Walk::new(&data).p;
        for n in 0..data.len() {
            let r = std::panic::catch_unwind(|| binary::read(&data[..n], strict()));
            let r = r.unwrap_or_else(|_| panic!("{f}: panic on a prefix of {n} bytes"));
            if n < end {
                let e = r
                    .err()
                    .unwrap_or_else(|| panic!("{f}: prefix of {n} bytes read"));
                assert!(e.offset().is_some(), "{f} [..{n}]: {e}");
                prefixes += 1;
            } else {
                assert!(
                    r.is_ok(),
                    "{f}: the whole stream without its trailing bytes"
                );
            }
        }
    }
    println!("{prefixes} prefixes refused");
}

#[test]
fn edits_write_back() {
    let Some(d) = corpus_file(HAT) else {
        return;
    };
    let mut r = binary::read(&d, strict()).unwrap();
    let g = &mut r.graph;
    let data = g.first("hkbProjectData").unwrap();
    g.set(data, "defaultEventMode", hk_runtime::graph::Value::Int(0))
        .unwrap();
    let strings = g.first("hkbProjectStringData").unwrap();
    g.set(strings, "scriptsPath", "C:\\hk".into()).unwrap();
    let out = binary::write(g, &r.file).unwrap();
    let back = binary::read(&out, strict()).unwrap();
    let g2 = &back.graph;
    assert_eq!(
        g2.get(data, "defaultEventMode").unwrap().as_i64(),
        Some(0),
        "a zero member is left out and reads back as zero"
    );
    assert_eq!(
        g2.get(strings, "scriptsPath").unwrap().as_str(),
        Some("C:\\hk")
    );
    assert!(out.len() < d.len() + 8);
}
