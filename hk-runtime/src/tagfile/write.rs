//! Writing a tagfile from the object graph and a type table (docs/tagfile-format.md, "writer
//! algorithm"). Everything is regenerated: DATA placement and item numbering, the type,
//! string, body and hash tables and their order, ITEM, PTCH and every section header. Only
//! leaf values come from the graph; type definitions and hashes come from the type table.

use std::collections::{HashMap, HashSet, VecDeque};

use super::data::{ITEM_ARRAY, ITEM_OBJECT};
use super::types::{kind, TypeTable};
use super::varint;
use crate::error::{Error, Result};
use crate::graph::{Field, Graph, ObjectId, Ptr, Value};

/// How a tagfile generation writes its tables: the `[tagfile]` table of its
/// `generation.toml` (docs/tagfile-format.md §6 measures 2015 against 2022).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagRules {
    /// One string item per distinct text (2022) rather than one per slot (2015).
    pub dedupe_strings: bool,
    /// 2022's type order: names registered with their template arguments depth-first, and
    /// bodies only for types DATA needs; else 2015's: every registered type gets a body.
    pub templates_first: bool,
    /// Padding byte of the string tables (0xFF in 2022, 0 in 2015).
    pub string_pad: u8,
    /// Tags of the string, name, field-string and body subsections.
    pub tags: [[u8; 4]; 4],
}

/// Slot positions of `count` elements of type `t` at `offsets`, member by member across
/// the elements.
fn scan(table: &TypeTable, t: u64, offsets: &[u64], out: &mut Vec<(u64, u64)>) {
    match table.kind_of(t) {
        kind::STRING | kind::POINTER | kind::ARRAY => out.extend(offsets.iter().map(|&o| (o, t))),
        kind::RECORD => {
            for m in table.members_of(t) {
                let offs: Vec<u64> = offsets.iter().map(|o| o + m.offset).collect();
                scan(table, m.ty, &offs, out);
            }
        }
        kind::TUPLE => {
            let sub = table.subtype_of(t);
            let s = table.size_of(sub);
            for i in 0..table.format_of(t) >> 8 {
                let offs: Vec<u64> = offsets.iter().map(|o| o + i * s).collect();
                scan(table, sub, &offs, out);
            }
        }
        _ => {}
    }
}

/// What a slot names.
#[derive(Clone)]
enum Target<'g> {
    Object(ObjectId),
    Array(&'g [Value]),
    Str(Vec<u8>),
}

/// A block waiting to be placed.
enum Node<'g> {
    Object(ObjectId),
    Array {
        ty: u64,
        items: &'g [Value],
        index: usize,
    },
    Str {
        bytes: Vec<u8>,
        index: usize,
    },
}

struct Encoder<'g, 't> {
    types: &'t TypeTable,
    data: Vec<u8>,
    slots: HashMap<u64, Target<'g>>,
    /// The first write outside the block (a type table whose sizes do not cover its
    /// members' offsets); reported once the block is encoded.
    fault: Option<Error>,
}

