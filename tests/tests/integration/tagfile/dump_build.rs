//! Tagfile dumps built back: every TAG0 file and old binary tagfile of the corpus, and every
//! tagfile sample, goes through a JSON and a TOML dump and `dump::build_text` to the same
//! bytes (the dump carries the file's own type table or class definitions); an edited dump
//! builds a file that reads back as edited, keeps the original type records, adds only the
//! records a new class needs, and builds again to the same bytes.

use std::path::{Path, PathBuf};

use hk_runtime::dump::{self, Format};
use hk_runtime::file::{self, Container, Document, Schemas};
use serde_json::{json, Value as Json};

use crate::tagfile::binary_walk::FILES as BINARY_FILES;

/// The corpus rows `MANIFEST.tsv` calls TAG0 tagfiles.
fn manifest_tag0(corpus: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let header = cols.get(8).copied().unwrap_or("");
            header
                .contains("TAG0 tagfile")
                .then(|| corpus.join(cols[0]).join(cols[1]))
        })
        .collect()
}

/// The samples that are tagfiles, TAG0 or binary, whatever `samples/` holds.
fn tagfile_samples() -> Vec<PathBuf> {
    let dir = hk_tests::root().join("samples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            matches!(
                file::detect(&hk_tests::read(p)),
                Some(Container::Tagfile | Container::BinaryTagfile)
            )
        })
        .collect();
    v.sort();
    v
}

fn dump_text(doc: &Document, format: Format) -> Vec<u8> {
    match format {
        Format::Json => {
            let mut t = Vec::new();
            dump::write_json(doc, &mut t).unwrap();
            t
        }
        Format::Toml => dump::to_toml(doc).unwrap().into_bytes(),
    }
}

