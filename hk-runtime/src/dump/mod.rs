//! A document as JSON (and TOML): what `hk dump` prints and `hk build` reads. The dump is a
//! view of the graph (objects with class and member names, in the schema's member order)
//! and of the container facts (a packfile's header and sections, a tagfile's SDK version
//! and container).
//!
//! Reading a dump back checks every value against its member and every header field
//! against its width: a dump that does not fit is refused with the object and member (or
//! the `file.` field) it concerns, never truncated, wrapped or zero-filled.

mod container;
mod value;
pub mod xml;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value as Json};

pub use container::{cm_from, cm_json, phive_from, phive_json};
pub use value::{f32_json, hex_bytes, is_null, json_f32, resolve, to_hex, Reader, Writer};

use crate::error::{Error, Result, WriteError};
use crate::file::{Document, Origin, SchemaChoice, Schemas};
use crate::graph::{path_text, Graph, Object, ObjectId};
use crate::packfile::PackfileInfo;
use crate::rules::{Endian, LayoutRules};
use crate::schema::{ClassId, Schema};
use crate::tagfile::cm::SurfaceRecord;
use crate::tagfile::phive::Phive;

/// Format version of the dump.
pub const DUMP_VERSION: u64 = 1;

const TOP_KEYS: &[&str] = &[
    "hk_dump",
    "schema",
    "file",
    "capacity_flags",
    "container",
    "sdk_version",
    "cm",
    "phive",
    "root",
    "objects",
];
const OBJECT_KEYS: &[&str] = &["id", "class", "section", "fields"];
const FILE_KEYS: &[&str] = &[
    "file_version",
    "contents_version",
    "layout",
    "user_tag",
    "flags",
    "sections",
    "class_names_section",
    "contents_section",
    "predicates",
    "class_names",
    "exports",
];

/// Refuses a table with a key outside `keys` (a misspelled member or field would
/// otherwise be ignored).
fn known_keys(v: &Json, what: &str, keys: &[&str]) -> Result<()> {
    if let Some(m) = v.as_object() {
        if let Some(k) = m.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(bad(format!(
                "{what} has an unknown key `{k}` (known: {})",
                keys.join(", ")
            )));
        }
    }
    Ok(())
}

/// The schema folder a document's dump names (what `hk build` reads it back with).
pub fn schema_name(choice: &SchemaChoice) -> &str {
    match choice {
        SchemaChoice::Generation { name, .. } => name,
        SchemaChoice::Metadata { reflection } => reflection,
        SchemaChoice::TypeTable { rules, .. } => rules,
    }
}

/// The document as a JSON dump.
pub fn to_json(doc: &Document) -> Json {
    let graph = &doc.graph;
    let schema = graph.schema();
    let class_of = |id: ObjectId| graph.objects.get(id.0 as usize).map(|o| o.class);
    let w = Writer {
        schema,
        class_of: &class_of,
    };
    let section = |i: usize| match &doc.origin {
        Origin::Packfile(info) => Some(info.section_of(ObjectId(i as u32))),
        Origin::Tagfile { .. } => None,
    };
    let objects: Vec<Json> = graph
        .objects
        .iter()
        .enumerate()
        .map(|(n, o)| {
            let mut m = Map::new();
            m.insert("id".into(), json!(n));
            m.insert("class".into(), json!(schema.name_of(o.class)));
            if let Some(s) = section(n) {
                m.insert("section".into(), json!(s));
            }
            m.insert("fields".into(), w.fields(o.class, &o.values));
            Json::Object(m)
        })
        .collect();
    let mut out = Map::new();
    out.insert("hk_dump".into(), json!(DUMP_VERSION));
    out.insert("schema".into(), json!(schema_name(&doc.schema)));
    match &doc.origin {
        Origin::Packfile(info) => {
            out.insert("file".into(), file_json(info));
            let flags: Vec<Json> = info
                .capacity_flags
                .iter()
                .map(|((o, p), f)| {
                    let path = class_of(*o)
                        .map(|c| path_text(schema, c, p))
                        .unwrap_or_default();
                    json!({"object": o.0, "path": path, "flags": f})
                })
                .collect();
            out.insert("capacity_flags".into(), Json::Array(flags));
        }
        Origin::Tagfile { file, .. } => {
            out.insert("container".into(), json!("tagfile"));
            out.insert("sdk_version".into(), json!(file.sdk_version));
            if let Some(c) = &file.cm {
                out.insert("cm".into(), cm_json(c));
            }
            if let Some(p) = &file.phive {
                out.insert("phive".into(), phive_json(p));
            }
        }
    }
    out.insert("root".into(), json!(graph.root.0));
    out.insert("objects".into(), Json::Array(objects));
    Json::Object(out)
}

