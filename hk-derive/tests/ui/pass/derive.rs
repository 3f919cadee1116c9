use hk_runtime::typed::{Class, HkClass, Ref};

/// A hand-written layout of the fixture's base class, checked against the schema.
#[derive(hk_derive::HkClass, Debug, Default, PartialEq)]
#[hk(schema = "hk-derive/tests/ui/schemas/good", class = "uiBase")]
struct Base {
    ref_count: i32,
}

fn main() {
    assert_eq!(Base::NAME, "uiBase");
    assert_eq!(Base::SIGNATURE, hk_derive::signature!(path = "hk-derive/tests/ui/schemas/good", class = "uiBase"));
    assert_eq!(Base::SIZES[hk_runtime::LayoutRules::BE32.index()], 8);
    let b = Base { ref_count: 7 };
    assert_eq!(Base::from_values(&b.to_values().unwrap()).unwrap(), b);
    let _unused: Ref<()> = Ref::default();
}
