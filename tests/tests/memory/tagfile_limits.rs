//! Hostile tagfiles (zero-size elements with a huge count, exponential type expansion, a
//! type-name count past the file, wide records, many subtypes, multiplying template
//! names), each built in code from a corpus file through
//! hk's own type-table writer and varint encoder, read through the front door with the
//! default limits: each ends in an error naming the broken rule or the limit, with the file
//! offset, in well under a second, and the read's peak heap stays within 16 times the input
//! plus 64 MiB (measured by a counting allocator).

use std::time::{Duration, Instant};

use hk_runtime::error::{ErrorKind, ReadError};
use hk_runtime::file;
use hk_runtime::limits::Limit;
use hk_runtime::tagfile::types::{Body, TagMember, TagType};
use hk_runtime::tagfile::{varint, Section, TagFile};
use hk_runtime::{Limits, ReadOptions};
use hk_tests::heap::{measure, measuring};

use hk_tests::tagfile_edit::{set_item, with_types, zero_size_huge_count};

const SKELETON: &str = "games/dark-souls-remastered/c2240_skeleton.hkx";

/// Reads `bad` through the front door with the default limits, expecting an error; checks
/// the time and memory bounds and that the error has an offset.
fn refused(what: &str, bad: &[u8]) -> hk_runtime::Error {
    let schemas = hk_tests::schema_set();
    let (r, took, peak) = measure(|| file::open(bad, &schemas, ReadOptions::strict()));
    let e = match r {
        Ok(_) => panic!("{what}: read"),
        Err(e) => e,
    };
    println!(
        "{what}: refused in {took:?}, peak heap {:.1} MiB for {:.1} MiB: {e}",
        peak as f64 / (1 << 20) as f64,
        bad.len() as f64 / (1 << 20) as f64
    );
    assert!(took < Duration::from_secs(1), "{what}: {took:?}");
    assert!(peak <= 16 * bad.len() + (64 << 20), "{what}: peak {peak}");
    assert!(e.offset().is_some(), "{what}: {e}");
    e
}

/// A bare tagfile `data` (parsed as `tf`) with the payload of the section at `path` (from
/// TAG0) replaced by `payload`, every enclosing section's size fixed.
fn with_payload(data: &[u8], tf: &TagFile, path: &[&[u8; 4]], payload: &[u8]) -> Vec<u8> {
    assert_eq!(tf.offset, 0, "a bare tagfile");
    let mut chain: Vec<&Section> = vec![&tf.root];
    for t in path {
        let s = chain.last().unwrap().child(t).unwrap();
        chain.push(s);
    }
    let target = chain.last().unwrap();
    let (o, n) = target.payload();
    let mut out = [&data[..o as usize], payload, &data[(o + n) as usize..]].concat();
    let grow = payload.len() as i64 - n as i64;
    for s in chain {
        let at = s.offset as usize;
        let w = u32::from_be_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
        let size = ((w & 0x3FFF_FFFF) as i64 + grow) as u32;
        out[at..at + 4].copy_from_slice(&((w & 0xC000_0000) | size).to_be_bytes());
    }
    out
}

/// A type of size 0 used by an ITEM of count 0xFFFFFFFF made `hk info` allocate
/// more than 4 GiB. Zero-size elements count one byte each against the bytes left: a count
/// error before anything is allocated.
#[test]
fn zero_size_elements_with_a_huge_count_are_refused() {
    let Some(corpus) = hk_tests::corpus("item1_zero_size_elements") else {
        return;
    };
    let _m = measuring();
    let data = hk_tests::read(&corpus.join(SKELETON));
    let tf = TagFile::parse(&data).unwrap();
    let (bad, _, item_at) = zero_size_huge_count(&data, &tf);
    let e = refused("0xFFFFFFFF zero-size elements", &bad);
    match e.kind() {
        ErrorKind::Read(ReadError::Count { count, size, .. }) => {
            assert_eq!((*count, *size), (0xFFFF_FFFF, 0), "{e}");
        }
        other => panic!("not a count error: {other:?} ({e})"),
    }
    assert_eq!(e.offset(), Some(item_at), "{e}");
}

/// Five record types, each with 64 members of the next at offset 0, made a 17 KB
/// file expand into 64^5 values. Members of a record may not overlap (and each takes a
/// byte), so the table is refused before any value is read.
#[test]
fn exponential_type_expansion_is_refused() {
    let Some(corpus) = hk_tests::corpus("item2_exponential_type_expansion") else {
        return;
    };
    let _m = measuring();
    let data = hk_tests::read(&corpus.join(SKELETON));
    let tf = TagFile::parse(&data).unwrap();
    let int = tf
        .types
        .types
        .iter()
        .position(|t| t.name == "int")
        .expect("int") as u64;
    let mut types = tf.types.as_ref().clone();
    let first = types.types.len() as u64;
    for k in 0..5 {
        let next = if k == 4 { int } else { first + k + 1 };
        types.types.push(TagType {
            name: format!("Z{}", k + 1),
            body: Some(Body {
                format: Some(7),
                size_align: Some((16, 8)),
                members: Some(
                    (0..64)
                        .map(|m| TagMember {
                            name: format!("m{m}"),
                            flags: 0x20,
                            extra: None,
                            offset: 0,
                            ty: next,
                        })
                        .collect(),
                ),
                ..Body::default()
            }),
            ..TagType::default()
        });
        types.body_order.push(first + k);
    }
    let bad = with_types(&data, &tf, &types);
    let back = TagFile::parse(&bad).unwrap();
    // The root object becomes a Z1.
    let bad = set_item(&bad, &back, 1, |w| {
        w[0] = (w[0] & 0xFF00_0000) | first as u32
    });
    let e = refused("5 levels of 64 members at offset 0", &bad);
    assert!(e.to_string().contains("overlap"), "{e}");
}

