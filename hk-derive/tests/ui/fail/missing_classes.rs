hk_derive::schema!(path = "hk-derive/tests/ui/schemas/good");

fn main() {}
