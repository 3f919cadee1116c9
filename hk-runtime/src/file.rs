//! The front door (layer 5): any Havok file hk reads, whatever its container, read into the
//! object graph by one schema-selection rule, and written back as the kind of file it was.
//!
//! The rule ([`Schemas::select`]):
//! - a packfile whose `__types__` section describes its own classes is read with that
//!   description (exact for the file; docs/layout-and-signatures.md, the metadata files),
//!   the reflection classes taken from the generation matching its header;
//! - any other packfile with the generation matching its header ([`Catalog::packfile`]:
//!   exact, same file version, or the nearest older one, which [`Match`] reports);
//! - a tagfile with its own type table (every record type is a class), written back with
//!   the `[tagfile]` rules of the generation matching its SDK version.

use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use rustc_hash::FxHashMap as HashMap;

use crate::error::{Error, ErrorKind, Result, SchemaError};
use crate::graph::{Graph, ObjectId};
use crate::limits::Budget;
use crate::packfile::read::{ReadOptions, Violation};
use crate::packfile::{metadata, Packfile, PackfileInfo};
use crate::schema::catalog::{Catalog, Entry, Match};
use crate::schema::{Schema, TagfileRules};
use crate::tagfile::data::Bindings;
use crate::tagfile::{self, TagFile};

/// The containers hk reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// A binary packfile (magic `57 E0 E0 57 10 C0 C0 10`).
    Packfile,
    /// A TAG0 tagfile, bare or inside a phive or id Tech cm container.
    Tagfile,
}

/// The container of `bytes`, or `None` for anything hk does not read.
pub fn detect(bytes: &[u8]) -> Option<Container> {
    if bytes.starts_with(&crate::packfile::header::MAGIC) {
        Some(Container::Packfile)
    } else if tagfile::locate(bytes).is_some() {
        Some(Container::Tagfile)
    } else {
        None
    }
}

/// Where a document's classes came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaChoice {
    /// A generation of the catalog, and how it matched the file's version.
    Generation {
        /// Folder name.
        name: String,
        /// How it matched.
        matched: Match,
    },
    /// The file's own class metadata (`__types__`), read with the reflection classes of
    /// generation `reflection`.
    Metadata {
        /// The generation whose reflection classes read the metadata.
        reflection: String,
    },
    /// The file's own type table (a tagfile); `rules` names the generation whose
    /// `[tagfile]` rules write it back, and how it matched the SDK version.
    TypeTable {
        /// Generation folder of the writer rules.
        rules: String,
        /// How it matched.
        matched: Match,
    },
}

impl SchemaChoice {
    /// A line for people: `havok-7.1 (exact)`, `havok-2012.2 (nearest older version: the
    /// file's own has no schema)`.
    pub fn describe(&self) -> String {
        let how = |m: &Match| match m {
            Match::Exact => "exact".to_string(),
            Match::SameFileVersion => "same file version, another contents version".to_string(),
            Match::Older => "nearest older version: the file's own version has no schema".into(),
        };
        match self {
            SchemaChoice::Generation { name, matched } => format!("{name} ({})", how(matched)),
            SchemaChoice::Metadata { reflection } => {
                format!(
                    "the file's own class metadata (read with {reflection}'s reflection classes)"
                )
            }
            SchemaChoice::TypeTable { rules, matched } => format!(
                "the file's own type table; writer rules of {rules} ({})",
                how(matched)
            ),
        }
    }

    /// Whether the file was read with classes of another version than its own.
    pub fn is_fallback(&self) -> bool {
        matches!(
            self,
            SchemaChoice::Generation {
                matched: Match::Older | Match::SameFileVersion,
                ..
            } | SchemaChoice::TypeTable {
                matched: Match::Older,
                ..
            }
        )
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
    /// Broken invariants (lenient packfile reading only).
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
        }
    }
}

/// The bytes a file describes its classes with, and what reads them.
/// What reads a self-description (the generation and layout, or the tagfile SDK), then
/// the describing bytes.
type Described = HashMap<String, HashMap<Vec<u8>, Arc<Schema>>>;

/// A schema extracted from a type table, kept alive beside its record bindings.
type SchemaBindings = (Arc<Schema>, Arc<Bindings>);

