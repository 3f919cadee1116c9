//! `hk schema verify` lays out every class of a folder; a class that cannot be laid out
//! fails every class below it on its parent chain, and each of those reports the same
//! error. The layout engine keeps the failure, so a chain of 20,000 classes under a class
//! past 4 GiB is reported in time linear in the chain (walking the whole chain again for
//! each class took minutes).

use std::time::Instant;

use hk_runtime::schema::Layouts;
use hk_runtime::Schema;

#[test]
fn a_long_chain_under_a_class_that_does_not_lay_out_fails_in_linear_time() {
    const N: usize = 20_000;
    let dir = hk_tests::temp_dir("failing-chain");
    std::fs::copy(
        hk_tests::schemas().join("havok-7.1/generation.toml"),
        dir.join("generation.toml"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("classes")).unwrap();
    let write = |name: &str, text: String| {
        std::fs::write(dir.join("classes").join(format!("{name}.toml")), text).unwrap();
    };
    // Big: 65,538 rows of 65,535 bytes, past 4 GiB.
    write(
        "Row",
        "name = \"Row\"\n\n[[members]]\nname = \"b\"\ntype = \"uint8\"\narray_size = 65535\n"
            .into(),
    );
    write(
        "Big",
        "name = \"Big\"\n\n[[members]]\nname = \"rows\"\ntype = \"struct\"\nclass = \"Row\"\n\
         array_size = 65535\n\n[[members]]\nname = \"more\"\ntype = \"struct\"\nclass = \"Row\"\n\
         array_size = 3\n"
            .into(),
    );
    for i in 0..N {
        let parent = if i == 0 {
            "Big".to_string()
        } else {
            format!("C{}", i - 1)
        };
        write(
            &format!("C{i}"),
            format!("name = \"C{i}\"\nparent = \"{parent}\"\n\n[[members]]\nname = \"m\"\ntype = \"int32\"\n"),
        );
    }
    let s = Schema::load(&*dir).unwrap();
    let t0 = Instant::now();
    let mut layouts = Layouts::new(&s, s.generation.layout);
    let mut failed = 0;
    let mut first = None;
    // In file order, as `hk schema verify` lays them out.
    for c in s.classes() {
        if let Err(e) = layouts.class(&c.name) {
            failed += 1;
            let text = e.to_string();
            assert!(text.contains("4 GiB or larger"), "{}: {text}", c.name);
            first.get_or_insert(text);
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{failed} classes fail in {secs:.2} s: {}",
        first.unwrap_or_default()
    );
    assert_eq!(failed, N + 1);
    assert!(layouts.class("Row").is_ok());
    assert!(secs < 5.0, "{secs:.1} s");
}
