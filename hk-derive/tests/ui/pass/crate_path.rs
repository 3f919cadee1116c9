// `crate = "..."`: the generated code reaches the runtime through a re-export.
pub mod rt {
    pub use ::hk_runtime::*;
}

mod generated {
    ::hk_derive::schema!(
        path = "hk-derive/tests/ui/schemas/good",
        classes = ["uiThing"],
        crate = "crate::rt"
    );
}

fn main() {
    use crate::rt::typed::HkClass;
    assert_eq!(generated::UiThing::NAME, "uiThing");
    let t = generated::UiThing::default();
    let back = <generated::UiThing as crate::rt::typed::Class>::from_values(
        &crate::rt::typed::Class::to_values(&t).unwrap(),
    )
    .unwrap();
    assert_eq!(back, t);
}
