hk_derive::schema!(path = "hk-derive/tests/ui/schemas/good", classes = ["uiThing"], prefix = "Hk");

fn main() {}