/// The schema catalog and the schemas loaded from it, shared by every file a program
/// reads (loading a folder once, and a file's own metadata once per distinct metadata).
#[derive(Debug)]
pub struct Schemas {
    catalog: Catalog,
    loaded: RwLock<HashMap<String, Arc<Schema>>>,
    /// Schemas files describe themselves (packfile metadata, tagfile type tables), keyed
    /// by the bytes that describe them and what reads those bytes.
    described: RwLock<Described>,
    /// Tagfile type tables parsed before, keyed by their TYPE section's bytes.
    tables: RwLock<HashMap<Vec<u8>, tagfile::SharedTypes>>,
    /// Record-type bindings of each schema extracted from a type table (keyed by the
    /// schema's address, which the entry keeps alive).
    bindings: RwLock<HashMap<usize, SchemaBindings>>,
}

impl Schemas {
    /// Schemas of `catalog`.
    pub fn new(catalog: Catalog) -> Schemas {
        Schemas {
            catalog,
            loaded: RwLock::new(HashMap::default()),
            described: RwLock::new(HashMap::default()),
            tables: RwLock::new(HashMap::default()),
            bindings: RwLock::new(HashMap::default()),
        }
    }

    /// Schemas of the folders under `root`.
    ///
    /// # Errors
    /// When `root` cannot be listed.
    pub fn from_dir(root: &Path) -> Result<Schemas> {
        let c = Catalog::from_dir(root)
            .map_err(|e| Error::from(e).in_(format!("schema folders {}", root.display())))?;
        Ok(Schemas::new(c))
    }

    /// The catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The generation called `name`, loaded once.
    ///
    /// # Errors
    /// No such generation, or its files' problems (rendered with file, line and key).
    pub fn load(&self, name: &str) -> Result<Arc<Schema>> {
        if let Some(s) = read_lock(&self.loaded).get(name) {
            return Ok(Arc::clone(s));
        }
        let entry = self.catalog.get(name).ok_or_else(|| {
            let known: Vec<&str> = self
                .catalog
                .entries()
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            Error::from(SchemaError::NoMatch(format!(
                "no schema folder `{name}` (known: {})",
                known.join(", ")
            )))
        })?;
        let s = Arc::new(load_entry(entry)?);
        write_lock(&self.loaded).insert(name.to_string(), Arc::clone(&s));
        Ok(s)
    }

    /// The classes to read packfile `pf` with, and where they came from (the rule in the
    /// module docs).
    ///
    /// # Errors
    /// No generation matches the header, the generation does not load, or the file's own
    /// metadata is malformed.
    pub fn select(&self, pf: &Packfile<'_>) -> Result<(Arc<Schema>, SchemaChoice)> {
        let h = &pf.header;
        let cv = h.contents_version();
        let (entry, matched) = self.catalog.packfile(h.file_version, &cv).ok_or_else(|| {
            Error::from(SchemaError::NoMatch(format!(
                "no packfile schema folder for file version {} (\"{cv}\")",
                h.file_version
            )))
        })?;
        let name = entry.name.clone();
        let generation = self.load(&name)?;
        if let Some(types) = pf.section("__types__") {
            let data = types.data(&pf.bytes());
            if !data.is_empty() {
                let reader = format!("{name} {} {cv}", pf.rules().tag());
                if let Some(s) = self.described(&reader, data) {
                    return Ok((s, SchemaChoice::Metadata { reflection: name }));
                }
                if let Some(own) = metadata::extract(pf, &generation)? {
                    let own = Arc::new(own);
                    self.remember(reader, data, &own);
                    return Ok((own, SchemaChoice::Metadata { reflection: name }));
                }
            }
        }
        Ok((generation, SchemaChoice::Generation { name, matched }))
    }

    /// The classes a tagfile's own type table describes, extracted once per distinct
    /// table.
    ///
    /// # Errors
    /// A type table that does not form a schema.
    pub fn type_table(&self, tf: &TagFile, bytes: &[u8]) -> Result<Arc<Schema>> {
        let section = tf.root.child(b"TYPE");
        let at = section.map_or(tf.offset, |s| s.offset);
        let table = section
            .and_then(|s| bytes.get(s.offset as usize..(s.offset + s.size) as usize))
            .unwrap_or_default();
        let reader = format!("tagfile {}", tf.sdk_version);
        if let Some(s) = self.described(&reader, table) {
            return Ok(s);
        }
        let name = format!("tagfile-{}", tf.sdk_version);
        let schema = Arc::new(tagfile::schema::extract(&[tf], &name).map_err(|e| e.at(at))?);
        self.remember(reader, table, &schema);
        Ok(schema)
    }