/// Dump → build of `data` in `format`: the bytes built, or what went wrong.
fn rebuild(data: &[u8], format: Format, schemas: &Schemas) -> Result<Vec<u8>, String> {
    let doc = file::open(data, schemas, Default::default()).map_err(|e| e.to_string())?;
    let text = dump_text(&doc, format);
    let (bytes, _) = dump::build_text(&text, format, schemas).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Counts the files of `files` whose JSON and TOML dumps build their bytes back; lists the
/// others in `failures`.
fn count(files: &[PathBuf], schemas: &Schemas, failures: &mut Vec<String>) -> (usize, usize) {
    let mut ok = (0, 0);
    for f in files {
        let data = hk_tests::read(f);
        for format in [Format::Json, Format::Toml] {
            match rebuild(&data, format, schemas) {
                Ok(out) if out == data => match format {
                    Format::Json => ok.0 += 1,
                    Format::Toml => ok.1 += 1,
                },
                Ok(out) => failures.push(format!(
                    "{} ({}): {} bytes built from {}",
                    f.display(),
                    format.name(),
                    out.len(),
                    data.len()
                )),
                Err(e) => failures.push(format!("{} ({}): {e}", f.display(), format.name())),
            }
        }
    }
    ok
}

#[test]
fn tagfile_dumps_build_the_original_bytes() {
    let schemas = hk_tests::schema_set();
    let mut failures = Vec::new();
    let samples = tagfile_samples();
    assert!(!samples.is_empty(), "samples/ holds tagfiles");
    let (j, t) = count(&samples, &schemas, &mut failures);
    println!(
        "samples: JSON {j}/{n}, TOML {t}/{n} byte-identical",
        n = samples.len()
    );
    if let Some(corpus) = hk_tests::corpus("tagfile_dumps_build_the_original_bytes") {
        let tag0 = manifest_tag0(&corpus);
        assert_eq!(tag0.len(), 6, "TAG0 files MANIFEST.tsv lists");
        let (j, t) = count(&tag0, &schemas, &mut failures);
        println!("TAG0: JSON {j}/6, TOML {t}/6 byte-identical");
        let binary: Vec<PathBuf> = BINARY_FILES.iter().map(|f| corpus.join(f)).collect();
        let (j, t) = count(&binary, &schemas, &mut failures);
        let n = binary.len();
        println!("binary tagfiles: JSON {j}/{n}, TOML {t}/{n} byte-identical");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Builds `dump`, reads the file back, and checks that its dump builds the same bytes.
fn build_stable(dump: &Json, schemas: &Schemas) -> (Vec<u8>, Document) {
    let (bytes, _) = dump::build(dump, schemas).unwrap_or_else(|e| panic!("build: {e}"));
    let doc = file::open(&bytes, schemas, Default::default()).unwrap();
    let (again, _) = dump::build(&dump::to_json(&doc), schemas).unwrap();
    assert!(again == bytes, "the edited file's dump builds it again");
    (bytes, doc)
}

/// The first object of `class` in a dump, as a mutable JSON value.
fn object<'d>(dump: &'d mut Json, class: &str) -> &'d mut Json {
    let objects = dump["objects"].as_array_mut().unwrap();
    objects.iter_mut().find(|o| o["class"] == class).unwrap()
}

/// Changes a float and grows two arrays of the first `hkaSkeleton` of a dump; checks the
/// file built from it reads back so.
fn edit_skeleton(mut d: Json, pose_len: usize, schemas: &Schemas) -> Document {
    let skel = &mut object(&mut d, "hkaSkeleton")["fields"];
    let parents = skel["parentIndices"].as_array_mut().unwrap();
    let n = parents.len();
    parents.push(json!(0));
    let bones = skel["bones"].as_array_mut().unwrap();
    let mut bone = bones[0].clone();
    bone["name"] = json!("added_bone");
    bones.push(bone);
    let pose = skel["referencePose"].as_array_mut().unwrap();
    let mut p = pose[0].clone();
    match &mut p {
        Json::Array(floats) => floats[0] = json!(2.5),
        other => other["translation"][0] = json!(2.5),
    }
    pose.push(p);
    let (_, doc) = build_stable(&d, schemas);
    let g = &doc.graph;
    let s = g.first("hkaSkeleton").unwrap();
    let len = |m: &str| g.get(s, m).unwrap().as_array().map(|a| a.len());
    assert_eq!(len("parentIndices"), Some(n + 1));
    assert_eq!(len("bones"), Some(n + 1));
    assert_eq!(len("referencePose"), Some(n + 1));
    let name = format!("bones[{n}].name");
    assert_eq!(g.get(s, &name).unwrap().as_str(), Some("added_bone"));
    let pose = g.get(s, &format!("referencePose[{n}]")).unwrap();
    let first = match pose.as_floats() {
        Some(f) => f[0],
        None => g
            .get(s, &format!("referencePose[{n}].translation"))
            .unwrap()
            .as_floats()
            .unwrap()[0],
    };
    assert_eq!(first, 2.5);
    assert_eq!(pose_len, n);
    doc
}

#[test]
fn an_edited_tag0_dump_keeps_its_type_table() {
    let Some(corpus) = hk_tests::corpus("an_edited_tag0_dump_keeps_its_type_table") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let dsr = corpus.join("games/dark-souls-remastered");
    let data = hk_tests::read(&dsr.join("c2240_skeleton.hkx"));
    let doc = file::open(&data, &schemas, Default::default()).unwrap();
    let d = dump::to_json(&doc);
    let types = d["types"].as_array().unwrap().clone();
    let bones = {
        let s = doc.graph.first("hkaSkeleton").unwrap();
        doc.graph.get(s, "bones").unwrap().as_array().unwrap().len()
    };
    let edited = edit_skeleton(d.clone(), bones, &schemas);
    // Growing arrays of known types adds no record.
    assert_eq!(dump::to_json(&edited)["types"], json!(types));

    // An object of a class the table lacks: its records are appended, the rest kept.
    let ragdoll = hk_tests::read(&dsr.join("c2240_ragdoll.hkx"));
    let r = dump::to_json(&file::open(&ragdoll, &schemas, Default::default()).unwrap());
    let objects = r["objects"].as_array().unwrap();
    let mut capsule = objects
        .iter()
        .find(|o| o["class"] == "hkpCapsuleShape")
        .unwrap()
        .clone();
    let mut d = d;
    capsule["id"] = json!(1000);
    d["objects"].as_array_mut().unwrap().push(capsule);
    object(&mut d, "hkRootLevelContainer")["fields"]["namedVariants"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Capsule", "className": "hkpCapsuleShape", "variant": 1000}));
    let (_, doc) = build_stable(&d, &schemas);
    let c = doc.graph.first("hkpCapsuleShape").unwrap();
    assert!(doc.graph.get(c, "radius").unwrap().as_f32().unwrap() > 0.0);
    let after = dump::to_json(&doc)["types"].as_array().unwrap().clone();
    let key = |t: &Json| (t["name"].clone(), t["body"].clone(), t["hash"].clone());
    let before: Vec<_> = types.iter().map(key).collect();
    let kept: Vec<_> = after
        .iter()
        .map(key)
        .filter(|k| before.contains(k))
        .collect();
    assert_eq!(kept.len(), before.len(), "every original record is kept");
    let added: Vec<&str> = after
        .iter()
        .filter(|t| !before.contains(&key(t)))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(added.contains(&"hkpCapsuleShape"), "{added:?}");
    assert!(added.contains(&"hkpConvexShape"), "{added:?}");
    assert!(added.len() < 12, "only what the capsule needs: {added:?}");
    assert_eq!(doc.graph.objects.len(), 4);
}

#[test]
fn an_edited_binary_tagfile_dump_builds() {
    let Some(corpus) = hk_tests::corpus("an_edited_binary_tagfile_dump_builds") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let data = hk_tests::read(&corpus.join("games/ffxiv-and-xat-tests/skeleton.hkt"));
    let doc = file::open(&data, &schemas, Default::default()).unwrap();
    let d = dump::to_json(&doc);
    let bones = {
        let s = doc.graph.first("hkaSkeleton").unwrap();
        doc.graph.get(s, "bones").unwrap().as_array().unwrap().len()
    };
    let edited = edit_skeleton(d.clone(), bones, &schemas);
    assert_eq!(edited.container(), Container::BinaryTagfile);
    assert_eq!(dump::to_json(&edited)["classes"], d["classes"]);
}

/// The error `dump::build` gives for `d`.
fn refusal(d: &Json, schemas: &Schemas) -> String {
    match dump::build(d, schemas) {
        Ok(_) => panic!("built"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_bad_type_table_or_class_definition_is_refused_with_its_place() {
    let schemas = hk_tests::schema_set();
    let sample = hk_tests::root().join("samples/doom-2016_box.hkshape");
    let doc = file::open(&hk_tests::read(&sample), &schemas, Default::default()).unwrap();
    let d = dump::to_json(&doc);
    let mut bad = d.clone();
    bad["types"][0]["body"]["parent"] = json!(999);
    let e = refusal(&bad, &schemas);
    assert!(
        e.contains("types[0].body.parent") && e.contains("type 999"),
        "{e}"
    );
    let mut bad = d.clone();
    bad["types"][1]["id"] = json!(7);
    let e = refusal(&bad, &schemas);
    assert!(
        e.contains("types[1].id") && e.contains("ids number the list"),
        "{e}"
    );
    let mut bad = d.clone();
    bad["types"][0]["body"]["size"] = Json::Null;
    let e = refusal(&bad, &schemas);
    assert!(e.contains("`size` and `align`"), "{e}");
    let mut bad = d;
    bad["types"][0]["colour"] = json!(1);
    let e = refusal(&bad, &schemas);
    assert!(e.contains("unknown key `colour`"), "{e}");

    let Some(corpus) = hk_tests::corpus("a_bad_class_definition_is_refused") else {
        return;
    };
    let data = hk_tests::read(&corpus.join("games/ffxiv-and-xat-tests/skeleton.hkt"));
    let d = dump::to_json(&file::open(&data, &schemas, Default::default()).unwrap());
    let mut bad = d.clone();
    bad["classes"][0]["members"][0]["type"] = json!("float[]");
    let e = refusal(&bad, &schemas);
    assert!(e.contains("classes[0].members[0].type"), "{e}");
    let mut bad = d.clone();
    bad["classes"][1]["parent"] = json!(5);
    let e = refusal(&bad, &schemas);
    assert!(e.contains("not a class declared before"), "{e}");
    let mut bad = d;
    bad["types"] = json!([]);
    let e = refusal(&bad, &schemas);
    assert!(e.contains("`types` belongs to"), "{e}");
}
