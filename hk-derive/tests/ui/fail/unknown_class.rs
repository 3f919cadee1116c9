hk_derive::schema!(path = "hk-derive/tests/ui/schemas/good", classes = ["uiThing", "uiNothing"]);

fn main() {}
