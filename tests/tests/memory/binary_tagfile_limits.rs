//! Hostile old binary tagfiles, each built in code: the valid ones written by hk's own
//! binary tagfile encoder from class definitions made here, the ones no schema holds (a
//! member declared twice, more members than a schema numbers, parent chains too long) by a
//! small stream builder. Each reads in linear time or is refused at once with the offset
//! and a specific error; the schema made of the definitions is charged to the memory budget
//! before it is made, so no read takes more heap than `--max-memory` allows (measured by a
//! counting allocator).

use std::sync::Arc;
use std::time::{Duration, Instant};

use hk_runtime::error::{ErrorKind, Limit, ReadError};
use hk_runtime::file;
use hk_runtime::graph::{default_values, Array, Floats, Graph, Object, ObjectId, Value};
use hk_runtime::schema::{names, ClassId};
use hk_runtime::tagfile::binary::{self, defs::Base, BinaryTagfile, ClassDef, MemberDef, TypeCode};
use hk_runtime::{Limits, ReadOptions};
use hk_tests::heap::{measure, measuring};

use hk_tests::hostile::varint;

/// Reads that the old reader took from 13 s to minutes over finish well inside this, on a
/// loaded machine.
const FAST: Duration = Duration::from_secs(8);

/// The most members a class may declare: a schema numbers a class's members in 16 bits.
const MOST: usize = 65_535;

fn ty(base: Base) -> TypeCode {
    TypeCode {
        base,
        array: false,
        tuple: 0,
    }
}

fn member(name: &str, base: Base, class: Option<&str>) -> MemberDef {
    MemberDef {
        name: name.into(),
        ty: ty(base),
        class: class.map(str::to_string),
    }
}

/// An array (`tuple` 0) or a tuple of `tuple` items.
fn many(name: &str, base: Base, tuple: u32, class: Option<&str>) -> MemberDef {
    MemberDef {
        ty: TypeCode {
            base,
            array: tuple == 0,
            tuple,
        },
        ..member(name, base, class)
    }
}

fn class(name: &str, parent: u32, members: Vec<MemberDef>) -> ClassDef {
    ClassDef {
        name: name.into(),
        version: 0,
        parent,
        members,
    }
}

/// A version 4 file (version 3 without `sdk`) of `classes` and one object of each
/// definition `objects` names, every member at its zero value, written by hk's encoder.
fn encoded(sdk: Option<&str>, classes: Vec<ClassDef>, objects: &[usize]) -> Vec<u8> {
    encoded_with(sdk, classes, &[], objects, |_| {})
}

/// [`encoded`] with integer widths (by definition and member) and the first object's
/// values set by `set`.
fn encoded_with(
    sdk: Option<&str>,
    classes: Vec<ClassDef>,
    widths: &[((usize, usize), u8)],
    objects: &[usize],
    set: impl Fn(&mut Vec<Value>),
) -> Vec<u8> {
    let file = BinaryTagfile {
        version: if sdk.is_some() { 4 } else { 3 },
        sdk: sdk.map(str::to_string),
        predicates: None,
        classes,
        int_widths: widths.iter().copied().collect(),
        strings: 0,
        trailing: Vec::new(),
    };
    let schema = binary::schema::extract(&[&file], "hostile").expect("a schema");
    let objects = objects
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            let class = ClassId(d as u32);
            let mut values = default_values(&schema, class).expect("zero values");
            if k == 0 {
                set(&mut values);
            }
            Object { class, values }
        })
        .collect();
    let graph = Graph::from_objects(Arc::new(schema), objects, ObjectId(0));
    binary::write(&graph, &file).expect("written")
}

/// Streams no schema holds, built record by record; each string is written once and
/// referenced after, as Havok's writer does.
struct Stream {
    out: Vec<u8>,
    strings: std::collections::HashMap<String, i64>,
}

impl Stream {
    /// Version 3 file information.
    fn new() -> Self {
        let mut s = Stream {
            out: binary::MAGIC.to_vec(),
            strings: Default::default(),
        };
        s.int(binary::defs::tag::FILE_INFO);
        s.int(3);
        s
    }

    fn int(&mut self, v: i64) {
        self.out.extend(varint(v));
    }

    fn string(&mut self, s: &str) {
        if let Some(&i) = self.strings.get(s) {
            return self.int(-i);
        }
        self.strings.insert(s.into(), self.strings.len() as i64 + 2);
        self.int(s.len() as i64);
        self.out.extend(s.as_bytes());
    }

