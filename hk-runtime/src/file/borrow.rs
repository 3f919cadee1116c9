//! Per-class borrowing (docs/schema-selection.md, "Borrowed classes"): a class the chosen
//! folder lacks, or describes otherwise than the file, is read with the description of
//! another folder whose class computes the signature the file stores for it.
//!
//! A stored signature is a CRC-32 of the whole class description: its members, their
//! types, flags and array sizes, its enums, its parents and the classes its struct members
//! hold (docs/layout-and-signatures.md §4). A folder whose class recomputes it describes the
//! file's class member for member. The classes a borrowed class needs come with it: a
//! parent or a struct member's class the file stores a signature for is resolved by that
//! signature like any other; one it stores none for is the donor's (the donor's
//! signature covers it), kept from the chosen folder only when both describe it alike. A
//! class a pointer names is the chosen folder's when it has one, else the donor's. The
//! borrowed classes join the chosen folder's generation, so the file is laid out with its
//! own layout rules, and the whole is checked again: every stored signature that
//! recomputed before still does, and each borrowed one now does too.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::schemas::Schemas;
use crate::error::{Error, Result, SchemaError};
use crate::packfile::Packfile;
use crate::schema::signature;
use crate::schema::{Class, Container, Generation, Schema};
use crate::types::TypeKind;

/// A class read with another folder's description.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Borrowed {
    /// The class.
    pub class: String,
    /// The folder whose description reads it.
    pub folder: String,
    /// The signature the file stores for it, which that folder computes; `None` for a
    /// class a borrowed class needs (a parent, a struct member's class, a class a pointer
    /// names) whose signature the file does not store.
    pub signature: Option<u32>,
}

impl fmt::Display for Borrowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.signature {
            Some(s) => write!(
                f,
                "{} from {} (signature 0x{s:08X})",
                self.class, self.folder
            ),
            None => write!(
                f,
                "{} from {} (needed by a borrowed class)",
                self.class, self.folder
            ),
        }
    }
}

/// A stored class no folder computes the signature of.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Uncomputed {
    /// The class.
    pub class: String,
    /// Its stored signature.
    pub signature: u32,
    /// Whether the chosen folder lacks it (rather than describing it otherwise).
    pub missing: bool,
}

/// What borrowing found for one file and one chosen folder.
#[derive(Debug, Default)]
struct Plan {
    /// The classes to take, by name, and the index of the donor in the list given.
    pub take: BTreeMap<String, (usize, Option<u32>)>,
    /// Stored classes the chosen folder does not compute and no donor does either.
    pub uncomputed: Vec<Uncomputed>,
}

impl Plan {
    /// A key naming what is borrowed (the cache key of the merged schema).
    pub fn key(&self, donors: &[(String, Arc<Schema>)]) -> Vec<u8> {
        let mut k = Vec::new();
        for (class, (d, _)) in &self.take {
            k.extend_from_slice(class.as_bytes());
            k.push(0);
            k.extend_from_slice(donors[*d].0.as_bytes());
            k.push(0);
        }
        k
    }

    /// The borrowed classes, by name.
    pub fn borrowed(&self, donors: &[(String, Arc<Schema>)]) -> Vec<Borrowed> {
        self.take
            .iter()
            .map(|(class, (d, sig))| Borrowed {
                class: class.clone(),
                folder: donors[*d].0.clone(),
                signature: *sig,
            })
            .collect()
    }
}

/// Whether `schema` gives `class` the signature `stored` (computed, or pinned as
/// `hk schema check` accepts it).
fn computes(schema: &Schema, class: &str, stored: u32) -> bool {
    schema.class(class).is_some()
        && signature::signature(schema, class)
            .is_ok_and(|s| s.value == stored || s.computed() == stored)
}

