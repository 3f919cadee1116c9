//! Comparing a schema with a packfile: stored signatures, stored metadata offsets and sizes,
//! and the pointer slots the file's fixups imply.

use std::collections::{BTreeSet, HashMap};

use crate::error::Result;
use crate::layout::{align_up, Layouts};
use crate::packfile::{Loc, Packfile};
use crate::schema::Schema;
use crate::signature::{self, SignatureSource};
use crate::types::TypeKind;

/// How one stored value compares with the schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The schema reproduces the stored value.
    Match,
    /// The schema gives another value.
    Mismatch,
    /// The schema pins the stored value; the computed one is shown beside it.
    Pinned,
    /// The schema does not describe the class or member.
    Missing,
}

impl Verdict {
    /// Whether this counts as agreement.
    pub fn ok(self) -> bool {
        matches!(self, Verdict::Match | Verdict::Pinned)
    }

    /// Short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Match => "ok",
            Verdict::Mismatch => "MISMATCH",
            Verdict::Pinned => "pinned",
            Verdict::Missing => "MISSING",
        }
    }
}

/// A stored class signature against the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureRow {
    /// Class name.
    pub class: String,
    /// The value in `__classnames__`.
    pub stored: u32,
    /// The schema's computed value (also for pinned classes).
    pub computed: Option<u32>,
    /// The schema's pinned value, if it pins one.
    pub pinned: Option<u32>,
    /// The outcome.
    pub verdict: Verdict,
}

/// A stored offset or size against the layout engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutRow {
    /// Class name.
    pub class: String,
    /// Member name; `None` for the class size.
    pub member: Option<String>,
    /// The value the file's metadata stores.
    pub stored: u32,
    /// The value the schema's layout gives under the file's rules.
    pub computed: Option<u32>,
    /// The outcome.
    pub verdict: Verdict,
}

/// Pointer slots of the data objects against the file's fixups.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlotCheck {
    /// Objects walked.
    pub objects: usize,
    /// Objects whose class the schema lacks.
    pub unknown_objects: Vec<String>,
    /// Fixup sources in the data section.
    pub fixups: usize,
    /// Of those, the ones on a pointer slot the layout predicts.
    pub on_slots: usize,
    /// Fixup sources on no predicted slot, as `(section offset, owning object class)`.
    pub strays: Vec<(u32, String)>,
    /// Objects whose padded body ends exactly where their first owned data starts, of those
    /// that own data.
    pub bodies_ok: usize,
    /// Objects that own data.
    pub bodies: usize,
}

/// Everything `hk schema check` reports for one file.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Stored signatures.
    pub signatures: Vec<SignatureRow>,
    /// Stored metadata sizes and offsets (empty without metadata).
    pub layout: Vec<LayoutRow>,
    /// The pointer-slot check of `__data__`.
    pub slots: SlotCheck,
}

impl Report {
    /// Whether every row agrees.
    pub fn ok(&self) -> bool {
        self.signatures.iter().all(|r| r.verdict.ok())
            && self.layout.iter().all(|r| r.verdict.ok())
            && self.slots.strays.is_empty()
            && self.slots.unknown_objects.is_empty()
            && self.slots.bodies_ok == self.slots.bodies
    }
}

/// Checks the stored signatures of `pf` against `schema`.
pub fn signatures(schema: &Schema, pf: &Packfile<'_>) -> Vec<SignatureRow> {
    pf.class_names
        .iter()
        .map(|cn| {
            let sig = schema
                .class(&cn.name)
                .and_then(|_| signature::signature(schema, &cn.name).ok());
            let (computed, pinned, verdict) = match sig {
                None => (None, None, Verdict::Missing),
                Some(s) => match s.source {
                    SignatureSource::Computed => (
                        Some(s.value),
                        None,
                        if s.value == cn.signature {
                            Verdict::Match
                        } else {
                            Verdict::Mismatch
                        },
                    ),
                    SignatureSource::Pinned { computed } => {
                        let v = if computed == cn.signature {
                            Verdict::Match
                        } else if s.value == cn.signature {
                            Verdict::Pinned
                        } else {
                            Verdict::Mismatch
                        };
                        (Some(computed), Some(s.value), v)
                    }
                },
            };
            SignatureRow {
                class: cn.name.clone(),
                stored: cn.signature,
                computed,
                pinned,
                verdict,
            }
        })
        .collect()
}

