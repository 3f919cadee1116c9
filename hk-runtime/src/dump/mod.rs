//! A document as JSON (and TOML): what `hk dump` prints and `hk build` reads. The dump is a
//! view of the graph (objects with class and member names, in the schema's member order)
//! and of the container facts (a packfile's header and sections; a tagfile's SDK version,
//! container and own type table; an old binary tagfile's version and class definitions).
//!
//! Writing streams: [`Dump`] is a serde `Serialize` that walks the graph, so the text is
//! written straight from the objects ([`write_json`]). Reading streams too, in two passes
//! over the text: the first reads the header and each object's id, class and section
//! (`skim`), the second reads the members straight into graph values through the
//! schema's shapes (`members`). No tree of JSON values is built for the objects (TOML is
//! read through the tree its parser builds).
//!
//! Reading a dump back checks every value against its member and every header field
//! against its width: a dump that does not fit is refused with the object and member (or
//! the `file.` field) it concerns, in the dump's own syntax (`#3 hkaSkeleton.bones[999]`,
//! `file.layout.pointer_size`), and with the line and column of the value in the text;
//! never truncated, wrapped or zero-filled.

mod classdefs;
mod container;
mod members;
mod prepare;
mod skim;
mod source;
mod spot;
mod text;
mod types;
mod write;
pub mod xml;

use std::io;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value as Json;

pub use classdefs::{classes_json, predicates_json};
pub use container::{cm_json, phive_json};
pub use text::{bits_of, bits_text, half_bits_of, half_text, hex_bytes, resolve, to_hex};
pub use types::types_json;
pub use write::Dump;

use crate::error::{Error, Result, WriteError};
use crate::file::{Document, SchemaChoice, Schemas};
use crate::graph::{value_at, Graph, Object};
use crate::packfile::PackfileInfo;
use crate::schema::Schema;
use crate::tagfile::binary::BinaryTagfile;
use crate::tagfile::cm::SurfaceRecord;
use crate::tagfile::phive::Phive;
use crate::tagfile::types::TypeTable;
use members::{MembersSeed, Reader};
use prepare::{prepare, Facts, Pick};
use skim::SkimSeed;
use source::{locate, Failure, JsonText, JsonTree, Source, TomlText};
use spot::Fail;

/// Format version of the dump.
pub const DUMP_VERSION: u64 = 1;

/// The top-level keys of a dump.
pub(crate) const TOP_KEYS: &[&str] = &[
    "hk_dump",
    "schema",
    "file",
    "capacity_flags",
    "container",
    "sdk_version",
    "cm",
    "phive",
    "tagfile_version",
    "predicates",
    "trailing",
    "classes",
    "types",
    "root",
    "objects",
];

/// The text formats of a dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// TOML.
    Toml,
}

impl Format {
    /// `JSON` or `TOML`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Toml => "TOML",
        }
    }

    /// The format of a dump: by its file's extension (`.json`, `.toml`), else by its first
    /// character (`{` or `[` is JSON; a TOML document starts with a key, a table header
    /// `[name]` or a comment).
    pub fn detect(path: Option<&Path>, text: &[u8]) -> Format {
        match path.and_then(Path::extension).and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => return Format::Json,
            Some(e) if e.eq_ignore_ascii_case("toml") => return Format::Toml,
            _ => {}
        }
        let mut rest = without_bom(text)
            .iter()
            .skip_while(|b| b.is_ascii_whitespace());
        match (rest.next(), rest.next()) {
            (Some(b'{'), _) => Format::Json,
            // `[[` or `[` then a value: JSON; `[name]`: a TOML table header.
            (Some(b'['), Some(b)) if !(b.is_ascii_alphabetic() || *b == b'_') => Format::Json,
            _ => Format::Toml,
        }
    }
}

/// The schema folder a document's dump names (what `hk build` reads it back with).
pub fn schema_name(choice: &SchemaChoice) -> &str {
    choice.name()
}

/// The document as a JSON value (a tree; [`write_json`] streams the text instead).
pub fn to_json(doc: &Document) -> Json {
    serde_json::to_value(Dump::json(doc)).unwrap_or(Json::Null)
}