fn file_json(i: &PackfileInfo) -> Json {
    let l = i.layout;
    json!({
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
    })
}

/// The container a dump describes besides its objects.
#[derive(Debug)]
pub enum BuiltContainer {
    /// A packfile's facts.
    Packfile(PackfileInfo),
    /// A tagfile: its SDK version and container.
    Tagfile {
        /// SDK version (`20160100`).
        sdk: String,
        /// The id Tech cm container: record version and surface records.
        cm: Option<(u32, Vec<SurfaceRecord>)>,
        /// The phive container.
        phive: Option<Phive>,
    },
}

/// A dump read back.
#[derive(Debug)]
pub struct Built {
    /// The objects.
    pub graph: Graph,
    /// The container facts.
    pub container: BuiltContainer,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

fn get<'j>(v: &'j Json, key: &str) -> Result<&'j Json> {
    v.get(key)
        .ok_or_else(|| bad(format!("the dump has no `{key}`")))
}

/// An unsigned field of `bits` bits.
fn uint(v: &Json, key: &str, bits: u32) -> Result<u64> {
    let j = get(v, key)?;
    let n = j
        .as_u64()
        .ok_or_else(|| bad(format!("`{key}` is not an unsigned integer: {j}")))?;
    if bits < 64 && n >> bits != 0 {
        return Err(Error::write(WriteError::Range {
            value: n.to_string(),
            member: key.to_string(),
            range: format!("0 to {}", (1u64 << bits) - 1),
        }));
    }
    Ok(n)
}

/// The container of a dump, and the schema folder to read its objects with: the one the
/// dump names, else the one matching its versions.
///
/// # Errors
/// No folder matches, or it does not load.
pub fn schema_for(doc: &Json, schemas: &Schemas) -> Result<Arc<Schema>> {
    if let Some(name) = doc.get("schema").and_then(Json::as_str) {
        if schemas.catalog().get(name).is_some() {
            return schemas.load(name);
        }
    }
    let no = |what: String| Error::from(crate::error::SchemaError::NoMatch(what));
    if doc.get("container").and_then(Json::as_str) == Some("tagfile") {
        let sdk = get(doc, "sdk_version")?.as_str().unwrap_or("");
        let (e, _) = schemas
            .catalog()
            .tagfile(sdk)
            .ok_or_else(|| no(format!("no tagfile schema folder for SDK {sdk}")))?;
        let name = e.name.clone();
        return schemas.load(&name);
    }
    let f = get(doc, "file")?;
    let fv = uint(f, "file_version", 32).map_err(|e| e.in_("file.file_version"))? as u32;
    let cv = get(f, "contents_version")?.as_str().unwrap_or("");
    let (e, _) = schemas
        .catalog()
        .packfile(fv, cv)
        .ok_or_else(|| no(format!("no packfile schema folder for file version {fv}")))?;
    let name = e.name.clone();
    schemas.load(&name)
}

