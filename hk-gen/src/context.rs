//! What every command runs with: the schemas (built in, or a folder), the game profiles
//! and the one way hk reads a Havok file ([`Context::open`], over
//! [`hk_runtime::file::open_path`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hk_runtime::error::SchemaError;
use hk_runtime::file::{self, Document, How, SchemaChoice, Schemas};
use hk_runtime::packfile::Packfile;
use hk_runtime::schema::catalog::Catalog;
use hk_runtime::Schema;
use hk_runtime::{Limits, ReadOptions};

use crate::embedded::{self, SchemaFiles};
use crate::error::{Error, Result};

/// Where the schema folders come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaSource {
    /// The folders built into `hk`.
    BuiltIn,
    /// A folder of schema folders on disk (`--schemas`, `$HK_SCHEMAS`).
    Dir(PathBuf),
}

/// Where the game profiles come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GamesSource {
    /// The profiles built into `hk`.
    BuiltIn,
    /// A folder of `*.toml` profiles on disk (`--games`, `$HK_GAMES`).
    Dir(PathBuf),
}

/// Choices that make a [`Context`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A folder of schema folders instead of the built-in ones.
    pub schemas: Option<PathBuf>,
    /// A folder of game profiles instead of the built-in ones.
    pub games: Option<PathBuf>,
    /// A schema folder, or the name of one in the catalog, to read every file with instead
    /// of the selection rule (`--schema`).
    pub schema: Option<PathBuf>,
    /// How to read every file: strict or lenient (`--lenient`), and what one read may take
    /// (`--max-memory`, `--max-objects`, ...).
    pub read: ReadOptions,
    /// A type compendium (`TCM0`) that tagfiles with a `TCRF` section take their types from
    /// (`--compendium`, docs/tagfile-format.md §1a).
    pub compendium: Option<PathBuf>,
}

/// A schema a command was pointed at, and how to name it.
#[derive(Clone, Debug)]
pub struct Named {
    /// The schema.
    pub schema: Arc<Schema>,
    /// Its folder, or its generation name for a built-in one.
    pub label: String,
}

/// The schemas, game profiles and file reading every command shares.
#[derive(Debug)]
pub struct Context {
    schemas: Schemas,
    source: SchemaSource,
    games: GamesSource,
    read: ReadOptions,
}

impl Context {
    /// The built-in schemas and profiles.
    ///
    /// # Errors
    /// A built-in `generation.toml` that does not load (a build of hk that is broken).
    pub fn built_in() -> Result<Context> {
        Context::new(&Options::default())
    }

    /// A context from `opts`: the built-in schemas and profiles unless a folder is given,
    /// and the schema `--schema` names, if any.
    ///
    /// # Errors
    /// A schemas folder that cannot be listed, a `generation.toml` that does not load (with
    /// its file, line and key), or a `--schema` that names no folder.
    pub fn new(opts: &Options) -> Result<Context> {
        let (catalog, source) = match &opts.schemas {
            None => (embedded::catalog()?, SchemaSource::BuiltIn),
            Some(dir) => (
                Catalog::from_dir(dir)
                    .map_err(|e| e.in_(format!("schema folders {}", dir.display())))?,
                SchemaSource::Dir(dir.clone()),
            ),
        };
        let mut ctx = Context {
            schemas: Schemas::new(catalog),
            source,
            games: opts
                .games
                .clone()
                .map_or(GamesSource::BuiltIn, GamesSource::Dir),
            read: opts.read,
        };
        if let Some(arg) = &opts.schema {
            let named = ctx.schema_arg(arg)?;
            let schemas = std::mem::replace(&mut ctx.schemas, Schemas::new(Catalog::default()));
            ctx.schemas = schemas.with_schema(named.schema, named.label);
        }
        if let Some(path) = &opts.compendium {
            let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            let mut budget = hk_runtime::limits::Budget::new(&opts.read.limits, bytes.len() as u64);
            let c = hk_runtime::tagfile::compendium::Compendium::parse(&bytes, &mut budget)
                .map_err(|e| Error::from(e.in_file(path)))?;
            let schemas = std::mem::replace(&mut ctx.schemas, Schemas::new(Catalog::default()));
            ctx.schemas = schemas.with_compendium(c);
        }
        Ok(ctx)
    }

    /// The schemas.
    pub fn schemas(&self) -> &Schemas {
        &self.schemas
    }

    /// Where the schemas come from.
    pub fn source(&self) -> &SchemaSource {
        &self.source
    }

    /// Where the game profiles come from.
    pub fn games(&self) -> &GamesSource {
        &self.games
    }

    /// The read limits every command reads files within.
    pub fn limits(&self) -> &Limits {
        &self.read.limits
    }

    /// How every command reads a file: lenient or strict, within the context's limits.
    pub fn read_options(&self) -> ReadOptions {
        self.read
    }

    /// Reads the Havok file at `path` (any container, or Havok XML) with the one
    /// schema-selection rule, as the context's [`ReadOptions`] say.
    ///
    /// # Errors
    /// As [`Context::open_file_or_xml`].
    pub fn open(&self, path: &Path) -> Result<Document> {
        self.open_with(path, self.read)
    }

