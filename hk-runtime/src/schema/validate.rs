//! Cross-class checks of a schema, whatever it was read from (TOML, embedded tables,
//! a file's own metadata or type table).
//!
//! Schemas come from files too (a packfile's own class metadata, a tagfile's type table),
//! so every check is linear in the classes and members: parent chains are resolved once
//! for all classes, containment is one depth-first walk, and member names are checked with
//! a set. A chain of ten thousand classes loads as fast as ten thousand unrelated ones.

use std::collections::HashSet;

use super::diagnostic::{Diagnostic, Diagnostics};
use super::{Member, Schema};
use crate::types::TypeKind;

/// How deep classes may contain each other by value (struct members of struct members, ...):
/// what the layout engine, plans and signatures follow by recursion.
pub const MAX_NESTING: usize = 64;

/// Where a class's parent chain leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chain {
    /// Not resolved yet.
    Unknown,
    /// On the path being resolved.
    Visiting,
    /// To a root class.
    Ok,
    /// To a missing class.
    Missing,
    /// The class is on a parent cycle.
    Cycle,
    /// Into a parent cycle it is not on.
    IntoCycle,
}

/// Every class's [`Chain`], each class visited once.
fn chains(schema: &Schema) -> Vec<Chain> {
    let classes = schema.classes();
    let index = |name: &str| schema.by_name.get(name).copied();
    let mut state = vec![Chain::Unknown; classes.len()];
    let mut path = Vec::new();
    for start in 0..classes.len() {
        let mut cur = Some(start);
        path.clear();
        // Walk up to a class already resolved, a missing parent, or one on this path.
        let end = loop {
            let Some(i) = cur else { break Chain::Ok };
            match state[i] {
                Chain::Unknown => {
                    state[i] = Chain::Visiting;
                    path.push(i);
                    cur = match classes[i].parent.as_deref() {
                        None => None,
                        Some(p) => match index(p) {
                            Some(j) => Some(j),
                            None => break Chain::Missing,
                        },
                    };
                }
                Chain::Visiting => {
                    // `i` starts a cycle: it and the classes after it on the path are on it.
                    let at = path.iter().position(|&k| k == i).unwrap_or(0);
                    for &k in &path[at..] {
                        state[k] = Chain::Cycle;
                    }
                    path.truncate(at);
                    break Chain::IntoCycle;
                }
                Chain::Cycle | Chain::IntoCycle => break Chain::IntoCycle,
                s => break s,
            }
        };
        for &k in &path {
            state[k] = end;
        }
    }
    state
}

/// Cross-class checks: names follow their rules ([`super::names`]), parents, member classes
/// and enums exist, no duplicates, no cycles, no containment deeper than [`MAX_NESTING`].
pub(crate) fn validate(schema: &Schema, diags: &mut Diagnostics) {
    super::names::validate(schema, diags);
    let chain = chains(schema);
    let mut names = HashSet::new();
    for (ci, c) in schema.classes().iter().enumerate() {
        let member_diag = |m: &Member, key: &str, message: String| Diagnostic {
            file: c.origin.file.clone(),
            line: if m.line > 0 { m.line } else { c.origin.line },
            column: 0,
            key: format!("members.{}.{key}", m.name),
            message,
        };
        if let Some(p) = &c.parent {
            let message = if schema.class(p).is_none() {
                Some(format!(
                    "parent class `{p}` of `{}` is not in the schema",
                    c.name
                ))
            } else {
                match chain[ci] {
                    Chain::Cycle => {
                        Some(format!("`{}` is its own ancestor (parent cycle)", c.name))
                    }
                    Chain::IntoCycle => Some(format!(
                        "the parent chain of `{}` runs into a parent cycle",
                        c.name
                    )),
                    _ => None,
                }
            };
            if let Some(message) = message {
                diags.push(Diagnostic::at_origin(&c.origin, "parent", message));
            }
        }
        names.clear();
        for m in &c.members {
            if !names.insert(m.name.as_str()) {
                diags.push(member_diag(
                    m,
                    "name",
                    format!("duplicate member `{}` in `{}`", m.name, c.name),
                ));
            }
            let wants_class = m.ty == TypeKind::Struct || m.subtype == TypeKind::Struct;
            match &m.class {
                Some(cl) if schema.class(cl).is_none() => diags.push(member_diag(
                    m,
                    "class",
                    format!("class `{cl}` is not in the schema"),
                )),
                None if wants_class
                    && m.ty != TypeKind::Pointer
                    && m.subtype != TypeKind::Pointer =>
                {
                    diags.push(member_diag(
                        m,
                        "class",
                        "a struct member must name its class".into(),
                    ))
                }
                _ => {}
            }
            if let Some(e) = &m.enum_ref {
                let found = c.enums.iter().any(|x| &x.name == e)
                    || chain[ci] == Chain::Ok && schema.resolve_enum(&c.name, e).is_some();
                if !found {
                    diags.push(member_diag(
                        m,
                        "enum",
                        format!("enum `{e}` is declared neither by `{}`, its ancestors, nor as `Class.Enum`", c.name),
                    ));
                }
            }
        }
        names.clear();
        for e in &c.enums {
            if !names.insert(e.name.as_str()) {
                diags.push(Diagnostic::at_origin(
                    &c.origin,
                    "enums",
                    format!("duplicate enum `{}`", e.name),
                ));
            }
        }
    }
    containment(schema, &chain, diags);
}

