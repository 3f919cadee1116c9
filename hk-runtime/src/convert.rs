//! Platform conversion: a document written back under other layout rules (pointer size,
//! byte order, reuse padding, empty base). It goes through the graph and the schema: the
//! writer lays every object out again for the target rules, so nothing is patched in place
//! (docs/packfile-format.md §2.2 for the layout bytes, docs/layout-and-signatures.md §1 for
//! what each rule moves).

use std::collections::HashSet;
use std::sync::Arc;

use crate::error::{Error, Result, WriteError};
use crate::file::{self, Document, Origin};
use crate::graph::{Graph, Value};
use crate::rules::LayoutRules;
use crate::schema::layout::Layouts;
use crate::schema::{ClassId, Schema, Shape};

/// Rewrites `doc` for the layout rules `to` and returns the bytes.
///
/// Byte order moves no offset, so a change of byte order alone always converts. Any other
/// change needs every class the objects use (their parents, and the struct classes of
/// their members) to be laid out from its members alone: a class whose signature is
/// pinned, or whose reflection leaves bytes undescribed, is known for the rules it was
/// measured under only, and is refused by name.
///
/// # Errors
/// A tagfile or an old binary tagfile (neither has a platform layout), a class that cannot be laid out for `to`, or a
/// value the writer refuses.
pub fn convert(doc: &mut Document, to: LayoutRules) -> Result<Vec<u8>> {
    let info = match &mut doc.origin {
        Origin::Packfile(info) => info,
        Origin::Tagfile { .. } => {
            return Err(Error::write(WriteError::Invalid(
                "tagfiles have one layout (little endian, item-indexed pointers): only packfiles convert between platforms".into(),
            )))
        }
        Origin::BinaryTagfile(_) => {
            return Err(Error::write(WriteError::Invalid(
                "an old binary tagfile stores values, not a memory layout: only packfiles convert between platforms".into(),
            )))
        }
    };
    let from = info.layout;
    if from.index() != to.index() {
        // Class metadata (hkClass objects in `__types__`) states member offsets and sizes
        // for the file's own rules; written under others they would be wrong.
        let types = info.sections.iter().position(|s| s == "__types__");
        let described = info
            .object_sections
            .iter()
            .filter(|&&s| Some(s as usize) == types)
            .count();
        if described > 0 {
            return Err(Error::write(WriteError::LayoutUnknown {
                class: "hkClass".into(),
                target: to.to_string(),
                why: format!(
                    "the file carries its own class metadata ({described} objects in `__types__`) whose member offsets and sizes are for {from}; hk does not rewrite them (only the byte order of such a file converts)"
                ),
            }));
        }
        let schema = doc.graph.schema();
        let mut seen = HashSet::new();
        let mut used: Vec<ClassId> = doc.graph.objects.iter().map(|o| o.class).collect();
        used.sort_unstable_by_key(|c| c.0);
        used.dedup();
        for c in used {
            fixed_layout(schema, c, &mut seen).map_err(|(class, why)| {
                Error::write(WriteError::LayoutUnknown {
                    class,
                    target: to.to_string(),
                    why,
                })
            })?;
        }
    }
    // hkClass objects among the data (those homogeneous arrays point to) state offsets and
    // sizes too: rewritten for `to`, and put back once the file is written.
    let saved = if from.index() != to.index() {
        relayout_classes(&mut doc.graph, from, to)?
    } else {
        Vec::new()
    };
    info.layout = to;
    let out = file::write(doc);
    if let Origin::Packfile(info) = &mut doc.origin {
        info.layout = from;
    }
    for (id, values) in saved {
        doc.graph.objects[id].values = values;
    }
    out
}

