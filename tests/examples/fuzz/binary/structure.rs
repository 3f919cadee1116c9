//! Structure-aware mutations of binary tagfiles: the stream is walked first (`walk.rs`),
//! then one to three things its records say are there are changed, or records that stress
//! one rule are added, and the stream is rewritten with every string reference renumbered
//! (`rewrite.rs`). What changes:
//!
//! - class definitions: member counts, type codes (basic type, array and tuple flags, with
//!   the class name or tuple count they bring or drop), tuple counts, parent numbers
//!   (none, itself, past the end), class names and member names (another's: defined or
//!   declared twice), member class names (undefined, null, the class itself);
//! - objects: class numbers, bitfields, array counts, integer and vector widths, object
//!   references; records deleted, repeated, or classes moved after the objects;
//! - strings: null, past the table, another string, a 64 KiB string;
//! - tags and versions;
//! - added records: up to 200,000 classes, parent chains around the 256 the schema
//!   follows, structs by value nested around the depth limit, classes that contain each
//!   other, classes that hold many of a class that holds many, struct arrays of huge
//!   counts whose elements take no bytes, classes of up to 70,000 members, up to
//!   1,000,000 objects, thousands of remembered strings, long names referenced many times.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::rewrite::{rewrite, string_numbers, Edit, Insert, Table};
use super::walk::{varint, Walk};

/// The random source: xorshift from the caller.
pub struct Rng<'a>(pub &'a mut dyn FnMut() -> u64);

impl Rng<'_> {
    fn next(&mut self) -> u64 {
        (self.0)()
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }

    /// A size from 1 to `max`, each power of two as likely as the next.
    fn size(&mut self, max: usize) -> usize {
        let bits = 64 - (max as u64).leading_zeros();
        let top = 1u64 << self.below(bits as usize + 1);
        ((self.next() % top) as usize + 1).min(max)
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }

    /// A value attacks use on a number: zero, one off, the ends of 16, 32 and 64 bits,
    /// a huge random one.
    fn number(&mut self, near: i64) -> i64 {
        match self.below(12) {
            0 => 0,
            1 => near.saturating_add(1),
            2 => near.saturating_sub(1),
            3 => -1,
            4 => 65_535,
            5 => 65_536,
            6 => i64::from(i32::MAX),
            7 => i64::from(i32::MIN),
            8 => i64::MAX,
            9 => i64::MIN,
            10 => (self.next() >> 1) as i64,
            _ => near
                .saturating_mul(2)
                .saturating_add(self.below(100) as i64),
        }
    }
}

/// What the walk found, by kind of event and by record.
struct Stream<'a> {
    data: &'a [u8],
    w: Walk<'a>,
    /// Each string event's table number.
    numbers: Vec<Option<i64>>,
    /// Per class definition: the event index of its name, and of each member's name.
    classes: Vec<(usize, Vec<usize>)>,
    /// Offsets of the first object record and of the end tag.
    first_object: usize,
    end: usize,
}

impl<'a> Stream<'a> {
    fn new(data: &'a [u8]) -> Self {
        let w = Walk::new(data);
        let numbers = string_numbers(&w);
        let mut classes: Vec<(usize, Vec<usize>)> = Vec::new();
        for (k, e) in w.evs.iter().enumerate() {
            match e.kind {
                "class_name" => classes.push((k, Vec::new())),
                "member_name" => {
                    if let Some(c) = classes.last_mut() {
                        c.1.push(k);
                    }
                }
                _ => {}
            }
        }
        let tag_at = |v: i64| {
            w.evs
                .iter()
                .find(|e| e.kind == "tag" && e.value == v)
                .map_or(data.len(), |e| e.at)
        };
        let (first_object, end) = (tag_at(4), tag_at(7));
        Stream {
            data,
            w,
            numbers,
            classes,
            first_object,
            end,
        }
    }

    /// Indices of the events of `kind`.
    fn of(&self, kind: &str) -> Vec<usize> {
        (0..self.w.evs.len())
            .filter(|&k| self.w.evs[k].kind == kind)
            .collect()
    }

    /// The text string event `k` denotes.
    fn text(&self, k: usize) -> Vec<u8> {
        self.numbers[k]
            .and_then(|n| self.w.strings.get(n as usize).cloned().flatten())
            .unwrap_or_default()
    }

