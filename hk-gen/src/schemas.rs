//! Finding schema folders and picking the one that matches a file.

use std::path::{Path, PathBuf};

use hk_runtime::packfile::Header;
use hk_runtime::schema::{Container, Generation};
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
        Roots { dir }
    }

    /// Every schema folder with a readable generation file.
    pub fn generations(&self) -> Vec<(PathBuf, Generation)> {
        let mut out: Vec<(PathBuf, Generation)> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter_map(|p| Generation::load(&p).ok().map(|g| (p, g)))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The schema folder for a packfile header: same file version and contents version,
    /// else the same file version, else the nearest older file version.
    pub fn for_packfile(&self, h: &Header) -> Option<PathBuf> {
        let cv = h.contents_version();
        let gens: Vec<_> = self
            .generations()
            .into_iter()
            .filter(|(_, g)| g.container == Container::Packfile)
            .collect();
        gens.iter()
            .find(|(_, g)| g.file_version == h.file_version && g.contents_version == cv)
            .or_else(|| gens.iter().find(|(_, g)| g.file_version == h.file_version))
            .or_else(|| {
                gens.iter()
                    .filter(|(_, g)| g.file_version <= h.file_version)
                    .max_by_key(|(_, g)| g.file_version)
            })
            .map(|(p, _)| p.clone())
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