impl<'g> Encoder<'g, '_> {
    fn put(&mut self, at: u64, bytes: &[u8]) {
        let len = self.data.len();
        match usize::try_from(at)
            .ok()
            .and_then(|a| self.data.get_mut(a..a.checked_add(bytes.len())?))
        {
            Some(dst) => dst.copy_from_slice(bytes),
            None => {
                self.fault.get_or_insert_with(|| {
                    Error::invalid(
                        at,
                        format!(
                            "{} bytes at 0x{at:X} lie outside the {len}-byte block its type sizes",
                            bytes.len()
                        ),
                    )
                });
            }
        }
    }

    fn value(&mut self, t: u64, at: u64, v: &'g Value) -> Result<()> {
        let bad = || {
            Error::invalid(
                at,
                format!("value {v:?} does not fit type {}", self.types.full_name(t)),
            )
        };
        let size = self.types.size_of(t);
        match (self.types.kind_of(t), v) {
            (_, Value::None) => {}
            (2, Value::Bool(b)) => self.put(
                at,
                &u64::from(*b).to_le_bytes()[..size.clamp(1, 8) as usize],
            ),
            (4, Value::Int(_) | Value::UInt(_)) => {
                let raw = match v {
                    Value::Int(i) => *i as u64,
                    Value::UInt(u) => *u,
                    _ => 0,
                };
                let bits = match self.types.format_of(t) & 0x1F000 {
                    0x2000 => 8,
                    0x4000 => 16,
                    0x8000 => 32,
                    0x10000 => 64,
                    _ => size * 8,
                };
                self.put(at, &raw.to_le_bytes()[..(bits / 8).clamp(1, 8) as usize]);
            }
            (5, Value::Real(f)) => self.put(at, &f.to_bits().to_le_bytes()),
            (5, Value::Half(h)) => self.put(at, &h.to_le_bytes()),
            (1, Value::CArray(bytes)) if bytes.len() as u64 != size => return Err(bad()),
            (1, Value::CArray(bytes)) => {
                for (i, b) in bytes.iter().enumerate() {
                    if let Value::UInt(x) = b {
                        self.put(at + i as u64, &[*x as u8]);
                    }
                }
            }
            (kind::STRING, Value::String(None)) | (kind::POINTER, Value::Pointer(None)) => {}
            (kind::STRING, Value::String(Some(s))) => {
                self.slots.insert(at, Target::Str(s.as_bytes().to_vec()));
            }
            (kind::STRING, Value::Bytes(b)) => {
                self.slots.insert(at, Target::Str(b.clone()));
            }
            (kind::POINTER, Value::Pointer(Some(Ptr::Object(id)))) => {
                self.slots.insert(at, Target::Object(*id));
            }
            (kind::ARRAY, Value::Array(items)) => {
                if !items.is_empty() {
                    self.slots.insert(at, Target::Array(items));
                }
            }
            (kind::RECORD, Value::Struct(fields)) => self.fields(t, at, fields)?,
            // A tuple takes exactly its count of values (format >> 8).
            (kind::TUPLE, Value::Floats(fs)) if fs.len() as u64 != self.types.format_of(t) >> 8 => {
                return Err(bad())
            }
            (kind::TUPLE, Value::CArray(xs)) if xs.len() as u64 != self.types.format_of(t) >> 8 => {
                return Err(bad())
            }
            (kind::TUPLE, Value::Floats(fs)) => {
                let sub = self.types.subtype_of(t);
                let s = self.types.size_of(sub);
                for (i, f) in fs.iter().enumerate() {
                    self.put(at + i as u64 * s, &f.to_bits().to_le_bytes());
                }
            }
            (kind::TUPLE, Value::CArray(items)) => {
                let sub = self.types.subtype_of(t);
                let s = self.types.size_of(sub);
                for (i, x) in items.iter().enumerate() {
                    self.value(sub, at + i as u64 * s, x)?;
                }
            }
            _ => return Err(bad()),
        }
        Ok(())
    }

    fn fields(&mut self, t: u64, at: u64, fields: &'g [Field]) -> Result<()> {
        let members = self.types.member_slots(t);
        for (name, off, mt) in members {
            let f = fields
                .iter()
                .find(|f| f.name == name)
                .ok_or_else(|| Error::invalid(0, format!("value has no member `{name}`")))?;
            self.value(mt, at + off, &f.value)
                .map_err(|e| e.in_(name.clone()))?;
        }
        Ok(())
    }
}

fn align_to(buf: &mut Vec<u8>, a: u64) {
    let n = (buf.len() as u64).div_ceil(a) * a;
    buf.resize(n as usize, 0);
}

fn section(tag: &[u8; 4], payload: &[u8], leaf: bool, pad: u8) -> Vec<u8> {
    let mut p = payload.to_vec();
    while p.len() % 4 != 0 {
        p.push(pad);
    }
    let size = 8 + p.len() as u32;
    let mut out = ((if leaf { 0x4000_0000 } else { 0 }) | size)
        .to_be_bytes()
        .to_vec();
    out.extend_from_slice(tag);
    out.extend_from_slice(&p);
    out
}

