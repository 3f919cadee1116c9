//! Bad input never panics and never allocates more than the input justifies: every prefix
//! of three corpus files, seeded random single-byte corruptions of them, and hostile
//! packfiles built in code from a real file (a huge count on zero-size and one-byte
//! elements, duplicate virtual fixups, two fixups for one slot, section tables past the
//! end of the file).

use std::sync::Arc;

use hk_runtime::error::{ErrorKind, ReadError};
use hk_runtime::file::{self, Schemas};
use hk_runtime::graph::{Array, Value};
use hk_runtime::packfile::graph::read::{read, ReadOptions};
use hk_runtime::packfile::graph::write::write;
use hk_runtime::packfile::Packfile;
use hk_runtime::schema::layout::Layouts;
use hk_runtime::Schema;
use hk_tests::heap::{largest, measuring, reset_largest};
use hk_tests::hostile::{get_u32, put_u32};

/// What a decoded graph may take beyond the input itself.
fn budget(input: usize) -> usize {
    64 * input + (1 << 20)
}

const FILES: [&str; 3] = [
    "packfile/havoklib-710/animref[4011].hkx",
    "games/demons-souls-ps3/skeleton_with_types.hkx",
    "packfile/havoklib-2012_2/allosaur[8101].hkx",
];

/// Parses and decodes `data`, writing it back if it reads; returns whether it read.
fn attempt(data: &[u8], schema: &Arc<Schema>, lenient: bool) -> bool {
    let pf = match Packfile::parse(data) {
        Ok(pf) => pf,
        Err(e) => {
            assert!(
                e.offset().is_some() || !e.path().is_empty(),
                "parse error without a place: {e}"
            );
            return false;
        }
    };
    match read(&pf, schema, ReadOptions::default().with_lenient(lenient)) {
        Ok(d) => {
            let _ = write(&d.graph, &d.info);
            true
        }
        Err(e) => {
            // Every error names where it happened.
            assert!(
                e.offset().is_some() || !e.path().is_empty(),
                "error without a place: {e}"
            );
            false
        }
    }
}

/// Splitmix64: a seeded generator, so failures reproduce.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn truncations_and_corruptions_error_without_panicking() {
    let Some(corpus) = hk_tests::corpus("truncations_and_corruptions") else {
        return;
    };
    let _guard = measuring();
    for file in FILES {
        let data = hk_tests::read(&corpus.join(file));
        let pf = Packfile::parse(&data).unwrap();
        let schema = Arc::new(hk_tests::schema_for(&pf));
        let budget = budget(data.len());
        reset_largest();
        let mut read_ok = 0;
        for len in 0..data.len() {
            if attempt(&data[..len], &schema, false) || attempt(&data[..len], &schema, true) {
                read_ok += 1;
            }
        }
        assert_eq!(read_ok, 0, "{file}: a truncated file read without error");
        let mut state = 0x5EED_0000 + data.len() as u64;
        let mut strict_errors = 0;
        let trials = 3000;
        for _ in 0..trials {
            let mut bad = data.clone();
            let at = (next(&mut state) % data.len() as u64) as usize;
            let mut byte = next(&mut state) as u8;
            if byte == bad[at] {
                byte ^= 0xFF;
            }
            bad[at] = byte;
            if !attempt(&bad, &schema, false) {
                strict_errors += 1;
            }
            attempt(&bad, &schema, true);
        }
        let largest = largest();
        println!(
            "{file}: {} prefixes all rejected; {trials} corruptions, {strict_errors} rejected in strict mode, none panicked; largest allocation {largest} bytes for a {}-byte input",
            data.len(),
            data.len()
        );
        assert!(
            strict_errors > 0,
            "{file}: no corruption was rejected, so the check above proves nothing"
        );
        assert!(
            largest <= budget,
            "{file}: allocation of {largest} bytes for {} input bytes",
            data.len()
        );
    }
}

/// A Dark Souls (Havok 2010.2) collision file: an hkpRigidBody whose
/// `collidable.collisionEntries` is a serialize-ignored array of `void` elements (element
/// size 0), and an hkpMoppCode whose `data` is an array of `uint8`.
const HOSTILE_BASE: &str = "games/dark-souls-ptde/map_collision_template.hkx";

