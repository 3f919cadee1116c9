//! A packfile document as Havok XML text (docs/havok-xml.md): the dump's objects written
//! member by member through their shapes, the container facts Havok's XML has no place for
//! in attributes and elements of hk's namespace.

use std::fmt::Write as _;

use serde_json::Value as Json;

use super::sdk::{self, Dialect, Xml};
use super::{enum_text, hex_flags, object_name, NS, NULL_STRING};
use crate::dump::to_json;
use crate::error::{Error, Result, WriteError};
use crate::file::{Document, Origin};
use crate::packfile::PackfileInfo;
use crate::schema::{ClassId, Member, Schema, Shape};
use crate::types::{flag_names, TypeKind};

/// A member and the name of the class declaring it (enums resolve from there).
type Mem<'a> = (&'a str, &'a Member);

/// Array elements per line for numbers and names (as Havok writes them).
const PER_LINE: usize = 16;

fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

/// The document as Havok XML in `dialect`, with what the dialect could not keep.
///
/// # Errors
/// A tagfile (Havok XML here holds packfiles), or a value XML cannot hold (an array of
/// arrays).
pub fn to_xml(doc: &Document, dialect: Dialect) -> Result<Xml> {
    let Origin::Packfile(info) = &doc.origin else {
        return Err(bad("Havok XML holds packfiles; this document is a tagfile"));
    };
    let json = to_json(doc);
    let schema = doc.graph.schema();
    let objects = json["objects"].as_array().map_or(&[][..], Vec::as_slice);
    let root = doc.graph.root.0;
    let mut w = W::new(schema, dialect);
    let order: Vec<u32> = match dialect {
        Dialect::Exact => (0..objects.len() as u32).collect(),
        Dialect::Sdk => {
            // A first pass finds what each object points to, in member order.
            let mut refs = Vec::with_capacity(objects.len());
            for (n, o) in objects.iter().enumerate() {
                w.refs = Some(Vec::new());
                w.fields(3, doc.graph.objects[n].class, &o["fields"])?;
                refs.push(w.refs.take().unwrap_or_default());
            }
            let order = sdk::post_order(&refs, root);
            w.names = sdk::numbers(&order, root);
            w.out.clear();
            w.rounded = 0;
            w.ignored = 0;
            order
        }
    };
    w.extras(&json, info);
    let mut open: Option<u64> = None;
    for &n in &order {
        let o = &objects[n as usize];
        let section = o["section"].as_u64().unwrap_or(0);
        if open != Some(section) {
            if open.is_some() {
                w.out.push_str("\t</hksection>\n\n");
            }
            w.section(info, section);
            open = Some(section);
        }
        w.object(doc, n, o)?;
    }
    if open.is_none() {
        w.section(info, u64::from(info.contents_section));
    }
    w.out.push_str("\t</hksection>\n\n</hkpackfile>\n");
    let body = std::mem::take(&mut w.out);
    w.header(info, root);
    w.out.push_str(&body);
    Ok(Xml {
        text: w.out,
        rounded: w.rounded,
        ignored: w.ignored,
    })
}

struct W<'s> {
    schema: &'s Schema,
    dialect: Dialect,
    out: String,
    /// The number each object is named by (the SDK dialect's; empty: its graph index).
    names: Vec<u64>,
    /// The objects pointed to so far, while collecting them.
    refs: Option<Vec<u32>>,
    /// Whether hk's namespace is used (the header declares it then).
    hk_ns: bool,
    /// The flag bits of `SERIALIZE_IGNORED` members (the SDK dialect leaves them out).
    ignored_flag: u16,
    rounded: usize,
    ignored: usize,
}

/// Text escaped for XML: markup characters as entities, controls, `\r` and everything
/// outside ASCII as character references (the file says `encoding="ascii"`).
pub(super) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | ' '..='~' => out.push(ch),
            c => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
        }
    }
    out
}

fn tabs(n: usize) -> String {
    "\t".repeat(n)
}

/// A float with the fewest digits that read back to the same bits; non-finite floats keep
/// their bits as `f32:0x…` (the JSON dump's form).
fn float(j: &Json) -> String {
    match j {
        Json::Number(n) => format!("{:?}", n.as_f64().unwrap_or(0.0) as f32),
        Json::String(s) => s.clone(),
        _ => "0".into(),
    }
}

impl<'s> W<'s> {
    fn new(schema: &'s Schema, dialect: Dialect) -> Self {
        W {
            schema,
            dialect,
            out: String::new(),
            names: Vec::new(),
            refs: None,
            hk_ns: false,
            ignored_flag: schema.generation.flag_value(flag_names::SERIALIZE_IGNORED),
            rounded: 0,
            ignored: 0,
        }
    }

