//! Old binary tagfiles (magic `1E 0D B0 CA CE FA 11 D0`, Havok before 2015; format
//! measured in `docs/binary-tagfile-format.md`).
//!
//! A file is a stream of varint-tagged records: file information (the version, and by
//! version an SDK string and a predicate block), class definitions (name, version, parent,
//! members with type codes), objects (a class number, a member bitfield and the present
//! members' values) and an end tag. Strings are written once and referenced by number
//! afterwards; objects reference each other by number.
//!
//! [`read`] decodes versions 3, 4 and 5 into an object graph over the schema the file's
//! own class definitions make ([`schema::extract`]); [`write()`] regenerates the stream
//! from a graph and the container facts the graph does not hold ([`BinaryTagfile`]).
//! Modules: [`defs`] (version rules, type codes, class definitions), `input` (varints,
//! strings, bitfields), `read` (the stream and objects), `classes` (class definitions,
//! their flattened members and value counts), `values` (arrays, tuples, struct columns),
//! `zero` (what Havok leaves out, and zero values), [`schema`] (schemas from class
//! definitions), `cost` (what that schema is charged), `encode` (the writer).

mod classes;
mod cost;
pub mod defs;
mod encode;
mod input;
mod read;
pub mod schema;
mod values;
mod zero;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::Result;
use crate::graph::Graph;
use crate::limits::ReadOptions;
use crate::packfile::engine::read::Violation;

pub use defs::{ClassDef, MemberDef, TypeCode, VersionRules, MAGIC};

/// The predicate block of version 5 file information: two `u16`s and a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predicates {
    /// The first `u16` (21 in every corpus file).
    pub max: u16,
    /// The listed predicates (`[20]` in every corpus file).
    pub verified: Vec<u16>,
}

/// What writing a binary tagfile back needs besides its graph: the version and what its
/// file information holds, the class definitions in stream order, and any bytes after the
/// end tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryTagfile {
    /// The format version (3, 4 or 5).
    pub version: u32,
    /// The SDK string (versions 4 and 5).
    pub sdk: Option<String>,
    /// The predicate block (version 5).
    pub predicates: Option<Predicates>,
    /// The class definitions, in stream order.
    pub classes: Vec<ClassDef>,
    /// The byte width (4 or 8) each integer member's arrays, tuples or struct columns
    /// declared, by definition and member index: what makes a member `int32` or `int64`.
    pub int_widths: BTreeMap<(usize, usize), u8>,
    /// Strings the stream remembers (the two preset ones not counted).
    pub strings: usize,
    /// Bytes after the end tag (one zero byte in FFXIV's `animation.hkt`).
    pub trailing: Vec<u8>,
}

impl BinaryTagfile {
    /// The rules of this file's version.
    pub fn rules(&self) -> Option<VersionRules> {
        defs::rules(self.version)
    }

    /// The name a schema of this file's classes takes: `binary-tagfile-<sdk>`, or
    /// `binary-tagfile-v<version>` without an SDK string.
    pub fn schema_name(&self) -> String {
        match &self.sdk {
            Some(s) => format!("binary-tagfile-{s}"),
            None => format!("binary-tagfile-v{}", self.version),
        }
    }
}

/// A binary tagfile read into the graph.
#[derive(Debug)]
pub struct Read {
    /// The container facts.
    pub file: BinaryTagfile,
    /// The objects, over the schema of the file's own classes.
    pub graph: Graph,
    /// Soft rules the file breaks (lenient reading only).
    pub violations: Vec<Violation>,
}

/// Whether `bytes` start with the binary tagfile magic.
pub fn is_binary_tagfile(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Reads a binary tagfile into the graph within `opts`' limits. Strict reading refuses
/// anything Havok's writer would not have written (and hk could not write back byte for
/// byte); lenient reading records such soft breaks as violations.
///
/// # Errors
/// A truncated or malformed stream, with the offset and the object and member path, or a
/// file past a read limit ([`crate::limits::Limits`]).
pub fn read(data: &[u8], opts: ReadOptions) -> Result<Read> {
    read::read(data, opts, &|file, depth| {
        schema::extract_within(&[file], &file.schema_name(), depth).map(Arc::new)
    })
}

/// [`read`], with the schema of the file's class definitions taken from `schema_of`
/// (given the file's definitions and the depth limit): what lets a caller reading many
/// files with the same definitions build that schema once ([`schema::extract_within`]
/// makes it).
///
/// # Errors
/// As [`read`], and what `schema_of` returns.
pub fn read_with(
    data: &[u8],
    opts: ReadOptions,
    schema_of: &dyn Fn(&BinaryTagfile, usize) -> Result<Arc<crate::schema::Schema>>,
) -> Result<Read> {
    read::read(data, opts, schema_of)
}

/// Writes `graph` as a binary tagfile with `file`'s version, class definitions and
/// trailing bytes.
///
/// # Errors
/// A graph whose classes are not `file`'s, or a value its member's type cannot hold.
pub fn write(graph: &Graph, file: &BinaryTagfile) -> Result<Vec<u8>> {
    encode::write(graph, file)
}
