//! Comparing a schema with a packfile: stored signatures, stored metadata offsets and sizes,
//! and the pointer slots the file's fixups imply.

use std::collections::{BTreeSet, HashMap};

use super::{Loc, Packfile};
use crate::error::Result;
use crate::schema::layout::{align_up, Layouts};
use crate::schema::report::{LayoutRow, SignatureRow, Verdict};
use crate::schema::signature::{self, SignatureSource};
use crate::schema::Schema;
use crate::types::TypeKind;

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
    /// Objects whose body, at the size the layout gives their class and padded to 16, ends
    /// exactly where their first owned data (array elements, strings) starts, of those that
    /// own data (docs/packfile-format.md §8). A miss means the schema's size of that class
    /// is wrong for this file.
    pub bodies_ok: usize,
    /// Objects that own data.
    pub bodies: usize,
    /// The objects whose body does not end where their data starts.
    pub body_misses: Vec<BodyMiss>,
}

/// An object whose computed body does not end where its owned data starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyMiss {
    /// Its offset in `__data__`.
    pub offset: u32,
    /// Its class.
    pub class: String,
    /// The class size the layout gives.
    pub size: u32,
    /// Where the body ends, padded to 16 (section offset).
    pub body_end: u32,
    /// Where its first owned data starts (section offset).
    pub data_start: u32,
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
                .class(cn.name)
                .and_then(|_| signature::signature(schema, cn.name).ok());
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
                class: cn.name.to_string(),
                stored: cn.signature,
                computed,
                pinned,
                verdict,
            }
        })
        .collect()
}

/// Walks every object of the `__data__` section with `schema`'s layouts and compares the
/// pointer slots it predicts with the fixup sources the file has. docs/packfile-format.md
/// §7.1 and §8: every fixup source lies on a pointer member of its object's class or of an
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
        .iter()
        .filter(|(l, _)| l.section == sec)
        .map(|(l, _)| l.offset)
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
            } else {
                out.body_misses.push(BodyMiss {
                    offset: *start,
                    class: class.clone(),
                    size,
                    body_end,
                    data_start: first,
                });
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
                self.homogeneous(at)?;
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

    /// The elements of the homogeneous array at `at` (docs/packfile-format.md §7.8):
    /// structs of the class named by the hkClass object its class slot points to. Nothing
    /// when that class is not in the schema (its fixups then show as strays).
    fn homogeneous(&mut self, at: u32) -> Result<()> {
        let p = self.pf.rules().ptr();
        let slot = |offset| Loc {
            section: self.sec,
            offset,
        };
        let (Some(class), Some(dst)) = (self.pf.resolve(slot(at)), self.pf.resolve(slot(at + p)))
        else {
            return Ok(());
        };
        let name_at = self
            .layouts
            .flattened("hkClass")?
            .iter()
            .find(|(_, m, _)| m.name == "name")
            .map(|(_, _, l)| l.offset);
        let Some(text) = name_at.and_then(|o| self.pf.resolve(class.plus(o))) else {
            return Ok(());
        };
        let name = self.pf.bytes().cstr(self.pf.abs(text))?.to_string();
        if self.layouts.schema().class(&name).is_none() {
            return Ok(());
        }
        let count = self.pf.bytes().u32(self.pf.abs(slot(at + 2 * p)))?;
        let stride = self.layouts.class(&name)?.size;
        let sec = &self.pf.sections[dst.section as usize];
        let left = u64::from(sec.local_fixups.saturating_sub(dst.offset));
        if u64::from(count) * u64::from(stride.max(1)) > left {
            return Err(crate::error::Error::invalid(
                self.pf.abs(slot(at + 2 * p)),
                format!("homogeneous array of {count} × {stride} bytes runs past its section"),
            ));
        }
        for i in 0..count {
            self.object(&name, dst.offset + i * stride)?;
        }
        Ok(())
    }
}

/// Fixups whose source lies in an object's body, against the pointer slots `schema` lays
/// out there: `(off, total)`, how many of the `total` land on no pointer, string, variant
/// or array-header slot of the body (docs/packfile-format.md §9). Array elements are left
/// out (reading them needs the headers, which a foreign layout garbles). One pass over the
/// objects and the fixups, both sorted by location; each class's slots found once.
pub fn body_fixups(schema: &Schema, pf: &Packfile<'_>) -> (u64, u64) {
    let rules = pf.rules();
    let mut slots: HashMap<u32, Option<(u32, Vec<u32>)>> = HashMap::new();
    let ptrs = pf.pointers();
    let (mut off, mut total, mut p) = (0u64, 0u64, 0usize);
    for &(loc, name) in pf.object_table() {
        let Some(cn) = pf.class_names.get(name as usize) else {
            continue;
        };
        let body = slots.entry(name).or_insert_with(|| {
            let id = schema.class_id(cn.name)?;
            let plan = schema.plan(id, rules).ok()?;
            let mut v = Vec::new();
            plan_slots(schema, &plan.members, rules, 0, &mut v, 0);
            v.sort_unstable();
            Some((plan.size, v))
        });
        let Some((size, body)) = body else {
            continue;
        };
        let end = Loc {
            section: loc.section,
            offset: loc.offset.saturating_add(*size),
        };
        while p < ptrs.len() && ptrs[p].0 < loc {
            p += 1;
        }
        while p < ptrs.len() && ptrs[p].0 < end {
            total += 1;
            if body
                .binary_search(&(ptrs[p].0.offset - loc.offset))
                .is_err()
            {
                off += 1;
            }
            p += 1;
        }
    }
    (off, total)
}

/// The offsets (from `base`) of the slots fixups name among `members`: pointers, strings,
/// a variant's two words, an array header's data pointer, inside structs and C arrays.
fn plan_slots(
    schema: &Schema,
    members: &[crate::schema::MemberPlan],
    rules: crate::rules::LayoutRules,
    base: u32,
    out: &mut Vec<u32>,
    depth: usize,
) {
    for m in members {
        op_slots(schema, &m.op, rules, base + m.offset, out, depth);
    }
}

fn op_slots(
    schema: &Schema,
    op: &crate::schema::Op,
    rules: crate::rules::LayoutRules,
    at: u32,
    out: &mut Vec<u32>,
    depth: usize,
) {
    use crate::schema::{ArrayKind, Op};
    if depth > crate::schema::plan::MAX_PLAN_NESTING {
        return;
    }
    match op {
        Op::Pointer | Op::String => out.push(at),
        Op::Variant => out.extend([at, at + u32::from(rules.pointer_size)]),
        Op::Array(ArrayKind::Array | ArrayKind::Simple, _) => out.push(at),
        Op::Struct(c) => {
            if let Ok(p) = schema.plan(*c, rules) {
                plan_slots(schema, &p.members, rules, at, out, depth + 1);
            }
        }
        Op::CArray(n, e) => {
            for i in 0..u32::from(*n) {
                op_slots(schema, &e.op, rules, at + i * e.stride, out, depth + 1);
            }
        }
        _ => {}
    }
}
