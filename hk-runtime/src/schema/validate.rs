//! Cross-class checks of a schema, whatever it was read from (TOML, embedded tables,
//! a file's own metadata or type table).

use super::diagnostic::{Diagnostic, Diagnostics};
use super::{Member, Schema};
use crate::types::TypeKind;

/// Cross-class checks: parents, member classes and enums exist, no duplicates, no cycles.
pub(crate) fn validate(schema: &Schema, diags: &mut Diagnostics) {
    for c in schema.classes() {
        let member_diag = |m: &Member, key: &str, message: String| Diagnostic {
            file: c.origin.file.clone(),
            line: if m.line > 0 { m.line } else { c.origin.line },
            column: 0,
            key: format!("members.{}.{key}", m.name),
            message,
        };
        if let Some(p) = &c.parent {
            if schema.class(p).is_none() {
                diags.push(Diagnostic::at_origin(
                    &c.origin,
                    "parent",
                    format!("parent class `{p}` of `{}` is not in the schema", c.name),
                ));
            } else if schema.chain(&c.name).is_err() {
                diags.push(Diagnostic::at_origin(
                    &c.origin,
                    "parent",
                    format!("`{}` is its own ancestor (parent cycle)", c.name),
                ));
            }
        }
        for (i, m) in c.members.iter().enumerate() {
            if c.members[..i].iter().any(|o| o.name == m.name) {
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
                if schema.resolve_enum(&c.name, e).is_none() {
                    diags.push(member_diag(
                        m,
                        "enum",
                        format!("enum `{e}` is declared neither by `{}`, its ancestors, nor as `Class.Enum`", c.name),
                    ));
                }
            }
        }
        for (i, e) in c.enums.iter().enumerate() {
            if c.enums[..i].iter().any(|o| o.name == e.name) {
                diags.push(Diagnostic::at_origin(
                    &c.origin,
                    "enums",
                    format!("duplicate enum `{}`", e.name),
                ));
            }
        }
    }
    // Struct containment cycles make a class infinitely large.
    let mut clean = std::collections::HashSet::new();
    for c in schema
        .classes()
        .iter()
        .filter(|c| schema.chain(&c.name).is_ok())
    {
        if let Some(path) = struct_cycle(schema, &c.name, &mut Vec::new(), &mut clean) {
            if path.first() == Some(&c.name) {
                diags.push(Diagnostic::at_origin(
                    &c.origin,
                    "members",
                    format!("classes contain each other by value: {}", path.join(" -> ")),
                ));
            }
        }
    }
}

fn struct_cycle(
    schema: &Schema,
    name: &str,
    stack: &mut Vec<String>,
    clean: &mut std::collections::HashSet<String>,
) -> Option<Vec<String>> {
    if clean.contains(name) {
        return None;
    }
    if let Some(i) = stack.iter().position(|n| n == name) {
        let mut p = stack[i..].to_vec();
        p.push(name.to_string());
        return Some(p);
    }
    let c = schema.class(name)?;
    stack.push(name.to_string());
    let parent = c.parent.as_deref().filter(|_| schema.chain(name).is_ok());
    let next = parent.into_iter().chain(
        c.members
            .iter()
            .filter(|m| {
                m.ty == TypeKind::Struct
                    || (m.ty == TypeKind::Zero && m.subtype == TypeKind::Struct)
            })
            .filter_map(|m| m.class.as_deref()),
    );
    for n in next.collect::<Vec<_>>() {
        if let Some(p) = struct_cycle(schema, n, stack, clean) {
            stack.pop();
            return Some(p);
        }
    }
    stack.pop();
    clean.insert(name.to_string());
    None
}
