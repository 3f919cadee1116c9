//! Hostile packfiles and schemas, each built in code with hk's own writer and then broken
//! where the attack needs it: duplicate virtual fixups, overlapping sections, many objects
//! over many class names, a deep parent chain, a 10 MB array, huge type expansion,
//! zero-size elements, fixups naming missing sections, and each read limit. Every read ends
//! in an error that names the limit or the broken rule and the file offset, or completes in
//! well under the time the attack used to take, within the memory bound: peak heap at most
//! 16 times the input plus 64 MiB, measured by the counting allocator.
//!
//! The same limits on tagfiles are in `tagfile_limits.rs`.

use std::sync::Arc;
use std::time::Duration;

use hk_runtime::error::{ErrorKind, ReadError};
use hk_runtime::file;
use hk_runtime::graph::{Array, Graph, Value};
use hk_runtime::limits::Limit;
use hk_runtime::packfile::{graph::read::read, graph::write::write, Packfile, PackfileInfo};
use hk_runtime::schema::{Class, Member};
use hk_runtime::types::TypeKind;
use hk_runtime::{Limits, ReadOptions, Schema};
use hk_tests::heap::{measure, measuring};
use hk_tests::hostile::put_u32;

/// The memory bound of every read: 16 times the input plus 64 MiB.
fn bound(input: usize) -> usize {
    16 * input + (64 << 20)
}

/// Parses `bytes` and reads them with `schema` and `opts`, asserting the time and memory
/// bounds.
fn read_with(
    what: &str,
    bytes: &[u8],
    schema: &Arc<Schema>,
    opts: ReadOptions,
) -> hk_runtime::Result<Graph> {
    let (r, took, peak) = measure(|| {
        let pf = Packfile::parse(bytes)?;
        read(&pf, schema, opts).map(|d| d.graph)
    });
    println!(
        "{what}: {} in {took:?}, peak heap {:.1} MiB for {:.1} MiB of input",
        match &r {
            Ok(_) => "read".to_string(),
            Err(e) => format!("refused ({e})"),
        },
        peak as f64 / (1 << 20) as f64,
        bytes.len() as f64 / (1 << 20) as f64
    );
    assert!(took < Duration::from_secs(2), "{what}: {took:?}");
    assert!(peak <= bound(bytes.len()), "{what}: peak {peak}");
    r
}

/// The limit an error reports, if it is a limit error.
fn limit_of(e: &hk_runtime::Error) -> Option<Limit> {
    match e.kind() {
        ErrorKind::Read(ReadError::Limit { limit, .. }) => Some(*limit),
        _ => None,
    }
}

fn int_member(name: &str) -> Member {
    Member {
        name: name.into(),
        ty: TypeKind::Int32,
        subtype: TypeKind::Void,
        element: TypeKind::Void,
        class: None,
        enum_ref: None,
        array_size: 0,
        flags: 0,
        expected_offset: None,
        gap_before: 0,
        line: 0,
    }
}

/// Classes `C0..Cn` of havok-7.1's generation, each with one `int32` member `m`, the
/// reflection classes beside them (what hk writes into every packfile's class names).
fn classes_schema(n: usize, chained: bool) -> Schema {
    let base = hk_tests::schema("havok-7.1");
    let mut classes: Vec<Class> = base
        .closure(&hk_runtime::packfile::metadata::REFLECTION_CLASSES)
        .unwrap()
        .into_iter()
        .cloned()
        .collect();
    classes.extend((0..n).map(|k| {
        let mut c = Class::new(format!("C{k}"));
        c.parent = (chained && k > 0).then(|| format!("C{}", k - 1));
        c.members = vec![int_member(&format!("m{k}"))];
        c
    }));
    Schema::new(base.generation.clone(), classes).unwrap()
}

/// A packfile of havok-7.1 holding `n` objects, object `k` of class `class(k)`, written by
/// hk's writer with `sections` extra empty sections after the usual three.
fn packfile(
    schema: &Arc<Schema>,
    n: usize,
    class: impl Fn(usize) -> String,
    sections: usize,
) -> Vec<u8> {
    let mut g = Graph::new(Arc::clone(schema));
    for k in 0..n {
        let id = g.add_object(&class(k)).unwrap();
        let c = g.object(id).class;
        let first = g.member_name(c, 0).unwrap();
        g.set(id, &first, Value::Int(k as i64)).unwrap();
    }
    let mut info = PackfileInfo::new(&schema.generation, schema.generation.layout);
    info.sections
        .extend((0..sections).map(|i| format!("__extra{i}__")));
    write(&g, &info).unwrap()
}

