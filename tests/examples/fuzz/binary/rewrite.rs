//! Rewriting a binary tagfile stream record by record: the fields an independent walk of
//! the stream found (`walk.rs`, shared with the tests) are replaced, deleted or joined by
//! new records, and every string reference after a change is renumbered so that it still
//! names the text it named (the stream numbers remembered strings in the order they are
//! written out, so adding or removing one shifts every later number).

use std::collections::{BTreeMap, HashMap};

use super::walk::{varint, Ev, Walk};

/// Kinds of walk event that are strings (a length and bytes, or a reference).
pub const STRINGS: [&str; 5] = [
    "sdk",
    "class_name",
    "member_name",
    "member_class",
    "value_string",
];

/// What replaces one event.
#[derive(Clone, Debug)]
pub enum Edit {
    /// A varint of this value.
    Int(i64),
    /// These bytes, as they are (a bitfield, a varint and what follows it).
    Raw(Vec<u8>),
    /// A string of this text: a reference when the table holds it, else written out.
    Text(Vec<u8>),
    /// A string reference to this raw number (past the table, null, ...).
    Ref(i64),
    /// Nothing.
    Delete,
}

/// The string table as the rewritten stream builds it, for records made while rewriting.
#[derive(Default)]
pub struct Table {
    index: HashMap<Vec<u8>, i64>,
    len: i64,
}

impl Table {
    fn new() -> Self {
        let mut t = Table::default();
        t.index.insert(Vec::new(), 0);
        t.len = 2;
        t
    }

    /// Appends string `s` to `out`: a reference when the table holds it, else written out
    /// (and remembered).
    pub fn put(&mut self, out: &mut Vec<u8>, s: &[u8]) {
        if let Some(&i) = self.index.get(s) {
            out.extend(varint(-i));
            return;
        }
        self.full(out, s);
    }

    /// Appends `s` written out in full, remembered under the next number.
    pub fn full(&mut self, out: &mut Vec<u8>, s: &[u8]) {
        out.extend(varint(s.len() as i64));
        out.extend_from_slice(s);
        self.index.entry(s.to_vec()).or_insert(self.len);
        self.len += 1;
    }

    /// Strings the table holds (the two preset ones counted).
    pub fn len(&self) -> i64 {
        self.len
    }
}

/// Records made where the rewritten stream reaches an offset, given its string table.
pub type Insert = Box<dyn FnOnce(&mut Table) -> Vec<u8>>;

/// Each string event's table number in the original stream: its own for a string written
/// out, the one it references otherwise.
pub fn string_numbers(w: &Walk<'_>) -> Vec<Option<i64>> {
    let mut next = 2;
    w.evs
        .iter()
        .map(|e| {
            if !STRINGS.contains(&e.kind) {
                return None;
            }
            if e.value > 0 {
                next += 1;
                Some(next - 1)
            } else {
                Some(-e.value)
            }
        })
        .collect()
}

/// `data` with `edits` (by event index) made and `inserts` placed (before the bytes at
/// their offset), string references renumbered.
pub fn rewrite(
    data: &[u8],
    w: &Walk<'_>,
    edits: &BTreeMap<usize, Edit>,
    mut inserts: Vec<(usize, Insert)>,
) -> Vec<u8> {
    inserts.sort_by_key(|i| i.0);
    let mut inserts = inserts.into_iter().peekable();
    let mut out = Vec::with_capacity(data.len() + 64);
    let mut table = Table::new();
    // Old number -> new number.
    let mut renumber: Vec<i64> = vec![0, 1];
    let mut pos = 0;
    let mut place = |out: &mut Vec<u8>, upto: usize, pos: &mut usize, table: &mut Table| {
        while let Some((at, _)) = inserts.peek() {
            if *at > upto {
                break;
            }
            let (at, f) = inserts.next().expect("peeked");
            out.extend_from_slice(&data[*pos..at.max(*pos)]);
            *pos = at.max(*pos);
            out.extend(f(table));
        }
    };
    for (k, e) in w.evs.iter().enumerate() {
        place(&mut out, e.at, &mut pos, &mut table);
        out.extend_from_slice(&data[pos..e.at]);
        pos = e.at + e.len;
        let is_string = STRINGS.contains(&e.kind);
        // A string written out: its bytes follow the length.
        if is_string && e.value > 0 {
            pos += e.value as usize;
        }
        let original = || -> Vec<u8> { data[e.at..pos].to_vec() };
        match (edits.get(&k), is_string) {
            (None, false) => out.extend(original()),
            (None, true) => string(e, data, &mut out, &mut table, &mut renumber),
            (Some(Edit::Int(v)), _) => out.extend(varint(*v)),
            (Some(Edit::Raw(b)), _) => out.extend_from_slice(b),
            (Some(Edit::Delete), _) => {}
            (Some(Edit::Ref(r)), _) => out.extend(varint(*r)),
            (Some(Edit::Text(t)), _) => table.put(&mut out, t),
        }
        // An edited string written out in the original stream no longer is: its later
        // references go to what took its place.
        if is_string && e.value > 0 && edits.contains_key(&k) {
            let new = match edits.get(&k) {
                Some(Edit::Text(t)) => table.index.get(t).copied().unwrap_or(0),
                _ => 0,
            };
            renumber.push(new);
        }
    }
    place(&mut out, usize::MAX, &mut pos, &mut table);
    out.extend_from_slice(&data[pos..]);
    out
}

/// A string event copied: written out when the original wrote it out and the new table
/// does not hold it yet (else a reference), or its reference renumbered.
fn string(e: &Ev, data: &[u8], out: &mut Vec<u8>, table: &mut Table, renumber: &mut Vec<i64>) {
    if e.value > 0 {
        let text = &data[e.at + e.len..e.at + e.len + e.value as usize];
        let number = table.index.get(text).copied().unwrap_or(table.len());
        table.put(out, text);
        renumber.push(number);
        return;
    }
    let old = -e.value;
    let new = usize::try_from(old)
        .ok()
        .and_then(|i| renumber.get(i))
        .copied()
        .unwrap_or(old);
    out.extend(varint(-new));
}
