//! The synthetic 2016 cm and 2023.2 `.bphsh` samples (`samples/`, written by `hk sample`
//! from schemas/havok-2016 and schemas/havok-2023.2; the CLI test checks they are what the
//! command writes today). No real file of either generation is in the corpus, so these
//! are how hk's hknp schemas, relative arrays and both containers are exercised.

use hk_runtime::graph::{Graph, Value};
use hk_runtime::schema::layout::Layouts;
use hk_runtime::schema::report::Verdict;
use hk_runtime::schema::{ClassId, Schema, Shape};
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

fn rules(generation: &str) -> hk_runtime::schema::TagfileRules {
    hk_tests::schema(generation)
        .generation
        .tagfile
        .expect("[tagfile] rules")
}

/// A struct's (or object's) values with its class, for members by name.
#[derive(Clone, Copy)]
struct Rec<'g> {
    schema: &'g Schema,
    class: ClassId,
    values: &'g [Value],
}

impl<'g> Rec<'g> {
    /// The first object of class `class`.
    fn object(g: &'g Graph, class: &str) -> Rec<'g> {
        let id = g.first(class).expect(class);
        let o = g.object(id);
        Rec {
            schema: g.schema(),
            class: o.class,
            values: &o.values,
        }
    }

    fn index(&self, name: &str) -> (usize, Shape) {
        let ms = self.schema.members(self.class).unwrap();
        let i = ms
            .iter()
            .position(|m| self.schema.member_of(m).name == name)
            .unwrap_or_else(|| panic!("no member {name}"));
        (i, ms[i].shape.clone())
    }

    fn get(&self, name: &str) -> &'g Value {
        &self.values[self.index(name).0]
    }

    /// A struct member.
    fn rec(&self, name: &str) -> Rec<'g> {
        let (i, shape) = self.index(name);
        match (&shape, &self.values[i]) {
            (Shape::Struct(c), Value::Struct(vs)) => Rec {
                schema: self.schema,
                class: *c,
                values: vs,
            },
            other => panic!("{name} is not a struct: {other:?}"),
        }
    }

    /// An array of structs.
    fn recs(&self, name: &str) -> Vec<Rec<'g>> {
        let (i, shape) = self.index(name);
        let Shape::Array(_, elem) = shape else {
            panic!("{name} is not an array");
        };
        let Shape::Struct(c) = *elem else {
            panic!("{name} is not an array of structs");
        };
        let Value::Array(a) = &self.values[i] else {
            panic!("{name} holds no array");
        };
        a.values()
            .expect("struct elements are values")
            .iter()
            .map(|v| match v {
                Value::Struct(vs) => Rec {
                    schema: self.schema,
                    class: c,
                    values: vs,
                },
                other => panic!("not a struct: {other:?}"),
            })
            .collect()
    }
}

fn floats(v: &Value) -> Vec<f32> {
    match v {
        Value::Floats(f) => f.to_vec(),
        other => panic!("not floats: {other:?}"),
    }
}

fn items(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.to_values(),
        Value::CArray(a) => a.clone(),
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
            .filter(|r| r.verdict != Verdict::Match)
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
            rows.iter().any(|r| r.verdict != Verdict::Match),
            "{name} vs {other}"
        );
    }
}