/// Which of the `stored` classes (name and stored signature) to take from which of
/// `donors` (nearest first) for `base`, and the classes they need.
fn plan(base: &Schema, stored: &[(&str, u32)], donors: &[(String, Arc<Schema>)]) -> Plan {
    let mut out = Plan::default();
    let by_name: BTreeMap<&str, u32> = stored.iter().copied().collect();
    let mut todo: Vec<(String, usize)> = Vec::new();
    for &(class, sig) in stored {
        if computes(base, class, sig) || out.take.contains_key(class) {
            continue;
        }
        match donors.iter().position(|(_, d)| computes(d, class, sig)) {
            Some(d) => {
                out.take.insert(class.to_string(), (d, Some(sig)));
                todo.push((class.to_string(), d));
            }
            None => out.uncomputed.push(Uncomputed {
                missing: base.class(class).is_none(),
                class: class.to_string(),
                signature: sig,
            }),
        }
    }
    // The classes the taken ones need.
    while let Some((name, d)) = todo.pop() {
        let donor = &donors[d].1;
        let Some(c) = donor.class(&name) else {
            continue;
        };
        let mut needs: Vec<(&str, bool)> = c.parent.iter().map(|p| (p.as_str(), true)).collect();
        for m in &c.members {
            if let Some(r) = m.class.as_deref() {
                let by_value = m.ty == TypeKind::Struct || m.subtype == TypeKind::Struct;
                needs.push((r, by_value));
            }
            if let Some((ec, _)) = m
                .enum_ref
                .as_deref()
                .and_then(|r| donor.resolve_enum(&name, r))
            {
                needs.push((&ec.name, true));
            }
        }
        for (r, by_value) in needs {
            if by_name.contains_key(r) || out.take.contains_key(r) {
                continue;
            }
            let keep = match base.class(r) {
                None => false,
                Some(_) if !by_value => true,
                Some(_) => match (signature::compute(base, r), signature::compute(donor, r)) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => false,
                },
            };
            if !keep {
                out.take.insert(r.to_string(), (d, None));
                todo.push((r.to_string(), d));
            }
        }
    }
    out
}

/// `base`'s classes with those of `plan` taken from their donors (their member flags
/// renumbered into `base`'s generation), or why they do not make a schema.
fn merge(
    base: &Schema,
    plan: &Plan,
    donors: &[(String, Arc<Schema>)],
) -> std::result::Result<Schema, String> {
    let mut classes: Vec<Class> = base.classes().to_vec();
    for (name, (d, _)) in &plan.take {
        let (folder, donor) = &donors[*d];
        let mut c = donor
            .class(name)
            .cloned()
            .ok_or_else(|| format!("{folder} has no class `{name}`"))?;
        renumber(&mut c, &donor.generation, &base.generation).map_err(|flag| {
            format!(
                "`{name}` of {folder}: flag `{flag}` has no value in {}",
                base.generation.name
            )
        })?;
        // Sizes and offsets stated for the donor's default layout say nothing here.
        c.expected_size = None;
        for m in &mut c.members {
            m.expected_offset = None;
        }
        match base.class_id(name) {
            Some(id) => classes[id.0 as usize] = c,
            None => classes.push(c),
        }
    }
    Schema::new(base.generation.clone(), classes).map_err(|d| d.to_string())
}

/// Rewrites `c`'s member flags from `from`'s numbering into `to`'s, by name; the name of a
/// flag `to` does not number is the error.
fn renumber(c: &mut Class, from: &Generation, to: &Generation) -> std::result::Result<(), String> {
    if from.member_flags == to.member_flags {
        return Ok(());
    }
    for m in &mut c.members {
        let (names, rest) = from.flag_names(m.flags);
        let mut flags = rest;
        for n in names {
            match to.flag_value(n) {
                0 => return Err(n.to_string()),
                v => flags |= v,
            }
        }
        m.flags = flags;
    }
    Ok(())
}

/// Whether `merged` computes every stored signature `base` did, and those of the
/// borrowed classes.
fn verified(base: &Schema, merged: &Schema, stored: &[(&str, u32)], plan: &Plan) -> bool {
    stored.iter().all(|&(class, sig)| {
        computes(merged, class, sig)
            || (!computes(base, class, sig) && !plan.take.contains_key(class))
    })
}

/// A folder's classes with the ones it does not compute borrowed from others.
#[derive(Clone, Debug)]
pub struct Borrowing {
    /// The folder's classes, with the borrowed ones in place of its own or added.
    pub schema: Arc<Schema>,
    /// The classes borrowed, by name.
    pub borrowed: Vec<Borrowed>,
    /// Stored classes no folder computes: name, stored signature, and whether the folder
    /// lacks the class (rather than describing it otherwise).
    pub uncomputed: Vec<(String, u32, bool)>,
}

