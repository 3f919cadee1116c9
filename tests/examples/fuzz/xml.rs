//! The `xml` mode of the fuzzer: structure-aware mutations of Havok XML (docs/fuzzing.md).
//! The inputs are the SDK's XML files, the other Havok XML files of the corpus, and the XML
//! hk writes for a sample of corpus packfiles. Each input is parsed once (roxmltree) into
//! an index of its elements, attributes, texts and words, object names, class names and
//! member names; each mutation is one to three edits made from that index: elements
//! deleted, repeated (up to many thousands of times), nested in themselves, renamed,
//! moved or swapped; attributes deleted, repeated, added (up to a hundred thousand),
//! given other values; members renamed and `numelements` given edge counts; numbers,
//! enum and flag names and floats replaced by edge values or repeated; pointers aimed at
//! other, missing or imported objects; classes swapped; DOCTYPEs, entities, includes,
//! CDATA, comments and character references inserted; cuts; bytes overwritten.
//!
//! Each mutation is read and built as `hk build` does (`xml::build_xml`, default limits),
//! checked for a panic, for its peak heap against the read's memory limit (16 times the
//! input plus 64 MiB), and for its time; what builds is written as XML again and built
//! once more, which must give the same bytes.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hk_runtime::dump::{xml, BuiltContainer};
use hk_runtime::file::{self, Document, Origin, Schemas};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::Limits;

/// A mutation slower than this is reported as a failure (a hang in the making).
const TOO_SLOW: Duration = Duration::from_secs(10);

/// Mutations grow an input to at most this many bytes.
const MAX_LEN: usize = 24 << 20;

/// One element of an input: where it is, its name, attributes and texts.
struct Elem {
    range: Range<usize>,
    /// The name in its start tag.
    qname: Range<usize>,
    name: String,
    /// Each attribute: the whole of it (name to closing quote) and its value.
    attrs: Vec<(Range<usize>, Range<usize>)>,
    /// Where its content starts (after the start tag) and ends (before the end tag);
    /// `None` for an empty element.
    content: Option<Range<usize>>,
    /// Its text children.
    texts: Vec<Range<usize>>,
}

/// An input and its index.
struct Input {
    path: PathBuf,
    text: String,
    elems: Vec<Elem>,
    /// Object names, class names and member names found in it.
    objects: Vec<String>,
    classes: Vec<String>,
    members: Vec<String>,
}

fn index(path: PathBuf, text: String) -> Option<Input> {
    let doc = roxmltree::Document::parse(&text).ok()?;
    let mut elems = Vec::new();
    let (mut objects, mut classes, mut members) = (Vec::new(), Vec::new(), Vec::new());
    for n in doc.descendants().filter(|n| n.is_element()) {
        let range = n.range();
        let name = n.tag_name().name().to_string();
        let qstart = range.start + 1;
        let qname = qstart
            ..qstart + text[qstart..].find(|c: char| c.is_whitespace() || c == '>' || c == '/')?;
        let attrs: Vec<_> = n
            .attributes()
            .map(|a| (a.range(), a.range_value()))
            .collect();
        let tag_end = match attrs.last() {
            Some((r, _)) => r.end + text[r.end..].find('>')? + 1,
            None => qname.end + text[qname.end..].find('>')? + 1,
        };
        let content = (!text[..tag_end].ends_with("/>")).then(|| {
            let end = range.end - (text[..range.end].rfind("</").map_or(0, |i| range.end - i));
            tag_end..end.max(tag_end)
        });
        let texts = n
            .children()
            .filter(|c| c.is_text())
            .map(|c| c.range())
            .collect();
        match name.as_str() {
            "hkobject" => {
                objects.extend(n.attribute("name").map(String::from));
                classes.extend(n.attribute("class").map(String::from));
            }
            "hkparam" => members.extend(n.attribute("name").map(String::from)),
            _ => {}
        }
        elems.push(Elem {
            range,
            qname,
            name,
            attrs,
            content,
            texts,
        });
    }
    for v in [&mut objects, &mut classes, &mut members] {
        v.sort();
        v.dedup();
    }
    Some(Input {
        path,
        text,
        elems,
        objects,
        classes,
        members,
    })
}

/// The random numbers of a run.
struct Rng<'a>(&'a mut dyn FnMut() -> u64);