/// Checks the sizes and offsets `described` (a file's own metadata, see
/// [`crate::metadata::extract`]) stores against `schema`'s layout under the file's rules.
pub fn stored_layout(schema: &Schema, described: &Schema) -> Vec<LayoutRow> {
    let mut layouts = Layouts::new(schema, described.generation.layout);
    let mut rows = Vec::new();
    for c in described.classes() {
        let computed = layouts.class(&c.name).ok().cloned();
        if let Some(stored) = c.expected_size {
            let got = computed.as_ref().map(|l| l.size);
            rows.push(LayoutRow {
                class: c.name.clone(),
                member: None,
                stored,
                computed: got,
                verdict: verdict(Some(stored), got),
            });
        }
        let mine = schema.class(&c.name);
        for m in &c.members {
            let Some(stored) = m.expected_offset else {
                continue;
            };
            let got = mine.zip(computed.as_ref()).and_then(|(sc, l)| {
                sc.members
                    .iter()
                    .position(|x| x.name == m.name)
                    .map(|i| l.members[i].offset)
            });
            rows.push(LayoutRow {
                class: c.name.clone(),
                member: Some(m.name.clone()),
                stored,
                computed: got,
                verdict: verdict(Some(stored), got),
            });
        }
    }
    rows
}

/// Checks a schema against what it states itself: every `offset` and `size` under its
/// generation's default layout, and every `signature` (pinned classes compare their pin).
pub fn self_check(schema: &Schema) -> (Vec<LayoutRow>, Vec<SignatureRow>) {
    let layout = stored_layout(schema, schema);
    let sigs = schema
        .classes()
        .iter()
        .filter_map(|c| {
            let stored = c
                .expected_signature
                .or(c.pinned.as_ref().map(|p| p.signature))?;
            let s = signature::signature(schema, &c.name).ok();
            let computed = s.map(|s| s.computed());
            let pinned = c.pinned.as_ref().map(|p| p.signature);
            let verdict = match (computed, pinned) {
                (None, _) => Verdict::Missing,
                (Some(v), _) if v == stored => Verdict::Match,
                (Some(_), Some(p)) if p == stored => Verdict::Pinned,
                _ => Verdict::Mismatch,
            };
            Some(SignatureRow {
                class: c.name.clone(),
                stored,
                computed,
                pinned,
                verdict,
            })
        })
        .collect();
    (layout, sigs)
}

fn verdict(stored: Option<u32>, computed: Option<u32>) -> Verdict {
    match computed {
        None => Verdict::Missing,
        Some(c) if Some(c) == stored => Verdict::Match,
        Some(_) => Verdict::Mismatch,
    }
}

/// Walks every object of the `__data__` section with `schema`'s layouts and compares the
/// pointer slots it predicts with the fixup sources the file has. Seed 000 ("Fixups, arrays
/// and padding"): every fixup source lies on a pointer member of its object's class or of an
/// element of one of its arrays, and an object's arrays start after its body padded to 16.
///
/// # Errors
/// Only on malformed array headers (a count past the end of the section).
pub fn pointer_slots(schema: &Schema, pf: &Packfile<'_>) -> Result<SlotCheck> {
    let mut out = SlotCheck::default();
    let Some(data) = pf.section("__data__") else {
        return Ok(out);
    };
    let sec = data.index;
    let mut objects: Vec<(u32, String)> = pf
        .objects()
        .filter(|(l, _)| l.section == sec)
        .map(|(l, n)| (l.offset, n.to_string()))
        .collect();
    objects.sort();
    let sources: BTreeSet<u32> = pf
        .pointers()
        .keys()
        .filter(|l| l.section == sec)
        .map(|l| l.offset)
        .collect();
    out.fixups = sources.len();
    let mut layouts = Layouts::new(schema, pf.rules());
    let mut predicted: HashMap<u32, String> = HashMap::new();
    let limit = data.local_fixups;
    for (i, (start, class)) in objects.iter().enumerate() {
        out.objects += 1;
        let next = objects.get(i + 1).map_or(limit, |o| o.0);
        if schema.class(class).is_none() {
            out.unknown_objects.push(class.clone());
            continue;
        }
        let mut walker = Walker {
            pf,
            layouts: &mut layouts,
            sec,
            slots: Vec::new(),
            budget: 1 << 22,
        };
        walker.object(class, *start)?;
        for s in &walker.slots {
            predicted.insert(*s, class.clone());
        }
        let size = layouts.class(class)?.size;
        let body_end = align_up(start + size, 16);
        let owned = pf
            .pointers()
            .iter()
            .filter(|(src, dst)| {
                src.section == sec
                    && (*start..next).contains(&src.offset)
                    && dst.section == sec
                    && dst.offset > *start
                    && dst.offset < next
            })
            .map(|(_, dst)| dst.offset)
            .min();
        if let Some(first) = owned {
            out.bodies += 1;
            if first == body_end {
                out.bodies_ok += 1;
            }
        }
    }
    for s in &sources {
        if predicted.contains_key(s) {
            out.on_slots += 1;
        } else {
            let owner = objects
                .iter()
                .rev()
                .find(|o| o.0 <= *s)
                .map_or("?".to_string(), |o| o.1.clone());
            out.strays.push((*s, owner));
        }
    }
    Ok(out)
}

