//! Plans of hostile classes (docs/design.md, "Plans"): a class holding an array of itself,
//! and a chain of classes each holding an array of the next, deeper than
//! `MAX_PLAN_NESTING`, are refused with an error instead of recursing until the stack runs
//! out (a class nearer the end of such a chain still plans after the refusal). The bound on
//! a plan's padding ranges is measured in the memory binary (`memory/schema_plan.rs`).

use hk_runtime::schema::plan::MAX_PLAN_NESTING;
use hk_runtime::{LayoutRules, Schema};
use hk_tests::schema_folder_71 as folder;

#[global_allocator]
static HEAP: hk_tests::heap::Counting = hk_tests::heap::Counting;

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