impl Rng<'_> {
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            ((self.0)() % n as u64) as usize
        }
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> Option<&'t T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }

    fn one_of<'t>(&mut self, items: &[&'t str]) -> &'t str {
        items[self.below(items.len())]
    }

    /// A count: mostly small, sometimes large.
    fn count(&mut self) -> usize {
        match self.below(8) {
            0..=3 => 1 + self.below(3),
            4 | 5 => 16 + self.below(100),
            6 => 1000 + self.below(10_000),
            _ => 50_000 + self.below(150_000),
        }
    }
}

/// Values a number, name or float in the text is replaced with.
const WORDS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1",
    "127",
    "128",
    "255",
    "256",
    "32767",
    "-32769",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "0x",
    "0x7FFF",
    "0xFFFFFFFF",
    "0xFFFFFFFFFFFFFFFF",
    "0x1FFFFFFFFFFFFFFFF",
    "-0x1",
    "+1",
    "1e39",
    "-1e39",
    "1e-50",
    "1e400",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "infinity",
    "1.#INF00",
    "-1.#IND00",
    "1.#QNAN0",
    "1.#SNAN0",
    "1.#FOO",
    "1.#",
    "f32:0x7FC00000",
    "f32:0x+0000000",
    "f16:0x7E00",
    "f32:0xZZ",
    "1|2",
    "|",
    "A|B",
    "ALIGN_8|NOT_OWNED",
    "NORMAL|ADDITIVE",
    "true",
    "false",
    "2",
    "null",
    "(",
    ")",
    "()",
    "(1 2 3)",
    "(1 2 3 4 5)",
    "((1))",
    "(1 2",
    "&amp;",
    "&lt;",
    "&#0;",
    "&#9216;",
    "&#xD800;",
    "&#x110000;",
    "&bogus;",
    "import:x",
    "#0000@bones[3]",
    "#0001@",
    "@",
    "#9999",
    "0x12345678",
    "",
];

/// Element names an element is renamed to, or inserted.
const NAMES: &[&str] = &[
    "hkobject",
    "hkparam",
    "hkcstring",
    "hksection",
    "hkpackfile",
    "hk:class",
    "hk:export",
    "hk:capacity",
    "hk:classnames",
    "xi:include",
    "a",
];

/// Classes an object is given.
const CLASSES: &[&str] = &[
    "hkRootLevelContainer",
    "hkaSkeleton",
    "hkaAnimationContainer",
    "hkpRigidBody",
    "hkpBoxShape",
    "hkbBehaviorGraph",
    "hkClassMember",
    "hkaBone",
    "hkReferencedObject",
    "hkBaseObject",
    "NoSuchClass",
    "",
    "hkaSkeleton hkaSkeleton",
];

/// Insertions: entity, include and markup tricks.
const INSERTS: &[&str] = &[
    "<!DOCTYPE hkpackfile [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>",
    "&a;",
    "&b;",
    "<xi:include href=\"/etc/passwd\" xmlns:xi=\"http://www.w3.org/2001/XInclude\"/>",
    "<![CDATA[1 2 3]]>",
    "<![CDATA[<hkparam name=\"x\">]]>",
    "<!-- a comment -->",
    "<?pi data?>",
    "<?xml version=\"1.0\"?>",
    "&#9216;",
    "&#x10FFFF;",
    "&#xD800;",
    "\u{FEFF}",
    "<hkobject/>",
    "<hkparam name=\"name\">x</hkparam>",
    "<hkcstring hk:bytes=\"zz\">x</hkcstring>",
    "<hk:capacity object=\"#0000\" path=\"bones[99]\" flags=\"0x80000000\"/>",
    "<hk:export object=\"#0000\" name=\"x\"/>",
    "</hkparam>",
    "<hkparam",
    "]]>",
];

/// One edit: a range of the input replaced by a text.
type Edit = (Range<usize>, String);