    /// The schema `reader` made of describing `bytes` before, if any (no copy of the bytes
    /// to look it up).
    fn described(&self, reader: &str, bytes: &[u8]) -> Option<Arc<Schema>> {
        read_lock(&self.described)
            .get(reader)
            .and_then(|m| m.get(bytes))
            .map(Arc::clone)
    }

    fn remember(&self, reader: String, bytes: &[u8], schema: &Arc<Schema>) {
        let mut described = write_lock(&self.described);
        let m = described.entry(reader).or_default();
        bound(m);
        m.insert(bytes.to_vec(), Arc::clone(schema));
    }

    /// The `[tagfile]` rules for SDK version `sdk`, and which generation gave them.
    ///
    /// # Errors
    /// No tagfile generation at or below `sdk`, or one without `[tagfile]` rules.
    pub fn tagfile_rules(&self, sdk: &str) -> Result<(TagfileRules, SchemaChoice)> {
        let (entry, matched) = self.catalog.tagfile(sdk).ok_or_else(|| {
            Error::from(SchemaError::NoMatch(format!(
                "no tagfile schema folder for SDK {sdk}"
            )))
        })?;
        let rules = entry.generation.tagfile.clone().ok_or_else(|| {
            Error::schema(format!(
                "{} has no [tagfile] rules to write a tagfile with",
                entry.name
            ))
        })?;
        Ok((
            rules,
            SchemaChoice::TypeTable {
                rules: entry.name.clone(),
                matched,
            },
        ))
    }
}

/// How many entries a cache of self-described schemas, type tables or bindings keeps: a
/// program reading many files with distinct tables (a fuzzer, a folder of mods) empties it
/// when it is full rather than growing without bound; what is dropped is derived again.
const MAX_CACHED: usize = 512;

/// Empties `m` when it holds [`MAX_CACHED`] entries.
fn bound<K, V>(m: &mut HashMap<K, V>) {
    if m.len() >= MAX_CACHED {
        m.clear();
    }
}

/// Shared read access to a cache (a panic elsewhere leaves it usable: entries are only
/// ever added whole).
fn read_lock<T>(m: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(PoisonError::into_inner)
}

fn write_lock<T>(m: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    m.write().unwrap_or_else(PoisonError::into_inner)
}

fn load_entry(entry: &Entry) -> Result<Schema> {
    entry.load().map_err(|d| {
        Error::new(ErrorKind::Schema(SchemaError::Diagnostics(format!(
            "schema {} has {} problem(s):\n{d}",
            entry.name,
            d.0.len()
        ))))
    })
}

/// Reads `bytes` (a packfile, or a tagfile bare or in its container) into the graph, within
/// `opts.limits` (the memory a read may take counts the tagfile's type table and the graph).
///
/// # Errors
/// An unknown container, no schema for the file, a limit reached, or anything the
/// container's reader reports (with offset and object/member path).
pub fn open(bytes: &[u8], schemas: &Schemas, opts: ReadOptions) -> Result<Document> {
    match detect(bytes) {
        Some(Container::Packfile) => {
            let pf = Packfile::parse(bytes)?;
            let (schema, choice) = schemas.select(&pf)?;
            let d = crate::packfile::read::read(&pf, &schema, opts).map_err(|e| {
                if e.is_schema() {
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
            let tf = TagFile::parse_within(
                bytes,
                |ty| {
                    let hit = read_lock(&schemas.tables).get(ty).cloned();
                    known = hit.is_some();
                    hit
                },
                &mut budget,
            )?;
            if !known {
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
            let (rules, choice) = schemas.tagfile_rules(&tf.sdk_version)?;
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
        None => Err(Error::read(crate::error::ReadError::BadMagic).at(0)),
    }
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
/// graph and its header facts, or a tagfile with its type table in its container.
///
/// # Errors
/// A value that does not fit its member, or anything the writers refuse.
pub fn write(doc: &Document) -> Result<Vec<u8>> {
    match &doc.origin {
        Origin::Packfile(info) => crate::packfile::write::write(&doc.graph, info),
        Origin::Tagfile { file, rules } => tagfile::write(&doc.graph, file, rules),
    }
}
