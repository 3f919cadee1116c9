hk_derive::schema!(path = "hk-derive/tests/ui/schemas/no-such-folder", classes = ["uiThing"]);

fn main() {}