/// One mutation of `inp`, as an edit of its text.
fn edit(inp: &Input, r: &mut Rng<'_>) -> Option<Edit> {
    let t = &inp.text;
    let e = r.pick(&inp.elems)?;
    let whole = &t[e.range.clone()];
    Some(match r.below(16) {
        // Elements: deleted, repeated, nested in themselves, renamed, swapped.
        0 => (e.range.clone(), String::new()),
        1 => {
            let n = r.count().min(MAX_LEN / whole.len().max(1));
            (e.range.end..e.range.end, whole.repeat(n))
        }
        2 => {
            let c = e.content.clone()?;
            let open = &t[e.range.start..c.start];
            let close = &t[c.end..e.range.end];
            let n = r.count().min(MAX_LEN / (open.len() + close.len()).max(1));
            (
                e.range.clone(),
                format!("{}{}{}", open.repeat(n), &t[c], close.repeat(n)),
            )
        }
        3 => {
            let name = r.one_of(NAMES);
            let mut s = whole.to_string();
            if let Some(c) = &e.content {
                let close = c.end - e.range.start;
                s.replace_range(close.., &format!("</{name}>"));
            }
            s.replace_range(
                e.qname.start - e.range.start..e.qname.end - e.range.start,
                name,
            );
            (e.range.clone(), s)
        }
        4 => {
            let other = r.pick(&inp.elems)?;
            match &e.content {
                Some(c) => (c.start..c.start, t[other.range.clone()].to_string()),
                None => (e.range.clone(), t[other.range.clone()].to_string()),
            }
        }
        // Attributes: deleted, repeated, added by the thousand, given other values.
        5 => {
            let (a, _) = r.pick(&e.attrs)?;
            match r.below(3) {
                0 => (a.clone(), String::new()),
                1 => (
                    a.end..a.end,
                    format!(" {}", &t[a.clone()]).repeat(1 + r.below(3)),
                ),
                _ => {
                    let n = r.count();
                    let many: String = (0..n).map(|i| format!(" x{i}=\"\"")).collect();
                    (a.end..a.end, many)
                }
            }
        }
        6 => {
            let (_, v) = r.pick(&e.attrs)?;
            let value = match r.below(5) {
                0 => r.pick(&inp.objects)?.clone(),
                1 => r.pick(&inp.members)?.clone(),
                2 => "A".repeat(1 << (6 + r.below(12))),
                _ => r.one_of(WORDS).to_string(),
            };
            (v.clone(), value)
        }
        7 => {
            let at = e.qname.end;
            let attr = match r.below(4) {
                0 => format!(" numelements=\"{}\"", r.one_of(WORDS)),
                1 => " hk:bytes=\"4142\"".to_string(),
                2 => " signature=\"0x1\"".to_string(),
                _ => format!(" name=\"{}\"", r.pick(&inp.members)?),
            };
            (at..at, attr)
        }
        // Numbers, names and pointers in text: replaced, repeated, deleted.
        8..=10 => {
            let w = word(t, r.pick(&e.texts)?, r)?;
            let new = match r.below(6) {
                0 => r.pick(&inp.objects)?.clone(),
                1 => format!("{} ", &t[w.clone()]).repeat(r.count().min(MAX_LEN / (w.len() + 1))),
                2 => String::new(),
                _ => r.one_of(WORDS).to_string(),
            };
            (w, new)
        }
        // Classes.
        11 if e.name == "hkobject" => {
            let (_, v) = e
                .attrs
                .iter()
                .find(|(a, _)| t[a.clone()].starts_with("class"))?;
            let class = match r.below(2) {
                0 => r.pick(&inp.classes)?.clone(),
                _ => r.one_of(CLASSES).to_string(),
            };
            (v.clone(), class)
        }
        // Entities, includes, markup.
        12 | 13 => {
            let at = match (&e.content, r.below(3)) {
                (Some(c), 0) => c.start,
                (Some(c), 1) => c.end,
                _ => e.range.start,
            };
            let at = if r.below(8) == 0 {
                t.find('<').unwrap_or(0)
            } else {
                at
            };
            (at..at, r.one_of(INSERTS).to_string())
        }
        // Cuts.
        14 => {
            let at = [e.range.start, e.range.end, e.qname.end, e.range.start + 1][r.below(4)];
            (at.min(t.len())..t.len(), String::new())
        }
        // Bytes.
        _ => {
            const MEANINGFUL: &[&str] = &[
                "<", ">", "/", "&", ";", "\"", "'", "#", "(", ")", "|", "=", "?", "!", " ", "\n",
                "0", "-", "x",
            ];
            let at = r.below(t.len());
            let end = (at + 1 + r.below(64)).min(t.len());
            if !t.is_char_boundary(at) || !t.is_char_boundary(end) {
                return None;
            }
            match r.below(3) {
                0 => (at..(at + 1).min(t.len()), r.one_of(MEANINGFUL).to_string()),
                1 => (at..end, String::new()),
                _ => (at..at, t[at..end].to_string()),
            }
        }
    })
}

