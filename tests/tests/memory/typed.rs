//! The derived codecs build no graph: every havoklib-710 file decodes straight from its bytes
//! into the typed classes of `hk_derive::schema!`, writes back byte for byte, and holds the
//! same values as the dynamic graph (through the checked `TryFrom` conversions both ways).
//! The count of graphs built is process-wide, so this test lives with the other tests that
//! read process-wide counters.

use std::sync::Arc;

use hk_runtime::graph::{graphs_built, Object};
use hk_runtime::packfile::graph::read::read;
use hk_runtime::packfile::Packfile;
use hk_runtime::typed::{GraphObject, TypedFile};
use hk_tests::heap::measuring;

use crate::h710;

/// The acceptance test of the derived codecs: all 56 havoklib-710 files (all eight layout
/// rules) decode with the generated decoders and encode back byte for byte, without a
/// graph; the typed values equal the dynamic graph's, and the container facts too.
#[test]
fn havoklib_710_through_derived_codecs() {
    let _one = measuring();
    let Some(corpus) = hk_tests::corpus("havoklib_710_through_derived_codecs") else {
        return;
    };
    let files = hk_tests::files(&corpus.join("packfile/havoklib-710"));
    assert_eq!(files.len(), 56);
    let data: Vec<Vec<u8>> = files.iter().map(|f| hk_tests::read(f)).collect();

    // The typed path alone: decode, encode, traverse the views. No graph.
    let before = graphs_built();
    let mut typed = Vec::new();
    let mut identical = 0;
    for (f, d) in files.iter().zip(&data) {
        let t = h710::decode_file(d).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let back = t.write().unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if back == *d {
            identical += 1;
        } else {
            eprintln!("{}: typed write differs", f.display());
        }
        let pf = hk_runtime::packfile::Packfile::parse(d)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        hk_runtime::typed::view::traverse_packfile::<h710::AnyView<'_>>(&pf)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        typed.push(t);
    }
    assert_eq!(
        graphs_built(),
        before,
        "the typed path built a graph (graph::graphs_built moved)"
    );
    println!(
        "havoklib-710 through the derived codecs: {identical}/56 byte-identical, no graph built"
    );
    assert_eq!(identical, files.len());

    // The same values as the dynamic graph, both ways through `TryFrom`.
    let schema: &Arc<hk_runtime::Schema> = h710::schema();
    for ((f, d), t) in files.iter().zip(&data).zip(&typed) {
        let pf = Packfile::parse(d).unwrap();
        let dynamic = read(&pf, schema, Default::default()).unwrap();
        let g = &dynamic.graph;
        assert_eq!(t.root, g.root, "{}", f.display());
        assert_eq!(t.info, dynamic.info, "{}: container facts", f.display());
        assert_eq!(t.objects.len(), g.objects.len(), "{}", f.display());
        for (i, (o, go)) in t.objects.iter().zip(&g.objects).enumerate() {
            let as_graph = Object::try_from(o).unwrap();
            assert_eq!(
                &as_graph,
                go,
                "{} object #{i} {}",
                f.display(),
                o.class_name()
            );
            let as_typed = h710::AnyObject::try_from(GraphObject { schema, object: go }).unwrap();
            assert_eq!(&as_typed, o, "{} object #{i}", f.display());
        }
        assert_eq!(&t.to_graph(schema).unwrap(), g, "{}", f.display());
        let from_graph: TypedFile<h710::AnyObject> =
            TypedFile::from_graph(g, dynamic.info.clone()).unwrap();
        assert_eq!(&from_graph, t, "{}", f.display());
    }
}