/// Writes `graph` as a TAG0 tagfile with the types of `table` (which must describe every
/// class of the graph, keyed by full name) and SDK version `sdk`.
///
/// # Errors
/// A class the table lacks, a value that does not fit its type, or a touched type without
/// a hash.
pub fn write(graph: &Graph, table: &TypeTable, sdk: &str, rules: &TagRules) -> Result<Vec<u8>> {
    let types = table;
    let by_name: HashMap<String, u64> = (1..table.types.len() as u64)
        .map(|i| (table.full_name(i), i))
        .collect();
    let class_of = |id: ObjectId| -> Result<u64> {
        let c = &graph
            .objects
            .get(id.0 as usize)
            .ok_or_else(|| Error::invalid(0, format!("no object #{}", id.0)))?
            .class;
        by_name
            .get(c)
            .copied()
            .ok_or_else(|| Error::schema(format!("the type table has no `{c}`")))
    };
    // String items have type `char`; a file without strings need not describe it.
    let char_ty = by_name.get("char").copied();
    let no_char = || Error::schema("the type table has no `char` for string items");
    // --- DATA: the queue algorithm of docs/tagfile-format.md §4.
    let mut data: Vec<u8> = Vec::new();
    let mut items: Vec<(u8, u64, u64, u64)> = vec![(0, 0, 0, 0)];
    let mut object_index: HashMap<ObjectId, usize> = HashMap::new();
    let mut string_index: HashMap<Vec<u8>, usize> = HashMap::new();
    // Slot offset, item index, slot width (the index fills the first min(width, 8) bytes).
    let mut fills: Vec<(u64, usize, u64)> = Vec::new();
    let mut patches: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut touched: Vec<u64> = Vec::new();
    let mut touched_set: HashSet<u64> = HashSet::new();
    let mut item_types: Vec<u64> = Vec::new();
    let mut touch = |t: u64, touched: &mut Vec<u64>| {
        if touched_set.insert(t) {
            touched.push(t);
        }
    };
    let root = graph.root;
    object_index.insert(root, 1);
    items.push((ITEM_OBJECT, 0, 0, 1));
    let mut objects: VecDeque<ObjectId> = VecDeque::from([root]);
    while let Some(obj) = objects.pop_front() {
        let mut fifo: VecDeque<Node<'_>> = VecDeque::from([Node::Object(obj)]);
        while let Some(node) = fifo.pop_front() {
            let (flag, ty, count, index, align) = match &node {
                Node::Object(id) => {
                    let t = class_of(*id)?;
                    (ITEM_OBJECT, t, 1, object_index[id], types.align_of(t))
                }
                Node::Array {
                    ty,
                    items: v,
                    index,
                } => (ITEM_ARRAY, *ty, v.len() as u64, *index, 16),
                Node::Str { bytes, index } => (
                    ITEM_ARRAY,
                    char_ty.ok_or_else(no_char)?,
                    bytes.len() as u64 + 1,
                    *index,
                    2,
                ),
            };
            align_to(&mut data, align);
            let off = data.len() as u64;
            touch(ty, &mut touched);
            item_types.push(ty);
            items[index] = (flag, ty, off, count);
            if let Node::Str { bytes, .. } = &node {
                data.extend_from_slice(bytes);
                data.push(0);
                continue;
            }
            let esize = types.size_of(ty);
            // A TAG0 section holds at most 2^30 bytes (its 30-bit size field, §1), so no
            // block is allocated beyond that, whatever sizes the type table states.
            let block = esize
                .checked_mul(count)
                .filter(|&b| b < 1 << 30)
                .ok_or_else(|| {
                    Error::invalid(
                        off,
                        format!(
                            "{count} × {esize} bytes of {} do not fit a TAG0 section",
                            table.full_name(ty)
                        ),
                    )
                })?;
            let mut enc = Encoder {
                types: table,
                data: vec![0; block as usize],
                slots: HashMap::new(),
                fault: None,
            };
            match &node {
                Node::Object(id) => enc
                    .fields(ty, 0, &graph.objects[id.0 as usize].fields)
                    .map_err(|e| {
                        e.in_(format!(
                            "object #{} {}",
                            id.0, graph.objects[id.0 as usize].class
                        ))
                    })?,
                Node::Array { items: v, .. } => {
                    for (i, x) in v.iter().enumerate() {
                        enc.value(ty, i as u64 * esize, x)?;
                    }
                }
                Node::Str { .. } => {}
            }
            if let Some(e) = enc.fault.take() {
                return Err(e.in_(format!(
                    "block at DATA+0x{off:X} of {}",
                    table.full_name(ty)
                )));
            }
            let mut order = Vec::new();
            scan(
                types,
                ty,
                &(0..count).map(|e| e * esize).collect::<Vec<_>>(),
                &mut order,
            );
            data.extend_from_slice(&enc.data);
            let mut strings = Vec::new();
            for (rel, field_ty) in order {
                let Some(target) = enc.slots.get(&rel).cloned() else {
                    continue;
                };
                patches.entry(field_ty).or_default().push(off + rel);
                match target {
                    Target::Object(id) => {
                        touch(field_ty, &mut touched);
                        let next = items.len();
                        let i = *object_index.entry(id).or_insert_with(|| {
                            objects.push_back(id);
                            next
                        });
                        if i == next {
                            items.push((0, 0, 0, 0));
                        }
                        fills.push((off + rel, i, types.size_of(field_ty)));
                    }
                    Target::Array(v) => {
                        touch(field_ty, &mut touched);
                        let i = items.len();
                        items.push((0, 0, 0, 0));
                        fifo.push_back(Node::Array {
                            ty: types.subtype_of(field_ty),
                            items: v,
                            index: i,
                        });
                        fills.push((off + rel, i, types.size_of(field_ty)));
                    }
                    Target::Str(s) => strings.push((field_ty, s, off + rel)),
                }
            }
            for (field_ty, s, at) in strings {
                touch(field_ty, &mut touched);
                let known = if rules.dedupe_strings {
                    string_index.get(&s).copied()
                } else {
                    None
                };
                let i = match known {
                    Some(i) => i,
                    None => {
                        let i = items.len();
                        items.push((0, 0, 0, 0));
                        if rules.dedupe_strings {
                            string_index.insert(s.clone(), i);
                        }
                        fifo.push_back(Node::Str { bytes: s, index: i });
                        i
                    }
                };
                fills.push((at, i, types.size_of(field_ty)));
            }
        }
    }
    align_to(&mut data, 16);
    for (at, i, width) in fills {
        let n = width.clamp(1, 8) as usize;
        data[at as usize..at as usize + n].copy_from_slice(&(i as u64).to_le_bytes()[..n]);
    }
    // --- Type order, from the item types in DATA order (§3).
    let (tlist, border) = type_order(types, &item_types, rules.templates_first);
    let new_index: HashMap<u64, u64> = tlist
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i as u64 + 1))
        .collect();
    let ix = |t: u64| -> u64 {
        if t == 0 {
            0
        } else {
            new_index.get(&t).copied().unwrap_or(0)
        }
    };
    // Type-name strings.
    let mut names: Vec<String> = Vec::new();
    {
        let mut push = |s: &str, names: &mut Vec<String>| {
            if !names.iter().any(|n| n == s) {
                names.push(s.to_string());
            }
        };
        if rules.templates_first {
            let mut done = HashSet::new();
            fn regs(
                t: u64,
                table: &TypeTable,
                done: &mut HashSet<u64>,
                names: &mut Vec<String>,
                push: &mut dyn FnMut(&str, &mut Vec<String>),
            ) {
                if !done.insert(t) {
                    return;
                }
                push(&table.types[t as usize].name, names);
                for p in &table.types[t as usize].params {
                    push(&p.name, names);
                    if p.name.starts_with('t') {
                        regs(p.value, table, done, names, push);
                    }
                }
            }
            for &t in &tlist {
                regs(t, table, &mut done, &mut names, &mut push);
            }
        } else {
            for &t in &tlist {
                push(&table.types[t as usize].name, &mut names);
                for p in &table.types[t as usize].params {
                    push(&p.name, &mut names);
                }
            }
        }
    }
    let name_ix: HashMap<&str, u64> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u64))
        .collect();
    let mut tnam = Vec::new();
    varint::write(&mut tnam, tlist.len() as u64 + 1);
    for &t in &tlist {
        let ty = &table.types[t as usize];
        varint::write(&mut tnam, name_ix[ty.name.as_str()]);
        varint::write(&mut tnam, ty.params.len() as u64);
        for p in &ty.params {
            varint::write(&mut tnam, name_ix[p.name.as_str()]);
            varint::write(
                &mut tnam,
                if p.name.starts_with('t') {
                    ix(p.value)
                } else {
                    p.value
                },
            );
        }
    }
    // Field names in body order, then bodies.
    let mut fnames: Vec<&str> = Vec::new();
    for &t in &border {
        for m in table.types[t as usize]
            .body
            .as_ref()
            .and_then(|b| b.members.as_ref())
            .into_iter()
            .flatten()
        {
            if !fnames.contains(&m.name.as_str()) {
                fnames.push(&m.name);
            }
        }
    }
    let fname_ix: HashMap<&str, u64> = fnames
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, i as u64))
        .collect();
    let mut tbod = Vec::new();
    for &t in &border {
        let b = table.types[t as usize]
            .body
            .as_ref()
            .ok_or_else(|| Error::schema(format!("type {} has no body", table.full_name(t))))?;
        let opt = u64::from(b.format.is_some())
            | u64::from(b.subtype.is_some()) << 1
            | u64::from(b.version.is_some()) << 2
            | u64::from(b.size_align.is_some()) << 3
            | u64::from(b.flags.is_some()) << 4
            | u64::from(b.members.is_some()) << 5
            | u64::from(b.interfaces.is_some()) << 6
            | u64::from(b.attribute.is_some()) << 7;
        for v in [ix(t), ix(b.parent), opt] {
            varint::write(&mut tbod, v);
        }
        if let Some(f) = b.format {
            varint::write(&mut tbod, f);
        }
        if let Some(s) = b.subtype {
            varint::write(&mut tbod, ix(s));
        }
        if let Some(v) = b.version {
            varint::write(&mut tbod, v);
        }
        if let Some((s, a)) = b.size_align {
            varint::write(&mut tbod, s);
            varint::write(&mut tbod, a);
        }
        if let Some(f) = b.flags {
            varint::write(&mut tbod, f);
        }
        if let Some(ms) = &b.members {
            varint::write(&mut tbod, ms.len() as u64);
            for m in ms {
                varint::write(&mut tbod, fname_ix[m.name.as_str()]);
                varint::write(&mut tbod, m.flags);
                if let Some(x) = m.extra {
                    varint::write(&mut tbod, x);
                }
                varint::write(&mut tbod, m.offset);
                varint::write(&mut tbod, ix(m.ty));
            }
        }
        if let Some(is) = &b.interfaces {
            varint::write(&mut tbod, is.len() as u64);
            for (a, o) in is {
                varint::write(&mut tbod, ix(*a));
                varint::write(&mut tbod, *o);
            }
        }
        if let Some(a) = b.attribute {
            varint::write(&mut tbod, a);
        }
    }
    // Every touched type that has a hash gets an entry (docs §3: in the corpus every
    // touched type has one). A table written from a schema may not know a type's hash;
    // such a type gets no entry rather than an invented value.
    let hashed: Vec<(u64, u32)> = touched
        .iter()
        .filter_map(|&t| table.types[t as usize].hash.map(|h| (t, h)))
        .collect();
    let mut thsh = Vec::new();
    varint::write(&mut thsh, hashed.len() as u64);
    for (t, h) in hashed {
        varint::write(&mut thsh, ix(t));
        thsh.extend_from_slice(&h.to_le_bytes());
    }
    let strings =
        |list: &[&str]| -> Vec<u8> { list.iter().flat_map(|s| s.bytes().chain([0])).collect() };
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let [t_str, t_nam, f_str, t_bod] = &rules.tags;
    let mut type_payload = section(b"TPTR", &vec![0; 8 * (tlist.len() + 1)], true, 0);
    type_payload.extend(section(t_str, &strings(&name_refs), true, rules.string_pad));
    type_payload.extend(section(t_nam, &tnam, true, 0));
    type_payload.extend(section(f_str, &strings(&fnames), true, rules.string_pad));
    type_payload.extend(section(t_bod, &tbod, true, 0));
    type_payload.extend(section(b"THSH", &thsh, true, 0));
    type_payload.extend(section(b"TPAD", &[], true, 0));
    let mut item_bytes = vec![0u8; 12];
    for &(flag, t, off, count) in &items[1..] {
        for w in [
            (u32::from(flag) << 24) | ix(t) as u32,
            off as u32,
            count as u32,
        ] {
            item_bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let mut groups: Vec<(u64, Vec<u64>)> = patches.into_iter().map(|(t, o)| (ix(t), o)).collect();
    groups.sort();
    let mut ptch = Vec::new();
    for (t, mut offs) in groups {
        offs.sort();
        ptch.extend_from_slice(&(t as u32).to_le_bytes());
        ptch.extend_from_slice(&(offs.len() as u32).to_le_bytes());
        for o in offs {
            ptch.extend_from_slice(&(o as u32).to_le_bytes());
        }
    }
    let mut indx = section(b"ITEM", &item_bytes, true, 0);
    indx.extend(section(b"PTCH", &ptch, true, 0));
    let mut tag0 = section(b"SDKV", sdk.as_bytes(), true, 0);
    tag0.extend(section(b"DATA", &data, true, 0));
    tag0.extend(section(b"TYPE", &type_payload, false, 0));
    tag0.extend(section(b"INDX", &indx, false, 0));
    Ok(section(b"TAG0", &tag0, false, 0))
}

/// The type index order and the body order (docs/tagfile-format.md §3).
fn type_order(
    types: &TypeTable,
    item_types: &[u64],
    templates_first: bool,
) -> (Vec<u64>, Vec<u64>) {
    let mut list = Vec::new();
    let mut seen = HashSet::new();
    let mut bodies = Vec::new();
    let mut body_done = HashSet::new();
    let mut queue: VecDeque<u64> = VecDeque::new();
    fn reg(
        t: u64,
        types: &TypeTable,
        templates_first: bool,
        seen: &mut HashSet<u64>,
        list: &mut Vec<u64>,
    ) {
        if t == 0 || !seen.insert(t) {
            return;
        }
        list.push(t);
        if templates_first {
            for a in types.type_params_of(t) {
                reg(a, types, templates_first, seen, list);
            }
        }
    }
    let need = |t: u64, body_done: &mut HashSet<u64>, queue: &mut VecDeque<u64>| {
        if t != 0 && body_done.insert(t) {
            queue.push_back(t);
        }
    };
    for &it in item_types {
        reg(it, types, templates_first, &mut seen, &mut list);
        need(it, &mut body_done, &mut queue);
        while let Some(x) = queue.pop_front() {
            bodies.push(x);
            let b = types.body_of(x).cloned().unwrap_or_default();
            let members: Vec<u64> = b.members.iter().flatten().map(|m| m.ty).collect();
            let ifaces: Vec<u64> = b.interfaces.iter().flatten().map(|i| i.0).collect();
            let sub = b.subtype.unwrap_or(0);
            if templates_first {
                reg(b.parent, types, true, &mut seen, &mut list);
                need(b.parent, &mut body_done, &mut queue);
                reg(sub, types, true, &mut seen, &mut list);
                if b.format.is_some_and(|f| f & 0xFF == kind::TUPLE) {
                    need(sub, &mut body_done, &mut queue);
                }
                for &m in &members {
                    reg(m, types, true, &mut seen, &mut list);
                    need(m, &mut body_done, &mut queue);
                }
                for &a in &ifaces {
                    reg(a, types, true, &mut seen, &mut list);
                }
            } else {
                let tps = types.type_params_of(x);
                for d in std::iter::once(b.parent)
                    .chain(tps.iter().copied())
                    .chain([sub])
                    .chain(members.iter().copied())
                    .chain(ifaces.iter().copied())
                {
                    reg(d, types, false, &mut seen, &mut list);
                }
                for d in std::iter::once(b.parent)
                    .chain(tps)
                    .chain(members)
                    .chain([sub])
                    .chain(ifaces)
                {
                    need(d, &mut body_done, &mut queue);
                }
            }
        }
    }
    (list, bodies)
}
