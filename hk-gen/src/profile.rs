//! Game profiles (`games/*.toml`): what `hk gen crate` generates for one game, and the rules
//! its fields follow. A profile's name becomes a crate name and a folder, its roots class
//! names, its description text in the generated crate, so a profile that breaks a rule is
//! refused with its file, line and key before anything is written.

use std::ops::Range;
use std::path::Path;

use hk_runtime::schema::names::{self, NameKind};
use hk_runtime::{Endian, LayoutRules, Schema};
use serde::Deserialize;

use crate::error::{Error, LineCol, Result};

/// A game profile.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Profile name (the crate is `hk-game-<name>`): lower-case ASCII letters, digits, `_`
    /// and `-`, starting with a letter or digit.
    pub name: String,
    /// One line about the game and its files (no control characters).
    pub description: String,
    /// Schema folder name under the schemas root (a generation name).
    pub generation: String,
    /// `packfile` or `tagfile`.
    pub container: String,
    /// File extensions of the game's Havok files (ASCII letters and digits).
    pub file_kinds: Vec<String>,
    /// Classes whose closure is generated (class names).
    pub roots: Vec<String>,
    /// Corpus folders of this profile's files, for tests (relative paths).
    #[serde(default)]
    pub corpus: Vec<String>,
    /// Why the profile cannot be generated yet, if it cannot (one line).
    pub pending: Option<String>,
    /// Layout rules when they differ from the generation's.
    pub layout: Option<toml::Table>,
}

/// The longest profile name, in bytes.
const MAX_PROFILE_NAME: usize = 64;

/// The longest description or `pending` text, in characters.
const MAX_TEXT: usize = 1024;

/// What is wrong with one key of a profile: the key, the array index, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The key (`name`, `roots`, `layout.endian`).
    pub key: String,
    /// The element of an array key.
    pub index: Option<usize>,
    /// Why.
    pub message: String,
}

impl Problem {
    fn new(key: &str, index: Option<usize>, message: impl Into<String>) -> Self {
        Problem {
            key: key.into(),
            index,
            message: message.into(),
        }
    }

    fn key_text(&self) -> String {
        match self.index {
            Some(i) => format!("{}[{i}]", self.key),
            None => self.key.clone(),
        }
    }
}

fn profile_name(name: &str) -> std::result::Result<(), String> {
    let ok = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-';
    let start = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if name.len() <= MAX_PROFILE_NAME && start && name.bytes().all(ok) {
        return Ok(());
    }
    Err(format!(
        "profile name {name:?} is refused (it names a crate and a folder: up to {MAX_PROFILE_NAME} lower-case ASCII letters, digits, `_` and `-`, starting with a letter or digit)"
    ))
}

fn one_line(what: &str, text: &str) -> std::result::Result<(), String> {
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{what} {text:?} is refused: it holds the control character {c:?} (one line of text)"
        ));
    }
    if text.chars().count() > MAX_TEXT {
        return Err(format!("{what} is longer than {MAX_TEXT} characters"));
    }
    Ok(())
}

fn file_kind(kind: &str) -> std::result::Result<(), String> {
    if (1..=16).contains(&kind.len()) && kind.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Ok(());
    }
    Err(format!(
        "file kind {kind:?} is refused (a file extension: 1 to 16 ASCII letters and digits)"
    ))
}

fn corpus_folder(folder: &str) -> std::result::Result<(), String> {
    let part_ok = |p: &str| {
        !p.is_empty()
            && p != "."
            && p != ".."
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
    };
    if folder.len() <= 256 && folder.split('/').all(part_ok) {
        return Ok(());
    }
    Err(format!(
        "corpus folder {folder:?} is refused (a path relative to the corpus: folder names of ASCII letters, digits, `_`, `.` and `-` joined by `/`, no `.` or `..`)"
    ))
}

/// `rules` with a profile's `[layout]` table applied.
fn apply_layout(mut l: LayoutRules, t: &toml::Table) -> std::result::Result<LayoutRules, Problem> {
    for (k, v) in t {
        match (k.as_str(), v) {
            ("pointer_size", toml::Value::Integer(p @ (4 | 8))) => l.pointer_size = *p as u8,
            ("endian", toml::Value::String(e)) if e == "big" => l.endian = Endian::Big,
            ("endian", toml::Value::String(e)) if e == "little" => l.endian = Endian::Little,
            ("reuse_padding", toml::Value::Boolean(b)) => l.reuse_padding = *b,
            ("empty_base", toml::Value::Boolean(b)) => l.empty_base = *b,
            _ => {
                return Err(Problem::new(
                    &format!("layout.{k}"),
                    None,
                    format!("bad layout key `{k}` = {v}"),
                ))
            }
        }
    }
    Ok(l)
}

