//! Parsing and checking what the macros are given, before any code is generated.

pub mod args;
pub mod ctxt;
pub mod model;
pub mod schema;