    /// A class definition of integer members: the offsets of its parent number and of
    /// each member.
    fn class(&mut self, name: &str, parent: i64, members: &[String]) -> (usize, Vec<usize>) {
        self.int(binary::defs::tag::METADATA);
        self.string(name);
        self.int(0);
        let parent_at = self.out.len();
        self.int(parent);
        self.int(members.len() as i64);
        let mut at = Vec::with_capacity(members.len());
        for m in members {
            at.push(self.out.len());
            self.string(m);
            self.int(ty(Base::Int).code());
        }
        (parent_at, at)
    }

    /// An object of definition `def` (1-based) whose `members` are all left out, and the
    /// end tag.
    fn object(&mut self, def: i64, members: usize) {
        self.int(binary::defs::tag::OBJECT_REMEMBER);
        self.int(def);
        self.out.extend(vec![0u8; members.div_ceil(8)]);
    }

    fn end(mut self) -> Vec<u8> {
        self.int(binary::defs::tag::FILE_END);
        self.out
    }
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("m{i}")).collect()
}

fn limit_of(e: &hk_runtime::Error) -> Option<Limit> {
    match e.kind() {
        ErrorKind::Read(ReadError::Limit { limit, .. }) => Some(*limit),
        _ => None,
    }
}

/// The front door's read of `data` within `opts`, with a schema cache of its own (so the
/// schema is made, not found), timed and its peak heap measured.
fn open(data: &[u8], opts: ReadOptions) -> (hk_runtime::Result<file::Document>, Duration, usize) {
    let schemas = hk_tests::schema_set();
    measure(|| file::open(data, &schemas, opts))
}

/// What the default limits let a read of `data` take.
fn default_limit(data: &[u8]) -> usize {
    16 * data.len() + (64 << 20)
}

#[test]
fn classes_of_the_most_members_a_schema_numbers_read_in_linear_time() {
    let _m = measuring();
    // Four classes of 65,535 members (the names written once, then referenced). The old
    // reader compared each member name with every one before it in its class: 8 to 15 s
    // per class.
    let classes = (0..4)
        .map(|c| {
            let members = names(MOST)
                .iter()
                .map(|n| member(n, Base::Int, None))
                .collect();
            class(&format!("A{c}"), 0, members)
        })
        .collect();
    let data = encoded(None, classes, &[3]);
    let within = Limits::default().with_max_memory(Some(1 << 30));
    let (doc, took, peak) = open(&data, ReadOptions::strict().with_limits(within));
    let doc = doc.expect("read");
    println!("4 x 65,535 members: read in {took:?}, peak heap {peak} bytes");
    assert!(took < FAST, "{took:?}");
    assert_eq!(doc.graph.objects[0].values.len(), MOST);
    assert_eq!(file::write(&doc).unwrap(), data);

    // The same, with the last class's last name declared again: refused where it is.
    let mut declared = names(MOST);
    let mut s = Stream::new();
    for c in 0..3 {
        s.class(&format!("A{c}"), 0, &declared);
    }
    *declared.last_mut().unwrap() = "m7".into();
    let (_, at) = s.class("A3", 0, &declared);
    s.object(4, declared.len());
    let bad = s.end();
    let started = Instant::now();
    let e = binary::read(&bad, ReadOptions::strict()).expect_err("a member declared twice");
    assert!(started.elapsed() < FAST, "{:?}", started.elapsed());
    assert!(e.to_string().contains("member m7 is declared twice"), "{e}");
    assert!(e.to_string().contains("class A3"), "{e}");
    assert_eq!(e.offset(), at.last().map(|&a| a as u64), "{e}");
}

#[test]
fn more_members_than_a_schema_numbers_are_refused_at_the_count() {
    let _m = measuring();
    // The old reader spent minutes comparing the names of these.
    let mut s = Stream::new();
    s.class("A", 0, &names(200_000));
    s.object(1, 200_000);
    let bad = s.end();
    // After the magic, the file information, the tag, the name, the version and the parent.
    let count_at = 8 + 2 + 1 + 2 + 1 + 1;
    let started = Instant::now();
    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
        let e = binary::read(&bad, opts).expect_err("200,000 members");
        assert!(
            e.to_string()
                .contains("member count 200000: a class declares at most 65535 members"),
            "{e}"
        );
        assert!(e.to_string().contains("class A"), "{e}");
        assert_eq!(e.offset(), Some(count_at), "{e}");
    }
    assert!(started.elapsed() < FAST, "{:?}", started.elapsed());
}

