//! Structural mutations of a schema folder held in memory: each changes what the TOML
//! says (a key's type, a number, a name, a parent, a member that holds a class by value,
//! offsets and sizes, enum items), adds or removes keys, tables, files and chains of
//! classes, or writes what TOML cannot hold as a value (duplicate keys, integers past 64
//! bits, a line of thousands of bad values). Untouched files keep their shipped text.

use toml::{Table, Value};

/// A tiny seeded generator over `hk_tests::xorshift`.
pub struct Rng(pub Box<dyn FnMut() -> u64>);

impl Rng {
    pub fn next(&mut self) -> u64 {
        (self.0)()
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

/// One class file: its stem and its text.
#[derive(Clone)]
pub struct ClassFile {
    pub stem: String,
    pub text: String,
}

/// A schema folder in memory.
#[derive(Clone)]
pub struct Folder {
    pub name: String,
    pub generation: String,
    pub classes: Vec<ClassFile>,
}

/// Numbers an attack puts where a count, size, offset or value goes.
const NUMBERS: [i64; 16] = [
    0,
    -1,
    1,
    3,
    255,
    256,
    65_535,
    65_536,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x1_0000_0000,
    i64::MAX,
    i64::MIN,
    -0x8000_0000,
    1 << 40,
];

/// Names that are not identifiers (and a few that are, but clash).
const NAMES: [&str; 14] = [
    "",
    " ",
    "a b",
    "1abc",
    "é",
    "a::b",
    "a\"b",
    "a\nb",
    "../x",
    "$(x)",
    "🦀",
    "\u{0}",
    "self",
    "hkBaseObject",
];

/// Keys the schema format knows, and a few it does not.
const KEYS: [&str; 24] = [
    "name",
    "parent",
    "interfaces",
    "version",
    "flags",
    "signature",
    "hash",
    "size",
    "align",
    "enums",
    "members",
    "pinned",
    "note",
    "type",
    "subtype",
    "element",
    "class",
    "enum",
    "array_size",
    "offset",
    "gap_before",
    "items",
    "value",
    "colour",
];

const TYPES: [&str; 12] = [
    "struct", "array", "pointer", "enum", "real", "vector4", "matrix4", "int32", "cstring",
    "variant", "relarray", "nonsense",
];

/// A value of a kind chosen at random (a wrong type for most keys).
fn any_value(r: &mut Rng) -> Value {
    match r.below(8) {
        0 => Value::String(r.pick(&NAMES).unwrap().to_string()),
        1 => Value::Integer(*r.pick(&NUMBERS).unwrap()),
        2 => Value::Float([f64::NAN, f64::INFINITY, -0.0, 1e308, 0.5][r.below(5)]),
        3 => Value::Boolean(r.chance(2)),
        4 => Value::Array(vec![Value::Integer(1), Value::String("x".into())]),
        5 => Value::Array(Vec::new()),
        6 => {
            let mut t = Table::new();
            t.insert("name".into(), Value::String("x".into()));
            Value::Table(t)
        }
        _ => Value::String(format!("0x{:X}", r.next())),
    }
}

/// Every table of a class document: the document, its members, enums, their items and
/// the pinned table, as paths of (key, index) steps.
fn tables(doc: &Table) -> Vec<Vec<(String, Option<usize>)>> {
    let mut out = vec![Vec::new()];
    for key in ["members", "enums"] {
        if let Some(Value::Array(a)) = doc.get(key) {
            for (i, v) in a.iter().enumerate() {
                out.push(vec![(key.to_string(), Some(i))]);
                if let (Value::Table(t), "enums") = (v, key) {
                    if let Some(Value::Array(items)) = t.get("items") {
                        for j in 0..items.len() {
                            out.push(vec![(key.to_string(), Some(i)), ("items".into(), Some(j))]);
                        }
                    }
                }
            }
        }
    }
    if doc.contains_key("pinned") {
        out.push(vec![("pinned".into(), None)]);
    }
    out
}

fn table_at<'a>(doc: &'a mut Table, path: &[(String, Option<usize>)]) -> Option<&'a mut Table> {
    let mut t = doc;
    for (key, index) in path {
        let v = t.get_mut(key)?;
        let v = match (v, index) {
            (Value::Array(a), Some(i)) => a.get_mut(*i)?,
            (v, None) => v,
            _ => return None,
        };
        let Value::Table(next) = v else { return None };
        t = next;
    }
    Some(t)
}