/// A class of a documented table: name, (member, offset) pairs, size.
type TableClass = (&'static str, &'static [(&'static str, u32)], u32);

/// The hknpMeshShape tables of docs/collision-notes.md §7 (offsets stated there), against
/// the layout engine on schemas/havok-2023.2.
#[test]
fn havok_2023_layout_matches_the_2023_tables() {
    let s = hk_tests::schema("havok-2023.2");
    let mut l = Layouts::new(&s, s.generation.layout);
    let tables: &[TableClass] = &[
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
    for (class, members, size) in tables {
        let c = s.class(class).expect(class);
        let lay = l.class(class).expect(class).clone();
        assert_eq!(lay.size, *size, "{class} size");
        for (m, off) in *members {
            let i = c.members.iter().position(|x| x.name == *m).expect(m);
            assert_eq!(lay.members[i].offset, *off, "{class}.{m}");
            n += 1;
        }
    }
    println!(
        "docs/collision-notes.md §7: {n} offsets and {} sizes reproduced",
        tables.len()
    );
}

/// The box polytope against the rules for retail boxes of docs/collision-notes.md §4.
#[test]
fn box_sample_follows_the_retail_box_rules() {
    let data = sample("doom-2016_box.hkshape");
    let tf = TagFile::parse(&data).unwrap();
    let c = tf.cm.as_ref().expect("cm");
    assert_eq!(c.records, vec![Default::default()]);
    assert_eq!(tf.sdk_version, "20160200");
    // Struct values to borrow (`Rec`); arrays of primitive structs are read as columns.
    let g = tagfile::graph(&tf, &data)
        .unwrap()
        .with_struct_values()
        .into_owned();
    assert_eq!(g.class_name(g.root), "hknpConvexPolytopeShape");
    let f = Rec::object(&g, "hknpConvexPolytopeShape");
    let verts: Vec<Vec<f32>> = items(f.get("vertices")).iter().map(floats).collect();
    assert_eq!(verts.len() % 4, 0);
    for (i, v) in verts.iter().enumerate() {
        assert_eq!(v[3].to_bits(), 0x3F00_0000 | i as u32, "vertex {i} w");
    }
    let planes: Vec<Vec<f32>> = items(f.get("planes")).iter().map(floats).collect();
    // Every plane supports the hull: all vertices on or behind it, four on it.
    for p in &planes {
        let d: Vec<f32> = verts
            .iter()
            .map(|v| p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3])
            .collect();
        assert!(d.iter().all(|&x| x <= 1e-3), "{p:?}");
        assert_eq!(d.iter().filter(|x| x.abs() < 1e-3).count(), 4);
    }
    let idx: Vec<u64> = items(f.get("indices")).iter().map(uint).collect();
    let faces: Vec<(u64, u64)> = f
        .recs("faces")
        .iter()
        .map(|ff| (uint(ff.get("firstIndex")), uint(ff.get("numIndices"))))
        .collect();
    assert_eq!(faces.len(), 6);
    let conn = Rec::object(&g, "hknpConvexPolytopeShape::Connectivity");
    let edge = |e: &Rec<'_>| (uint(e.get("faceIndex")), uint(e.get("edgeIndex")));
    let links: Vec<(u64, u64)> = conn.recs("faceLinks").iter().map(edge).collect();
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
    let starts: Vec<(u64, u64)> = conn.recs("vertexEdges").iter().map(edge).collect();
    for (v, &s) in starts.iter().enumerate() {
        assert_eq!(ends(s).0, v as u64, "vertexEdges[{v}] starts at its vertex");
    }
    // Mass = 1000 × volume with 2 × radius on each edge; penetration ratio in the range
    // measured on 1762 retail boxes (docs/collision-notes.md §4).
    let r = match f.get("convexRadius") {
        Value::Real(r) => *r,
        _ => panic!(),
    };
    let ext: Vec<f32> = (0..3)
        .map(|a| verts.iter().fold(f32::MIN, |m, v| m.max(v[a])) * 2.0 + 2.0 * r)
        .collect();
    let mp = Rec::object(&g, "hknpShapeMassProperties");
    let cmp = mp.rec("compressedMassProperties");
    let (mass, volume) = match (cmp.get("mass"), cmp.get("volume")) {
        (Value::Real(m), Value::Real(v)) => (*m, *v),
        _ => panic!(),
    };
    assert!((volume - ext[0] * ext[1] * ext[2]).abs() / volume < 1e-6);
    assert!((mass - 1000.0 * volume).abs() / mass < 1e-6);
    let inertia: Vec<u64> = items(cmp.rec("inertia").get("values"))
        .iter()
        .map(uint)
        .collect();
    let biggest = inertia[..3]
        .iter()
        .map(|&x| (x as u16 as i16).unsigned_abs())
        .max()
        .unwrap();
    assert!(
        (1 << 14..1 << 15).contains(&u32::from(biggest)),
        "{inertia:?}"
    );
    let half = match f.get("maxAllowedPenetration") {
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
                assert!(e.offset().is_some(), "{what}: error without an offset: {e}");
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

/// The six SDK versions the TAG0 reader takes: a corpus file (of SDK 20150100) relabelled
/// to each reads through the front door, and round-trips under the writer rules the
/// selection rule picks (docs/schema-selection.md): the folder of that SDK version as is
/// (its objects equal, its bytes those rules' own), else the nearest folder whose rules
/// write the file back byte for byte.
#[test]
fn sdk_versions_2015_to_2023_read_and_round_trip() {
    use hk_runtime::file::{self, How};
    let Some(corpus) = hk_tests::corpus("sdk_versions_2015_to_2023") else {
        return;
    };
    let schemas = hk_tests::schema_set();
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
        let doc =
            file::open(&d, &schemas, Default::default()).unwrap_or_else(|e| panic!("{v}: {e}"));
        let out = file::write(&doc).unwrap();
        let back = TagFile::parse(&out).unwrap();
        let rules = doc.schema.name();
        assert!(
            tagfile::graph(&back, &out).unwrap() == tagfile::graph(&t, &d).unwrap(),
            "{v} under {rules}"
        );
        match doc.schema.how() {
            How::Exact => assert_eq!(
                schemas
                    .catalog()
                    .get(rules)
                    .unwrap()
                    .generation
                    .contents_version,
                v
            ),
            How::Nearest { .. } => assert_eq!(out, d, "{v} under {rules}"),
            how => panic!("{v}: {how:?}"),
        }
        println!(
            "SDKV {v}: read, written with {rules}'s rules ({}), objects equal",
            doc.schema.describe()
        );
    }
}

/// Seeded byte corruptions of each sample: parsed, decoded (the schema extracted from the
/// corrupted table) and written back, never a panic.
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
                    // Extraction, decoding and (when that reads) the round trip's writing.
                    if let Ok(g) = tagfile::graph(&tf, &bad) {
                        let _ = tagfile::write(&g, &tf, &rules);
                    }
                }
            });
            assert!(r.is_ok(), "{name}: corruption {tried} panicked");
            tried += 1;
        }
    }
    println!("{tried} corrupted samples: no panic");
}