/// A million virtual fixups for one object were accepted (two objects in the graph
/// for each, and `hk build` wrote the data twice). Every record of a file of 200,000
/// objects is made a copy of the first: strict and lenient reading refuse the file at the
/// second record, at once.
#[test]
fn duplicate_virtual_fixups_are_refused() {
    let _m = measuring();
    let schema = Arc::new(classes_schema(1, false));
    let data = packfile(&schema, 200_000, |_| "C0".into(), 0);
    let pf = Packfile::parse(&data).unwrap();
    assert_eq!(pf.object_table().len(), 200_000);
    let s = pf.section("__data__").unwrap();
    let (from, count) = (s.abs(s.virtual_fixups) as usize, pf.object_table().len());
    drop(pf);
    let mut bad = data.clone();
    for k in 1..count {
        bad.copy_within(from..from + 12, from + 12 * k);
    }
    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
        let e = read_with("200,000 duplicate virtual fixups", &bad, &schema, opts).unwrap_err();
        assert!(e.to_string().contains("two virtual fixups"), "{e}");
        assert_eq!(e.offset(), Some(from as u64 + 12), "the second record: {e}");
    }
}

/// 30,000 sections over the same bytes took quadratic time (each read the same
/// tables). Sections may not share bytes: the file is refused before any table is read,
/// naming the section. The same 30,000 sections left empty (as hk writes them) read fast.
#[test]
fn overlapping_sections_are_refused_in_linear_time() {
    let _m = measuring();
    let schema = Arc::new(classes_schema(1, false));
    let n = 30_000;
    let data = packfile(&schema, 2_000, |_| "C0".into(), n);
    // The legitimate file (the extra sections are empty) reads.
    let g = read_with(
        "30,000 empty sections",
        &data,
        &schema,
        ReadOptions::strict(),
    )
    .unwrap();
    assert_eq!(g.objects.len(), 2_000);
    // Each extra section's header becomes a copy of `__data__`'s.
    let pf = Packfile::parse(&data).unwrap();
    assert_eq!(pf.sections.len(), n + 3);
    let first = pf.header.section_headers_offset() as usize;
    let size = pf.header.section_header_size() as usize;
    let data_index = pf.section("__data__").unwrap().index as usize;
    drop(pf);
    let mut bad = data.clone();
    let src = first + data_index * size;
    for i in 3..n + 3 {
        bad.copy_within(src..src + size, first + i * size);
    }
    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
        let e = read_with("30,000 overlapping sections", &bad, &schema, opts).unwrap_err();
        assert!(e.to_string().contains("overlaps section"), "{e}");
        let o = e.offset().expect("an offset");
        assert!(
            (first..first + (n + 3) * size).contains(&(o as usize)),
            "{e}"
        );
    }
}

/// 300,000 objects over 300,000 class names took 51 s (a scan of the class names
/// per object). 200,000 objects, each of its own class, now read in well under 2 s.
#[test]
fn objects_times_class_names_is_linear() {
    let _m = measuring();
    let n = 200_000;
    let schema = Arc::new(classes_schema(n, false));
    let data = packfile(&schema, n, |k| format!("C{k}"), 0);
    let pf = Packfile::parse(&data).unwrap();
    assert_eq!(pf.class_names.len(), n + 4, "a class name per object");
    let (r, took, peak) = measure(|| read(&pf, &schema, ReadOptions::strict()));
    let d = r.unwrap();
    println!(
        "{n} objects of {n} classes: read in {took:?}, peak {:.1} MiB for {:.1} MiB",
        peak as f64 / (1 << 20) as f64,
        data.len() as f64 / (1 << 20) as f64
    );
    assert_eq!(d.graph.objects.len(), n);
    assert_eq!(d.graph.class_name(hk_runtime::graph::ObjectId(7)), "C7");
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(peak <= bound(data.len()), "{peak}");
    // The stored signatures are found by name (the metadata reader asks per class).
    let (sigs, took, _) = measure(|| {
        (0..n)
            .filter(|k| pf.stored_signature(&format!("C{k}")).is_some())
            .count()
    });
    assert_eq!(sigs, n);
    assert!(took < Duration::from_secs(2), "{took:?}");
}