/// Writes the document's JSON dump (pretty, with a final newline) to `w`, straight from
/// the graph.
///
/// # Errors
/// `w` refuses the text.
pub fn write_json(doc: &Document, mut w: impl io::Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut w, &Dump::json(doc))?;
    w.write_all(b"\n")
}

/// The document's TOML dump. TOML's writer builds the whole text (its tables are written
/// after the keys of their parent).
///
/// # Errors
/// A dump the TOML writer refuses.
pub fn to_toml(doc: &Document) -> Result<String> {
    toml::to_string_pretty(&Dump::toml(doc))
        .map_err(|e| Error::write(WriteError::Invalid(format!("the TOML writer: {e}"))))
}

/// The container a dump describes besides its objects.
#[derive(Debug)]
pub enum BuiltContainer {
    /// A packfile's facts.
    Packfile(PackfileInfo),
    /// A tagfile: its SDK version, container and type table.
    Tagfile {
        /// SDK version (`20160100`).
        sdk: String,
        /// The id Tech cm container: record version and surface records.
        cm: Option<(u32, Vec<SurfaceRecord>)>,
        /// The phive container.
        phive: Option<Phive>,
        /// The file's own type table (a dump of a TAG0 file carries it), which the file is
        /// written with; without it the table is written from the schema.
        types: Option<TypeTable>,
    },
    /// An old binary tagfile: its version, file information and class definitions.
    BinaryTagfile(Box<BinaryTagfile>),
}

/// A dump read back.
#[derive(Debug)]
pub struct Built {
    /// The objects.
    pub graph: Graph,
    /// The container facts.
    pub container: BuiltContainer,
}

/// Reads a dump's text (JSON or TOML) with the classes of the schema folder it names (or
/// that matches its versions).
///
/// # Errors
/// Text that does not parse, a missing, unknown or mistyped key, or a value that does not
/// fit its member, with the line and column, and the object and member path (or the
/// `file.` field).
pub fn read(text: &[u8], format: Format, schemas: &Schemas) -> Result<Built> {
    read_text(without_bom(text), format, Pick::From(schemas))
}

/// `text` without a UTF-8 byte-order mark (some editors write one into a dump).
fn without_bom(text: &[u8]) -> &[u8] {
    text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text)
}

fn read_text(text: &[u8], format: Format, pick: Pick<'_>) -> Result<Built> {
    match format {
        Format::Json => read_source(&JsonText(text), pick),
        Format::Toml => {
            let text = std::str::from_utf8(text).map_err(|e| {
                let (l, c) = crate::text::line_column(
                    &String::from_utf8_lossy(&text[..e.valid_up_to()]),
                    e.valid_up_to(),
                );
                Error::read(crate::error::ReadError::Syntax {
                    format: "TOML",
                    message: "the text is not UTF-8".into(),
                })
                .at_line(l, c)
            })?;
            read_source(&TomlText::parse(text)?, pick)
        }
    }
}

/// Reads a dump back with the classes of `schema`.
///
/// # Errors
/// As [`read`] (without lines and columns: a value has none).
pub fn from_json(doc: &Json, schema: &Arc<Schema>) -> Result<Built> {
    read_source(&JsonTree(doc), Pick::Given(schema))
}

/// The file a dump describes: a packfile laid out under its `file.layout`; a tagfile with
/// the dump's own type table (extended by the records an edit needs), or without one a
/// table written from the schema (`tagfile::reflect`), in the dump's container; an old
/// binary tagfile with the dump's class definitions.
///
/// # Errors
/// As [`read`] and the writers.
pub fn build_text(text: &[u8], format: Format, schemas: &Schemas) -> Result<(Vec<u8>, Built)> {
    let built = read(text, format, schemas)?;
    Ok((write_built(&built)?, built))
}

/// [`build_text`] of a dump already parsed into a JSON value.
///
/// # Errors
/// As [`from_json`] and the writers.
pub fn build(doc: &Json, schemas: &Schemas) -> Result<(Vec<u8>, Built)> {
    let built = read_source(&JsonTree(doc), Pick::From(schemas))?;
    Ok((write_built(&built)?, built))
}

