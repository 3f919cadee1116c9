//! The schema folders hk knows, in the order the selection rule tries them for a file.
//!
//! A [`Catalog`] lists generations from a folder of schema folders (`schemas/`) or from
//! texts embedded in a program. A `generation.toml` that does not load makes the whole
//! catalog an error naming its file, line and key: a broken folder is never skipped.
//!
//! The catalog answers two questions for the selection rule (docs/schema-selection.md, run
//! by `file::Schemas`): which generation is exactly of a file's version
//! ([`Catalog::packfile`], [`Catalog::tagfile`]), and which others are nearest to it
//! ([`Catalog::packfile_neighbours`], [`Catalog::tagfile_neighbours`]). Whether a neighbour
//! may stand in for the file's version is decided by the file (its stored signatures, or
//! its bytes written back), not here.

use std::path::{Path, PathBuf};

use super::{Container, Diagnostics, Generation, Schema};
use crate::error::{Error, ErrorKind, SchemaError};

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

/// The generations hk can read files with.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    entries: Vec<Entry>,
}

impl Catalog {
    /// Every schema folder under `root` (a folder holding `generation.toml` is one).
    ///
    /// # Errors
    /// When `root` cannot be listed, or a `generation.toml` does not load (every problem of
    /// every such file, each with its file, line and key).
    pub fn from_dir(root: &Path) -> Result<Catalog, Error> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
            .map_err(|e| Error::from(e).in_file(root))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("generation.toml").is_file())
            .collect();
        dirs.sort();
        let mut c = Catalog::default();
        let mut problems = Vec::new();
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
                Err(diags) => problems.push((name, diags)),
            }
        }
        c.or_problems(problems)
    }

    /// A catalog of embedded generations: each folder name, its `generation.toml` text and
    /// its class files (path relative to the folder, text).
    ///
    /// # Errors
    /// A `generation.toml` that does not load, as [`Catalog::from_dir`].
    pub fn from_texts(folders: Vec<EmbeddedFolder>) -> Result<Catalog, Error> {
        let mut c = Catalog::default();
        let mut problems = Vec::new();
        for (name, gen_text, classes) in folders {
            let path = PathBuf::from(&name).join("generation.toml");
            match Generation::parse(&path, &gen_text) {
                Ok(generation) => c.entries.push(Entry {
                    name,
                    generation,
                    source: Source::Texts(classes, gen_text),
                }),
                Err(diags) => problems.push((name, diags)),
            }
        }
        c.entries.sort_by(|a, b| a.name.cmp(&b.name));
        c.or_problems(problems)
    }

    /// `self`, or the error listing every folder whose `generation.toml` does not load.
    fn or_problems(self, problems: Vec<(String, Diagnostics)>) -> Result<Catalog, Error> {
        if problems.is_empty() {
            return Ok(self);
        }
        let text: Vec<String> = problems
            .iter()
            .map(|(name, d)| format!("schema folder `{name}`: generation.toml does not load:\n{d}"))
            .collect();
        Err(Error::new(ErrorKind::Schema(SchemaError::Diagnostics(
            text.join("\n"),
        ))))
    }

    /// Every generation.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The generation called `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    fn of(&self, container: Container) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(move |e| e.generation.container == container)
    }

    /// The packfile generation of exactly this file version and contents version.
    pub fn packfile(&self, file_version: u32, contents_version: &str) -> Option<&Entry> {
        self.of(Container::Packfile).find(|e| {
            e.generation.file_version == file_version
                && e.generation.contents_version == contents_version
        })
    }

    /// Every other packfile generation, nearest to the version first ([`nearest_first`]).
    pub fn packfile_neighbours(&self, file_version: u32, contents_version: &str) -> Vec<&Entry> {
        nearest_first(
            self.of(Container::Packfile)
                .filter(|e| {
                    e.generation.file_version != file_version
                        || e.generation.contents_version != contents_version
                })
                .collect(),
            file_version,
            contents_version,
        )
    }

    /// Every generation of `container`, nearest to a version first: the version's own
    /// folder, then the others in the order the selection rule tries them
    /// ([`nearest_first`]). What `hk schema explain` searches for a matching class.
    pub fn nearest(
        &self,
        container: Container,
        file_version: u32,
        contents_version: &str,
    ) -> Vec<&Entry> {
        let (mut own, others): (Vec<&Entry>, Vec<&Entry>) = self.of(container).partition(|e| {
            e.generation.file_version == file_version
                && e.generation.contents_version == contents_version
        });
        own.extend(nearest_first(others, file_version, contents_version));
        own
    }

    /// The tagfile generation of exactly SDK version `sdk` (`20150100`).
    pub fn tagfile(&self, sdk: &str) -> Option<&Entry> {
        self.of(Container::Tagfile)
            .find(|e| e.generation.contents_version == sdk)
    }

    /// Every other tagfile generation, nearest to SDK version `sdk` first.
    pub fn tagfile_neighbours(&self, sdk: &str) -> Vec<&Entry> {
        nearest_first(
            self.of(Container::Tagfile)
                .filter(|e| e.generation.contents_version != sdk)
                .collect(),
            0,
            sdk,
        )
    }
}

/// The numbers of a version text, in order: `hk_2011.1.0-r1` is `[2011, 1, 0, 1]`,
/// `Havok-7.1.0-r1` `[7, 1, 0, 1]`, `20150100` `[20150100]`. Havok's versions compare
/// this way (5.5 < 6.6 < 7.1 < 2010.1 < ... < 2014.2).
pub fn version_numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().unwrap_or(u64::MAX))
        .collect()
}