    /// Reads the Havok file at `path` as [`Context::open`] does, with `read` instead of the
    /// context's options.
    ///
    /// # Errors
    /// As [`Context::open_file_or_xml`].
    pub fn open_with(&self, path: &Path, read: ReadOptions) -> Result<Document> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        self.file_or_xml(&bytes, read).map_err(|e| e.in_file(path))
    }

    /// Reads a Havok file (or Havok XML) from its bytes, as [`Context::open`].
    ///
    /// # Errors
    /// As [`hk_runtime::file::open`].
    pub fn open_bytes(&self, bytes: &[u8]) -> Result<Document> {
        Ok(file::open(bytes, &self.schemas, self.read)?)
    }

    /// Reads back a file hk has just built, strictly: with the read limits, and, when only
    /// the default memory limit refuses it (the user gave no `--max-memory`), again with
    /// four times that limit, saying so (`true`): the file is hk's own, and a later read
    /// of it needs `--max-memory`.
    ///
    /// # Errors
    /// As [`Context::open_bytes`].
    pub fn open_written(&self, bytes: &[u8]) -> Result<(Document, bool)> {
        let strict = self.read.with_lenient(false);
        match file::open(bytes, &self.schemas, strict) {
            Ok(doc) => Ok((doc, false)),
            Err(e)
                if self.read.limits.max_memory.is_none()
                    && matches!(
                        e.kind(),
                        hk_runtime::ErrorKind::Read(hk_runtime::error::ReadError::Limit {
                            limit: hk_runtime::error::Limit::Memory,
                            ..
                        })
                    ) =>
            {
                let limits = self.read.limits;
                let raised = limits.memory_for(bytes.len() as u64).saturating_mul(4);
                let opts = strict.with_limits(limits.with_max_memory(Some(raised)));
                Ok((file::open(bytes, &self.schemas, opts)?, true))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Reads a Havok file, or Havok XML (`<hkpackfile>`) as the packfile it describes.
    ///
    /// # Errors
    /// As [`Context::open_bytes`] and [`hk_runtime::dump::xml::from_xml`].
    pub fn open_file_or_xml(&self, bytes: &[u8]) -> Result<Document> {
        self.file_or_xml(bytes, self.read)
    }

    /// [`Context::open_file_or_xml`] with `read`: the front door reads Havok XML too.
    fn file_or_xml(&self, bytes: &[u8], read: ReadOptions) -> Result<Document> {
        Ok(file::open(bytes, &self.schemas, read)?)
    }

    /// The generation that reads a packfile's objects by the selection rule, without the
    /// file's own metadata: what `hk schema check` compares a file with. When no folder
    /// passes, the closest one (its choice says so: [`SchemaChoice::warning`]).
    ///
    /// # Errors
    /// No packfile generation at all, or one that does not load.
    pub fn generation_of(&self, pf: &Packfile<'_>) -> Result<(Arc<Schema>, SchemaChoice)> {
        Ok(self.schemas.generation(pf, &ReadOptions::lenient())?)
    }

    /// The tagfile generation of exactly SDK version `sdk`.
    ///
    /// # Errors
    /// No generation is of that version, or it does not load.
    pub fn tagfile_generation(&self, sdk: &str) -> Result<(Arc<Schema>, SchemaChoice)> {
        let entry = self.schemas.catalog().tagfile(sdk).ok_or_else(|| {
            hk_runtime::Error::from(SchemaError::NoMatch(format!(
                "no tagfile schema folder is of SDK {sdk}; pass --schema"
            )))
        })?;
        let name = entry.name.clone();
        let schema = self.schemas.load(&name)?;
        Ok((
            schema,
            SchemaChoice::Generation {
                name,
                how: How::Exact,
                borrowed: Vec::new(),
            },
        ))
    }

    /// The schema an argument names: a schema folder on disk (a path, or a folder of that
    /// name here), else a generation of the catalog by name (`havok-7.1`: built in, or under
    /// `--schemas`).
    ///
    /// # Errors
    /// Neither exists, or the folder has problems.
    pub fn schema_arg(&self, arg: &Path) -> Result<Named> {
        if arg.is_dir() || arg.components().count() > 1 {
            return load_dir(arg).map(|s| Named {
                schema: Arc::new(s),
                label: arg.display().to_string(),
            });
        }
        let name = arg.to_string_lossy();
        if self.schemas.catalog().get(&name).is_some() {
            return Ok(Named {
                schema: self.schemas.load(&name)?,
                label: name.into_owned(),
            });
        }
        let known: Vec<&str> = self
            .schemas
            .catalog()
            .entries()
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        let among = match &self.source {
            SchemaSource::BuiltIn => "the built-in schemas".to_string(),
            SchemaSource::Dir(root) => format!("the schemas in {}", root.display()),
        };
        Err(Error::usage(format!(
            "schema `{name}`: no such folder here, and none of that name among {among} ({})",
            known.join(", ")
        )))
    }

    /// The files of generation `name` as text, from wherever the schemas come from.
    ///
    /// # Errors
    /// No such generation, or a file that cannot be read.
    pub fn schema_files(&self, name: &str) -> Result<SchemaFiles> {
        match &self.source {
            SchemaSource::BuiltIn => embedded::schema_files(name)
                .ok_or_else(|| Error::usage(format!("no built-in schema folder `{name}`"))),
            SchemaSource::Dir(root) => SchemaFiles::from_dir(&root.join(name)),
        }
    }

    /// Whether generation `name` exists.
    pub fn has_generation(&self, name: &str) -> bool {
        self.schemas.catalog().get(name).is_some()
    }
}

/// Loads the schema folder at `dir`.
///
/// # Errors
/// Every problem of its files, with file, line and key.
pub fn load_dir(dir: &Path) -> Result<Schema> {
    Schema::load(dir).map_err(|d| Error::schema(dir.display().to_string(), d))
}
