//! What reading one XML text may take: the read's memory [`Budget`], charged before each
//! value, string and table is made, with what it will hold in the graph; going past it is
//! a [`ReadError::Limit`] at the line and column where the reader is.

use std::cell::Cell;

use super::events::{Located, Res};
use crate::error::{Error, Limit, ReadError};
use crate::graph::{Column, Value};
use crate::limits::{Budget, Limits};
use crate::schema::Shape;

/// A graph value (a struct member, an element of an array of values).
pub(super) const VALUE: u64 = std::mem::size_of::<Value>() as u64;

/// A struct member: its value, its slot while the struct is read, and the struct's share
/// of the vectors that hold them.
pub(super) const MEMBER: u64 = 3 * VALUE;

/// An object besides its values: its class, id and section in the tables of a read, its
/// slot in the graph and the vector of its values.
pub(super) const OBJECT: u64 = 160;

/// A key of a hash map besides its text.
pub(super) const ENTRY: u64 = 48;

/// The memory budget of one read, and whether the pass running charges it (the pass that
/// builds the values does; the passes that only look for a value's place do not).
#[derive(Debug)]
pub(super) struct Meter {
    budget: Cell<Budget>,
    charging: Cell<bool>,
    /// The read's limits.
    pub(super) limits: Limits,
}

impl Meter {
    /// The meter of a read of `input` bytes under `limits`, charging.
    pub(super) fn new(limits: &Limits, input: usize) -> Self {
        Meter {
            budget: Cell::new(Budget::new(limits, input as u64)),
            charging: Cell::new(true),
            limits: *limits,
        }
    }

    /// Charges from now on, or not.
    pub(super) fn set_charging(&self, on: bool) {
        self.charging.set(on);
    }

    /// Takes `bytes` from the budget, for something read at `at`.
    pub(super) fn charge(&self, bytes: u64, at: usize) -> Res<()> {
        if !self.charging.get() {
            return Ok(());
        }
        let mut b = self.budget.get();
        if b.charge(bytes, 0).is_ok() {
            self.budget.set(b);
            return Ok(());
        }
        Err(Located {
            error: Error::read(ReadError::Limit {
                limit: Limit::Memory,
                needed: b.used().saturating_add(bytes),
                max: b.max(),
            }),
            at,
        })
    }
}

/// What one element of an array of `elem` takes in its column, three times over: a column
/// grows by doubling, and the old block is live while the elements move.
pub(super) fn element(elem: &Shape) -> u64 {
    let one = match Column::of(elem) {
        Column::Bool | Column::I8 | Column::U8 => 1,
        Column::I16 | Column::U16 | Column::Half => 2,
        Column::I32 | Column::U32 | Column::Real => 4,
        Column::I64 | Column::U64 => 8,
        Column::Vec4 => 16,
        Column::Mat3 => 48,
        Column::Mat4 => 64,
        _ => VALUE,
    };
    3 * one
}