/// A type-name section holding `varint(n)` and then zeros made an 8 MB file take
/// 1.87 GB: the count fits the bytes left (each entry takes two bytes), and the types were
/// allocated before anything checked what they cost. The types are charged against the
/// memory limit first: refused at the count, with almost nothing allocated.
#[test]
fn a_type_name_count_is_charged_before_allocating() {
    let Some(corpus) = hk_tests::corpus("item3_type_name_count") else {
        return;
    };
    let _m = measuring();
    let data = hk_tests::read(&corpus.join(SKELETON));
    let tf = TagFile::parse(&data).unwrap();
    let ty = tf.root.child(b"TYPE").unwrap();
    let tag = [b"TNAM", b"TNA1"]
        .into_iter()
        .find(|t| ty.child(t).is_some())
        .expect("a type-name section");
    let n: u64 = 4_000_000;
    let mut payload = Vec::new();
    varint::write(&mut payload, n);
    payload.resize(payload.len() + 2 * (n as usize - 1), 0);
    payload.resize(payload.len().div_ceil(4) * 4, 0);
    let bad = with_payload(&data, &tf, &[b"TYPE", tag], &payload);
    let names = tf
        .root
        .child(b"TYPE")
        .unwrap()
        .child(tag)
        .unwrap()
        .payload()
        .0;
    let e = refused("a type-name count of 4,000,000 over zeros", &bad);
    match e.kind() {
        ErrorKind::Read(ReadError::Limit { limit, needed, max }) => {
            assert_eq!(*limit, Limit::Memory, "{e}");
            assert!(needed > max, "{e}");
        }
        other => panic!("not a limit error: {other:?} ({e})"),
    }
    assert_eq!(e.offset(), Some(names), "{e}");
}

/// Every limit is a typed error naming the limit, with the offset, for a tagfile read
/// through the front door.
#[test]
fn every_limit_names_itself_for_a_tagfile() {
    let Some(corpus) = hk_tests::corpus("every_limit_names_itself_for_a_tagfile") else {
        return;
    };
    let _m = measuring();
    let data = hk_tests::read(&corpus.join(SKELETON));
    let schemas = hk_tests::schema_set();
    let doc = file::open(&data, &schemas, ReadOptions::strict()).unwrap();
    let objects = doc.graph.objects.len() as u64;
    let cases = [
        (
            Limits::default().with_max_objects(objects - 1),
            Limit::Objects,
        ),
        (
            Limits::default().with_max_memory(Some(16 << 10)),
            Limit::Memory,
        ),
        (Limits::default().with_max_depth(1), Limit::Depth),
        (Limits::default().with_max_expansion(2), Limit::Expansion),
    ];
    for (limits, want) in cases {
        // A fresh cache each time: a cached type table is not charged again.
        let schemas = hk_tests::schema_set();
        let e = file::open(&data, &schemas, ReadOptions::strict().with_limits(limits))
            .expect_err("over the limit");
        match e.kind() {
            ErrorKind::Read(ReadError::Limit { limit, .. }) => assert_eq!(*limit, want, "{e}"),
            other => panic!("{want}: not a limit error: {other:?} ({e})"),
        }
        assert!(e.offset().is_some(), "{e}");
        println!("{want}: {e}");
    }
}

/// `int` members of a record type named `m0..`, at `offset(k)`.
fn int_members(int: u64, n: u64, offset: impl Fn(u64) -> u64) -> Vec<TagMember> {
    (0..n)
        .map(|m| TagMember {
            name: format!("m{m}"),
            flags: 0x20,
            extra: None,
            offset: offset(m),
            ty: int,
        })
        .collect()
}

/// A record type of a type table.
fn record(name: &str, parent: u64, size: u64, members: Vec<TagMember>) -> TagType {
    TagType {
        name: name.into(),
        body: Some(Body {
            parent,
            format: Some(7),
            size_align: Some((size, 4)),
            members: Some(members),
            ..Body::default()
        }),
        ..TagType::default()
    }
}