impl Profile {
    /// Every field checked against its rule; the first problem found.
    ///
    /// # Errors
    /// The key that breaks its rule, and why.
    pub fn check(&self) -> std::result::Result<(), Problem> {
        let one = |key: &str, r: std::result::Result<(), String>| {
            r.map_err(|m| Problem::new(key, None, m))
        };
        let each =
            |key: &str, list: &[String], rule: &dyn Fn(&str) -> std::result::Result<(), String>| {
                list.iter()
                    .enumerate()
                    .try_for_each(|(i, x)| rule(x).map_err(|m| Problem::new(key, Some(i), m)))
            };
        one("name", profile_name(&self.name))?;
        one("description", one_line("description", &self.description))?;
        one(
            "generation",
            names::check(NameKind::Generation, &self.generation),
        )?;
        if !matches!(self.container.as_str(), "packfile" | "tagfile") {
            return Err(Problem::new(
                "container",
                None,
                format!(
                    "container {:?} is refused (packfile or tagfile)",
                    self.container
                ),
            ));
        }
        each("file_kinds", &self.file_kinds, &file_kind)?;
        each("roots", &self.roots, &|r| names::check(NameKind::Class, r))?;
        each("corpus", &self.corpus, &corpus_folder)?;
        if let Some(p) = &self.pending {
            one("pending", one_line("pending", p))?;
        }
        if let Some(t) = &self.layout {
            let any = LayoutRules {
                pointer_size: 8,
                endian: Endian::Little,
                reuse_padding: false,
                empty_base: true,
            };
            apply_layout(any, t)?;
        }
        Ok(())
    }

    /// [`Profile::check`] as the command's error, naming the profile.
    ///
    /// # Errors
    /// As [`Profile::check`].
    pub fn checked(&self) -> Result<()> {
        self.check().map_err(|p| Error::Profile {
            name: format!("{:?}", self.name),
            message: format!("`{}`: {}", p.key_text(), p.message),
        })
    }

    /// The profile's layout rules: its `[layout]` table, else the generation's default.
    ///
    /// # Errors
    /// A `[layout]` key with a wrong value.
    pub fn layout_rules(&self, schema: &Schema) -> Result<LayoutRules> {
        let l = schema.generation.layout;
        let Some(t) = &self.layout else { return Ok(l) };
        apply_layout(l, t).map_err(|p| Error::Profile {
            name: self.name.clone(),
            message: p.message,
        })
    }

    /// A profile from its text (`path` names it in errors), its fields checked.
    ///
    /// # Errors
    /// Invalid TOML, or a field that breaks its rule, with the file, line, column and key.
    pub fn parse(path: &Path, text: &str) -> Result<Profile> {
        let p: Profile = toml::from_str(text).map_err(|e| Error::toml(path, text, &e))?;
        if let Err(problem) = p.check() {
            return Err(Error::Toml {
                path: path.to_path_buf(),
                at: span_of(text, &problem.key, problem.index).map(|s| LineCol::of(text, s.start)),
                message: format!("`{}`: {}", problem.key_text(), problem.message),
            });
        }
        Ok(p)
    }
}

/// Where the value of dotted `key` (its element `index`, for an array) lies in `text`.
fn span_of(text: &str, key: &str, index: Option<usize>) -> Option<Range<usize>> {
    use toml::de::{DeTable, DeValue};
    let doc = DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        let value = table.get(part)?;
        if parts.peek().is_some() {
            let DeValue::Table(t) = value.get_ref() else {
                return None;
            };
            table = t;
            continue;
        }
        return match (value.get_ref(), index) {
            (DeValue::Array(a), Some(i)) => a.get(i).map(|v| v.span()),
            _ => Some(value.span()),
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: &str = "name = \"plain\"\ndescription = \"A game\"\ngeneration = \"havok-7.1\"\ncontainer = \"packfile\"\nfile_kinds = [\"hkx\"]\nroots = [\"hkRootLevelContainer\", \"hkaSkeleton\"]\ncorpus = [\"packfile/havoklib-710\"]\n\n[layout]\nendian = \"big\"\n";

    fn refused(from: &str, to: &str) -> String {
        let text = PLAIN.replacen(from, to, 1);
        assert_ne!(text, PLAIN);
        Profile::parse(Path::new("games/p.toml"), &text)
            .expect_err(to)
            .to_string()
    }

    #[test]
    fn the_shipped_profiles_pass() {
        Profile::parse(Path::new("p.toml"), PLAIN).unwrap();
        for (path, text) in crate::embedded::games() {
            Profile::parse(&path, &text).unwrap();
        }
    }

    #[test]
    fn each_field_is_refused_with_its_line_and_key() {
        for (from, to, want) in [
            (
                "\"plain\"",
                "\"x\\n[dependencies]\"",
                "games/p.toml:1:8: `name`",
            ),
            ("\"plain\"", "\"../../x\"", "games/p.toml:1:8: `name`"),
            (
                "\"A game\"",
                "\"a\\n#![doc = include_str!(\\\"/etc/hostname\\\")]\"",
                "games/p.toml:2:15: `description`",
            ),
            (
                "\"havok-7.1\"",
                "\"../x\"",
                "games/p.toml:3:14: `generation`",
            ),
            (
                "\"packfile\"",
                "\"pack\\nfile\"",
                "games/p.toml:4:13: `container`",
            ),
            ("\"hkx\"", "\"h/x\"", "games/p.toml:5:15: `file_kinds[0]`"),
            (
                "\"hkaSkeleton\"",
                "\"../../hkaSkeleton\"",
                "games/p.toml:6:34: `roots[1]`",
            ),
            (
                "\"packfile/havoklib-710\"",
                "\"/etc\"",
                "games/p.toml:7:11: `corpus[0]`",
            ),
            (
                "\"packfile/havoklib-710\"",
                "\"a/../../b\"",
                "games/p.toml:7:11: `corpus[0]`",
            ),
            ("\"big\"", "\"huge\"", "games/p.toml:10:10: `layout.endian`"),
        ] {
            let e = refused(from, to);
            assert!(e.starts_with(want), "{to}: {e}");
        }
    }
}
