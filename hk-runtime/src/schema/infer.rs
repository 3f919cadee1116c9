//! Filling in what a class source leaves out, from the offsets and sizes it states:
//! interface counts and unreflected gaps. Used by `hk schema import` (public dumps) and by
//! schemas extracted from tagfile type tables.

use std::collections::HashMap;

use super::layout::Layouts;
use super::{Class, Generation, Schema};

/// Whether class `name`'s own start agrees with what the source states: its first member's
/// offset, or its size when it has no members.
fn start_agrees(layouts: &mut Layouts<'_>, c: &Class) -> bool {
    let Ok(l) = layouts.class(&c.name) else {
        return false;
    };
    match (c.members.first(), l.members.first()) {
        (Some(m), Some(ml)) => m.expected_offset.is_none_or(|o| o == ml.offset),
        _ => c.expected_size.is_none_or(|s| s == l.size),
    }
}

/// Sets interface counts: for each class, parents first, the smallest count (0 to 4) that
/// puts its first member (or its end) where the source states: the table slots come before
/// the first member, and sources that do not state interface counts get them inferred
/// (docs/layout-and-signatures.md §3 rule 2).
///
/// One schema is built and tuned in place; each attempt lays out only the class and what it
/// depends on.
pub fn interfaces(generation: &Generation, classes: &mut [Class]) -> Result<(), String> {
    let mut schema = build(generation, classes)?;
    for idx in topo(classes) {
        if start_agrees(
            &mut Layouts::new(&schema, generation.layout),
            &schema.classes()[idx],
        ) {
            continue;
        }
        let original = schema.classes()[idx].interfaces;
        let mut fixed = false;
        for i in (0..=4u32).filter(|&i| i != original) {
            schema.class_mut(idx).interfaces = i;
            if start_agrees(
                &mut Layouts::new(&schema, generation.layout),
                &schema.classes()[idx],
            ) {
                fixed = true;
                break;
            }
        }
        if !fixed {
            schema.class_mut(idx).interfaces = original;
        }
    }
    copy_back(&schema, classes);
    Ok(())
}

/// Where a stated offset lies past the end of the member before it, the source leaves out
/// members it does not reflect (hkpWorld's runtime state, for one): record the distance as
/// that member's `gap_before`, which moves the layout without entering the signature.
pub fn gaps(generation: &Generation, classes: &mut [Class]) -> Result<(), String> {
    let mut schema = build(generation, classes)?;
    let costs = chain_members(classes);
    let mut fuel = FUEL;
    for idx in topo(classes) {
        gaps_of(generation, &mut schema, idx, &mut fuel, costs[idx]);
    }
    copy_back(&schema, classes);
    Ok(())
}

fn build(generation: &Generation, classes: &[Class]) -> Result<Schema, String> {
    let schema = Schema::new(generation.to_owned(), classes.to_vec()).map_err(|d| d.to_string())?;
    if schema.classes().len() != classes.len() {
        return Err("classes repeat a name".into());
    }
    Ok(schema)
}

fn copy_back(schema: &Schema, classes: &mut [Class]) {
    for (c, tuned) in classes.iter_mut().zip(schema.classes()) {
        c.interfaces = tuned.interfaces;
        for (m, t) in c.members.iter_mut().zip(&tuned.members) {
            m.gap_before = t.gap_before;
        }
    }
}

/// The gaps of class `idx` alone; its parents are taken as they are. Each attempt lays the
/// class out again, which costs `cost` from `fuel`; without fuel the search stops.
fn gaps_of(generation: &Generation, schema: &mut Schema, idx: usize, fuel: &mut u64, cost: u64) {
    // One gap at a time: each insertion moves every later member.
    for _ in 0..schema.classes()[idx].members.len() {
        let Some(left) = fuel.checked_sub(cost) else {
            break;
        };
        *fuel = left;
        let name = schema.classes()[idx].name.clone();
        let Ok(layout) = Layouts::new(schema, generation.layout)
            .class(&name)
            .cloned()
        else {
            break;
        };
        let c = &schema.classes()[idx];
        let first_off = c
            .members
            .iter()
            .zip(&layout.members)
            .position(|(m, ml)| m.expected_offset.is_some_and(|o| o != ml.offset));
        let Some(k) = first_off else { break };
        let stated = c.members[k].expected_offset.unwrap_or(0);
        let computed = layout.members[k].offset;
        if stated < computed {
            break;
        }
        // Both offsets are aligned to the member, so the difference keeps it aligned.
        schema.class_mut(idx).members[k].gap_before += stated - computed;
    }
}

