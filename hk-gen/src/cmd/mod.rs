//! Subcommands.

pub mod roundtrip;
pub mod schema;