    /// The byte range of the record whose tag is event `k`: up to the next tag.
    fn record(&self, k: usize) -> (usize, usize) {
        let start = self.w.evs[k].at;
        let end = self.w.evs[k + 1..]
            .iter()
            .find(|e| e.kind == "tag")
            .map_or(self.data.len(), |e| e.at);
        (start, end)
    }
}

/// What one mutation adds to the rewrite.
#[derive(Default)]
struct Plan {
    edits: BTreeMap<usize, Edit>,
    inserts: Vec<(usize, Insert)>,
    /// Classes and objects the added records define so far (numbering the next ones).
    classes: usize,
    objects: usize,
    what: Vec<String>,
}

/// One structure-aware mutation of binary tagfile `data`, and what it did.
pub fn mutate(data: &[u8], rng: &mut Rng<'_>) -> (Vec<u8>, String) {
    let s = Stream::new(data);
    let mut plan = Plan {
        classes: s.w.classes.len(),
        objects: s.w.objects,
        ..Plan::default()
    };
    for _ in 0..1 + rng.below(3) {
        if rng.chance(3) {
            added(&s, &mut plan, rng);
        } else {
            field(&s, &mut plan, rng);
        }
    }
    let out = rewrite(data, &s.w, &plan.edits, plan.inserts);
    (out, plan.what.join(", "))
}

/// Changes one field or record the walk found.
fn field(s: &Stream<'_>, plan: &mut Plan, rng: &mut Rng<'_>) {
    const KINDS: [&str; 16] = [
        "member_count",
        "type_code",
        "tuple_count",
        "parent",
        "class_name",
        "member_name",
        "member_class",
        "string",
        "object_class",
        "array_count",
        "int_width",
        "vec_width",
        "ref",
        "tag",
        "bitfield",
        "record",
    ];
    let kind = rng.pick(&KINDS);
    plan.what.push(kind.to_string());
    let evs = &s.w.evs;
    let one = |rng: &mut Rng<'_>, kind: &str| {
        let ks = s.of(kind);
        (!ks.is_empty()).then(|| ks[rng.below(ks.len())])
    };
    match kind {
        "type_code" => {
            if let Some(k) = one(rng, kind) {
                type_code(s, plan, rng, k);
            }
        }
        "parent" => {
            if let Some(k) = one(rng, kind) {
                let class = s.classes.iter().filter(|c| c.0 < k).count() as i64;
                let v = match rng.below(4) {
                    0 => class,
                    1 => class + 1,
                    2 => rng.below(class as usize + 1) as i64,
                    _ => rng.number(evs[k].value),
                };
                plan.edits.insert(k, Edit::Int(v));
            }
        }
        "class_name" if s.classes.len() > 1 => {
            // Another class's name: a class defined twice.
            let (a, b) = (rng.below(s.classes.len()), rng.below(s.classes.len()));
            let text = s.text(s.classes[a].0);
            plan.edits.insert(s.classes[b].0, Edit::Text(text));
        }
        "member_name" => {
            // Another member's name of the same class: a member declared twice.
            let c = &s.classes[rng.below(s.classes.len())].1;
            if c.len() > 1 {
                let (a, b) = (rng.below(c.len()), rng.below(c.len()));
                plan.edits.insert(c[b], Edit::Text(s.text(c[a])));
            }
        }
        "member_class" => {
            if let Some(k) = one(rng, kind) {
                let own = s.classes.iter().rev().find(|c| c.0 < k).map(|c| c.0);
                let e = match rng.below(4) {
                    0 => Edit::Ref(-1),
                    1 => Edit::Text(b"hkFuzzUndefined".to_vec()),
                    2 => Edit::Text(own.map(|c| s.text(c)).unwrap_or_default()),
                    _ => Edit::Text(s.text(s.classes[rng.below(s.classes.len())].0)),
                };
                plan.edits.insert(k, e);
            }
        }
        "string" => {
            let ks: Vec<usize> = (0..evs.len()).filter(|&k| s.numbers[k].is_some()).collect();
            if !ks.is_empty() {
                let k = ks[rng.below(ks.len())];
                let e = match rng.below(4) {
                    0 => Edit::Ref(-1),
                    1 => Edit::Ref(-(s.w.strings.len() as i64) - rng.below(3) as i64),
                    2 => Edit::Text(vec![b'A'; 1 << 16]),
                    _ => Edit::Text(s.text(ks[rng.below(ks.len())])),
                };
                plan.edits.insert(k, e);
            }
        }
        "bitfield" => {
            if let Some(k) = one(rng, kind) {
                let n = evs[k].len;
                let bytes = match rng.below(4) {
                    0 => vec![0xFF; n],
                    1 => vec![0; n],
                    2 => vec![0xFF; n + 1],
                    _ => (0..n).map(|_| rng.next() as u8).collect(),
                };
                plan.edits.insert(k, Edit::Raw(bytes));
            }
        }
        "record" => record(s, plan, rng),
        _ => {
            if let Some(k) = one(rng, kind) {
                let v = match kind {
                    "tag" => rng.pick(&[0, 1, 3, 5, 6, 7, 8, 1 << 40]),
                    "int_width" => rng.pick(&[0, 3, 4, 8, 16, -4]),
                    "vec_width" => rng.pick(&[0, 2, 3, 4, 5, -3]),
                    "object_class" | "ref" => match rng.below(3) {
                        0 => rng.below(s.w.classes.len().max(s.w.objects) + 2) as i64,
                        _ => rng.number(evs[k].value),
                    },
                    _ => rng.number(evs[k].value),
                };
                plan.edits.insert(k, Edit::Int(v));
            }
        }
    }
}

