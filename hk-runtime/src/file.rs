//! Any Havok file hk reads, packfile or tagfile, into the object graph and back: what
//! code that does not care about the container (generated crates, batch tools) calls.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::schema::Schema;
use crate::tagfile::{self, TagFile};

/// What writing a file back needs besides its graph.
#[derive(Debug)]
pub enum Origin {
    /// A packfile: everything comes from the graph and the schema.
    Packfile,
    /// A tagfile (bare, phive or cm): its type table and container.
    Tagfile(Box<TagFile>),
}

/// Reads `bytes` (a packfile, or a TAG0 tagfile bare or in its container) into the object
/// graph, with `schema` for packfiles.
///
/// # Errors
/// Anything the packfile or tagfile reader reports.
pub fn read(bytes: &[u8], schema: &Schema) -> Result<(Graph, Origin)> {
    if tagfile::locate(bytes).is_some() {
        let tf = TagFile::parse(bytes)?;
        let graph = tagfile::graph(&tf, bytes)?;
        return Ok((graph, Origin::Tagfile(Box::new(tf))));
    }
    let pf = crate::packfile::Packfile::parse(bytes)?;
    let (graph, _) = crate::packfile::read::read(&pf, schema, Default::default())?;
    Ok((graph, Origin::Packfile))
}

/// Writes `graph` as the kind of file it was read from: a packfile from `schema`, or a
/// tagfile with its original type table, `schema`'s table order and its container.
///
/// # Errors
/// A tagfile schema without `[tagfile]` rules, or anything the writers report.
pub fn write(graph: &Graph, schema: &Schema, origin: &Origin) -> Result<Vec<u8>> {
    match origin {
        Origin::Packfile => crate::packfile::write::write(graph, schema),
        Origin::Tagfile(tf) => {
            let rules = schema.generation.tagfile.as_ref().ok_or_else(|| {
                Error::schema(format!(
                    "{} has no [tagfile] rules to write a tagfile with",
                    schema.generation.name
                ))
            })?;
            let tag0 = tagfile::write::write(graph, &tf.types, &tf.sdk_version, rules)?;
            tagfile::wrap(tf, tag0)
        }
    }
}
