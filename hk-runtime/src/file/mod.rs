//! The front door (layer 5): any Havok file hk reads, whatever its container, read into the
//! object graph by one schema-selection rule, and written back as the kind of file it was.
//!
//! The rule is in [`select`] (docs/schema-selection.md): a folder of the file's version as
//! is; else the nearest folder that passes a check on the file itself (every stored class
//! signature recomputes from it; for a tagfile, its writer rules write the file back byte
//! for byte); else strict reading refuses the file and lenient reading takes the closest
//! folder with a warning. A file's own class metadata or type table is read as it stands,
//! and so are an old binary tagfile's class definitions (`tagfile::binary`).

mod borrow;
mod schemas;
pub mod select;
mod xml;

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::graph::{Graph, ObjectId};
use crate::limits::Budget;
use crate::packfile::graph::read::{ReadOptions, Violation};
use crate::packfile::{Packfile, PackfileInfo};
use crate::schema::{Schema, TagfileRules};
use crate::tagfile::binary::BinaryTagfile;
use crate::tagfile::{self, TagFile};

pub use self::borrow::{Borrowed, Borrowing};
pub use self::schemas::{Given, Schemas};
pub use self::select::{signature_check, How, SchemaChoice};
pub use self::xml::is_xml;
pub use crate::error::{Check, Tried};

use self::schemas::{bound, read_lock, write_lock};

/// The containers hk reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// A binary packfile (magic `57 E0 E0 57 10 C0 C0 10`).
    Packfile,
    /// A TAG0 tagfile, bare or inside a phive or id Tech cm container.
    Tagfile,
    /// An old binary tagfile (magic `1E 0D B0 CA CE FA 11 D0`, before 2015).
    BinaryTagfile,
}

/// The container of `bytes`, or `None` for anything hk does not read.
pub fn detect(bytes: &[u8]) -> Option<Container> {
    if bytes.starts_with(&crate::packfile::header::MAGIC) {
        Some(Container::Packfile)
    } else if tagfile::locate(bytes).is_some() {
        Some(Container::Tagfile)
    } else if tagfile::binary::is_binary_tagfile(bytes) {
        Some(Container::BinaryTagfile)
    } else {
        None
    }
}

/// What writing a document back needs besides its graph.
#[derive(Debug)]
pub enum Origin {
    /// A packfile: its header facts, sections, class-name order and exports.
    Packfile(PackfileInfo),
    /// A tagfile: its type table and container, and the writer rules of its generation.
    Tagfile {
        /// The parsed tagfile.
        file: Box<TagFile>,
        /// How its generation writes tables.
        rules: TagfileRules,
    },
    /// An old binary tagfile: its version, class definitions and trailing bytes.
    BinaryTagfile(Box<BinaryTagfile>),
}

/// A file read into the graph.
#[derive(Debug)]
pub struct Document {
    /// The objects.
    pub graph: Graph,
    /// The container facts.
    pub origin: Origin,
    /// Where the classes came from.
    pub schema: SchemaChoice,
    /// Broken invariants (lenient packfile and binary tagfile reading only).
    pub violations: Vec<Violation>,
}

impl Document {
    /// Removes object `id` from the graph and from the container facts (its section,
    /// exports and capacity flags): pointers to it become null, later ids shift down.
    ///
    /// # Errors
    /// When `id` is the root or out of range.
    pub fn remove_object(&mut self, id: ObjectId) -> Result<()> {
        self.graph.remove_object(id)?;
        if let Origin::Packfile(info) = &mut self.origin {
            info.remove_object(id);
        }
        Ok(())
    }

    /// The container.
    pub fn container(&self) -> Container {
        match self.origin {
            Origin::Packfile(_) => Container::Packfile,
            Origin::Tagfile { .. } => Container::Tagfile,
            Origin::BinaryTagfile(_) => Container::BinaryTagfile,
        }
    }
}