    /// How the XML names object `id`.
    fn name(&self, id: u64) -> String {
        match self.names.get(id as usize) {
            Some(n) => object_name(*n),
            None => object_name(id),
        }
    }

    /// A float in the dialect's form (the SDK's are counted when they lose bits).
    fn float(&mut self, j: &Json, half: bool) -> String {
        match self.dialect {
            Dialect::Exact => float(j),
            Dialect::Sdk => {
                let (s, same) = sdk::six(j, half);
                self.rounded += usize::from(!same);
                s
            }
        }
    }

    /// A tuple of floats in groups of four; an `hkQsTransform` (`qs`) in the SDK dialect
    /// as translation, rotation and scale of three, four and three numbers.
    fn floats(&mut self, j: &Json, qs: bool) -> String {
        let items = j.as_array().map_or(&[][..], Vec::as_slice);
        let groups: Vec<(usize, usize)> = if qs && self.dialect == Dialect::Sdk && items.len() == 12
        {
            for i in [3, 11] {
                self.rounded += usize::from(!sdk::is_empty(&items[i]));
            }
            sdk::QS_GROUPS.to_vec()
        } else {
            (0..items.len())
                .step_by(4)
                .map(|i| (i, (i + 4).min(items.len())))
                .collect()
        };
        let mut s = String::new();
        for (a, b) in groups {
            s.push('(');
            let parts: Vec<String> = items[a..b].iter().map(|x| self.float(x, false)).collect();
            s.push_str(&parts.join(" "));
            s.push(')');
        }
        s
    }

    fn pointer(&mut self, j: &Json) -> String {
        match j {
            Json::Number(n) => {
                let id = n.as_u64().unwrap_or(0);
                if let Some(r) = &mut self.refs {
                    r.push(id as u32);
                }
                self.name(id)
            }
            Json::Object(m) => {
                if let Some(name) = m.get("import").and_then(Json::as_str) {
                    format!("import:{name}")
                } else {
                    let id = m.get("object").and_then(Json::as_u64).unwrap_or(0);
                    if let Some(r) = &mut self.refs {
                        r.push(id as u32);
                    }
                    let path = m.get("path").and_then(Json::as_str).unwrap_or("");
                    format!("{}@{path}", self.name(id))
                }
            }
            _ => "null".into(),
        }
    }

    /// The `<?xml …?>` line and `<hkpackfile …>`: the SDK dialect states the layout and
    /// hk's namespace only when the file needs them (a layout other than the
    /// generation's, or hk's elements and attributes in the body).
    fn header(&mut self, info: &PackfileInfo, root: u32) {
        let digits = info.layout.tag();
        let layout = self.dialect == Dialect::Exact || info.layout != self.schema.generation.layout;
        let extra = self.extra_header(info);
        let _ = write!(
            self.out,
            "<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"{}\" \
             contentsversion=\"{}\" toplevelobject=\"{}\"",
            info.file_version,
            escape(&info.contents_version),
            self.name(u64::from(root)),
        );
        if layout || self.hk_ns || !extra.is_empty() {
            let _ = write!(self.out, " xmlns:hk=\"{NS}\"");
        }
        if layout {
            let _ = write!(self.out, " hk:layout=\"{digits}\"");
        }
        self.out.push_str(&extra);
        self.out.push_str(">\n\n");
    }

    /// hk's attributes for the header words and sections a file has.
    fn extra_header(&self, info: &PackfileInfo) -> String {
        let mut out = String::new();
        if info.user_tag != 0 {
            let _ = write!(out, " hk:usertag=\"{}\"", info.user_tag);
        }
        if info.flags != 0 {
            let _ = write!(out, " hk:flags=\"{}\"", hex_flags(u64::from(info.flags)));
        }
        if info.sections != super::DEFAULT_SECTIONS
            || info.class_names_section != 0
            || info.contents_section != 2
        {
            let names: Vec<String> = info.sections.iter().map(|s| escape(s)).collect();
            let _ = write!(
                out,
                " hk:sections=\"{}\" hk:classnamessection=\"{}\" hk:contentssection=\"{}\"",
                names.join(" "),
                info.class_names_section,
                info.contents_section
            );
        }
        if let Some((max, block)) = &info.predicates {
            let _ = write!(
                out,
                " hk:predicates=\"{max} {}\"",
                crate::dump::to_hex(block)
            );
        }
        out
    }

