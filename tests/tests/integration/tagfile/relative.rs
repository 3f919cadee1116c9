//! Relative slots in the 2023.2 `.bphsh` samples (docs/relative-pointers.md): each slot's
//! offset word, added to the slot's own DATA offset, lands on the item that holds its data,
//! and the count word is that item's count. The slots are found here from the type table
//! and the bytes alone, then checked against what the reader decodes.

use hk_runtime::graph::{Graph, Value};
use hk_runtime::tagfile::types::{kind, TypeTable};
use hk_runtime::tagfile::{self, TagFile};

const SAMPLES: [&str; 2] = ["nso-2023_box.bphsh", "nso-2023_level.bphsh"];

/// One relative slot: DATA offset, type, the offset word and the count word (arrays).
#[derive(Clone, Copy, Debug)]
struct RelSlot {
    at: u64,
    ty: u64,
    offset: i64,
    count: Option<u64>,
}

fn le(d: &[u8], at: u64, n: u64) -> u64 {
    (0..n)
        .rev()
        .fold(0, |a, i| (a << 8) | u64::from(d[(at + i) as usize]))
}

/// The relative form of `t`: (offset width, where the count word lies).
fn form(types: &TypeTable, t: u64) -> Option<(u64, Option<u64>)> {
    let name = types.types[t as usize].name.as_str();
    match (name, types.kind_of(t), types.size_of(t)) {
        ("hkRelPtr", kind::POINTER, 8) => Some((8, None)),
        ("hkRelArray", kind::ARRAY, 16) => Some((8, Some(8))),
        ("hkRelArrayView", kind::ARRAY, 8) => Some((4, Some(4))),
        _ => None,
    }
}

/// Walks type `t` at DATA offset `at`, following relative slots into what they name.
fn walk(types: &TypeTable, data: &[u8], t: u64, at: u64, out: &mut Vec<RelSlot>) {
    if let Some((width, count_at)) = form(types, t) {
        let raw = le(data, at, width);
        let shift = 64 - 8 * width as u32;
        let offset = ((raw << shift) as i64) >> shift;
        let count = count_at.map(|c| le(data, at + c, 4));
        out.push(RelSlot {
            at,
            ty: t,
            offset,
            count,
        });
        let sub = types.subtype_of(t);
        if let (true, Some(n)) = (offset != 0, count) {
            let target = at.checked_add_signed(offset).unwrap();
            let stride = types.size_of(sub);
            for k in 0..n {
                walk(types, data, sub, target + k * stride, out);
            }
        }
        return;
    }
    match types.kind_of(t) {
        kind::RECORD => {
            for m in types.members_of(t) {
                walk(types, data, m.ty, at + m.offset, out);
            }
        }
        kind::TUPLE => {
            let sub = types.subtype_of(t);
            for k in 0..types.tuple_count(t) {
                walk(types, data, sub, at + k * types.size_of(sub), out);
            }
        }
        _ => {}
    }
}

/// The DATA bytes of `tf` in `data`.
fn data_of<'a>(tf: &TagFile, data: &'a [u8]) -> &'a [u8] {
    let (o, n) = tf.root.child(b"DATA").unwrap().payload();
    &data[o as usize..(o + n) as usize]
}

/// The relative slots of every object item, and of what they name.
fn slots(tf: &TagFile, d: &[u8]) -> Vec<RelSlot> {
    let mut out = Vec::new();
    for it in tf
        .items
        .iter()
        .filter(|it| it.flags == tagfile::index::ITEM_OBJECT)
    {
        walk(
            &tf.types,
            d,
            u64::from(it.ty),
            u64::from(it.offset),
            &mut out,
        );
    }
    out
}