/// The classes a class holds by value: its struct members' classes (present ones).
fn held(schema: &Schema, i: usize) -> impl Iterator<Item = usize> + '_ {
    schema.classes()[i]
        .members
        .iter()
        .filter(|m| {
            m.ty == TypeKind::Struct || (m.ty == TypeKind::Zero && m.subtype == TypeKind::Struct)
        })
        .filter_map(|m| m.class.as_deref())
        .filter_map(|n| schema.by_name.get(n).copied())
}

/// Classes that contain each other by value (through struct members, their own or an
/// ancestor's) make a class infinitely large; containment deeper than [`MAX_NESTING`] is
/// refused too. One depth-first walk over every class whose parent chain is sound.
fn containment(schema: &Schema, chain: &[Chain], diags: &mut Diagnostics) {
    const WHITE: u32 = u32::MAX;
    const GRAY: u32 = u32::MAX - 1;
    let classes = schema.classes();
    let n = classes.len();
    // Per class: WHITE, GRAY (on the walk's stack), or its nesting depth (0: holds nothing
    // by value, 1: holds classes of depth 0, ...). A class's depth covers its ancestors'.
    let mut depth = vec![WHITE; n];
    let succ = |i: usize| -> Vec<usize> {
        let parent = classes[i]
            .parent
            .as_deref()
            .and_then(|p| schema.by_name.get(p).copied());
        parent.into_iter().chain(held(schema, i)).collect()
    };
    for start in (0..n).filter(|&i| chain[i] == Chain::Ok) {
        if depth[start] != WHITE {
            continue;
        }
        // (class, its successors, next successor, depth so far)
        let mut stack: Vec<(usize, Vec<usize>, usize, u32)> = vec![(start, succ(start), 0, 0)];
        depth[start] = GRAY;
        while let Some(top) = stack.last_mut() {
            let (i, next) = (top.0, top.1.get(top.2).copied());
            top.2 += 1;
            let Some(j) = next else {
                let d = top.3;
                depth[i] = d;
                stack.pop();
                if d as usize > MAX_NESTING {
                    let c = &classes[i];
                    diags.push(Diagnostic::at_origin(
                        &c.origin,
                        "members",
                        format!(
                            "`{}` holds classes by value more than {MAX_NESTING} levels deep",
                            c.name
                        ),
                    ));
                    // Reported once: the classes that hold it are not reported again.
                    depth[i] = 0;
                }
                if let Some(up) = stack.last_mut() {
                    let is_parent = classes[up.0].parent.as_deref() == Some(&classes[i].name);
                    let through = if is_parent { depth[i] } else { depth[i] + 1 };
                    up.3 = up.3.max(through);
                }
                continue;
            };
            if chain[j] != Chain::Ok {
                continue;
            }
            match depth[j] {
                WHITE => {
                    depth[j] = GRAY;
                    stack.push((j, succ(j), 0, 0));
                }
                GRAY => {
                    // A cycle: from `j` on the stack to `i`, then `j` again.
                    let at = stack.iter().position(|s| s.0 == j).unwrap_or(0);
                    let mut path: Vec<&str> = stack[at..]
                        .iter()
                        .map(|s| classes[s.0].name.as_str())
                        .collect();
                    path.push(&classes[j].name);
                    let c = &classes[j];
                    diags.push(Diagnostic::at_origin(
                        &c.origin,
                        "members",
                        format!("classes contain each other by value: {}", path.join(" -> ")),
                    ));
                }
                d => {
                    let is_parent = classes[i].parent.as_deref() == Some(&classes[j].name);
                    let through = if is_parent { d } else { d + 1 };
                    let top = stack.last_mut().expect("the walk's top");
                    top.3 = top.3.max(through);
                }
            }
        }
    }
}