/// Rewrites every hkClass object of `graph` for layout rules `to`: its `objectSize` and
/// the `offset` of each of its `declaredMembers`, each checked first against what the
/// schema computes for the class it names under `from` (docs/conversion.md). Returns the
/// objects' old values, by index.
fn relayout_classes(
    graph: &mut Graph,
    from: LayoutRules,
    to: LayoutRules,
) -> Result<Vec<(usize, Vec<Value>)>> {
    let schema = Arc::clone(graph.schema());
    let Some(hk_class) = schema.class_id("hkClass") else {
        return Ok(Vec::new());
    };
    let index = |c: ClassId, name: &str| -> Result<usize> {
        schema
            .members(c)?
            .iter()
            .position(|m| schema.member_of(m).name == name)
            .ok_or_else(|| Error::schema(format!("`{}` has no member `{name}`", schema.name_of(c))))
    };
    let (name_i, size_i, members_i) = (
        index(hk_class, "name")?,
        index(hk_class, "objectSize")?,
        index(hk_class, "declaredMembers")?,
    );
    let hk_member = schema.require("hkClassMember")?;
    let (mname_i, offset_i) = (index(hk_member, "name")?, index(hk_member, "offset")?);
    let (mut before, mut after) = (Layouts::new(&schema, from), Layouts::new(&schema, to));
    let mut updates = Vec::new();
    for (id, o) in graph.objects.iter().enumerate() {
        if o.class != hk_class {
            continue;
        }
        let refuse = |class: &str, why: String| {
            Error::write(WriteError::LayoutUnknown {
                class: class.to_string(),
                target: to.to_string(),
                why,
            })
        };
        let name = o.values[name_i]
            .as_str()
            .ok_or_else(|| refuse("hkClass", format!("hkClass object #{id} has no name")))?
            .to_string();
        let (old, new) = match (before.class(&name), after.class(&name)) {
            (Ok(a), Ok(b)) => (a.clone(), b.clone()),
            (Err(e), _) | (_, Err(e)) => return Err(refuse(&name, e.to_string())),
        };
        let own = &schema.class_by_id(schema.require(&name)?).members;
        let mut values = o.values.clone();
        let stale = |what: String| {
            refuse(
                &name,
                format!("hkClass object #{id} states {what}, which is not the schema's layout for {from}"),
            )
        };
        if values[size_i].as_u64() != Some(u64::from(old.size)) {
            return Err(stale(format!("objectSize {:?}", values[size_i])));
        }
        values[size_i] = Value::Int(i64::from(new.size));
        let Some(decl) = values[members_i].as_values_mut() else {
            return Err(stale("declaredMembers that are not a list".into()));
        };
        for m in decl.iter_mut() {
            let Some(fields) = m.as_values_mut() else {
                return Err(stale("a declared member that is not a struct".into()));
            };
            let mname = fields[mname_i].as_str().unwrap_or_default().to_string();
            let k = own
                .iter()
                .position(|x| x.name == mname)
                .ok_or_else(|| stale(format!("a member `{mname}` the schema's class lacks")))?;
            if fields[offset_i].as_u64() != Some(u64::from(old.members[k].offset)) {
                return Err(stale(format!(
                    "offset {:?} for `{mname}`",
                    fields[offset_i]
                )));
            }
            fields[offset_i] = Value::UInt(u64::from(new.members[k].offset));
        }
        updates.push((id, values));
    }
    // Only once every object checks out: an error leaves the graph as it was.
    Ok(updates
        .into_iter()
        .map(|(id, values)| (id, std::mem::replace(&mut graph.objects[id].values, values)))
        .collect())
}

/// Checks class `id`, its ancestors and the struct classes of its members (each once):
/// `Err((class, why))` for the first one laid out for one set of rules only.
fn fixed_layout(
    schema: &Schema,
    id: ClassId,
    seen: &mut HashSet<u32>,
) -> std::result::Result<(), (String, String)> {
    if !seen.insert(id.0) {
        return Ok(());
    }
    let members = schema
        .members(id)
        .map_err(|e| (schema.name_of(id).to_string(), e.to_string()))?;
    let mut owners: Vec<ClassId> = members.iter().map(|m| m.owner).collect();
    owners.push(id);
    owners.dedup_by_key(|c| c.0);
    for owner in owners {
        let class = schema.class_by_id(owner);
        if let Some(p) = &class.pinned {
            return Err((
                class.name.clone(),
                format!(
                    "its signature is pinned (0x{:08X}), so its members are not known exactly: {}",
                    p.signature, p.reason
                ),
            ));
        }
        if let Some(m) = class.members.iter().find(|m| m.gap_before > 0) {
            return Err((
                class.name.clone(),
                format!(
                    "{} bytes before member `{}` are not described by its reflection, so their size under other rules is unknown",
                    m.gap_before, m.name
                ),
            ));
        }
    }
    for m in members.iter() {
        if let Some(s) = struct_of(&m.shape) {
            fixed_layout(schema, s, seen)?;
        }
    }
    Ok(())
}

/// The struct class a shape holds by value (directly or as array elements).
fn struct_of(shape: &Shape) -> Option<ClassId> {
    match shape {
        Shape::Struct(c) => Some(*c),
        Shape::Array(_, e) | Shape::CArray(_, e) => struct_of(e),
        _ => None,
    }
}