/// File offset of the array header at member path `path` of the first object of `class`
/// in `data`, by the schema's layout under the file's rules.
fn array_header(data: &[u8], schema: &Schema, class: &str, path: &str) -> usize {
    let pf = Packfile::parse(data).unwrap();
    let (loc, _) = pf
        .objects()
        .find(|(_, n)| *n == class)
        .unwrap_or_else(|| panic!("no {class}"));
    let mut layouts = Layouts::new(schema, pf.rules());
    let mut class = class.to_string();
    let mut at = pf.abs(loc);
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let members = layouts.flattened(&class).unwrap();
        let (_, m, l) = members
            .iter()
            .find(|(_, m, _)| m.name == part)
            .unwrap_or_else(|| panic!("{class} has no member `{part}`"));
        at += u64::from(l.offset);
        if parts.peek().is_some() {
            class = m.class.clone().unwrap();
        }
    }
    at as usize
}

/// Reads `bad` strictly and leniently (writing back whatever reads), inside the allocation
/// budget and without panicking; returns the strict and lenient errors, each of which must
/// give a file offset.
fn hostile(
    what: &str,
    bad: &[u8],
    schemas: &Schemas,
    schema: &Arc<Schema>,
) -> Vec<hk_runtime::Error> {
    reset_largest();
    let outcome = std::panic::catch_unwind(|| {
        let mut errors = Vec::new();
        for lenient in [false, true] {
            let r = Packfile::parse(bad)
                .and_then(|pf| read(&pf, schema, ReadOptions::default().with_lenient(lenient)))
                .and_then(|d| write(&d.graph, &d.info));
            match r {
                Ok(_) => panic!("{what}: read without error (lenient {lenient})"),
                Err(e) => errors.push(e),
            }
        }
        // The front door (schema selection, then the same reader) refuses it too.
        match file::open(bad, schemas, ReadOptions::default()).and_then(|d| file::write(&d)) {
            Ok(_) => panic!("{what}: file::open read it"),
            Err(e) => errors.push(e),
        }
        errors
    });
    let largest = largest();
    let errors = outcome.unwrap_or_else(|_| panic!("{what}: panicked"));
    for e in &errors {
        println!("{what}: {e}");
        assert!(e.offset().is_some(), "{what}: error without an offset: {e}");
        assert!(e.to_string().contains("at 0x"), "{what}: {e}");
    }
    println!("{what}: largest allocation {largest} bytes");
    assert!(
        largest <= budget(bad.len()),
        "{what}: allocation of {largest} bytes for {} input bytes",
        bad.len()
    );
    errors
}

fn count_error(e: &hk_runtime::Error, count: u64, size: u64) -> bool {
    matches!(e.kind(), ErrorKind::Read(ReadError::Count { count: c, size: s, .. }) if *c == count && *s == size)
}