struct Walker<'p, 's, 'a> {
    pf: &'p Packfile<'a>,
    layouts: &'p mut Layouts<'s>,
    sec: u32,
    slots: Vec<u32>,
    budget: usize,
}

impl Walker<'_, '_, '_> {
    fn object(&mut self, class: &str, at: u32) -> Result<()> {
        if self.budget == 0 {
            return Ok(());
        }
        self.budget -= 1;
        let members = self.layouts.flattened(class)?;
        for &(_, m, l) in members.iter() {
            let n = u32::from(m.array_size).max(1);
            let each = l.size / n;
            for k in 0..n {
                self.member(
                    m.ty,
                    m.subtype,
                    m.class.as_deref(),
                    at + l.offset + k * each,
                )?;
            }
        }
        Ok(())
    }

    fn member(
        &mut self,
        ty: TypeKind,
        subtype: TypeKind,
        class: Option<&str>,
        at: u32,
    ) -> Result<()> {
        let p = self.pf.rules().ptr();
        match ty {
            TypeKind::Pointer
            | TypeKind::CString
            | TypeKind::StringPtr
            | TypeKind::FunctionPointer => self.slots.push(at),
            TypeKind::Variant => {
                self.slots.push(at);
                self.slots.push(at + p);
            }
            TypeKind::HomogeneousArray => {
                self.slots.push(at);
                self.slots.push(at + p);
            }
            TypeKind::Array | TypeKind::SimpleArray => {
                self.slots.push(at);
                let Some(dst) = self.pf.resolve(Loc {
                    section: self.sec,
                    offset: at,
                }) else {
                    return Ok(());
                };
                let count = self.pf.bytes().u32(self.pf.abs(Loc {
                    section: self.sec,
                    offset: at + p,
                }))?;
                // Only elements that hold pointers matter here.
                let holds_pointers = matches!(
                    subtype,
                    TypeKind::Struct
                        | TypeKind::Pointer
                        | TypeKind::CString
                        | TypeKind::StringPtr
                        | TypeKind::Variant
                );
                if !holds_pointers || (subtype == TypeKind::Struct && class.is_none()) {
                    return Ok(());
                }
                let stride = self.layouts.element_size(subtype, class)?;
                let sec = &self.pf.sections[dst.section as usize];
                let left = u64::from(sec.local_fixups.saturating_sub(dst.offset));
                if u64::from(count) * u64::from(stride) > left {
                    return Err(crate::error::Error::invalid(
                        self.pf.abs(Loc {
                            section: self.sec,
                            offset: at + p,
                        }),
                        format!("array of {count} × {stride} bytes runs past its section"),
                    ));
                }
                for i in 0..count {
                    self.member(subtype, TypeKind::Void, class, dst.offset + i * stride)?;
                }
            }
            TypeKind::Struct => {
                if let Some(c) = class {
                    self.object(c, at)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
