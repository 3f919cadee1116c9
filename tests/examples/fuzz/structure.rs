//! Structure-aware mutations: each parses the file first, then breaks one thing the
//! format's tables say is there (a section header word, a fixup record, an array count
//! after a pointer slot, a class name, a tagfile type body, an ITEM entry, a PTCH group, a
//! section size), with the values attacks use: zero, all ones, off by one, another
//! record's value, just past the end, a huge count. Single-byte corruption rarely reaches
//! past the first check; these reach the readers' deeper rules and their limits.

use hk_runtime::packfile::Packfile;
use hk_runtime::schema::TagfileRules;
use hk_runtime::tagfile::types::{Body, TagMember, TagType, TypeTable};
use hk_runtime::tagfile::{varint, Section, TagFile};
use hk_runtime::Endian;

/// A seeded source of choices.
pub struct Rng<'a>(pub &'a mut dyn FnMut() -> u64);

impl Rng<'_> {
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            ((self.0)() % n as u64) as usize
        }
    }

    /// A value an attack would put in a 32-bit field that held `old`, next to `others`
    /// (the values of the same field elsewhere) and `end` (the size of what it indexes).
    pub fn word(&mut self, old: u32, others: &[u32], end: u32) -> u32 {
        match self.below(12) {
            0 => 0,
            1 => u32::MAX,
            2 => old.wrapping_add(1),
            3 => old.wrapping_sub(1),
            4 => old.wrapping_add(4 * (1 + self.below(8) as u32)),
            5 => end,
            6 => end.wrapping_add(1 + self.below(64) as u32),
            7 => others.get(self.below(others.len())).copied().unwrap_or(old),
            8 => 0x7FFF_FFFF,
            9 => 0x3FFF_FFFF,
            10 => old.wrapping_mul(2).max(1),
            _ => (self.0)() as u32,
        }
    }
}

fn get(b: &[u8], at: usize, e: Endian) -> u32 {
    let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    match e {
        Endian::Little => u32::from_le_bytes(w),
        Endian::Big => u32::from_be_bytes(w),
    }
}

fn put(b: &mut [u8], at: usize, v: u32, e: Endian) {
    if at + 4 > b.len() {
        return;
    }
    let w = match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    };
    b[at..at + 4].copy_from_slice(&w);
}