/// The lengths of every array value of `g`, in object and member order.
fn array_lengths(g: &Graph) -> Vec<usize> {
    fn visit(v: &Value, out: &mut Vec<usize>) {
        match v {
            Value::Array(a) => {
                out.push(a.len());
                for k in 0..a.len() {
                    if let Some(e) = a.get(k) {
                        visit(&e, out);
                    }
                }
            }
            Value::Struct(vs) | Value::CArray(vs) => vs.iter().for_each(|x| visit(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for o in &g.objects {
        o.values.iter().for_each(|v| visit(v, &mut out));
    }
    out
}

#[test]
fn relative_slots_hold_the_distance_to_their_item_and_its_count() {
    for name in SAMPLES {
        let data = hk_tests::read(&hk_tests::root().join("samples").join(name));
        let tf = TagFile::parse(&data).unwrap();
        let d = data_of(&tf, &data);
        let found = slots(&tf, d);
        let (mut named, mut arrays, mut nonempty) = (vec![0u32; tf.items.len()], 0, Vec::new());
        for s in &found {
            if s.count.is_some() {
                arrays += 1;
            }
            if s.offset == 0 {
                assert_eq!(
                    s.count.unwrap_or(0),
                    0,
                    "{name}: null slot at {} with a count",
                    s.at
                );
                continue;
            }
            assert!(s.offset > 0, "{name}: slot at {} points backwards", s.at);
            let target = s.at + s.offset as u64;
            let (i, it) = tf
                .items
                .iter()
                .enumerate()
                .find(|(_, it)| u64::from(it.offset) == target)
                .unwrap_or_else(|| panic!("{name}: slot at {} names {target}, no item", s.at));
            named[i] += 1;
            match s.count {
                Some(n) => {
                    assert_eq!(it.flags, tagfile::index::ITEM_ARRAY, "{name}: item {i}");
                    assert_eq!(
                        u64::from(it.count),
                        n,
                        "{name}: count of the slot at {}",
                        s.at
                    );
                    assert_eq!(
                        u64::from(it.ty),
                        tf.types.subtype_of(s.ty),
                        "{name}: item {i}"
                    );
                    assert_eq!(target % 16, 0, "{name}: array item {i} is not 16-aligned");
                    nonempty.push(n as usize);
                }
                None => assert_eq!(it.flags, tagfile::index::ITEM_OBJECT, "{name}: item {i}"),
            }
            // hkRelArray's capacity word is zero.
            if tf.types.size_of(s.ty) == 16 {
                assert_eq!(le(d, s.at + 12, 4), 0, "{name}: capacity at {}", s.at);
            }
        }
        // Every item but the null entry and the root is named by exactly one relative slot
        // (these shapes have no other slots), and PTCH is absent.
        assert!(
            named[2..].iter().all(|&n| n == 1),
            "{name}: items named {named:?}"
        );
        assert!(
            tf.patches.is_empty(),
            "{name}: PTCH groups {:?}",
            tf.patches
        );
        assert!(tf.root.child(b"INDX").unwrap().child(b"PTCH").is_none());
        // The reader resolves the same arrays: the non-empty lengths it decodes are the
        // count words found in the bytes.
        let (_, g) = tagfile::read(&data).unwrap();
        let mut decoded: Vec<usize> = array_lengths(&g).into_iter().filter(|&n| n > 0).collect();
        decoded.sort_unstable();
        nonempty.sort_unstable();
        assert_eq!(decoded, nonempty, "{name}");
        println!(
            "{name}: {} relative slots ({arrays} arrays), {} non-empty, all on their items",
            found.len(),
            nonempty.len()
        );
    }
}

/// A relative slot that misses its item, miscounts it, or has a capacity is refused with
/// the slot's offset, never decoded as something else.
#[test]
fn relative_slots_that_miss_their_item_are_refused() {
    let data = hk_tests::read(&hk_tests::root().join("samples/nso-2023_level.bphsh"));
    let tf = TagFile::parse(&data).unwrap();
    let (base, _) = tf.root.child(b"DATA").unwrap().payload();
    let found = slots(&tf, data_of(&tf, &data));
    let mut checked = 0;
    for s in found.iter().filter(|s| s.offset != 0) {
        let (width, count_at) = form(&tf.types, s.ty).unwrap();
        let mut edits = vec![(s.at, width, (s.offset + 4) as u64)];
        if let Some(c) = count_at {
            edits.push((s.at + c, 4, s.count.unwrap() + 1));
        }
        if tf.types.size_of(s.ty) == 16 {
            edits.push((s.at + 12, 4, 1));
        }
        for (at, n, v) in edits {
            let mut m = data.clone();
            let p = (base + at) as usize;
            m[p..p + n as usize].copy_from_slice(&v.to_le_bytes()[..n as usize]);
            let e = tagfile::read(&m).expect_err("a broken relative slot was accepted");
            assert!(e.offset().is_some(), "{e}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked}");
    println!("{checked} broken relative slots refused");
}
