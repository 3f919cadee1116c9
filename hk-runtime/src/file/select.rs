//! The one schema-selection rule (docs/schema-selection.md): which classes read a file, and
//! which rules write a tagfile back.
//!
//! - A folder of the file's version (packfile: file version and contents version; tagfile:
//!   SDK version) is used; a packfile's classes it does not compute are borrowed from the
//!   folders that compute their stored signatures (`borrow`).
//! - Otherwise the other folders are tried nearest first ([`Catalog::packfile_neighbours`]),
//!   and the first one that passes a check on the file itself stands in: for a packfile,
//!   every class signature the file stores recomputes from the folder; for a tagfile, which
//!   carries its own types, the folder's `[tagfile]` rules write the file back byte for
//!   byte. [`How::Nearest`] records the folders tried.
//! - Otherwise strict reading refuses the file ([`SchemaError::Unverified`]: the version,
//!   each folder tried and how it fared). Lenient reading takes the closest folder (the most
//!   signatures matched, the nearest on a tie) and says so: [`SchemaChoice::warning`].
//! - A packfile whose `__types__` section describes its own classes is read with that
//!   description; the rule above picks the generation whose reflection classes read it,
//!   checked the same way (the stored signatures against the classes extracted with it).
//! - An old binary tagfile is read with the schema of its own class definitions, which
//!   also write it back: no folder is chosen ([`SchemaChoice::ClassDefinitions`]).
//! - A schema the caller names ([`Schemas::with_schema`], `--schema`) replaces the rule;
//!   [`How::Given`] keeps how it fares against the file.
//!
//! [`Catalog::packfile_neighbours`]: crate::schema::catalog::Catalog::packfile_neighbours

use std::sync::Arc;

use super::borrow::{borrow_into, Borrowed};
use super::schemas::Schemas;
use crate::error::{Check, Error, Result, SchemaError, Tried};
use crate::graph::Graph;
use crate::limits::ReadOptions;
use crate::packfile::{check, metadata, Packfile};
use crate::schema::{Schema, TagfileRules};
use crate::tagfile::binary::BinaryTagfile;
use crate::tagfile::{self, TagFile};

/// How the folder that reads (or writes back) a file was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum How {
    /// The folder is of the file's version.
    Exact,
    /// The file's version has no folder; this one is the nearest that passes the check.
    /// `tried` ends with it, after the nearer ones that failed.
    Nearest {
        /// The file's version (`hk_2011.1.0-r1`, `SDK 70150100`).
        version: String,
        /// The folders tried, nearest first, and how each fared.
        tried: Vec<Tried>,
    },
    /// Lenient reading: no folder passes the check; this is the closest one.
    Closest {
        /// The file's version.
        version: String,
        /// Every folder tried, nearest first, and how each fared.
        tried: Vec<Tried>,
    },
    /// Named by the caller (`--schema`) instead of the rule.
    Given {
        /// How it fares against the file (`None`: not checked).
        check: Option<Check>,
    },
}

impl How {
    /// The check of the folder in use, for a nearest or closest one.
    fn chosen(&self, name: &str) -> Option<Check> {
        match self {
            How::Nearest { tried, .. } | How::Closest { tried, .. } => {
                tried.iter().find(|t| t.folder == name).map(|t| t.check)
            }
            How::Given { check } => *check,
            How::Exact => None,
        }
    }

    /// `exact`, `nearest: hk_2011.1.0-r1 has no folder; all 9 stored signatures
    /// recompute`, ...
    fn describe(&self, name: &str) -> String {
        let others = |what: &str, tried: &[Tried]| {
            let v: Vec<String> = tried
                .iter()
                .filter(|t| t.folder != name)
                .map(Tried::to_string)
                .collect();
            if v.is_empty() {
                String::new()
            } else {
                format!("; {what}: {}", v.join(", "))
            }
        };
        match self {
            How::Exact => "exact".into(),
            How::Nearest { version, tried } => format!(
                "nearest: {version} has no folder; {}{}",
                passed(self.chosen(name)),
                others("nearer ones tried", tried)
            ),
            How::Closest { version, tried } => format!(
                "closest, read leniently: {version} has no folder and none passes; {}{}",
                fared(self.chosen(name)),
                others("the others", tried)
            ),
            How::Given { check } => match check {
                Some(c) => format!("given; {}", fared(Some(*c))),
                None => "given".into(),
            },
        }
    }
}

