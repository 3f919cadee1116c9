//! Exports and imports survive a write and a read. No corpus file has either table, so the
//! graph is edited to have them: the root is exported, and a pointer names an object of
//! another file.

use hk_runtime::graph::{Ptr, Value};
use hk_runtime::packfile::write::write;

#[test]
fn exports_and_imports_round_trip() {
    let Some(corpus) = hk_tests::corpus("exports_and_imports_round_trip") else {
        return;
    };
    let data = hk_tests::read(&corpus.join("packfile/havoklib-2012_2/allosaur[4011].hkx"));
    let (mut g, schema) = hk_tests::graph_of(&data).unwrap();
    let root = g.root;
    g.info.exports.push((root, "allosaurRoot".into()));
    let ac = g
        .objects
        .iter()
        .position(|o| o.class == "hkaAnimationContainer")
        .unwrap();
    let Some(Value::Array(sks)) = g.objects[ac].get_mut("skeletons") else {
        panic!()
    };
    let old = std::mem::replace(
        &mut sks[0],
        Value::Pointer(Some(Ptr::Import("sharedSkeleton".into()))),
    );
    assert!(matches!(old, Value::Pointer(Some(Ptr::Object(_)))));
    let bytes = write(&g, &schema).unwrap();
    let pf = hk_runtime::packfile::Packfile::parse(&bytes).unwrap();
    assert_eq!(pf.exports.len(), 1);
    assert_eq!(pf.imports.len(), 1);
    let (back, _) = hk_tests::graph_of(&bytes).unwrap();
    assert_eq!(
        back.info.exports,
        vec![(back.root, "allosaurRoot".to_string())]
    );
    let Some(Value::Array(sks)) = back.objects[ac].get("skeletons") else {
        panic!()
    };
    assert_eq!(
        sks[0],
        Value::Pointer(Some(Ptr::Import("sharedSkeleton".into())))
    );
    assert_eq!(
        write(&back, &schema).unwrap(),
        bytes,
        "second write differs"
    );
    println!(
        "export and import written, read back, and rewritten identically ({} bytes)",
        bytes.len()
    );
}