    /// One top-level object: `<hkobject name class>` (with the class signature in the SDK
    /// dialect), its members, and a blank line.
    fn object(&mut self, doc: &Document, n: u32, o: &Json) -> Result<()> {
        let class = doc.graph.objects[n as usize].class;
        let name = self.name(u64::from(n));
        let _ = write!(
            self.out,
            "\t\t<hkobject name=\"{name}\" class=\"{}\"",
            self.schema.name_of(class)
        );
        if self.dialect == Dialect::Sdk {
            if let Ok(sig) = self.schema.signature_of(class) {
                let _ = write!(self.out, " signature=\"0x{sig:x}\"");
            }
        }
        self.out.push_str(">\n");
        self.fields(3, class, &o["fields"])
            .map_err(|e| e.in_(format!("object {name}")))?;
        self.out.push_str("\t\t</hkobject>\n\n");
        Ok(())
    }

    /// Class-name order, exports and capacity flags, when the file has them.
    fn extras(&mut self, json: &Json, info: &PackfileInfo) {
        let before = self.out.len();
        if let Some(names) = &info.class_names {
            self.out.push_str("\t<hk:classnames>\n");
            for n in names {
                let _ = writeln!(self.out, "\t\t<hk:class name=\"{}\"/>", escape(n));
            }
            self.out.push_str("\t</hk:classnames>\n\n");
        }
        for (o, name) in &info.exports {
            let _ = writeln!(
                self.out,
                "\t<hk:export object=\"{}\" name=\"{}\"/>",
                self.name(u64::from(o.0)),
                escape(name)
            );
        }
        for c in json["capacity_flags"].as_array().into_iter().flatten() {
            let _ = writeln!(
                self.out,
                "\t<hk:capacity object=\"{}\" path=\"{}\" flags=\"{}\"/>",
                self.name(c["object"].as_u64().unwrap_or(0)),
                escape(c["path"].as_str().unwrap_or("")),
                hex_flags(c["flags"].as_u64().unwrap_or(0)),
            );
        }
        if !info.exports.is_empty() || info.class_names.is_some() {
            self.out.push('\n');
        }
        self.hk_ns |= self.out.len() > before;
    }

    fn section(&mut self, info: &PackfileInfo, s: u64) {
        let name = info.sections.get(s as usize).map_or("", String::as_str);
        let first = info.sections.iter().position(|n| n == name);
        let _ = write!(self.out, "\t<hksection name=\"{}\"", escape(name));
        if first != Some(s as usize) {
            self.hk_ns = true;
            let _ = write!(self.out, " hk:index=\"{s}\"");
        }
        self.out.push_str(">\n\n");
    }

    fn fields(&mut self, depth: usize, c: ClassId, fields: &Json) -> Result<()> {
        let members = self.schema.members(c)?;
        for fm in members.iter() {
            let m = self.schema.member_of(fm);
            let v = &fields[m.name.as_str()];
            if self.dialect == Dialect::Sdk
                && self.ignored_flag != 0
                && m.flags & self.ignored_flag == self.ignored_flag
            {
                self.ignored += usize::from(!sdk::is_empty(v));
                let _ = writeln!(
                    self.out,
                    "{}<!-- {} SERIALIZE_IGNORED -->",
                    tabs(depth),
                    m.name
                );
                continue;
            }
            self.param(depth, (self.schema.name_of(fm.owner), m), &fm.shape, v)
                .map_err(|e| e.in_member(self.schema.name_of(fm.owner), &m.name))?;
        }
        Ok(())
    }

    fn open(&mut self, depth: usize, name: &str, attrs: &str) {
        let _ = write!(
            self.out,
            "{}<hkparam name=\"{}\"{attrs}>",
            tabs(depth),
            escape(name)
        );
    }

