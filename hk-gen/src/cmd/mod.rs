//! Subcommands.

pub mod bench;
pub mod file;
pub mod roundtrip;
pub mod sample;
pub mod schema;
pub mod tagfile;
