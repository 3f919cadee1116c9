//! Havok XML is read within the read limits (docs/havok-xml.md, "Memory"): the reader
//! streams the text into the graph, charging the read's memory budget for every value as
//! it is made, so a file cannot take more than `--max-memory` (16 times the input plus
//! 64 MiB by default). A 4 MB file of integers took 386 MB and 1,000,000 empty elements
//! 1.1 GB; a counting allocator measures the peak of live heap bytes while each is read
//! and built.

use hk_runtime::dump::{xml, Built};
use hk_runtime::error::{ErrorKind, Limit, ReadError};
use hk_runtime::file::Schemas;
use hk_runtime::Limits;
use hk_tests::heap::{measure, measuring};

/// A Havok 2010.2 skeleton whose member `param` holds `body`.
fn skeleton(param: &str, numelements: usize, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"ascii\"?>\n\
         <hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#0001\">\n\
         <hksection name=\"__data__\">\n\
         <hkobject name=\"#0001\" class=\"hkaSkeleton\">\n\
         <hkparam name=\"{param}\" numelements=\"{numelements}\">{body}</hkparam>\n\
         </hkobject>\n\
         </hksection>\n\
         </hkpackfile>\n"
    )
}

/// `text` read and built into a packfile under `limits`, and the peak of live heap bytes
/// it took beyond what was live before (the text itself is not counted).
fn build(
    schemas: &Schemas,
    text: &str,
    limits: &Limits,
) -> (hk_runtime::Result<(Vec<u8>, Built)>, usize) {
    let (r, _, peak) = measure(|| xml::build_xml(text, schemas, None, limits));
    (r, peak)
}

fn warm(schemas: &Schemas) {
    // The schema is loaded and its plans made before measuring.
    let (r, _) = build(
        schemas,
        &skeleton("parentIndices", 1, "-1"),
        &Limits::default(),
    );
    r.unwrap();
}

#[test]
fn a_4_mb_integer_array_builds_in_a_few_times_its_size() {
    let _one = measuring();
    let schemas = hk_tests::schema_set();
    warm(&schemas);
    let n = 1_333_000;
    let text = skeleton("parentIndices", n, &"-1 ".repeat(n));
    let limit = Limits::default().memory_for(text.len() as u64) as usize;
    let (r, peak) = build(&schemas, &text, &Limits::default());
    let (bytes, built) = r.unwrap();
    let g = &built.graph;
    let sk = g.first("hkaSkeleton").unwrap();
    let len = g
        .get(sk, "parentIndices")
        .unwrap()
        .as_array()
        .unwrap()
        .len();
    assert_eq!(len, n);
    println!(
        "{} bytes of XML: {} bytes built, peak heap {peak} ({:.2}x the input; the limit is {limit})",
        text.len(),
        bytes.len(),
        peak as f64 / text.len() as f64
    );
    // It took 386 MB (97x): the text, a token and a JSON value per number.
    assert!(peak <= 4 * text.len(), "peak {peak}");
}

#[test]
fn a_million_empty_elements_stay_within_the_memory_rule() {
    let _one = measuring();
    let schemas = hk_tests::schema_set();
    warm(&schemas);
    // Each `<hkobject/>` is a bone with its members' defaults.
    let n = 1_000_000;
    let text = skeleton("bones", n, &"<hkobject/>".repeat(n));
    let limit = Limits::default().memory_for(text.len() as u64) as usize;
    let (r, peak) = build(&schemas, &text, &Limits::default());
    println!(
        "{} bytes of XML: {}, peak heap {peak} (the limit is {limit})",
        text.len(),
        match &r {
            Ok((b, _)) => format!("{} bytes built", b.len()),
            Err(e) => format!("refused: {e}"),
        }
    );
    // It took 1.1 GB.
    assert!(peak <= limit, "peak {peak} over the limit {limit}");
    if let Err(e) = r {
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Read(ReadError::Limit {
                    limit: Limit::Memory,
                    ..
                })
            ),
            "{e}"
        );
    }
}

#[test]
fn xml_past_max_memory_is_refused_with_the_limit_and_its_place() {
    let _one = measuring();
    let schemas = hk_tests::schema_set();
    warm(&schemas);
    let max = 4u64 << 20;
    let limits = Limits::default().with_max_memory(Some(max));
    for (what, text) in [
        (
            "integers",
            skeleton("parentIndices", 1_333_000, &"-1 ".repeat(1_333_000)),
        ),
        (
            "empty bones",
            skeleton("bones", 200_000, &"<hkobject/>".repeat(200_000)),
        ),
        (
            "names",
            skeleton(
                "floatSlots",
                100_000,
                &"<hkcstring>abcdefghijklmnopqrstuvwxyz</hkcstring>".repeat(100_000),
            ),
        ),
    ] {
        let (r, peak) = build(&schemas, &text, &limits);
        let e = match r {
            Ok(_) => panic!("{what}: {} bytes built within {max} bytes", text.len()),
            Err(e) => e,
        };
        println!("{what}: {e} (peak heap {peak})");
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Read(ReadError::Limit {
                    limit: Limit::Memory,
                    max: m,
                    ..
                }) if *m == max
            ),
            "{what}: {e}"
        );
        let (line, _) = e.line_column().expect("a line and column");
        assert_eq!(line, 5, "{what}: {e}");
        assert!(e.to_string().contains("max-memory"), "{e}");
        // Refused before the values outgrow the limit.
        assert!(peak as u64 <= 2 * max, "{what}: peak {peak}");
    }
}