/// What a passed check says.
fn passed(check: Option<Check>) -> String {
    match check {
        Some(Check::Signatures { stored, .. }) => {
            format!("all {stored} stored signatures recompute")
        }
        Some(Check::WritesBack { .. }) => "its rules write the file back byte for byte".into(),
        Some(Check::Classes { defined, .. }) => {
            format!("it holds all {defined} classes the file defines alike")
        }
        _ => String::new(),
    }
}

/// `1 class`, `3 classes`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `havok-2010.2: 39, havok-7.1: 20`: how many classes each folder lends (`hk info` lists
/// them).
fn list(borrowed: &[Borrowed]) -> String {
    let mut by: Vec<(&str, usize)> = Vec::new();
    for b in borrowed {
        match by.iter_mut().find(|(f, _)| *f == b.folder) {
            Some((_, n)) => *n += 1,
            None => by.push((&b.folder, 1)),
        }
    }
    let parts: Vec<String> = by.iter().map(|(f, n)| format!("{f}: {n}")).collect();
    parts.join(", ")
}

/// How a check fared, passed or not.
fn fared(check: Option<Check>) -> String {
    match check {
        Some(c @ Check::Signatures { .. }) if c.passes() => passed(Some(c)),
        Some(Check::Signatures { matched, stored }) => {
            format!("{matched} of {stored} stored signatures recompute")
        }
        Some(c @ Check::WritesBack { .. }) if c.passes() => passed(Some(c)),
        Some(c @ Check::Classes { .. }) if c.passes() => passed(Some(c)),
        Some(Check::Classes { matched, defined }) => {
            format!("it holds {matched} of the {defined} classes the file defines alike")
        }
        Some(c) => format!("its rules: {c}"),
        None => String::new(),
    }
}

/// Where a document's classes came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaChoice {
    /// A generation of the catalog (or a folder the caller named), and how it was chosen.
    Generation {
        /// Folder name (the label of a named folder).
        name: String,
        /// How it was chosen.
        how: How,
        /// Classes of the file read with another folder's description, which computes the
        /// signature the file stores for them (docs/schema-selection.md, "Borrowed
        /// classes"); empty when the folder computes every stored signature itself.
        borrowed: Vec<Borrowed>,
    },
    /// The file's own class metadata (`__types__`), read with the reflection classes of
    /// generation `reflection`.
    Metadata {
        /// The generation whose reflection classes read the metadata.
        reflection: String,
        /// How that generation was chosen.
        how: How,
    },
    /// The file's own type table (a tagfile); `rules` names the generation whose
    /// `[tagfile]` rules write it back.
    TypeTable {
        /// Generation folder of the writer rules.
        rules: String,
        /// How it was chosen.
        how: How,
    },
    /// An old binary tagfile's own class definitions, which read it and write it back;
    /// `name` names their schema. `how` is [`How::Exact`], or [`How::Given`] with how a
    /// schema the caller names compares with the definitions (it reads nothing: the file's
    /// definitions say how its values are stored).
    ClassDefinitions {
        /// The schema's name (`binary-tagfile-hk_2014.1.0-r1`).
        name: String,
        /// Exact, or given.
        how: How,
    },
}

impl SchemaChoice {
    /// A line for people: `havok-7.1 (exact)`, `havok-2010.2 (nearest: hk_2011.1.0-r1 has
    /// no folder; all 9 stored signatures recompute)`.
    pub fn describe(&self) -> String {
        match self {
            SchemaChoice::Generation {
                name,
                how,
                borrowed,
            } => {
                let mut line = format!("{name} ({})", how.describe(name));
                if !borrowed.is_empty() {
                    line.push_str(&format!(
                        "; {} borrowed by signature ({})",
                        plural(borrowed.len(), "class", "classes"),
                        list(borrowed)
                    ));
                }
                line
            }
            SchemaChoice::Metadata { reflection, how } => {
                let how = match how {
                    How::Exact => String::new(),
                    how => format!(", {}", how.describe(reflection)),
                };
                format!(
                    "the file's own class metadata (read with {reflection}'s reflection classes{how})"
                )
            }
            SchemaChoice::TypeTable { rules, how } => format!(
                "the file's own type table; writer rules of {rules} ({})",
                how.describe(rules)
            ),
            SchemaChoice::ClassDefinitions { name, how } => match how {
                How::Exact => format!("the file's own class definitions ({name})"),
                how => format!(
                    "the file's own class definitions ({name}; schema {})",
                    how.describe(name)
                ),
            },
        }
    }

