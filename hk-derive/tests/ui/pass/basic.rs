use hk_runtime::typed::HkClass;

hk_derive::schema!(path = "hk-derive/tests/ui/schemas/good", classes = ["uiThing"]);

fn main() {
    assert_eq!(UiThing::NAME, "uiThing");
    assert_eq!(UiThing::VERSION, 2);
    assert_eq!(UiThing::SIGNATURE, hk_derive::signature!(path = "hk-derive/tests/ui/schemas/good", class = "uiThing"));
    // Interface slot (4), refCount, kind, name, position (16-aligned), children, type.
    let offs = UiThing::offsets(hk_runtime::LayoutRules::BE32);
    assert_eq!(offs, [4, 8, 12, 16, 32, 44]);
    let t = UiThing { kind: UiThingKind::KindBox, r#type: 1.5, ..Default::default() };
    let back = UiThing::from_fields(&t.to_fields()).unwrap();
    assert_eq!(back, t);
}
