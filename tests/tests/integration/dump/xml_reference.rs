//! `hk dump` values of the allosaur demo files against Havok's own XML exports in
//! `corpus/packfile/havoklib-xml`: bone names, parent indices, reference pose and track
//! counts.

use hk_runtime::graph::{Graph, ObjectId, Ptr, Value};

struct XmlSkeleton {
    bones: Vec<String>,
    parents: Vec<i64>,
    pose: Vec<f32>,
}

fn xml_text<'a>(node: roxmltree::Node<'a, 'a>, param: &str) -> Option<roxmltree::Node<'a, 'a>> {
    node.children()
        .find(|c| c.has_tag_name("hkparam") && c.attribute("name") == Some(param))
}

fn xml_skeleton(doc: &roxmltree::Document<'_>) -> XmlSkeleton {
    let sk = doc
        .descendants()
        .find(|n| n.has_tag_name("hkobject") && n.attribute("class") == Some("hkaSkeleton"))
        .expect("an hkaSkeleton");
    let bones_param = xml_text(sk, "bones").unwrap();
    let mut bones: Vec<String> = bones_param
        .children()
        .filter(|c| c.has_tag_name("hkobject"))
        .map(|b| {
            xml_text(b, "name")
                .and_then(|n| n.text())
                .unwrap_or("")
                .to_string()
        })
        .collect();
    if bones.is_empty() {
        // Havok 5.5: a list of references to hkaBone objects.
        bones = bones_param
            .text()
            .unwrap_or("")
            .split_whitespace()
            .map(|r| {
                let b = doc
                    .descendants()
                    .find(|n| n.has_tag_name("hkobject") && n.attribute("name") == Some(r))
                    .unwrap_or_else(|| panic!("no object {r}"));
                xml_text(b, "name")
                    .and_then(|n| n.text())
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
    }
    let parents = xml_text(sk, "parentIndices")
        .unwrap()
        .text()
        .unwrap_or("")
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let pose = xml_text(sk, "referencePose")
        .unwrap()
        .text()
        .unwrap_or("")
        .split(|c: char| c == '(' || c == ')' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect();
    XmlSkeleton {
        bones,
        parents,
        pose,
    }
}

fn xml_tracks(doc: &roxmltree::Document<'_>) -> Vec<(i64, i64)> {
    doc.descendants()
        .filter(|n| n.has_tag_name("hkobject") && xml_text(*n, "numberOfTransformTracks").is_some())
        .map(|n| {
            let num = |p: &str| {
                xml_text(n, p)
                    .and_then(|x| x.text())
                    .unwrap_or("0")
                    .trim()
                    .parse()
                    .unwrap()
            };
            (num("numberOfTransformTracks"), num("numberOfFloatTracks"))
        })
        .collect()
}

fn int(v: &Value) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("not an integer: {v:?}"))
}

fn graph_skeleton(g: &Graph) -> XmlSkeleton {
    let sk = g.first("hkaSkeleton").expect("an hkaSkeleton object");
    let n = g
        .get(sk, "bones")
        .unwrap()
        .as_array()
        .expect("bones is an array")
        .len();
    // Bones are structs, or (Havok 5.5 and 6.6) pointers to hkaBone objects.
    let bones = (0..n)
        .map(|i| {
            let name = match g.get(sk, &format!("bones[{i}]")).unwrap() {
                Value::Struct(_) => g.get(sk, &format!("bones[{i}].name")).unwrap(),
                Value::Pointer(Some(Ptr::Object(id))) => {
                    assert_eq!(g.class_name(id), "hkaBone");
                    g.get(id, "name").unwrap()
                }
                other => panic!("bone {other:?}"),
            };
            match name {
                Value::String(Some(s)) => s,
                other => panic!("bone name {other:?}"),
            }
        })
        .collect();
    let parents = g
        .get(sk, "parentIndices")
        .unwrap()
        .as_array()
        .expect("parentIndices is an array")
        .to_values()
        .iter()
        .map(int)
        .collect();
    // qsTransform: translation xyz(w), rotation xyzw, scale xyz(w); the XML leaves out the w
    // of translation and scale.
    let pose = g
        .get(sk, "referencePose")
        .unwrap()
        .as_array()
        .expect("referencePose is an array")
        .to_values()
        .iter()
        .flat_map(|t| match t {
            Value::Floats(f) => [&f[0..3], &f[4..8], &f[8..11]].concat(),
            other => panic!("{other:?}"),
        })
        .collect();
    XmlSkeleton {
        bones,
        parents,
        pose,
    }
}

fn graph_tracks(g: &Graph) -> Vec<(i64, i64)> {
    (0..g.objects.len() as u32)
        .map(ObjectId)
        .filter(|&id| {
            g.resolve(g.object(id).class, "numberOfTransformTracks")
                .is_ok()
        })
        .map(|id| {
            let n = |p: &str| int(&g.get(id, p).unwrap());
            (n("numberOfTransformTracks"), n("numberOfFloatTracks"))
        })
        .collect()
}

/// (XML reference, packfile folder, file stem) pairs: every layout variant is compared.
const CASES: &[(&str, &str, &str)] = &[
    ("allosaur2012.xml", "havoklib-2012_2", "allosaur"),
    ("allosaur2010.xml", "havoklib-2010_2", "allosaur"),
    ("allosaur550.xml", "havoklib-550", "allosaur"),
    ("allosaur2010.xml", "havoklib-710", "allosaur"),
    ("allosaur2012.xml", "havoklib-2014_1", "allosaur"),
    ("allosaur_run.xml", "havoklib-550", "allosaur_run"),
    ("allosaur_run.xml", "havoklib-710", "allosaur_run"),
    (
        "allosaur_run_D12_8_3.xml",
        "havoklib-710",
        "allosaur_run_D12_8_3",
    ),
    (
        "allosaur_run_S32_V16_B255_D1.xml",
        "havoklib-2012_2",
        "allosaur_run_S32_V16_B255_D1",
    ),
    (
        "allosaur_run_S40_V16_B25_D3.xml",
        "havoklib-660",
        "allosaur_run_S40_V16_B25_D3",
    ),
    (
        "allosaur_run_S48_V8_B255_D2.xml",
        "havoklib-2014_1",
        "allosaur_run_S48_V8_B255_D2",
    ),
];

#[test]
fn allosaur_values_agree_with_havok_xml() {
    let Some(corpus) = hk_tests::corpus("allosaur_values_agree_with_havok_xml") else {
        return;
    };
    let mut compared = 0;
    for (xml, folder, stem) in CASES {
        let text = std::fs::read_to_string(corpus.join("packfile/havoklib-xml").join(xml)).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let want_tracks = xml_tracks(&doc);
        let want_sk = stem.ends_with("allosaur").then(|| xml_skeleton(&doc));
        let dir = corpus.join("packfile").join(folder);
        let files: Vec<_> = hk_tests::files(&dir)
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{stem}["))
            })
            .collect();
        assert!(!files.is_empty(), "{folder}/{stem}");
        for f in files {
            let (g, _) = hk_tests::graph_of(&hk_tests::read(&f))
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            assert_eq!(
                graph_tracks(&g),
                want_tracks,
                "{}: track counts",
                f.display()
            );
            if let Some(want) = &want_sk {
                let got = graph_skeleton(&g);
                assert_eq!(got.bones, want.bones, "{}: bone names", f.display());
                assert_eq!(got.parents, want.parents, "{}: parent indices", f.display());
                assert_eq!(got.pose.len(), want.pose.len(), "{}", f.display());
                for (i, (a, b)) in got.pose.iter().zip(&want.pose).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-5 * b.abs().max(1.0),
                        "{}: pose value {i}: {a} vs {b}",
                        f.display()
                    );
                }
            }
            compared += 1;
        }
    }
    println!("{compared} files agree with their Havok XML export");
    assert!(compared >= 80);
}
