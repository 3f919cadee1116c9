//! Negative controls (seed 004 §4): mutations of every corpus tagfile that strict reading
//! must reject, each with an error that says where.

use hk_runtime::tagfile::{data, Section, TagFile};

const FILES: [&str; 6] = hk_tests::TAGFILES;

fn strict(bytes: &[u8]) -> Result<(), String> {
    let tf = TagFile::parse(bytes).map_err(|e| e.to_string())?;
    data::objects(&tf, bytes)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn le32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

fn put32(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
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
/// writing back never panic. (The `fuzz` example runs the same over many more rounds; it
/// found the writer trusting a corrupted type size, now an error.)
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
        let rules = hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), &tf.sdk_version)
            .and_then(|(_, g)| g.tagfile)
            .expect("tagfile rules");
        for _ in 0..400 {
            let bad = hk_tests::corrupt(&data, &mut next);
            let outcome = std::panic::catch_unwind(|| {
                let tf = TagFile::parse(&bad).ok()?;
                if tried % 16 == 0 {
                    // Schema extraction walks the (corrupted) type table too.
                    let _ = hk_runtime::tagfile::schema::extract(&[&tf], "fuzz");
                }
                data::objects(&tf, &bad).ok()?;
                Some(hk_runtime::tagfile::roundtrip(&bad, &rules).is_ok())
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
/// corrupted size byte of `hkBool`) is an error for the reader and never a panic for the
/// writer.
#[test]
fn oversized_integer_types_are_errors() {
    let Some(corpus) = hk_tests::corpus("oversized_integer_types_are_errors") else {
        return;
    };
    let skeleton = "games/dark-souls-remastered/c2240_skeleton.hkx";
    let data = hk_tests::read(&corpus.join(skeleton));
    let tf = hk_runtime::tagfile::TagFile::parse(&data).unwrap();
    let graph = hk_runtime::tagfile::graph(&tf, &data).unwrap();
    let rules = hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), &tf.sdk_version)
        .and_then(|(_, g)| g.tagfile)
        .unwrap();
    let mut n = 0;
    for name in ["hkBool", "unsigned short"] {
        let mut types = tf.types.clone();
        let t = types
            .types
            .iter_mut()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let b = t.body.as_mut().unwrap();
        b.size_align = Some((80, b.size_align.unwrap().1));
        // The writer places what the table says; whatever it returns, it returns.
        if let Ok(out) = hk_runtime::tagfile::write::write(&graph, &types, &tf.sdk_version, &rules)
        {
            let back = hk_runtime::tagfile::TagFile::parse(&out).unwrap();
            let Err(err) = hk_runtime::tagfile::graph(&back, &out) else {
                panic!("{name} of 80 bytes was read");
            };
            assert!(err.to_string().contains("not an integer width"), "{err}");
            assert!(err.offset.is_some());
            n += 1;
        }
    }
    assert_eq!(
        n, 2,
        "both tables were written and then rejected on reading"
    );
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
