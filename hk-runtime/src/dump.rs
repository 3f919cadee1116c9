//! The object graph as JSON (and TOML): what `hk dump` prints and `hk build` reads.
//!
//! Values are written naturally (numbers, strings, arrays, tables, member names as keys);
//! reading them back goes through the schema's member types, so a dump of any file builds
//! the same bytes. Non-finite floats are strings holding their bits (`"f32:0x7FC00000"`),
//! pointers are object ids (or `{"object": id, "path": "members[2]"}` into owned data),
//! null stays null in JSON and becomes `{}` in TOML, which has no null.

use serde_json::{json, Map, Value as Json};

use crate::error::{Error, Result};
use crate::graph::{Field, FileInfo, Graph, Object, ObjectId, Ptr, Seg, Value};
use crate::layout::{Endian, LayoutRules, Layouts};
use crate::schema::Schema;
use crate::types::TypeKind;

/// Format version of the dump.
pub const DUMP_VERSION: u64 = 1;

fn f32_json(f: f32) -> Json {
    if f.is_finite() {
        json!(f64::from(f))
    } else {
        json!(format!("f32:0x{:08X}", f.to_bits()))
    }
}

fn json_f32(v: &Json) -> Option<f32> {
    match v {
        Json::Number(n) => n.as_f64().map(|f| f as f32),
        Json::String(s) => s
            .strip_prefix("f32:0x")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .map(f32::from_bits),
        _ => None,
    }
}

fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Field(n) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(n);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Parses a member path such as `bones[2].name`.
pub fn parse_member_path(text: &str) -> Option<Vec<Seg>> {
    parse_path(text)
}

fn parse_path(text: &str) -> Option<Vec<Seg>> {
    let mut out = Vec::new();
    for part in text.split('.') {
        let (name, rest) = part.split_once('[').map_or((part, ""), |(n, r)| (n, r));
        if !name.is_empty() {
            out.push(Seg::Field(name.to_string()));
        }
        for idx in rest.split('[').filter(|x| !x.is_empty()) {
            out.push(Seg::Index(idx.trim_end_matches(']').parse().ok()?));
        }
    }
    Some(out)
}

fn ptr_json(p: &Option<Ptr>) -> Json {
    match p {
        None => Json::Null,
        Some(Ptr::Object(id)) => json!(id.0),
        Some(Ptr::Into { object, path }) => json!({"object": object.0, "path": path_text(path)}),
        Some(Ptr::Import(name)) => json!({"import": name}),
    }
}

fn value_json(v: &Value) -> Json {
    match v {
        Value::Bool(b) if *b <= 1 => json!(*b == 1),
        Value::Bool(b) => json!(*b),
        Value::Int(i) => json!(i),
        Value::UInt(u) => json!(u),
        Value::Real(f) => f32_json(*f),
        Value::Half(h) => {
            let f = f32::from_bits(u32::from(*h) << 16);
            if f.is_finite() {
                json!(f64::from(f))
            } else {
                json!(format!("f16:0x{h:04X}"))
            }
        }
        Value::Floats(fs) => Json::Array(fs.iter().map(|f| f32_json(*f)).collect()),
        Value::Pointer(p) => ptr_json(p),
        Value::String(s) => s.as_ref().map_or(Json::Null, |s| json!(s)),
        Value::Bytes(b) => {
            json!({"bytes": to_hex(b)})
        }
        Value::Array(items) | Value::CArray(items) => {
            Json::Array(items.iter().map(value_json).collect())
        }
        Value::Struct(fields) => fields_json(fields),
        Value::Variant { object, class } => {
            json!({"object": ptr_json(object), "class": ptr_json(class)})
        }
        Value::None => Json::Null,
    }
}

fn fields_json(fields: &[Field]) -> Json {
    let mut m = Map::new();
    for f in fields {
        m.insert(f.name.clone(), value_json(&f.value));
    }
    Json::Object(m)
}

