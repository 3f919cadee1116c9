//! Havok 2018.1 tagfiles (Elden Ring's SDK, 20180100) and type compendiums
//! (docs/tagfile-format.md §1a). No 2018.1 file is in the corpus: hk builds an
//! `hkRootLevelContainer` with an animation container and a skeleton from a dump with the
//! shipped `havok-2018.1` folder (imported from HKLib's public type registry), then splits
//! it into a `TCM0` compendium and a data file whose `TCRF` names it. Both kinds of file
//! must read through the front door and come back byte for byte; a data file read without
//! its compendium, or with another one, must be refused by name.

use hk_runtime::error::{ErrorKind, ReadError};
use hk_runtime::file::{self, Origin, Schemas};
use hk_runtime::graph::Value;
use hk_runtime::limits::{Budget, Limits, ReadOptions};
use hk_runtime::tagfile::compendium::{self, Compendium};
use hk_runtime::tagfile::{self, TagFile};

/// An animation container with one three-bone skeleton, as a dump of the 2018.1 schema.
const DUMP: &str = r#"{
  "hk_dump": 1, "schema": "havok-2018.1", "container": "tagfile", "sdk_version": "20180100",
  "root": 0,
  "objects": [
    {"id": 0, "class": "hkRootLevelContainer", "fields": {"namedVariants": [
      {"name": "Merged Animation Container", "className": "hkaAnimationContainer", "variant": 1}
    ]}},
    {"id": 1, "class": "hkaAnimationContainer", "fields": {
      "propertyBag": null, "memSizeAndFlags": 0, "refCount": 0,
      "skeletons": [2], "animations": [], "bindings": [], "attachments": [], "skins": []
    }},
    {"id": 2, "class": "hkaSkeleton", "fields": {
      "propertyBag": null, "memSizeAndFlags": 0, "refCount": 0, "name": "Master",
      "parentIndices": [-1, 0, 1],
      "bones": [
        {"name": "Master", "lockTranslation": false},
        {"name": "Pelvis", "lockTranslation": false},
        {"name": "Spine", "lockTranslation": true}
      ],
      "referencePose": [], "referenceFloats": [0.5], "floatSlots": ["blend"],
      "localFrames": [], "partitions": []
    }}
  ]
}"#;

const ID: u64 = 0x0123_4567_89AB_CDEF;

/// The 2018.1 file hk builds from [`DUMP`].
fn built() -> Vec<u8> {
    let (bytes, _) = hk_runtime::dump::build_text(
        DUMP.as_bytes(),
        hk_runtime::dump::Format::Json,
        &hk_tests::schema_set(),
    )
    .expect("the dump builds");
    bytes
}

/// The built file split by hk into a compendium (ids `ids`) and a data file naming `ID`.
fn split(ids: &[u64]) -> (Vec<u8>, Vec<u8>) {
    let bytes = built();
    let (tf, graph) = tagfile::read(&bytes).unwrap();
    let rules = hk_tests::schema("havok-2018.1").generation.tagfile.unwrap();
    let tcm0 = compendium::write(ids, &tf.types, &rules).unwrap();
    let data =
        tagfile::write::write_referencing(&graph, &tf.types, &tf.sdk_version, &rules, ID).unwrap();
    (tcm0, data)
}

fn parse_compendium(bytes: &[u8]) -> Compendium {
    let mut budget = Budget::new(&Limits::default(), bytes.len() as u64);
    Compendium::parse(bytes, &mut budget).unwrap()
}

