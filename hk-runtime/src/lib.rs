//! hk-runtime: Havok class schemas, layout rules, class signatures and file containers.
//!
//! - [`schema`]: TOML class descriptions of one generation, loaded and validated.
//! - [`layout`]: member offsets and class sizes under [`LayoutRules`].
//! - [`signature`]: the CRC-32 class signatures Havok stores beside class names.
//! - [`packfile`]: the binary packfile container (header, sections, fixups).
//! - [`tagfile`]: TAG0 tagfiles (2015 and later) and their phive and cm containers.
//! - [`file`](mod@file): either container, read into the object graph and written back.
//! - [`metadata`]: class descriptions a file carries about itself (`__types__`).

pub mod bytes;
pub mod check;
pub mod dump;
pub mod error;
pub mod file;
pub mod graph;
pub mod layout;
pub mod metadata;
pub mod packfile;
pub mod schema;
pub mod signature;
pub mod tagfile;
pub mod typed;
pub mod types;

pub use error::{Error, ErrorKind, Result};
pub use layout::{Endian, LayoutRules};
pub use schema::Schema;
