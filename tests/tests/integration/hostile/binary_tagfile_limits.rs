//! Old binary tagfiles within the read limits and under the schema-selection rule: each
//! limit (memory, objects, expansion, depth) refuses a corpus file it is set below, with
//! the limit's name and a file offset, through the reader and the front door alike; the
//! defaults read every file; the file's own class definitions are its schema, and a schema
//! the caller names is compared with them, never used in their place; a diff names the
//! version and the container.

use std::sync::Arc;

use hk_runtime::error::{Check, ErrorKind, Limit, ReadError};
use hk_runtime::file::{self, How, SchemaChoice, Schemas};
use hk_runtime::limits::Limits;
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::tagfile::binary;

#[allow(dead_code)]
use crate::tagfile::binary_walk::*;

/// The limit `e` reports, if it is a limit error.
fn limit_of(e: &hk_runtime::Error) -> Option<Limit> {
    match e.kind() {
        ErrorKind::Read(ReadError::Limit { limit, .. }) => Some(*limit),
        _ => None,
    }
}

#[test]
fn each_limit_refuses_a_file_past_it_and_names_itself() {
    let Some(d) = corpus_file(HAT) else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let within = |l: Limits| ReadOptions::strict().with_limits(l);
    // The file holds 3 objects (the independent walk counts them).
    assert_eq!(Walk::new(&d).objects, 3);
    let cases = [
        (Limits::default().with_max_memory(Some(1024)), Limit::Memory),
        (Limits::default().with_max_objects(2), Limit::Objects),
        (Limits::default().with_max_expansion(1), Limit::Expansion),
        // The root's namedVariants is an array of structs: one level below the object.
        (Limits::default().with_max_depth(0), Limit::Depth),
    ];
    for (limits, limit) in cases {
        for lenient in [false, true] {
            let opts = within(limits).with_lenient(lenient);
            let e = binary::read(&d, opts).expect_err("read past a limit");
            assert_eq!(limit_of(&e), Some(limit), "{e}");
            let at = e.offset().unwrap_or_else(|| panic!("no offset: {e}"));
            assert!(at >= 8 && at <= d.len() as u64, "{e}");
            assert!(e.to_string().contains(limit.name()), "{e}");
            let e = file::open(&d, &schemas, opts).expect_err("opened past a limit");
            assert_eq!(limit_of(&e), Some(limit), "{e}");
        }
    }
    // Exactly the file's object count is allowed.
    binary::read(&d, within(Limits::default().with_max_objects(3))).unwrap();
}

#[test]
fn the_default_limits_read_every_corpus_file() {
    let Some(corpus) = hk_tests::corpus("binary tagfile limits") else {
        return;
    };
    for f in FILES {
        let d = hk_tests::read(&corpus.join(f));
        let r = binary::read(&d, strict()).unwrap_or_else(|e| panic!("{f}: {e}"));
        // Every object the stream holds (the independent walk counts them).
        assert_eq!(r.graph.objects.len(), Walk::new(&d).objects, "{f}");
    }
}