/// Schema extraction infers gaps where a table states offsets past their natural place,
/// laying a class out again for each gap: for a record of n members each 4 bytes past its
/// place that grew with n squared (1,000 members 0.15 s, 2,000 0.37 s, 4,000 1.1 s, measured
/// before the fix). The inference works within a fixed budget, so 32,000 members are
/// extracted in well under 2 s (the class then keeps its stated members).
#[test]
fn wide_records_stated_off_their_layout_extract_in_bounded_time() {
    let Some(corpus) = hk_tests::corpus("wide_records") else {
        return;
    };
    let _m = measuring();
    let data = hk_tests::read(&corpus.join(SKELETON));
    let tf = TagFile::parse(&data).unwrap();
    let int = tf.types.types.iter().position(|t| t.name == "int").unwrap() as u64;
    let n = 32_000;
    let mut types = tf.types.as_ref().clone();
    let first = types.types.len() as u64;
    types
        .types
        .push(record("Wide", 0, 8 * n, int_members(int, n, |m| 8 * m)));
    types.body_order.push(first);
    let bad = with_types(&data, &tf, &types);
    let back = TagFile::parse(&bad).unwrap();
    let started = Instant::now();
    let schema = hk_runtime::tagfile::schema::extract(&[&back], "wide").unwrap();
    let took = started.elapsed();
    println!("a record of {n} members off their place: extracted in {took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let c = schema.class("Wide").unwrap();
    assert_eq!(c.members.len(), n as usize);
}

/// A record of 20,000 members with 20,000 subtypes: each subtype's members used to be
/// checked together with all of its parent's (400 million member checks, twice: fit and
/// nesting). Each type's own members are now checked once, after its parent's.
#[test]
fn many_subtypes_of_a_large_record_are_checked_once() {
    let Some(corpus) = hk_tests::corpus("many_subtypes") else {
        return;
    };
    let _m = measuring();
    let data = hk_tests::read(&corpus.join(SKELETON));
    let tf = TagFile::parse(&data).unwrap();
    let int = tf.types.types.iter().position(|t| t.name == "int").unwrap() as u64;
    let n = 20_000;
    let mut types = tf.types.as_ref().clone();
    let parent = types.types.len() as u64;
    types
        .types
        .push(record("Big", 0, 4 * n, int_members(int, n, |m| 4 * m)));
    types.body_order.push(parent);
    for k in 0..n {
        let own = vec![TagMember {
            name: "own".into(),
            flags: 0x20,
            extra: None,
            offset: 4 * n,
            ty: int,
        }];
        types
            .types
            .push(record(&format!("Sub{k}"), parent, 4 * n + 4, own));
        types.body_order.push(parent + 1 + k);
    }
    let bad = with_types(&data, &tf, &types);
    let schemas = hk_tests::schema_set();
    let started = Instant::now();
    let doc = file::open(&bad, &schemas, ReadOptions::strict()).unwrap();
    let took = started.elapsed();
    println!(
        "{n} subtypes of a record of {n} members ({:.1} MiB): read in {took:?}",
        bad.len() as f64 / (1 << 20) as f64
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(
        doc.graph.objects.len(),
        tf.items.iter().filter(|i| i.flags == 0x10).count()
    );
    // A subtype member inside its parent's members is refused, naming both.
    let mut inside = types.clone();
    let last = inside.types.last_mut().unwrap();
    last.body.as_mut().unwrap().members.as_mut().unwrap()[0].offset = 8;
    let bad = with_types(&data, &tf, &inside);
    let e = refused("a member inside the parent's", &bad);
    assert!(e.to_string().contains("inside its parent's members"), "{e}");
}

/// Template arguments let a few bytes of TNAM spell out a long name (a type whose 64
/// arguments are a type whose 64 arguments are ...), which every member of that type would
/// then carry into the extracted schema: a table whose full names pass 512 characters is
/// refused, at TNAM, before anything is extracted.
#[test]
fn template_names_that_multiply_are_refused() {
    let Some(corpus) = hk_tests::corpus("template_names") else {
        return;
    };
    let _m = measuring();
    let data = hk_tests::read(&corpus.join(SKELETON));
    let tf = TagFile::parse(&data).unwrap();
    let mut types = tf.types.as_ref().clone();
    let first = types.types.len() as u64;
    for level in 0..8 {
        let params = (0..64)
            .map(|_| hk_runtime::tagfile::types::Param {
                name: "tT".into(),
                value: if level == 7 { 1 } else { first + level + 1 },
            })
            .collect();
        types.types.push(TagType {
            name: format!("F{level}"),
            params,
            ..TagType::default()
        });
    }
    let bad = with_types(&data, &tf, &types);
    let root = Section::parse(&bad, 0, bad.len() as u64).unwrap();
    let back = root.child(b"TYPE").unwrap();
    let tnam = [b"TNAM", b"TNA1"]
        .into_iter()
        .find_map(|t| back.child(t))
        .unwrap()
        .offset;
    let e = refused("template arguments 64 wide, 8 deep", &bad);
    assert!(e.to_string().contains("longer than 512"), "{e}");
    assert_eq!(e.offset(), Some(tnam), "{e}");
}
