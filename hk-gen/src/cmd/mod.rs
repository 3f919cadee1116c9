//! Subcommands.

pub mod schema;
