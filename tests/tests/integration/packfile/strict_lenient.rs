//! Strict mode rejects files that break the format's invariants and says where; lenient
//! mode reads them and reports each violation.

use hk_runtime::packfile::graph::read::{read, ReadOptions};
use hk_runtime::packfile::Packfile;

fn check(data: &[u8], expect: &str) {
    let pf = Packfile::parse(data).unwrap();
    let schema = std::sync::Arc::new(hk_tests::schema_for(&pf));
    let err = read(&pf, &schema, ReadOptions::default()).expect_err("strict mode must reject");
    println!("strict: {err}");
    assert!(err.to_string().contains(expect), "{err}");
    assert!(err.offset().is_some(), "{err}: no offset");
    let decoded = read(&pf, &schema, ReadOptions::lenient()).expect("lenient mode reads it");
    assert!(!decoded.graph.objects.is_empty());
    let violations = decoded.violations;
    assert!(
        violations.iter().any(|v| v.message.contains(expect)),
        "{violations:?}"
    );
    println!(
        "lenient: {} violation(s), first: at 0x{:X} {}",
        violations.len(),
        violations[0].offset,
        violations[0].message
    );
}

#[test]
fn broken_invariants() {
    let Some(corpus) = hk_tests::corpus("broken_invariants") else {
        return;
    };
    let data = hk_tests::read(&corpus.join("packfile/havoklib-710/allosaur[4011].hkx"));
    let pf = Packfile::parse(&data).unwrap();
    let d = pf.section("__data__").unwrap().start as usize;
    // The root container (7.1, 32-bit): namedVariants at +0, its capacity word at +8; the
    // body is 12 bytes and padded to 16, so +12 is padding.
    let mut padding = data.clone();
    padding[d + 12] = 0x5A;
    check(&padding, "padding byte 0x5A is not zero");
    let mut capacity = data.clone();
    capacity[d + 8] &= 0x7F;
    check(&capacity, "capacity word");
    let mut slot = data.clone();
    slot[d + 3] = 1;
    check(&slot, "pointer slot stores");
}
