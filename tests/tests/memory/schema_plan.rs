//! Plans of hostile classes (docs/design.md, "Plans"): a class whose padding splits its body
//! into more than `MAX_PLAN_RANGES` ranges is refused before the ranges take memory in
//! proportion to its size.

use std::time::Instant;

use hk_runtime::schema::plan::MAX_PLAN_RANGES;
use hk_runtime::{LayoutRules, Schema};
use hk_tests::heap::{measure, measuring};
use hk_tests::schema_folder_71 as folder;

#[test]
fn padding_doubled_at_each_level_is_refused_before_it_takes_memory() {
    let _one = measuring();
    // D0 is an int8 and an int32 (3 bytes of padding between); each D{k} holds two D{k-1}:
    // D25 is 256 MiB with 2^25 separate gaps, which took 1.1 GiB of ranges to work out.
    let mut classes = vec![(
        "D0".to_string(),
        "name = \"D0\"\n\n[[members]]\nname = \"a\"\ntype = \"int8\"\n\n\
         [[members]]\nname = \"b\"\ntype = \"int32\"\n"
            .to_string(),
    )];
    for k in 1..=25 {
        let mut t = format!("name = \"D{k}\"\n");
        for m in ["x", "y"] {
            t += &format!(
                "\n[[members]]\nname = \"{m}\"\ntype = \"struct\"\nclass = \"D{}\"\n",
                k - 1
            );
        }
        classes.push((format!("D{k}"), t));
    }
    let dir = folder("doubled-padding", &classes);
    let s = Schema::load(&*dir).unwrap();
    let t0 = Instant::now();
    let (r, _, peak) = measure(|| s.plan(s.class_id("D25").unwrap(), LayoutRules::BE32));
    let secs = t0.elapsed().as_secs_f64();
    println!("{:.1} MiB, {secs:.2} s", peak as f64 / f64::from(1 << 20));
    let e = match r {
        Ok(p) => panic!("D25 planned with {} gaps", p.gaps.len()),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains(&format!("more than {MAX_PLAN_RANGES} separate ranges")),
        "{e}"
    );
    // D11 has 2^11 gaps, within the bound: it plans, the gaps of its halves repeated.
    let d11 = s
        .plan(s.class_id("D11").unwrap(), LayoutRules::BE32)
        .unwrap();
    assert_eq!(d11.gaps.len(), 1 << 11);
    assert_eq!(d11.gaps[..3], [(1, 4), (9, 12), (17, 20)]);
    // The ranges are bounded: 8 bytes each, a few copies at most.
    assert!(peak < 4 << 20, "{peak} bytes");
    assert!(secs < 10.0, "{secs:.1} s");
}