/// A type code changed: another basic type (adding or dropping the class name it names),
/// the array flag flipped, the tuple flag set (with a count) or cleared (dropping it), or
/// any six bits.
fn type_code(s: &Stream<'_>, plan: &mut Plan, rng: &mut Rng<'_>, k: usize) {
    let evs = &s.w.evs;
    let code = evs[k].value;
    let has_class = |c: i64| matches!(c & 0xF, 8 | 9);
    let tuple = code & 0x20 != 0;
    // The events after the code: its tuple count, then its class name.
    let class_at = k + 1 + usize::from(tuple);
    match rng.below(4) {
        0 => {
            let new = (code & !0xF) | rng.below(11) as i64;
            let mut raw = varint(new);
            if tuple {
                raw.extend(varint(evs[k + 1].value));
                plan.edits.insert(k + 1, Edit::Delete);
            }
            plan.edits.insert(k, Edit::Raw(raw));
            if has_class(code) && !has_class(new) {
                plan.edits.insert(class_at, Edit::Delete);
            } else if has_class(new) && !has_class(code) {
                let name = s.text(s.classes[rng.below(s.classes.len())].0);
                let at = evs.get(class_at).map_or(s.end, |e| e.at);
                plan.inserts.push((
                    at,
                    Box::new(move |t: &mut Table| {
                        let mut out = Vec::new();
                        t.put(&mut out, &name);
                        out
                    }),
                ));
            }
        }
        1 if !tuple => {
            plan.edits.insert(k, Edit::Int(code ^ 0x10));
        }
        2 if !tuple => {
            let mut raw = varint((code & !0x10) | 0x20);
            raw.extend(varint(rng.pick(&[0, 1, 2, 65_535, 65_536, -1, 1 << 33])));
            plan.edits.insert(k, Edit::Raw(raw));
        }
        2 => {
            plan.edits.insert(k, Edit::Int(code & !0x20));
            plan.edits.insert(k + 1, Edit::Delete);
        }
        _ => {
            plan.edits.insert(k, Edit::Int(rng.below(64) as i64));
        }
    }
}

/// A record deleted, repeated before the end tag, or a class definition moved after the
/// objects.
fn record(s: &Stream<'_>, plan: &mut Plan, rng: &mut Rng<'_>) {
    let tags: Vec<usize> = s
        .of("tag")
        .into_iter()
        .filter(|&k| matches!(s.w.evs[k].value, 2 | 4))
        .collect();
    if tags.is_empty() {
        return;
    }
    let k = tags[rng.below(tags.len())];
    let (start, end) = s.record(k);
    let bytes = s.data[start..end].to_vec();
    let copies = match rng.below(3) {
        0 => 0,
        1 => 1,
        _ => rng.size(1000),
    };
    if rng.chance(2) {
        // Deleted (or moved): every event of the record goes.
        for (j, e) in s.w.evs.iter().enumerate() {
            if (start..end).contains(&e.at) {
                plan.edits.insert(j, Edit::Delete);
            }
        }
    }
    plan.what.push(format!("{} x{copies}", s.w.evs[k].value));
    plan.inserts
        .push((s.end, Box::new(move |_: &mut Table| bytes.repeat(copies))));
}