    /// The folder's name (a named folder's label).
    pub fn name(&self) -> &str {
        match self {
            SchemaChoice::Generation { name, .. } => name,
            SchemaChoice::Metadata { reflection, .. } => reflection,
            SchemaChoice::TypeTable { rules, .. } => rules,
            SchemaChoice::ClassDefinitions { name, .. } => name,
        }
    }

    /// The classes read with another folder's description (docs/schema-selection.md,
    /// "Borrowed classes").
    pub fn borrowed(&self) -> &[Borrowed] {
        match self {
            SchemaChoice::Generation { borrowed, .. } => borrowed,
            _ => &[],
        }
    }

    /// How the folder was chosen.
    pub fn how(&self) -> &How {
        match self {
            SchemaChoice::Generation { how, .. }
            | SchemaChoice::Metadata { how, .. }
            | SchemaChoice::TypeTable { how, .. }
            | SchemaChoice::ClassDefinitions { how, .. } => how,
        }
    }

    /// What a program should warn about: a file read leniently with a folder that fails
    /// the check, or a named folder that fails it.
    pub fn warning(&self) -> Option<String> {
        let how = self.how();
        let failed = match how {
            How::Closest { .. } => true,
            How::Given { check } => check.is_some_and(|c| !c.passes()),
            How::Exact | How::Nearest { .. } => false,
        };
        failed.then(|| match (self, how) {
            (SchemaChoice::TypeTable { .. }, _) => format!(
                "it may not be written back as its own version's writer would: {}",
                self.describe()
            ),
            (SchemaChoice::ClassDefinitions { .. }, _) => format!(
                "the schema given does not describe every class the file defines as the file does (its own definitions read it): {}",
                self.describe()
            ),
            (_, How::Closest { .. }) => format!(
                "its objects were read with classes that may not be its own: {}",
                self.describe()
            ),
            _ => format!(
                "the schema given does not describe every class the file stores as the file does: {}",
                self.describe()
            ),
        })
    }
}

/// How many of the class signatures `pf` stores recompute from `schema` (or are pinned by
/// it), as `hk schema check` counts them.
pub fn signature_check(schema: &Schema, pf: &Packfile<'_>) -> Check {
    let rows = check::signatures(schema, pf);
    Check::Signatures {
        matched: rows.iter().filter(|r| r.verdict.ok()).count(),
        stored: rows.len(),
    }
}

impl Schemas {
    /// Where the classes of binary tagfile `file` (read into `graph`, over the schema of its
    /// own definitions) came from: the definitions themselves, and with a schema the caller
    /// names ([`Schemas::with_schema`]) how many of them it holds alike (the same parent and
    /// members, each of the same type, in the same order).
    pub fn class_definitions(&self, file: &BinaryTagfile, graph: &Graph) -> SchemaChoice {
        let name = file.schema_name();
        let Some(g) = &self.given else {
            return SchemaChoice::ClassDefinitions {
                name,
                how: How::Exact,
            };
        };
        let own = graph.schema();
        let alike = |c: &crate::schema::Class| {
            g.schema.class(&c.name).is_some_and(|x| {
                x.parent == c.parent
                    && x.members.len() == c.members.len()
                    && x.members.iter().zip(&c.members).all(|(a, b)| {
                        (&a.name, a.ty, a.subtype, a.array_size, &a.class)
                            == (&b.name, b.ty, b.subtype, b.array_size, &b.class)
                    })
            })
        };
        let check = Check::Classes {
            matched: own.classes().iter().filter(|c| alike(c)).count(),
            defined: own.classes().len(),
        };
        SchemaChoice::ClassDefinitions {
            name,
            how: How::Given { check: Some(check) },
        }
    }

    /// The classes to read packfile `pf` with, and where they came from (the module's
    /// rule). Lenient reading (`read`) takes the closest folder when none passes.
    ///
    /// # Errors
    /// No folder of the file's version and none passing the check (strict reading), a
    /// folder that does not load, or the file's own metadata is malformed.
    pub fn select(
        &self,
        pf: &Packfile<'_>,
        read: &ReadOptions,
    ) -> Result<(Arc<Schema>, SchemaChoice)> {
        if let Some(g) = &self.given {
            let how = How::Given {
                check: Some(signature_check(&g.schema, pf)),
            };
            return Ok((
                Arc::clone(&g.schema),
                SchemaChoice::Generation {
                    name: g.label.clone(),
                    how,
                    borrowed: Vec::new(),
                },
            ));
        }
        let own = pf
            .section("__types__")
            .is_some_and(|t| !t.data(&pf.bytes()).is_empty());
        let (schema, name, how, metadata, borrowed) =
            self.choose(pf, read, |name| self.packfile_schema(pf, name, own))?;
        let choice = if metadata {
            SchemaChoice::Metadata {
                reflection: name,
                how,
            }
        } else {
            SchemaChoice::Generation {
                name,
                how,
                borrowed,
            }
        };
        Ok((schema, choice))
    }

