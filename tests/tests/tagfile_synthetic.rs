//! The synthetic 2016 cm and 2023.2 `.bphsh` samples (`samples/`, written by `hk sample`
//! from schemas/havok-2016 and schemas/havok-2023.2; the CLI test checks they are what the
//! command writes today). No real file of either generation is in the corpus, so these
//! are how hk's hknp schemas, relative arrays and both containers are exercised.

use hk_runtime::graph::{Field, Graph, Object, Value};
use hk_runtime::layout::Layouts;
use hk_runtime::tagfile::phive::{Extra, Phive};
use hk_runtime::tagfile::{self, schema, TagFile};

const SAMPLES: [(&str, &str); 4] = [
    ("doom-2016_box.hkshape", "havok-2016"),
    ("doom-2016_compound.hkshape", "havok-2016"),
    ("doom-2016_mesh.hkshape", "havok-2016"),
    ("nso-2023_box.bphsh", "havok-2023.2"),
];

fn sample(name: &str) -> Vec<u8> {
    hk_tests::read(&hk_tests::root().join("samples").join(name))
}

fn rules(generation: &str) -> tagfile::write::TagRules {
    hk_tests::schema(generation)
        .generation
        .tagfile
        .expect("[tagfile] rules")
}

fn get<'a>(fields: &'a [Field], name: &str) -> &'a Value {
    &fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no member {name}"))
        .value
}

fn object<'a>(g: &'a Graph, class: &str) -> &'a Object {
    g.objects.iter().find(|o| o.class == class).expect(class)
}

fn floats(v: &Value) -> Vec<f32> {
    match v {
        Value::Floats(f) => f.clone(),
        other => panic!("not floats: {other:?}"),
    }
}

fn items(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) | Value::CArray(a) => a,
        other => panic!("not a list: {other:?}"),
    }
}

fn uint(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        Value::Int(i) => *i as u64,
        other => panic!("not an integer: {other:?}"),
    }
}

#[test]
fn samples_round_trip_and_agree_with_their_schemas() {
    for (name, generation) in SAMPLES {
        let data = sample(name);
        let tf = TagFile::parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = hk_tests::schema(generation);
        assert_eq!(tf.sdk_version, s.generation.contents_version, "{name}");
        let out = tagfile::roundtrip(&data, &rules(generation)).unwrap();
        assert!(out == data, "{name}: round trip differs");
        // `hk schema check`: every type's size, member offsets and flags.
        let rows = schema::check(&s, &tf);
        let bad: Vec<_> = rows
            .iter()
            .filter(|r| r.verdict != hk_runtime::check::Verdict::Match)
            .collect();
        assert!(bad.is_empty(), "{name}: {bad:?}");
        println!(
            "{name}: round trip byte-identical; {}/{} schema rows agree",
            rows.len(),
            rows.len()
        );
        // And the same schema, checked against a file of the other generation, fails.
        let other = if generation == "havok-2016" {
            "havok-2023.2"
        } else {
            "havok-2016"
        };
        let rows = schema::check(&hk_tests::schema(other), &tf);
        assert!(
            rows.iter()
                .any(|r| r.verdict != hk_runtime::check::Verdict::Match),
            "{name} vs {other}"
        );
    }
}

