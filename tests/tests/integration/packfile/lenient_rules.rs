//! Files as community tools write them (docs/packfile-format.md §9): every array capacity
//! word 0, every pointer slot holding a value, padding filled with garbage. Strict reading
//! refuses each; lenient reading reads it with one warning per broken rule, counting the
//! occurrences. A file laid out otherwise than its header says is refused in one line.
//!
//! Each file is a corpus file written by hk, then patched at fields hk's own layout names:
//! the capacity words of the arrays each object's plan lays out, the slots of the file's
//! fixups, the padding ranges of each object's plan.

use hk_runtime::error::{ErrorKind, ReadError};
use hk_runtime::file::{self, Document};
use hk_runtime::packfile::engine::read::rule;
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::packfile::Packfile;
use hk_runtime::schema::{ArrayKind, Op};
use hk_tests::{corpus, read, schema_set};

const FILE: &str = "packfile/havoklib-710/allosaur[4101].hkx";

/// The corpus file as hk writes it, and its document.
fn written(corpus: &std::path::Path) -> (Vec<u8>, Document) {
    let schemas = schema_set();
    let doc = file::open(&read(&corpus.join(FILE)), &schemas, ReadOptions::default()).unwrap();
    let bytes = file::write(&doc).unwrap();
    (bytes, doc)
}

/// For each object of `bytes` (read into `doc`), calls `at` with the object's file offset
/// and the top-level plan of its class.
fn objects(
    bytes: &[u8],
    doc: &Document,
    mut at: impl FnMut(usize, &hk_runtime::schema::ClassPlan),
) {
    let pf = Packfile::parse(bytes).unwrap();
    let schema = doc.graph.schema();
    for (i, &(loc, _)) in pf.object_table().iter().enumerate() {
        let class = doc.graph.objects[i].class;
        let plan = schema.plan(class, pf.rules()).unwrap();
        at(pf.abs(loc) as usize, &plan);
    }
}

/// Strict reading refuses `bytes`; lenient reading reads it with one violation of `rule`,
/// counted `count` times.
fn one_warning(bytes: &[u8], which: &str, count: u64) {
    let schemas = schema_set();
    let e = file::open(bytes, &schemas, ReadOptions::default()).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
    let doc = file::open(bytes, &schemas, ReadOptions::lenient()).unwrap();
    let of_rule: Vec<_> = doc.violations.iter().filter(|v| v.rule == which).collect();
    assert_eq!(of_rule.len(), 1, "{:?}", doc.violations);
    assert_eq!(of_rule[0].count, count, "{:?}", of_rule[0]);
    let rules: Vec<&str> = doc.violations.iter().map(|v| v.rule).collect();
    let mut distinct = rules.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        rules.len(),
        distinct.len(),
        "one warning per rule: {rules:?}"
    );
}

#[test]
fn capacity_words_of_zero_are_one_warning() {
    let Some(corpus) = corpus("capacity_words_of_zero_are_one_warning") else {
        return;
    };
    let (mut bytes, doc) = written(&corpus);
    let ptr = Packfile::parse(&bytes).unwrap().rules().pointer_size as usize;
    let mut words = Vec::new();
    objects(&bytes.clone(), &doc, |obj, plan| {
        for m in plan.members.iter() {
            if matches!(m.op, Op::Array(ArrayKind::Array, _)) {
                // hkArray: data pointer, size, then the capacity word (§7.2).
                words.push(obj + m.offset as usize + ptr + 4);
            }
        }
    });
    for &w in &words {
        bytes[w..w + 4].fill(0);
    }
    assert!(words.len() > 10, "{}", words.len());
    one_warning(&bytes, rule::CAPACITY, words.len() as u64);
}

#[test]
fn pointer_slots_that_hold_values_are_one_warning() {
    let Some(corpus) = corpus("pointer_slots_that_hold_values_are_one_warning") else {
        return;
    };
    let (mut bytes, _) = written(&corpus);
    let pf = Packfile::parse(&bytes).unwrap();
    // What some tools leave there: the target's section offset.
    let slots: Vec<(usize, u32)> = pf
        .pointers()
        .iter()
        .map(|(src, dst)| (pf.abs(*src) as usize, dst.offset.max(1)))
        .collect();
    drop(pf);
    for &(at, v) in &slots {
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    assert!(slots.len() > 10);
    one_warning(&bytes, rule::POINTER_SLOT, slots.len() as u64);
}

#[test]
fn padding_garbage_is_one_warning() {
    let Some(corpus) = corpus("padding_garbage_is_one_warning") else {
        return;
    };
    let (mut bytes, doc) = written(&corpus);
    let mut gaps = Vec::new();
    objects(&bytes.clone(), &doc, |obj, plan| {
        for &(s, e) in plan.gaps.iter() {
            gaps.push((obj + s as usize, obj + e as usize));
        }
    });
    for &(s, e) in &gaps {
        bytes[s..e].fill(0xCD);
    }
    assert!(gaps.len() > 1, "{}", gaps.len());
    one_warning(&bytes, rule::PADDING, gaps.len() as u64);
}

#[test]
fn a_file_laid_out_otherwise_is_refused_in_one_line() {
    let Some(corpus) = corpus("a_file_laid_out_otherwise_is_refused_in_one_line") else {
        return;
    };
    // The file converted by hk to 64-bit pointers, its header then saying 4-byte pointers
    // again (byte 0x10, §2.2): its objects are laid out as a 64-bit file's.
    let (_, mut doc) = written(&corpus);
    let to = hk_runtime::LayoutRules::from_tag("8101").unwrap();
    let mut bytes = hk_runtime::convert::convert(&mut doc, to).unwrap();
    assert_eq!(bytes[0x10], 8);
    bytes[0x10] = 4;
    for opts in [ReadOptions::lenient(), ReadOptions::default()] {
        let e = file::open(&bytes, &schema_set(), opts).unwrap_err();
        let ErrorKind::Read(ReadError::ForeignLayout {
            off,
            fixups,
            schema,
        }) = e.kind()
        else {
            panic!("{e}")
        };
        assert!(off * 2 > *fixups, "{off} of {fixups}");
        assert_eq!(schema, "havok-7.1");
        let text = e.to_string();
        println!("{text}");
        assert!(
            text.contains(&format!(
                "{off} of {fixups} pointer fixups in object bodies land off pointer members: the file's layout is not havok-7.1's"
            )) && !text.contains('\n'),
            "{text}"
        );
    }
}