/// One change to one table of a class or of `generation.toml`.
fn change_table(t: &mut Table, r: &mut Rng, class_names: &[String]) {
    let keys: Vec<String> = t.keys().cloned().collect();
    let key = r.pick(&keys).cloned();
    match (r.below(9), key) {
        (0, Some(k)) => {
            t.insert(k, any_value(r));
        }
        (1, Some(k)) => {
            t.insert(k, Value::Integer(*r.pick(&NUMBERS).unwrap()));
        }
        (2, Some(k)) => {
            t.remove(&k);
        }
        (3, _) => {
            let k = r.pick(&KEYS).unwrap();
            t.insert(k.to_string(), any_value(r));
        }
        (4, _) => {
            t.insert(
                "name".into(),
                Value::String(r.pick(&NAMES).unwrap().to_string()),
            );
        }
        (5, _) => {
            let c = r.pick(class_names).cloned().unwrap_or_default();
            t.insert("class".into(), Value::String(c));
        }
        (6, _) => {
            t.insert(
                "type".into(),
                Value::String(r.pick(&TYPES).unwrap().to_string()),
            );
        }
        (7, _) => {
            let k = [
                "offset",
                "size",
                "align",
                "array_size",
                "gap_before",
                "value",
            ][r.below(6)];
            t.insert(k.into(), Value::Integer(*r.pick(&NUMBERS).unwrap()));
        }
        _ => {
            let e = ["AnimationType", "Nope", ""][r.below(3)];
            t.insert("enum".into(), Value::String(e.into()));
        }
    }
}

/// A member table holding `class` by value (`array_size` copies of it when given).
fn by_value(name: &str, class: &str, array_size: Option<i64>) -> Value {
    let mut m = Table::new();
    m.insert("name".into(), Value::String(name.into()));
    m.insert("type".into(), Value::String("struct".into()));
    m.insert("class".into(), Value::String(class.into()));
    if let Some(n) = array_size {
        m.insert("array_size".into(), Value::Integer(n));
    }
    Value::Table(m)
}

fn push_member(doc: &mut Table, member: Value) {
    match doc.get_mut("members") {
        Some(Value::Array(a)) => a.push(member),
        _ => {
            doc.insert("members".into(), Value::Array(vec![member]));
        }
    }
}

fn class_doc(name: &str, parent: Option<&str>) -> Table {
    let mut t = Table::new();
    t.insert("name".into(), Value::String(name.into()));
    if let Some(p) = parent {
        t.insert("parent".into(), Value::String(p.into()));
    }
    t
}

fn file(stem: &str, doc: &Table) -> ClassFile {
    ClassFile {
        stem: stem.to_string(),
        text: toml::to_string(doc).unwrap_or_default(),
    }
}

/// Adds a chain of `n` new classes, each the parent of the next or held by value by it
/// (`fan` members of `times` copies each), starting from a random class; the chain may
/// close on itself.
fn chain(f: &mut Folder, r: &mut Rng, n: usize, parents: bool, times: Option<i64>, fan: usize) {
    let base = format!("Fz{}", r.below(1 << 20));
    let from = r.pick(&f.classes).map(|c| c.stem.clone());
    let close = r.chance(4);
    for i in 0..n {
        let name = format!("{base}_{i}");
        let prev = if i == 0 {
            from.clone()
        } else {
            Some(format!("{base}_{}", i - 1))
        };
        let prev = if close && i == 0 {
            Some(format!("{base}_{}", n - 1))
        } else {
            prev
        };
        let mut doc = class_doc(&name, if parents { prev.as_deref() } else { None });
        if !parents {
            if let Some(p) = &prev {
                for k in 0..fan {
                    push_member(&mut doc, by_value(&format!("held{k}"), p, times));
                }
            }
        }
        f.classes.push(file(&name, &doc));
    }
}

/// A line of `n` bad values: enum items whose values are strings (and, every seventh,
/// a number past 32 bits), all on one line.
fn long_line(n: usize) -> String {
    let mut t = String::from("\n[[enums]]\nname = \"FuzzLine\"\nitems = [");
    for i in 0..n {
        if i % 7 == 0 {
            t.push_str(&format!("{{ name = \"V{i}\", value = 99999999999 }}, "));
        } else {
            t.push_str(&format!("{{ name = \"V{i}\", value = \"é{i}\" }}, "));
        }
    }
    t.push_str("]\n");
    t
}