/// A packfile with one structural mutation (or the input unchanged when it does not parse).
pub fn packfile(data: &[u8], rng: &mut Rng<'_>) -> Vec<u8> {
    let mut out = data.to_vec();
    let Ok(pf) = Packfile::parse(data) else {
        return out;
    };
    let e = pf.rules().endian;
    let len = data.len() as u32;
    let first = pf.header.section_headers_offset() as usize;
    let size = pf.header.section_header_size() as usize;
    let sections = pf.sections.len();
    let header_of = |i: usize| first + i * size;
    // The file offsets of every fixup record, by table.
    let mut locals = Vec::new();
    let mut globals = Vec::new();
    let mut virtuals = Vec::new();
    for s in &pf.sections {
        let each = |from: u32, to: u32, rec: usize, out: &mut Vec<usize>| {
            let (a, b) = (s.abs(from) as usize, s.abs(to) as usize);
            let mut o = a;
            while o + rec <= b && get(data, o, e) != u32::MAX {
                out.push(o);
                o += rec;
            }
        };
        each(s.local_fixups, s.global_fixups, 8, &mut locals);
        each(s.global_fixups, s.virtual_fixups, 12, &mut globals);
        each(s.virtual_fixups, s.exports, 12, &mut virtuals);
    }
    let slots: Vec<usize> = pf
        .pointers()
        .iter()
        .map(|(src, _)| pf.abs(*src) as usize)
        .collect();
    let p = pf.rules().ptr() as usize;
    let mut times = 1 + rng.below(3);
    while times > 0 {
        times -= 1;
        match rng.below(11) {
            // A section header word (start, one of the table offsets, end).
            0 if sections > 0 => {
                let i = rng.below(sections);
                let w = rng.below(7);
                let at = header_of(i) + 0x14 + 4 * w;
                let others: Vec<u32> = (0..sections)
                    .map(|k| get(data, header_of(k) + 0x14 + 4 * w, e))
                    .collect();
                let v = rng.word(get(data, at, e), &others, len);
                put(&mut out, at, v, e);
            }
            // One section header copied over another: overlapping sections.
            1 if sections > 1 => {
                let (a, b) = (rng.below(sections), rng.below(sections));
                out.copy_within(header_of(a)..header_of(a) + size, header_of(b));
            }
            // A header field: section count, contents section and offset, class-name section.
            2 => {
                let at = [0x14, 0x18, 0x1C, 0x20, 0x24][rng.below(5)];
                let v = rng.word(get(data, at, e), &[sections as u32], sections as u32);
                put(&mut out, at, v, e);
            }
            // A local fixup: its source or destination.
            3 if !locals.is_empty() => {
                let r = locals[rng.below(locals.len())];
                let w = rng.below(2);
                let others: Vec<u32> = locals.iter().map(|&o| get(data, o + 4 * w, e)).collect();
                let v = rng.word(get(data, r + 4 * w, e), &others, len);
                put(&mut out, r + 4 * w, v, e);
            }
            // A global fixup: source, section or destination.
            4 if !globals.is_empty() => {
                let r = globals[rng.below(globals.len())];
                let w = rng.below(3);
                let end = if w == 1 { sections as u32 } else { len };
                let others: Vec<u32> = globals.iter().map(|&o| get(data, o + 4 * w, e)).collect();
                let v = rng.word(get(data, r + 4 * w, e), &others, end);
                put(&mut out, r + 4 * w, v, e);
            }
            // A virtual fixup: object, class-name section or class-name offset.
            5 if !virtuals.is_empty() => {
                let r = virtuals[rng.below(virtuals.len())];
                let w = rng.below(3);
                let end = if w == 1 { sections as u32 } else { len };
                let others: Vec<u32> = virtuals.iter().map(|&o| get(data, o + 4 * w, e)).collect();
                let v = rng.word(get(data, r + 4 * w, e), &others, end);
                put(&mut out, r + 4 * w, v, e);
            }
            // Virtual fixups copied over each other: duplicate objects, many of them.
            6 if virtuals.len() > 1 => {
                let src = virtuals[rng.below(virtuals.len())];
                let n = 1 + rng.below(virtuals.len());
                for &dst in virtuals.iter().take(n) {
                    out.copy_within(src..src + 12, dst);
                }
            }
            // The count after a pointer slot (an array header's count and capacity), kept
            // consistent so that strict reading gets as far as the count.
            7 if !slots.is_empty() => {
                let s = slots[rng.below(slots.len())];
                let old = if s + p + 4 <= data.len() {
                    get(data, s + p, e)
                } else {
                    0
                };
                let v = rng.word(old, &[], len);
                put(&mut out, s + p, v, e);
                if rng.below(2) == 0 {
                    put(&mut out, s + p + 4, v | 0x8000_0000, e);
                }
            }
            // A class-name entry: its signature, separator or a name byte.
            8 if !pf.class_names.is_empty() => {
                let names = &pf.sections[pf.header.class_names_section as usize];
                let c = pf.class_names[rng.below(pf.class_names.len())];
                let at = names.abs(c.offset) as usize;
                match rng.below(3) {
                    0 => put(&mut out, at - 5, rng.word(c.signature, &[], 0), e),
                    1 => out[at - 1] = rng.below(256) as u8,
                    _ => {
                        let k = at + rng.below(c.name.len() + 1);
                        out[k] = [0, 0xFF, b'?', 0x09][rng.below(4)];
                    }
                }
            }
            // A pointer slot: made non-zero, or its fixup pointed at another slot.
            9 if !slots.is_empty() => {
                let s = slots[rng.below(slots.len())];
                put(&mut out, s, rng.word(0, &[], len), e);
            }
            // Cut at a structure boundary: a section start or a table.
            10 if sections > 0 => {
                let s = &pf.sections[rng.below(sections)];
                let cut = match rng.below(4) {
                    0 => u64::from(s.start),
                    1 => s.abs(s.local_fixups),
                    2 => s.abs(s.virtual_fixups),
                    _ => s.abs(s.end),
                };
                out.truncate((cut as usize).min(out.len()));
                return out;
            }
            _ => times += 1,
        }
    }
    out
}

/// The file `data` (TAG0 at `tf.offset`) with the payload of the section at `path` replaced
/// by `payload` and every enclosing TAG0 section's size fixed (a wrapper's own sizes are
/// left alone: the reader must notice them).
fn with_payload(data: &[u8], tf: &TagFile, path: &[[u8; 4]], payload: &[u8]) -> Option<Vec<u8>> {
    let mut chain: Vec<&Section> = vec![&tf.root];
    for t in path {
        let s = chain.last()?.child(t)?;
        chain.push(s);
    }
    let (o, n) = chain.last()?.payload();
    let mut out = [&data[..o as usize], payload, &data[(o + n) as usize..]].concat();
    let grow = payload.len() as i64 - n as i64;
    for s in chain {
        let at = s.offset as usize;
        let w = u32::from_be_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
        let size = ((w & 0x3FFF_FFFF) as i64 + grow).clamp(0, 0x3FFF_FFFF) as u32;
        out[at..at + 4].copy_from_slice(&((w & 0xC000_0000) | size).to_be_bytes());
    }
    Some(out)
}

