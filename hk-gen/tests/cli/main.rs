//! The `hk` command line end to end, and the `hk_gen` library behind it: one binary with a
//! module per command or subject (tests/README.md says where each kind of test goes). Run
//! one subject with `cargo test -p hk-gen --test cli collision::`.

mod anim_export;
mod anim_pose;
mod bench;
mod binary_tagfile;
mod collision;
mod end_to_end;
mod exit_codes;
mod folders_and_outputs;
mod gen_crates;
mod hostile_names;
mod motion_import;
mod read_limits;
mod schema;
mod support;
mod xml_dialects;