    fn param(&mut self, depth: usize, mm: Mem<'_>, shape: &Shape, v: &Json) -> Result<()> {
        let m = mm.1;
        match shape {
            Shape::Void | Shape::Unsupported(_) => Ok(()),
            Shape::Homogeneous => Err(bad(format!(
                "hk writes no Havok XML form of `homogeneousarray` members (`{}`): use a JSON or TOML dump (docs/havok-xml.md)",
                m.name
            ))),
            Shape::Struct(c) => {
                self.open(depth, &m.name, "");
                let _ = writeln!(self.out, "\n{}<hkobject>", tabs(depth + 1));
                self.fields(depth + 2, *c, v)?;
                let _ = writeln!(
                    self.out,
                    "{}</hkobject>\n{}</hkparam>",
                    tabs(depth + 1),
                    tabs(depth)
                );
                Ok(())
            }
            Shape::Array(_, elem) | Shape::CArray(_, elem) => {
                let items = v.as_array().map_or(&[][..], Vec::as_slice);
                let attrs = if matches!(shape, Shape::Array(..)) {
                    format!(" numelements=\"{}\"", items.len())
                } else {
                    String::new()
                };
                if items.is_empty() {
                    self.open(depth, &m.name, &attrs);
                    if self.dialect == Dialect::Exact {
                        self.out.truncate(self.out.len() - 1);
                        self.out.push_str(" />\n");
                    } else {
                        self.out.push_str("</hkparam>\n");
                    }
                    return Ok(());
                }
                self.open(depth, &m.name, &attrs);
                self.out.push('\n');
                self.elements(depth + 1, mm, elem, items)?;
                let _ = writeln!(self.out, "{}</hkparam>", tabs(depth));
                Ok(())
            }
            Shape::String => {
                let (attrs, text) = string(v);
                self.hk_ns |= !attrs.is_empty();
                self.open(depth, &m.name, &attrs);
                let _ = writeln!(self.out, "{text}</hkparam>");
                Ok(())
            }
            _ => {
                let text = self.leaf(mm, shape, v);
                self.open(depth, &m.name, "");
                let _ = writeln!(self.out, "{text}</hkparam>");
                Ok(())
            }
        }
    }

    fn elements(&mut self, depth: usize, m: Mem<'_>, elem: &Shape, items: &[Json]) -> Result<()> {
        match elem {
            Shape::Struct(c) => {
                for (i, x) in items.iter().enumerate() {
                    let _ = writeln!(self.out, "{}<hkobject>", tabs(depth));
                    self.fields(depth + 1, *c, x).map_err(|e| e.in_index(i))?;
                    let _ = writeln!(self.out, "{}</hkobject>", tabs(depth));
                }
            }
            Shape::String => {
                for x in items {
                    let (attrs, text) = string(x);
                    self.hk_ns |= !attrs.is_empty();
                    let _ = writeln!(
                        self.out,
                        "{}<hkcstring{attrs}>{text}</hkcstring>",
                        tabs(depth)
                    );
                }
            }
            Shape::Array(..) | Shape::CArray(..) | Shape::Void | Shape::Unsupported(_) => {
                return Err(bad(format!(
                    "Havok XML has no form for an array of `{}`",
                    elem.describe(self.schema)
                )))
            }
            Shape::Floats(_) | Shape::Variant => {
                for x in items {
                    let text = self.leaf(m, elem, x);
                    let _ = writeln!(self.out, "{}{text}", tabs(depth));
                }
            }
            _ => {
                for line in items.chunks(PER_LINE) {
                    let words: Vec<String> = line.iter().map(|x| self.leaf(m, elem, x)).collect();
                    let _ = writeln!(self.out, "{}{}", tabs(depth), words.join(" "));
                }
            }
        }
        Ok(())
    }

    /// The text of a value written inline (numbers, names, tuples).
    fn leaf(&mut self, m: Mem<'_>, shape: &Shape, v: &Json) -> String {
        match shape {
            Shape::Bool => match v {
                Json::Bool(b) => b.to_string(),
                other => other.to_string(),
            },
            Shape::Int { .. } | Shape::ULong => {
                enum_text(self.schema, m, v, self.dialect == Dialect::Sdk)
                    .unwrap_or_else(|| v.to_string())
            }
            Shape::Real => self.float(v, false),
            Shape::Half => self.float(v, true),
            Shape::Floats(_) => {
                let qs = m.1.ty == TypeKind::QsTransform || m.1.subtype == TypeKind::QsTransform;
                self.floats(v, qs)
            }
            Shape::Pointer => self.pointer(v),
            Shape::Variant => {
                let object = self.pointer(&v["object"]);
                format!("({object} {})", self.pointer(&v["class"]))
            }
            _ => v.to_string(),
        }
    }
}

/// A string's attributes and text: null as Havok writes it (U+2400), bytes that are not
/// UTF-8 in `hk:bytes`.
fn string(v: &Json) -> (String, String) {
    match v {
        Json::String(s) => (String::new(), escape(s)),
        Json::Object(m) if m.contains_key("bytes") => (
            format!(" hk:bytes=\"{}\"", m["bytes"].as_str().unwrap_or("")),
            String::new(),
        ),
        _ if is_null(v) => (String::new(), NULL_STRING.into()),
        _ => (String::new(), String::new()),
    }
}

/// Whether a dumped value is null: JSON `null` or an empty object.
fn is_null(v: &serde_json::Value) -> bool {
    v.is_null() || v.as_object().is_some_and(serde_json::Map::is_empty)
}