    /// The generation of the catalog that reads `pf`'s objects by the rule, never the
    /// file's own metadata (what `hk schema check` compares the file with).
    ///
    /// # Errors
    /// As [`Schemas::select`].
    pub fn generation(
        &self,
        pf: &Packfile<'_>,
        read: &ReadOptions,
    ) -> Result<(Arc<Schema>, SchemaChoice)> {
        let (schema, name, how, _, borrowed) =
            self.choose(pf, read, |name| self.packfile_schema(pf, name, false))?;
        Ok((
            schema,
            SchemaChoice::Generation {
                name,
                how,
                borrowed,
            },
        ))
    }

    /// Generation `name`'s classes for `pf`, or the file's own metadata read with them
    /// when `own` (the flag says which it is).
    fn packfile_schema(
        &self,
        pf: &Packfile<'_>,
        name: &str,
        own: bool,
    ) -> Result<(Arc<Schema>, bool)> {
        let generation = self.load(name)?;
        if !own {
            return Ok((generation, false));
        }
        let Some(types) = pf.section("__types__") else {
            return Ok((generation, false));
        };
        let data = types.data(&pf.bytes());
        let reader = format!(
            "{name} {} {}",
            pf.rules().tag(),
            pf.header.contents_version()
        );
        if let Some(s) = self.described(&reader, data) {
            return Ok((s, true));
        }
        match metadata::extract(pf, &generation)? {
            Some(own) => {
                let own = Arc::new(own);
                self.remember(reader, data, &own);
                Ok((own, true))
            }
            None => Ok((generation, false)),
        }
    }

    /// The rule for a packfile: the exact folder, else the nearest whose schema
    /// (`schema_of`) recomputes every stored signature, else the closest (lenient `read`) or
    /// [`SchemaError::Unverified`]. The exact folder's classes (not the file's own
    /// metadata) borrow the classes they do not compute from other folders that do
    /// ([`borrow_into`]); strict reading refuses a class of the file's objects that no
    /// folder has ([`SchemaError::Uncomputed`]). A neighbour standing in for a version
    /// with no folder borrows nothing: it passes by its own classes or not at all.
    fn choose(
        &self,
        pf: &Packfile<'_>,
        read: &ReadOptions,
        schema_of: impl Fn(&str) -> Result<(Arc<Schema>, bool)>,
    ) -> Result<Chosen> {
        let h = &pf.header;
        let cv = h.contents_version();
        if let Some(e) = self.catalog.packfile(h.file_version, &cv) {
            let (s, own) = schema_of(&e.name)?;
            if own {
                return Ok((s, e.name.clone(), How::Exact, own, Vec::new()));
            }
            let b = borrow_into(self, pf, &e.name, s)?;
            if !read.lenient {
                refuse_missing(pf, &e.name, &b.uncomputed)?;
            }
            return Ok((b.schema, e.name.clone(), How::Exact, own, b.borrowed));
        }
        let mut tried = Vec::new();
        let mut best: Option<(Arc<Schema>, String, bool, usize)> = None;
        for e in self.catalog.packfile_neighbours(h.file_version, &cv) {
            let name = e.name.clone();
            // A folder that does not load is an error whichever file asks for it.
            self.load(&name)?;
            let check = match schema_of(&name) {
                Ok((s, own)) => {
                    let check = signature_check(&s, pf);
                    if check.passes() {
                        tried.push(Tried {
                            folder: name.clone(),
                            check,
                        });
                        let how = How::Nearest { version: cv, tried };
                        return Ok((s, name, how, own, Vec::new()));
                    }
                    if best.as_ref().is_none_or(|b| check.score() > b.3) {
                        best = Some((s, name.clone(), own, check.score()));
                    }
                    check
                }
                // Metadata this generation's reflection classes cannot read: nothing
                // recomputes from it.
                Err(_) => Check::Signatures {
                    matched: 0,
                    stored: pf.class_names.len(),
                },
            };
            tried.push(Tried {
                folder: name,
                check,
            });
        }
        match best {
            Some((s, name, own, _)) if read.lenient => Ok((
                s,
                name,
                How::Closest { version: cv, tried },
                own,
                Vec::new(),
            )),
            _ => Err(Error::from(SchemaError::Unverified {
                tagfile: false,
                version: cv,
                tried,
            })),
        }
    }

