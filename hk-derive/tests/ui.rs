//! Compile-fail and compile-pass tests of the macros, on stable Rust, and the golden
//! expansion of a small schema. Expected compiler output lives in `tests/ui/fail/*.stderr`
//! and the expansion in `tests/expand/*.expected.rs`; refresh them only with `HK_BLESS=1`.

use std::path::Path;

fn bless() -> bool {
    std::env::var("HK_BLESS").is_ok_and(|v| v == "1")
}

#[test]
fn ui() {
    if bless() {
        std::env::set_var("TRYBUILD", "overwrite");
    }
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}

/// What `schema!(path = "tests/ui/schemas/good", classes = ["uiThing"])` generates, as
/// `hk gen crate --expand` prints it, is `tests/expand/good.expected.rs` (which
/// `tests/ui/pass/expanded.rs` compiles and runs).
#[test]
fn expansion_matches_the_golden_file() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = hk_runtime::Schema::load(here.join("tests/ui/schemas/good"))
        .unwrap_or_else(|d| panic!("{d}"));
    let items = hk_codegen::expand_schema(&schema, &["uiThing"], None)
        .unwrap_or_else(|e| panic!("{}", e.join("\n")));
    let file: syn::File = syn::parse2(items).unwrap();
    let text = format!(
        "// The items of `schema!(path = \"tests/ui/schemas/good\", classes = [\"uiThing\"])`.\n\
         // `HK_BLESS=1 cargo test -p hk-derive --test ui` refreshes this file.\n\n{}",
        prettyplease::unparse(&file)
    );
    let golden = here.join("tests/expand/good.expected.rs");
    if bless() {
        std::fs::write(&golden, &text).unwrap();
    }
    let old = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        text == old,
        "{}: differs from the expansion (HK_BLESS=1 refreshes)",
        golden.display()
    );
}
