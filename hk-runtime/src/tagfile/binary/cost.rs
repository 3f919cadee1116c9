//! What making a schema of a file's class definitions allocates, charged to the read's
//! memory budget before the schema is made (docs/binary-tagfile-format.md §8).
//!
//! The stream's own records are charged as they are read (`read`); what follows them is
//! charged here: the schema's classes and members (with the vectors and caches it keeps
//! per class), and the copy of the definitions a caller keeps to find the schema again
//! (`file::Schemas`). Names are charged once per
//! copy, and a class's parent name and provenance note once per class, so a name or an SDK
//! string that many definitions repeat costs what its copies take.

use super::BinaryTagfile;
use crate::error::Result;
use crate::limits::Budget;

/// Bytes per class definition besides its names: the schema's class (256 bytes, in a
/// vector that may double while the schema is built), its lookup entry, its four
/// per-class caches and the tables validation keeps, and the cached copy of the
/// definition.
pub(super) const CLASS: u64 = 896;

/// Bytes per declared member besides its names: the schema's member (104 bytes), its
/// place in the reader's and the schema's flattened lists, and the cached copy of its
/// definition.
pub(super) const MEMBER: u64 = 224;

/// Copies of a class name made after its definition is read: the schema's class and
/// lookup, the cached definition.
const CLASS_NAME_COPIES: u64 = 3;

/// Copies of a member's name and class name made after its definition is read: the
/// schema's member and the cached definition.
const MEMBER_NAME_COPIES: u64 = 2;

/// Bytes of a schema class's provenance note besides the SDK string it names (its text
/// is about 70 characters).
const NOTE: u64 = 96;

/// What the schema of `file`'s class definitions takes, in bytes (saturating).
pub(super) fn schema_bytes(file: &BinaryTagfile) -> u64 {
    // Formatting may leave twice the note's length allocated.
    let note = NOTE
        .saturating_add(file.sdk.as_ref().map_or(0, |s| s.len() as u64))
        .saturating_mul(2);
    let mut bytes = 0u64;
    for c in &file.classes {
        let parent = match c.parent {
            0 => 0,
            p => file
                .classes
                .get(p as usize - 1)
                .map_or(0, |p| p.name.len() as u64),
        };
        let class = CLASS
            .saturating_add((c.name.len() as u64).saturating_mul(CLASS_NAME_COPIES))
            .saturating_add(parent)
            .saturating_add(note);
        let names: u64 = c
            .members
            .iter()
            .map(|m| m.name.len() as u64 + m.class.as_ref().map_or(0, |s| s.len() as u64))
            .fold(0, u64::saturating_add);
        bytes = bytes
            .saturating_add(class)
            .saturating_add((c.members.len() as u64).saturating_mul(MEMBER))
            .saturating_add(names.saturating_mul(MEMBER_NAME_COPIES));
    }
    bytes
}

/// Charges `budget` for the schema of `file`'s class definitions, at file offset `at`.
///
/// # Errors
/// [`crate::error::Limit::Memory`] when the budget cannot pay for it.
pub(super) fn charge_schema(file: &BinaryTagfile, budget: &mut Budget, at: u64) -> Result<()> {
    budget.charge(schema_bytes(file), at)
}