/// Reads a dump back with the classes of `schema`.
///
/// # Errors
/// A missing or mistyped key, or a value that does not fit its member, with the object
/// and member path (or the `file.` field).
pub fn from_json(doc: &Json, schema: &Arc<Schema>) -> Result<Built> {
    known_keys(doc, "the dump", TOP_KEYS)?;
    let version = uint(doc, "hk_dump", 64)?;
    if version != DUMP_VERSION {
        return Err(bad(format!(
            "dump format {version}; this hk reads format {DUMP_VERSION}"
        )));
    }
    let list = get(doc, "objects")?
        .as_array()
        .ok_or_else(|| bad("`objects` is not a list"))?;
    // Ids are identities: each object states its id, pointers name ids. Classes first:
    // pointers into objects need their classes to resolve paths.
    let mut classes = Vec::with_capacity(list.len());
    let mut ids: Vec<u64> = Vec::with_capacity(list.len());
    for (n, o) in list.iter().enumerate() {
        known_keys(o, &format!("object #{n}"), OBJECT_KEYS)?;
        let id = uint(o, "id", 32).map_err(|e| e.in_(format!("object #{n}")))?;
        ids.push(id);
        let name = get(o, "class")?
            .as_str()
            .ok_or_else(|| bad(format!("object #{n}: the class is not a string")))?;
        classes.push(
            schema
                .require(name)
                .map_err(|e| e.in_(format!("object #{n}")))?,
        );
    }
    let by_position = ids.iter().enumerate().all(|(i, id)| *id == i as u64);
    let mut index: rustc_hash::FxHashMap<u64, u32> = rustc_hash::FxHashMap::default();
    if !by_position {
        for (i, id) in ids.iter().enumerate() {
            if index.insert(*id, i as u32).is_some() {
                return Err(bad(format!("two objects have id {id}")));
            }
        }
    }
    let object = |n: u64| -> Option<ObjectId> {
        if by_position {
            (n < ids.len() as u64).then_some(ObjectId(n as u32))
        } else {
            index.get(&n).map(|&i| ObjectId(i))
        }
    };
    let class_of = |id: ObjectId| classes.get(id.0 as usize).copied();
    let r = Reader {
        schema,
        class_of: &class_of,
        object: &object,
    };
    let mut objects = Vec::with_capacity(list.len());
    let mut sections = Vec::with_capacity(list.len());
    for (n, o) in list.iter().enumerate() {
        let class = classes[n];
        let label = format!("object #{n} {}", schema.name_of(class));
        let values = r
            .fields(class, get(o, "fields")?)
            .map_err(|e| e.in_(label.clone()))?;
        if let Some(s) = o.get("section") {
            let s = s
                .as_u64()
                .and_then(|s| u32::try_from(s).ok())
                .ok_or_else(|| bad(format!("{label}: `section` is not a section index")))?;
            sections.push(s);
        }
        objects.push(Object { class, values });
    }
    let root_id = uint(doc, "root", 64)?;
    let root = object(root_id)
        .ok_or_else(|| Error::write(WriteError::MissingObject(root_id)).in_("root"))?;
    let graph = Graph::from_objects(Arc::clone(schema), objects, root);
    graph.check()?;
    let container = if doc.get("container").and_then(Json::as_str) == Some("tagfile") {
        BuiltContainer::Tagfile {
            sdk: get(doc, "sdk_version")?
                .as_str()
                .unwrap_or(&schema.generation.contents_version)
                .to_string(),
            cm: doc.get("cm").map(cm_from).transpose()?,
            phive: doc.get("phive").map(phive_from).transpose()?,
        }
    } else {
        let mut info = info_from(get(doc, "file")?, &object)?;
        if sections.len() != graph.objects.len() {
            return Err(bad("every object of a packfile dump needs its `section`"));
        }
        info.object_sections = sections;
        info.capacity_flags = capacity_flags(doc, schema, &class_of, &object)?;
        BuiltContainer::Packfile(info)
    };
    Ok(Built { graph, container })
}

/// Capacity-word flags by object and member path.
type CapacityFlags = BTreeMap<(ObjectId, Box<[crate::graph::Seg]>), u32>;

fn capacity_flags(
    doc: &Json,
    schema: &Schema,
    class_of: &dyn Fn(ObjectId) -> Option<ClassId>,
    object: &dyn Fn(u64) -> Option<ObjectId>,
) -> Result<CapacityFlags> {
    let mut out = BTreeMap::new();
    for c in doc
        .get("capacity_flags")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        known_keys(c, "a capacity flag", &["object", "path", "flags"])?;
        let n = uint(c, "object", 64)?;
        let o = object(n).ok_or_else(|| Error::write(WriteError::MissingObject(n)))?;
        let class = class_of(o).ok_or_else(|| Error::write(WriteError::MissingObject(n)))?;
        let path = resolve(schema, class, get(c, "path")?.as_str().unwrap_or(""))?;
        out.insert((o, path.into()), uint(c, "flags", 32)? as u32);
    }
    Ok(out)
}