/// A word (a run without blanks or parentheses) of the text at `range`.
fn word(t: &str, range: &Range<usize>, r: &mut Rng<'_>) -> Option<Range<usize>> {
    let s = &t[range.clone()];
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let inside = !c.is_whitespace() && c != '(' && c != ')';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                runs.push(range.start + st..range.start + i);
                start = None;
            }
            _ => {}
        }
        if runs.len() > 4096 {
            break;
        }
    }
    if let Some(st) = start {
        runs.push(range.start + st..range.end);
    }
    r.pick(&runs).cloned()
}

/// One to three edits of `inp` applied (those that overlap an earlier one are dropped).
fn mutate(inp: &Input, r: &mut Rng<'_>) -> String {
    let mut edits: Vec<Edit> = Vec::new();
    for _ in 0..1 + r.below(3) {
        if let Some((range, s)) = edit(inp, r) {
            let free = edits
                .iter()
                .all(|(o, _)| range.end < o.start || range.start > o.end);
            if free
                && inp.text.is_char_boundary(range.start)
                && inp.text.is_char_boundary(range.end)
            {
                edits.push((range, s));
            }
        }
    }
    edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = inp.text.clone();
    for (range, s) in edits {
        if out.len() - range.len() + s.len() <= MAX_LEN {
            out.replace_range(range, &s);
        }
    }
    out
}

/// The inputs: the corpus's Havok XML files and hk's XML of every twentieth packfile.
fn inputs(corpus: &Path, schemas: &Schemas) -> (Vec<Input>, usize) {
    let mut paths = Vec::new();
    for dir in ["packfile/havoklib-xml", "games/skyrim-se-xml"] {
        if let Ok(d) = std::fs::read_dir(corpus.join(dir)) {
            paths.extend(
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "xml")),
            );
        }
    }
    paths.sort();
    let mut out: Vec<Input> = paths
        .into_iter()
        .filter_map(|p| {
            let t = std::fs::read_to_string(&p).ok()?;
            index(p, t)
        })
        .collect();
    let theirs = out.len();
    for f in hk_tests::packfiles(corpus).iter().step_by(20) {
        if let Ok(doc) = file::open(&hk_tests::read(f), schemas, ReadOptions::default()) {
            if let Some(i) = xml::to_xml(&doc, xml::Dialect::Exact)
                .ok()
                .map(|x| x.text)
                .and_then(|t| index(f.clone(), t))
            {
                out.push(i);
            }
        }
    }
    (out, theirs)
}

/// What the run found.
#[derive(Default)]
struct Tally {
    tried: usize,
    refused: usize,
    accepted: usize,
    panics: usize,
    over_memory: usize,
    too_slow: usize,
    breaches: usize,
    slowest: (Duration, usize, String),
    /// Largest peak heap over the read's memory limit, its peak and input size.
    worst_ratio: (f64, usize, usize),
    largest_peak: usize,
}

/// What builds is written as XML again and built once more: the same bytes.
fn rebuilds(bytes: &[u8], built: hk_runtime::dump::Built, schemas: &Schemas) -> bool {
    let BuiltContainer::Packfile(info) = built.container else {
        return false;
    };
    let doc = Document {
        graph: built.graph,
        origin: Origin::Packfile(info),
        schema: hk_runtime::file::SchemaChoice::Generation {
            name: String::new(),
            how: hk_runtime::file::How::Exact,
            borrowed: Vec::new(),
        },
        violations: Vec::new(),
    };
    match xml::to_xml(&doc, xml::Dialect::Exact).map(|x| x.text) {
        Ok(again) => {
            matches!(xml::build_xml(&again, schemas, None, &Limits::default()), Ok((b, _)) if b == bytes)
        }
        // What hk's XML cannot hold (an array of arrays) is the writer's refusal.
        Err(_) => true,
    }
}

fn save(kind: &str, n: usize, bad: &str, from: &Path, why: &str) {
    let out = std::env::temp_dir().join(format!("hk-fuzz-{kind}-{n}.xml"));
    let _ = std::fs::write(&out, bad);
    println!(
        "{why}: a mutation of {} (saved as {})",
        from.display(),
        out.display()
    );
}

