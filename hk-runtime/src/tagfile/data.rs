//! Decoding a tagfile's DATA into the object graph (docs/tagfile-format.md §4).
//!
//! Every DATA byte is accounted for: it is a leaf of a member, a pointer, array or string
//! slot (an item index), or zero. Objects are the items flagged 0x10; arrays and strings
//! (0x20) become the values of the slots that name them.

use std::collections::HashMap;

use super::index::Item;
use super::types::{kind, TypeTable};
use super::TagFile;
use crate::error::{Error, Result};
use crate::graph::{Field, Object, ObjectId, Ptr, Value};

/// ITEM flag of an object (a pointer target).
pub const ITEM_OBJECT: u8 = 0x10;
/// ITEM flag of an array body or a string.
pub const ITEM_ARRAY: u8 = 0x20;

struct Decoder<'a> {
    data: &'a [u8],
    base: u64,
    items: &'a [Item],
    types: &'a TypeTable,
    objects: HashMap<usize, ObjectId>,
    covered: Vec<bool>,
    char_type: u64,
    /// Non-null slots: DATA offset, declared type.
    slots: Vec<(u64, u64)>,
    /// How often each item is named by a slot.
    reached: Vec<u32>,
}

impl Decoder<'_> {
    fn err(&self, at: u64, msg: impl Into<String>) -> Error {
        Error::invalid(self.base + at, msg.into())
    }

    fn bytes(&mut self, at: u64, n: u64) -> Result<&[u8]> {
        let end = at
            .checked_add(n)
            .filter(|&e| e <= self.data.len() as u64)
            .ok_or_else(|| {
                Error::truncated(
                    self.base + at,
                    n,
                    (self.data.len() as u64).saturating_sub(at),
                )
            })?;
        self.covered[at as usize..end as usize]
            .iter_mut()
            .for_each(|c| *c = true);
        Ok(&self.data[at as usize..end as usize])
    }

    fn uint(&mut self, at: u64, n: u64) -> Result<u64> {
        Ok(self
            .bytes(at, n)?
            .iter()
            .rev()
            .fold(0u64, |a, &b| (a << 8) | u64::from(b)))
    }

    /// The item a slot of declared type `t` names, checked against what the slot expects:
    /// `want` (the item's type must be it or derive from it) and `flag`.
    fn item(&mut self, at: u64, t: u64, want: u64, flag: u8) -> Result<Option<(usize, Item)>> {
        // The index fills the slot's first min(size, 8) bytes: 8 for pointers, strings and
        // hkArray (docs §4), 4 for a 4-byte relative array.
        let width = self.types.size_of(t).clamp(1, 8);
        let idx = self.uint(at, width)? as usize;
        if idx == 0 {
            return Ok(None);
        }
        let Some(it) = self.items.get(idx).copied() else {
            let n = self.items.len();
            return Err(self.err(at, format!("slot names item {idx}, ITEM has {n}")));
        };
        let name = |x: u64| self.types.full_name(x);
        if it.flags != flag {
            let msg = format!(
                "slot of {} names item {idx} with flags 0x{:X}, not 0x{flag:X}",
                name(t),
                it.flags
            );
            return Err(self.err(at, msg));
        }
        if !self.derives(u64::from(it.ty), want) {
            let msg = format!(
                "slot of {} names item {idx} of type {}",
                name(t),
                name(u64::from(it.ty))
            );
            return Err(self.err(at, msg));
        }
        self.slots.push((at, t));
        self.reached[idx] += 1;
        Ok(Some((idx, it)))
    }

    /// Whether `t` is `base` or derives from it (docs/tagfile-format.md §4: pointer targets
    /// are the pointer's subtype or a type derived from it, 311/311 and 714/714).
    fn derives(&self, mut t: u64, base: u64) -> bool {
        for _ in 0..64 {
            if t == base {
                return true;
            }
            match self.types.body_of(t) {
                Some(b) if b.parent != 0 => t = b.parent,
                _ => return false,
            }
        }
        false
    }

    fn value(&mut self, t: u64, at: u64, depth: usize) -> Result<Value> {
        if depth > 32 {
            return Err(self.err(at, "values nest deeper than 32 levels"));
        }
        let k = self.types.kind_of(t);
        let size = self.types.size_of(t);
        let fmt = self.types.format_of(t);
        Ok(match k {
            kind::VOID => Value::None,
            kind::OPAQUE => Value::CArray(
                self.bytes(at, size)?
                    .iter()
                    .map(|&b| Value::UInt(u64::from(b)))
                    .collect(),
            ),
            kind::BOOL | kind::INT if !matches!(size, 1 | 2 | 4 | 8) => {
                return Err(self.err(
                    at,
                    format!(
                        "{} is {size} bytes, not an integer width",
                        self.types.full_name(t)
                    ),
                ))
            }
            kind::BOOL => {
                let v = self.uint(at, size)?;
                Value::Bool(v as u8)
            }
            kind::INT => {
                let bits = match fmt & 0x1F000 {
                    0x2000 => 8,
                    0x4000 => 16,
                    0x8000 => 32,
                    0x10000 => 64,
                    _ => size * 8,
                };
                let v = self.uint(at, bits / 8)?;
                if fmt & 0x200 != 0 {
                    let shift = 64 - bits;
                    Value::Int(((v << shift) as i64) >> shift)
                } else {
                    Value::UInt(v)
                }
            }
            kind::FLOAT => match size {
                2 => Value::Half(self.uint(at, 2)? as u16),
                8 => Value::Floats(vec![f64::from_bits(self.uint(at, 8)?) as f32]),
                _ => Value::Real(f32::from_bits(self.uint(at, 4)? as u32)),
            },
            kind::STRING => match self.item(at, t, self.char_type, ITEM_ARRAY)? {
                None => Value::String(None),
                Some((i, it)) => {
                    let text = self
                        .bytes(u64::from(it.offset), u64::from(it.count))?
                        .to_vec();
                    if text.last() != Some(&0) {
                        return Err(self.err(at, format!("string item {i} does not end in NUL")));
                    }
                    let text = &text[..text.len() - 1];
                    match std::str::from_utf8(text) {
                        Ok(s) => Value::String(Some(s.to_string())),
                        Err(_) => Value::Bytes(text.to_vec()),
                    }
                }
            },
            kind::POINTER => match self.item(at, t, self.types.subtype_of(t), ITEM_OBJECT)? {
                None => Value::Pointer(None),
                Some((i, _)) => Value::Pointer(Some(Ptr::Object(self.objects[&i]))),
            },
            kind::ARRAY => {
                // Past the index, an array slot is zero: hkArray's size and capacity words
                // are not stored (3665/3665 tails, docs §4).
                let tail_len = size.saturating_sub(8);
                if self
                    .bytes(at + 8.min(size), tail_len)?
                    .iter()
                    .any(|&b| b != 0)
                {
                    return Err(
                        self.err(at + 8, "array slot's size and capacity words are not zero")
                    );
                }
                match self.item(at, t, self.types.subtype_of(t), ITEM_ARRAY)? {
                    None => Value::Array(Vec::new()),
                    Some((_, it)) => {
                        let sub = self.types.subtype_of(t);
                        self.elements(sub, u64::from(it.offset), u64::from(it.count), depth)
                            .map(Value::Array)?
                    }
                }
            }
            kind::RECORD => Value::Struct(self.fields(t, at, depth)?),
            kind::TUPLE => {
                let sub = self.types.subtype_of(t);
                let n = fmt >> 8;
                // SIMD float types (16-aligned float tuples: hkVector4f, hkQuaternionf,
                // hkRotationImpl, hkMatrix4f) are vectors and matrices, as in packfiles.
                if self.types.kind_of(sub) == kind::FLOAT
                    && self.types.size_of(sub) == 4
                    && self.types.align_of(t) == 16
                {
                    let bytes = self.bytes(at, 4 * n)?;
                    Value::Floats(
                        bytes
                            .chunks_exact(4)
                            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                            .collect(),
                    )
                } else {
                    self.elements(sub, at, n, depth).map(Value::CArray)?
                }
            }
            other => {
                return Err(self.err(
                    at,
                    format!(
                        "type {} has unknown format kind 0x{other:X}",
                        self.types.full_name(t)
                    ),
                ))
            }
        })
    }

    fn elements(&mut self, t: u64, at: u64, count: u64, depth: usize) -> Result<Vec<Value>> {
        let stride = self.types.size_of(t);
        if stride.saturating_mul(count) > self.data.len() as u64 {
            return Err(self.err(
                at,
                format!("{count} elements of {stride} bytes do not fit in DATA"),
            ));
        }
        (0..count)
            .map(|i| self.value(t, at + i * stride, depth + 1))
            .collect()
    }

    fn fields(&mut self, t: u64, at: u64, depth: usize) -> Result<Vec<Field>> {
        let members = self.types.member_slots(t);
        members
            .into_iter()
            .map(|(name, off, mt)| {
                self.value(mt, at + off, depth + 1)
                    .map(|v| Field::new(name.clone(), v))
                    .map_err(|e| e.in_(format!("{}.{name}", self.types.full_name(t))))
            })
            .collect()
    }
}

