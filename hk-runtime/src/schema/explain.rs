//! Why stored class signatures disagree with a schema: part of the report layer (beside
//! [`super::report`]), for `hk schema explain`.
//!
//! A file stores one signature per class it names (a packfile's `__classnames__`). For each
//! stored signature the schema does not reproduce, [`explain`] gives:
//!
//! - the hashed description, line by line ([`signature::describe`]);
//! - the classes that description includes (parents, struct members' classes) whose stored
//!   signatures disagree too, and among them the root causes: those that include no other
//!   disagreeing class;
//! - the nearest reference schema (callers pass shipped folders, nearest version first)
//!   whose class computes the stored value, and what differs between the two descriptions,
//!   class by class and member by member.
//!
//! Everything is linear in the size of the descriptions: parts are matched by name.

use std::collections::{HashMap, HashSet};

use super::signature::{self, Description, Part, Via};
use super::Schema;

/// A schema to compare with, and its name.
#[derive(Clone, Copy, Debug)]
pub struct Reference<'a> {
    /// The folder's name (`havok-2010.2`).
    pub name: &'a str,
    /// Its classes.
    pub schema: &'a Schema,
}

/// One part of a class's description that differs between two schemas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The class whose own description differs.
    pub class: String,
    /// The part; `None` when only one side's description includes the class at all.
    pub part: Option<Part>,
    /// What the explained schema hashes there (`None`: it has no such part or class).
    pub here: Option<String>,
    /// What the reference hashes there.
    pub there: Option<String>,
}

impl Difference {
    /// `Class`, `Class.member` or `Class enum Name`: where the difference is.
    pub fn place(&self) -> String {
        match &self.part {
            None | Some(Part::Interfaces) => self.class.clone(),
            Some(Part::Member(m)) => format!("{}.{m}", self.class),
            Some(Part::Enum(e)) => format!("{} enum {e}", self.class),
            Some(Part::EnumCount) => format!("{} (enum count)", self.class),
            Some(Part::MemberCount) => format!("{} (member count)", self.class),
        }
    }

    /// The two texts with their common leading and trailing words cut to `…`.
    pub fn brief(&self) -> (String, String) {
        let empty = "(absent)".to_string();
        let (Some(a), Some(b)) = (&self.here, &self.there) else {
            return (
                self.here.clone().unwrap_or_else(|| empty.clone()),
                self.there.clone().unwrap_or(empty),
            );
        };
        let (a, b) = (words(a), words(b));
        let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let max_suf = a.len().min(b.len()) - pre;
        let suf = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take(max_suf)
            .take_while(|(x, y)| x == y)
            .count();
        let cut = |w: &[&str]| {
            let mut s = String::new();
            if pre > 0 {
                s.push_str("… ");
            }
            s.push_str(&w[pre..w.len() - suf].join(" "));
            if suf > 0 {
                s.push_str(" …");
            }
            s
        };
        (cut(&a), cut(&b))
    }
}

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

/// The nearest reference whose class reproduces a stored signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nearest {
    /// The reference's name.
    pub folder: String,
    /// The reference pins the value rather than computing it (its description is not
    /// known exactly; no differences are given).
    pub pinned: bool,
    /// What differs between the explained schema's description and the reference's.
    pub differences: Vec<Difference>,
}

/// Why the schema does not reproduce a stored signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The schema has no such class.
    Missing,
    /// The schema has the class but cannot describe it (the error says why).
    Broken(String),
    /// The schema computes another value.
    Differs {
        /// What the schema hashes.
        description: Box<Description>,
        /// Classes the description includes whose stored signatures disagree too.
        also_disagree: Vec<(String, Via)>,
        /// Of those, the ones that include no other disagreeing class: where to look first.
        root_causes: Vec<String>,
        /// Classes the description includes that the file stores no signature for: the
        /// suspects when no included class disagrees.
        unstored: Vec<String>,
    },
}

/// One stored signature the schema does not reproduce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The class.
    pub class: String,
    /// The value the file stores.
    pub stored: u32,
    /// What the schema gives instead.
    pub outcome: Outcome,
    /// The nearest reference that reproduces the stored value, if any.
    pub nearest: Option<Nearest>,
}

impl Explanation {
    /// The value the schema computes, when it computes one.
    pub fn computed(&self) -> Option<u32> {
        match &self.outcome {
            Outcome::Differs { description, .. } => Some(description.crc),
            _ => None,
        }
    }
}

/// Whether `schema` reproduces `stored` for `class`: its computed value, or the value it
/// pins.
pub fn agrees(schema: &Schema, class: &str, stored: u32) -> bool {
    schema.class(class).is_some()
        && signature::signature(schema, class)
            .is_ok_and(|s| s.value == stored || s.computed() == stored)
}

