//! Hostile names, built in code: old binary tagfiles whose class, member or SDK strings are
//! whatever a test asks for, same-length renames of strings inside real files, and a listing
//! of everything under a folder (to check that a command wrote nowhere else).

use std::path::{Path, PathBuf};

use hk_runtime::tagfile::binary::MAGIC;
use hk_runtime::Endian;

/// The sign-bit varint of binary tagfiles (docs/binary-tagfile-format.md §1).
pub fn varint(v: i64) -> Vec<u8> {
    let m = v.unsigned_abs();
    let mut out = Vec::new();
    let mut b = (((m & 0x3F) << 1) as u8) | u8::from(v < 0);
    let mut rest = m >> 6;
    while rest != 0 {
        out.push(b | 0x80);
        b = (rest & 0x7F) as u8;
        rest >>= 7;
    }
    out.push(b);
    out
}

fn string(b: &mut Vec<u8>, s: &str) {
    b.extend(varint(s.len() as i64));
    b.extend(s.as_bytes());
}

/// A version 4 binary tagfile with SDK string `sdk` that defines class `class` with one
/// integer member `member`, and holds one object of it (`member` = 5).
pub fn binary_tagfile(sdk: &str, class: &str, member: &str) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    // File information: tag 1, version 4, the SDK string.
    b.extend([varint(1), varint(4)].concat());
    string(&mut b, sdk);
    // A class definition: tag 2, name, version 0, no parent, one member of type int (2).
    b.extend(varint(2));
    string(&mut b, class);
    b.extend([varint(0), varint(0), varint(1)].concat());
    string(&mut b, member);
    b.extend(varint(2));
    // An object of class 1: its member bitfield (present), the value; then the end tag.
    b.extend([varint(4), varint(1)].concat());
    b.push(1);
    b.extend([varint(5), varint(7)].concat());
    b
}

/// `data` with every `from` followed by a NUL replaced by `to` (the same length): a string
/// of a string table or section renamed in place.
///
/// # Panics
/// When the lengths differ or `from` does not occur.
pub fn rename(data: &[u8], from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len(), "{from:?} and {to:?} differ in length");
    let needle = [from.as_bytes(), b"\0"].concat();
    let mut out = data.to_vec();
    let mut found = 0;
    let mut i = 0;
    while let Some(k) = out[i..].windows(needle.len()).position(|w| w == needle) {
        out[i + k..i + k + from.len()].copy_from_slice(to.as_bytes());
        i += k + needle.len();
        found += 1;
    }
    assert!(found > 0, "{from:?} does not occur");
    out
}

/// Every file and folder under `dir` (not `dir` itself), sorted, symbolic links not
/// followed.
pub fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Writes `v` at `at` in byte order `e`.
pub fn put_u32(b: &mut [u8], at: usize, v: u32, e: Endian) {
    let bytes = match e {
        Endian::Big => v.to_be_bytes(),
        Endian::Little => v.to_le_bytes(),
    };
    b[at..at + 4].copy_from_slice(&bytes);
}

/// The word at `at` in byte order `e`.
pub fn get_u32(b: &[u8], at: usize, e: Endian) -> u32 {
    let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    match e {
        Endian::Big => u32::from_be_bytes(w),
        Endian::Little => u32::from_le_bytes(w),
    }
}