/// A class of a seed table: name, (member, offset) pairs, size.
type SeedClass = (&'static str, &'static [(&'static str, u32)], u32);

/// Seed 003's hknpMeshShape tables (offsets stated there), against the layout engine on
/// schemas/havok-2023.2.
#[test]
fn havok_2023_layout_matches_seed_003() {
    let s = hk_tests::schema("havok-2023.2");
    let mut l = Layouts::new(&s, s.generation.layout);
    let seed: &[SeedClass] = &[
        (
            "hknpShape",
            &[
                ("type", 0x18),
                ("dispatchType", 0x19),
                ("flags", 0x1A),
                ("numShapeKeyBits", 0x1C),
                ("convexRadius", 0x20),
                ("userData", 0x28),
                ("properties", 0x30),
            ],
            0x40,
        ),
        (
            "hknpMeshShape",
            &[
                ("vertexConversionUtil", 0x50),
                ("shapeTagTable", 0x70),
                ("topLevelTree", 0x78),
                ("geometrySections", 0x90),
                ("primitiveMapping", 0x98),
            ],
            0xA0,
        ),
        (
            "hknpMeshShape::GeometrySection",
            &[
                ("sectionBvh", 0x0),
                ("primitives", 0x8),
                ("vertexBuffer", 0x10),
                ("interiorPrimitiveBitField", 0x18),
                ("sectionOffset", 0x20),
                ("bitScale8Inv", 0x2C),
                ("bitOffset", 0x38),
            ],
            0x40,
        ),
        (
            "hkcdSimdTreeNamespace::Node",
            &[
                ("data", 0x60),
                ("filterMasks", 0x70),
                ("flags", 0x74),
                ("parent", 0x78),
                ("numLeaves", 0x7C),
            ],
            0x80,
        ),
        ("hknpShapeProperties", &[], 0x10),
        ("hknpAabb8TreeNode", &[("data", 0x18)], 0x1C),
    ];
    let mut n = 0;
    for (class, members, size) in seed {
        let c = s.class(class).expect(class);
        let lay = l.class(class).expect(class).clone();
        assert_eq!(lay.size, *size, "{class} size");
        for (m, off) in *members {
            let i = c.members.iter().position(|x| x.name == *m).expect(m);
            assert_eq!(lay.members[i].offset, *off, "{class}.{m}");
            n += 1;
        }
    }
    println!("seed 003: {n} offsets and {} sizes reproduced", seed.len());
}

/// The box polytope against seed 004 §5's rules for retail boxes.
#[test]
fn box_sample_follows_seed_004() {
    let data = sample("doom-2016_box.hkshape");
    let tf = TagFile::parse(&data).unwrap();
    let c = tf.cm.as_ref().expect("cm");
    assert_eq!(c.records, vec![Default::default()]);
    assert_eq!(tf.sdk_version, "20160200");
    let g = tagfile::graph(&tf, &data).unwrap();
    let shape = &g.objects[g.root.0 as usize];
    assert_eq!(shape.class, "hknpConvexPolytopeShape");
    let f = &shape.fields;
    let verts: Vec<Vec<f32>> = items(get(f, "vertices")).iter().map(floats).collect();
    assert_eq!(verts.len() % 4, 0);
    for (i, v) in verts.iter().enumerate() {
        assert_eq!(v[3].to_bits(), 0x3F00_0000 | i as u32, "vertex {i} w");
    }
    let planes: Vec<Vec<f32>> = items(get(f, "planes")).iter().map(floats).collect();
    // Every plane supports the hull: all vertices on or behind it, four on it.
    for p in &planes {
        let d: Vec<f32> = verts
            .iter()
            .map(|v| p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3])
            .collect();
        assert!(d.iter().all(|&x| x <= 1e-3), "{p:?}");
        assert_eq!(d.iter().filter(|x| x.abs() < 1e-3).count(), 4);
    }
    let idx: Vec<u64> = items(get(f, "indices")).iter().map(uint).collect();
    let faces: Vec<(u64, u64)> = items(get(f, "faces"))
        .iter()
        .map(|x| match x {
            Value::Struct(ff) => (uint(get(ff, "firstIndex")), uint(get(ff, "numIndices"))),
            _ => panic!(),
        })
        .collect();
    assert_eq!(faces.len(), 6);
    let conn = object(&g, "hknpConvexPolytopeShape::Connectivity");
    let edge = |v: &Value| match v {
        Value::Struct(e) => (uint(get(e, "faceIndex")), uint(get(e, "edgeIndex"))),
        _ => panic!(),
    };
    let links: Vec<(u64, u64)> = items(get(&conn.fields, "faceLinks"))
        .iter()
        .map(edge)
        .collect();
    let ends = |(fi, e): (u64, u64)| {
        let (first, n) = faces[fi as usize];
        (
            idx[(first + e) as usize],
            idx[(first + (e + 1) % n) as usize],
        )
    };
    let mut k = 0;
    for (fi, &(first, n)) in faces.iter().enumerate() {
        for e in 0..n {
            let twin = links[(first + e) as usize];
            let (a, b) = ends((fi as u64, e));
            assert_eq!(ends(twin), (b, a), "face {fi} edge {e}: twin runs back");
            k += 1;
        }
    }
    assert_eq!(k, links.len());
    let starts: Vec<(u64, u64)> = items(get(&conn.fields, "vertexEdges"))
        .iter()
        .map(edge)
        .collect();
    for (v, &s) in starts.iter().enumerate() {
        assert_eq!(ends(s).0, v as u64, "vertexEdges[{v}] starts at its vertex");
    }
    // Mass = 1000 × volume with 2 × radius on each edge; penetration ratio in the range
    // seed 004 measured on 1762 retail boxes.
    let r = match get(f, "convexRadius") {
        Value::Real(r) => *r,
        _ => panic!(),
    };
    let ext: Vec<f32> = (0..3)
        .map(|a| verts.iter().fold(f32::MIN, |m, v| m.max(v[a])) * 2.0 + 2.0 * r)
        .collect();
    let mp = object(&g, "hknpShapeMassProperties");
    let cmp = match get(&mp.fields, "compressedMassProperties") {
        Value::Struct(x) => x,
        _ => panic!(),
    };
    let (mass, volume) = match (get(cmp, "mass"), get(cmp, "volume")) {
        (Value::Real(m), Value::Real(v)) => (*m, *v),
        _ => panic!(),
    };
    assert!((volume - ext[0] * ext[1] * ext[2]).abs() / volume < 1e-6);
    assert!((mass - 1000.0 * volume).abs() / mass < 1e-6);
    let inertia = match get(cmp, "inertia") {
        Value::Struct(p) => items(get(p, "values")).iter().map(uint).collect::<Vec<_>>(),
        _ => panic!(),
    };
    let biggest = inertia[..3]
        .iter()
        .map(|&x| (x as u16 as i16).unsigned_abs())
        .max()
        .unwrap();
    assert!(
        (1 << 14..1 << 15).contains(&u32::from(biggest)),
        "{inertia:?}"
    );
    let half = match get(f, "maxAllowedPenetration") {
        Value::Half(h) => f32::from_bits(u32::from(*h) << 16),
        _ => panic!(),
    };
    let basis = ext.iter().fold(f32::MAX, |a, &b| a.min(b)) / 2.0;
    let ratio = half / basis;
    assert!((0.3288..=0.3313).contains(&ratio), "{ratio}");
}

/// The phive container of the `.bphsh` sample: its arrays, and mutations of its header
/// that a strict reader must reject.
#[test]
fn phive_shape_container_reads_and_rejects_mutations() {
    let data = sample("nso-2023_box.bphsh");
    let tf = TagFile::parse(&data).unwrap();
    let p = tf.phive.clone().expect("phive");
    assert_eq!(p.file_type, tagfile::phive::SHAPE);
    assert!(matches!(&p.extras[0], Extra::Materials(m) if m.len() == 1));
    assert!(matches!(&p.extras[1], Extra::HitMasks(h) if h.len() == 1));
    let word = |d: &mut Vec<u8>, at: usize, delta: i64| {
        let w = u32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]);
        d[at..at + 4].copy_from_slice(&((i64::from(w) + delta) as u32).to_le_bytes());
    };
    let n = usize::from(p.capacity);
    let mut mutations: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..n {
        for delta in [-16, 16, 4] {
            let mut d = data.clone();
            word(&mut d, 12 + 4 * i, delta);
            mutations.push((format!("offset {i} {delta:+}"), d));
            let mut d = data.clone();
            word(&mut d, 12 + 4 * (n + i), delta);
            mutations.push((format!("size {i} {delta:+}"), d));
        }
    }
    let mut d = data.clone();
    d[8] = 0xFE;
    d[9] = 0xFF;
    mutations.push(("byte-order mark".into(), d));
    for (what, cap) in [("capacity -1", n - 1), ("capacity +1", n + 1)] {
        let mut d = data.clone();
        d[11] = cap as u8;
        mutations.push((what.into(), d));
    }
    let mut d = data.clone();
    d[0x2F] = 1;
    mutations.push(("header padding".into(), d));
    for (what, len) in [("end -1", data.len() - 1), ("end -16", data.len() - 16)] {
        mutations.push((what.into(), data[..len].to_vec()));
    }
    let mut d = data.clone();
    d.extend_from_slice(&[0; 8]);
    mutations.push(("end +8".into(), d));
    let mut rejected = 0;
    for (what, m) in &mutations {
        match TagFile::parse(m) {
            Err(e) => {
                assert!(e.offset.is_some(), "{what}: error without an offset: {e}");
                rejected += 1;
            }
            Ok(_) => panic!("mutation `{what}` accepted"),
        }
    }
    println!(
        "phive: {rejected}/{} header mutations rejected",
        mutations.len()
    );
    // Writing the parsed container around the same TAG0 gives the file back.
    let tag0 = &data[tf.offset as usize..(tf.offset + tf.root.size) as usize];
    assert_eq!(Phive::write(&p, tag0).unwrap(), data);
}