/// The objects of `tf`'s DATA (`data` is the whole input), in ITEM order, and the object
/// that item 1 (the root) became.
///
/// # Errors
/// A slot naming an item of the wrong kind or out of range, a block past DATA, or (always)
/// a non-zero byte that belongs to no member — each with its offset.
pub fn objects(tf: &TagFile, data: &[u8]) -> Result<(Vec<Object>, ObjectId)> {
    let sec = tf
        .root
        .child(b"DATA")
        .ok_or_else(|| Error::invalid(tf.offset, "TAG0 has no DATA"))?;
    let (o, n) = sec.payload();
    let bytes = &data[o as usize..(o + n) as usize];
    let char_type = (1..tf.types.types.len() as u64)
        .find(|&t| tf.types.types[t as usize].name == "char")
        .unwrap_or(0);
    let mut d = Decoder {
        data: bytes,
        base: o,
        items: &tf.items,
        types: &tf.types,
        objects: HashMap::new(),
        covered: vec![false; bytes.len()],
        char_type,
        slots: Vec::new(),
        reached: vec![0; tf.items.len()],
    };
    check_items(&d, tf, o)?;
    let object_items: Vec<usize> = (1..tf.items.len())
        .filter(|&i| tf.items[i].flags == ITEM_OBJECT)
        .collect();
    for (k, &i) in object_items.iter().enumerate() {
        d.objects.insert(i, ObjectId(k as u32));
    }
    let mut out = Vec::with_capacity(object_items.len());
    for &i in &object_items {
        let it = tf.items[i];
        let t = u64::from(it.ty);
        if it.count != 1 {
            return Err(Error::invalid(
                o,
                format!("object item {i} has count {}", it.count),
            ));
        }
        let fields = d
            .fields(t, u64::from(it.offset), 0)
            .map_err(|e| e.in_(format!("item {i} {}", tf.types.full_name(t))))?;
        out.push(Object {
            class: tf.types.full_name(t),
            section: 0,
            fields,
        });
    }
    if let Some(i) = d.covered.iter().zip(bytes).position(|(c, b)| !c && *b != 0) {
        return Err(Error::invalid(
            o + i as u64,
            format!("DATA byte 0x{:02X} belongs to no member", bytes[i]),
        ));
    }
    // Every array and string is named by a slot; every object but the root by a pointer.
    if let Some(i) = (2..tf.items.len()).find(|&i| d.reached[i] == 0) {
        return Err(Error::invalid(o, format!("item {i} is named by no slot")));
    }
    check_patches(&d, tf, o)?;
    let root = *d
        .objects
        .get(&1)
        .ok_or_else(|| Error::invalid(tf.offset, "item 1 (the root) is not an object"))?;
    Ok((out, root))
}

