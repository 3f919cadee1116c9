#![no_implicit_prelude]

mod generated {
    ::hk_derive::schema!(path = "hk-derive/tests/ui/schemas/good", classes = ["uiThing"]);
}

fn main() {
    let _ = <generated::UiThing as ::hk_runtime::typed::HkClass>::SIGNATURE;
}
