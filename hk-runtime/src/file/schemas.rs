//! The schemas a program reads files with: the catalog, the folders loaded from it, a
//! folder the caller names instead of the selection rule, and what files describe about
//! themselves (kept once per distinct description).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use rustc_hash::FxHashMap as HashMap;

use crate::error::{Error, ErrorKind, Result, SchemaError};
use crate::schema::catalog::{Catalog, Entry};
use crate::schema::Schema;
use crate::tagfile::binary::{self, BinaryTagfile, ClassDef};
use crate::tagfile::data::Bindings;
use crate::tagfile::{self, TagFile};

/// What reads a self-description (the generation and layout, or the tagfile SDK), then
/// the describing bytes.
type Described = HashMap<String, HashMap<Vec<u8>, Arc<Schema>>>;

/// A schema extracted from a type table, kept alive beside its record bindings.
pub(crate) type SchemaBindings = (Arc<Schema>, Arc<Bindings>);

/// A schema the caller names for every file (`--schema DIR` or `--schema NAME`), instead
/// of the selection rule.
#[derive(Clone, Debug)]
pub struct Given {
    /// The schema.
    pub schema: Arc<Schema>,
    /// How to name it: its folder, or its generation name.
    pub label: String,
}

/// The schema catalog and the schemas loaded from it, shared by every file a program
/// reads (loading a folder once, and a file's own metadata once per distinct metadata).
#[derive(Debug)]
pub struct Schemas {
    pub(super) catalog: Catalog,
    pub(super) given: Option<Given>,
    loaded: RwLock<HashMap<String, Arc<Schema>>>,
    /// Schemas files describe themselves (packfile metadata, tagfile type tables), keyed
    /// by the bytes that describe them and what reads those bytes.
    described: RwLock<Described>,
    /// Tagfile type tables parsed before, keyed by their TYPE section's bytes.
    pub(super) tables: RwLock<HashMap<Vec<u8>, tagfile::SharedTypes>>,
    /// Record-type bindings of each schema extracted from a type table (keyed by the
    /// schema's address, which the entry keeps alive).
    pub(super) bindings: RwLock<HashMap<usize, SchemaBindings>>,
    /// Schemas of old binary tagfiles' class definitions, by a hash of the definitions
    /// (each entry keeps the definitions it was made of, compared in full on a hit).
    binary: RwLock<BinarySchemas>,
    /// The type compendium tagfiles with a `TCRF` section take their types from
    /// (`--compendium`, docs/tagfile-format.md §1a).
    pub(super) compendium: Option<Arc<tagfile::compendium::Compendium>>,
}

/// What a binary tagfile's schema is made of: the class definitions, their integer
/// widths, the SDK string and the depth limit.
type BinaryKey = (
    Vec<ClassDef>,
    BTreeMap<(usize, usize), u8>,
    Option<String>,
    usize,
);

/// The binary tagfile schemas made so far, by the hash of their [`BinaryKey`].
type BinarySchemas = HashMap<u64, Vec<(BinaryKey, Arc<Schema>)>>;

impl Schemas {
    /// Schemas of `catalog`.
    pub fn new(catalog: Catalog) -> Schemas {
        Schemas {
            catalog,
            given: None,
            loaded: RwLock::new(HashMap::default()),
            described: RwLock::new(HashMap::default()),
            tables: RwLock::new(HashMap::default()),
            bindings: RwLock::new(HashMap::default()),
            binary: RwLock::new(HashMap::default()),
            compendium: None,
        }
    }

    /// These schemas, reading tagfiles whose types are in `compendium` with its table.
    #[must_use]
    pub fn with_compendium(mut self, compendium: tagfile::compendium::Compendium) -> Schemas {
        self.compendium = Some(Arc::new(compendium));
        self
    }

    /// Schemas of the folders under `root`.
    ///
    /// # Errors
    /// When `root` cannot be listed, or a `generation.toml` under it does not load.
    pub fn from_dir(root: &Path) -> Result<Schemas> {
        let c = Catalog::from_dir(root)
            .map_err(|e| e.in_(format!("schema folders {}", root.display())))?;
        Ok(Schemas::new(c))
    }