fn info_from(f: &Json, object: &dyn Fn(u64) -> Option<ObjectId>) -> Result<PackfileInfo> {
    let at = |e: Error, key: &str| e.in_(format!("file.{key}"));
    known_keys(f, "`file`", FILE_KEYS)?;
    let l = get(f, "layout")?;
    let pointer_size = uint(l, "pointer_size", 8).map_err(|e| at(e, "layout"))? as u8;
    if pointer_size != 4 && pointer_size != 8 {
        return Err(at(
            bad(format!("pointer size {pointer_size} (4 or 8)")),
            "layout",
        ));
    }
    let endian_json = get(l, "endian")?;
    let endian = match endian_json.as_str() {
        Some("big") => Endian::Big,
        Some("little") => Endian::Little,
        _ => {
            return Err(at(
                bad(format!("byte order {endian_json} (\"little\" or \"big\")")),
                "layout",
            ))
        }
    };
    let flag = |key: &str| -> Result<bool> {
        get(l, key)?
            .as_bool()
            .ok_or_else(|| at(bad(format!("`{key}` is not true or false")), "layout"))
    };
    let layout = LayoutRules {
        pointer_size,
        endian,
        reuse_padding: flag("reuse_padding")?,
        empty_base: flag("empty_base")?,
    };
    let strings = |v: &Json| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|s| s.as_str().map(String::from))
            .collect()
    };
    let predicates = match f.get("predicates") {
        Some(p) if !is_null(p) => {
            let max = get(p, "max")?
                .as_i64()
                .and_then(|m| i16::try_from(m).ok())
                .ok_or_else(|| at(bad("`max` is not a 16-bit integer"), "predicates"))?;
            let block = hex_bytes(get(p, "block")?.as_str().unwrap_or(""))
                .ok_or_else(|| at(bad("bad predicate block hex"), "predicates"))?;
            Some((max, block))
        }
        _ => None,
    };
    let field32 = |key: &str| uint(f, key, 32).map(|v| v as u32).map_err(|e| at(e, key));
    let sections =
        strings(get(f, "sections")?).ok_or_else(|| at(bad("not a list of names"), "sections"))?;
    let file_version = field32("file_version")?;
    if !(5..=11).contains(&file_version) {
        return Err(at(
            bad(format!(
                "file version {file_version} (hk reads and writes 5 to 11)"
            )),
            "file_version",
        ));
    }
    let info = PackfileInfo {
        file_version,
        contents_version: get(f, "contents_version")?
            .as_str()
            .ok_or_else(|| at(bad("not a string"), "contents_version"))?
            .to_string(),
        layout,
        user_tag: field32("user_tag")?,
        flags: field32("flags")?,
        sections,
        class_names_section: field32("class_names_section")?,
        contents_section: field32("contents_section")?,
        predicates,
        class_names: f
            .get("class_names")
            .filter(|v| !is_null(v))
            .map(|v| strings(v).ok_or_else(|| at(bad("not a list of names"), "class_names")))
            .transpose()?,
        exports: f
            .get("exports")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .map(|e| {
                let n = uint(e, "object", 64)?;
                let o = object(n).ok_or_else(|| Error::write(WriteError::MissingObject(n)))?;
                let name = get(e, "name")?
                    .as_str()
                    .ok_or_else(|| bad("an export's name is not a string"))?;
                Ok((o, name.to_string()))
            })
            .collect::<Result<_>>()
            .map_err(|e| at(e, "exports"))?,
        object_sections: Vec::new(),
        capacity_flags: BTreeMap::new(),
    };
    Ok(info)
}

/// The file a dump describes, with the classes of the schema it names (or that matches its
/// versions): a packfile laid out under its `file.layout`, or a tagfile with a type table
/// written from the schema (`tagfile::reflect`) in the dump's container.
///
/// # Errors
/// As [`from_json`], [`schema_for`] and the writers.
pub fn build(doc: &Json, schemas: &Schemas) -> Result<(Vec<u8>, Built)> {
    let schema = schema_for(doc, schemas)?;
    let built = from_json(doc, &schema)?;
    let bytes = match &built.container {
        BuiltContainer::Packfile(info) => crate::packfile::write::write(&built.graph, info)?,
        BuiltContainer::Tagfile { sdk, cm, phive } => {
            let tag0 = crate::tagfile::reflect::write(&built.graph, &schema, sdk)?;
            match (cm, phive) {
                (Some((version, records)), _) => {
                    crate::tagfile::cm::Cm::write(records, *version, &tag0)
                }
                (None, Some(p)) => p.write(&tag0)?,
                (None, None) => tag0,
            }
        }
    };
    Ok((bytes, built))
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
        // JSON numbers cannot be NaN or infinite: such floats keep their bits, as dumps
        // write them.
        toml::Value::Float(f) if !f.is_finite() => {
            json!(format!("f32:0x{:08X}", (*f as f32).to_bits()))
        }
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
