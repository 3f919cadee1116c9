//! hk-gen is the generator of the project's design, and it holds the `hk` command line. The
//! generator turns schema folders and game profiles into typed Rust crates, one per game
//! (`hk gen crate`, `hk gen all`); the command line reads, writes, checks, converts and
//! dumps Havok files through hk-runtime.
//!
//! The `hk` command line as a library: every command is a function that takes a
//! [`Context`] (the schemas and game profiles), writes its output to an [`Out`] and returns
//! a [`Status`] or a typed [`Error`]. The `hk` binary only parses arguments, builds the
//! context, calls one of these and prints the error.
//!
//! Every command that reads a Havok file goes through [`hk_runtime::file::open`] (via
//! [`Context::open`]): one container detection and one schema-selection rule. The schema
//! folders and game profiles are built into the binary ([`embedded`]), so an installed `hk`
//! works anywhere; a folder on disk can replace either ([`Options`]).
//!
//! | command | function |
//! |---|---|
//! | `hk info` | [`info::info`] |
//! | `hk dump`, `hk build` | [`dump::dump_file`], [`dump::build`] |
//! | `hk diff` | [`diff::diff`] |
//! | `hk roundtrip` | [`roundtrip::run`] |
//! | `hk schema ...` | [`schema::signatures`], [`schema::verify`], [`schema::check`], [`schema::extract`], [`schema::layout`], [`schema::import`], [`schema::new()`], [`schema::explain`] |
//! | `hk sample` | [`sample::run`] |
//! | `hk gen crate`, `hk gen all` | [`gen::gen_crate`], [`gen::gen_all`] |
//! | `hk bench` | [`bench::run`] |
//! | `hk export` | [`collision::export`] |
//! | `hk cm box` | [`cm::box_cmd`] |
//! | `hk render` | [`collision::render_file`] |
//! | `hk mopp query`, `hk mopp check`, `hk mopp bench` | [`collision::query`], [`collision::check`], [`collision::bench`] |

pub mod anim;
pub mod bench;
pub mod cm;
pub mod collision;
pub mod context;
pub mod convert;
pub mod diff;
pub mod dump;
pub mod embedded;
pub mod error;
pub mod gen;
pub mod import;
pub mod import_xml;
pub mod info;
pub mod motion;
pub mod out;
pub mod outputs;
pub mod profile;
pub mod roundtrip;
pub mod sample;
pub mod schema;
pub mod typed710;
pub mod walk;

pub use context::{Context, Options};
pub use error::{Error, Result};
pub use out::Out;

/// How a command that ran to the end came out. Every `hk` command follows one exit-code
/// convention (docs/exit-codes.md): 0 success, 1 "checked and found different", 2 an
/// error; errors go to stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything checked agrees (exit status 0).
    Success,
    /// Something checked disagrees: a mismatch, a difference, a file that does not
    /// round-trip (exit status 1).
    Failure,
    /// A command over several inputs went on past one it could not read or check; each
    /// such error was printed to stderr (exit status 2, as for an [`Error`]).
    Error,
}

impl Status {
    /// [`Status::Success`] when `ok`.
    pub fn from_ok(ok: bool) -> Status {
        if ok {
            Status::Success
        } else {
            Status::Failure
        }
    }

    /// The outcome of a command over several inputs: [`Status::Error`] when any could not
    /// be read or checked, else [`Status::Failure`] when any disagrees.
    pub fn of(errors: usize, differences: usize) -> Status {
        match (errors, differences) {
            (0, 0) => Status::Success,
            (0, _) => Status::Failure,
            _ => Status::Error,
        }
    }

    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Failure => 1,
            Status::Error => 2,
        }
    }
}