    /// The `[tagfile]` rules that write tagfile `tf` (read from `bytes` into `graph`) back,
    /// and which generation gave them (the module's rule: the exact SDK version, else the
    /// nearest generation whose rules write the file back byte for byte).
    ///
    /// # Errors
    /// No generation passes (strict reading), or the one chosen has no `[tagfile]` rules.
    pub fn tagfile_rules(
        &self,
        tf: &TagFile,
        bytes: &[u8],
        graph: &Graph,
        read: &ReadOptions,
    ) -> Result<(TagfileRules, SchemaChoice)> {
        let no_rules = |name: &str| {
            Error::schema(format!(
                "{name} has no [tagfile] rules to write a tagfile with"
            ))
        };
        if let Some(g) = &self.given {
            let rules = (g.schema.generation.tagfile.clone()).ok_or_else(|| no_rules(&g.label))?;
            let check = writes_back(graph, tf, &rules, bytes);
            let choice = SchemaChoice::TypeTable {
                rules: g.label.clone(),
                how: How::Given { check: Some(check) },
            };
            return Ok((rules, choice));
        }
        let sdk = &tf.sdk_version;
        if let Some(e) = self.catalog.tagfile(sdk) {
            let rules = (e.generation.tagfile.clone()).ok_or_else(|| no_rules(&e.name))?;
            let choice = SchemaChoice::TypeTable {
                rules: e.name.clone(),
                how: How::Exact,
            };
            return Ok((rules, choice));
        }
        let version = format!("SDK {sdk}");
        let mut tried = Vec::new();
        let mut closest: Option<(TagfileRules, String)> = None;
        for e in self.catalog.tagfile_neighbours(sdk) {
            let Some(rules) = e.generation.tagfile.clone() else {
                continue;
            };
            let check = writes_back(graph, tf, &rules, bytes);
            tried.push(Tried {
                folder: e.name.clone(),
                check,
            });
            if check.passes() {
                let how = How::Nearest { version, tried };
                let choice = SchemaChoice::TypeTable {
                    rules: e.name.clone(),
                    how,
                };
                return Ok((rules, choice));
            }
            closest.get_or_insert((rules, e.name.clone()));
        }
        match closest {
            Some((rules, name)) if read.lenient => Ok((
                rules,
                SchemaChoice::TypeTable {
                    rules: name,
                    how: How::Closest { version, tried },
                },
            )),
            _ => Err(Error::from(SchemaError::Unverified {
                tagfile: true,
                version,
                tried,
            })),
        }
    }
}

/// The classes to read a packfile with: the schema, the folder's name, how it was chosen,
/// whether it is the file's own metadata, and the classes borrowed.
type Chosen = (Arc<Schema>, String, How, bool, Vec<Borrowed>);

/// Refuses a stored class that `folder` lacks and no folder computes, when the file has
/// objects of it (Havok 5.5 lists classes it has none of).
fn refuse_missing(
    pf: &Packfile<'_>,
    folder: &str,
    uncomputed: &[(String, u32, bool)],
) -> Result<()> {
    for (class, signature, _) in uncomputed.iter().filter(|u| u.2) {
        if pf.objects().any(|(_, n)| n == class) {
            return Err(Error::from(SchemaError::Uncomputed {
                class: class.clone(),
                signature: *signature,
                folder: folder.to_string(),
            }));
        }
    }
    Ok(())
}

/// Whether `rules` write `graph` back as `bytes` (the tagfile `tf` was read from).
fn writes_back(graph: &Graph, tf: &TagFile, rules: &TagfileRules, bytes: &[u8]) -> Check {
    match tagfile::write(graph, tf, rules) {
        Ok(out) if out == bytes => Check::WritesBack {
            identical: true,
            differs_at: None,
        },
        Ok(out) => Check::WritesBack {
            identical: false,
            differs_at: Some(
                bytes
                    .iter()
                    .zip(&out)
                    .position(|(a, b)| a != b)
                    .unwrap_or(bytes.len().min(out.len())) as u64,
            ),
        },
        Err(_) => Check::WritesBack {
            identical: false,
            differs_at: None,
        },
    }
}
