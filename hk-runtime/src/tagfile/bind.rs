//! Records of a type table bound to classes of a schema, once per (record type, class)
//! pair: which type-table member holds each of the class's flattened members
//! ([`Schema::members`]), matched by name. The reader and the writer both walk records
//! through these bindings, so neither searches members by name per object.
//!
//! Binding a record also checks its members against its size: each member lies inside the
//! record, takes at least one byte (unless it is `void`) and overlaps no other member. Every
//! corpus and sample record does (measured on the 6 corpus tagfiles and the 4 samples);
//! a table that breaks this could make one record's values nest into exponentially many.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use super::types::{kind, TypeTable};
use crate::schema::{ClassId, FlatMember, Schema, Shape};

/// One type-table member and the flattened schema member it holds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bound {
    /// Offset in the record.
    pub offset: u64,
    /// Its type index.
    pub ty: u64,
    /// Index in the class's flattened members.
    pub index: usize,
    /// How the reader takes the value when it is a plain leaf.
    pub leaf: Leaf,
}

/// A member whose type stores exactly its schema member's leaf value: the reader takes its
/// bytes without asking the table again. Anything else is [`Leaf::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// An integer of this width, sign-extended when signed.
    Int(u8, bool),
    /// A 4-byte float.
    Real,
    /// `n` consecutive floats.
    Floats(u8),
    /// Decoded by the general path.
    Other,
}

fn leaf_of(table: &TypeTable, t: u64, shape: &Shape) -> Leaf {
    match (table.kind_of(t), shape) {
        (kind::INT, Shape::Int { bytes, signed }) => match table.int_format(t) {
            Ok((w, s)) if w <= *bytes && s == *signed => Leaf::Int(w, s),
            _ => Leaf::Other,
        },
        (kind::INT, Shape::ULong) => match table.int_format(t) {
            Ok((w, false)) => Leaf::Int(w, false),
            _ => Leaf::Other,
        },
        (kind::FLOAT, Shape::Real) if table.size_of(t) == 4 => Leaf::Real,
        (kind::FLOAT | kind::TUPLE, Shape::Floats(n))
            if table.float_run(t) == Some(u64::from(*n)) =>
        {
            Leaf::Floats(*n)
        }
        _ => Leaf::Other,
    }
}

/// A record type bound to a class.
#[derive(Debug)]
pub(crate) struct Binding {
    /// The type-table members, in the table's order (parent chain, root first).
    pub members: Box<[Bound]>,
    /// The class's flattened members.
    pub shapes: Arc<[FlatMember]>,
    /// Flattened members no table member holds (each of them `void`).
    pub unbound: Box<[usize]>,
}

/// Bindings of one type table against one schema, kept between the files that share both
/// (the front door keeps one per schema it extracted from a table). Handing it to a read
/// of a file with another table or schema binds wrongly.
#[derive(Debug, Default)]
pub struct Bindings(RwLock<HashMap<(u64, ClassId), Arc<Binding>>>);

impl Bindings {
    fn get(&self, key: (u64, ClassId)) -> Option<Arc<Binding>> {
        let map = self.0.read().unwrap_or_else(PoisonError::into_inner);
        map.get(&key).cloned()
    }

    fn keep(&self, key: (u64, ClassId), b: &Arc<Binding>) {
        let mut map = self.0.write().unwrap_or_else(PoisonError::into_inner);
        map.insert(key, Arc::clone(b));
    }
}

/// Bindings of one table against one schema, computed on first use.
#[derive(Debug)]
pub(crate) struct Binder<'a> {
    table: &'a TypeTable,
    schema: &'a Schema,
    cache: HashMap<(u64, ClassId), Arc<Binding>>,
    shared: Option<&'a Bindings>,
}

impl<'a> Binder<'a> {
    /// Bindings of `table`'s records to `schema`'s classes.
    pub fn new(table: &'a TypeTable, schema: &'a Schema) -> Self {
        Binder {
            table,
            schema,
            cache: HashMap::default(),
            shared: None,
        }
    }

    /// As [`Binder::new`], taking and keeping bindings in `shared` (which must be of the
    /// same table and schema).
    pub fn with(table: &'a TypeTable, schema: &'a Schema, shared: &'a Bindings) -> Self {
        Binder {
            shared: Some(shared),
            ..Binder::new(table, schema)
        }
    }

    /// Record type `t` bound to class `c`.
    ///
    /// # Errors
    /// A member of one that the other lacks (a `void` schema member excepted), or a record
    /// whose members do not fit it (see the module notes). The message names both.
    pub fn bind(&mut self, t: u64, c: ClassId) -> Result<Arc<Binding>, String> {
        if let Some(b) = self.cache.get(&(t, c)) {
            return Ok(Arc::clone(b));
        }
        let known = self.shared.and_then(|s| s.get((t, c)));
        let b = match known {
            Some(b) => b,
            None => {
                let b = Arc::new(self.compute(t, c)?);
                if let Some(s) = self.shared {
                    s.keep((t, c), &b);
                }
                b
            }
        };
        self.cache.insert((t, c), Arc::clone(&b));
        Ok(b)
    }

