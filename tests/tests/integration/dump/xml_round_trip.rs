//! Havok XML (`<hkpackfile>`, docs/havok-xml.md): every corpus packfile goes binary → XML →
//! binary byte for byte and XML → binary → XML unchanged; the SDK's own XML files build
//! into packfiles whose objects match the SDK's binaries of the same assets, floats within
//! the XML's printed precision; bad XML is refused with its line and column.

use std::path::Path;

use hk_runtime::dump::{self, xml, BuiltContainer};
use hk_runtime::file::{self, Document, Origin, Schemas};
use serde_json::Value as Json;

/// binary → XML → binary, and the XML written again from the rebuilt file.
fn round_trip(data: &[u8], schemas: &Schemas) -> Result<(), String> {
    let doc = file::open(data, schemas, Default::default()).map_err(|e| e.to_string())?;
    let text = xml::to_xml(&doc, xml::Dialect::Exact)
        .map(|x| x.text)
        .map_err(|e| format!("write: {e}"))?;
    let (bytes, built) = xml::build_xml(&text, schemas, None, &Default::default())
        .map_err(|e| format!("read: {e}"))?;
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
            BuiltContainer::Packfile(i) => Origin::Packfile(i),
            _ => return Err("not a packfile".into()),
        },
        schema: doc.schema,
        violations: Vec::new(),
    };
    let text2 = xml::to_xml(&again, xml::Dialect::Exact)
        .map(|x| x.text)
        .map_err(|e| format!("write again: {e}"))?;
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
    let schemas = hk_tests::schema_set();
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

/// Every Havok XML file of the corpus (the SDK's and the Skyrim behavior files, which use
/// flags written as `A|B`) builds, and the XML hk writes for the result builds the same
/// bytes.
#[test]
fn every_corpus_xml_file_builds_and_again_from_its_own_xml() {
    let Some(corpus) = hk_tests::corpus("every_corpus_xml_file_builds_and_again_from_its_own_xml")
    else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let mut n = 0;
    for dir in ["packfile/havoklib-xml", "games/skyrim-se-xml"] {
        let mut files: Vec<_> = std::fs::read_dir(corpus.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "xml"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let (bytes, built) = xml::build_xml(&text, &schemas, None, &Default::default())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let doc = file::open(&bytes, &schemas, Default::default()).unwrap();
            assert_eq!(doc.graph.objects.len(), built.graph.objects.len());
            let again = xml::to_xml(&doc, xml::Dialect::Exact).unwrap().text;
            let (rebuilt, _) = xml::build_xml(&again, &schemas, None, &Default::default())
                .unwrap_or_else(|e| panic!("{} again: {e}", f.display()));
            assert!(
                rebuilt == bytes,
                "{}: its own XML builds other bytes",
                f.display()
            );
            n += 1;
        }
    }
    assert_eq!(n, 12, "Havok XML files in the corpus");
}

/// What only hk's namespace holds goes through XML and back to the same bytes: an export,
/// an imported object, a pointer into an array element, a string that is not UTF-8, a
/// non-finite float and a user tag (no corpus file has any of them).
#[test]
fn hk_namespace_facts_go_through_xml() {
    use hk_runtime::graph::{Ptr, Value};
    let Some(corpus) = hk_tests::corpus("hk_namespace_facts_go_through_xml") else {
        return;
    };
    let data = hk_tests::read(&corpus.join("packfile/havoklib-2012_2/allosaur[4011].hkx"));
    let (mut g, mut info) = hk_tests::graph_of(&data).unwrap();
    info.exports.push((g.root, "allosaurRoot".into()));
    info.user_tag = 7;
    let ac = g.first("hkaAnimationContainer").unwrap();
    let sk = g.first("hkaSkeleton").unwrap();
    g.set(
        ac,
        "skeletons[0]",
        Value::Pointer(Some(Ptr::Import("shared".into()))),
    )
    .unwrap();
    let (path, _) = dump::resolve(g.schema(), g.objects[sk.0 as usize].class, "bones[1]").unwrap();
    g.set(
        ac,
        "skeletons",
        Value::Array(hk_runtime::graph::Array::Values(vec![
            Value::Pointer(Some(Ptr::Import("shared".into()))),
            Value::Pointer(Some(Ptr::Into {
                object: sk,
                path: path.into(),
            })),
        ])),
    )
    .unwrap();
    g.set(sk, "bones[0].name", Value::Bytes(vec![0xFF, 0x41]))
        .unwrap();
    let Value::Floats(mut pose) = g.get(sk, "referencePose[0]").unwrap() else {
        panic!("a transform")
    };
    pose.as_mut_slice()[0] = f32::from_bits(0x7FC0_0001);
    pose.as_mut_slice()[5] = f32::NEG_INFINITY;
    g.set(sk, "referencePose[0]", Value::Floats(pose)).unwrap();
    let bytes = hk_runtime::packfile::graph::write::write(&g, &info).unwrap();
    let doc = Document {
        graph: g,
        origin: Origin::Packfile(info),
        schema: file::open(&data, &hk_tests::schema_set(), Default::default())
            .unwrap()
            .schema,
        violations: Vec::new(),
    };
    let text = xml::to_xml(&doc, xml::Dialect::Exact).unwrap().text;
    for needle in [
        "hk:usertag=\"7\"",
        "<hk:export",
        "import:shared",
        "@bones[1]",
        "hk:bytes=\"ff41\"",
        "f32:0x7FC00001",
        "f32:0xFF800000",
    ] {
        assert!(text.contains(needle), "{needle} not in the XML");
    }
    let (rebuilt, _) =
        xml::build_xml(&text, &hk_tests::schema_set(), None, &Default::default()).unwrap();
    assert!(rebuilt == bytes, "XML → binary differs from the binary");
}

