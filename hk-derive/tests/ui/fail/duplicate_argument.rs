hk_derive::schema!(path = "hk-derive/tests/ui/schemas/good", path = "hk-derive/tests/ui/schemas/good", classes = ["uiThing"]);

fn main() {}
