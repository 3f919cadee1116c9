//! What every command runs with: the schemas (built in, or a folder), the game profiles
//! and the one way hk reads a Havok file ([`Context::open`], over
//! [`hk_runtime::file::open_path`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hk_runtime::error::SchemaError;
use hk_runtime::file::{self, Document, SchemaChoice, Schemas};
use hk_runtime::packfile::read::ReadOptions;
use hk_runtime::packfile::Packfile;
use hk_runtime::schema::catalog::Catalog;
use hk_runtime::Schema;

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
}

impl Context {
    /// The built-in schemas and profiles.
    pub fn built_in() -> Context {
        Context {
            schemas: Schemas::new(embedded::catalog()),
            source: SchemaSource::BuiltIn,
            games: GamesSource::BuiltIn,
        }
    }

    /// A context from `opts`: the built-in schemas and profiles unless a folder is given.
    ///
    /// # Errors
    /// A schemas folder that cannot be listed.
    pub fn new(opts: &Options) -> Result<Context> {
        let (catalog, source) = match &opts.schemas {
            None => (embedded::catalog(), SchemaSource::BuiltIn),
            Some(dir) => (
                Catalog::from_dir(dir).map_err(|e| Error::io(dir, e))?,
                SchemaSource::Dir(dir.clone()),
            ),
        };
        Ok(Context {
            schemas: Schemas::new(catalog),
            source,
            games: opts
                .games
                .clone()
                .map_or(GamesSource::BuiltIn, GamesSource::Dir),
        })
    }

    /// Schema folders left out of the catalog because their `generation.toml` does not
    /// load, one message each with the file, line and key of every problem.
    pub fn problems(&self) -> Vec<String> {
        self.schemas
            .catalog()
            .problems()
            .iter()
            .map(|(name, d)| {
                let text = match &self.source {
                    SchemaSource::BuiltIn => embedded::schema_files(name).map(|f| f.generation),
                    SchemaSource::Dir(root) => {
                        std::fs::read_to_string(root.join(name).join("generation.toml")).ok()
                    }
                };
                let lines: Vec<String> =
                    d.0.iter()
                        .map(|d| {
                            let mut d = d.clone();
                            if d.key.is_empty() {
                                if let Some(key) = text.as_deref().and_then(|t| key_at(t, d.line)) {
                                    d.key = key;
                                }
                            }
                            d.to_string()
                        })
                        .collect();
                format!(
                    "schema folder `{name}` is left out: its generation.toml does not load:\n{}",
                    lines.join("\n")
                )
            })
            .collect()
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

    /// Reads the Havok file at `path` (any container, or Havok XML) with the one
    /// schema-selection rule.
    ///
    /// # Errors
    /// As [`Context::open_file_or_xml`].
    pub fn open(&self, path: &Path, lenient: bool) -> Result<Document> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        self.open_file_or_xml(&bytes, lenient)
            .map_err(|e| e.in_file(path))
    }

    /// Reads a Havok file from its bytes, as [`Context::open`].
    ///
    /// # Errors
    /// As [`hk_runtime::file::open`].
    pub fn open_bytes(&self, bytes: &[u8], lenient: bool) -> Result<Document> {
        Ok(file::open(bytes, &self.schemas, ReadOptions { lenient })?)
    }

    /// Reads a Havok file, or Havok XML (`<hkpackfile>`) as the packfile it describes.
    ///
    /// # Errors
    /// As [`Context::open_bytes`] and [`hk_runtime::dump::xml::from_xml`].
    pub fn open_file_or_xml(&self, bytes: &[u8], lenient: bool) -> Result<Document> {
        if hk_runtime::dump::xml::is_xml(bytes) {
            let text = std::str::from_utf8(bytes).map_err(|e| Error::Dump {
                format: "XML",
                message: format!("not UTF-8: {e}"),
            })?;
            return Ok(hk_runtime::dump::xml::open_xml(text, &self.schemas, None)?);
        }
        self.open_bytes(bytes, lenient)
    }

    /// The generation a packfile's header matches (the catalog's rule, as
    /// [`Schemas::select`] applies it, without the file's own metadata): what `hk schema
    /// check` compares a file with.
    ///
    /// # Errors
    /// No generation matches, or it does not load.
    pub fn generation_of(&self, pf: &Packfile<'_>) -> Result<(Arc<Schema>, SchemaChoice)> {
        let h = &pf.header;
        let cv = h.contents_version();
        let (entry, matched) = self
            .schemas
            .catalog()
            .packfile(h.file_version, &cv)
            .ok_or_else(|| {
                hk_runtime::Error::from(SchemaError::NoMatch(format!(
                    "no packfile schema folder for file version {} (\"{cv}\"); pass --schema",
                    h.file_version
                )))
            })?;
        let name = entry.name.clone();
        let schema = self.schemas.load(&name)?;
        Ok((schema, SchemaChoice::Generation { name, matched }))
    }

    /// The tagfile generation for SDK version `sdk` (the catalog's rule).
    ///
    /// # Errors
    /// No generation matches, or it does not load.
    pub fn tagfile_generation(&self, sdk: &str) -> Result<(Arc<Schema>, SchemaChoice)> {
        let (entry, matched) = self.schemas.catalog().tagfile(sdk).ok_or_else(|| {
            hk_runtime::Error::from(SchemaError::NoMatch(format!(
                "no tagfile schema folder for SDK {sdk}; pass --schema"
            )))
        })?;
        let name = entry.name.clone();
        let schema = self.schemas.load(&name)?;
        Ok((schema, SchemaChoice::Generation { name, matched }))
    }

    /// The schema an argument names: a schema folder on disk, else a generation of the
    /// catalog by name (`havok-7.1`).
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
        load_dir(arg).map(|s| Named {
            schema: Arc::new(s),
            label: arg.display().to_string(),
        })
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

    /// Whether generation `name` exists (loaded or not).
    pub fn has_generation(&self, name: &str) -> bool {
        self.schemas.catalog().get(name).is_some()
            || self
                .schemas
                .catalog()
                .problems()
                .iter()
                .any(|(n, _)| n == name)
    }
}

/// The dotted key a TOML text assigns on 1-based line `line` (`layout.endian`), for
/// problems a parser reports with a line but no key.
pub fn key_at(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    for (i, l) in text.lines().enumerate().take(line) {
        let l = l.trim();
        if let Some(t) = l.strip_prefix('[') {
            table = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        } else if i + 1 == line {
            let key = l.split_once('=')?.0.trim().trim_matches('"');
            if key.is_empty() || key.starts_with('#') {
                return None;
            }
            return Some(if table.is_empty() {
                key.to_string()
            } else {
                format!("{table}.{key}")
            });
        }
    }
    None
}

/// Loads the schema folder at `dir`.
///
/// # Errors
/// Every problem of its files, with file, line and key.
pub fn load_dir(dir: &Path) -> Result<Schema> {
    Schema::load(dir).map_err(|d| Error::schema(dir.display().to_string(), d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_lines() {
        let t = "name = \"x\"\nfile_version = \"seven\"\n\n[layout]\nendian = \"middle\"\n";
        assert_eq!(key_at(t, 2).as_deref(), Some("file_version"));
        assert_eq!(key_at(t, 5).as_deref(), Some("layout.endian"));
        assert_eq!(key_at(t, 3), None);
        assert_eq!(key_at(t, 4), None);
    }
}