/// Differences between two dumps' objects: floats give their largest absolute difference
/// (and the largest beyond what `%f`'s six decimals and the f32 rounding allow), anything
/// else its path.
#[derive(Default)]
struct Compare {
    max_float: f64,
    beyond_precision: Vec<String>,
    other: Vec<String>,
}

impl Compare {
    fn walk(&mut self, path: &str, a: &Json, b: &Json) {
        match (a, b) {
            (Json::Number(x), Json::Number(y)) if x.is_f64() || y.is_f64() => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                let d = (x - y).abs();
                self.max_float = self.max_float.max(d);
                // Six printed decimals round by at most 5e-7; reading that text into an
                // f32 adds half an ulp of the value.
                if d > 5e-7 + x.abs().max(y.abs()) * f64::from(f32::EPSILON) {
                    self.beyond_precision.push(format!("{path}: {x} vs {y}"));
                }
            }
            (Json::Object(x), Json::Object(y)) => {
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => self.walk(&format!("{path}.{k}"), v, w),
                        None => self.other.push(format!("{path}.{k}")),
                    }
                }
            }
            (Json::Array(x), Json::Array(y)) if x.len() == y.len() => {
                for (i, (v, w)) in x.iter().zip(y).enumerate() {
                    self.walk(&format!("{path}[{i}]"), v, w);
                }
            }
            _ if a != b => self.other.push(path.to_string()),
            _ => {}
        }
    }
}

/// The SDK binary of the asset an SDK XML file holds (its name without the version).
fn binary_of(corpus: &Path, xml_name: &str) -> std::path::PathBuf {
    let stem = xml_name.trim_end_matches(".xml");
    let (folder, asset) = match stem {
        "allosaur2010" => ("havoklib-2010_2", "allosaur"),
        "allosaur2012" => ("havoklib-2012_2", "allosaur"),
        "allosaur500" | "allosaur550" => ("havoklib-550", "allosaur"),
        other => ("havoklib-550", other),
    };
    corpus.join(format!("packfile/{folder}/{asset}[4101].hkx"))
}

/// What differs between an SDK XML file and the SDK binary of its asset besides floats:
/// the binaries come from another export of the same scene (another environment, another
/// container name), and 5.0's hkaSkeleton has no `floatSlots` (the 5.5 binary has three).
fn export_difference(path: &str) -> bool {
    path.contains(".variables")
        || path.ends_with("namedVariants[0].name")
        || path.ends_with("fields.floatSlots")
}