fn skeleton_bones(graph: &hk_runtime::graph::Graph) -> usize {
    let id = graph.first("hkaSkeleton").expect("a skeleton");
    let o = graph.object(id);
    o.values
        .iter()
        .filter_map(|v| match v {
            Value::Array(a) => Some(a.len()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn a_2018_tagfile_built_from_the_imported_schema_reads_and_writes_back() {
    let bytes = built();
    let tf = TagFile::parse(&bytes).unwrap();
    assert_eq!(tf.sdk_version, "20180100");
    // The registry's hashes are written as data (THSH), e.g. hkaSkeleton's.
    let skel = tf
        .types
        .types
        .iter()
        .find(|t| t.name == "hkaSkeleton")
        .expect("hkaSkeleton in the table");
    let stated = hk_tests::schema("havok-2018.1")
        .class("hkaSkeleton")
        .and_then(|c| c.hash);
    assert!(stated.is_some() && skel.hash == stated, "{:?}", skel.hash);
    let doc = file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap();
    assert_eq!(doc.graph.objects.len(), 3);
    assert_eq!(skeleton_bones(&doc.graph), 3);
    assert!(
        doc.schema.describe().contains("havok-2018.1 (exact)"),
        "{}",
        doc.schema.describe()
    );
    assert_eq!(
        file::write(&doc).unwrap(),
        bytes,
        "written back byte for byte"
    );
}

#[test]
fn a_compendium_and_its_data_file_read_and_write_back_byte_for_byte() {
    let (tcm0, data) = split(&[0x1111, ID]);
    assert_eq!(&tcm0[4..8], b"TCM0");
    assert!(data.windows(4).any(|w| w == b"TCRF"));
    assert!(
        !data.windows(4).any(|w| w == b"TYPE"),
        "no TYPE section in the data file"
    );
    // The compendium itself, rewritten from its parsed table.
    let c = parse_compendium(&tcm0);
    assert_eq!(c.ids, vec![0x1111, ID]);
    let rules = hk_tests::schema("havok-2018.1").generation.tagfile.unwrap();
    assert_eq!(compendium::write(&c.ids, &c.table, &rules).unwrap(), tcm0);
    // The data file through the front door, with the compendium.
    let schemas = hk_tests::schema_set().with_compendium(c);
    let doc = file::open(&data, &schemas, ReadOptions::default()).unwrap();
    let Origin::Tagfile { file: tf, .. } = &doc.origin else {
        panic!("not a tagfile")
    };
    assert_eq!(tf.compendium, Some(ID));
    assert_eq!(skeleton_bones(&doc.graph), 3);
    assert_eq!(
        file::write(&doc).unwrap(),
        data,
        "written back byte for byte"
    );
    // The same objects as the self-contained file.
    let whole = file::open(&built(), &hk_tests::schema_set(), ReadOptions::default()).unwrap();
    let mut d = hk_runtime::diff::Diff::default();
    hk_runtime::diff::graphs(&whole.graph, &doc.graph, 10, &mut d);
    assert!(
        d.lines.is_empty(),
        "the split file holds other objects: {:?}",
        d.lines
    );
}

#[test]
fn a_data_file_without_its_compendium_or_with_another_is_refused_by_id() {
    let (_, data) = split(&[ID]);
    let err = file::open(&data, &hk_tests::schema_set(), ReadOptions::default()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Read(ReadError::NoCompendium { id }) if *id == ID),
        "{err}"
    );
    assert!(err.to_string().contains("--compendium"), "{err}");
    let (other, _) = split(&[0x42]);
    let schemas: Schemas = hk_tests::schema_set().with_compendium(parse_compendium(&other));
    let err = file::open(&data, &schemas, ReadOptions::default()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Read(ReadError::CompendiumMismatch { id, held }) if *id == ID && held == &[0x42]),
        "{err}"
    );
    assert!(err.to_string().contains("0x0123456789ABCDEF"), "{err}");
}

#[test]
fn broken_compendium_containers_are_refused_with_their_offset() {
    let (tcm0, data) = split(&[ID]);
    let budget = || Budget::new(&Limits::default(), 1 << 20);
    // No TCM0 magic; trailing bytes; a TCID of 12 bytes.
    assert!(Compendium::parse(&data, &mut budget()).is_err());
    let mut longer = tcm0.clone();
    longer.extend_from_slice(&[0; 4]);
    let e = Compendium::parse(&longer, &mut budget()).unwrap_err();
    assert!(e.to_string().contains("follow the TCM0"), "{e}");
    // A TCRF with a non-zero byte after the id.
    let at = data.windows(4).position(|w| w == b"TCRF").unwrap() + 4 + 8;
    let mut bad = data.clone();
    bad[at] = 1;
    let schemas = hk_tests::schema_set().with_compendium(parse_compendium(&tcm0));
    let e = file::open(&bad, &schemas, ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("TCRF is 24 bytes"), "{e}");
}