    /// These schemas, reading every file with `schema` instead of the selection rule: a
    /// packfile's objects with its classes (even when the file carries its own metadata),
    /// a tagfile written back with its generation's `[tagfile]` rules.
    #[must_use]
    pub fn with_schema(mut self, schema: Arc<Schema>, label: impl Into<String>) -> Schemas {
        self.given = Some(Given {
            schema,
            label: label.into(),
        });
        self
    }

    /// The catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The schema the caller named instead of the selection rule, if any.
    pub fn given(&self) -> Option<&Given> {
        self.given.as_ref()
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

    /// The classes a tagfile's own type table describes, extracted once per distinct
    /// table.
    ///
    /// # Errors
    /// A type table that does not form a schema.
    pub fn type_table(&self, tf: &TagFile, bytes: &[u8]) -> Result<Arc<Schema>> {
        let section = tf.root.child(b"TYPE");
        let at = section.map_or(tf.offset, |s| s.offset);
        // A file of a compendium's types is described by the compendium's TYPE section.
        let table = match (&self.compendium, tf.compendium) {
            (Some(c), Some(_)) => c.type_bytes.as_slice(),
            _ => section
                .and_then(|s| bytes.get(s.offset as usize..(s.offset + s.size) as usize))
                .unwrap_or_default(),
        };
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
    pub(super) fn described(&self, reader: &str, bytes: &[u8]) -> Option<Arc<Schema>> {
        read_lock(&self.described)
            .get(reader)
            .and_then(|m| m.get(bytes))
            .map(Arc::clone)
    }

    /// The schema of binary tagfile `file`'s class definitions within `depth`, made once
    /// per distinct set of definitions.
    pub(super) fn binary_schema(&self, file: &BinaryTagfile, depth: usize) -> Result<Arc<Schema>> {
        let mut h = rustc_hash::FxHasher::default();
        (&file.classes, &file.int_widths, &file.sdk, depth).hash(&mut h);
        let h = h.finish();
        let same = |k: &BinaryKey| {
            k.0 == file.classes && k.1 == file.int_widths && k.2 == file.sdk && k.3 == depth
        };
        if let Some(s) = read_lock(&self.binary)
            .get(&h)
            .and_then(|v| v.iter().find(|(k, _)| same(k)))
        {
            return Ok(Arc::clone(&s.1));
        }
        let schema = Arc::new(binary::schema::extract_within(
            &[file],
            &file.schema_name(),
            depth,
        )?);
        let mut all = write_lock(&self.binary);
        bound(&mut all);
        all.entry(h).or_default().push((
            (
                file.classes.clone(),
                file.int_widths.clone(),
                file.sdk.clone(),
                depth,
            ),
            Arc::clone(&schema),
        ));
        Ok(schema)
    }

    pub(super) fn remember(&self, reader: String, bytes: &[u8], schema: &Arc<Schema>) {
        let mut described = write_lock(&self.described);
        let m = described.entry(reader).or_default();
        bound(m);
        m.insert(bytes.to_vec(), Arc::clone(schema));
    }
}

/// How many entries a cache of self-described schemas, type tables or bindings keeps: a
/// program reading many files with distinct tables (a fuzzer, a folder of mods) empties it
/// when it is full rather than growing without bound; what is dropped is derived again.
const MAX_CACHED: usize = 512;

/// Empties `m` when it holds [`MAX_CACHED`] entries.
pub(super) fn bound<K, V>(m: &mut HashMap<K, V>) {
    if m.len() >= MAX_CACHED {
        m.clear();
    }
}

/// Shared read access to a cache (a panic elsewhere leaves it usable: entries are only
/// ever added whole).
pub(super) fn read_lock<T>(m: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(PoisonError::into_inner)
}

pub(super) fn write_lock<T>(m: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
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
