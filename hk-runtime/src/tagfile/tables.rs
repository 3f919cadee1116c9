//! The tables a TAG0 writer regenerates around DATA (docs/tagfile-format.md §3, §5, §8):
//! the type order and body order from the item types in DATA order, the string tables,
//! TNAM, TBOD, THSH, ITEM, PTCH, and every section header. Type definitions and hashes
//! come from the type table; only their order and numbering are computed.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::types::{kind, Body, TypeTable};
use super::varint;
use crate::error::{Error, Result, WriteError};
use crate::schema::TagfileRules;

/// A TAG0 section holds less than 2^30 bytes (its 30-bit size field, §1): no block, and no
/// DATA, is that large.
pub(super) const MAX_DATA: u64 = 1 << 30;

/// What placing DATA produced, for the tables.
#[derive(Debug, Default)]
pub(super) struct Placed {
    /// DATA, padded to 16, slots filled.
    pub data: Vec<u8>,
    /// Per item (index 0 the null entry): flags, type, DATA offset, count.
    pub items: Vec<(u8, u64, u64, u64)>,
    /// DATA offsets of the non-null slots, by declared type.
    pub patches: HashMap<u64, Vec<u64>>,
    /// Types touched while placing DATA, in first-touch order (THSH).
    pub touched: Vec<u64>,
    /// The type of each item in DATA order.
    pub item_types: Vec<u64>,
}

/// A section: the big-endian size word with the leaf flag, the tag, the payload padded to 4
/// with `pad`.
///
/// # Errors
/// A section larger than the 30-bit size field holds.
pub fn section(tag: &[u8; 4], payload: &[u8], leaf: bool, pad: u8) -> Result<Vec<u8>> {
    let padded = payload.len().div_ceil(4) * 4;
    let size = u32::try_from(8 + padded)
        .ok()
        .filter(|&s| s <= 0x3FFF_FFFF)
        .ok_or_else(|| {
            Error::write(WriteError::TooLarge(format!(
                "a {} section of {} bytes does not fit a 30-bit section size",
                String::from_utf8_lossy(tag),
                8 + padded
            )))
        })?;
    let mut out = Vec::with_capacity(8 + padded);
    out.extend_from_slice(&((if leaf { 0x4000_0000 } else { 0 }) | size).to_be_bytes());
    out.extend_from_slice(tag);
    out.extend_from_slice(payload);
    out.resize(8 + padded, pad);
    Ok(out)
}

/// Every type index the table's names and bodies use is one of its types.
///
/// # Errors
/// The first index out of range.
pub(super) fn check_refs(table: &TypeTable) -> Result<()> {
    let n = table.types.len() as u64;
    for (i, t) in table.types.iter().enumerate() {
        let params = t.params.iter().filter(|p| p.name.starts_with('t'));
        let mut refs: Vec<u64> = params.map(|p| p.value).collect();
        if let Some(b) = &t.body {
            refs.push(b.parent);
            refs.extend(b.subtype);
            refs.extend(b.members.iter().flatten().map(|m| m.ty));
            refs.extend(b.interfaces.iter().flatten().map(|x| x.0));
        }
        if let Some(bad) = refs.into_iter().find(|&r| r >= n) {
            return Err(Error::invalid_write(format!(
                "type {} refers to type {bad}; the table has {n}",
                table.full_name(i as u64)
            )));
        }
    }
    Ok(())
}

/// TAG0 from DATA as placed and the table it was placed with.
///
/// # Errors
/// A type without the body its order needs, or a table too large for its fields.
pub(super) fn assemble(
    table: &TypeTable,
    sdk: &str,
    placed: &Placed,
    rules: &TagfileRules,
) -> Result<Vec<u8>> {
    let (tlist, bodies) = type_order(table, &placed.item_types, rules.templates_first);
    if tlist.len() >= 0xFF_FFFF {
        return Err(Error::write(WriteError::TooLarge(format!(
            "{} types do not fit ITEM's 24-bit type field",
            tlist.len()
        ))));
    }
    let mut ix = vec![0u64; table.types.len()];
    for (i, &t) in tlist.iter().enumerate() {
        ix[t as usize] = i as u64 + 1;
    }
    // Every touched type that has a hash gets an entry (docs §3: in the corpus every
    // touched type has one). A table written from a schema may not know a type's hash;
    // such a type gets no entry rather than an invented value.
    let hashed: Vec<(u64, u32)> = placed
        .touched
        .iter()
        .filter_map(|&t| table.types[t as usize].hash.map(|h| (t, h)))
        .collect();
    let types = type_section(table, &tlist, &bodies, &hashed, &ix, rules)?;
    let types = section(b"TYPE", &types, false, 0)?;
    finish(sdk, placed, &ix, types)
}

