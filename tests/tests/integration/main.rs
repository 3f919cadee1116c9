//! hk's integration tests, one binary with a module per subject (tests/README.md says where
//! each kind of test goes). Run one subject with
//! `cargo test -p hk-tests --test integration packfile::`.

mod anim;
mod collision;
mod dump;
mod hostile;
mod layers;
mod packfile;
mod schema;
mod tagfile;
mod typed;