/// The bytes of a dump read back.
///
/// # Errors
/// What the writers refuse.
pub fn write_built(built: &Built) -> Result<Vec<u8>> {
    Ok(match &built.container {
        BuiltContainer::Packfile(info) => crate::packfile::graph::write::write(&built.graph, info)?,
        BuiltContainer::BinaryTagfile(file) => crate::tagfile::binary::write(&built.graph, file)?,
        BuiltContainer::Tagfile {
            sdk,
            cm,
            phive,
            types,
        } => {
            let schema = built.graph.schema();
            let tag0 = match types {
                Some(t) => {
                    let rules = schema.generation.tagfile.as_ref().ok_or_else(|| {
                        Error::schema(format!("{} has no [tagfile] rules", schema.generation.name))
                    })?;
                    let table = crate::tagfile::reflect::extend(t, &built.graph, schema)?;
                    crate::tagfile::write::write(&built.graph, &table, sdk, rules)?
                }
                None => crate::tagfile::reflect::write(&built.graph, schema, sdk)?,
            };
            match (cm, phive) {
                (Some((version, records)), _) => {
                    crate::tagfile::cm::Cm::write(records, *version, &tag0)
                }
                (None, Some(p)) => p.write(&tag0)?,
                (None, None) => tag0,
            }
        }
    })
}

/// Both passes over a dump, and the checks that need every object read.
fn read_source<S: Source>(src: &S, pick: Pick<'_>) -> Result<Built> {
    let located = |f: Fail| -> Error {
        match f.spot.and_then(|s| locate(src, &s)) {
            Some((l, c)) => f.error.at_line(l, c),
            None => f.error,
        }
    };
    let failure = Failure::default();
    let head = src
        .run(SkimSeed { failure: &failure })
        .map_err(|s| failure.finish(src.format(), &s))?;
    let p = prepare(head, pick).map_err(located)?;
    let mut reader = Reader {
        schema: &p.schema,
        classes: &p.classes,
        ids: &p.ids,
        failure: Failure::default(),
        into: Default::default(),
        relocate: None,
    };
    let values = src
        .run_last(MembersSeed(&reader))
        .map_err(|s| reader.failure.finish(src.format(), &s))?;
    if values.len() != p.classes.len() {
        return Err(spot::bad("the list of objects changed between the passes"));
    }
    // Pointers into elements: the element must exist (its object may be listed after the
    // pointer). A bad one is found again, for its line and column.
    let bad_into = reader.into.borrow().iter().enumerate().find_map(|(n, i)| {
        let target = values.get(i.target.0 as usize)?;
        value_at(target, &i.path).is_none().then(|| {
            (
                n,
                crate::error::Error::write(WriteError::BadPointer(format!(
                    "pointer into {}.{}, which does not exist",
                    reader.label(i.target.0 as usize),
                    i.text
                ))),
            )
        })
    });
    if let Some((n, e)) = bad_into {
        reader.failure = Failure::default();
        reader.into = Default::default();
        reader.relocate = Some((n, e.clone()));
        return Err(match src.run(MembersSeed(&reader)) {
            Err(s) => reader.failure.finish(src.format(), &s),
            Ok(_) => e,
        });
    }
    let objects: Vec<Object> = p
        .classes
        .iter()
        .zip(values)
        .map(|(&class, values)| Object { class, values })
        .collect();
    let graph = Graph::from_objects(Arc::clone(&p.schema), objects, p.root);
    // Every value was checked as it was read; this is the graph's own check, for what a
    // reader cannot see.
    graph.check()?;
    let container = match p.facts {
        Facts::Tagfile {
            sdk,
            cm,
            phive,
            types,
        } => BuiltContainer::Tagfile {
            sdk,
            cm,
            phive,
            types,
        },
        Facts::BinaryTagfile(file) => BuiltContainer::BinaryTagfile(file),
        Facts::Packfile(mut info, flags) => {
            for f in flags {
                let values = &graph.objects[f.object.0 as usize].values;
                if value_at(values, &f.path).is_none() {
                    return Err(located(Fail {
                        error: spot::bad(format!(
                            "{}.{} does not exist",
                            reader.label(f.object.0 as usize),
                            crate::graph::path_text(
                                &p.schema,
                                p.classes[f.object.0 as usize],
                                &f.path
                            )
                        ))
                        .in_(f.spot.text()),
                        spot: Some(f.spot),
                    }));
                }
                info.capacity_flags
                    .insert((f.object, f.path.into()), f.flags);
            }
            BuiltContainer::Packfile(info)
        }
    };
    Ok(Built { graph, container })
}