/// Mutated Havok XML built as `hk build` does: `rounds` mutations per input, or with
/// `minutes` the inputs round-robin until the time is up. Returns whether the run was
/// clean (no panic, no input over the memory limit or slower than 10 s, no rebuild that
/// differs).
pub fn run(corpus: &Path, rounds: usize, minutes: Option<f64>, seed: u64) -> bool {
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let (inputs, theirs) = inputs(corpus, &schemas);
    println!(
        "{} inputs: {theirs} Havok XML files of the corpus, {} written by hk; {}",
        inputs.len(),
        inputs.len() - theirs,
        minutes.map_or(format!("{rounds} mutations each"), |m| format!(
            "round-robin for {m} minute(s)"
        ))
    );
    let mut next = hk_tests::xorshift(seed);
    let mut r = Rng(&mut next);
    let mut t = Tally::default();
    let start = Instant::now();
    let deadline = minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let mut last_report = 0u64;
    'outer: for pass in 0.. {
        for inp in &inputs {
            let per_input = if deadline.is_some() { 1 } else { rounds };
            for _ in 0..per_input {
                let bad = mutate(inp, &mut r);
                let limit = Limits::default().memory_for(bad.len() as u64) as usize;
                let (out, took, peak) = hk_tests::heap::measure(|| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        xml::build_xml(&bad, &schemas, None, &Limits::default()).ok()
                    }))
                });
                // The rebuild is not the read measured: hk's XML of what built may be
                // larger than the mutation (it gives every member).
                let out = out.and_then(|built| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        built.map(|(bytes, built)| rebuilds(&bytes, built, &schemas))
                    }))
                });
                t.tried += 1;
                match out {
                    Ok(Some(true)) => t.accepted += 1,
                    Ok(Some(false)) => {
                        t.accepted += 1;
                        t.breaches += 1;
                        save(
                            "breach",
                            t.breaches,
                            &bad,
                            &inp.path,
                            "BREACH (built, but its XML builds other bytes)",
                        );
                    }
                    Ok(None) => t.refused += 1,
                    Err(_) => {
                        t.panics += 1;
                        save("crash", t.panics, &bad, &inp.path, "PANIC");
                    }
                }
                if peak > limit {
                    t.over_memory += 1;
                    save(
                        "memory",
                        t.over_memory,
                        &bad,
                        &inp.path,
                        &format!("MEMORY: {peak} bytes over the limit {limit}"),
                    );
                }
                if took > TOO_SLOW {
                    t.too_slow += 1;
                    save(
                        "slow",
                        t.too_slow,
                        &bad,
                        &inp.path,
                        &format!("SLOW: {took:?}"),
                    );
                }
                t.largest_peak = t.largest_peak.max(peak);
                let ratio = peak as f64 / limit as f64;
                if ratio > t.worst_ratio.0 {
                    t.worst_ratio = (ratio, peak, bad.len());
                }
                if took > t.slowest.0 {
                    t.slowest = (took, bad.len(), inp.path.display().to_string());
                }
            }
            let secs = start.elapsed().as_secs();
            if secs >= last_report + 30 {
                last_report = secs;
                println!("  {} tried, {secs} s, pass {pass}", t.tried);
            }
            if deadline.is_some_and(|d| start.elapsed() >= d) {
                break 'outer;
            }
        }
        if deadline.is_none() {
            break;
        }
    }
    println!(
        "{} mutated XML inputs tried in {:.1} min over {} files: {} refused, {} accepted (built, \
         and built again from their own XML)",
        t.tried,
        start.elapsed().as_secs_f64() / 60.0,
        inputs.len(),
        t.refused,
        t.accepted
    );
    println!(
        "panics: {}; over the memory limit: {}; slower than {TOO_SLOW:?}: {}; rebuilds that differ: {}",
        t.panics, t.over_memory, t.too_slow, t.breaches
    );
    println!(
        "slowest input: {:.1} ms ({} bytes, from {}); largest peak heap {:.1} MiB; largest peak \
         over its limit: {:.3} ({:.1} MiB for a {}-byte input)",
        t.slowest.0.as_secs_f64() * 1e3,
        t.slowest.1,
        t.slowest.2,
        t.largest_peak as f64 / (1 << 20) as f64,
        t.worst_ratio.0,
        t.worst_ratio.1 as f64 / (1 << 20) as f64,
        t.worst_ratio.2
    );
    t.panics == 0 && t.over_memory == 0 && t.too_slow == 0 && t.breaches == 0
}
