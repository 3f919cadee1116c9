//! The one folder walker of the commands that take folders (`hk roundtrip`, `hk convert`,
//! `hk export`, `hk bench`): the regular files under each folder, found without following
//! symbolic links.
//!
//! A path named on the command line is taken as given, a symbolic link included. Inside a
//! folder a symbolic link is left out and counted (a link back up the tree would otherwise
//! make the walk repeat the tree, or never end; a link out of the tree would bring in files
//! from elsewhere). With `--follow-symlinks` links are followed, and each folder is searched
//! once: a link back to a folder the walk is inside (a loop), or to one it has already
//! searched, is counted and not entered again, so the walk stays linear in the folders
//! there are. Files that are not regular files (pipes, devices) are left out and counted
//! too: reading one could block or never end.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::error::{Error, Result};
use crate::out::{warnln, Out};

/// What [`walk`] found.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Every file, sorted, without repeats; the flag marks the files named on the command
    /// line (not found in a folder).
    pub files: Vec<(PathBuf, bool)>,
    /// Symbolic links found in folders and not followed.
    pub links: Vec<PathBuf>,
    /// Links (followed) to a folder already searched or being searched: not entered again.
    pub repeats: Vec<PathBuf>,
    /// Entries found in folders that are neither regular files nor folders.
    pub others: Vec<PathBuf>,
    /// Whether links were followed.
    pub followed: bool,
}

impl Walk {
    /// Prints a warning for each kind of entry left out, naming one of them.
    ///
    /// # Errors
    /// The warning stream refuses the text.
    pub fn warn(&self, o: &mut Out<'_>) -> Result<()> {
        if let Some(first) = self.links.first() {
            warnln!(
                o,
                "left out {} symbolic link(s) found in folders, such as {}{}",
                self.links.len(),
                first.display(),
                if self.followed {
                    " (leading nowhere)"
                } else {
                    " (--follow-symlinks follows them)"
                }
            );
        }
        if let Some(first) = self.repeats.first() {
            warnln!(
                o,
                "{} symbolic link(s) lead to a folder already searched, such as {}: not searched again",
                self.repeats.len(),
                first.display()
            );
        }
        if let Some(first) = self.others.first() {
            warnln!(
                o,
                "left out {} entries that are not regular files (pipes, sockets, devices), such as {}",
                self.others.len(),
                first.display()
            );
        }
        Ok(())
    }
}

/// The device and inode of a folder, which name it whatever the path.
#[cfg(unix)]
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Every file under `paths`: files as given, folders searched recursively (following
/// symbolic links only when `follow`), sorted, without repeats.
///
/// # Errors
/// A folder that cannot be read, or an entry whose type cannot be read, named.
pub fn walk(paths: &[PathBuf], follow: bool) -> Result<Walk> {
    let mut w = Walk {
        followed: follow,
        ..Walk::default()
    };
    for p in paths {
        if !p.is_dir() {
            w.files.push((p.clone(), true));
            continue;
        }
        search(p, follow, &mut w)?;
    }
    w.files.sort();
    w.files.dedup_by(|a, b| a.0 == b.0);
    Ok(w)
}

/// Adds what is under the folder `root` to `w`.
fn search(root: &Path, follow: bool, w: &mut Walk) -> Result<()> {
    let mut searched: HashSet<(u64, u64)> = HashSet::new();
    let mut repeats = Vec::new();
    let entries = WalkDir::new(root)
        .follow_links(follow)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            // A folder reached a second time through a link: not entered again.
            if !(follow && e.file_type().is_dir()) {
                return true;
            }
            match e.metadata().ok().as_ref().and_then(identity) {
                Some(id) if !searched.insert(id) => {
                    repeats.push(e.path().to_path_buf());
                    false
                }
                _ => true,
            }
        });
    for entry in entries {
        let e = match entry {
            Ok(e) => e,
            Err(e) if e.loop_ancestor().is_some() => {
                w.repeats.push(e.path().unwrap_or(root).to_path_buf());
                continue;
            }
            Err(e) => {
                let path = e.path().unwrap_or(root).to_path_buf();
                // A followed link that leads nowhere is left out like an unfollowed one.
                let link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink());
                if follow && link && std::fs::metadata(&path).is_err() {
                    w.links.push(path);
                    continue;
                }
                let source = e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("cannot be searched"));
                return Err(Error::io(path, source));
            }
        };
        let t = e.file_type();
        if t.is_dir() {
            continue;
        }
        if t.is_symlink() {
            w.links.push(e.into_path());
        } else if t.is_file() {
            w.files.push((e.into_path(), false));
        } else {
            w.others.push(e.into_path());
        }
    }
    w.repeats.extend(repeats);
    Ok(())
}