/// Items lie inside DATA, aligned (objects to their type, arrays to 16, strings to 2) and
/// without overlapping (docs/tagfile-format.md §4, 3806/3806 items).
fn check_items(d: &Decoder<'_>, tf: &TagFile, base: u64) -> Result<()> {
    let mut spans = Vec::with_capacity(tf.items.len());
    for (i, it) in tf.items.iter().enumerate().skip(1) {
        let t = u64::from(it.ty);
        let is_string = t == d.char_type;
        let (size, align) = if is_string {
            (1, 2)
        } else if it.flags == ITEM_OBJECT {
            (d.types.size_of(t), d.types.align_of(t))
        } else {
            (d.types.size_of(t), 16)
        };
        let start = u64::from(it.offset);
        let end = size
            .checked_mul(u64::from(it.count))
            .and_then(|l| l.checked_add(start));
        let at = base + start;
        match end {
            Some(e) if e <= d.data.len() as u64 => spans.push((start, e, i)),
            _ => return Err(Error::invalid(at, format!("item {i} runs past DATA"))),
        }
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
    spans.sort();
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
fn check_patches(d: &Decoder<'_>, tf: &TagFile, base: u64) -> Result<()> {
    let mut found: HashMap<u64, Vec<u64>> = HashMap::new();
    for &(at, t) in &d.slots {
        found.entry(t).or_default().push(at);
    }
    let mut listed: HashMap<u64, Vec<u64>> = HashMap::new();
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
