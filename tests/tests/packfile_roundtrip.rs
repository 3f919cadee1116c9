//! Every packfile of the corpus goes through the object graph and back byte for byte, and
//! through a JSON dump and back.

use std::collections::BTreeMap;

use hk_runtime::dump;
use hk_runtime::packfile::write::write;

#[test]
fn every_corpus_packfile_round_trips_byte_identical() {
    let Some(corpus) = hk_tests::corpus("every_corpus_packfile_round_trips") else {
        return;
    };
    let files = hk_tests::packfiles(&corpus);
    assert!(files.len() >= 300, "{} packfiles found", files.len());
    let mut per_folder: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for f in &files {
        let data = hk_tests::read(f);
        let e = per_folder
            .entry(hk_tests::folder_of(&corpus, f))
            .or_default();
        e.1 += 1;
        let outcome = hk_tests::graph_of(&data).and_then(|(g, s)| write(&g, &s));
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
}

#[test]
fn json_and_toml_dumps_build_the_original_bytes() {
    let Some(corpus) = hk_tests::corpus("json_dumps_build_the_original_bytes") else {
        return;
    };
    let files = hk_tests::packfiles(&corpus);
    let mut ok = 0;
    let mut failures = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let data = hk_tests::read(f);
        let pf = hk_runtime::packfile::Packfile::parse(&data).unwrap();
        let dir =
            hk_runtime::schema::catalog::for_packfile(&hk_tests::schemas(), &pf.header).unwrap();
        let schema = hk_runtime::Schema::load(&dir).unwrap();
        let result = (|| -> Result<Vec<u8>, String> {
            let (g, _) = hk_runtime::packfile::read::read(&pf, &schema, Default::default())
                .map_err(|e| e.to_string())?;
            let text = serde_json::to_string(&dump::to_json(&g)).map_err(|e| e.to_string())?;
            let mut doc: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| e.to_string())?;
            // TOML for every tenth file (it has no null; `{}` stands for it).
            if i % 10 == 0 {
                let t = toml::to_string(&dump::json_to_toml(&doc)).map_err(|e| e.to_string())?;
                doc = dump::toml_to_json(&toml::from_str(&t).map_err(|e| e.to_string())?);
            }
            let back = dump::from_json(&doc, &schema).map_err(|e| e.to_string())?;
            write(&back, &schema).map_err(|e| e.to_string())
        })();
        match result {
            Ok(out) if out == data => ok += 1,
            Ok(_) => failures.push(format!("{}: rebuilt bytes differ", f.display())),
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    println!("dump -> build: {ok}/{} byte-identical", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
