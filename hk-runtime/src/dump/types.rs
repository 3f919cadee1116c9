//! A TAG0 file's own type table in its dump (`types`, docs/dump-format.md): every type in
//! the table's index order, with its template parameters, body record and hash, so that
//! `hk build` writes the file's type table back as it was (docs/tagfile-format.md §3).
//! Type references are indices into the list (1-based, 0 for none), as in the file.

use serde_json::{json, Map, Value as Json};

use super::spot::{bad, Checked, Node};
use crate::tagfile::types::{Body, Param, TagMember, TagType, TypeTable};

/// The types of `table` (its implicit null type 0 left out) as a JSON list.
pub fn types_json(table: &TypeTable) -> Json {
    let types = table.types.iter().enumerate().skip(1).map(|(i, t)| {
        let mut m = Map::new();
        m.insert("id".into(), json!(i));
        m.insert("name".into(), json!(t.name));
        if !t.params.is_empty() {
            let ps: Vec<_> = t
                .params
                .iter()
                .map(|p| json!({"name": p.name, "value": p.value}))
                .collect();
            m.insert("params".into(), json!(ps));
        }
        if let Some(b) = &t.body {
            m.insert("body".into(), body_json(b));
        }
        if let Some(h) = t.hash {
            m.insert("hash".into(), json!(h));
        }
        Json::Object(m)
    });
    Json::Array(types.collect())
}

/// A body record: `parent` always, every other field only when the record has it.
fn body_json(b: &Body) -> Json {
    let mut m = Map::new();
    m.insert("parent".into(), json!(b.parent));
    let mut put = |k: &str, v: Option<u64>| {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    };
    put("format", b.format);
    put("subtype", b.subtype);
    put("version", b.version);
    put("size", b.size_align.map(|s| s.0));
    put("align", b.size_align.map(|s| s.1));
    put("flags", b.flags);
    put("attribute", b.attribute);
    if let Some(ms) = &b.members {
        let ms: Vec<_> = ms
            .iter()
            .map(|x| {
                let mut o =
                    json!({"name": x.name, "flags": x.flags, "offset": x.offset, "type": x.ty});
                if let Some(e) = x.extra {
                    o["extra"] = json!(e);
                }
                o
            })
            .collect();
        m.insert("members".into(), json!(ms));
    }
    if let Some(is) = &b.interfaces {
        let is: Vec<_> = is
            .iter()
            .map(|(t, o)| json!({"type": t, "offset": o}))
            .collect();
        m.insert("interfaces".into(), json!(is));
    }
    Json::Object(m)
}

/// The type table a dump's `types` list describes. Each entry's `id` must be its place in
/// the list (from 1), and every type reference one of the listed types (or 0).
///
/// # Errors
/// A missing, unknown or mistyped key, an `id` out of place, or a reference to no type.
pub(crate) fn types_from(v: &Node<'_>) -> Checked<TypeTable> {
    let list = v.list()?;
    let n = list.len() as u64 + 1;
    let index = |x: &Node<'_>| -> Checked<u64> {
        let i = x.uint(64)?;
        if i >= n {
            return Err(x.fail(bad(format!(
                "type {i} is not listed (the table has types 1 to {})",
                n - 1
            ))));
        }
        Ok(i)
    };
    let mut types = vec![TagType::default()];
    for (k, t) in list.iter().enumerate() {
        t.keys(&["id", "name", "params", "body", "hash"])?;
        t.numbered(k, "type")?;
        let mut params = Vec::new();
        for p in t
            .opt("params")
            .map(|p| p.list())
            .transpose()?
            .unwrap_or_default()
        {
            p.keys(&["name", "value"])?;
            let name = p.get("name")?.str()?.to_string();
            let value = p.get("value")?;
            let value = match name.as_bytes().first() {
                Some(b't') => index(&value)?,
                Some(b'v') => value.uint(64)?,
                _ => return Err(p.get("name")?.fail(bad(param_kind(&name)))),
            };
            params.push(Param { name, value });
        }
        types.push(TagType {
            name: t.get("name")?.str()?.to_string(),
            params,
            body: t.opt("body").map(|b| body_from(&b, &index)).transpose()?,
            hash: t
                .opt("hash")
                .map(|h| h.uint(32))
                .transpose()?
                .map(|h| h as u32),
        });
    }
    Ok(TypeTable {
        types,
        ..TypeTable::default()
    })
}

/// Why a template parameter named `name` is refused.
fn param_kind(name: &str) -> String {
    format!("template parameter `{name}`: a name starts with `t` (a type) or `v` (a value)")
}

/// A body record.
fn body_from(b: &Node<'_>, index: &dyn Fn(&Node<'_>) -> Checked<u64>) -> Checked<Body> {
    b.keys(&[
        "parent",
        "format",
        "subtype",
        "version",
        "size",
        "align",
        "flags",
        "attribute",
        "members",
        "interfaces",
    ])?;
    let num = |k: &str| b.opt(k).map(|x| x.uint(64)).transpose();
    let size_align = match (b.opt("size"), b.opt("align")) {
        (Some(s), Some(a)) => Some((s.uint(64)?, a.uint(64)?)),
        (None, None) => None,
        _ => return Err(b.fail(bad("a body has both `size` and `align`, or neither"))),
    };
    let mut members = None;
    if let Some(ms) = b.opt("members") {
        let mut out = Vec::new();
        for m in ms.list()? {
            m.keys(&["name", "flags", "extra", "offset", "type"])?;
            let flags = m.get("flags")?.uint(64)?;
            let extra = m.opt("extra").map(|e| e.uint(64)).transpose()?;
            // The extra varint is there exactly when flag 0x80 says so (§3).
            if extra.is_some() != (flags & 0x80 != 0) {
                return Err(m.fail(bad("a member has `extra` exactly when its flags have 0x80")));
            }
            out.push(TagMember {
                name: m.get("name")?.str()?.to_string(),
                flags,
                extra,
                offset: m.get("offset")?.uint(64)?,
                ty: index(&m.get("type")?)?,
            });
        }
        members = Some(out);
    }
    let mut interfaces = None;
    if let Some(is) = b.opt("interfaces") {
        let mut out = Vec::new();
        for i in is.list()? {
            i.keys(&["type", "offset"])?;
            out.push((index(&i.get("type")?)?, i.get("offset")?.uint(64)?));
        }
        interfaces = Some(out);
    }
    Ok(Body {
        parent: index(&b.get("parent")?)?,
        format: num("format")?,
        subtype: b.opt("subtype").map(|s| index(&s)).transpose()?,
        version: num("version")?,
        size_align,
        flags: num("flags")?,
        members,
        interfaces,
        attribute: num("attribute")?,
    })
}