/// Changes one class file's text in a way TOML values cannot: a duplicated key line or
/// table header, an integer past 64 bits, a character inserted, a cut, or a long line.
fn text_change(text: &mut String, r: &mut Rng) {
    let lines: Vec<&str> = text.lines().collect();
    let line = r.pick(&lines).map(|l| l.to_string()).unwrap_or_default();
    match r.below(6) {
        0 => text.push_str(&format!("\n{line}\n")),
        1 => text.push_str("\nsize = 99999999999999999999999999\n"),
        2 => {
            let at = floor(text, r.below(text.len() + 1));
            let c = ['"', '[', ']', '=', '{', '\n', '#', 'é', '\\', '\''][r.below(10)];
            text.insert(at, c);
        }
        3 => {
            let at = floor(text, r.below(text.len() + 1));
            text.truncate(at);
        }
        4 => text.push_str("\n[[members]]\nname = \"dup\"\ntype = \"int32\"\nname = \"dup\"\n"),
        _ => {
            let n = [10, 1_000, 20_000, 100_000][r.below(4)];
            text.push_str(&long_line(n));
        }
    }
}

fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Applies one to three mutations to `f`. One time in three only mutations that mostly
/// leave the folder loadable (chains of classes, C-array counts, stated offsets and
/// sizes), so that layouts, plans and signatures meet them.
pub fn mutate(f: &mut Folder, r: &mut Rng) {
    let loadable = r.chance(3);
    for _ in 0..1 + r.below(3) {
        if loadable {
            mostly_loadable(f, r);
        } else {
            one(f, r);
        }
    }
}

