//! Negative controls (docs/collision-notes.md §5): mutations of every corpus tagfile that
//! strict reading must reject, each with an error that says where.

use std::time::{Duration, Instant};

use hk_runtime::error::{ErrorKind, ReadError};
use hk_runtime::tagfile::types::{Body, TagMember, TagType, TypeTable};
use hk_runtime::tagfile::{data, schema, Section, TagFile};

use hk_tests::tagfile_edit::{le32, put32, rules_of, set_item, with_types, zero_size_huge_count};

const FILES: [&str; 6] = hk_tests::TAGFILES;

fn strict(bytes: &[u8]) -> Result<(), String> {
    hk_runtime::tagfile::read(bytes)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Grows the payload of the section at `at` by inserting `n` zero bytes at `insert`,
/// fixing the sizes of every enclosing section and a phive header.
fn insert(data: &[u8], tf: &TagFile, path: &[&[u8; 4]], insert_at: usize, n: usize) -> Vec<u8> {
    let mut out = data.to_vec();
    out.splice(insert_at..insert_at, std::iter::repeat_n(0u8, n));
    let mut sec: &Section = &tf.root;
    let mut chain = vec![sec.offset];
    for t in path {
        sec = sec.child(t).unwrap();
        chain.push(sec.offset);
    }
    for o in chain {
        let o = o as usize;
        let w = u32::from_be_bytes([out[o], out[o + 1], out[o + 2], out[o + 3]]) + n as u32;
        out[o..o + 4].copy_from_slice(&w.to_be_bytes());
    }
    out
}

fn mutations(data: &[u8], tf: &TagFile) -> Vec<(&'static str, Vec<u8>)> {
    let mut out: Vec<(&'static str, Vec<u8>)> = Vec::new();
    let (dp, dlen) = tf.root.child(b"DATA").unwrap().payload();
    let (ip, _) = tf
        .root
        .child(b"INDX")
        .unwrap()
        .child(b"ITEM")
        .unwrap()
        .payload();
    let (pp, _) = tf
        .root
        .child(b"INDX")
        .unwrap()
        .child(b"PTCH")
        .unwrap()
        .payload();
    let (sp, _) = tf.root.child(b"SDKV").unwrap().payload();
    let item = |i: usize| ip as usize + 12 * i;
    let first_array = (1..tf.items.len())
        .find(|&i| tf.items[i].flags == data::ITEM_ARRAY)
        .unwrap();
    let len = data.len();
    out.push(("truncated by 1", data[..len - 1].to_vec()));
    out.push(("truncated by 16", data[..len - 16].to_vec()));
    out.push(("8 bytes appended", [data, &[0u8; 8]].concat()));
    let mut m = data.to_vec();
    put32(
        &mut m,
        item(first_array) + 8,
        tf.items[first_array].count + 1,
    );
    out.push(("ITEM count +1", m));
    let mut m = data.to_vec();
    put32(
        &mut m,
        item(first_array) + 4,
        tf.items[first_array].offset + 16,
    );
    out.push(("ITEM offset +16", m));
    let mut m = data.to_vec();
    put32(
        &mut m,
        item(tf.items.len() - 1),
        tf.items[1].ty | (u32::from(tf.items.last().unwrap().flags) << 24),
    );
    out.push(("ITEM type changed", m));
    let mut m = data.to_vec();
    put32(&mut m, pp as usize + 8, le32(data, pp as usize + 8) + 4);
    out.push(("PTCH offset +4", m));
    let mut m = data.to_vec();
    put32(&mut m, pp as usize + 4, le32(data, pp as usize + 4) + 1);
    out.push(("PTCH count +1", m));
    // A non-zero byte in padding: the first gap between item blocks.
    let mut spans: Vec<(u64, u64)> = tf.items[1..]
        .iter()
        .map(|it| {
            let t = u64::from(it.ty);
            let size = if tf.types.types[t as usize].name == "char" {
                1
            } else {
                tf.types.size_of(t)
            };
            (
                u64::from(it.offset),
                u64::from(it.offset) + size * u64::from(it.count),
            )
        })
        .collect();
    spans.sort();
    let gap = spans
        .windows(2)
        .find(|w| w[1].0 > w[0].1)
        .map(|w| w[0].1)
        .unwrap_or(spans.last().unwrap().1);
    assert!(gap < dlen, "no padding in DATA");
    let mut m = data.to_vec();
    m[(dp + gap) as usize] = 0x5A;
    out.push(("non-zero padding byte", m));
    // An object pointer on an array slot: a PTCH group of an array type names item 1.
    let array_group = tf
        .patches
        .iter()
        .find(|p| tf.types.kind_of(u64::from(p.ty)) == 8)
        .unwrap();
    let mut m = data.to_vec();
    put32(&mut m, (dp + u64::from(array_group.offsets[0])) as usize, 1);
    out.push(("object pointer on an array slot", m));
    // An array on a pointer slot.
    let ptr_group = tf
        .patches
        .iter()
        .find(|p| tf.types.kind_of(u64::from(p.ty)) == 6)
        .unwrap();
    let mut m = data.to_vec();
    put32(
        &mut m,
        (dp + u64::from(ptr_group.offsets[0])) as usize,
        first_array as u32,
    );
    out.push(("array on a pointer slot", m));
    // A slot naming an item past the table.
    let mut m = data.to_vec();
    put32(
        &mut m,
        (dp + u64::from(ptr_group.offsets[0])) as usize,
        tf.items.len() as u32 + 5,
    );
    out.push(("slot past ITEM", m));
    let mut m = data.to_vec();
    m[sp as usize + 3] = b'X';
    out.push(("corrupted SDKV", m));
    // TNAM/TNA1 count off by one (the count is the first varint; +1 keeps its length here).
    let tnam = tf
        .root
        .child(b"TYPE")
        .unwrap()
        .children
        .iter()
        .find(|c| &c.tag == b"TNAM" || &c.tag == b"TNA1")
        .unwrap();
    let (np, _) = tnam.payload();
    let mut m = data.to_vec();
    m[np as usize + 1] += 1;
    out.push(("type-name count +1", m));
    // ITEM and PTCH record strides: 4 bytes inserted into each table.
    out.push((
        "ITEM stride",
        insert(data, tf, &[b"INDX", b"ITEM"], ip as usize + 12, 4),
    ));
    out.push((
        "PTCH stride",
        insert(data, tf, &[b"INDX", b"PTCH"], pp as usize + 8, 4),
    ));
    // An array slot's size/capacity words made non-zero.
    let mut m = data.to_vec();
    m[(dp + u64::from(array_group.offsets[0])) as usize + 8] = 1;
    out.push(("array slot tail not zero", m));
    out
}

#[test]
fn strict_reading_rejects_every_mutation() {
    let Some(corpus) = hk_tests::corpus("strict_reading_rejects_every_mutation") else {
        return;
    };
    let mut classes = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    let mut accepted = Vec::new();
    for f in FILES {
        let data = hk_tests::read(&corpus.join(f));
        let tf = TagFile::parse(&data).unwrap();
        assert!(strict(&data).is_ok(), "{f}: the unmutated file must read");
        for (class, bytes) in mutations(&data, &tf) {
            let e = classes.entry(class).or_default();
            e.1 += 1;
            match strict(&bytes) {
                Err(msg) => {
                    e.0 += 1;
                    assert!(
                        msg.contains("at 0x"),
                        "{f} {class}: error without an offset: {msg}"
                    );
                }
                Ok(()) => accepted.push(format!("{f}: {class}")),
            }
        }
    }
    for (class, (rejected, n)) in &classes {
        println!("{class:<32} rejected {rejected}/{n}");
    }
    println!("{} mutation classes x {} files", classes.len(), FILES.len());
    assert!(classes.len() >= 15);
    assert!(
        accepted.is_empty(),
        "strict mode accepted:\n{}",
        accepted.join("\n")
    );
}

/// Seeded random corruptions (1 to 3 bytes) of every corpus tagfile: parsing, decoding and
/// writing back never panic. Every 16th corruption is read whole (its schema extracted
/// from its own, maybe corrupted, type table); the others are decoded with the
/// uncorrupted file's schema, as extraction costs more than the rest of a read. (The `fuzz`
/// example runs the same over many more rounds; it found the writer trusting a corrupted
/// type size, now an error.)
#[test]
fn random_corruptions_never_panic() {
    let Some(corpus) = hk_tests::corpus("random_corruptions_never_panic") else {
        return;
    };
    let mut next = hk_tests::xorshift(0x2545_F491_4F6C_DD1D);
    let (mut tried, mut read, mut written) = (0, 0, 0);
    for f in FILES {
        let data = hk_tests::read(&corpus.join(f));
        let tf = TagFile::parse(&data).unwrap();
        let rules = rules_of(&tf);
        // The uncorrupted file's schema: what a corruption outside the type table reads with.
        let clean = std::sync::Arc::new(schema::extract(&[&tf], "clean").unwrap());
        for _ in 0..400 {
            let bad = hk_tests::corrupt(&data, &mut next);
            let outcome = std::panic::catch_unwind(|| {
                let tf = TagFile::parse(&bad).ok()?;
                let graph = if tried % 16 == 0 {
                    // Schema extraction walks the (corrupted) type table too: the whole read.
                    hk_runtime::tagfile::graph(&tf, &bad).ok()?
                } else {
                    data::decode(&tf, &bad, &clean).ok()?
                };
                Some(hk_runtime::tagfile::write(&graph, &tf, &rules).is_ok())
            });
            tried += 1;
            match outcome {
                Err(_) => panic!("{f}: a corruption panicked (round {tried})"),
                Ok(Some(w)) => {
                    read += 1;
                    written += usize::from(w);
                }
                Ok(None) => {}
            }
        }
    }
    println!(
        "{tried} corruptions: no panic; {read} still decoded, {written} of those written back"
    );
}

/// A type table that makes a bool or integer wider than 8 bytes (the fuzzer's find: a
/// corrupted size byte of `hkBool`) is an error for the reader and for the writer (which
/// refuses to write a value into it rather than place a partial integer), never a panic.
#[test]
fn oversized_integer_types_are_errors() {
    let Some(corpus) = hk_tests::corpus("oversized_integer_types_are_errors") else {
        return;
    };
    let skeleton = "games/dark-souls-remastered/c2240_skeleton.hkx";
    let data = hk_tests::read(&corpus.join(skeleton));
    let tf = hk_runtime::tagfile::TagFile::parse(&data).unwrap();
    let graph = hk_runtime::tagfile::graph(&tf, &data).unwrap();
    let rules = rules_of(&tf);
    let mut n = 0;
    for name in ["hkBool", "unsigned short"] {
        let mut types = tf.types.as_ref().clone();
        let t = types
            .types
            .iter_mut()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let b = t.body.as_mut().unwrap();
        b.size_align = Some((80, b.size_align.unwrap().1));
        let Err(err) = hk_runtime::tagfile::write::write(&graph, &types, &tf.sdk_version, &rules)
        else {
            panic!("{name} of 80 bytes was written");
        };
        assert!(err.to_string().contains("not an integer width"), "{err}");
        assert!(err.is_write() && !err.path().is_empty(), "{err}");
        // The same table in the file: the reader refuses it, with an offset.
        let bad = with_types(&data, &tf, &types);
        let back = hk_runtime::tagfile::TagFile::parse(&bad).unwrap();
        let Err(err) = hk_runtime::tagfile::graph(&back, &bad) else {
            panic!("{name} of 80 bytes was read");
        };
        assert!(err.to_string().contains("not an integer width"), "{err}");
        assert!(err.offset().is_some());
        n += 1;
    }
    assert_eq!(n, 2, "both tables refused by the writer and the reader");
}

/// Regression: a type of size 0 used by an ITEM of count 0xFFFFFFFF. The count is checked
/// against the bytes left before anything is allocated, a zero-size element counting as one
/// byte; the read fails at once with a count error instead of allocating 2^32 values.
#[test]
fn zero_size_items_with_huge_counts_are_refused_before_allocating() {
    let Some(corpus) = hk_tests::corpus("zero_size_items_with_huge_counts") else {
        return;
    };
    let data = hk_tests::read(&corpus.join("games/dark-souls-remastered/c2240_skeleton.hkx"));
    let tf = TagFile::parse(&data).unwrap();
    // A memberless record of the table (hkContainerHeapAllocator, 1 byte) shrunk to 0 bytes,
    // and the first array item made 0xFFFFFFFF of it.
    let (bad, t, _) = zero_size_huge_count(&data, &tf);
    let started = Instant::now();
    let err = hk_runtime::tagfile::read(&bad).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    match err.kind() {
        ErrorKind::Read(ReadError::Count { count, size, .. }) => {
            assert_eq!((*count, *size), (0xFFFF_FFFF, 0), "{err}");
        }
        other => panic!("not a count error: {other:?} ({err})"),
    }
    assert!(err.offset().is_some(), "{err}");
    println!("{}: {err}", tf.types.full_name(t as u64));
}

/// Regression: types with many members of the next type (12 levels of 16 members each,
/// 16^11 values if followed) are refused before they are followed (when the table is checked
/// for schema extraction, and again when the reader or writer binds a record): a record's
/// members must fit it, take a byte each and not overlap. The same with records
/// of 0 bytes, with a record that contains itself (the depth bound), and with tuples of
/// tuples whose sizes multiply past 2^32. Each read fails in well under a second.
#[test]
fn exponential_type_nesting_is_bounded() {
    let Some(corpus) = hk_tests::corpus("exponential_type_nesting_is_bounded") else {
        return;
    };
    let data = hk_tests::read(&corpus.join("games/dark-souls-remastered/c2240_skeleton.hkx"));
    let tf = TagFile::parse(&data).unwrap();
    let int = tf
        .types
        .types
        .iter()
        .position(|t| t.name == "int")
        .expect("int") as u64;
    // The root object (item 1) becomes a Z1; Z1 holds 16 Z2s at offset 0, ..., Z12 holds
    // 16 `leaf`s. Each record is `size` bytes.
    let chain = |mut types: TypeTable, size: u64, leaf: u64| -> (TypeTable, u64) {
        let first = types.types.len() as u64;
        let levels = 12;
        for k in 0..levels {
            let next = if k + 1 == levels { leaf } else { first + k + 1 };
            let members = (0..16)
                .map(|m| TagMember {
                    name: format!("m{m}"),
                    flags: 0x20,
                    extra: None,
                    offset: 0,
                    ty: next,
                })
                .collect();
            types.types.push(TagType {
                name: format!("Z{}", k + 1),
                body: Some(Body {
                    format: Some(7),
                    size_align: Some((size, 8)),
                    members: Some(members),
                    ..Body::default()
                }),
                ..TagType::default()
            });
            types.body_order.push(first + k);
        }
        (types, first)
    };
    let mut cases: Vec<(&str, TypeTable, u64, &str)> = Vec::new();
    let (t, z1) = chain(tf.types.as_ref().clone(), 16, int);
    cases.push(("16 overlapping members per level", t, z1, "overlap"));
    // The same of 0-byte records over a 0-byte `void`.
    let mut with_void = tf.types.as_ref().clone();
    let void = with_void.types.len() as u64;
    with_void.types.push(TagType {
        name: "void".into(),
        body: Some(Body {
            format: Some(0),
            size_align: Some((0, 1)),
            ..Body::default()
        }),
        ..TagType::default()
    });
    with_void.body_order.push(void);
    let (t, z1) = chain(with_void, 0, void);
    cases.push(("records of 0 bytes", t, z1, "0 bytes"));
    let mut selfish = tf.types.as_ref().clone();
    let s = selfish.types.len() as u64;
    selfish.types.push(TagType {
        name: "Z".into(),
        body: Some(Body {
            format: Some(7),
            size_align: Some((16, 8)),
            members: Some(vec![TagMember {
                name: "again".into(),
                flags: 0x20,
                extra: None,
                offset: 0,
                ty: s,
            }]),
            ..Body::default()
        }),
        ..TagType::default()
    });
    selfish.body_order.push(s);
    cases.push(("a record that contains itself", selfish, s, ""));
    // Tuples of 65535 records of tuples of 65535...: sizes past what a layout (or a TAG0
    // section) holds, refused before the layout engine multiplies them.
    let mut wide = tf.types.as_ref().clone();
    let mut inner = int;
    let mut size = 4;
    let mut top = 0;
    for level in 0..3 {
        let r = wide.types.len() as u64;
        wide.types.push(TagType {
            name: format!("R{level}"),
            body: Some(Body {
                format: Some(7),
                size_align: Some((size, 4)),
                members: Some(vec![TagMember {
                    name: "x".into(),
                    flags: 0x20,
                    extra: None,
                    offset: 0,
                    ty: inner,
                }]),
                ..Body::default()
            }),
            ..TagType::default()
        });
        size *= 65535;
        wide.types.push(TagType {
            name: format!("W{level}"),
            body: Some(Body {
                format: Some(65535 << 8 | 0x28),
                subtype: Some(r),
                size_align: Some((size, 4)),
                ..Body::default()
            }),
            ..TagType::default()
        });
        wide.body_order.extend([r, r + 1]);
        inner = r + 1;
        top = r;
    }
    cases.push((
        "tuples of 65535 nested 3 deep",
        wide,
        top,
        "more than a TAG0",
    ));
    for (what, types, z1, expect) in cases {
        let bad = with_types(&data, &tf, &types);
        let back = TagFile::parse(&bad).unwrap();
        let bad = set_item(&bad, &back, 1, |w| w[0] = (w[0] & 0xFF00_0000) | z1 as u32);
        let started = Instant::now();
        let err = hk_runtime::tagfile::read(&bad).expect_err(what);
        let took = started.elapsed();
        assert!(took < Duration::from_secs(2), "{what}: {took:?}");
        assert!(err.to_string().contains(expect), "{what}: {err}");
        assert!(err.offset().is_some(), "{what}: {err}");
        println!("{what}: refused in {took:?}: {err}");
        if what.starts_with("16 overlapping") {
            // The reader's own bound, with a schema that describes the Z records (so schema
            // extraction, which refuses the table first, is not what stops it).
            let schema = z_schema(&tf, 12);
            let back = TagFile::parse(&bad).unwrap();
            let started = Instant::now();
            let err = data::decode(&back, &bad, &schema).expect_err(what);
            assert!(started.elapsed() < Duration::from_secs(2), "{what}");
            // The class Z1 holds 16^12 values: the expansion limit refuses the object
            // before it is read...
            assert!(err.to_string().contains("max-expansion"), "{what}: {err}");
            assert!(err.offset().is_some(), "{what}: {err}");
            println!("{what}: decoding with a schema of the Z classes refused too: {err}");
            // ...and without that limit (nor the memory limit, which would refuse its
            // values next), binding the overlapping members does.
            let limits = hk_runtime::Limits::default()
                .with_max_expansion(u64::MAX)
                .with_max_memory(Some(u64::MAX));
            let mut budget = hk_runtime::limits::Budget::new(&limits, bad.len() as u64);
            let bindings = data::Bindings::default();
            let err = data::decode_with(&back, &bad, &schema, &bindings, &limits, &mut budget)
                .expect_err(what);
            assert!(started.elapsed() < Duration::from_secs(2), "{what}");
            assert!(err.to_string().contains("overlap"), "{what}: {err}");
            assert!(err.offset().is_some(), "{what}: {err}");
        }
    }
}

/// A schema of classes `Z1`..`Zn`, each with 16 struct members `m0`..`m15` of the next, the
/// last with 16 `int32`s, over the generation of `tf`'s extracted schema.
fn z_schema(tf: &TagFile, n: usize) -> std::sync::Arc<hk_runtime::Schema> {
    use hk_runtime::schema::{Class, Member};
    use hk_runtime::types::TypeKind;
    let generation = schema::extract(&[tf], "z").unwrap().generation.clone();
    let classes = (1..=n)
        .map(|k| {
            let mut c = Class::new(format!("Z{k}"));
            c.members = (0..16)
                .map(|m| Member {
                    name: format!("m{m}"),
                    ty: if k == n {
                        TypeKind::Int32
                    } else {
                        TypeKind::Struct
                    },
                    subtype: TypeKind::Void,
                    element: TypeKind::Void,
                    class: (k < n).then(|| format!("Z{}", k + 1)),
                    enum_ref: None,
                    array_size: 0,
                    flags: 0x20,
                    expected_offset: None,
                    gap_before: 0,
                    line: 0,
                })
                .collect();
            c
        })
        .collect();
    std::sync::Arc::new(hk_runtime::Schema::new(generation, classes).unwrap())
}

/// A type that is its own template argument (a corrupted TNA1 value) still has a name: the
/// nesting stops instead of overflowing the stack.
#[test]
fn self_referencing_template_arguments_are_bounded() {
    use hk_runtime::tagfile::types::{Param, TagType, TypeTable};
    let table = TypeTable {
        types: vec![
            TagType::default(),
            TagType {
                name: "T*".into(),
                params: vec![Param {
                    name: "tT".into(),
                    value: 1,
                }],
                ..TagType::default()
            },
        ],
        ..TypeTable::default()
    };
    let name = table.full_name(1);
    assert!(name.starts_with("T*<T*<") && name.contains('…'), "{name}");
}

/// The writer checks every value against its type-table member and refuses what does not
/// fit, naming the object and member (and no file offset): an integer outside the table's
/// int format, a pointer to an object the graph lacks, a string with a NUL, a value of
/// another kind. Nothing is clamped, wrapped or zero-filled.
#[test]
fn the_writer_refuses_values_that_do_not_fit() {
    let Some(corpus) = hk_tests::corpus("the_writer_refuses_values") else {
        return;
    };
    use hk_runtime::error::WriteError;
    use hk_runtime::graph::{value_at_mut, Array, ObjectId, Ptr, Value};
    let data = hk_tests::read(&corpus.join("games/dark-souls-remastered/c2240_skeleton.hkx"));
    let (tf, graph) = hk_runtime::tagfile::read(&data).unwrap();
    let rules = rules_of(&tf);
    assert!(hk_runtime::tagfile::write(&graph, &tf, &rules).unwrap() == data);
    let skeleton = graph.first("hkaSkeleton").unwrap();
    let root = graph.root;
    let cases: Vec<(ObjectId, &str, Value, &str)> = vec![
        (
            skeleton,
            "parentIndices",
            Value::Array(Array::Values(vec![Value::Int(-1), Value::Int(40000)])),
            "40000 does not fit",
        ),
        (
            root,
            "namedVariants[0].variant",
            Value::Pointer(Some(Ptr::Object(ObjectId(999)))),
            "object #999",
        ),
        (skeleton, "name", Value::String(Some("a\0b".into())), "NUL"),
        (
            skeleton,
            "name",
            Value::Int(3),
            "does not take the integer 3",
        ),
        (
            skeleton,
            "referencePose[0].translation",
            Value::Floats([0.0f32; 3].into()),
            "takes 4 values, 3 given",
        ),
    ];
    for (id, path, bad, expect) in cases {
        let mut g = graph.clone();
        let (segs, _) = g.resolve(g.object(id).class, path).unwrap();
        *value_at_mut(&mut g.objects[id.0 as usize].values, &segs).unwrap() = bad;
        assert!(g.check().is_err(), "{path}: the graph check refuses it too");
        let err = hk_runtime::tagfile::write(&g, &tf, &rules).unwrap_err();
        let text = err.to_string();
        println!("{path}: {text}");
        assert!(text.contains(expect), "{path}: {text}");
        assert!(err.is_write() && err.offset().is_none(), "{path}: {text}");
        let label = g.object_label(id);
        assert_eq!(err.path().first(), Some(&label), "{path}: {text}");
        let last = path.rsplit('.').next().unwrap().split('[').next().unwrap();
        assert!(
            err.path().iter().any(|p| p.ends_with(&format!(".{last}"))),
            "{path}: {text}"
        );
        if expect.starts_with("object #") {
            assert!(matches!(
                err.kind(),
                ErrorKind::Write(WriteError::MissingObject(999))
            ));
        }
    }
    // An object the root does not reach has no place in a tagfile: refused, not dropped.
    let mut g = graph.clone();
    let orphan = g.add_object("hkaSkeleton").unwrap();
    let err = hk_runtime::tagfile::write(&g, &tf, &rules).unwrap_err();
    println!("orphan: {err}");
    assert_eq!(err.path().first(), Some(&g.object_label(orphan)), "{err}");
    assert!(err.to_string().contains("does not reach"), "{err}");
}
