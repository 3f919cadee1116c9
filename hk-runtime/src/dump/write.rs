//! Writing a dump: the document as a serde `Serialize` that walks the graph, so that a
//! serializer writes the text straight from the objects (no tree of JSON values on the
//! way). The small parts (header, container) are JSON values, written the same way.
//!
//! TOML has no null and no integer past `i64::MAX`: in the TOML flavour null is `{}` and
//! such integers are `"0x…"` strings (the reader takes both back).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{json, Value as Json};

use super::{classdefs, container, schema_name, types, DUMP_VERSION};
use crate::dump::text::{bits_text, half_f32, half_text, to_hex};
use crate::file::{Document, Origin};
use crate::graph::{path_text, Array, Graph, ObjectId, Ptr, Value};
use crate::packfile::PackfileInfo;
use crate::schema::{ClassId, Shape};

/// A document as a dump, for any serde serializer: `serde_json::to_writer_pretty(w,
/// &Dump::json(&doc))` streams it.
#[derive(Debug, Clone, Copy)]
pub struct Dump<'a> {
    doc: &'a Document,
    toml: bool,
}

impl<'a> Dump<'a> {
    /// The JSON flavour (null, and integers of every width, as JSON has them).
    pub fn json(doc: &'a Document) -> Self {
        Dump { doc, toml: false }
    }

    /// The TOML flavour: null as `{}`, integers past `i64::MAX` as `"0x…"` strings.
    pub fn toml(doc: &'a Document) -> Self {
        Dump { doc, toml: true }
    }
}

/// What every part of the writer needs: the graph and the flavour.
#[derive(Clone, Copy)]
struct Cx<'a> {
    graph: &'a Graph,
    toml: bool,
}

impl Cx<'_> {
    fn class_of(&self, id: ObjectId) -> Option<ClassId> {
        self.graph.objects.get(id.0 as usize).map(|o| o.class)
    }
}

/// Null: `{}` in TOML.
fn null<S: Serializer>(s: S, toml: bool) -> Result<S::Ok, S::Error> {
    if toml {
        s.serialize_map(Some(0))?.end()
    } else {
        s.serialize_unit()
    }
}

fn uint<S: Serializer>(s: S, u: u64, toml: bool) -> Result<S::Ok, S::Error> {
    if toml && i64::try_from(u).is_err() {
        s.serialize_str(&format!("0x{u:X}"))
    } else {
        s.serialize_u64(u)
    }
}

fn real<S: Serializer>(s: S, f: f32) -> Result<S::Ok, S::Error> {
    if f.is_finite() {
        s.serialize_f64(f64::from(f))
    } else {
        s.serialize_str(&bits_text(f))
    }
}

fn half<S: Serializer>(s: S, h: u16) -> Result<S::Ok, S::Error> {
    let f = half_f32(h);
    if f.is_finite() {
        s.serialize_f64(f64::from(f))
    } else {
        s.serialize_str(&half_text(h))
    }
}

/// A JSON value of the small parts, in the dump's flavour.
struct Small<'a>(&'a Json, bool);

impl Serialize for Small<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Json::Null => null(s, self.1),
            Json::Number(n) if self.1 => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => uint(s, u, true),
                (None, Some(i)) => s.serialize_i64(i),
                _ => n.serialize(s),
            },
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(&Small(x, self.1))?;
                }
                seq.end()
            }
            Json::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &Small(v, self.1))?;
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

impl Serialize for Dump<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let doc = self.doc;
        let cx = Cx {
            graph: &doc.graph,
            toml: self.toml,
        };
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("hk_dump", &DUMP_VERSION)?;
        m.serialize_entry("schema", schema_name(&doc.schema))?;
        match &doc.origin {
            Origin::Packfile(info) => {
                m.serialize_entry("file", &Small(&file_json(info), self.toml))?;
                m.serialize_entry("capacity_flags", &Small(&flags_json(cx, info), self.toml))?;
            }
            Origin::Tagfile { file, .. } => {
                m.serialize_entry("container", "tagfile")?;
                m.serialize_entry("sdk_version", &file.sdk_version)?;
                if let Some(c) = &file.cm {
                    m.serialize_entry("cm", &Small(&container::cm_json(c), self.toml))?;
                }
                if let Some(p) = &file.phive {
                    m.serialize_entry("phive", &Small(&container::phive_json(p), self.toml))?;
                }
                m.serialize_entry("types", &Small(&types::types_json(&file.types), self.toml))?;
            }
            Origin::BinaryTagfile(file) => {
                m.serialize_entry("container", "binary-tagfile")?;
                m.serialize_entry("tagfile_version", &file.version)?;
                if let Some(sdk) = &file.sdk {
                    m.serialize_entry("sdk_version", sdk)?;
                }
                if let Some(p) = &file.predicates {
                    m.serialize_entry("predicates", &classdefs::predicates_json(p))?;
                }
                if let Some(t) = classdefs::trailing_json(file) {
                    m.serialize_entry("trailing", &t)?;
                }
                m.serialize_entry("classes", &Small(&classdefs::classes_json(file), self.toml))?;
            }
        }
        m.serialize_entry("root", &doc.graph.root.0)?;
        m.serialize_entry("objects", &Objects { cx, doc })?;
        m.end()
    }
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

