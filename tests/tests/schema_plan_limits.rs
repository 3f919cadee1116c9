//! Plans of hostile classes (docs/design.md, "Plans"): a class holding an array of itself,
//! and a chain of classes each holding an array of the next, deeper than
//! `MAX_PLAN_NESTING`, are refused with an error instead of recursing until the stack runs
//! out (a class nearer the end of such a chain still plans after the refusal); a class
//! whose padding splits its body into more than `MAX_PLAN_RANGES` ranges is refused before
//! the ranges take memory in proportion to its size.

use std::time::Instant;

use hk_runtime::schema::plan::{MAX_PLAN_NESTING, MAX_PLAN_RANGES};
use hk_runtime::{LayoutRules, Schema};
use hk_tests::heap::{measure, measuring};

#[global_allocator]
static HEAP: hk_tests::heap::Counting = hk_tests::heap::Counting;

/// A folder of the shipped 7.1 `generation.toml` and `classes` (name, text).
fn folder(name: &str, classes: &[(String, String)]) -> hk_tests::Scratch {
    let dir = hk_tests::temp_dir(name);
    std::fs::copy(
        hk_tests::schemas().join("havok-7.1/generation.toml"),
        dir.join("generation.toml"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("classes")).unwrap();
    for (n, text) in classes {
        std::fs::write(dir.join("classes").join(format!("{n}.toml")), text).unwrap();
    }
    dir
}

/// Class `name` with an `int32` and an array of structs of `of`.
fn holding(name: &str, of: &str) -> (String, String) {
    let text = format!(
        "name = \"{name}\"\n\n[[members]]\nname = \"x\"\ntype = \"int32\"\n\n\
         [[members]]\nname = \"items\"\ntype = \"array\"\nsubtype = \"struct\"\nclass = \"{of}\"\n"
    );
    (name.to_string(), text)
}

#[test]
fn a_class_holding_an_array_of_itself_is_refused() {
    let dir = folder(
        "self-array",
        &[
            holding("Node", "Node"),
            holding("A", "B"),
            holding("B", "A"),
        ],
    );
    let s = Schema::load(&*dir).unwrap();
    for (class, path) in [("Node", "Node > Node"), ("A", "A > B > A")] {
        let id = s.class_id(class).unwrap();
        let e = match s.plan(id, LayoutRules::BE32) {
            Ok(_) => panic!("{class} planned"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains(&format!("the plan of `{class}` needs itself: {path}")),
            "{e}"
        );
    }
}

#[test]
fn a_chain_of_arrays_deeper_than_the_bound_is_refused_and_its_tail_still_plans() {
    const N: usize = 1_000;
    let mut classes: Vec<_> = (0..N - 1)
        .map(|i| holding(&format!("C{i}"), &format!("C{}", i + 1)))
        .collect();
    classes.push((
        format!("C{}", N - 1),
        format!(
            "name = \"C{}\"\n\n[[members]]\nname = \"x\"\ntype = \"int32\"\n",
            N - 1
        ),
    ));
    let dir = folder("array-chain", &classes);
    let s = Schema::load(&*dir).unwrap();
    let plan = |i: usize| s.plan(s.class_id(&format!("C{i}")).unwrap(), LayoutRules::BE32);
    let e = match plan(0) {
        Ok(_) => panic!("C0 planned"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains(&format!("plans nest deeper than {MAX_PLAN_NESTING}")),
        "{e}"
    );
    // Asked for from the top, the classes below C0 were refused too; the refusal is not
    // kept, so a class whose own chain ends within the bound plans.
    let tail = N - MAX_PLAN_NESTING;
    assert!(plan(tail).is_ok());
    assert!(plan(1).is_err());
    assert_eq!(plan(N - 1).unwrap().members.len(), 1);
}

#[test]
fn padding_doubled_at_each_level_is_refused_before_it_takes_memory() {
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
    let _one = measuring();
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
