//! TAG0 tagfiles (Havok 2015 and later, seed 004): the section tree.
//!
//! A section is a big-endian `u32` (two flag bits, then a 30-bit size that counts the
//! 8-byte header) and a four-character tag. Sections whose top flag bit is clear hold
//! sections (`TAG0`, `TYPE`, `INDX`); the others hold data. Decoding the type table and the
//! objects is the next step; this module reads the tree and checks that it nests exactly.

pub mod section;

pub use section::{Section, SECTION_HEADER};
