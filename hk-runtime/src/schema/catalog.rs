//! The schema folders hk knows, and the one rule that picks a folder for a file.
//!
//! A [`Catalog`] lists generations from a folder of schema folders (`schemas/`) or from
//! texts embedded in a program. A generation whose `generation.toml` does not load is
//! kept as a [`Catalog::problems`] entry, never skipped without a word.
//!
//! The rule ([`Catalog::packfile`], [`Catalog::tagfile`]): the generation with the same file
//! version and contents version (packfiles) or SDK version (tagfiles) is an exact match; else,
//! for packfiles, one with the same file version (file version 7 is shared by 6.6, 7.1 and
//! 2010.1, docs/packfile-format.md §2.1 and docs/layout-and-signatures.md §5); else the nearest
//! older one. [`Match`] says which applied, so callers can say when a file is read with a
//! neighbouring version's classes.

use std::path::{Path, PathBuf};

use super::{Container, Diagnostics, Generation, Schema};

/// Where a generation's files are.
#[derive(Clone, Debug)]
enum Source {
    /// A schema folder on disk.
    Dir(PathBuf),
    /// Texts embedded in a program: the class files' names and contents.
    Texts(Vec<(PathBuf, String)>, String),
}

/// One generation of a catalog.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Folder name, e.g. `havok-7.1`.
    pub name: String,
    /// Its `generation.toml`.
    pub generation: Generation,
    source: Source,
}

impl Entry {
    /// The folder on disk, for a catalog read from one.
    pub fn dir(&self) -> Option<&Path> {
        match &self.source {
            Source::Dir(d) => Some(d),
            Source::Texts(..) => None,
        }
    }

    /// Loads and validates the generation's classes.
    ///
    /// # Errors
    /// Every problem of its files, with file, line and key.
    pub fn load(&self) -> Result<Schema, Diagnostics> {
        match &self.source {
            Source::Dir(d) => Schema::load(d),
            Source::Texts(classes, generation) => {
                let gen_path = PathBuf::from(&self.name).join("generation.toml");
                Schema::parse((&gen_path, generation), classes)
            }
        }
    }
}

/// A schema folder held in memory: its name, its `generation.toml` text, and its class
/// files (path relative to the folder, text).
pub type EmbeddedFolder = (String, String, Vec<(PathBuf, String)>);

/// How a generation was matched to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// Same file version and contents version (or SDK version).
    Exact,
    /// Same packfile file version, another contents version.
    SameFileVersion,
    /// The nearest older version: the file's own version has no schema.
    Older,
}

impl Match {
    /// Whether the file's version is the schema's.
    pub fn is_exact(self) -> bool {
        self == Match::Exact
    }
}

/// The generations hk can read files with.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    entries: Vec<Entry>,
    problems: Vec<(String, Diagnostics)>,
}

