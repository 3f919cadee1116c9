//! The schema folders and game profiles built into `hk` (`schemas/` and `games/` of the
//! checkout it was built from), so an installed `hk` works anywhere; `--schemas DIR` and
//! `--games DIR` (or `$HK_SCHEMAS`, `$HK_GAMES`) read folders on disk instead.

use std::path::{Path, PathBuf};

use hk_runtime::schema::catalog::Catalog;
use include_dir::{include_dir, Dir};

use crate::error::{Error, Result};

/// `schemas/`, built in.
static SCHEMAS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../schemas");

/// `games/`, built in.
static GAMES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../games");

/// A generation's files as text: what `hk gen crate` copies into a generated crate.
#[derive(Clone, Debug)]
pub struct SchemaFiles {
    /// `generation.toml`.
    pub generation: String,
    /// Each class file: the path its classes' [`hk_runtime::schema::Origin`] names, and its
    /// text.
    pub classes: Vec<(PathBuf, String)>,
}

impl SchemaFiles {
    /// The text of the class file at `origin` (a class's `origin.file`).
    pub fn class_text(&self, origin: &Path) -> Option<&str> {
        self.classes
            .iter()
            .find(|(p, _)| p == origin)
            .map(|(_, t)| t.as_str())
    }

    /// The files of the schema folder at `dir`, under the paths [`hk_runtime::Schema::load`]
    /// gives its classes.
    ///
    /// # Errors
    /// A file that cannot be read.
    pub fn from_dir(dir: &Path) -> Result<SchemaFiles> {
        let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| Error::io(p, e));
        let generation = read(&dir.join("generation.toml"))?;
        let class_dir = dir.join("classes");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&class_dir)
            .map_err(|e| Error::io(&class_dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        let classes = paths
            .into_iter()
            .map(|p| read(&p).map(|t| (p, t)))
            .collect::<Result<_>>()?;
        Ok(SchemaFiles {
            generation,
            classes,
        })
    }
}

fn text(f: &include_dir::File<'_>) -> String {
    String::from_utf8_lossy(f.contents()).into_owned()
}

/// The built-in generation `name`'s files; class paths are relative to its folder
/// (`classes/hkaSkeleton.toml`), as the built-in catalog names them.
pub fn schema_files(name: &str) -> Option<SchemaFiles> {
    let dir = SCHEMAS.get_dir(name)?;
    let generation = text(dir.get_file(dir.path().join("generation.toml"))?);
    let mut classes: Vec<(PathBuf, String)> = dir
        .get_dir(dir.path().join("classes"))
        .into_iter()
        .flat_map(|c| c.files())
        .filter(|f| f.path().extension().is_some_and(|x| x == "toml"))
        .map(|f| {
            let rel = f.path().strip_prefix(dir.path()).unwrap_or(f.path());
            (rel.to_path_buf(), text(f))
        })
        .collect();
    // The order `Schema::load` reads a folder in, so both give the same class order.
    classes.sort_by(|a, b| a.0.cmp(&b.0));
    Some(SchemaFiles {
        generation,
        classes,
    })
}

/// The catalog of the built-in schema folders (every folder with a `generation.toml`).
///
/// # Errors
/// A built-in `generation.toml` that does not load.
pub fn catalog() -> hk_runtime::Result<Catalog> {
    let mut folders = Vec::new();
    for d in SCHEMAS.dirs() {
        let Some(name) = d
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
        else {
            continue;
        };
        if let Some(files) = schema_files(&name) {
            folders.push((name, files.generation, files.classes));
        }
    }
    Catalog::from_texts(folders)
}

/// The built-in game profiles: file name (`shred.toml`) and text, sorted by name.
pub fn games() -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = GAMES
        .files()
        .filter(|f| f.path().extension().is_some_and(|x| x == "toml"))
        .map(|f| (f.path().to_path_buf(), text(f)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_folder_is_in_the_catalog() {
        let c = catalog().unwrap();
        assert!(c.get("havok-7.1").is_some());
        assert!(c.entries().len() >= 10);
        let files = schema_files("havok-7.1").unwrap();
        assert!(files
            .class_text(Path::new("classes/hkaSkeleton.toml"))
            .is_some());
        assert!(games().iter().any(|(p, _)| p == Path::new("shred.toml")));
    }
}
