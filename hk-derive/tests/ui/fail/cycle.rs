hk_derive::schema!(path = "hk-derive/tests/ui/schemas/cycle", classes = ["uiA"]);

fn main() {}
