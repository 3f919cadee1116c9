//! The packfile engine every object model reads and writes through (the dynamic graph of
//! [`super::graph`], the typed classes `hk-derive` generates): [`read`] owns the file's
//! invariants when reading, [`write`](mod@write) places objects and regenerates padding, fixups and
//! headers when writing (docs/packfile-format.md §7 and §8).

pub mod read;
pub mod write;