#[test]
fn sdk_xml_files_build_into_the_sdk_binaries() {
    let Some(corpus) = hk_tests::corpus("sdk_xml_files_build_into_the_sdk_binaries") else {
        return;
    };
    let dir = corpus.join("packfile/havoklib-xml");
    let schemas = hk_tests::schema_set();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".xml"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 10, "{names:?}");
    let mut largest = (0.0f64, String::new());
    for name in &names {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let sdk = hk_tests::read(&binary_of(&corpus, name));
        let sdk = file::open(&sdk, &schemas, Default::default()).unwrap();
        let Origin::Packfile(sdk_info) = &sdk.origin else {
            panic!("{name}: the SDK binary is not a packfile")
        };
        let (bytes, built) =
            xml::build_xml(&text, &schemas, Some(sdk_info.layout), &Default::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        // A packfile of the XML's own version, which reads back strictly.
        let ours = file::open(&bytes, &schemas, Default::default()).unwrap();
        let Origin::Packfile(info) = &ours.origin else {
            panic!("{name}: not a packfile")
        };
        let version = |key: &str| {
            let at = text.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
            text[at..at + text[at..].find('"').unwrap()].to_string()
        };
        assert_eq!(
            info.file_version.to_string(),
            version("classversion"),
            "{name}"
        );
        assert_eq!(info.contents_version, version("contentsversion"), "{name}");
        assert_eq!(built.graph.objects.len(), sdk.graph.objects.len(), "{name}");
        let mut c = Compare::default();
        c.walk(
            "",
            &dump::to_json(&ours)["objects"],
            &dump::to_json(&sdk)["objects"],
        );
        let unexpected: Vec<&String> = c.other.iter().filter(|p| !export_difference(p)).collect();
        assert!(unexpected.is_empty(), "{name}: {unexpected:?}");
        assert!(
            c.beyond_precision.is_empty(),
            "{name}: {:?}",
            c.beyond_precision
        );
        println!(
            "{name}: {} objects, {} export differences, largest float difference {:e}",
            built.graph.objects.len(),
            c.other.len(),
            c.max_float
        );
        if c.max_float > largest.0 {
            largest = (c.max_float, name.clone());
        }
    }
    println!(
        "10/10 SDK XML files build; largest float difference {:e} ({})",
        largest.0, largest.1
    );
}

/// The 1-based line of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

fn xml_error(text: &str) -> (usize, usize, String) {
    let Err(e) = xml::from_xml(text, &hk_tests::schema_set(), None, &Default::default()) else {
        panic!("bad XML accepted")
    };
    let (line, column) = e
        .line_column()
        .unwrap_or_else(|| panic!("no line and column: {e}"));
    (line, column, e.to_string())
}

#[test]
fn bad_xml_is_refused_with_line_and_column() {
    let Some(corpus) = hk_tests::corpus("bad_xml_is_refused_with_line_and_column") else {
        return;
    };
    let text =
        std::fs::read_to_string(corpus.join("packfile/havoklib-xml/allosaur2012.xml")).unwrap();
    // A mismatched end tag.
    let at = text.find("</hkobject>").unwrap();
    let broken = format!("{}</hkobjekt>{}", &text[..at], &text[at + 11..]);
    let (line, column, message) = xml_error(&broken);
    assert_eq!(line, line_of(&text, at), "{message}");
    assert!(column > 1, "{column}");
    // A member the class does not have, at its own line.
    let at = text.find("name=\"lockTranslation\"").unwrap();
    let broken = text.replacen("name=\"lockTranslation\"", "name=\"lockTranslations\"", 1);
    let (line, _, message) = xml_error(&broken);
    assert_eq!(line, line_of(&text, at));
    assert!(
        message.contains("lockTranslations") && message.contains("hkaBone"),
        "{message}"
    );
    // A pointer to an object that does not exist names the member.
    let at = text.find(">0x806E2FE0<").unwrap();
    let broken = text.replacen(">0x806E2FE0<", ">0x12345678<", 1);
    let (line, _, message) = xml_error(&broken);
    assert_eq!(line, line_of(&text, at));
    assert!(
        message.contains("skeletons") && message.contains("0x12345678"),
        "{message}"
    );
    // A number that does not fit its member.
    let broken = text.replacen("-1 -1 1 2 3", "-1 -1 100000 2 3", 1);
    assert_ne!(broken, text);
    match xml::from_xml(&broken, &hk_tests::schema_set(), None, &Default::default()) {
        Ok(_) => panic!("100000 accepted as an int16"),
        Err(e) => assert!(e.to_string().contains("parentIndices"), "{e}"),
    }
}

#[test]
fn every_prefix_of_an_xml_file_is_refused_without_panic() {
    let Some(corpus) = hk_tests::corpus("every_prefix_of_an_xml_file_is_refused_without_panic")
    else {
        return;
    };
    let text = std::fs::read_to_string(corpus.join("packfile/havoklib-xml/animref.xml")).unwrap();
    let schemas = hk_tests::schema_set();
    let end = text.trim_end().len();
    for cut in (0..end).filter(|c| text.is_char_boundary(*c)) {
        assert!(
            xml::from_xml(&text[..cut], &schemas, None, &Default::default()).is_err(),
            "prefix of {cut} bytes accepted"
        );
    }
}