/// A schema folder of 1,000 classes, each the parent of the next, loaded in 1.4 s,
/// 3,000 in 30 s (cubic). 10,000 now load in well under 2 s, and the deepest class is
/// planned (10,000 flattened members) and signed without deep recursion.
#[test]
fn a_deep_parent_chain_loads_in_linear_time() {
    let _m = measuring();
    let n = 10_000;
    let dir = hk_tests::temp_dir("chain");
    classes_schema(n, true).to_folder(&dir).unwrap();
    let (s, took, _) = measure(|| Schema::load(&dir));
    let s = s.unwrap();
    println!("{n} chained classes: loaded in {took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let last = s.class_id(&format!("C{}", n - 1)).unwrap();
    let (plan, took, _) = measure(|| s.plan(last, s.generation.layout));
    let plan = plan.unwrap();
    assert_eq!(plan.members.len(), n);
    assert_eq!(plan.members[n - 1].offset, 4 * (n as u32 - 1));
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(s.signature_of(last).is_ok());
    assert_eq!(s.values_of(last).unwrap(), n as u64);
    // Two loops of 5,000: every class on one is reported, none overflows the stack.
    let mut looped = classes_schema(n, true).classes().to_vec();
    let c0 = looped.iter().position(|c| c.name == "C0").unwrap();
    looped[c0].parent = Some(format!("C{}", n / 2 - 1));
    let c5000 = looped
        .iter()
        .position(|c| c.name == format!("C{}", n / 2))
        .unwrap();
    looped[c5000].parent = Some(format!("C{}", n - 1));
    let base = hk_tests::schema("havok-7.1").generation.clone();
    let (r, took, _) = measure(|| Schema::new(base.clone(), looped));
    let d = r.unwrap_err();
    assert_eq!(
        d.0.iter()
            .filter(|d| d.message.contains("parent cycle"))
            .count(),
        n
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
    // 100 classes each holding the next by value: past the nesting bound, refused by
    // validation instead of recursing 100 deep in the layout engine.
    let mut nested = classes_schema(100, false).classes().to_vec();
    for c in nested.iter_mut().filter(|c| c.name.starts_with('C')) {
        let k: usize = c.name[1..].parse().unwrap();
        if k < 99 {
            let mut m = int_member("next");
            m.ty = TypeKind::Struct;
            m.class = Some(format!("C{}", k + 1));
            c.members.push(m);
        }
    }
    let d = Schema::new(base, nested).unwrap_err();
    assert!(d.to_string().contains("more than 64 levels deep"), "{d}");
}

/// A legitimate 10 MB packfile (an hkaSkeleton whose
/// `parentIndices` holds 5,000,000 int16) read into the graph peaks at most at 4 times the
/// input (the input itself included).
#[test]
fn a_10mb_int16_array_reads_within_4x_the_input() {
    let _m = measuring();
    let schema = Arc::new(hk_tests::schema("havok-7.1"));
    let mut g = Graph::new(Arc::clone(&schema));
    let s = g.add_object("hkaSkeleton").unwrap();
    let n = 5_000_000;
    let values: Vec<i16> = (0..n).map(|k| (k % 30_000) as i16 - 15_000).collect();
    g.set(s, "parentIndices", Value::Array(Array::I16(values)))
        .unwrap();
    let data = write(
        &g,
        &PackfileInfo::new(&schema.generation, schema.generation.layout),
    )
    .unwrap();
    drop(g);
    assert!(data.len() >= 10_000_000, "{}", data.len());
    let schemas = hk_tests::schema_set();
    // Load the generation first: the schema folder is not part of the read.
    let (_, took, _) = measure(|| file::open(&data, &schemas, ReadOptions::strict()).unwrap());
    println!("first read (schema loaded): {took:?}");
    let (doc, took, peak) = measure(|| file::open(&data, &schemas, ReadOptions::strict()));
    let doc = doc.unwrap();
    let with_input = peak + data.len();
    println!(
        "10 MB int16 array: read in {took:?}, peak heap {:.1} MiB beyond the input, {:.2}x the \
         input counting it",
        peak as f64 / (1 << 20) as f64,
        with_input as f64 / data.len() as f64
    );
    assert!(
        with_input <= 4 * data.len(),
        "{with_input} for {}",
        data.len()
    );
    let back = doc.graph.get(s, "parentIndices").unwrap();
    assert_eq!(back.as_array().map(Array::len), Some(n));
}

/// Every limit is a typed error naming the limit, with the file offset where it was met,
/// for a packfile (the corpus's first havok-7.1 skeleton-bearing file) read through the
/// front door; lifting the limit reads the file.
#[test]
fn every_limit_names_itself_and_the_offset() {
    let Some(corpus) = hk_tests::corpus("every_limit_names_itself") else {
        return;
    };
    let _m = measuring();
    let schemas = hk_tests::schema_set();
    let data = hk_tests::read(&corpus.join("packfile/havoklib-710/animref[4011].hkx"));
    let doc = file::open(&data, &schemas, ReadOptions::strict()).unwrap();
    let objects = doc.graph.objects.len() as u64;
    let cases = [
        (
            Limits::default().with_max_objects(objects - 1),
            Limit::Objects,
        ),
        (Limits::default().with_max_memory(Some(4096)), Limit::Memory),
        (Limits::default().with_max_depth(1), Limit::Depth),
        (Limits::default().with_max_expansion(3), Limit::Expansion),
    ];
    for (limits, want) in cases {
        let opts = ReadOptions::strict().with_limits(limits);
        let e = file::open(&data, &schemas, opts).expect_err("over the limit");
        assert_eq!(limit_of(&e), Some(want), "{e}");
        assert!(e.offset().is_some(), "{e}");
        assert!(e.to_string().contains(want.name()), "{e}");
        println!("{want}: {e}");
    }
    // A memory limit large enough reads it.
    let opts = ReadOptions::strict().with_limits(Limits::default().with_max_memory(Some(16 << 20)));
    assert!(file::open(&data, &schemas, opts).is_ok());
}

/// A class whose members are C arrays of `void` holds millions of values in a few bytes
/// (a file's own class metadata may describe one): the expansion limit refuses the object
/// before reading it, and with that limit raised the memory limit refuses it, at the
/// object's offset.
#[test]
fn huge_type_expansion_is_refused_before_reading() {
    let _m = measuring();
    let plain = Arc::new(classes_schema(1, false));
    let data = packfile(&plain, 1, |_| "C0".into(), 0);
    // The same class read with 100 members of `void[65535]` after its int (no bytes).
    let mut classes = plain.classes().to_vec();
    let c0 = classes.iter_mut().find(|c| c.name == "C0").unwrap();
    for k in 0..100 {
        let mut m = int_member(&format!("v{k}"));
        m.ty = TypeKind::Void;
        m.array_size = 65535;
        c0.members.push(m);
    }
    let wide = Arc::new(Schema::new(plain.generation.clone(), classes).unwrap());
    let c = wide.class_id("C0").unwrap();
    assert_eq!(wide.plan(c, wide.generation.layout).unwrap().size, 4);
    let values = wide.values_of(c).unwrap();
    assert_eq!(values, 1 + 100 * 65536);
    let pf = Packfile::parse(&data).unwrap();
    let object = pf.abs(pf.object_table()[0].0);
    let (r, took, peak) = measure(|| read(&pf, &wide, ReadOptions::strict()));
    let e = r.unwrap_err();
    assert_eq!(limit_of(&e), Some(Limit::Expansion), "{e}");
    assert_eq!(e.offset(), Some(object), "{e}");
    assert!(
        took < Duration::from_millis(500) && peak < 1 << 20,
        "{took:?} {peak}"
    );
    let limits = Limits::default().with_max_expansion(u64::MAX);
    let (r, _, peak) = measure(|| read(&pf, &wide, ReadOptions::strict().with_limits(limits)));
    let e = r.unwrap_err();
    assert_eq!(limit_of(&e), Some(Limit::Memory), "{e}");
    assert_eq!(e.offset(), Some(object), "{e}");
    assert!(peak < 1 << 20, "{peak}");
    println!("{e}");
}

/// Zero-size elements: a count as large as the bytes left passes the count check (each
/// element counting one byte), and the values it would make are charged before they are
/// allocated: refused by the memory limit at the array's header.
#[test]
fn zero_size_elements_are_charged_before_allocating() {
    let _m = measuring();
    let base = hk_tests::schema("havok-7.1");
    let mut classes: Vec<Class> = base
        .closure(&hk_runtime::packfile::metadata::REFLECTION_CLASSES)
        .unwrap()
        .into_iter()
        .cloned()
        .collect();
    let mut c = Class::new("Holder");
    let mut voids = int_member("voids");
    voids.ty = TypeKind::Array;
    voids.subtype = TypeKind::Void;
    let mut bytes = int_member("bytes");
    bytes.ty = TypeKind::Array;
    bytes.subtype = TypeKind::UInt8;
    c.members = vec![voids, bytes];
    classes.push(c);
    let schema = Arc::new(Schema::new(base.generation.clone(), classes).unwrap());
    // Two void elements (a data pointer to a zero-length block), then 4 MiB of bytes.
    let mut g = Graph::new(Arc::clone(&schema));
    let h = g.add_object("Holder").unwrap();
    g.set(
        h,
        "voids",
        Value::Array(Array::Values(vec![Value::None; 2])),
    )
    .unwrap();
    g.set(h, "bytes", Value::Array(Array::U8(vec![0; 4 << 20])))
        .unwrap();
    let info = PackfileInfo::new(&schema.generation, schema.generation.layout);
    let data = write(&g, &info).unwrap();
    let pf = Packfile::parse(&data).unwrap();
    let e = pf.rules().endian;
    let p = pf.rules().ptr() as usize;
    let body = pf.abs(pf.object_table()[0].0) as usize;
    drop(pf);
    // The count of `voids` (after its data pointer) and its capacity word.
    let count = 4 << 20;
    let mut bad = data.clone();
    put_u32(&mut bad, body + p, count, e);
    put_u32(&mut bad, body + p + 4, count | 0x8000_0000, e);
    let pf = Packfile::parse(&bad).unwrap();
    let (r, took, peak) = measure(|| read(&pf, &schema, ReadOptions::strict()));
    let err = r.unwrap_err();
    println!("{count} void elements: {err} ({took:?}, peak {peak})");
    assert_eq!(limit_of(&err), Some(Limit::Memory), "{err}");
    assert_eq!(err.offset(), Some(body as u64), "{err}");
    assert!(peak <= bound(bad.len()), "{peak}");
}

/// Strict reading refuses a virtual fixup whose class-name section is not the file's, or
/// whose class-name offset lies past the class-name data, and a global fixup naming a
/// section the file lacks: each error gives the offset of the fixup's word.
#[test]
fn fixups_naming_missing_sections_or_names_are_refused_with_their_offset() {
    let _m = measuring();
    let schema = Arc::new(classes_schema(1, false));
    let data = packfile(&schema, 3, |_| "C0".into(), 0);
    let pf = Packfile::parse(&data).unwrap();
    let e = pf.rules().endian;
    let s = pf.section("__data__").unwrap();
    let v = s.abs(s.virtual_fixups) as usize;
    let names = &pf.sections[pf.header.class_names_section as usize];
    let past = names.local_fixups + 0x40;
    let sections = pf.sections.len() as u32;
    drop(pf);
    let cases: [(&str, usize, u32, &str); 3] = [
        ("class-name section 7", v + 4, 7, "names section 7"),
        ("class-name section 2", v + 4, 2, "names section 2"),
        (
            "class-name offset past",
            v + 8,
            past,
            "past the class-name data",
        ),
    ];
    for (what, at, word, expect) in cases {
        let mut bad = data.clone();
        put_u32(&mut bad, at, word, e);
        let err = Packfile::parse(&bad).unwrap_err();
        assert!(err.to_string().contains(expect), "{what}: {err}");
        assert_eq!(err.offset(), Some(at as u64), "{what}: {err}");
    }
    // A global fixup naming a section past the table: write a file with one, through an
    // object pointing into another section, then point it past the section table.
    let mut g = Graph::new(Arc::new(hk_tests::schema("havok-7.1")));
    let root = g.add_object("hkRootLevelContainer").unwrap();
    let sk = g.add_object("hkaSkeleton").unwrap();
    g.set(
        root,
        "namedVariants",
        Value::Array(Array::Values(vec![Value::Struct(vec![
            Value::String(Some("a".into())),
            Value::String(Some("hkaSkeleton".into())),
            Value::Pointer(Some(hk_runtime::graph::Ptr::Object(sk))),
        ])])),
    )
    .unwrap();
    let schema = Arc::clone(g.schema());
    let mut info = PackfileInfo::new(&schema.generation, schema.generation.layout);
    info.sections.push("__more__".into());
    info.object_sections = vec![2, 3];
    let data = write(&g, &info).unwrap();
    let pf = Packfile::parse(&data).unwrap();
    let s = pf.section("__data__").unwrap();
    let global = s.abs(s.global_fixups) as usize;
    assert!(global < s.abs(s.virtual_fixups) as usize, "a global fixup");
    drop(pf);
    let mut bad = data.clone();
    put_u32(&mut bad, global + 4, sections + 10, e);
    let err = Packfile::parse(&bad).unwrap_err();
    assert!(
        err.to_string().contains("global fixup names section"),
        "{err}"
    );
    assert_eq!(err.offset(), Some(global as u64 + 4), "{err}");
}