#[test]
fn two_hundred_thousand_classes_read_in_linear_time() {
    let _m = measuring();
    let classes = (0..200_000).map(|i| class(&format!("C{i}"), 0, Vec::new()));
    let data = encoded(None, classes.collect(), &[0]);
    // The old reader reset a per-class table after every definition: 24 s for these. Their
    // schema takes more than the default limit, which refuses them before it is made.
    let (r, took, peak) = open(&data, ReadOptions::strict());
    let e = r.expect_err("past the memory limit");
    println!("200,000 classes, default limits: refused in {took:?}, peak {peak} bytes: {e}");
    assert_eq!(limit_of(&e), Some(Limit::Memory), "{e}");
    assert!(took < FAST, "{took:?}");
    assert!(peak <= default_limit(&data), "{peak}");
    let within = Limits::default().with_max_memory(Some(1 << 30));
    let (r, took, peak) = open(&data, ReadOptions::strict().with_limits(within));
    let doc = r.expect("read within 1 GiB");
    println!("200,000 classes, 1 GiB: read in {took:?}, peak {peak} bytes");
    assert!(took < FAST, "{took:?}");
    assert_eq!(doc.graph.schema().classes().len(), 200_000);
    assert_eq!(file::write(&doc).unwrap(), data);
}

#[test]
fn the_schema_of_many_classes_is_charged_before_it_is_made() {
    let _m = measuring();
    // 100,000 classes took 155 MB against an 82 MB limit: the schema was not charged.
    let classes = (0..100_000).map(|i| class(&format!("C{i}"), 0, Vec::new()));
    let data = encoded(None, classes.collect(), &[0]);
    for lenient in [false, true] {
        let (r, took, peak) = open(&data, ReadOptions::strict().with_lenient(lenient));
        let e = r.expect_err("past the memory limit");
        println!("100,000 classes: refused in {took:?}, peak {peak} bytes: {e}");
        assert_eq!(limit_of(&e), Some(Limit::Memory), "{e}");
        assert!(peak <= default_limit(&data), "{peak}");
        assert!(
            e.to_string()
                .contains("the schema of 100000 class definitions"),
            "{e}"
        );
        // Where the stream ends: the schema is made after it.
        assert_eq!(e.offset(), Some(data.len() as u64 - 1), "{e}");
    }
}

