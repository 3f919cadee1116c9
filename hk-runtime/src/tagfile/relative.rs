//! Relative slots of 2022 and later tagfiles (docs/relative-pointers.md): `hkRelPtr<T>`,
//! the 16-byte `hkRelArray<T>` and `hkRelArrayView<T, int>`. Their DATA holds what the
//! running program holds: a signed offset from the slot's first byte to the item it names
//! (0 for null or empty), then, for the arrays, the element count (and a zero capacity
//! word for `hkRelArray`). The named data is still an item of ITEM; PTCH does not list
//! these slots. The 4-byte `hkRelArray` of 2014-2016 keeps the item-index form of every
//! other slot.

use rustc_hash::FxHashMap as HashMap;

use super::index::Item;
use super::types::{kind, TypeTable};

/// The DATA form of a relative slot type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rel {
    /// `hkRelPtr<T>`: an `i64` offset.
    Ptr,
    /// `hkRelArray<T>` (16 bytes): an `i64` offset, an `i32` count, an `i32` capacity (0).
    Array,
    /// `hkRelArrayView<T, int>` (8 bytes): an `i32` offset, an `i32` count.
    View,
}

impl Rel {
    /// Bytes of the offset word.
    pub fn offset_width(self) -> u64 {
        match self {
            Rel::Ptr | Rel::Array => 8,
            Rel::View => 4,
        }
    }

    /// Where the count word lies in the slot, for the arrays.
    pub fn count_at(self) -> Option<u64> {
        match self {
            Rel::Ptr => None,
            Rel::Array => Some(8),
            Rel::View => Some(4),
        }
    }

    /// The slot's size.
    pub fn size(self) -> u64 {
        match self {
            Rel::Ptr | Rel::View => 8,
            Rel::Array => 16,
        }
    }
}

/// The relative form of each type of `table` (by index), by its name, format kind and
/// size; `None` for a table without relative slot types.
pub(super) fn forms(table: &TypeTable) -> Option<Vec<Option<Rel>>> {
    let v: Vec<Option<Rel>> = (0..table.types.len() as u64)
        .map(|t| form(table, t))
        .collect();
    v.iter().any(Option::is_some).then_some(v)
}

/// The relative form of type `t`, if it is one.
fn form(table: &TypeTable, t: u64) -> Option<Rel> {
    let ty = table.types.get(usize::try_from(t).ok()?)?;
    let (k, size) = (table.kind_of(t), table.size_of(t));
    match (ty.name.as_str(), k, size) {
        ("hkRelPtr", kind::POINTER, 8) => Some(Rel::Ptr),
        ("hkRelArray", kind::ARRAY, 16) => Some(Rel::Array),
        ("hkRelArrayView", kind::ARRAY, 8) => Some(Rel::View),
        _ => None,
    }
}

/// The item that begins at each DATA offset (the first, for items of no bytes).
pub(super) fn items_by_offset(items: &[Item]) -> HashMap<u64, usize> {
    let mut m = HashMap::default();
    for (i, it) in items.iter().enumerate().skip(1) {
        m.entry(u64::from(it.offset)).or_insert(i);
    }
    m
}

/// The offset word of a slot at `at` naming data at `target`, in `width` bytes.
///
/// # Errors
/// The distance does not fit the word.
pub(super) fn offset_word(at: u64, target: u64, width: u64) -> Result<Vec<u8>, String> {
    let d = i128::from(target) - i128::from(at);
    let bits = 8 * width as u32;
    let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
    if d < lo || d > hi {
        return Err(format!(
            "the distance {d} does not fit a {width}-byte relative offset"
        ));
    }
    Ok((d as i64).to_le_bytes()[..width as usize].to_vec())
}

/// The target of a slot at `at` whose offset word (`width` bytes, little-endian) is `raw`,
/// or `None` for a null slot, or `Err` for a target before DATA.
pub(super) fn target_of(at: u64, raw: u64, width: u64) -> Option<Result<u64, i64>> {
    if raw == 0 {
        return None;
    }
    let shift = 64 - 8 * width as u32;
    let d = ((raw << shift) as i64) >> shift;
    Some(at.checked_add_signed(d).ok_or(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_words_round_trip_and_refuse_what_does_not_fit() {
        let w = offset_word(0x40, 0x10, 4).unwrap();
        assert_eq!(w, (-0x30i32).to_le_bytes());
        let raw = u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        assert_eq!(target_of(0x40, raw, 4), Some(Ok(0x10)));
        assert_eq!(target_of(0x40, 0, 8), None);
        assert_eq!(target_of(0x10, (-0x20i64) as u64, 8), Some(Err(-0x20)));
        assert!(offset_word(0, 1 << 31, 4).is_err());
        assert_eq!(offset_word(8, 0x108, 8).unwrap(), 0x100u64.to_le_bytes());
    }
}
