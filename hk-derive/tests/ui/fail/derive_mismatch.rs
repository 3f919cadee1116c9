#[derive(hk_derive::HkClass)]
#[hk(schema = "hk-derive/tests/ui/schemas/good", class = "uiThing")]
struct Thing {
    ref_count: i32,
    kind: u8,
    weight: f32,
}

fn main() {}
