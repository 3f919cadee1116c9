//! The schema-selection rule through the front door (docs/schema-selection.md): what
//! `file::open` reports it chose and tried, as typed values, and its typed refusal.

use std::path::Path;
use std::sync::Arc;

use hk_runtime::error::{Check, ErrorKind, SchemaError, Tried};
use hk_runtime::file::{self, How, SchemaChoice, Schemas};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::packfile::Packfile;
use hk_tests::{read, root, schema, schemas, temp_dir};

fn strict() -> ReadOptions {
    ReadOptions::default()
}
fn lenient() -> ReadOptions {
    ReadOptions::default().with_lenient(true)
}

/// `bytes` with its header's contents version replaced by `version` (same length).
fn relabel(bytes: &[u8], version: &str) -> Vec<u8> {
    let old = Packfile::parse(bytes).unwrap().header.contents_version();
    assert_eq!(old.len(), version.len());
    let mut out = bytes.to_vec();
    let at = out[..0x40]
        .windows(old.len())
        .position(|w| w == old.as_bytes())
        .unwrap();
    out[at..at + old.len()].copy_from_slice(version.as_bytes());
    out
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let q = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy(&p, &q);
        } else {
            std::fs::copy(&p, &q).unwrap();
        }
    }
}

#[test]
fn open_reports_the_folder_it_chose_and_the_ones_it_tried() {
    let sample = read(&root().join("samples/destiny-2012_compound.hkx"));
    let stored = Packfile::parse(&sample).unwrap().class_names.len();
    let all = Schemas::from_dir(&schemas()).unwrap();
    let doc = file::open(&sample, &all, strict()).unwrap();
    assert_eq!(
        doc.schema,
        SchemaChoice::Generation {
            name: "havok-2012.2".into(),
            how: How::Exact,
            borrowed: Vec::new(),
        }
    );
    assert_eq!(doc.schema.warning(), None);

    // A version with no folder: the nearest one, because every stored signature
    // recomputes from it.
    let relabelled = relabel(&sample, "hk_2011.1.0-r1");
    let doc = file::open(&relabelled, &all, strict()).unwrap();
    let full = Check::Signatures {
        matched: stored,
        stored,
    };
    assert_eq!(
        doc.schema,
        SchemaChoice::Generation {
            name: "havok-2012.2".into(),
            how: How::Nearest {
                version: "hk_2011.1.0-r1".into(),
                tried: vec![Tried {
                    folder: "havok-2012.2".into(),
                    check: full,
                }],
            },
            borrowed: Vec::new(),
        }
    );
    assert_eq!(doc.schema.warning(), None);
    assert_eq!(file::write(&doc).unwrap(), relabelled);

    // Without that folder, none passes: a typed refusal listing every folder tried.
    let root_dir = temp_dir("selection-without-2012");
    for g in ["havok-2010.2", "havok-2014.1"] {
        copy(&schemas().join(g), &root_dir.join(g));
    }
    let some = Schemas::from_dir(&root_dir).unwrap();
    let e = file::open(&relabelled, &some, strict()).unwrap_err();
    let ErrorKind::Schema(SchemaError::Unverified {
        tagfile,
        version,
        tried,
    }) = e.kind()
    else {
        panic!("{e}")
    };
    assert!(!tagfile);
    assert_eq!(version, "hk_2011.1.0-r1");
    let folders: Vec<&str> = tried.iter().map(|t| t.folder.as_str()).collect();
    assert_eq!(folders, ["havok-2010.2", "havok-2014.1"]);
    assert!(tried.iter().all(|t| !t.check.passes()), "{tried:?}");
    // Leniently: the closest folder (the most signatures matched), which lacks two of the
    // file's classes; the error names the classes and how they were chosen.
    let e = file::open(&relabelled, &some, lenient()).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Schema(SchemaError::MissingClass(_))),
        "{e}"
    );
    assert!(
        e.path()[0].starts_with("classes of havok-2014.1 (closest, read leniently")
            && e.path()[0].contains(&format!("{} of {stored}", stored - 2)),
        "{e}"
    );

    // A schema the caller names replaces the rule and keeps how it fares.
    let named = Schemas::from_dir(&root_dir)
        .unwrap()
        .with_schema(Arc::new(schema("havok-2012.2")), "mine");
    let doc = file::open(&relabelled, &named, strict()).unwrap();
    assert_eq!(
        doc.schema,
        SchemaChoice::Generation {
            name: "mine".into(),
            how: How::Given { check: Some(full) },
            borrowed: Vec::new(),
        }
    );
    assert_eq!(doc.schema.warning(), None);
}