/// The graph as a JSON document.
pub fn to_json(graph: &Graph) -> Json {
    let i = &graph.info;
    let l = i.layout;
    let objects: Vec<Json> = graph
        .objects
        .iter()
        .enumerate()
        .map(|(n, o)| json!({"id": n, "class": o.class, "section": o.section, "fields": fields_json(&o.fields)}))
        .collect();
    let flags: Vec<Json> = graph
        .capacity_flags
        .iter()
        .map(|((o, p), f)| json!({"object": o.0, "path": path_text(p), "flags": f}))
        .collect();
    json!({
        "hk_dump": DUMP_VERSION,
        "file": {
            "file_version": i.file_version,
            "contents_version": i.contents_version,
            "layout": {"pointer_size": l.pointer_size, "endian": l.endian.name(), "reuse_padding": l.reuse_padding, "empty_base": l.empty_base},
            "user_tag": i.user_tag,
            "flags": i.flags,
            "sections": i.sections,
            "class_names_section": i.class_names_section,
            "contents_section": i.contents_section,
            "predicates": i.predicates.as_ref().map(|(m, b)| json!({"max": m, "block": to_hex(b)})),
            "class_names": i.class_names,
            "exports": i.exports.iter().map(|(o, n)| json!({"object": o.0, "name": n})).collect::<Vec<_>>(),
        },
        "root": graph.root.0,
        "capacity_flags": flags,
        "objects": objects,
    })
}

/// Bytes as lower-case hex, the form dumps store raw blocks in.
pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The bytes of a hex string, `None` for anything that is not pairs of hex digits.
pub fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

fn bad(what: impl Into<String>) -> Error {
    Error::invalid(0, what.into())
}

fn get<'j>(v: &'j Json, key: &str) -> Result<&'j Json> {
    v.get(key)
        .ok_or_else(|| bad(format!("dump has no `{key}`")))
}

fn uint(v: &Json, key: &str) -> Result<u64> {
    get(v, key)?
        .as_u64()
        .ok_or_else(|| bad(format!("`{key}` is not an unsigned integer")))
}

/// Reads a graph back from [`to_json`]'s document, with member types from `schema`.
///
/// # Errors
/// A missing or mistyped key, with the object and member path.
pub fn from_json(doc: &Json, schema: &Schema) -> Result<Graph> {
    let f = get(doc, "file")?;
    let l = get(f, "layout")?;
    let layout = LayoutRules {
        pointer_size: uint(l, "pointer_size")? as u8,
        endian: if get(l, "endian")?.as_str() == Some("big") {
            Endian::Big
        } else {
            Endian::Little
        },
        reuse_padding: get(l, "reuse_padding")?.as_bool().unwrap_or(false),
        empty_base: get(l, "empty_base")?.as_bool().unwrap_or(true),
    };
    let strings = |v: &Json| -> Option<Vec<String>> {
        v.as_array().map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
    };
    let predicates = match f.get("predicates") {
        Some(p) if !is_null(p) => Some((
            uint(p, "max")? as i16,
            hex_bytes(get(p, "block")?.as_str().unwrap_or(""))
                .ok_or_else(|| bad("bad predicate block hex"))?,
        )),
        _ => None,
    };
    let info = FileInfo {
        file_version: uint(f, "file_version")? as u32,
        contents_version: get(f, "contents_version")?
            .as_str()
            .unwrap_or("")
            .to_string(),
        layout,
        user_tag: uint(f, "user_tag")? as u32,
        flags: uint(f, "flags")? as u32,
        sections: strings(get(f, "sections")?)
            .ok_or_else(|| bad("`sections` is not a list of names"))?,
        class_names_section: uint(f, "class_names_section")? as u32,
        contents_section: uint(f, "contents_section")? as u32,
        predicates,
        class_names: f
            .get("class_names")
            .filter(|v| !is_null(v))
            .and_then(strings),
        exports: f
            .get("exports")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .map(|e| {
                Ok((
                    ObjectId(uint(e, "object")? as u32),
                    get(e, "name")?.as_str().unwrap_or("").to_string(),
                ))
            })
            .collect::<Result<_>>()?,
    };
    let mut layouts = Layouts::new(schema, layout);
    let mut objects = Vec::new();
    for (n, o) in get(doc, "objects")?
        .as_array()
        .ok_or_else(|| bad("`objects` is not a list"))?
        .iter()
        .enumerate()
    {
        let class = get(o, "class")?
            .as_str()
            .ok_or_else(|| bad("object class is not a string"))?
            .to_string();
        let fields = fields_from(&mut layouts, &class, get(o, "fields")?)
            .map_err(|e| e.in_(format!("object #{n} {class}")))?;
        objects.push(Object {
            class,
            section: uint(o, "section")? as u32,
            fields,
        });
    }
    let mut capacity_flags = std::collections::BTreeMap::new();
    for c in doc
        .get("capacity_flags")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let path = parse_path(get(c, "path")?.as_str().unwrap_or(""))
            .ok_or_else(|| bad("bad capacity flag path"))?;
        capacity_flags.insert(
            (ObjectId(uint(c, "object")? as u32), path),
            uint(c, "flags")? as u32,
        );
    }
    Ok(Graph {
        info,
        objects,
        root: ObjectId(uint(doc, "root")? as u32),
        capacity_flags,
    })
}

