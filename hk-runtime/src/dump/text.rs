//! What the dump's writer and reader share: how raw bytes, non-finite floats and member
//! paths are written as text.
//!
//! Values are written naturally: numbers, strings, lists, tables keyed by member name.
//! Non-finite floats are strings holding their bits (`"f32:0x7FC00000"`, `"f16:0x7E00"`) in
//! JSON and TOML alike, so that every NaN payload comes back; reading TOML also takes its
//! own `nan` and `inf` (as the bits an `f32` cast gives). Pointers are object ids (or
//! `{"object": id, "path": "members[2]"}` into owned data, or `{"import": name}`), strings
//! that are not UTF-8 are `{"bytes": "hex"}`.

use crate::error::{Error, Result};
use crate::graph::Seg;
use crate::schema::{ClassId, Schema, Shape};

use super::spot::bad;

/// Bytes as lower-case hex, the form dumps store raw blocks in.
pub fn to_hex(b: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// The bytes of a hex string, `None` for anything that is not pairs of hex digits.
pub fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// How a dump writes a non-finite `f32`: `"f32:0x7FC00000"`.
pub fn bits_text(f: f32) -> String {
    format!("f32:0x{:08X}", f.to_bits())
}

/// How a dump writes a non-finite half: `"f16:0x7E00"`.
pub fn half_text(h: u16) -> String {
    format!("f16:0x{h:04X}")
}

/// The `f32` of a `"f32:0x…"` bits string.
pub fn bits_of(s: &str) -> Option<f32> {
    s.strip_prefix("f32:0x")
        .filter(|h| h.len() == 8)
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .map(f32::from_bits)
}

/// The half bits of a `"f16:0x…"` string.
pub fn half_bits_of(s: &str) -> Option<u16> {
    s.strip_prefix("f16:0x")
        .filter(|h| h.len() == 4)
        .and_then(|h| u16::from_str_radix(h, 16).ok())
}

/// A half's value as an `f32` (its bits are the top 16 of one).
pub fn half_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// The steps of member path `text` from class `c`, and the shape they lead to.
///
/// # Errors
/// A malformed path or a name the class does not have.
pub fn resolve(schema: &Schema, c: ClassId, text: &str) -> Result<(Vec<Seg>, Shape)> {
    let steps =
        crate::graph::parse_path(text).ok_or_else(|| bad(format!("bad member path `{text}`")))?;
    let mut out = Vec::new();
    let mut shape = Shape::Struct(c);
    for step in steps {
        match step {
            crate::graph::PathStep::Name(n) => {
                let Shape::Struct(sc) = shape else {
                    return Err(bad(format!(
                        "`{text}`: `{n}` follows a value with no members"
                    )));
                };
                let ms = schema.members(sc)?;
                let (i, m) = ms
                    .iter()
                    .enumerate()
                    .find(|(_, m)| schema.member_of(m).name == n)
                    .ok_or_else(|| -> Error {
                        bad(format!(
                            "`{text}`: `{}` has no member `{n}`",
                            schema.name_of(sc)
                        ))
                    })?;
                out.push(Seg::Member(i as u16));
                shape = m.shape.clone();
            }
            crate::graph::PathStep::Index(k) => {
                shape = match shape {
                    Shape::Array(_, e) | Shape::CArray(_, e) => *e,
                    _ => {
                        return Err(bad(format!(
                            "`{text}`: [{k}] indexes a value that is not an array"
                        )))
                    }
                };
                out.push(Seg::Index(k));
            }
        }
    }
    Ok((out, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_bits_texts_read_back() {
        for bits in [0x7FC0_0000u32, 0xFFC0_0001, 0x7F80_0000, 0xFF80_0000] {
            let f = f32::from_bits(bits);
            assert_eq!(bits_of(&bits_text(f)).map(f32::to_bits), Some(bits));
        }
        assert_eq!(half_bits_of(&half_text(0x7E01)), Some(0x7E01));
        assert_eq!(bits_of("f32:0x7FC0"), None);
        assert_eq!(hex_bytes("0aFf"), Some(vec![0x0A, 0xFF]));
        assert_eq!(hex_bytes("0a0"), None);
        assert_eq!(to_hex(&[0x0A, 0xFF]), "0aff");
    }
}
