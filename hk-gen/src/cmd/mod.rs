//! Subcommands.

pub mod file;
pub mod roundtrip;
pub mod schema;
