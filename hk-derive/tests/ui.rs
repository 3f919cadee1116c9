//! Compile-fail and compile-pass tests of the macros, on stable Rust. Expected compiler
//! output lives in `tests/ui/fail/*.stderr`; refresh it only with `HK_BLESS=1`.

#[test]
fn ui() {
    if std::env::var("HK_BLESS").is_ok_and(|v| v == "1") {
        std::env::set_var("TRYBUILD", "overwrite");
    }
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