/// A type table with one type-level mutation.
fn mutate_table(t: &mut TypeTable, rng: &mut Rng<'_>) {
    let n = t.types.len();
    if n < 2 {
        return;
    }
    let mut ty = || 1 + rng.below(n - 1);
    let i = ty();
    let j = ty() as u64;
    let k = ty() as u64;
    let pick = rng.below(12);
    let body = t.types[i].body.get_or_insert_with(Body::default);
    match pick {
        0 => {
            let (s, a) = body.size_align.unwrap_or((0, 1));
            let s = [
                0,
                1,
                s + 1,
                s.saturating_sub(1),
                s * 64,
                1 << 31,
                u64::MAX >> 2,
            ][rng.below(7)];
            body.size_align = Some((s, [a, 0, 3, 16, 255][rng.below(5)]));
        }
        1 => {
            let kind = [0u64, 1, 2, 3, 4, 5, 6, 7, 8, 0x28, 0x99][rng.below(11)];
            let count = [0u64, 1, 4, 65535, 1 << 20][rng.below(5)];
            body.format = Some(if kind == 0x28 {
                count << 8 | kind
            } else {
                kind
            });
        }
        2 => body.subtype = Some([j, i as u64, 0][rng.below(3)]),
        3 => body.parent = [j, i as u64, 0][rng.below(3)],
        4 => {
            // Many members of one type at one offset (the expansion attack) or spread out.
            let count = [2, 16, 64, 1000][rng.below(4)];
            let spread = rng.below(2) == 1;
            body.members = Some(
                (0..count)
                    .map(|m| TagMember {
                        name: format!("fz{m}"),
                        flags: 0x20,
                        extra: None,
                        offset: if spread { 4 * m as u64 } else { 0 },
                        ty: j,
                    })
                    .collect(),
            );
            if body.format.is_none() {
                body.format = Some(7);
            }
        }
        5 => {
            if let Some(ms) = body.members.as_mut().filter(|m| !m.is_empty()) {
                let m = rng.below(ms.len());
                match rng.below(4) {
                    0 => ms[m].offset = [0, 1, 1 << 31, u64::MAX >> 2][rng.below(4)],
                    1 => ms[m].ty = k,
                    2 => {
                        let dup = ms[m].clone();
                        ms.push(dup);
                    }
                    _ => ms[m].flags ^= 0x80,
                }
            }
        }
        6 => {
            let p = &mut t.types[i].params;
            if p.is_empty() {
                p.push(hk_runtime::tagfile::types::Param {
                    name: "tT".into(),
                    value: j,
                });
            } else {
                let x = rng.below(p.len());
                p[x].value = [j, i as u64, 1 << 20][rng.below(3)];
            }
        }
        7 => {
            // A chain of records, each holding the next (by value) many times.
            let first = t.types.len() as u64;
            let levels = 2 + rng.below(6) as u64;
            let per = [2u64, 8, 64][rng.below(3)];
            for l in 0..levels {
                let next = if l + 1 == levels { j } else { first + l + 1 };
                t.types.push(TagType {
                    name: format!("Fz{l}"),
                    body: Some(Body {
                        format: Some(7),
                        size_align: Some((8, 8)),
                        members: Some(
                            (0..per)
                                .map(|m| TagMember {
                                    name: format!("m{m}"),
                                    flags: 0x20,
                                    extra: None,
                                    offset: 0,
                                    ty: next,
                                })
                                .collect(),
                        ),
                        ..Body::default()
                    }),
                    ..TagType::default()
                });
                t.body_order.push(first + l);
            }
        }
        8 => body.interfaces = Some(vec![(j, 0); 1 + rng.below(4)]),
        9 => t.types[i].name = t.types[j as usize].name.clone(),
        10 => body.version = Some(rng.below(1 << 20) as u64),
        _ => t.types[i].body = None,
    }
}