#[test]
fn every_prefix_of_each_sample_is_an_error_not_a_panic() {
    let mut n = 0;
    for (name, _) in SAMPLES {
        let data = sample(name);
        for len in 0..data.len() {
            let cut = &data[..len];
            let ok = TagFile::parse(cut).and_then(|tf| tagfile::graph(&tf, cut).map(|_| ()));
            assert!(ok.is_err(), "{name}: prefix of {len} bytes accepted");
            n += 1;
        }
    }
    println!("{n} prefixes rejected");
}

/// The six SDK versions the TAG0 reader takes: a corpus file relabelled to each reads, and
/// round-trips under the rules of the generation hk picks for it (exact, else the newest
/// older one).
#[test]
fn sdk_versions_2015_to_2023_read_and_round_trip() {
    let Some(corpus) = hk_tests::corpus("sdk_versions_2015_to_2023") else {
        return;
    };
    let data = hk_tests::read(&corpus.join(hk_tests::TAGFILES[2]));
    let tf = TagFile::parse(&data).unwrap();
    let sdkv = tf.root.child(b"SDKV").unwrap().payload().0 as usize;
    for v in [
        "20150100", "20160100", "20160200", "20180100", "20220100", "20230200",
    ] {
        let mut d = data.clone();
        d[sdkv..sdkv + 8].copy_from_slice(v.as_bytes());
        let t = TagFile::parse(&d).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(t.sdk_version, v);
        let (_, g) = hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), v)
            .expect("a generation");
        let out = tagfile::roundtrip(&d, &g.tagfile.expect("rules")).unwrap();
        let back = TagFile::parse(&out).unwrap();
        assert_eq!(
            tagfile::graph(&back, &out).unwrap().objects,
            tagfile::graph(&t, &d).unwrap().objects,
            "{v} under {}",
            g.name
        );
        println!(
            "SDKV {v}: read, written with {}'s rules, objects equal",
            g.name
        );
    }
}