/// How many of class `idx`'s stated offsets and size the layout misses.
fn misses(generation: &Generation, schema: &Schema, idx: usize) -> usize {
    let c = &schema.classes()[idx];
    let Ok(l) = Layouts::new(schema, generation.layout)
        .class(&c.name)
        .cloned()
    else {
        return usize::MAX;
    };
    let offsets = c
        .members
        .iter()
        .zip(&l.members)
        .filter(|(m, ml)| m.expected_offset.is_some_and(|o| o != ml.offset))
        .count();
    offsets + usize::from(c.expected_size.is_some_and(|s| s != l.size))
}

/// Interface count and gaps together, class by class with parents first: for each class the
/// stated interface count and then 0 to 4 are tried, each with its gaps, and the first that
/// reproduces every stated offset and the size is kept (else the one that misses fewest).
/// Used for tagfile type tables, whose memberless bases (hkpShapeBase) make the two
/// separate passes pick an interface count that a gap should have explained.
pub fn fit(generation: &Generation, classes: &mut [Class]) -> Result<(), String> {
    let mut schema = build(generation, classes)?;
    let costs = chain_members(classes);
    let mut fuel = FUEL;
    for idx in topo(classes) {
        // Without the fuel for a search, the class stays as stated.
        let cost = costs[idx];
        if fuel < 2 * cost {
            break;
        }
        let original = schema.classes()[idx].clone();
        let mut best: Option<(usize, Class)> = None;
        let counts = std::iter::once(original.interfaces)
            .chain((0..=4).filter(|&i| i != original.interfaces));
        for i in counts {
            let c = schema.class_mut(idx);
            *c = original.clone();
            c.interfaces = i;
            gaps_of(generation, &mut schema, idx, &mut fuel, cost);
            fuel = fuel.saturating_sub(cost);
            let score = misses(generation, &schema, idx);
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, schema.classes()[idx].clone()));
            }
            if score == 0 {
                break;
            }
        }
        if let Some((_, c)) = best {
            *schema.class_mut(idx) = c;
        }
    }
    copy_back(&schema, classes);
    Ok(())
}

/// How much layout work the inference of one class set may do, in members laid out (a
/// table of thousands of classes of thousands of members each stated off its place would
/// otherwise take hours: each gap found lays the class out again). The corpus and sample
/// tables use at most 1,904 (122 classes); past it, the remaining classes stay as stated.
const FUEL: u64 = 1 << 20;

/// Per class, the members of it and its ancestors (what laying it out visits), plus one.
fn chain_members(classes: &[Class]) -> Vec<u64> {
    let index: HashMap<&str, usize> = classes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    walk_chains(classes, &index, |c, parent| {
        parent.unwrap_or(1).saturating_add(c.members.len() as u64)
    })
}

/// A value per class computed from its own class and its parent's value, parents first,
/// each chain walked once (a parent cycle gives the class on it `f(c, None)`).
fn walk_chains(
    classes: &[Class],
    index: &HashMap<&str, usize>,
    f: impl Fn(&Class, Option<u64>) -> u64,
) -> Vec<u64> {
    let mut out: Vec<Option<u64>> = vec![None; classes.len()];
    let mut on_path = vec![false; classes.len()];
    for start in 0..classes.len() {
        let mut path = Vec::new();
        let mut cur = Some(start);
        while let Some(i) = cur {
            if out[i].is_some() || on_path[i] {
                break;
            }
            on_path[i] = true;
            path.push(i);
            cur = classes[i]
                .parent
                .as_deref()
                .and_then(|p| index.get(p).copied());
        }
        for &i in path.iter().rev() {
            let parent = classes[i]
                .parent
                .as_deref()
                .and_then(|p| index.get(p))
                .and_then(|&p| out[p]);
            out[i] = Some(f(&classes[i], parent));
            on_path[i] = false;
        }
    }
    out.into_iter().map(Option::unwrap_or_default).collect()
}

/// Class indices with every parent before its children.
pub fn topo(classes: &[Class]) -> Vec<usize> {
    let index: HashMap<&str, usize> = classes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let depth = walk_chains(classes, &index, |_, parent| parent.map_or(0, |d| d + 1));
    let mut order: Vec<usize> = (0..classes.len()).collect();
    order.sort_by(|&a, &b| (depth[a], &classes[a].name).cmp(&(depth[b], &classes[b].name)));
    order
}