/// Explains every stored signature (`(class, value)` pairs, in file order) that `schema`
/// does not reproduce; `references` are searched in order for the nearest one that does.
pub fn explain(
    schema: &Schema,
    stored: &[(&str, u32)],
    references: &[Reference<'_>],
) -> Vec<Explanation> {
    let bad: Vec<(&str, u32)> = stored
        .iter()
        .copied()
        .filter(|(c, v)| !agrees(schema, c, *v))
        .collect();
    let bad_names: HashSet<&str> = bad.iter().map(|(c, _)| *c).collect();
    let stored_names: HashSet<&str> = stored.iter().map(|(c, _)| *c).collect();
    let mut descriptions: HashMap<&str, Option<Description>> = HashMap::new();
    for (c, _) in &bad {
        descriptions.insert(c, signature::describe(schema, c).ok());
    }
    // Disagreeing classes each disagreeing class includes.
    let includes_bad = |d: &Description| -> Vec<(String, Via)> {
        d.includes
            .iter()
            .filter(|(c, _)| bad_names.contains(c.as_str()))
            .cloned()
            .collect()
    };
    bad.iter()
        .map(|&(class, value)| {
            let outcome = match (schema.class(class), &descriptions[class]) {
                (None, _) => Outcome::Missing,
                (Some(_), None) => Outcome::Broken(
                    signature::describe(schema, class)
                        .err()
                        .map_or_else(String::new, |e| e.to_string()),
                ),
                (Some(_), Some(d)) => {
                    let also = includes_bad(d);
                    let root_causes = also
                        .iter()
                        .filter(|(c, _)| {
                            descriptions
                                .get(c.as_str())
                                .and_then(Option::as_ref)
                                .is_none_or(|dd| includes_bad(dd).is_empty())
                        })
                        .map(|(c, _)| c.clone())
                        .collect();
                    let unstored = d
                        .includes
                        .iter()
                        .filter(|(c, _)| !stored_names.contains(c.as_str()))
                        .map(|(c, _)| c.clone())
                        .collect();
                    Outcome::Differs {
                        description: Box::new(d.clone()),
                        also_disagree: also,
                        root_causes,
                        unstored,
                    }
                }
            };
            let here = descriptions[class].as_ref();
            Explanation {
                class: class.to_string(),
                stored: value,
                nearest: nearest(class, value, here, references),
                outcome,
            }
        })
        .collect()
}

/// The first reference that computes `stored` for `class` (else the first that pins it).
fn nearest(
    class: &str,
    stored: u32,
    here: Option<&Description>,
    references: &[Reference<'_>],
) -> Option<Nearest> {
    let mut pinned = None;
    for r in references {
        if r.schema.class(class).is_none() {
            continue;
        }
        let Ok(sig) = signature::signature(r.schema, class) else {
            continue;
        };
        if sig.computed() == stored {
            let differences = match (here, signature::describe(r.schema, class)) {
                (Some(h), Ok(t)) => differences(h, &t),
                _ => Vec::new(),
            };
            return Some(Nearest {
                folder: r.name.to_string(),
                pinned: false,
                differences,
            });
        }
        if sig.value == stored && pinned.is_none() {
            pinned = Some(Nearest {
                folder: r.name.to_string(),
                pinned: true,
                differences: Vec::new(),
            });
        }
    }
    pinned
}

/// A class's own description as (part, text) in hash order, the lines of one part joined.
fn parts(d: &Description, class: &str) -> Vec<(Part, String)> {
    let mut out: Vec<(Part, String)> = Vec::new();
    for l in d.own_lines(class) {
        let text = l.text.trim();
        match out.last_mut() {
            Some((p, t)) if *p == l.part => {
                t.push_str("; ");
                t.push_str(text);
            }
            _ => out.push((l.part.clone(), text.to_string())),
        }
    }
    out
}

/// What differs between two descriptions of the same class, class by class (in the order
/// `here` includes them, then classes only `there` includes) and part by part.
pub fn differences(here: &Description, there: &Description) -> Vec<Difference> {
    let classes = |d: &Description| -> Vec<String> {
        std::iter::once(d.class.clone())
            .chain(d.includes.iter().map(|(c, _)| c.clone()))
            .collect()
    };
    let (mine, theirs) = (classes(here), classes(there));
    let their_set: HashSet<&str> = theirs.iter().map(String::as_str).collect();
    let my_set: HashSet<&str> = mine.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for c in &mine {
        if !their_set.contains(c.as_str()) {
            out.push(Difference {
                class: c.clone(),
                part: None,
                here: Some(format!("includes {c}{}", via_of(here, c))),
                there: None,
            });
            continue;
        }
        let a = parts(here, c);
        let b = parts(there, c);
        let b_map: HashMap<&Part, &str> = b.iter().map(|(p, t)| (p, t.as_str())).collect();
        let a_set: HashSet<&Part> = a.iter().map(|(p, _)| p).collect();
        let mut diffs: Vec<Difference> = Vec::new();
        for (p, t) in &a {
            match b_map.get(p) {
                Some(u) if *u == t => {}
                other => diffs.push(Difference {
                    class: c.clone(),
                    part: Some(p.clone()),
                    here: Some(t.clone()),
                    there: other.map(|u| u.to_string()),
                }),
            }
        }
        for (p, t) in &b {
            if !a_set.contains(p) {
                diffs.push(Difference {
                    class: c.clone(),
                    part: Some(p.clone()),
                    here: None,
                    there: Some(t.clone()),
                });
            }
        }
        // A count differs whenever an enum or member is added or removed; say it only
        // when nothing else does.
        let counts = |p: &Option<Part>| matches!(p, Some(Part::EnumCount | Part::MemberCount));
        if diffs.iter().any(|d| !counts(&d.part)) {
            diffs.retain(|d| !counts(&d.part));
        }
        out.extend(diffs);
    }
    for c in &theirs {
        if !my_set.contains(c.as_str()) {
            out.push(Difference {
                class: c.clone(),
                part: None,
                here: None,
                there: Some(format!("includes {c}{}", via_of(there, c))),
            });
        }
    }
    out
}

fn via_of(d: &Description, class: &str) -> String {
    d.includes
        .iter()
        .find(|(c, _)| c == class)
        .map_or_else(String::new, |(_, v)| format!(" ({v})"))
}