/// Seeded byte corruptions of each sample: parsed, decoded and round-tripped, never a panic.
#[test]
fn corrupted_samples_never_panic() {
    let mut next = hk_tests::xorshift(0x9E37_79B9_7F4A_7C15);
    let mut tried = 0;
    for (name, generation) in SAMPLES {
        let data = sample(name);
        let rules = rules(generation);
        for _ in 0..400 {
            let bad = hk_tests::corrupt(&data, &mut next);
            let r = std::panic::catch_unwind(|| {
                if let Ok(tf) = TagFile::parse(&bad) {
                    let _ = schema::extract(&[&tf], "fuzz");
                    let _ = tagfile::graph(&tf, &bad);
                    let _ = tagfile::roundtrip(&bad, &rules);
                }
            });
            assert!(r.is_ok(), "{name}: corruption {tried} panicked");
            tried += 1;
        }
    }
    println!("{tried} corrupted samples: no panic");
}

/// An edited value that does not fit its type (five floats for a vector) is an error that
/// names the member, not bytes spilled into the next member.
#[test]
fn values_that_do_not_fit_are_errors() {
    let data = sample("nso-2023_box.bphsh");
    let tf = TagFile::parse(&data).unwrap();
    let mut g = tagfile::graph(&tf, &data).unwrap();
    let s = hk_tests::schema("havok-2023.2");
    let root = g.root.0 as usize;
    g.objects[root]
        .set(
            "vertexConversionUtil.bitScale16",
            Value::Floats(vec![1.0; 5]),
        )
        .unwrap();
    let err = tagfile::reflect::write(&g, &s, &tf.sdk_version).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("bitScale16"), "{text}");
    g.objects[root]
        .set(
            "vertexConversionUtil.bitScale16",
            Value::Floats(vec![1.0; 4]),
        )
        .unwrap();
    assert!(tagfile::reflect::write(&g, &s, &tf.sdk_version).is_ok());
}