fn mostly_loadable(f: &mut Folder, r: &mut Rng) {
    let Some(i) = (!f.classes.is_empty()).then(|| r.below(f.classes.len())) else {
        return;
    };
    match r.below(3) {
        0 => {
            let n = [10, 40, 1_000, 10_000][r.below(4)];
            let parents = r.chance(2);
            let times = [None, Some(65_535), Some(2), Some(255)][r.below(4)];
            let fan = 1 + r.below(3);
            // Containment chains past 64 levels do not load.
            let n = if parents { n } else { n.min(60) };
            chain(f, r, n, parents, times, fan);
        }
        _ => {
            let Ok(mut doc) = f.classes[i].text.parse::<Table>() else {
                return;
            };
            let key = ["array_size", "offset", "size", "align", "gap_before"][r.below(5)];
            let v = *r.pick(&NUMBERS).unwrap();
            let target = if key == "size" || key == "align" {
                Some(&mut doc)
            } else {
                match doc.get_mut("members") {
                    Some(Value::Array(a)) if !a.is_empty() => {
                        let k = r.below(a.len());
                        match &mut a[k] {
                            Value::Table(t) => Some(t),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            };
            if let Some(t) = target {
                t.insert(key.into(), Value::Integer(v.clamp(0, 65_535)));
            }
            f.classes[i].text = toml::to_string(&doc).unwrap_or_default();
        }
    }
}

fn one(f: &mut Folder, r: &mut Rng) {
    let names: Vec<String> = f.classes.iter().map(|c| c.stem.clone()).collect();
    if f.classes.is_empty() || r.chance(12) {
        // generation.toml: a table change, or a text change.
        if r.chance(3) {
            text_change(&mut f.generation, r);
        } else if let Ok(mut doc) = f.generation.parse::<Table>() {
            let sub = [
                "layout",
                "member_types",
                "member_flags",
                "tagfile",
                "packfile",
            ];
            let which = sub[r.below(sub.len())];
            match doc.get_mut(which) {
                Some(Value::Table(t)) if r.chance(2) => change_table(t, r, &names),
                _ => change_table(&mut doc, r, &names),
            }
            f.generation = toml::to_string(&doc).unwrap_or_default();
        }
        return;
    }
    let i = r.below(f.classes.len());
    match r.below(14) {
        0..=5 => {
            let Ok(mut doc) = f.classes[i].text.parse::<Table>() else {
                return;
            };
            let paths = tables(&doc);
            let path = r.pick(&paths).cloned().unwrap_or_default();
            if let Some(t) = table_at(&mut doc, &path) {
                change_table(t, r, &names);
            }
            f.classes[i].text = toml::to_string(&doc).unwrap_or_default();
        }
        6 => text_change(&mut f.classes[i].text, r),
        7 => {
            // A parent: itself, another class, or a two-class cycle.
            let Ok(mut doc) = f.classes[i].text.parse::<Table>() else {
                return;
            };
            let other = r.pick(&names).cloned().unwrap_or_default();
            let me = f.classes[i].stem.clone();
            let parent = if r.chance(2) {
                me.clone()
            } else {
                other.clone()
            };
            doc.insert("parent".into(), Value::String(parent));
            f.classes[i].text = toml::to_string(&doc).unwrap_or_default();
            if let Some(j) = f.classes.iter().position(|c| c.stem == other) {
                if let Ok(mut d) = f.classes[j].text.parse::<Table>() {
                    d.insert("parent".into(), Value::String(me));
                    f.classes[j].text = toml::to_string(&d).unwrap_or_default();
                }
            }
        }
        8 => {
            // A member holding a class by value: itself, or one that holds it back, with
            // a huge C-array count at times.
            let Ok(mut doc) = f.classes[i].text.parse::<Table>() else {
                return;
            };
            let other = r.pick(&names).cloned().unwrap_or_default();
            let target = if r.chance(3) {
                f.classes[i].stem.clone()
            } else {
                other
            };
            let times = r.chance(2).then(|| *r.pick(&NUMBERS).unwrap());
            push_member(&mut doc, by_value("fz", &target, times));
            f.classes[i].text = toml::to_string(&doc).unwrap_or_default();
        }
        9 => {
            // Long chains: parents (thousands) or containment (past the nesting bound),
            // with C arrays whose sizes multiply past 4 GiB and fans of members.
            if r.chance(2) {
                let n = [10, 1_000, 10_000][r.below(3)];
                chain(f, r, n, true, None, 0);
            } else {
                // Fans of two to four members a level make descriptions that double (or
                // more) with each level.
                let times = [None, Some(65_535), Some(2)][r.below(3)];
                let n = [5, 40, 70, 500][r.below(4)];
                let fan = 1 + r.below(4);
                chain(f, r, n, false, times, fan);
            }
        }
        10 => {
            // Enormous arrays: a member or enum-item list repeated many times.
            let Ok(mut doc) = f.classes[i].text.parse::<Table>() else {
                return;
            };
            let key = if r.chance(2) { "members" } else { "enums" };
            if let Some(Value::Array(a)) = doc.get_mut(key) {
                if let Some(first) = a.first().cloned() {
                    let n = [100, 5_000, 50_000][r.below(3)];
                    a.resize(n, first);
                }
            }
            f.classes[i].text = toml::to_string(&doc).unwrap_or_default();
        }
        11 => {
            // Overlapping offsets: every member stated at one offset, or at random ones.
            let Ok(mut doc) = f.classes[i].text.parse::<Table>() else {
                return;
            };
            let same = r.chance(2);
            let at = *r.pick(&NUMBERS).unwrap();
            if let Some(Value::Array(a)) = doc.get_mut("members") {
                for m in a.iter_mut() {
                    if let Value::Table(t) = m {
                        let v = if same { at } else { (r.next() % 64) as i64 };
                        t.insert("offset".into(), Value::Integer(v));
                    }
                }
            }
            f.classes[i].text = toml::to_string(&doc).unwrap_or_default();
        }
        12 => {
            // A file removed (dangling parents and classes), or copied under a new stem
            // (a duplicate class).
            if r.chance(2) {
                f.classes.swap_remove(i);
            } else {
                let mut c = f.classes[i].clone();
                c.stem = format!("{}Copy", c.stem);
                f.classes.push(c);
            }
        }
        _ => {
            // A class renamed, its file stem kept or (for a name safe in a path) changed.
            let Ok(mut doc) = f.classes[i].text.parse::<Table>() else {
                return;
            };
            let name = r.pick(&NAMES).unwrap().to_string();
            doc.insert("name".into(), Value::String(name.clone()));
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                f.classes[i].stem = name;
            }
            f.classes[i].text = toml::to_string(&doc).unwrap_or_default();
        }
    }
}
