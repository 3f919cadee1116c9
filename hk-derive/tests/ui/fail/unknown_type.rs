hk_derive::schema!(path = "hk-derive/tests/ui/schemas/bad-type", classes = ["uiBroken"]);

fn main() {}