/// A tagfile with one structural mutation (or the input unchanged when it does not parse).
pub fn tagfile(data: &[u8], rules: &TagfileRules, rng: &mut Rng<'_>) -> Vec<u8> {
    let mut out = data.to_vec();
    let Ok(tf) = TagFile::parse(data) else {
        return out;
    };
    let item_at = tf
        .root
        .child(b"INDX")
        .and_then(|s| s.child(b"ITEM"))
        .map(|s| s.payload().0 as usize);
    let data_at = tf.root.child(b"DATA").map_or(0, |s| s.payload().0 as usize);
    let le = Endian::Little;
    match rng.below(8) {
        // The type table: decoded, changed at the type level, encoded again.
        0..=2 => {
            let mut t = tf.types.as_ref().clone();
            for _ in 0..1 + rng.below(3) {
                mutate_table(&mut t, rng);
            }
            if let Ok(bytes) = hk_runtime::tagfile::write::encode_table(&t, rules) {
                let ty = tf.root.child(b"TYPE").map(|s| (s.offset, s.size));
                if let Some((o, n)) = ty {
                    let payload = &bytes[8.min(bytes.len())..];
                    let (o, n) = (o as usize, n as usize);
                    let mut fixed = with_payload(data, &tf, &[*b"TYPE"], payload)
                        .unwrap_or_else(|| [&data[..o], &bytes[..], &data[o + n..]].concat());
                    // The item types keep their indices; point some at the new types.
                    if let Some(ia) = item_at {
                        if rng.below(2) == 0 && tf.items.len() > 1 {
                            let i = 1 + rng.below(tf.items.len() - 1);
                            let w = get(&fixed, ia + 12 * i, le) & 0xFF00_0000;
                            let nt = t.types.len().saturating_sub(1 + rng.below(8)) as u32;
                            put(&mut fixed, ia + 12 * i, w | (nt & 0xFF_FFFF), le);
                        }
                    }
                    return fixed;
                }
            }
        }
        // An ITEM entry: type and flags, DATA offset or count.
        3 if tf.items.len() > 1 => {
            let ia = item_at.unwrap_or(0);
            let i = 1 + rng.below(tf.items.len() - 1);
            let w = rng.below(3);
            let at = ia + 12 * i + 4 * w;
            let others: Vec<u32> = (1..tf.items.len())
                .map(|x| get(data, ia + 12 * x + 4 * w, le))
                .collect();
            let old = get(data, at, le);
            let v = match w {
                0 => {
                    let ty = rng.word(old & 0xFF_FFFF, &[], tf.types.types.len() as u32);
                    let flags = [0x10u32, 0x20, 0x30, 0][rng.below(4)] << 24;
                    if rng.below(2) == 0 {
                        flags | (ty & 0xFF_FFFF)
                    } else {
                        (old & 0xFF00_0000) | (ty & 0xFF_FFFF)
                    }
                }
                _ => rng.word(old, &others, (data.len() - data_at) as u32),
            };
            put(&mut out, at, v, le);
        }
        // A PTCH group's type, count or an offset.
        4 if !tf.patches.is_empty() => {
            let (po, pn) = tf
                .root
                .child(b"INDX")
                .and_then(|s| s.child(b"PTCH"))
                .map_or((0, 0), |s| s.payload());
            let words = (pn / 4) as usize;
            if words > 0 {
                let at = po as usize + 4 * rng.below(words);
                let v = rng.word(get(data, at, le), &[], (data.len() - data_at) as u32);
                put(&mut out, at, v, le);
            }
        }
        // A slot in DATA (named by PTCH): another item, or past ITEM.
        5 if !tf.patches.is_empty() => {
            let g = &tf.patches[rng.below(tf.patches.len())];
            if !g.offsets.is_empty() {
                let at = data_at + g.offsets[rng.below(g.offsets.len())] as usize;
                let v = rng.word(get(data, at, le), &[], tf.items.len() as u32);
                put(&mut out, at, v, le);
            }
        }
        // A section's size word, or its flag bits.
        6 => {
            let mut all = Vec::new();
            fn walk<'s>(s: &'s Section, out: &mut Vec<&'s Section>) {
                out.push(s);
                for c in &s.children {
                    walk(c, out);
                }
            }
            walk(&tf.root, &mut all);
            let s = all[rng.below(all.len())];
            let at = s.offset as usize;
            let w = u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
            let v = if rng.below(3) == 0 {
                w ^ 0x4000_0000
            } else {
                (w & 0xC000_0000)
                    | (rng.word(w & 0x3FFF_FFFF, &[], data.len() as u32) & 0x3FFF_FFFF)
            };
            out[at..at + 4].copy_from_slice(&v.to_be_bytes());
        }
        // A counted table of TYPE replaced by a huge count over zeros (the attack on
        // counts that fit the bytes left but not the memory).
        _ => {
            let ty = tf.root.child(b"TYPE");
            let tags: Vec<[u8; 4]> = ty
                .map(|t| t.children.iter().map(|c| c.tag).collect())
                .unwrap_or_default();
            let counted: Vec<[u8; 4]> = tags
                .into_iter()
                .filter(|t| matches!(t, b"TNAM" | b"TNA1" | b"TBOD" | b"TBDY" | b"THSH"))
                .collect();
            if !counted.is_empty() {
                let tag = counted[rng.below(counted.len())];
                let n = [1u64 << 10, 1 << 16, 1 << 20][rng.below(3)];
                let mut payload = Vec::new();
                varint::write(&mut payload, n);
                payload.resize(payload.len() + [2usize, 64, 1 << 12][rng.below(3)], 0);
                payload.resize(payload.len().div_ceil(4) * 4, 0);
                if let Some(o) = with_payload(data, &tf, &[*b"TYPE", tag], &payload) {
                    return o;
                }
            }
        }
    }
    out
}