fn flags_json(cx: Cx<'_>, info: &PackfileInfo) -> Json {
    let schema = cx.graph.schema();
    Json::Array(
        info.capacity_flags
            .iter()
            .map(|((o, p), f)| {
                let path = cx
                    .class_of(*o)
                    .map(|c| path_text(schema, c, p))
                    .unwrap_or_default();
                json!({"object": o.0, "path": path, "flags": f})
            })
            .collect(),
    )
}

struct Objects<'a> {
    cx: Cx<'a>,
    doc: &'a Document,
}

impl Serialize for Objects<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let graph = self.cx.graph;
        let schema = graph.schema();
        let mut seq = s.serialize_seq(Some(graph.objects.len()))?;
        for (n, o) in graph.objects.iter().enumerate() {
            seq.serialize_element(&ObjectOut {
                id: n,
                class: schema.name_of(o.class),
                section: match &self.doc.origin {
                    Origin::Packfile(info) => Some(info.section_of(ObjectId(n as u32))),
                    Origin::Tagfile { .. } | Origin::BinaryTagfile(_) => None,
                },
                fields: Fields {
                    cx: self.cx,
                    class: o.class,
                    values: &o.values,
                },
            })?;
        }
        seq.end()
    }
}

struct ObjectOut<'a> {
    id: usize,
    class: &'a str,
    section: Option<u32>,
    fields: Fields<'a>,
}

impl Serialize for ObjectOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("class", self.class)?;
        if let Some(sec) = self.section {
            m.serialize_entry("section", &sec)?;
        }
        m.serialize_entry("fields", &self.fields)?;
        m.end()
    }
}

/// The values of a class (or struct) as a table keyed by member name.
struct Fields<'a> {
    cx: Cx<'a>,
    class: ClassId,
    values: &'a [Value],
}

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let schema = self.cx.graph.schema();
        let members = schema.members(self.class).ok();
        let ms = members.as_deref().unwrap_or(&[]);
        let mut m = s.serialize_map(Some(ms.len().min(self.values.len())))?;
        for (fm, v) in ms.iter().zip(self.values) {
            m.serialize_entry(
                &schema.member_of(fm).name,
                &ValueOut {
                    cx: self.cx,
                    shape: Some(&fm.shape),
                    value: v,
                },
            )?;
        }
        m.end()
    }
}

/// One value of a member of `shape` (the shape names a struct's class).
struct ValueOut<'a> {
    cx: Cx<'a>,
    shape: Option<&'a Shape>,
    value: &'a Value,
}

impl Serialize for ValueOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let cx = self.cx;
        let inner = || match self.shape {
            Some(Shape::CArray(_, e) | Shape::Array(_, e)) => Some(&**e),
            _ => None,
        };
        match self.value {
            Value::None => null(s, cx.toml),
            Value::Bool(b) if *b <= 1 => s.serialize_bool(*b == 1),
            Value::Bool(b) => s.serialize_u8(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::UInt(u) => uint(s, *u, cx.toml),
            Value::Real(f) => real(s, *f),
            Value::Half(h) => half(s, *h),
            Value::Floats(fs) => Reals(fs).serialize(s),
            Value::Pointer(p) => PtrOut(cx, p.as_ref()).serialize(s),
            Value::String(None) => null(s, cx.toml),
            Value::String(Some(t)) => s.serialize_str(t),
            Value::Bytes(b) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("bytes", &to_hex(b))?;
                m.end()
            }
            Value::Struct(values) => match self.shape {
                Some(Shape::Struct(c)) => Fields {
                    cx,
                    class: *c,
                    values,
                }
                .serialize(s),
                _ => Items(cx, None, values).serialize(s),
            },
            Value::CArray(items) => Items(cx, inner(), items).serialize(s),
            Value::Array(a) => ArrayOut(cx, inner(), a).serialize(s),
            Value::Variant(v) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("object", &PtrOut(cx, v.object.as_ref()))?;
                m.serialize_entry("class", &PtrOut(cx, v.class.as_ref()))?;
                m.end()
            }
            Value::Homogeneous(h) => {
                // The element class before the items: a reader needs it to read them.
                let shape = h.element.map(Shape::Struct);
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("class", &PtrOut(cx, h.class.as_ref()))?;
                match h.element {
                    Some(c) => m.serialize_entry("element", cx.graph.schema().name_of(c))?,
                    None => m.serialize_entry("element", &Nothing(cx.toml))?,
                }
                m.serialize_entry("items", &ArrayOut(cx, shape.as_ref(), &h.items))?;
                m.end()
            }
        }
    }
}

