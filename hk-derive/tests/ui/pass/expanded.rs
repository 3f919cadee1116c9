// The golden expansion of the `good` schema builds without the macro and behaves as its
// expansion does (the checks of basic.rs).
use hk_runtime::graph::ObjectId;
use hk_runtime::packfile::{Packfile, PackfileInfo};
use hk_runtime::typed::{Class, Enum, HkClass, HkString, TypedFile};

include!("../../expand/good.expected.rs");

fn main() {
    assert_eq!(UiThing::NAME, "uiThing");
    assert_eq!(UiThing::VERSION, 2);
    assert_eq!(UiThing::SIGNATURE, hk_derive::signature!(path = "hk-derive/tests/ui/schemas/good", class = "uiThing"));
    let offs = UiThing::offsets(hk_runtime::LayoutRules::BE32);
    assert_eq!(offs, [4, 8, 12, 16, 32, 44]);
    let t = UiThing {
        kind: Enum::new(UiThingKind::KindBox).unwrap(),
        name: HkString::from("box"),
        r#type: 1.5,
        ..Default::default()
    };
    let back = UiThing::from_values(&t.to_values().unwrap()).unwrap();
    assert_eq!(back, t);

    let mut info = PackfileInfo::new(&schema().generation, hk_runtime::LayoutRules::BE32);
    info.class_names = Some(Vec::new());
    let file = TypedFile { objects: vec![AnyObject::UiThing(t)], root: ObjectId(0), info };
    let bytes = file.write().unwrap();
    let again = decode_file(&bytes).unwrap();
    assert_eq!(again.objects, file.objects);
    assert_eq!(write_file(&again).unwrap(), bytes);
    let pf = Packfile::parse(&bytes).unwrap();
    assert!(hk_runtime::typed::view::traverse_packfile::<AnyView<'_>>(&pf).is_ok());
}
