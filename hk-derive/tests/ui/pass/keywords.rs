// Schema names that are Rust keywords become identifiers: raw ones where Rust has them
// (`r#type`), a trailing `_` where it has none (`self`, `crate`, `super`, `Self`).
hk_derive::schema!(path = "hk-derive/tests/ui/schemas/keywords", classes = ["self"]);

fn main() {
    let s = Self_ {
        self_: 1,
        crate_: 2,
        super_: 3,
        r#type: 4,
        ..Default::default()
    };
    assert_eq!(s.self_ + s.crate_ + s.super_ + s.r#type, 10);
    assert_eq!(<Self_ as hk_runtime::typed::HkClass>::NAME, "self");
    assert_ne!(SelfKind::Self_, SelfKind::Crate);
}