/// Adds records that stress one rule: classes before the first object, objects before the
/// end tag.
fn added(s: &Stream<'_>, plan: &mut Plan, rng: &mut Rng<'_>) {
    let first = plan.classes + 1;
    let tag = plan.classes;
    let mut classes: Vec<Def> = Vec::new();
    let mut objects: Vec<Vec<u8>> = Vec::new();
    let what = match rng.below(10) {
        0 => {
            let n = rng.size(200_000);
            classes.extend((0..n).map(|i| Def::new(format!("Fz{tag}c{i}"), 0)));
            objects.push(object(first + n - 1, &[]));
            format!("{n} classes")
        }
        1 => {
            let any = rng.size(100_000);
            let n = rng.pick(&[100, 255, 256, 257, 258, 1000, any]);
            classes.extend((0..n).map(|i| {
                let parent = if i == 0 { 0 } else { first + i - 1 };
                Def::new(format!("Fz{tag}p{i}"), parent)
            }));
            for i in 0..n.min(rng.size(n)) {
                objects.push(object(first + i, &[]));
            }
            format!("a chain of {n} parents")
        }
        2 => {
            let d = rng.pick(&[8, 46, 47, 48, 49, 50, 64, 200, 256, 300]);
            let mut base = Def::new(format!("Fz{tag}n0"), 0);
            base.member("v", 2, None);
            classes.push(base);
            for i in 1..=d {
                let mut c = Def::new(format!("Fz{tag}n{i}"), 0);
                c.member("s", 9, Some(format!("Fz{tag}n{}", i - 1).into()));
                classes.push(c);
            }
            // Every struct present down to the integer.
            let mut body = vec![1u8; d + 1];
            body.extend(varint(rng.number(7)));
            objects.push(object(first + d, &body));
            format!("structs nested {d} deep")
        }
        3 => {
            let mut a = Def::new(format!("Fz{tag}a"), 0);
            a.member("b", 9, Some(format!("Fz{tag}b").into()));
            let mut b = Def::new(format!("Fz{tag}b"), 0);
            b.member("a", rng.pick(&[9, 0x29]), Some(format!("Fz{tag}a").into()));
            if b.members[0].code & 0x20 != 0 {
                b.members[0].tuple = Some(rng.pick(&[1, 2, 65_535]));
            }
            classes.extend([a, b]);
            objects.push(object(first, &[rng.pick(&[0, 1])]));
            "classes containing each other".into()
        }
        4 => {
            // Each level holds `k` of the one below, by value or as tuples.
            let (k, levels) = (2 + rng.below(15), 2 + rng.below(11));
            let tuple = rng.chance(3);
            let mut base = Def::new(format!("Fz{tag}f0"), 0);
            for j in 0..k {
                base.member(&format!("x{j}"), 2, None);
            }
            classes.push(base);
            for i in 1..=levels {
                let mut c = Def::new(format!("Fz{tag}f{i}"), 0);
                for j in 0..k {
                    let code = if tuple { 0x29 } else { 9 };
                    c.member(
                        &format!("s{j}"),
                        code,
                        Some(format!("Fz{tag}f{}", i - 1).into()),
                    );
                    if tuple {
                        c.members[j].tuple = Some(rng.pick(&[2, 255, 65_535]));
                    }
                }
                classes.push(c);
            }
            objects.push(object(first + levels, &vec![0; k.div_ceil(8)]));
            format!("{k} of {k} ... {levels} levels deep")
        }
        5 => {
            // An array of structs whose elements take no bytes.
            let mut e = Def::new(format!("Fz{tag}e"), 0);
            e.member("e", rng.pick(&[2, 3, 10]), None);
            let mut h = Def::new(format!("Fz{tag}h"), 0);
            h.member("a", 0x19, Some(format!("Fz{tag}e").into()));
            classes.extend([e, h]);
            let any = rng.size(1 << 30) as i64;
            let n = rng.pick(&[1 << 20, 1 << 24, i64::from(i32::MAX), any]);
            let mut body = vec![1u8];
            body.extend(varint(n));
            body.push(0);
            objects.push(object(first + 1, &body));
            format!("a struct array of {n}")
        }
        6 => {
            let n = rng.size(70_000);
            let mut c = Def::new(format!("Fz{tag}w"), 0);
            let own: Rc<str> = c.name.as_str().into();
            for j in 0..n {
                let code = rng.pick(&[1, 2, 3, 4, 7, 8, 10, 0x12, 0x13, 0x1A]);
                let class = (code & 0xF == 8).then(|| Rc::clone(&own));
                c.member(&format!("w{j}"), code, class);
            }
            if n > 1 && rng.chance(4) {
                let dup = c.members[rng.below(n)].name.clone();
                c.members[rng.below(n)].name = dup;
            }
            classes.push(c);
            objects.push(object(first, &vec![0; n.div_ceil(8)]));
            format!("a class of {n} members")
        }
        7 => {
            let n = rng.size(1_000_000);
            classes.push(Def::new(format!("Fz{tag}o"), 0));
            objects.extend(std::iter::repeat_n(object(first, &[]), n));
            format!("{n} objects")
        }
        8 => {
            // Many strings written out, or one long one referenced many times.
            let n = rng.size(100_000);
            let mut c = Def::new(format!("Fz{tag}s"), 0);
            c.member("s", 0x1A, None);
            classes.push(c);
            let long = rng.chance(2);
            let class = first;
            let body: Insert = Box::new(move |t: &mut Table| {
                let mut out = varint(4);
                out.extend(varint(class as i64));
                out.push(1);
                out.extend(varint(n as i64));
                let text = vec![b'L'; 1 << 16];
                for i in 0..n {
                    if long {
                        t.put(&mut out, &text);
                    } else {
                        t.put(&mut out, format!("fz{i}").as_bytes());
                    }
                }
                out
            });
            plan.inserts.push((s.end, body));
            plan.objects += 1;
            format!("{n} strings{}", if long { " (one long)" } else { "" })
        }
        _ => {
            // A long class name, which many members name.
            let n = rng.size(60_000);
            let long = format!("Fz{tag}{}", "N".repeat(1 << 14));
            classes.push(Def::new(long.clone(), 0));
            let long: Rc<str> = long.into();
            let mut c = Def::new(format!("Fz{tag}l"), 0);
            for j in 0..n {
                c.member(&format!("l{j}"), rng.pick(&[8, 0x18]), Some(long.clone()));
            }
            classes.push(c);
            objects.push(object(first + 1, &vec![0; n.div_ceil(8)]));
            format!("{n} members naming a 16 KiB class name")
        }
    };
    plan.classes += classes.len();
    plan.objects += objects.len();
    plan.what.push(what);
    plan.inserts.push((
        s.first_object,
        Box::new(move |t: &mut Table| {
            let mut out = Vec::new();
            for c in &classes {
                c.write(&mut out, t);
            }
            out
        }),
    ));
    plan.inserts
        .push((s.end, Box::new(move |_: &mut Table| objects.concat())));
}

