//! Edits of bare TAG0 tagfiles for the hostile-input tests (docs/tagfile-format.md): words
//! read and written little-endian, the TYPE section replaced by a table hk writes, and the
//! words of one ITEM entry changed; and the hostile file those make together.

use hk_runtime::schema::TagfileRules;
use hk_runtime::tagfile::types::TypeTable;
use hk_runtime::tagfile::{data, TagFile};

/// The little-endian word at `o`.
pub fn le32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// Writes `v` little-endian at `o`.
pub fn put32(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

/// The writer rules of the shipped schema folder for the tagfile's SDK version.
pub fn rules_of(tf: &TagFile) -> TagfileRules {
    hk_runtime::schema::catalog::for_tagfile(&crate::schemas(), &tf.sdk_version)
        .and_then(|(_, g)| g.tagfile)
        .expect("tagfile rules")
}

/// A bare tagfile `data` (parsed as `tf`) with its TYPE section replaced by `table`, written
/// in the table's own order, and the TAG0 size fixed.
pub fn with_types(data: &[u8], tf: &TagFile, table: &TypeTable) -> Vec<u8> {
    assert_eq!(tf.offset, 0, "a bare tagfile");
    let sec = tf.root.child(b"TYPE").unwrap();
    let new = hk_runtime::tagfile::write::encode_table(table, &rules_of(tf)).unwrap();
    let (from, to) = (sec.offset as usize, (sec.offset + sec.size) as usize);
    let mut out = [&data[..from], &new[..], &data[to..]].concat();
    let size = out.len() as u32 | (u32::from(tf.root.flags) << 30);
    out[0..4].copy_from_slice(&size.to_be_bytes());
    out
}

/// `data` with ITEM entry `i`'s words set by `f` (tag, offset, count).
pub fn set_item(data: &[u8], tf: &TagFile, i: usize, f: impl Fn(&mut [u32; 3])) -> Vec<u8> {
    let (ip, _) = tf
        .root
        .child(b"INDX")
        .unwrap()
        .child(b"ITEM")
        .unwrap()
        .payload();
    let at = ip as usize + 12 * i;
    let mut w = [0u32; 3];
    for (k, x) in w.iter_mut().enumerate() {
        *x = le32(data, at + 4 * k);
    }
    f(&mut w);
    let mut out = data.to_vec();
    for (k, x) in w.iter().enumerate() {
        put32(&mut out, at + 4 * k, *x);
    }
    out
}

/// A bare tagfile `data` (parsed as `tf`) made hostile: a memberless record of its type
/// table shrunk to 0 bytes, and its first array item made 0xFFFFFFFF elements of it.
/// Returns the bytes, the record's type index, and the file offset of that item's data.
pub fn zero_size_huge_count(data: &[u8], tf: &TagFile) -> (Vec<u8>, usize, u64) {
    let t = (1..tf.types.types.len())
        .find(|&t| {
            tf.types.kind_of(t as u64) == 7
                && tf.types.types[t]
                    .body
                    .as_ref()
                    .is_some_and(|b| b.members.as_ref().is_some_and(Vec::is_empty))
        })
        .expect("a memberless record");
    let i = (1..tf.items.len())
        .find(|&i| tf.items[i].flags == data::ITEM_ARRAY)
        .unwrap();
    let mut types = tf.types.as_ref().clone();
    let b = types.types[t].body.as_mut().unwrap();
    b.size_align = Some((0, b.size_align.map_or(1, |s| s.1)));
    let bad = with_types(data, tf, &types);
    let back = TagFile::parse(&bad).unwrap();
    let item_at = back.root.child(b"DATA").unwrap().payload().0 + u64::from(back.items[i].offset);
    let bad = set_item(&bad, &back, i, |w| {
        w[0] = (w[0] & 0xFF00_0000) | t as u32;
        w[2] = 0xFFFF_FFFF;
    });
    (bad, t, item_at)
}