impl Schemas {
    /// Folder `name`'s classes, with each of the `stored` classes (name and the signature
    /// a file stores) that it does not compute taken from another packfile folder that
    /// does, nearest to the version (`file_version`, `contents_version`) first, with the
    /// classes those need (docs/schema-selection.md, "Borrowed classes").
    ///
    /// # Errors
    /// A folder that does not load, or borrowed classes that do not form a schema.
    pub fn borrowing(
        &self,
        name: &str,
        stored: &[(&str, u32)],
        file_version: u32,
        contents_version: &str,
    ) -> Result<Borrowing> {
        let base = self.load(name)?;
        let nothing = |base, uncomputed: Vec<Uncomputed>| Borrowing {
            schema: base,
            borrowed: Vec::new(),
            uncomputed: uncomputed
                .into_iter()
                .map(|u| (u.class, u.signature, u.missing))
                .collect(),
        };
        if stored.iter().all(|&(c, s)| computes(&base, c, s)) {
            return Ok(nothing(base, Vec::new()));
        }
        let mut donors = Vec::new();
        for e in (self.catalog)
            .nearest(Container::Packfile, file_version, contents_version)
            .into_iter()
            .filter(|e| e.name != name)
        {
            donors.push((e.name.clone(), self.load(&e.name)?));
        }
        let plan = plan(&base, stored, &donors);
        if plan.take.is_empty() {
            return Ok(nothing(base, plan.uncomputed));
        }
        let reader = format!("{name} borrowing");
        let key = plan.key(&donors);
        let merged = match self.described(&reader, &key) {
            Some(s) => Some(s),
            None => match merge(&base, &plan, &donors) {
                Ok(s) => {
                    let s = Arc::new(s);
                    self.remember(reader, &key, &s);
                    Some(s)
                }
                // A class the borrowed ones name that no folder computes: that class is
                // what to report.
                Err(_) if !plan.uncomputed.is_empty() => None,
                Err(why) => {
                    return Err(Error::from(SchemaError::Invalid(format!(
                        "the classes {name} borrows ({}) do not fit its own: {why}",
                        names(&plan.borrowed(&donors))
                    ))))
                }
            },
        };
        let merged = merged.filter(|m| verified(&base, m, stored, &plan));
        let Some(merged) = merged else {
            // The borrowed classes need descriptions that other classes of the file
            // disagree with, or one that no folder computes: nothing is borrowed.
            let mut uncomputed = plan.uncomputed;
            for (class, (_, sig)) in &plan.take {
                if let Some(signature) = sig {
                    uncomputed.push(Uncomputed {
                        class: class.clone(),
                        signature: *signature,
                        missing: base.class(class).is_none(),
                    });
                }
            }
            return Ok(nothing(base, uncomputed));
        };
        Ok(Borrowing {
            schema: merged,
            borrowed: plan.borrowed(&donors),
            uncomputed: plan
                .uncomputed
                .into_iter()
                .map(|u| (u.class, u.signature, u.missing))
                .collect(),
        })
    }
}

/// [`Schemas::borrowing`] for packfile `pf` and folder `name` (whose classes are `base`,
/// or the file's own metadata read with them, which borrows nothing).
///
/// # Errors
/// As [`Schemas::borrowing`].
pub(super) fn borrow_into(
    schemas: &Schemas,
    pf: &Packfile<'_>,
    name: &str,
    base: Arc<Schema>,
) -> Result<Borrowing> {
    let stored: Vec<(&str, u32)> = pf
        .class_names
        .iter()
        .map(|c| (c.name, c.signature))
        .collect();
    if stored.iter().all(|&(c, s)| computes(&base, c, s)) {
        return Ok(Borrowing {
            schema: base,
            borrowed: Vec::new(),
            uncomputed: Vec::new(),
        });
    }
    let h = &pf.header;
    schemas.borrowing(name, &stored, h.file_version, &h.contents_version())
}

/// `a, b, c` of the borrowed classes' names.
fn names(borrowed: &[Borrowed]) -> String {
    let v: Vec<&str> = borrowed.iter().map(|b| b.class.as_str()).collect();
    v.join(", ")
}
