//! Finding schema folders and picking the one that matches a file.

use std::path::{Path, PathBuf};

use hk_runtime::packfile::Header;
use hk_runtime::schema::catalog;
use hk_runtime::Schema;

/// Where the schema folders are.
#[derive(Debug)]
pub struct Roots {
    dir: PathBuf,
}

impl Roots {
    /// `--schemas`, else `$HK_SCHEMAS`, else the workspace's `schemas/`.
    pub fn new(arg: Option<PathBuf>) -> Self {
        let dir = arg
            .or_else(|| std::env::var_os("HK_SCHEMAS").map(PathBuf::from))
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas"));
        let dir = dir.canonicalize().unwrap_or(dir);
        Roots { dir }
    }

    /// The root folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every schema folder under the root.
    pub fn folders(&self) -> Vec<PathBuf> {
        catalog::generations(&self.dir)
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    }

    /// The schema folder for a packfile header (see [`catalog::for_packfile`]).
    pub fn for_packfile(&self, h: &Header) -> Option<PathBuf> {
        catalog::for_packfile(&self.dir, h)
    }
}

/// Loads a schema folder, turning its diagnostics into one message.
pub fn load(dir: &Path) -> Result<Schema, String> {
    Schema::load(dir).map_err(|d| {
        format!(
            "schema {} has {} problem(s):\n{d}",
            dir.display(),
            d.0.len()
        )
    })
}
