//! Reports of a schema against stored values: class sizes, member offsets and signatures
//! that a file's metadata or the schema itself states.

use super::layout::Layouts;
use super::signature;
use super::Schema;

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

/// Checks the sizes and offsets `described` (a file's own metadata, see
/// `packfile::metadata::extract`) stores against `schema`'s layout under the file's rules.
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
        // Members by name, once per class (a class may have thousands).
        let mut mine: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (i, x) in schema
            .class(&c.name)
            .iter()
            .flat_map(|sc| sc.members.iter())
            .enumerate()
        {
            mine.entry(x.name.as_str()).or_insert(i);
        }
        for m in &c.members {
            let Some(stored) = m.expected_offset else {
                continue;
            };
            let got = computed.as_ref().and_then(|l| {
                mine.get(m.name.as_str())
                    .and_then(|&i| l.members.get(i))
                    .map(|ml| ml.offset)
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
