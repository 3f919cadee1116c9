//! The checks of a decoded DATA section that look at the whole of it: items inside DATA
//! and apart, every non-zero byte covered by a value, PTCH listing exactly the slots, and
//! every object reached from the root (docs/tagfile-format.md §4-5).

use rustc_hash::FxHashMap as HashMap;

use crate::error::{Error, Result};
use crate::graph::{Array, Object, ObjectId, Ptr, Value};
use crate::tagfile::index::{ITEM_ARRAY, ITEM_OBJECT};
use crate::tagfile::parse::TagFile;
use crate::tagfile::types::TypeTable;

/// The first byte of `bytes` that is not zero though `covered` (1 for a byte that belongs
/// to a value, 0 for padding) says no value covers it: eight bytes at a time.
pub(super) fn uncovered_nonzero(covered: &[u8], bytes: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
    let mut chunks = covered.chunks_exact(8).zip(bytes.chunks_exact(8));
    let mut at = 0;
    for (c, b) in &mut chunks {
        let d = word(b);
        // The high bit of each byte of `nonzero` is set where that byte of `d` is not zero.
        let nonzero = (((d & LOW) + LOW) | d) & HIGH;
        if nonzero & !(word(c) << 7) != 0 {
            break;
        }
        at += 8;
    }
    covered[at..]
        .iter()
        .zip(&bytes[at..])
        .position(|(c, b)| *c == 0 && *b != 0)
        .map(|i| at + i)
}

/// Which of `objects` the pointers from `root` reach.
pub(super) fn reachable(objects: &[Object], root: ObjectId) -> Vec<bool> {
    fn visit(v: &Value, out: &mut Vec<ObjectId>) {
        match v {
            Value::Pointer(Some(Ptr::Object(id))) => out.push(*id),
            Value::Struct(vs) | Value::CArray(vs) | Value::Array(Array::Values(vs)) => {
                vs.iter().for_each(|x| visit(x, out));
            }
            _ => {}
        }
    }
    let mut seen = vec![false; objects.len()];
    let mut todo = vec![root];
    let mut found = Vec::new();
    while let Some(id) = todo.pop() {
        match seen.get_mut(id.0 as usize) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        found.clear();
        objects[id.0 as usize]
            .values
            .iter()
            .for_each(|v| visit(v, &mut found));
        todo.extend_from_slice(&found);
    }
    seen
}

/// Items lie inside DATA, aligned (objects to their type, arrays to 16, strings to 2) and
/// without overlapping (docs/tagfile-format.md §4, 3806/3806 items); counts fit the bytes
/// left, zero-size elements counting one byte each.
pub(super) fn check_items(
    data: &[u8],
    types: &TypeTable,
    char_type: u64,
    tf: &TagFile,
    base: u64,
) -> Result<()> {
    let mut spans = Vec::with_capacity(tf.items.len());
    let len = data.len() as u64;
    for (i, it) in tf.items.iter().enumerate().skip(1) {
        let t = u64::from(it.ty);
        let is_string = t == char_type;
        let (size, align) = if is_string {
            (1, 2)
        } else if it.flags == ITEM_OBJECT {
            (types.size_of(t), types.align_of(t))
        } else {
            (types.size_of(t), 16)
        };
        let start = u64::from(it.offset);
        let at = base + start;
        if start > len {
            return Err(Error::invalid(at, format!("item {i} starts past DATA")));
        }
        let count = u64::from(it.count);
        if count.saturating_mul(size.max(1)) > len - start {
            return Err(Error::count(at, count, size, len - start).in_(format!("item {i}")));
        }
        spans.push((start, start + size * count, i));
        if start % align != 0 {
            return Err(Error::invalid(
                at,
                format!("item {i} is not {align}-aligned"),
            ));
        }
        if it.flags != ITEM_OBJECT && it.flags != ITEM_ARRAY {
            return Err(Error::invalid(
                at,
                format!("item {i} has flags 0x{:X}", it.flags),
            ));
        }
    }
    spans.sort_unstable();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(Error::invalid(
                base + w[1].0,
                format!("item {} overlaps item {}", w[1].2, w[0].2),
            ));
        }
    }
    Ok(())
}

/// PTCH lists exactly the non-null slots, grouped by declared type (§5: 4607/4607).
pub(super) fn check_patches(slots: &[(u64, u64)], tf: &TagFile, base: u64) -> Result<()> {
    let mut found: HashMap<u64, Vec<u64>> = HashMap::default();
    for &(at, t) in slots {
        found.entry(t).or_default().push(at);
    }
    let mut listed: HashMap<u64, Vec<u64>> = HashMap::default();
    for p in &tf.patches {
        let e = listed.entry(u64::from(p.ty)).or_default();
        e.extend(p.offsets.iter().map(|&o| u64::from(o)));
    }
    for v in found.values_mut().chain(listed.values_mut()) {
        v.sort_unstable();
    }
    if found != listed {
        let t = found
            .keys()
            .chain(listed.keys())
            .find(|t| found.get(t) != listed.get(t))
            .copied()
            .unwrap_or(0);
        return Err(Error::invalid(
            base,
            format!(
                "PTCH does not list the slots of {}: {} listed, {} found",
                tf.types.full_name(t),
                listed.get(&t).map_or(0, Vec::len),
                found.get(&t).map_or(0, Vec::len)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ClassId;

    #[test]
    fn reachability_follows_pointers_inside_structs_and_arrays() {
        let ptr = |i: u32| Value::Pointer(Some(Ptr::Object(ObjectId(i))));
        let object = |values: Vec<Value>| Object {
            class: ClassId(0),
            values,
        };
        let objects = vec![
            object(vec![Value::Struct(vec![ptr(1)])]),
            object(vec![Value::Array(Array::Values(vec![Value::CArray(
                vec![ptr(2)],
            )]))]),
            object(vec![ptr(0)]),
            // An island: 3 and 4 point at each other only.
            object(vec![ptr(4)]),
            object(vec![ptr(3)]),
        ];
        assert_eq!(
            reachable(&objects, ObjectId(0)),
            [true, true, true, false, false]
        );
        assert_eq!(
            reachable(&objects, ObjectId(3)),
            [false, false, false, true, true]
        );
    }

    /// The word-at-a-time padding scan finds the same first byte as a byte-by-byte one,
    /// for every single stray byte of every value (0x01, 0x80, 0xFF) at every position of
    /// 37 bytes, covered or not.
    #[test]
    fn padding_scan_finds_the_first_uncovered_nonzero_byte() {
        let naive = |c: &[u8], b: &[u8]| c.iter().zip(b).position(|(c, b)| *c == 0 && *b != 0);
        let covered: Vec<u8> = (0..37).map(|i| u8::from(i % 3 == 0 || i > 30)).collect();
        for value in [0x01u8, 0x80, 0xFF] {
            for at in 0..37 {
                let mut bytes = vec![0u8; 37];
                // Covered bytes hold values; one more byte anywhere.
                for (i, c) in covered.iter().enumerate() {
                    if *c == 1 {
                        bytes[i] = 0xAB;
                    }
                }
                bytes[at] = value;
                assert_eq!(
                    uncovered_nonzero(&covered, &bytes),
                    naive(&covered, &bytes),
                    "{value:#x} at {at}"
                );
            }
        }
        assert_eq!(uncovered_nonzero(&[], &[]), None);
    }
}