    fn compute(&self, t: u64, c: ClassId) -> Result<Binding, String> {
        let (table, schema) = (self.table, self.schema);
        let tname = || table.full_name(t);
        let shapes = schema.members(c).map_err(|e| e.to_string())?;
        let members = table.members_of(t);
        check_fit(table, t, &members, 0)?;
        let mut by_name: HashMap<&str, VecDeque<usize>> = HashMap::default();
        for (k, m) in members.iter().enumerate() {
            by_name.entry(m.name.as_str()).or_default().push_back(k);
        }
        let mut index = vec![None; members.len()];
        let mut unbound = Vec::new();
        for (j, fm) in shapes.iter().enumerate() {
            let name = &schema.member_of(fm).name;
            match by_name.get_mut(name.as_str()).and_then(VecDeque::pop_front) {
                Some(k) => index[k] = Some(j),
                None if fm.shape == Shape::Void => unbound.push(j),
                None => {
                    return Err(format!(
                        "member `{name}` of class {} is not a member of type {} in the type table",
                        schema.name_of(fm.owner),
                        tname()
                    ))
                }
            }
        }
        let bound = members
            .iter()
            .zip(index)
            .map(|(m, j)| {
                let index = j.ok_or_else(|| {
                    format!(
                        "type {}'s member `{}` is not a member of class {}",
                        tname(),
                        m.name,
                        schema.name_of(c)
                    )
                })?;
                Ok(Bound {
                    offset: m.offset,
                    ty: m.ty,
                    index,
                    leaf: leaf_of(table, m.ty, &shapes[index].shape),
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Binding {
            members: bound,
            shapes,
            unbound: unbound.into(),
        })
    }
}

/// Members of record `t` lie inside it at or after `after`, take a byte or more (`void`
/// ones excepted) and do not overlap; bool and integer members are 1, 2, 4 or 8 bytes.
/// Returns where the last of them ends (`after` without members).
fn check_fit(
    table: &TypeTable,
    t: u64,
    members: &[&super::types::TagMember],
    after: u64,
) -> Result<u64, String> {
    let size = table.size_of(t);
    let mut spans = Vec::with_capacity(members.len());
    for m in members {
        match table.kind_of(m.ty) {
            kind::BOOL => {
                table.int_size(m.ty)?;
            }
            kind::INT => {
                table.int_format(m.ty)?;
            }
            _ => {}
        }
        let n = table.size_of(m.ty);
        if n == 0 && table.kind_of(m.ty) != kind::VOID {
            return Err(format!(
                "member `{}` of {} has a type of 0 bytes ({})",
                m.name,
                table.full_name(t),
                table.full_name(m.ty)
            ));
        }
        if m.offset < after {
            return Err(format!(
                "member `{}` of {} starts at {}, inside its parent's members (which end at {after})",
                m.name,
                table.full_name(t),
                m.offset
            ));
        }
        match m.offset.checked_add(n) {
            Some(end) if end <= size => spans.push((m.offset, end, m.name.as_str())),
            _ => {
                return Err(format!(
                    "member `{}` of {} ({n} bytes at {}) runs past its {size} bytes",
                    m.name,
                    table.full_name(t),
                    m.offset
                ))
            }
        }
    }
    let end = spans.iter().map(|s| s.1).max().unwrap_or(0).max(after);
    spans.retain(|s| s.0 < s.1);
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        return Err(format!(
            "members `{}` and `{}` of {} overlap",
            w[0].2,
            w[1].2,
            table.full_name(t)
        ));
    }
    Ok(end)
}

/// Where the members of record `t` and its ancestors end, each type's own members checked
/// once (see [`check_fit`]): they lie after the parent's, inside the type. Memoised in
/// `ends`, so a type with many subtypes has its members checked once, not once per subtype.
fn members_end(table: &TypeTable, t: u64, ends: &mut [Option<u64>]) -> Result<u64, String> {
    // The chain up to a type already checked, at most 64 levels (as every type query).
    let mut chain = Vec::new();
    let mut cur = t;
    for _ in 0..64 {
        if ends.get(cur as usize).is_none_or(|e| e.is_some()) {
            break;
        }
        let Some(b) = table.body_of(cur) else { break };
        chain.push(cur);
        if b.parent == 0 {
            break;
        }
        cur = b.parent;
    }
    for &x in chain.iter().rev() {
        let parent = table.body_of(x).map_or(0, |b| b.parent);
        let after = match parent {
            0 => 0,
            p => ends.get(p as usize).copied().flatten().unwrap_or(0),
        };
        let own: Vec<&super::types::TagMember> = table
            .body_of(x)
            .and_then(|b| b.members.as_ref())
            .map(|m| m.iter().collect())
            .unwrap_or_default();
        let end = if table.body_of(x).is_some_and(|b| b.members.is_some()) {
            let size = table.size_of(x);
            if after > size {
                return Err(format!(
                    "the members {} inherits end at {after}, past its {size} bytes",
                    table.full_name(x)
                ));
            }
            check_fit(table, x, &own, after)?
        } else {
            after
        };
        ends[x as usize] = Some(end);
    }
    Ok(ends.get(t as usize).copied().flatten().unwrap_or(0))
}

/// The records of `table` whose members do not fit them (past the record, overlapping,
/// or inside their parent's members), and those whose parent is such a record: what
/// [`check_records`] refuses first, all of them (`hk schema import` leaves them out of a
/// dump's schema).
pub(crate) fn misfit_records(table: &TypeTable) -> Vec<u64> {
    let n = table.types.len();
    let mut ends = vec![None; n];
    (1..n as u64)
        .filter(|&t| {
            table.body_of(t).is_some_and(|b| b.members.is_some())
                && members_end(table, t, &mut ends).is_err()
        })
        .collect()
}

/// Every record of `table` (a type with members) fits its members (see [`Binder::bind`]),
/// every tuple its elements; no type states a size a TAG0 section could not hold; records
/// and tuples nest inside each other at most [`super::types::MAX_DEPTH`] deep (a record that
/// holds itself nests forever). Checked before a schema is extracted from the table, whose
/// layout engine follows the same nesting.
///
/// # Errors
/// The first record that breaks either rule.
pub(crate) fn check_records(table: &TypeTable) -> Result<(), String> {
    let n = table.types.len();
    for t in 1..n as u64 {
        let size = table.size_of(t);
        if size >= super::tables::MAX_DATA {
            return Err(format!(
                "{} states {size} bytes, more than a TAG0 section holds",
                table.full_name(t)
            ));
        }
        let k = table.kind_of(t);
        // Tuples hold their elements; schemas hold C arrays (tuples, opaque bytes) of at
        // most 65535 elements.
        let count = match k {
            kind::TUPLE => table.tuple_count(t),
            kind::OPAQUE => size,
            _ => 0,
        };
        let elem = table.size_of(table.subtype_of(t));
        if count > u64::from(u16::MAX) || k == kind::TUPLE && count.saturating_mul(elem) > size {
            return Err(format!(
                "{} holds {count} elements ({size} bytes), which do not fit it or a schema",
                table.full_name(t)
            ));
        }
    }
    // Each type's own members, once (a type with thousands of subtypes is not checked
    // again for each).
    let mut ends = vec![None; n];
    for t in 1..n as u64 {
        if table.body_of(t).is_some_and(|b| b.members.is_some()) {
            members_end(table, t, &mut ends)?;
        }
    }
    // Inline nesting depth of each type, computed once (0 = not yet, u32::MAX = on the
    // current path).
    let mut memo = Nesting {
        depth: vec![0u32; n],
        inherited: vec![None; n],
    };
    for t in 1..n as u64 {
        nesting(table, t, &mut memo, 0)?;
    }
    Ok(())
}

/// What [`nesting`] has found: each type's depth (0 = not yet, `u32::MAX` = on the current
/// path), and for records the deepest member of the type and its ancestors.
struct Nesting {
    depth: Vec<u32>,
    inherited: Vec<Option<u32>>,
}

fn nesting(table: &TypeTable, t: u64, memo: &mut Nesting, level: usize) -> Result<u32, String> {
    let Some(&known) = memo.depth.get(t as usize) else {
        return Ok(1);
    };
    if known == u32::MAX || level > super::types::MAX_DEPTH {
        return Err(format!(
            "{} nests records and tuples deeper than {} levels",
            table.full_name(t),
            super::types::MAX_DEPTH
        ));
    }
    if known != 0 {
        return Ok(known);
    }
    memo.depth[t as usize] = u32::MAX;
    let d = match table.kind_of(t) {
        kind::RECORD => 1 + record_nesting(table, t, memo, level)?,
        kind::TUPLE => 1 + nesting(table, table.subtype_of(t), memo, level + 1)?,
        _ => 1,
    };
    memo.depth[t as usize] = d;
    Ok(d)
}

/// The deepest [`nesting`] of the members of record `t` and its ancestors (0 without
/// members), each type's own members followed once: the parent chain (at most 64 levels,
/// as every type query) is walked in a loop, and what a parent holds is kept for its other
/// subtypes.
fn record_nesting(
    table: &TypeTable,
    t: u64,
    memo: &mut Nesting,
    level: usize,
) -> Result<u32, String> {
    let mut chain = Vec::new();
    let mut cur = t;
    for _ in 0..64 {
        if memo.inherited.get(cur as usize).is_none_or(|e| e.is_some()) {
            break;
        }
        let Some(b) = table.body_of(cur) else { break };
        chain.push(cur);
        if b.parent == 0 {
            break;
        }
        cur = b.parent;
    }
    for &x in chain.iter().rev() {
        let Some(b) = table.body_of(x) else { continue };
        let mut d = match b.parent {
            0 => 0,
            p => memo
                .inherited
                .get(p as usize)
                .copied()
                .flatten()
                .unwrap_or(0),
        };
        for m in b.members.iter().flatten() {
            d = d.max(nesting(table, m.ty, memo, level + 1)?);
        }
        memo.inherited[x as usize] = Some(d);
    }
    Ok(memo
        .inherited
        .get(t as usize)
        .copied()
        .flatten()
        .unwrap_or(0))
}