/// A class definition to add: name, parent number, members.
struct Def {
    name: String,
    parent: usize,
    members: Vec<NewMember>,
}

/// A member of a class definition to add.
struct NewMember {
    name: String,
    code: i64,
    /// Shared: many members may name one long name.
    class: Option<Rc<str>>,
    tuple: Option<i64>,
}

impl Def {
    fn new(name: String, parent: usize) -> Self {
        Def {
            name,
            parent,
            members: Vec::new(),
        }
    }

    fn member(&mut self, name: &str, code: i64, class: Option<Rc<str>>) {
        self.members.push(NewMember {
            name: name.to_string(),
            code,
            class,
            tuple: None,
        });
    }

    fn write(&self, out: &mut Vec<u8>, t: &mut Table) {
        out.extend(varint(2));
        t.put(out, self.name.as_bytes());
        out.extend(varint(0));
        out.extend(varint(self.parent as i64));
        out.extend(varint(self.members.len() as i64));
        for m in &self.members {
            t.put(out, m.name.as_bytes());
            out.extend(varint(m.code));
            if m.code & 0x20 != 0 {
                out.extend(varint(m.tuple.unwrap_or(1)));
            }
            if matches!(m.code & 0xF, 8 | 9) {
                match &m.class {
                    Some(c) => t.put(out, c.as_bytes()),
                    None => out.extend(varint(-1)),
                }
            }
        }
    }
}

/// An object record of class number `class` with this body.
fn object(class: usize, body: &[u8]) -> Vec<u8> {
    let mut out = varint(4);
    out.extend(varint(class as i64));
    out.extend_from_slice(body);
    out
}
