//! Exports and imports survive a write and a read. No corpus file has either table, so the
//! graph is edited to have them: the root is exported, and a pointer names an object of
//! another file.

use hk_runtime::graph::{Ptr, Value};
use hk_runtime::packfile::graph::write::write;

#[test]
fn exports_and_imports_round_trip() {
    let Some(corpus) = hk_tests::corpus("exports_and_imports_round_trip") else {
        return;
    };
    let data = hk_tests::read(&corpus.join("packfile/havoklib-2012_2/allosaur[4011].hkx"));
    let (mut g, mut info) = hk_tests::graph_of(&data).unwrap();
    assert!(info.exports.is_empty(), "the corpus file has no exports");
    let root = g.root;
    info.exports.push((root, "allosaurRoot".into()));
    let ac = g.first("hkaAnimationContainer").unwrap();
    let old = g.get(ac, "skeletons[0]").unwrap();
    assert!(
        matches!(old, Value::Pointer(Some(Ptr::Object(_)))),
        "{old:?}"
    );
    g.set(
        ac,
        "skeletons[0]",
        Value::Pointer(Some(Ptr::Import("sharedSkeleton".into()))),
    )
    .unwrap();
    let bytes = write(&g, &info).unwrap();
    let pf = hk_runtime::packfile::Packfile::parse(&bytes).unwrap();
    assert_eq!(pf.exports.len(), 1);
    assert_eq!(pf.imports.len(), 1);
    assert_eq!(pf.exports[0].1, "allosaurRoot");
    assert_eq!(pf.imports[0].1, "sharedSkeleton");
    let (back, back_info) = hk_tests::graph_of(&bytes).unwrap();
    assert_eq!(
        back_info.exports,
        vec![(back.root, "allosaurRoot".to_string())]
    );
    assert_eq!(
        back.get(ac, "skeletons[0]").unwrap(),
        Value::Pointer(Some(Ptr::Import("sharedSkeleton".into())))
    );
    assert_eq!(
        write(&back, &back_info).unwrap(),
        bytes,
        "second write differs"
    );
    println!(
        "export and import written, read back, and rewritten identically ({} bytes)",
        bytes.len()
    );
}
