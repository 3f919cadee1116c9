//! Finding the schema folder that matches a file.

use std::path::{Path, PathBuf};

use super::{Container, Generation};
use crate::packfile::Header;

/// Every schema folder under `root` with a readable `generation.toml`, sorted by path.
pub fn generations(root: &Path) -> Vec<(PathBuf, Generation)> {
    let mut out: Vec<(PathBuf, Generation)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| Generation::load(&p).ok().map(|g| (p, g)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The packfile schema folder under `root` for header `h`: the one with the same file version
/// and contents version, else the same file version (file version 7 is shared by 6.6, 7.1 and
/// 2010.1, notes "Member-type numbering"), else the nearest older file version.
pub fn for_packfile(root: &Path, h: &Header) -> Option<PathBuf> {
    for_version(root, h.file_version, &h.contents_version())
}

/// The schema to decode a packfile with: the file's own class metadata when it carries
/// some (exact for that file), else the folder under `root` that matches its header.
///
/// # Errors
/// No folder matches, the folder does not load, or the metadata is malformed.
pub fn packfile_schema(
    root: &Path,
    pf: &crate::packfile::Packfile<'_>,
) -> crate::Result<super::Schema> {
    let dir = for_packfile(root, &pf.header).ok_or_else(|| {
        crate::Error::schema(format!(
            "no schema folder under {} matches file version {} ({})",
            root.display(),
            pf.header.file_version,
            pf.header.contents_version()
        ))
    })?;
    let schema = super::Schema::load(&dir)
        .map_err(|d| crate::Error::schema(format!("{}:\n{d}", dir.display())))?;
    Ok(match crate::metadata::extract(pf, &schema)? {
        Some(own) => own,
        None => schema,
    })
}

/// The schema folder under `root` for a file version and contents version (the header's
/// rule, for dumps that carry both).
pub fn for_version(root: &Path, file_version: u32, contents_version: &str) -> Option<PathBuf> {
    let gens: Vec<_> = generations(root)
        .into_iter()
        .filter(|(_, g)| g.container == Container::Packfile)
        .collect();
    gens.iter()
        .find(|(_, g)| g.file_version == file_version && g.contents_version == contents_version)
        .or_else(|| gens.iter().find(|(_, g)| g.file_version == file_version))
        .or_else(|| {
            gens.iter()
                .filter(|(_, g)| g.file_version <= file_version)
                .max_by_key(|(_, g)| g.file_version)
        })
        .map(|(p, _)| p.clone())
}

/// The tagfile generation under `root` for SDK version `sdk` (`20150100`): the folder whose
/// contents version is `sdk`, else the newest older one.
pub fn for_tagfile(root: &Path, sdk: &str) -> Option<(PathBuf, Generation)> {
    let mut gens: Vec<_> = generations(root)
        .into_iter()
        .filter(|(_, g)| g.container == Container::Tagfile && g.contents_version.as_str() <= sdk)
        .collect();
    gens.sort_by(|a, b| a.1.contents_version.cmp(&b.1.contents_version));
    gens.pop()
}