/// Reads `bytes` (a packfile, a tagfile bare or in its container, an old binary tagfile,
/// or Havok XML, recognised by its first bytes: [`is_xml`]) into the graph. XML reads as
/// the packfile it describes, laid out as it says (else its generation's default).
///
/// # Errors
/// An unknown container, no schema for the file, or anything the container's reader
/// reports (with offset and object/member path; line and column for XML).
pub fn open(bytes: &[u8], schemas: &Schemas, opts: ReadOptions) -> Result<Document> {
    match detect(bytes) {
        Some(Container::Packfile) => {
            let pf = Packfile::parse(bytes)?;
            let (schema, choice) = schemas.select(&pf, &opts)?;
            if opts.lenient {
                layout_fits(&pf, &schema, &choice)?;
            }
            let d = crate::packfile::graph::read::read(&pf, &schema, opts).map_err(|e| {
                // A file laid out otherwise than the schema says fails anywhere; say so.
                if let Err(foreign) = layout_fits(&pf, &schema, &choice) {
                    foreign
                // Name the classes when they may be the cause: a schema problem, or classes
                // that fail the selection rule's check (read leniently, or named).
                } else if e.is_schema() || choice.warning().is_some() {
                    e.in_(format!("classes of {}", choice.describe()))
                } else {
                    e
                }
            })?;
            Ok(Document {
                graph: d.graph,
                origin: Origin::Packfile(d.info),
                schema: choice,
                violations: d.violations,
            })
        }
        Some(Container::Tagfile) => {
            let limits = opts.limits;
            let mut budget = Budget::new(&limits, bytes.len() as u64);
            let mut known = false;
            let tf = TagFile::parse_referencing(
                bytes,
                |ty| {
                    let hit = read_lock(&schemas.tables).get(ty).cloned();
                    known = hit.is_some();
                    hit
                },
                schemas.compendium.as_deref(),
                &mut budget,
            )?;
            // A compendium's table is the compendium's to keep, not the cache's.
            if !known && tf.compendium.is_none() {
                let mut tables = write_lock(&schemas.tables);
                bound(&mut tables);
                tables.insert(tf.type_bytes(bytes).to_vec(), tf.shared_types());
            }
            let schema = schemas.type_table(&tf, bytes)?;
            let key = Arc::as_ptr(&schema) as usize;
            let known = read_lock(&schemas.bindings)
                .get(&key)
                .map(|b| Arc::clone(&b.1));
            let bindings = known.unwrap_or_else(|| {
                let mut all = write_lock(&schemas.bindings);
                bound(&mut all);
                Arc::clone(
                    &all.entry(key)
                        .or_insert_with(|| (Arc::clone(&schema), Arc::default()))
                        .1,
                )
            });
            let graph =
                tagfile::data::decode_with(&tf, bytes, &schema, &bindings, &limits, &mut budget)?;
            let (rules, choice) = schemas.tagfile_rules(&tf, bytes, &graph, &opts)?;
            Ok(Document {
                graph,
                origin: Origin::Tagfile {
                    file: Box::new(tf),
                    rules,
                },
                schema: choice,
                violations: Vec::new(),
            })
        }
        Some(Container::BinaryTagfile) => {
            let r = tagfile::binary::read_with(bytes, opts, &|file, depth| {
                schemas.binary_schema(file, depth)
            })?;
            let schema = schemas.class_definitions(&r.file, &r.graph);
            Ok(Document {
                graph: r.graph,
                origin: Origin::BinaryTagfile(Box::new(r.file)),
                schema,
                violations: r.violations,
            })
        }
        None if is_xml(bytes) => xml::open(bytes, schemas, opts),
        None => Err(Error::read(crate::error::ReadError::BadMagic).at(0)),
    }
}

/// Refuses packfile `pf` when most of its pointer fixups land where `schema` lays out no
/// pointer member (docs/packfile-format.md §9): its layout is another's, and reading on
/// would decode garbage and break every rule lenient reading lets pass.
fn layout_fits(pf: &Packfile<'_>, schema: &Schema, choice: &SchemaChoice) -> Result<()> {
    let (off, fixups) = crate::packfile::check::body_fixups(schema, pf);
    if off * 2 > fixups {
        return Err(Error::read(crate::error::ReadError::ForeignLayout {
            off,
            fixups,
            schema: choice.name().to_string(),
        }));
    }
    Ok(())
}

/// Reads the file at `path` ([`open`] with the path in every error).
///
/// # Errors
/// As [`open`], or the file cannot be read.
pub fn open_path(path: &Path, schemas: &Schemas, opts: ReadOptions) -> Result<Document> {
    let bytes = std::fs::read(path).map_err(|e| Error::from(e).in_file(path))?;
    open(&bytes, schemas, opts).map_err(|e| e.in_file(path))
}

/// Writes `doc` back as the kind of file it was read from: a packfile laid out from the
/// graph and its header facts, a tagfile with its type table in its container, or an old
/// binary tagfile with its class definitions.
///
/// # Errors
/// A value that does not fit its member, or anything the writers refuse.
pub fn write(doc: &Document) -> Result<Vec<u8>> {
    match &doc.origin {
        Origin::Packfile(info) => crate::packfile::graph::write::write(&doc.graph, info),
        Origin::Tagfile { file, rules } => tagfile::write(&doc.graph, file, rules),
        Origin::BinaryTagfile(file) => tagfile::binary::write(&doc.graph, file),
    }
}