#[test]
fn the_files_own_definitions_are_its_schema_and_a_given_one_is_compared() {
    let Some(corpus) = hk_tests::corpus("binary tagfile selection") else {
        return;
    };
    let hat = hk_tests::read(&corpus.join(HAT));
    let navmesh = hk_tests::read(&corpus.join(NAVMESH));
    let schemas = hk_tests::schema_set();
    let doc = file::open(&hat, &schemas, strict()).unwrap();
    assert_eq!(
        doc.schema,
        SchemaChoice::ClassDefinitions {
            name: "binary-tagfile-hk_2014.0.5-r1".into(),
            how: How::Exact,
        }
    );
    assert_eq!(doc.schema.name(), "binary-tagfile-hk_2014.0.5-r1");
    assert!(doc.schema.warning().is_none());
    assert!(doc.schema.describe().contains("own class definitions"));
    let defined = binary::read(&hat, strict()).unwrap().file.classes.len();

    // Its own classes, named: every class alike, no warning.
    let own = Arc::clone(doc.graph.schema());
    let given = Schemas::from_dir(&hk_tests::schemas())
        .unwrap()
        .with_schema(own, "hat");
    let doc = file::open(&hat, &given, strict()).unwrap();
    let SchemaChoice::ClassDefinitions { how, .. } = &doc.schema else {
        panic!("{:?}", doc.schema)
    };
    assert_eq!(
        how,
        &How::Given {
            check: Some(Check::Classes {
                matched: defined,
                defined
            })
        }
    );
    assert!(doc.schema.warning().is_none(), "{:?}", doc.schema);
    assert_eq!(file::write(&doc).unwrap(), hat);

    // Another file's classes: only the classes both define alike match; the file is still
    // read with (and written back by) its own definitions, with a warning.
    let other = binary::read(&navmesh, strict()).unwrap();
    let shared = other
        .file
        .classes
        .iter()
        .filter(|c| {
            let mine = doc.graph.schema().class(&c.name);
            let theirs = other.graph.schema().class(&c.name);
            mine.zip(theirs)
                .is_some_and(|(x, y)| x.parent == y.parent && x.members == y.members)
        })
        .count();
    assert!(shared < defined, "{shared} of {defined}");
    let given = Schemas::from_dir(&hk_tests::schemas())
        .unwrap()
        .with_schema(Arc::clone(other.graph.schema()), "navmesh");
    let doc = file::open(&hat, &given, strict()).unwrap();
    assert_eq!(
        doc.schema.how(),
        &How::Given {
            check: Some(Check::Classes {
                matched: shared,
                defined
            })
        }
    );
    let w = doc.schema.warning().expect("a warning");
    assert!(
        w.contains(&format!("{shared} of the {defined} classes")),
        "{w}"
    );
    assert_eq!(file::write(&doc).unwrap(), hat);
}

#[test]
fn a_diff_names_the_version_and_the_container() {
    let Some(corpus) = hk_tests::corpus("binary tagfile diff") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let open = |f: &str| file::open(&hk_tests::read(&corpus.join(f)), &schemas, strict()).unwrap();
    let (hat, skeleton) = (open(HAT), open(SKELETON));
    let packfile = open("packfile/havoklib-710/animref[4011].hkx");
    let d = hk_runtime::diff::diff(&hat, &skeleton, 10);
    assert_eq!(
        d.lines[0], "binary tagfile version 4 (SDK hk_2014.0.5-r1) vs 3",
        "{:?}",
        d.lines
    );
    let d = hk_runtime::diff::diff(&hat, &packfile, 10);
    assert_eq!(
        d.lines[0], "an old binary tagfile vs a packfile",
        "{:?}",
        d.lines
    );
    assert_eq!(hk_runtime::diff::diff(&hat, &hat, 10).total, 0);
}

/// A stream of version 3 defining class `A` with one struct member by value of class
/// `class` (a string reference: `A` is remembered string 2), then one object of class `A`
/// whose bitfields mark the member present `levels` times, then zeros.
fn nested_stream(class: i64, levels: usize) -> Vec<u8> {
    use binary::defs::{tag, Base, TypeCode};
    let code = TypeCode {
        base: Base::Struct,
        array: false,
        tuple: 0,
    }
    .code();
    let mut b = binary::MAGIC.to_vec();
    for v in [tag::FILE_INFO, 3, tag::METADATA, 1] {
        b.extend(varint(v));
    }
    b.push(b'A');
    for v in [0, 0, 1, 1] {
        b.extend(varint(v));
    }
    b.push(b'a');
    for v in [code, class, tag::OBJECT_REMEMBER, 1] {
        b.extend(varint(v));
    }
    b.extend(std::iter::repeat_n(1u8, levels));
    b.extend([0u8; 16]);
    b
}

#[test]
fn a_class_holding_itself_by_value_is_refused_before_its_object_is_read() {
    // The member's class is `A` itself.
    let bad = nested_stream(-2, 10_000);
    for opts in [strict(), lenient()] {
        let e = binary::read(&bad, opts).expect_err("a class holding itself");
        assert!(
            e.to_string().contains("class A contains itself by value"),
            "{e}"
        );
        assert!(e.offset().is_some_and(|o| o < 40), "{e}");
    }
    // A deep limit does not let it through either.
    let deep = strict().with_limits(Limits::default().with_max_depth(256));
    assert!(binary::read(&bad, deep).is_err());
}
