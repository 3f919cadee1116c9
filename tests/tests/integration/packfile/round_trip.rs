//! Every packfile of the corpus goes through the front door (`file::open`, which chooses the
//! schema) into the object graph and back (`file::write`) byte for byte, and through a JSON
//! (and TOML) dump and `dump::build` back to the same bytes.

use std::collections::BTreeMap;
use std::path::Path;

use hk_runtime::dump;
use hk_runtime::file::{self, Container};

/// The packfiles `MANIFEST.tsv` lists: every `.hkx` of the `packfile/havoklib-*` demo
/// folders, and every game file whose header column says `packfile`.
fn manifest_packfiles(corpus: &Path) -> usize {
    let text = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let (folder, name, header) = (cols[0], cols[1], cols.get(8).copied().unwrap_or(""));
            (folder.starts_with("packfile/havoklib-") && name.ends_with(".hkx"))
                || header.starts_with("\"packfile v")
        })
        .count()
}

#[test]
fn every_corpus_packfile_round_trips_byte_identical() {
    let Some(corpus) = hk_tests::corpus("every_corpus_packfile_round_trips") else {
        return;
    };
    let files = hk_tests::packfiles(&corpus);
    let expected = manifest_packfiles(&corpus);
    assert_eq!(
        files.len(),
        expected,
        "packfiles found by magic against MANIFEST.tsv"
    );
    let schemas = hk_tests::schema_set();
    let mut per_folder: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for f in &files {
        let data = hk_tests::read(f);
        let e = per_folder
            .entry(hk_tests::folder_of(&corpus, f))
            .or_default();
        e.1 += 1;
        let outcome = file::open(&data, &schemas, Default::default()).and_then(|doc| {
            assert_eq!(doc.container(), Container::Packfile, "{}", f.display());
            assert!(doc.violations.is_empty(), "{}: strict read", f.display());
            file::write(&doc)
        });
        match outcome {
            Ok(out) if out == data => e.0 += 1,
            Ok(out) => {
                let at = data
                    .iter()
                    .zip(&out)
                    .position(|(a, b)| a != b)
                    .unwrap_or(data.len().min(out.len()));
                failures.push(format!("{}: differs at 0x{at:X}", f.display()));
            }
            Err(err) => failures.push(format!("{}: {err}", f.display())),
        }
    }
    let (ok, n) = per_folder
        .values()
        .fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    for (folder, (ok, n)) in &per_folder {
        println!("{folder}: {ok}/{n} byte-identical");
    }
    println!("total: {ok}/{n} byte-identical");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(ok, expected);
}

#[test]
fn json_and_toml_dumps_build_the_original_bytes() {
    let Some(corpus) = hk_tests::corpus("json_dumps_build_the_original_bytes") else {
        return;
    };
    let files = hk_tests::packfiles(&corpus);
    assert_eq!(files.len(), manifest_packfiles(&corpus));
    let schemas = hk_tests::schema_set();
    let (mut json_ok, mut toml_ok) = (0, 0);
    let mut failures = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let data = hk_tests::read(f);
        // TOML for every tenth file (it has no null; `{}` stands for it).
        let via_toml = i % 10 == 0;
        let result = (|| -> Result<Vec<u8>, String> {
            let doc = file::open(&data, &schemas, Default::default()).map_err(|e| e.to_string())?;
            let (text, format) = if via_toml {
                let t = dump::to_toml(&doc).map_err(|e| e.to_string())?;
                (t.into_bytes(), dump::Format::Toml)
            } else {
                let mut t = Vec::new();
                dump::write_json(&doc, &mut t).map_err(|e| e.to_string())?;
                (t, dump::Format::Json)
            };
            let (bytes, built) =
                dump::build_text(&text, format, &schemas).map_err(|e| e.to_string())?;
            if built.graph != doc.graph {
                return Err("the built graph differs from the one read".into());
            }
            Ok(bytes)
        })();
        match result {
            Ok(out) if out == data => {
                if via_toml {
                    toml_ok += 1;
                } else {
                    json_ok += 1;
                }
            }
            Ok(_) => failures.push(format!("{}: rebuilt bytes differ", f.display())),
            Err(e) => failures.push(format!(
                "{} ({}): {e}",
                f.display(),
                if via_toml { "TOML" } else { "JSON" }
            )),
        }
    }
    let toml_n = files.len().div_ceil(10);
    println!(
        "dump -> build: JSON {json_ok}/{}, TOML {toml_ok}/{toml_n} byte-identical",
        files.len() - toml_n
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
