//! The variable-length integers of the TYPE subsections (docs/tagfile-format.md §2): the
//! first byte's high bits give the length, the value is the remaining bits, big-endian.

use crate::error::{Error, Result};

/// Reads a varint at `*pos` of `data`, advancing `*pos`. `base` is the absolute offset of
/// `data`, for errors.
///
/// # Errors
/// A truncated varint, an unknown prefix, or a value written longer than it needs to be
/// (26019/26019 corpus varints are minimal, so a longer one is not what Havok writes).
pub fn read(data: &[u8], pos: &mut usize, base: u64) -> Result<u64> {
    let at = base + *pos as u64;
    let first = *data.get(*pos).ok_or_else(|| Error::truncated(at, 1, 0))?;
    let (len, mask): (usize, u64) = match first {
        0x00..=0x7F => (1, 0x7F),
        0x80..=0xBF => (2, 0x3FFF),
        0xC0..=0xDF => (3, 0x1F_FFFF),
        0xE0..=0xE7 => (4, 0x7FF_FFFF),
        0xE8..=0xEF => (5, 0x7_FFFF_FFFF),
        0xF0..=0xF7 => (8, 0x07FF_FFFF_FFFF_FFFF),
        _ => {
            return Err(Error::invalid(
                at,
                format!("unknown varint prefix 0x{first:02X}"),
            ))
        }
    };
    let bytes = data
        .get(*pos..*pos + len)
        .ok_or_else(|| Error::truncated(at, len as u64, (data.len() - *pos) as u64))?;
    let v = bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)) & mask;
    if encoded_len(v) != len {
        return Err(Error::invalid(
            at,
            format!("varint {v} is not in its shortest form ({len} bytes)"),
        ));
    }
    *pos += len;
    Ok(v)
}

/// How many bytes the shortest encoding of `v` takes.
pub fn encoded_len(v: u64) -> usize {
    match v {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x800_0000 => 4,
        0x800_0000..0x8_0000_0000 => 5,
        _ => 8,
    }
}

/// Appends the shortest encoding of `v` (up to 59 bits).
pub fn write(out: &mut Vec<u8>, v: u64) {
    let (len, prefix): (usize, u64) = match encoded_len(v) {
        1 => (1, 0),
        2 => (2, 0x8000),
        3 => (3, 0xC0_0000),
        4 => (4, 0xE000_0000),
        5 => (5, 0xE8_0000_0000),
        _ => (8, 0xF000_0000_0000_0000),
    };
    let word = prefix | v;
    out.extend_from_slice(&word.to_be_bytes()[8 - len..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_examples_and_round_trip() {
        // docs/tagfile-format.md §2: examples measured on the corpus.
        for (bytes, value) in [
            (&[0x00][..], 0u64),
            (&[0x80, 0xC1], 193),
            (&[0xC0, 0x82, 0x04], 0x8204),
            (&[0xE8, 0x7F, 0xFF, 0xFF, 0xFF], 2_147_483_647),
        ] {
            let mut p = 0;
            assert_eq!(read(bytes, &mut p, 0).unwrap(), value);
            assert_eq!(p, bytes.len());
            let mut out = Vec::new();
            write(&mut out, value);
            assert_eq!(out, bytes);
        }
        let mut p = 0;
        assert!(
            read(&[0x80, 0x05], &mut p, 0).is_err(),
            "5 in two bytes is not minimal"
        );
        assert!(read(&[0xC0], &mut p, 0).is_err(), "truncated");
    }
}