/// A null (TOML's empty table).
struct Nothing(bool);

impl Serialize for Nothing {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        null(s, self.0)
    }
}

/// Values of one element shape, as a list.
struct Items<'a>(Cx<'a>, Option<&'a Shape>, &'a [Value]);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.2.len()))?;
        for v in self.2 {
            seq.serialize_element(&ValueOut {
                cx: self.0,
                shape: self.1,
                value: v,
            })?;
        }
        seq.end()
    }
}

/// A float tuple.
struct Reals<'a>(&'a [f32]);

impl Serialize for Reals<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for f in self.0 {
            seq.serialize_element(&Real(*f))?;
        }
        seq.end()
    }
}

struct Real(f32);

impl Serialize for Real {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        real(s, self.0)
    }
}

struct Half(u16);

impl Serialize for Half {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        half(s, self.0)
    }
}

struct Bool(u8);

impl Serialize for Bool {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 <= 1 {
            s.serialize_bool(self.0 == 1)
        } else {
            s.serialize_u8(self.0)
        }
    }
}

struct UInt(u64, bool);

impl Serialize for UInt {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        uint(s, self.0, self.1)
    }
}

/// A pointer: null, an object id, `{"object": id, "path": …}` or `{"import": name}`.
struct PtrOut<'a>(Cx<'a>, Option<&'a Ptr>);

impl Serialize for PtrOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.1 {
            None => null(s, self.0.toml),
            Some(Ptr::Object(id)) => s.serialize_u32(id.0),
            Some(Ptr::Into { object, path }) => {
                let text = self
                    .0
                    .class_of(*object)
                    .map(|c| path_text(self.0.graph.schema(), c, path))
                    .unwrap_or_default();
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("object", &object.0)?;
                m.serialize_entry("path", &text)?;
                m.end()
            }
            Some(Ptr::Import(name)) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("import", name)?;
                m.end()
            }
        }
    }
}

/// An array column as a list.
struct ArrayOut<'a>(Cx<'a>, Option<&'a Shape>, &'a Array);

fn list<'a, S: Serializer, T, X: Serialize>(
    s: S,
    items: &'a [T],
    f: impl Fn(&'a T) -> X,
) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for x in items {
        seq.serialize_element(&f(x))?;
    }
    seq.end()
}

impl Serialize for ArrayOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let toml = self.0.toml;
        match self.2 {
            Array::Bool(v) => list(s, v, |b| Bool(*b)),
            Array::I8(v) => list(s, v, |x| *x),
            Array::U8(v) => list(s, v, |x| *x),
            Array::I16(v) => list(s, v, |x| *x),
            Array::U16(v) => list(s, v, |x| *x),
            Array::I32(v) => list(s, v, |x| *x),
            Array::U32(v) => list(s, v, |x| *x),
            Array::I64(v) => list(s, v, |x| *x),
            Array::U64(v) => list(s, v, |x| UInt(*x, toml)),
            Array::Real(v) => list(s, v, |f| Real(*f)),
            Array::Half(v) => list(s, v, |h| Half(*h)),
            Array::Vec4(v) => list(s, v, |t| Reals(t)),
            Array::Mat3(v) => list(s, v, |t| Reals(t)),
            Array::Mat4(v) => list(s, v, |t| Reals(t)),
            Array::Values(v) => Items(self.0, self.1, v).serialize(s),
            // One struct value at a time, made from the columns as it is written.
            Array::Struct(c) => {
                let mut seq = s.serialize_seq(Some(c.len()))?;
                for i in 0..c.len() {
                    let v = Value::Struct(c.row(i).unwrap_or_default());
                    seq.serialize_element(&ValueOut {
                        cx: self.0,
                        shape: self.1,
                        value: &v,
                    })?;
                }
                seq.end()
            }
        }
    }
}
