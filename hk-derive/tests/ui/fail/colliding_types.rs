hk_derive::schema!(path = "hk-derive/tests/ui/schemas/collide", classes = ["uiPair::Item", "uiPair_Item"]);

fn main() {}