/// Bytes of a `TCRF` payload: a compendium id, then 16 zero bytes (docs/tagfile-format.md
/// §1a).
pub const TCRF_SIZE: u64 = 24;

/// The TAG0 of a file whose types are compendium `id`'s: `table`'s indices as they stand,
/// and a `TCRF` section where the TYPE section would be (docs/tagfile-format.md §1a).
pub(super) fn assemble_referencing(
    table: &TypeTable,
    sdk: &str,
    placed: &Placed,
    id: u64,
) -> Result<Vec<u8>> {
    let ix: Vec<u64> = (0..table.types.len() as u64).collect();
    // The TCRF payload: the compendium id, then 16 zero bytes.
    let mut p = id.to_le_bytes().to_vec();
    p.resize(TCRF_SIZE as usize, 0);
    let tcrf = section(b"TCRF", &p, true, 0)?;
    finish(sdk, placed, &ix, tcrf)
}

/// SDKV, DATA, the type section given (TYPE or TCRF) and INDX, in a TAG0; `ix` gives each
/// table type's index in the file.
fn finish(sdk: &str, placed: &Placed, ix: &[u64], types: Vec<u8>) -> Result<Vec<u8>> {
    let u32_of = |v: u64, what: &str| {
        u32::try_from(v).map_err(|_| {
            Error::write(WriteError::TooLarge(format!(
                "{what} {v} does not fit 32 bits"
            )))
        })
    };
    let mut item_bytes = vec![0u8; 12];
    for &(flag, t, off, count) in &placed.items[1..] {
        let tag = (u32::from(flag) << 24) | ix[t as usize] as u32;
        for w in [
            tag,
            u32_of(off, "an item offset")?,
            u32_of(count, "an item count")?,
        ] {
            item_bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let mut groups: Vec<(u64, &Vec<u64>)> = placed
        .patches
        .iter()
        .map(|(t, o)| (ix[*t as usize], o))
        .collect();
    groups.sort();
    let mut ptch = Vec::new();
    for (t, offs) in groups {
        let mut offs = offs.clone();
        offs.sort_unstable();
        ptch.extend_from_slice(&(t as u32).to_le_bytes());
        ptch.extend_from_slice(&u32_of(offs.len() as u64, "a patch count")?.to_le_bytes());
        for o in offs {
            ptch.extend_from_slice(&u32_of(o, "a slot offset")?.to_le_bytes());
        }
    }
    let mut indx = section(b"ITEM", &item_bytes, true, 0)?;
    // No slot to patch, no PTCH (docs/relative-pointers.md §4).
    if !ptch.is_empty() {
        indx.extend(section(b"PTCH", &ptch, true, 0)?);
    }
    let mut tag0 = section(b"SDKV", sdk.as_bytes(), true, 0)?;
    tag0.extend(section(b"DATA", &placed.data, true, 0)?);
    tag0.extend(types);
    tag0.extend(section(b"INDX", &indx, false, 0)?);
    section(b"TAG0", &tag0, false, 0)
}

/// The TYPE section of `table` as it stands: its own index order, body order and hash
/// order (the inverse of [`TypeTable::parse`]; a corpus table comes back byte for byte).
///
/// # Errors
/// A type index out of range, or a table too large for its fields.
pub fn encode_table(table: &TypeTable, rules: &TagfileRules) -> Result<Vec<u8>> {
    check_refs(table)?;
    let n = table.types.len() as u64;
    let tlist: Vec<u64> = (1..n).collect();
    let ix: Vec<u64> = (0..n).collect();
    let hashed: Vec<(u64, u32)> = table
        .hash_order
        .iter()
        .filter_map(|&t| table.types.get(t as usize)?.hash.map(|h| (t, h)))
        .collect();
    let payload = type_section(table, &tlist, &table.body_order, &hashed, &ix, rules)?;
    section(b"TYPE", &payload, false, 0)
}

/// The TYPE payload: types `tlist` (their new indices in `ix`), bodies in `bodies` order,
/// THSH entries `hashed`.
fn type_section(
    table: &TypeTable,
    tlist: &[u64],
    bodies: &[u64],
    hashed: &[(u64, u32)],
    ix: &[u64],
    rules: &TagfileRules,
) -> Result<Vec<u8>> {
    let ix = |t: u64| ix.get(t as usize).copied().unwrap_or(0);
    let mut names = Strings::default();
    if rules.templates_first {
        // Depth-first: a type's name, then each parameter's name, followed at once by the
        // argument type's strings if that type is new.
        let mut done = HashSet::default();
        for &root in tlist {
            if !done.insert(root) {
                continue;
            }
            names.push(&table.types[root as usize].name);
            let mut stack: Vec<(u64, usize)> = vec![(root, 0)];
            while let Some((t, k)) = stack.pop() {
                let Some(p) = table.types[t as usize].params.get(k) else {
                    continue;
                };
                stack.push((t, k + 1));
                names.push(&p.name);
                if p.name.starts_with('t') && done.insert(p.value) {
                    names.push(&table.types[p.value as usize].name);
                    stack.push((p.value, 0));
                }
            }
        }
    } else {
        for &t in tlist {
            names.push(&table.types[t as usize].name);
            for p in &table.types[t as usize].params {
                names.push(&p.name);
            }
        }
    }
    let mut tnam = Vec::new();
    varint::write(&mut tnam, tlist.len() as u64 + 1);
    for &t in tlist {
        let ty = &table.types[t as usize];
        varint::write(&mut tnam, names.index(&ty.name));
        varint::write(&mut tnam, ty.params.len() as u64);
        for p in &ty.params {
            varint::write(&mut tnam, names.index(&p.name));
            let v = if p.name.starts_with('t') {
                ix(p.value)
            } else {
                p.value
            };
            varint::write(&mut tnam, v);
        }
    }
    // Field names in body order, then bodies.
    let mut fields = Strings::default();
    for &t in bodies {
        let body = table.types[t as usize].body.as_ref();
        for m in body.and_then(|b| b.members.as_ref()).into_iter().flatten() {
            fields.push(&m.name);
        }
    }
    let mut tbod = Vec::new();
    for &t in bodies {
        let b = table.types[t as usize].body.as_ref().ok_or_else(|| {
            Error::invalid_write(format!("type {} has no body", table.full_name(t)))
        })?;
        let opt = u64::from(b.format.is_some())
            | u64::from(b.subtype.is_some()) << 1
            | u64::from(b.version.is_some()) << 2
            | u64::from(b.size_align.is_some()) << 3
            | u64::from(b.flags.is_some()) << 4
            | u64::from(b.members.is_some()) << 5
            | u64::from(b.interfaces.is_some()) << 6
            | u64::from(b.attribute.is_some()) << 7;
        let mut v = |x: u64| varint::write(&mut tbod, x);
        v(ix(t));
        v(ix(b.parent));
        v(opt);
        b.format.into_iter().for_each(&mut v);
        b.subtype.map(ix).into_iter().for_each(&mut v);
        b.version.into_iter().for_each(&mut v);
        if let Some((s, a)) = b.size_align {
            v(s);
            v(a);
        }
        b.flags.into_iter().for_each(&mut v);
        if let Some(ms) = &b.members {
            v(ms.len() as u64);
            for m in ms {
                v(fields.index(&m.name));
                v(m.flags);
                m.extra.into_iter().for_each(&mut v);
                v(m.offset);
                v(ix(m.ty));
            }
        }
        if let Some(is) = &b.interfaces {
            v(is.len() as u64);
            for &(a, o) in is {
                v(ix(a));
                v(o);
            }
        }
        b.attribute.into_iter().for_each(&mut v);
    }
    let mut thsh = Vec::new();
    varint::write(&mut thsh, hashed.len() as u64);
    for &(t, h) in hashed {
        varint::write(&mut thsh, ix(t));
        thsh.extend_from_slice(&h.to_le_bytes());
    }
    let [t_str, t_nam, f_str, t_bod] = &rules.tags;
    let mut out = section(b"TPTR", &vec![0; 8 * (tlist.len() + 1)], true, 0)?;
    out.extend(section(t_str, &names.bytes(), true, rules.string_pad)?);
    out.extend(section(t_nam, &tnam, true, 0)?);
    out.extend(section(f_str, &fields.bytes(), true, rules.string_pad)?);
    out.extend(section(t_bod, &tbod, true, 0)?);
    out.extend(section(b"THSH", &thsh, true, 0)?);
    out.extend(section(b"TPAD", &[], true, 0)?);
    Ok(out)
}

/// Strings in first-use order, without duplicates.
#[derive(Default)]
struct Strings<'t> {
    list: Vec<&'t str>,
    index: HashMap<&'t str, u64>,
}

impl<'t> Strings<'t> {
    fn push(&mut self, s: &'t str) {
        if !self.index.contains_key(s) {
            self.index.insert(s, self.list.len() as u64);
            self.list.push(s);
        }
    }

    fn index(&self, s: &str) -> u64 {
        self.index.get(s).copied().unwrap_or(0)
    }

    fn bytes(&self) -> Vec<u8> {
        self.list
            .iter()
            .flat_map(|s| s.bytes().chain([0]))
            .collect()
    }
}

/// The type index order and the body order (docs/tagfile-format.md §3).
fn type_order(
    types: &TypeTable,
    item_types: &[u64],
    templates_first: bool,
) -> (Vec<u64>, Vec<u64>) {
    let mut list = Vec::new();
    let mut seen = HashSet::default();
    let mut bodies = Vec::new();
    let mut body_done = HashSet::default();
    let mut queue: VecDeque<u64> = VecDeque::new();
    let empty = Body::default();
    // Registers `t`, then (2022) its template arguments depth-first.
    let reg = |t: u64, seen: &mut HashSet<u64>, list: &mut Vec<u64>| {
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            if t == 0 || !seen.insert(t) {
                continue;
            }
            list.push(t);
            if templates_first {
                stack.extend(types.type_params_of(t).into_iter().rev());
            }
        }
    };
    let need = |t: u64, body_done: &mut HashSet<u64>, queue: &mut VecDeque<u64>| {
        if t != 0 && body_done.insert(t) {
            queue.push_back(t);
        }
    };
    for &it in item_types {
        reg(it, &mut seen, &mut list);
        need(it, &mut body_done, &mut queue);
        while let Some(x) = queue.pop_front() {
            bodies.push(x);
            let b = types.body_of(x).unwrap_or(&empty);
            let members: Vec<u64> = b.members.iter().flatten().map(|m| m.ty).collect();
            let ifaces: Vec<u64> = b.interfaces.iter().flatten().map(|i| i.0).collect();
            let sub = b.subtype.unwrap_or(0);
            if templates_first {
                reg(b.parent, &mut seen, &mut list);
                need(b.parent, &mut body_done, &mut queue);
                reg(sub, &mut seen, &mut list);
                if b.format.is_some_and(|f| f & 0xFF == kind::TUPLE) {
                    need(sub, &mut body_done, &mut queue);
                }
                for &m in &members {
                    reg(m, &mut seen, &mut list);
                    need(m, &mut body_done, &mut queue);
                }
                for &a in &ifaces {
                    reg(a, &mut seen, &mut list);
                }
            } else {
                let tps = types.type_params_of(x);
                for d in std::iter::once(b.parent)
                    .chain(tps.iter().copied())
                    .chain([sub])
                    .chain(members.iter().copied())
                    .chain(ifaces.iter().copied())
                {
                    reg(d, &mut seen, &mut list);
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