#[test]
fn hostile_packfiles_error_with_an_offset_without_panicking_or_huge_allocations() {
    let Some(corpus) = hk_tests::corpus("hostile_packfiles") else {
        return;
    };
    let _guard = measuring();
    let schemas = hk_tests::schema_set();
    let data = hk_tests::read(&corpus.join(HOSTILE_BASE));
    let mut doc = file::open(&data, &schemas, ReadOptions::default()).unwrap();
    assert_eq!(
        file::write(&doc).unwrap(),
        data,
        "the base file round-trips"
    );
    let schema = Arc::clone(doc.graph.schema());
    let pf = Packfile::parse(&data).unwrap();
    let e = pf.rules().endian;
    let p = pf.rules().ptr() as usize;

    // 1. A huge count on an array of zero-size elements. The file's own collisionEntries
    //    arrays are empty and have no data pointer, so hk writes the rigid body with two
    //    `void` elements (a data pointer and a zero-length block), and the count is then
    //    raised.
    let body = doc.graph.first("hkpRigidBody").unwrap();
    let (_, shape) = doc
        .graph
        .resolve(doc.graph.object(body).class, "collidable.collisionEntries")
        .unwrap();
    println!("hkpRigidBody.collidable.collisionEntries: {shape:?}");
    match &shape {
        hk_runtime::schema::Shape::Array(_, elem) => {
            assert_eq!(
                **elem,
                hk_runtime::schema::Shape::Void,
                "zero-size elements"
            )
        }
        other => panic!("{other:?}"),
    }
    doc.graph
        .set(
            body,
            "collidable.collisionEntries",
            Value::Array(Array::Values(vec![Value::None; 2])),
        )
        .unwrap();
    let two = file::write(&doc).unwrap();
    let back = file::open(&two, &schemas, ReadOptions::default())
        .expect("hk reads the two void elements it wrote");
    assert_eq!(
        back.graph
            .get(body, "collidable.collisionEntries")
            .unwrap()
            .as_array()
            .map(Array::len),
        Some(2)
    );
    let at = array_header(&two, &schema, "hkpRigidBody", "collidable.collisionEntries");
    assert_eq!(get_u32(&two, at + p, e), 2, "the count word");
    assert_eq!(
        get_u32(&two, at + p + 4, e),
        0x8000_0002,
        "the capacity word"
    );
    // 0xFFFFFFFF: the capacity word cannot hold it (strict mode stops there), lenient
    // mode goes on to the count.
    let mut bad = two.clone();
    put_u32(&mut bad, at + p, 0xFFFF_FFFF, e);
    let errs = hostile(
        "zero-size elements, count 0xFFFFFFFF",
        &bad,
        &schemas,
        &schema,
    );
    assert!(
        count_error(&errs[1], 0xFFFF_FFFF, 0),
        "lenient: {}",
        errs[1]
    );
    // 0x3FFFFFFF with a matching capacity word: strict mode reaches the count too.
    let mut bad = two.clone();
    put_u32(&mut bad, at + p, 0x3FFF_FFFF, e);
    put_u32(&mut bad, at + p + 4, 0xBFFF_FFFF, e);
    let errs = hostile(
        "zero-size elements, count 0x3FFFFFFF",
        &bad,
        &schemas,
        &schema,
    );
    for err in &errs {
        assert!(count_error(err, 0x3FFF_FFFF, 0), "{err}");
    }

    // 2. A huge count on one-byte elements: the MOPP code's `data`.
    let at = array_header(&data, &schema, "hkpMoppCode", "data");
    assert!(get_u32(&data, at + p, e) > 0, "the MOPP code has data");
    let mut bad = data.clone();
    put_u32(&mut bad, at + p, 0x3FFF_FFFF, e);
    put_u32(&mut bad, at + p + 4, 0xBFFF_FFFF, e);
    let errs = hostile("uint8 elements, count 0x3FFFFFFF", &bad, &schemas, &schema);
    for err in &errs {
        assert!(count_error(err, 0x3FFF_FFFF, 1), "{err}");
    }

    let data_section = pf.section("__data__").unwrap();
    // 3. Two virtual fixups for one object: the second record becomes a copy of the first.
    let v = data_section.abs(data_section.virtual_fixups) as usize;
    assert_ne!(get_u32(&data, v + 12, e), 0xFFFF_FFFF, "a second record");
    let mut bad = data.clone();
    bad.copy_within(v..v + 12, v + 12);
    let errs = hostile("duplicate virtual fixup", &bad, &schemas, &schema);
    for err in &errs {
        assert!(err.to_string().contains("two virtual fixups"), "{err}");
    }

    // 4. Two local fixups for one pointer slot: the second record's source becomes the
    //    first's.
    let l = data_section.abs(data_section.local_fixups) as usize;
    assert_ne!(get_u32(&data, l + 8, e), 0xFFFF_FFFF, "a second record");
    let mut bad = data.clone();
    bad.copy_within(l..l + 4, l + 8);
    let errs = hostile("two fixups for one slot", &bad, &schemas, &schema);
    for err in &errs {
        assert!(err.to_string().contains("two fixups"), "{err}");
    }

    // 5. A section header whose tables run past the file: exports, imports and end of
    //    `__data__` moved past the end (still in order).
    let header = (pf.header.section_headers_offset()
        + u64::from(data_section.index) * pf.header.section_header_size())
        as usize;
    assert_eq!(
        get_u32(&data, header + 0x14, e),
        data_section.start,
        "the section header's start word"
    );
    let past = data.len() as u32 + 0x1000 - data_section.start;
    let mut bad = data.clone();
    for word in 4..7 {
        put_u32(&mut bad, header + 0x14 + 4 * word, past, e);
    }
    let errs = hostile("section tables past the file", &bad, &schemas, &schema);
    for err in &errs {
        assert!(
            err.to_string().contains("past the end of the file"),
            "{err}"
        );
    }
    //    ...and a section whose data starts past the file.
    let mut bad = data.clone();
    put_u32(&mut bad, header + 0x14, 0xFFFF_FF00, e);
    hostile("section data past the file", &bad, &schemas, &schema);
}