/// JSON null, or the empty table TOML writes for it.
fn is_null(v: &Json) -> bool {
    v.is_null() || v.as_object().is_some_and(Map::is_empty)
}

fn fields_from(layouts: &mut Layouts<'_>, class: &str, v: &Json) -> Result<Vec<Field>> {
    let obj = v
        .as_object()
        .ok_or_else(|| bad(format!("`{class}` value is not a table")))?;
    let mut out = Vec::new();
    for &(owner, m, _) in layouts.flattened(class)?.iter() {
        let j = obj
            .get(&m.name)
            .ok_or_else(|| bad(format!("missing member `{}`", m.name)))?;
        let value = if m.array_size > 0 {
            let items = j
                .as_array()
                .ok_or_else(|| bad("a C-array member needs a list"))?;
            items
                .iter()
                .map(|x| value_from(layouts, [m.ty, m.subtype, m.element], m.class.as_deref(), x))
                .collect::<Result<Vec<_>>>()
                .map(Value::CArray)
        } else {
            value_from(layouts, [m.ty, m.subtype, m.element], m.class.as_deref(), j)
        }
        .map_err(|e| e.in_member(&owner.name, &m.name))?;
        out.push(Field::new(m.name.clone(), value));
    }
    Ok(out)
}

fn ptr_from(v: &Json) -> Result<Option<Ptr>> {
    if is_null(v) {
        return Ok(None);
    }
    if let Some(id) = v.as_u64() {
        return Ok(Some(Ptr::Object(ObjectId(id as u32))));
    }
    if let Some(name) = v.get("import").and_then(Json::as_str) {
        return Ok(Some(Ptr::Import(name.to_string())));
    }
    let object = ObjectId(uint(v, "object")? as u32);
    let path = parse_path(get(v, "path")?.as_str().unwrap_or(""))
        .ok_or_else(|| bad("bad pointer path"))?;
    Ok(Some(Ptr::Into { object, path }))
}