/// An edited value that does not fit its type (five floats for a vector) is refused by the
/// graph's setter, and, put into the graph past it, by the writer, with an error that names
/// the object and member, not bytes spilled into the next member.
#[test]
fn values_that_do_not_fit_are_errors() {
    let data = sample("nso-2023_box.bphsh");
    let (tf, mut g) = tagfile::read(&data).unwrap();
    let s = hk_tests::schema("havok-2023.2");
    let root = g.root;
    let path = "vertexConversionUtil.bitScale16";
    let five = Value::Floats([1.0f32; 5].into());
    assert!(g.set(root, path, five.clone()).is_err());
    let (segs, _) = g.resolve(g.object(root).class, path).unwrap();
    *hk_runtime::graph::value_at_mut(&mut g.objects[root.0 as usize].values, &segs).unwrap() = five;
    let err = tagfile::reflect::write(&g, &s, &tf.sdk_version).unwrap_err();
    let text = err.to_string();
    println!("{text}");
    assert!(text.contains("bitScale16"), "{text}");
    assert!(err.is_write() && err.offset().is_none(), "{text}");
    // The same through the file's own table.
    let err = tagfile::write(&g, &tf, &rules("havok-2023.2")).unwrap_err();
    assert!(err.to_string().contains("bitScale16"), "{err}");
    g.set(root, path, Value::Floats([1.0f32; 4].into()))
        .unwrap();
    assert!(tagfile::reflect::write(&g, &s, &tf.sdk_version).is_ok());
}

/// A graph over a sample's generation schema (what `hk sample` and `hk build` write from)
/// rather than the schema extracted from its table: the objects of each sample moved onto
/// schemas/havok-2016 or havok-2023.2 by class and member name, written with a type table
/// from that schema, give the sample's TAG0 back byte for byte.
#[test]
fn samples_rebuild_from_a_graph_over_their_generation_schema() {
    use hk_runtime::graph::{check, Object};
    use std::sync::Arc;
    /// `v`, a value of shape `fs` in schema `from`, as a value of shape `ts` in `to`.
    fn convert(from: &Schema, to: &Schema, fs: &Shape, ts: &Shape, v: &Value) -> Value {
        match (fs, ts, v) {
            (Shape::Struct(fc), Shape::Struct(tc), Value::Struct(vs)) => {
                Value::Struct(members(from, to, *fc, *tc, vs))
            }
            (Shape::Array(_, fe), Shape::Array(_, te), Value::Array(a)) => {
                Value::Array(hk_runtime::graph::Array::Values(
                    a.to_values()
                        .iter()
                        .map(|x| convert(from, to, fe, te, x))
                        .collect(),
                ))
            }
            (Shape::CArray(_, fe), Shape::CArray(_, te), Value::CArray(xs)) => {
                Value::CArray(xs.iter().map(|x| convert(from, to, fe, te, x)).collect())
            }
            _ => v.clone(),
        }
    }
    /// The values `vs` of class `fc` of `from` in the flattened member order of class `tc` of
    /// `to`, matched by name.
    fn members(from: &Schema, to: &Schema, fc: ClassId, tc: ClassId, vs: &[Value]) -> Vec<Value> {
        let fm = from.members(fc).unwrap();
        to.members(tc)
            .unwrap()
            .iter()
            .map(|tm| {
                let name = &to.member_of(tm).name;
                let i = fm
                    .iter()
                    .position(|m| &from.member_of(m).name == name)
                    .unwrap_or_else(|| panic!("{name}"));
                convert(from, to, &fm[i].shape, &tm.shape, &vs[i])
            })
            .collect()
    }
    for (name, generation) in SAMPLES {
        let data = sample(name);
        let (tf, g) = tagfile::read(&data).unwrap();
        let gen = Arc::new(hk_tests::schema(generation));
        let n = g.objects.len();
        let objects: Vec<Object> = g
            .objects
            .iter()
            .map(|o| {
                let tc = gen.require(g.schema().name_of(o.class)).unwrap();
                let vs = members(g.schema(), &gen, o.class, tc, &o.values);
                let values = gen
                    .members(tc)
                    .unwrap()
                    .iter()
                    .zip(vs)
                    .map(|(m, v)| check::normalize(&gen, &m.shape, v, n).unwrap())
                    .collect();
                Object { class: tc, values }
            })
            .collect();
        let ours = Graph::from_objects(Arc::clone(&gen), objects, g.root);
        ours.check().unwrap();
        let tag0 = tagfile::reflect::write(&ours, &gen, &tf.sdk_version).unwrap();
        let original = &data[tf.offset as usize..(tf.offset + tf.root.size) as usize];
        assert!(tag0 == original, "{name}: TAG0 differs");
        assert!(tagfile::wrap(&tf, tag0).unwrap() == data, "{name}");
        println!("{name}: rebuilt byte for byte from a graph over {generation}");
    }
}
