//! Havok XML (`<hkpackfile>`, docs/havok-xml.md): every corpus packfile goes binary → XML →
//! binary byte for byte and XML → binary → XML unchanged; the SDK's own XML files build
//! into packfiles whose objects match the SDK's binaries of the same assets, floats within
//! the XML's printed precision; bad XML is refused with its line and column.

use std::path::Path;

use hk_runtime::diff;
use hk_runtime::dump::xml;
use hk_runtime::file::{self, Document, Origin, Schemas};
use hk_runtime::graph::{Array, Value};

fn schemas() -> Schemas {
    Schemas::from_dir(&hk_tests::schemas()).unwrap()
}

/// binary → XML → binary, and the XML written again from the rebuilt file.
fn round_trip(data: &[u8], schemas: &Schemas) -> Result<(), String> {
    let doc = file::open(data, schemas, Default::default()).map_err(|e| e.to_string())?;
    let text = xml::to_xml(&doc).map_err(|e| format!("write: {e}"))?;
    let (bytes, built) = xml::build_xml(&text, schemas, None).map_err(|e| format!("read: {e}"))?;
    if bytes != data {
        let at = bytes.iter().zip(data).position(|(a, b)| a != b);
        return Err(format!(
            "{} bytes vs {}, first difference at {at:?}",
            bytes.len(),
            data.len()
        ));
    }
    let again = Document {
        graph: built.graph,
        origin: match built.container {
            hk_runtime::dump::BuiltContainer::Packfile(i) => Origin::Packfile(i),
            _ => return Err("not a packfile".into()),
        },
        schema: doc.schema,
        violations: Vec::new(),
    };
    let text2 = xml::to_xml(&again).map_err(|e| format!("write again: {e}"))?;
    if text2 != text {
        return Err("XML → binary → XML changed the XML".into());
    }
    Ok(())
}

#[test]
fn every_corpus_packfile_round_trips_through_xml() {
    let Some(corpus) = hk_tests::corpus("every_corpus_packfile_round_trips_through_xml") else {
        return;
    };
    let files = hk_tests::packfiles(&corpus);
    assert!(files.len() >= 300, "{} packfiles", files.len());
    let schemas = schemas();
    let mut failures = Vec::new();
    for f in &files {
        if let Err(e) = round_trip(&hk_tests::read(f), &schemas) {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    println!(
        "binary -> XML -> binary: {}/{} byte-identical (and XML stable)",
        files.len() - failures.len(),
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
