//! hk-runtime's own integration tests, on small schemas built in code (no corpus needed):
//! layout and signature rules, and the tools for adding a version. The corpus and
//! whole-file tests are in the hk-tests crate (tests/README.md).

mod layout_rules;
mod schema_tools;