/// `entries` in the order the selection rule tries them for a file of `file_version` and
/// version text `version`: those of the same file version first; then by how many
/// generations lie between them and the file's version, counted in the order (file
/// version, [`version_numbers`]); an older one before a newer one at the same distance.
pub fn nearest_first<'e>(
    mut entries: Vec<&'e Entry>,
    file_version: u32,
    version: &str,
) -> Vec<&'e Entry> {
    let key = |e: &Entry| {
        (
            e.generation.file_version,
            version_numbers(&e.generation.contents_version),
        )
    };
    let file = (file_version, version_numbers(version));
    entries.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name)));
    // The file's place among them, and each generation's distance from it.
    let place = entries.iter().filter(|e| key(e) < file).count();
    let distance = |i: usize| {
        if i < place {
            (place - i, false)
        } else {
            (i + 1 - place, true)
        }
    };
    let mut order: Vec<(bool, (usize, bool), &Entry)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.generation.file_version != file_version, distance(i), *e))
        .collect();
    order.sort_by_key(|&(other_version, d, _)| (other_version, d));
    order.into_iter().map(|(_, _, e)| e).collect()
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

/// The packfile schema folder under `root` of exactly this file version and contents
/// version ([`Catalog::packfile`]).
pub fn for_version(root: &Path, file_version: u32, contents_version: &str) -> Option<PathBuf> {
    let c = Catalog::from_dir(root).ok()?;
    c.packfile(file_version, contents_version)
        .and_then(|e| e.dir().map(Path::to_path_buf))
}

/// The tagfile generation under `root` of exactly SDK version `sdk` ([`Catalog::tagfile`]).
pub fn for_tagfile(root: &Path, sdk: &str) -> Option<(PathBuf, Generation)> {
    let c = Catalog::from_dir(root).ok()?;
    c.tagfile(sdk)
        .and_then(|e| e.dir().map(|d| (d.to_path_buf(), e.generation.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(name: &str, container: &str, file_version: &str, version: &str) -> String {
        format!(
            "name = \"{name}\"\ncontainer = \"{container}\"\nfile_version = {file_version}\n\
             contents_version = \"{version}\"\n\n[layout]\npointer_size = 4\nendian = \"little\"\n\
             reuse_padding = false\nempty_base = true\n\n[member_types]\n"
        )
    }

    fn catalog(gens: &[(&str, &str, u32, &str)]) -> Result<Catalog, Error> {
        Catalog::from_texts(
            gens.iter()
                .map(|&(name, container, fv, v)| {
                    let text = generation(name, container, &fv.to_string(), v);
                    (name.to_string(), text, Vec::new())
                })
                .collect(),
        )
    }

    fn names(v: Vec<&Entry>) -> Vec<&str> {
        v.into_iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn neighbours_come_nearest_first_same_file_version_first() {
        let c = catalog(&[
            ("g55", "packfile", 5, "Havok-5.5.0-r1"),
            ("g71", "packfile", 7, "Havok-7.1.0-r1"),
            ("g2010.1", "packfile", 7, "hk_2010.1.0-r1"),
            ("g2010.2", "packfile", 8, "hk_2010.2.0-r1"),
            ("g2012.2", "packfile", 9, "hk_2012.2.0-r1"),
            ("g2014.1", "packfile", 11, "hk_2014.1.0-r1"),
            ("t2015", "tagfile", 0, "20150100"),
            ("t2022", "tagfile", 0, "20220100"),
        ])
        .unwrap();
        assert_eq!(
            c.packfile(8, "hk_2010.2.0-r1").map(|e| e.name.as_str()),
            Some("g2010.2")
        );
        assert!(c.packfile(8, "hk_2011.1.0-r1").is_none());
        // Version 2011.1 lies between 2010.2 and 2012.2.
        assert_eq!(
            names(c.packfile_neighbours(8, "hk_2011.1.0-r1")),
            ["g2010.2", "g2012.2", "g2010.1", "g2014.1", "g71", "g55"]
        );
        assert_eq!(
            names(c.packfile_neighbours(9, "hk_2011.1.0-r1")),
            ["g2012.2", "g2010.2", "g2010.1", "g2014.1", "g71", "g55"]
        );
        // The exact folder is not a neighbour.
        assert_eq!(
            names(c.packfile_neighbours(7, "Havok-7.1.0-r1")),
            ["g2010.1", "g55", "g2010.2", "g2012.2", "g2014.1"]
        );
        assert_eq!(names(c.tagfile_neighbours("70150100")), ["t2022", "t2015"]);
        assert_eq!(names(c.tagfile_neighbours("20160100")), ["t2015", "t2022"]);
        assert!(c.tagfile("70150100").is_none());
    }

    #[test]
    fn a_broken_generation_file_makes_the_catalog_an_error_naming_file_line_and_key() {
        let good = generation("a", "packfile", "7", "Havok-7.1.0-r1");
        let bad = generation("b", "packfile", "\"9\"", "hk_2010.2.0-r1");
        let e = Catalog::from_texts(vec![
            ("a".into(), good, Vec::new()),
            ("b".into(), bad, Vec::new()),
        ])
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("schema folder `b`")
                && text.contains("generation.toml:3:")
                && text.contains("`file_version`"),
            "{text}"
        );
        assert!(!text.contains("folder `a`"), "{text}");
    }

    #[test]
    fn version_numbers_order_havok_versions() {
        let mut v = [
            "hk_2014.1.0-r1",
            "Havok-7.1.0-r1",
            "hk_2010.2.0-r1",
            "Havok-5.5.0-r1",
            "hk_2011.1.0-r1",
        ];
        v.sort_by_key(|t| version_numbers(t));
        assert_eq!(
            v,
            [
                "Havok-5.5.0-r1",
                "Havok-7.1.0-r1",
                "hk_2010.2.0-r1",
                "hk_2011.1.0-r1",
                "hk_2014.1.0-r1"
            ]
        );
    }
}
