//! A packfile document as Havok XML text (docs/havok-xml.md): the dump's objects written
//! member by member through their shapes, the container facts Havok's XML has no place for
//! in attributes and elements of hk's namespace.

use std::fmt::Write as _;

use serde_json::Value as Json;

use super::{enum_text, hex_flags, object_name, NS, NULL_STRING};
use crate::dump::to_json;
use crate::error::{Error, Result, WriteError};
use crate::file::{Document, Origin};
use crate::packfile::PackfileInfo;
use crate::schema::{ClassId, Member, Schema, Shape};

/// A member and the name of the class declaring it (enums resolve from there).
type Mem<'a> = (&'a str, &'a Member);

/// Array elements per line for numbers and names (as Havok writes them).
const PER_LINE: usize = 16;

fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

/// The document as Havok XML.
///
/// # Errors
/// A tagfile (Havok XML here holds packfiles), or a value XML cannot hold (an array of
/// arrays).
pub fn to_xml(doc: &Document) -> Result<String> {
    let Origin::Packfile(info) = &doc.origin else {
        return Err(bad("Havok XML holds packfiles; this document is a tagfile"));
    };
    let json = to_json(doc);
    let schema = doc.graph.schema();
    let mut w = W {
        schema,
        out: String::new(),
    };
    w.header(info, doc.graph.root.0);
    w.extras(&json, info);
    let objects = json["objects"].as_array().map_or(&[][..], Vec::as_slice);
    let mut open: Option<u64> = None;
    for (n, o) in objects.iter().enumerate() {
        let section = o["section"].as_u64().unwrap_or(0);
        if open != Some(section) {
            if open.is_some() {
                w.out.push_str("\t</hksection>\n\n");
            }
            w.section(info, section);
            open = Some(section);
        }
        let class = doc.graph.objects[n].class;
        let _ = writeln!(
            w.out,
            "\t\t<hkobject name=\"{}\" class=\"{}\">",
            object_name(n as u64),
            schema.name_of(class)
        );
        w.fields(3, class, &o["fields"])
            .map_err(|e| e.in_(format!("object {}", object_name(n as u64))))?;
        w.out.push_str("\t\t</hkobject>\n\n");
    }
    if open.is_none() {
        w.section(info, u64::from(info.contents_section));
    }
    w.out.push_str("\t</hksection>\n\n</hkpackfile>\n");
    Ok(w.out)
}

struct W<'s> {
    schema: &'s Schema,
    out: String,
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

fn floats(j: &Json) -> String {
    let items = j.as_array().map_or(&[][..], Vec::as_slice);
    let mut s = String::new();
    for group in items.chunks(4) {
        s.push('(');
        let parts: Vec<String> = group.iter().map(float).collect();
        s.push_str(&parts.join(" "));
        s.push(')');
    }
    s
}

fn pointer(j: &Json) -> String {
    match j {
        Json::Number(n) => object_name(n.as_u64().unwrap_or(0)),
        Json::Object(m) => {
            if let Some(name) = m.get("import").and_then(Json::as_str) {
                format!("import:{name}")
            } else {
                let id = m.get("object").and_then(Json::as_u64).unwrap_or(0);
                let path = m.get("path").and_then(Json::as_str).unwrap_or("");
                format!("{}@{path}", object_name(id))
            }
        }
        _ => "null".into(),
    }
}

impl W<'_> {
    fn header(&mut self, info: &PackfileInfo, root: u32) {
        let digits = info.layout.tag();
        let _ = write!(
            self.out,
            "<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"{}\" \
             contentsversion=\"{}\" toplevelobject=\"{}\" xmlns:hk=\"{NS}\" hk:layout=\"{digits}\"",
            info.file_version,
            escape(&info.contents_version),
            object_name(u64::from(root)),
        );
        if info.user_tag != 0 {
            let _ = write!(self.out, " hk:usertag=\"{}\"", info.user_tag);
        }
        if info.flags != 0 {
            let _ = write!(
                self.out,
                " hk:flags=\"{}\"",
                hex_flags(u64::from(info.flags))
            );
        }
        if info.sections != super::DEFAULT_SECTIONS
            || info.class_names_section != 0
            || info.contents_section != 2
        {
            let names: Vec<String> = info.sections.iter().map(|s| escape(s)).collect();
            let _ = write!(
                self.out,
                " hk:sections=\"{}\" hk:classnamessection=\"{}\" hk:contentssection=\"{}\"",
                names.join(" "),
                info.class_names_section,
                info.contents_section
            );
        }
        if let Some((max, block)) = &info.predicates {
            let _ = write!(
                self.out,
                " hk:predicates=\"{max} {}\"",
                crate::dump::to_hex(block)
            );
        }
        self.out.push_str(">\n\n");
    }

    /// Class-name order, exports and capacity flags, when the file has them.
    fn extras(&mut self, json: &Json, info: &PackfileInfo) {
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
                object_name(u64::from(o.0)),
                escape(name)
            );
        }
        for c in json["capacity_flags"].as_array().into_iter().flatten() {
            let _ = writeln!(
                self.out,
                "\t<hk:capacity object=\"{}\" path=\"{}\" flags=\"{}\"/>",
                object_name(c["object"].as_u64().unwrap_or(0)),
                escape(c["path"].as_str().unwrap_or("")),
                hex_flags(c["flags"].as_u64().unwrap_or(0)),
            );
        }
        if !info.exports.is_empty() || info.class_names.is_some() {
            self.out.push('\n');
        }
    }

    fn section(&mut self, info: &PackfileInfo, s: u64) {
        let name = info.sections.get(s as usize).map_or("", String::as_str);
        let first = info.sections.iter().position(|n| n == name);
        let _ = write!(self.out, "\t<hksection name=\"{}\"", escape(name));
        if first != Some(s as usize) {
            let _ = write!(self.out, " hk:index=\"{s}\"");
        }
        self.out.push_str(">\n\n");
    }

    fn fields(&mut self, depth: usize, c: ClassId, fields: &Json) -> Result<()> {
        let members = self.schema.members(c)?;
        for fm in members.iter() {
            let m = self.schema.member_of(fm);
            let v = &fields[m.name.as_str()];
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
                    self.out.truncate(self.out.len() - 1);
                    self.out.push_str(" />\n");
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
                    let _ = writeln!(self.out, "{}{}", tabs(depth), self.leaf(m, elem, x));
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
    fn leaf(&self, m: Mem<'_>, shape: &Shape, v: &Json) -> String {
        match shape {
            Shape::Bool => match v {
                Json::Bool(b) => b.to_string(),
                other => other.to_string(),
            },
            Shape::Int { .. } | Shape::ULong => {
                enum_text(self.schema, m.0, m.1, v).unwrap_or_else(|| v.to_string())
            }
            Shape::Real | Shape::Half => float(v),
            Shape::Floats(_) => floats(v),
            Shape::Pointer => pointer(v),
            Shape::Variant => format!("({} {})", pointer(&v["object"]), pointer(&v["class"])),
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
