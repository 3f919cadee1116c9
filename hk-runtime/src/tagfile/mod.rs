//! TAG0 tagfiles (Havok 2015 and later; format measured in
//! `docs/tagfile-format.md`).
//!
//! A section is a big-endian `u32` (two flag bits, then a 30-bit size that counts the
//! 8-byte header) and a four-character tag. [`TagFile::parse`] reads the container, the
//! section tree, the type table and the index; [`read`] also decodes DATA into an object
//! graph whose schema is extracted from the file's own type table ([`schema::extract`]), so
//! every record type is a class. [`write()`] writes a graph back with a type table, in the
//! container it came in.
//!
//! Modules: [`parse`] (sections, SDKV, container), [`types`] (the type table), [`index`]
//! (ITEM, PTCH), [`data`] (the read engine), [`mod@write`] with `encode` and `tables` (the write
//! engine; `relative` for relative slots, docs/relative-pointers.md), [`schema`] (schemas from
//! type tables), [`reflect`] (type tables from schemas), [`cm`] and [`phive`] (containers).
//! [`binary`] reads and writes the older binary tagfiles (before 2015), a format of its own.

pub mod binary;
mod bind;
pub mod cm;
pub mod compendium;
pub mod data;
mod encode;
pub mod index;
pub mod parse;
pub mod phive;
pub mod reflect;
mod relative;
pub mod schema;
pub mod section;
mod tables;
pub mod types;
pub mod varint;
pub mod write;

use std::sync::Arc;

pub use parse::{locate, SharedTypes, TagFile};
pub use section::{Section, SECTION_HEADER};

use crate::error::Result;
use crate::graph::Graph;
use crate::schema::TagfileRules;

/// Reads a tagfile (bare, or in a phive or cm container): its sections and type table, and
/// its objects as a graph over the schema extracted from its own type table.
///
/// # Errors
/// Anything [`TagFile::parse`], [`schema::extract`] or [`data::decode`] reports, with the
/// file offset (an extraction error at the TYPE section's).
pub fn read(data: &[u8]) -> Result<(TagFile, Graph)> {
    let tf = TagFile::parse(data)?;
    let graph = graph(&tf, data)?;
    Ok((tf, graph))
}

/// The object graph of tagfile `tf` read from `data` (the input `tf` was parsed from), over
/// the schema extracted from `tf`'s type table.
///
/// # Errors
/// As [`read`].
pub fn graph(tf: &TagFile, data: &[u8]) -> Result<Graph> {
    let at = tf.root.child(b"TYPE").map_or(tf.offset, |s| s.offset);
    let name = format!("tagfile-{}", tf.sdk_version);
    let schema = schema::extract(&[tf], &name).map_err(|e| e.at(at))?;
    data::decode(tf, data, &Arc::new(schema))
}

/// Writes `graph` with `tf`'s type table and SDK version, in `tf`'s container (none, cm or
/// phive), in the table order `rules` give.
///
/// # Errors
/// Anything [`write::write`] or [`wrap`] reports.
pub fn write(graph: &Graph, tf: &TagFile, rules: &TagfileRules) -> Result<Vec<u8>> {
    let tag0 = match tf.compendium {
        Some(id) => write::write_referencing(graph, &tf.types, &tf.sdk_version, rules, id)?,
        None => write::write(graph, &tf.types, &tf.sdk_version, rules)?,
    };
    wrap(tf, tag0)
}

/// Reads a tagfile (bare, or in a phive or cm container) into the object graph and writes
/// it again: the graph through [`write::write`], the container regenerated around it.
///
/// # Errors
/// Anything [`read`] or [`write()`] reports.
pub fn roundtrip(data: &[u8], rules: &TagfileRules) -> Result<Vec<u8>> {
    let (tf, graph) = read(data)?;
    write(&graph, &tf, rules)
}

/// `tag0` in the container `tf` came in (none, cm or phive).
///
/// # Errors
/// A phive container with more sections than its capacity.
pub fn wrap(tf: &TagFile, tag0: Vec<u8>) -> Result<Vec<u8>> {
    if let Some(c) = &tf.cm {
        return Ok(cm::Cm::write(&c.records, c.version, &tag0));
    }
    match &tf.phive {
        Some(p) => p.write(&tag0),
        None => Ok(tag0),
    }
}