/// The value of JSON `v` for a member of `kinds` (type, sub-type and, for arrays of arrays,
/// the inner element type).
fn value_from(
    layouts: &mut Layouts<'_>,
    kinds: [TypeKind; 3],
    class: Option<&str>,
    v: &Json,
) -> Result<Value> {
    let [ty, subtype, element] = kinds;
    let num_err = || bad(format!("expected a number for a `{ty}` member, found {v}"));
    let float = |v: &Json| json_f32(v).ok_or_else(|| bad(format!("expected a number, found {v}")));
    Ok(match ty {
        TypeKind::Void | TypeKind::Zero => Value::None,
        TypeKind::Bool => match v {
            Json::Bool(b) => Value::Bool(u8::from(*b)),
            _ => Value::Bool(v.as_u64().ok_or_else(num_err)? as u8),
        },
        TypeKind::Enum | TypeKind::Flags => int_value(subtype, v).ok_or_else(num_err)?,
        TypeKind::Real => Value::Real(float(v)?),
        TypeKind::Half => Value::Half(match v.as_str().and_then(|s| s.strip_prefix("f16:0x")) {
            Some(h) => u16::from_str_radix(h, 16).map_err(|_| num_err())?,
            None => (float(v)?.to_bits() >> 16) as u16,
        }),
        TypeKind::Vector4
        | TypeKind::Quaternion
        | TypeKind::Matrix3
        | TypeKind::Rotation
        | TypeKind::QsTransform
        | TypeKind::Matrix4
        | TypeKind::Transform => Value::Floats(
            v.as_array()
                .ok_or_else(num_err)?
                .iter()
                .map(float)
                .collect::<Result<_>>()?,
        ),
        TypeKind::Pointer | TypeKind::FunctionPointer | TypeKind::RelPtr => {
            Value::Pointer(ptr_from(v)?)
        }
        TypeKind::CString | TypeKind::StringPtr => match v {
            Json::String(s) => Value::String(Some(s.clone())),
            Json::Object(m) if m.contains_key("bytes") => Value::Bytes(
                hex_bytes(m["bytes"].as_str().unwrap_or(""))
                    .ok_or_else(|| bad("bad string bytes"))?,
            ),
            _ if is_null(v) => Value::String(None),
            _ => return Err(bad(format!("expected a string, found {v}"))),
        },
        TypeKind::Variant => Value::Variant {
            object: ptr_from(v.get("object").unwrap_or(&Json::Null))?,
            class: ptr_from(v.get("class").unwrap_or(&Json::Null))?,
        },
        TypeKind::Struct => Value::Struct(fields_from(
            layouts,
            class.ok_or_else(|| Error::schema("struct names no class"))?,
            v,
        )?),
        TypeKind::Array
        | TypeKind::SimpleArray
        | TypeKind::RelArray
        | TypeKind::RelArrayView
        | TypeKind::RelArray64 => {
            let items = if is_null(v) {
                &[][..]
            } else {
                v.as_array()
                    .ok_or_else(|| bad(format!("expected a list, found {v}")))?
                    .as_slice()
            };
            Value::Array(
                items
                    .iter()
                    .map(|x| value_from(layouts, [subtype, element, TypeKind::Void], class, x))
                    .collect::<Result<_>>()?,
            )
        }
        TypeKind::InplaceArray | TypeKind::HomogeneousArray => {
            return Err(bad(format!("`{ty}` members are not supported")))
        }
        t => int_value(t, v).ok_or_else(num_err)?,
    })
}

fn int_value(t: TypeKind, v: &Json) -> Option<Value> {
    let signed = matches!(
        t,
        TypeKind::Char | TypeKind::Int8 | TypeKind::Int16 | TypeKind::Int32 | TypeKind::Int64
    );
    let parsed = match v {
        Json::String(s) => s
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .map(|u| u as i64),
        _ => v.as_i64().or_else(|| v.as_u64().map(|u| u as i64)),
    }?;
    Some(if signed {
        Value::Int(parsed)
    } else {
        Value::UInt(parsed as u64)
    })
}

/// JSON to TOML: null becomes `{}`, integers past `i64::MAX` become `"0x…"` strings.
pub fn json_to_toml(v: &Json) -> toml::Value {
    match v {
        Json::Null => toml::Value::Table(toml::Table::new()),
        Json::Bool(b) => toml::Value::Boolean(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => toml::Value::Integer(i),
            (None, Some(u), _) => toml::Value::String(format!("0x{u:X}")),
            (_, _, Some(f)) => toml::Value::Float(f),
            _ => toml::Value::String(n.to_string()),
        },
        Json::String(s) => toml::Value::String(s.clone()),
        Json::Array(a) => toml::Value::Array(a.iter().map(json_to_toml).collect()),
        Json::Object(m) => toml::Value::Table(
            m.iter()
                .map(|(k, v)| (k.clone(), json_to_toml(v)))
                .collect(),
        ),
    }
}

/// TOML back to JSON (`{}` stays an empty table, which reads as null).
pub fn toml_to_json(v: &toml::Value) -> Json {
    match v {
        toml::Value::String(s) => json!(s),
        toml::Value::Integer(i) => json!(i),
        toml::Value::Float(f) => json!(f),
        toml::Value::Boolean(b) => json!(b),
        toml::Value::Datetime(d) => json!(d.to_string()),
        toml::Value::Array(a) => Json::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Json::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}
