hk_derive::schema!(path = "hk-derive/tests/ui/schemas/hostile", classes = ["uiHostile"]);

fn main() {}