impl Catalog {
    /// Every schema folder under `root` (a folder holding `generation.toml` is one).
    ///
    /// # Errors
    /// When `root` cannot be listed.
    pub fn from_dir(root: &Path) -> std::io::Result<Catalog> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("generation.toml").is_file())
            .collect();
        dirs.sort();
        let mut c = Catalog::default();
        for d in dirs {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match Generation::load(&d) {
                Ok(generation) => c.entries.push(Entry {
                    name,
                    generation,
                    source: Source::Dir(d),
                }),
                Err(diags) => c.problems.push((name, diags)),
            }
        }
        Ok(c)
    }

    /// A catalog of embedded generations: each folder name, its `generation.toml` text and
    /// its class files (path relative to the folder, text).
    pub fn from_texts(folders: Vec<EmbeddedFolder>) -> Catalog {
        let mut c = Catalog::default();
        for (name, gen_text, classes) in folders {
            let path = PathBuf::from(&name).join("generation.toml");
            match Generation::parse(&path, &gen_text) {
                Ok(generation) => c.entries.push(Entry {
                    name,
                    generation,
                    source: Source::Texts(classes, gen_text),
                }),
                Err(diags) => c.problems.push((name, diags)),
            }
        }
        c.entries.sort_by(|a, b| a.name.cmp(&b.name));
        c
    }

    /// Every generation that loaded.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Generations whose `generation.toml` does not load, with why.
    pub fn problems(&self) -> &[(String, Diagnostics)] {
        &self.problems
    }

    /// The generation called `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The packfile generation for a file version and contents version.
    pub fn packfile(&self, file_version: u32, contents_version: &str) -> Option<(&Entry, Match)> {
        let packs = || {
            self.entries
                .iter()
                .filter(|e| e.generation.container == Container::Packfile)
        };
        if let Some(e) = packs().find(|e| {
            e.generation.file_version == file_version
                && e.generation.contents_version == contents_version
        }) {
            return Some((e, Match::Exact));
        }
        if let Some(e) = packs().find(|e| e.generation.file_version == file_version) {
            return Some((e, Match::SameFileVersion));
        }
        packs()
            .filter(|e| e.generation.file_version <= file_version)
            .max_by_key(|e| e.generation.file_version)
            .map(|e| (e, Match::Older))
    }

    /// The generations of `container`, nearest to a version first: ordered by file version,
    /// then by the numbers of the contents version (`hk_2010.2.0-r1` is 2010, 2, 0, 1), and
    /// taken by distance from where that version falls (an equal version first, then the
    /// nearest older, the nearest newer, and so on).
    pub fn nearest(
        &self,
        container: Container,
        file_version: u32,
        contents_version: &str,
    ) -> Vec<&Entry> {
        let key = |fv: u32, cv: &str| (fv, version_numbers(cv));
        let target = key(file_version, contents_version);
        let mut sorted: Vec<(&Entry, (u32, Vec<u32>))> = self
            .entries
            .iter()
            .filter(|e| e.generation.container == container)
            .map(|e| {
                (
                    e,
                    key(e.generation.file_version, &e.generation.contents_version),
                )
            })
            .collect();
        sorted.sort_by(|a, b| a.1.cmp(&b.1));
        // Older entries are before `p`, newer ones from `q` on; equal ones between.
        let p = sorted.partition_point(|(_, k)| *k < target);
        let q = sorted.partition_point(|(_, k)| *k <= target);
        let mut ranked: Vec<(usize, &Entry)> = sorted
            .iter()
            .enumerate()
            .map(|(i, (e, _))| {
                let d = if i < p {
                    2 * (p - i) - 1
                } else if i < q {
                    0
                } else {
                    2 * (i - q) + 2
                };
                (d, *e)
            })
            .collect();
        ranked.sort_by_key(|(d, _)| *d);
        ranked.into_iter().map(|(_, e)| e).collect()
    }

    /// The tagfile generation for SDK version `sdk` (`20150100`).
    pub fn tagfile(&self, sdk: &str) -> Option<(&Entry, Match)> {
        self.entries
            .iter()
            .filter(|e| {
                e.generation.container == Container::Tagfile
                    && e.generation.contents_version.as_str() <= sdk
            })
            .max_by(|a, b| {
                a.generation
                    .contents_version
                    .cmp(&b.generation.contents_version)
            })
            .map(|e| {
                let m = if e.generation.contents_version == sdk {
                    Match::Exact
                } else {
                    Match::Older
                };
                (e, m)
            })
    }
}

/// Every schema folder under `root` with a readable `generation.toml`, sorted by path.
pub fn generations(root: &Path) -> Vec<(PathBuf, Generation)> {
    Catalog::from_dir(root)
        .map(|c| {
            c.entries
                .into_iter()
                .filter_map(|e| match e.source {
                    Source::Dir(d) => Some((d, e.generation)),
                    Source::Texts(..) => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The packfile schema folder under `root` for a file version and contents version
/// ([`Catalog::packfile`]'s rule).
pub fn for_version(root: &Path, file_version: u32, contents_version: &str) -> Option<PathBuf> {
    let c = Catalog::from_dir(root).ok()?;
    c.packfile(file_version, contents_version)
        .and_then(|(e, _)| e.dir().map(Path::to_path_buf))
}

/// The tagfile generation under `root` for SDK version `sdk` ([`Catalog::tagfile`]'s
/// rule).
pub fn for_tagfile(root: &Path, sdk: &str) -> Option<(PathBuf, Generation)> {
    let c = Catalog::from_dir(root).ok()?;
    c.tagfile(sdk)
        .and_then(|(e, _)| e.dir().map(|d| (d.to_path_buf(), e.generation.clone())))
}

/// The numbers of a version string, in order: `hk_2010.2.0-r1` → 2010, 2, 0, 1.
fn version_numbers(v: &str) -> Vec<u32> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(u32::MAX))
        .collect()
}