/// Files whose schema repeats what the stream holds once: a long SDK string in every
/// class's provenance note, a long parent name in every child, a long class name or
/// member name referenced by many members, many small classes, a chain of 256 classes with
/// an object of each.
fn schema_heavy() -> Vec<(&'static str, Vec<u8>)> {
    // Long names within their rules: a class name up to `MAX_CLASS_NAME` bytes, a member
    // name up to `MAX_NAME`, an SDK string short enough that the generation name made of
    // it (`binary-tagfile-SDK`) stays within `MAX_NAME`.
    let long = |c: char| {
        let n = match c {
            'P' | 'X' => names::MAX_CLASS_NAME,
            'S' => names::MAX_NAME - "binary-tagfile-".len(),
            _ => names::MAX_NAME,
        };
        c.to_string().repeat(n)
    };
    let empty = |n: usize, parent: u32| {
        (0..n)
            .map(move |i| class(&format!("C{i}"), parent, Vec::new()))
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    out.push(("long SDK", encoded(Some(&long('S')), empty(2000, 0), &[0])));
    let mut classes = vec![class(&long('P'), 0, Vec::new())];
    classes.extend(empty(2000, 1));
    out.push(("long parent", encoded(None, classes, &[1])));
    let pointers = (0..2000)
        .map(|i| member(&format!("p{i}"), Base::Object, Some(&long('X'))))
        .collect();
    let classes = vec![class(&long('X'), 0, Vec::new()), class("A", 0, pointers)];
    out.push(("long class names", encoded(None, classes, &[1])));
    let classes = (0..2000)
        .map(|i| {
            class(
                &format!("C{i}"),
                0,
                vec![member(&long('Y'), Base::Int, None)],
            )
        })
        .collect();
    out.push(("long member names", encoded(None, classes, &[0])));
    let ten: Vec<MemberDef> = names(10)
        .iter()
        .map(|n| member(n, Base::Int, None))
        .collect();
    let classes = (0..2000)
        .map(|i| class(&format!("C{i}"), 0, ten.clone()))
        .collect();
    out.push(("classes of ten members", encoded(None, classes, &[0])));
    out.push(("empty classes", encoded(None, empty(20_000, 0), &[0])));
    let classes = (0..256u32)
        .map(|i| {
            let members = names(40)
                .iter()
                .map(|n| member(&format!("{n}_{i}"), Base::Int, None))
                .collect();
            class(&format!("C{i}"), i, members)
        })
        .collect();
    let each: Vec<usize> = (0..256).collect();
    out.push(("a chain of 256 classes", encoded(None, classes, &each)));
    out
}

/// Files whose values take more than one allocation each, or are read into one column and
/// kept in another: 4- and 8-byte integer arrays, real arrays, tuples and struct columns
/// of matrices, classes of 8-float vectors and of matrices.
fn value_heavy() -> Vec<(&'static str, Vec<u8>)> {
    let one = |m: MemberDef| vec![class("A", 0, vec![m])];
    let set = |v: Value| move |vs: &mut Vec<Value>| vs[0] = v.clone();
    let n = 1 << 18;
    let mut out = Vec::new();
    for (what, width, array) in [
        ("4-byte integers", 4, Array::I32(vec![7; n])),
        ("8-byte integers", 8, Array::I64(vec![7; n])),
    ] {
        let classes = one(many("a", Base::Int, 0, None));
        let widths = [((0, 0), width)];
        let data = encoded_with(None, classes, &widths, &[0], set(Value::Array(array)));
        out.push((what, data));
    }
    let reals = set(Value::Array(Array::Real(vec![1.5; n])));
    let data = encoded_with(None, one(many("a", Base::Real, 0, None)), &[], &[0], reals);
    out.push(("reals", data));
    let matrix = || Value::Floats(Floats::from([2.0f32; 16]));
    let tuple = set(Value::CArray(vec![matrix(); 16_000]));
    let data = encoded_with(
        None,
        one(many("t", Base::Vec16, 16_000, None)),
        &[],
        &[0],
        tuple,
    );
    out.push(("a tuple of matrices", data));
    let rows = Array::Values(vec![Value::Struct(vec![matrix()]); 16_000]);
    let classes = vec![
        class("S", 0, vec![member("m", Base::Vec16, None)]),
        class("A", 0, vec![many("a", Base::Struct, 0, Some("S"))]),
    ];
    let data = encoded_with(None, classes, &[], &[1], set(Value::Array(rows)));
    out.push(("a struct column of matrices", data));
    for (what, base) in [("8-float vectors", Base::Vec8), ("matrices", Base::Vec16)] {
        let members = names(4000).iter().map(|n| member(n, base, None)).collect();
        out.push((what, encoded(None, vec![class("A", 0, members)], &[0])));
    }
    out
}

#[test]
fn no_read_takes_more_heap_than_it_charges() {
    let _m = measuring();
    let unlimited = Limits::default().with_max_memory(Some(u64::MAX));
    let mut over = Vec::new();
    for (what, data) in schema_heavy().into_iter().chain(value_heavy()) {
        let (r, _, peak) = open(&data, ReadOptions::strict().with_limits(unlimited));
        r.unwrap_or_else(|e| panic!("{what}: {e}"));
        // Allowed one byte less than it takes, the read must stop before it takes it.
        let below = Limits::default().with_max_memory(Some(peak as u64 - 1));
        let (r, _, under) = open(&data, ReadOptions::strict().with_limits(below));
        println!("{what}: {} bytes, peak heap {peak}", data.len());
        match r {
            Ok(_) => over.push(format!("{what}: read within {} bytes", peak - 1)),
            Err(e) => {
                assert_eq!(limit_of(&e), Some(Limit::Memory), "{what}: {e}");
                assert!(under < peak, "{what}: {under} of {peak}");
            }
        }
    }
    assert!(over.is_empty(), "{over:#?}");
}

#[test]
fn parent_chains_longer_than_the_schema_follows_are_refused_where_they_are_defined() {
    let _m = measuring();
    // 100,000 classes, each the parent of the next, and an object of each: the old reader
    // walked each object's chain of ancestors, past 60 s.
    let mut s = Stream::new();
    let mut parent_at = Vec::new();
    for i in 0..100_000 {
        parent_at.push(s.class(&format!("C{i}"), i, &[]).0);
    }
    for i in 0..100_000 {
        s.object(i + 1, 0);
    }
    let bad = s.end();
    let started = Instant::now();
    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
        let e = binary::read(&bad, opts).expect_err("a chain of 100,000 classes");
        // C257 has 257 ancestors.
        assert!(
            e.to_string()
                .contains("a chain of parents longer than 256 classes"),
            "{e}"
        );
        assert!(e.to_string().contains("class C257"), "{e}");
        assert_eq!(e.offset(), Some(parent_at[257] as u64), "{e}");
    }
    assert!(started.elapsed() < FAST, "{:?}", started.elapsed());
    // 256 ancestors are allowed.
    let mut s = Stream::new();
    for i in 0..257 {
        s.class(&format!("C{i}"), i, &[]);
    }
    s.object(257, 0);
    binary::read(&s.end(), ReadOptions::strict()).expect("a chain of 257 classes");
}
