//! Havok XML read into a dump (then through the dump's checks into a graph): a small
//! element tree with positions, then objects named and their `hkparam`s matched to the
//! schema's members by name.

use std::collections::HashMap;
use std::sync::Arc;

use quick_xml::events::{BytesStart, Event};
use serde_json::{json, Map, Value as Json};

use super::{enum_value, parse_int, DEFAULT_SECTIONS};
use crate::dump::{from_json, hex_bytes, Built, DUMP_VERSION};
use crate::error::{Error, Result, WriteError};
use crate::file::Schemas;
use crate::rules::LayoutRules;
use crate::schema::{ClassId, Member, Schema, Shape};

/// Elements deeper than this are refused (structs nest a few levels in practice).
const MAX_DEPTH: usize = 128;

/// Whether `bytes` look like XML (a `<` first, after a byte-order mark and blanks).
pub fn is_xml(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    b.iter()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|c| *c == b'<')
}

/// One element: name, attributes, children, text, and its byte position.
#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
    text: String,
    pos: usize,
}

impl Node {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Byte positions as 1-based lines and columns.
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    fn error(&self, pos: usize, message: impl Into<String>) -> Error {
        let line = self.starts.partition_point(|s| *s <= pos).max(1);
        let start = self.starts[line - 1];
        let end = pos.min(self.text.len());
        let column = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count())
            + 1;
        Error::write(WriteError::Xml {
            line,
            column,
            message: message.into(),
        })
    }
}

fn start_node(lines: &Lines<'_>, e: &BytesStart<'_>, pos: usize) -> Result<Node> {
    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| lines.error(pos, err.to_string()))?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a
            .unescape_value()
            .map_err(|err| lines.error(pos, err.to_string()))?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Node {
        name,
        attrs,
        pos,
        ..Node::default()
    })
}

/// The element tree of `text`.
fn parse(lines: &Lines<'_>) -> Result<Node> {
    let mut reader = quick_xml::Reader::from_str(lines.text);
    let mut stack: Vec<Node> = vec![Node::default()];
    loop {
        let pos = reader.buffer_position() as usize;
        let event = reader
            .read_event()
            .map_err(|e| lines.error(reader.error_position() as usize, e.to_string()))?;
        let top = stack.len() - 1;
        match event {
            Event::Start(e) => {
                if stack.len() > MAX_DEPTH {
                    return Err(lines.error(pos, format!("elements nest deeper than {MAX_DEPTH}")));
                }
                stack.push(start_node(lines, &e, pos)?);
            }
            Event::Empty(e) => {
                let node = start_node(lines, &e, pos)?;
                stack[top].children.push(node);
            }
            Event::End(_) => {
                if stack.len() < 2 {
                    return Err(lines.error(pos, "an end tag closes nothing"));
                }
                let node = stack.pop().unwrap_or_default();
                stack[top - 1].children.push(node);
            }
            Event::Text(t) => {
                let s = t.unescape().map_err(|e| lines.error(pos, e.to_string()))?;
                stack[top].text.push_str(&s);
            }
            Event::CData(t) => {
                stack[top]
                    .text
                    .push_str(&String::from_utf8_lossy(t.as_ref()));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if stack.len() != 1 {
        return Err(lines.error(lines.text.len(), "the file ends inside an element"));
    }
    let mut doc = stack.pop().unwrap_or_default();
    doc.children
        .pop()
        .filter(|_| doc.children.is_empty())
        .ok_or_else(|| lines.error(0, "expected one <hkpackfile> element"))
}

/// Reads a Havok XML file (Havok's or hk's) into a graph and packfile facts: the schema is
/// the catalog's folder for its `classversion` and `contentsversion`, the layout `layout`,
/// else `hk:layout`, else the generation's default.
///
/// # Errors
/// XML that does not parse or is not a `<hkpackfile>` (with line and column), a class,
/// member or object name that does not exist, or a value that does not fit its member
/// (with the object and member).
pub fn from_xml(text: &str, schemas: &Schemas, layout: Option<LayoutRules>) -> Result<Built> {
    let lines = Lines::new(text);
    let root = parse(&lines)?;
    if root.name != "hkpackfile" {
        return Err(lines.error(root.pos, format!("<{}> is not <hkpackfile>", root.name)));
    }
    let need = |key: &str| {
        root.attr(key)
            .ok_or_else(|| lines.error(root.pos, format!("<hkpackfile> has no `{key}`")))
    };
    let class_version: u32 = need("classversion")?
        .parse()
        .map_err(|_| lines.error(root.pos, "`classversion` is not a number"))?;
    let contents = need("contentsversion")?.to_string();
    // XML stores no signatures to check a neighbouring folder against: the folder of the
    // version, else the nearest one of the same class version (the SDK's 2012.2 tools
    // write `hk_2012.1.0-r1`), which `open_xml` reports as not checked.
    let catalog = schemas.catalog();
    let entry = catalog
        .packfile(class_version, &contents)
        .or_else(|| {
            catalog
                .packfile_neighbours(class_version, &contents)
                .into_iter()
                .find(|e| e.generation.file_version == class_version)
        })
        .ok_or_else(|| {
            Error::from(crate::error::SchemaError::NoMatch(format!(
                "no packfile schema folder for class version {class_version} ({contents})"
            )))
        })?;
    let name = entry.name.clone();
    let schema = schemas.load(&name)?;
    let layout = match (layout, root.attr("hk:layout")) {
        (Some(l), _) => l,
        (None, Some(tag)) => LayoutRules::from_tag(tag).ok_or_else(|| {
            lines.error(
                root.pos,
                format!("hk:layout `{tag}` is not four layout digits"),
            )
        })?,
        (None, None) => schema.generation.layout,
    };
    let r = XmlReader {
        lines: &lines,
        schema: &schema,
        names: HashMap::new(),
    };
    r.document(&root, &name, class_version, &contents, layout)
}

struct XmlReader<'a> {
    lines: &'a Lines<'a>,
    schema: &'a Arc<Schema>,
    names: HashMap<&'a str, u64>,
}

/// A member and the name of the class declaring it.
type Mem<'a> = (&'a str, &'a Member);

fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

impl<'a> XmlReader<'a> {
    fn document(
        mut self,
        root: &'a Node,
        schema_name: &str,
        class_version: u32,
        contents: &str,
        layout: LayoutRules,
    ) -> Result<Built> {
        let l = self.lines;
        let sections: Vec<String> = match root.attr("hk:sections") {
            Some(s) => s.split(' ').map(String::from).collect(),
            None => DEFAULT_SECTIONS.iter().map(|s| s.to_string()).collect(),
        };
        let num = |key: &str, default: u64| -> Result<u64> {
            root.attr(key).map_or(Ok(default), |v| {
                parse_int(v)
                    .and_then(|n| u64::try_from(n).ok())
                    .ok_or_else(|| l.error(root.pos, format!("`{key}` is not a number")))
            })
        };
        // Objects, named in document order.
        let mut objects: Vec<(&Node, u64)> = Vec::new();
        for s in &root.children {
            match s.name.as_str() {
                "hksection" => {
                    let name = s.attr("name").unwrap_or("__data__");
                    let index = match s.attr("hk:index") {
                        Some(i) => i.parse().map_err(|_| l.error(s.pos, "bad hk:index"))?,
                        None => sections.iter().position(|n| n == name).ok_or_else(|| {
                            l.error(s.pos, format!("no section `{name}` in the file's sections"))
                        })? as u64,
                    };
                    for o in &s.children {
                        if o.name != "hkobject" {
                            return Err(l.error(
                                o.pos,
                                format!("<{}> in a section (expected <hkobject>)", o.name),
                            ));
                        }
                        let name = o
                            .attr("name")
                            .ok_or_else(|| l.error(o.pos, "an <hkobject> without a name"))?;
                        if self.names.insert(name, objects.len() as u64).is_some() {
                            return Err(l.error(o.pos, format!("two objects are named `{name}`")));
                        }
                        objects.push((o, index));
                    }
                }
                "hk:classnames" | "hk:export" | "hk:capacity" => {}
                other => return Err(l.error(s.pos, format!("<{other}> in <hkpackfile>"))),
            }
        }
        let mut list = Vec::with_capacity(objects.len());
        for (n, (o, section)) in objects.iter().enumerate() {
            let class_name = o
                .attr("class")
                .ok_or_else(|| l.error(o.pos, "an <hkobject> without a class"))?;
            let class = self
                .schema
                .require(class_name)
                .map_err(|e| l.error(o.pos, e.to_string()))?;
            let fields = self.fields(class, o)?;
            list.push(json!({"id": n, "class": class_name, "section": section, "fields": fields}));
        }
        let root_id = match root.attr("toplevelobject") {
            Some(name) => *self.names.get(name).ok_or_else(|| {
                l.error(root.pos, format!("toplevelobject `{name}` names no object"))
            })?,
            None => 0,
        };
        let mut class_names = None;
        let mut exports = Vec::new();
        let mut flags = Vec::new();
        for e in &root.children {
            let attr = |k: &str| {
                e.attr(k)
                    .ok_or_else(|| l.error(e.pos, format!("<{}> has no `{k}`", e.name)))
            };
            let object = |k: &str| -> Result<u64> {
                let name = attr(k)?;
                self.names
                    .get(name)
                    .copied()
                    .ok_or_else(|| l.error(e.pos, format!("`{name}` names no object")))
            };
            match e.name.as_str() {
                "hk:classnames" => {
                    let names: Result<Vec<&str>> = e
                        .children
                        .iter()
                        .map(|c| {
                            c.attr("name")
                                .ok_or_else(|| l.error(c.pos, "<hk:class> has no name"))
                        })
                        .collect();
                    class_names = Some(names?);
                }
                "hk:export" => {
                    exports.push(json!({"object": object("object")?, "name": attr("name")?}))
                }
                "hk:capacity" => {
                    let f = parse_int(attr("flags")?)
                        .ok_or_else(|| l.error(e.pos, "bad capacity flags"))?;
                    flags.push(
                        json!({"object": object("object")?, "path": attr("path")?, "flags": f}),
                    );
                }
                _ => {}
            }
        }
        let predicates = match root.attr("hk:predicates") {
            Some(p) => {
                let (max, block) = p.split_once(' ').unwrap_or((p, ""));
                let max: i64 = max
                    .parse()
                    .map_err(|_| l.error(root.pos, "bad hk:predicates"))?;
                hex_bytes(block).ok_or_else(|| l.error(root.pos, "bad hk:predicates"))?;
                json!({"max": max, "block": block})
            }
            None => Json::Null,
        };
        let doc = json!({
            "hk_dump": DUMP_VERSION,
            "schema": schema_name,
            "file": {
                "file_version": class_version,
                "contents_version": contents,
                "layout": {"pointer_size": layout.pointer_size, "endian": layout.endian.name(),
                           "reuse_padding": layout.reuse_padding, "empty_base": layout.empty_base},
                "user_tag": num("hk:usertag", 0)?,
                "flags": num("hk:flags", 0)?,
                "sections": sections,
                "class_names_section": num("hk:classnamessection", 0)?,
                "contents_section": num("hk:contentssection", 2)?,
                "predicates": predicates,
                "class_names": class_names,
                "exports": exports,
            },
            "capacity_flags": flags,
            "root": root_id,
            "objects": list,
        });
        from_json(&doc, self.schema).map_err(|e| match e.path().first() {
            Some(p) => {
                // Name the object as the XML does.
                let n: Option<usize> = p
                    .strip_prefix("object #")
                    .and_then(|r| r.split(' ').next())
                    .and_then(|d| d.parse().ok());
                match n.and_then(|n| objects.get(n)) {
                    Some((o, _)) => e.in_(format!(
                        "line {}, object {}",
                        self.line_of(o.pos),
                        o.attr("name").unwrap_or("?")
                    )),
                    None => e,
                }
            }
            None => e,
        })
    }

    fn line_of(&self, pos: usize) -> usize {
        self.lines.starts.partition_point(|s| *s <= pos).max(1)
    }

    /// The `hkparam`s of `node` as a dump's fields of class `c`; members the XML leaves out
    /// take their defaults (zero, null, empty).
    fn fields(&self, c: ClassId, node: &Node) -> Result<Json> {
        let l = self.lines;
        let members = self.schema.members(c)?;
        let mut given: HashMap<&str, &Node> = HashMap::new();
        for p in &node.children {
            if p.name != "hkparam" {
                return Err(l.error(
                    p.pos,
                    format!("<{}> in an object (expected <hkparam>)", p.name),
                ));
            }
            let name = p
                .attr("name")
                .ok_or_else(|| l.error(p.pos, "an <hkparam> without a name"))?;
            if !members
                .iter()
                .any(|m| self.schema.member_of(m).name == name)
            {
                return Err(l.error(
                    p.pos,
                    format!("`{}` has no member `{name}`", self.schema.name_of(c)),
                ));
            }
            if given.insert(name, p).is_some() {
                return Err(l.error(p.pos, format!("member `{name}` is given twice")));
            }
        }
        let mut out = Map::new();
        for fm in members.iter() {
            let m = self.schema.member_of(fm);
            let owner = self.schema.name_of(fm.owner);
            let v = match given.get(m.name.as_str()) {
                Some(p) => self.param((owner, m), &fm.shape, p).map_err(|e| {
                    if matches!(
                        e.kind(),
                        crate::error::ErrorKind::Write(WriteError::Xml { .. })
                    ) {
                        e
                    } else {
                        l.error(p.pos, format!("{owner}.{}: {e}", m.name))
                    }
                })?,
                None => default(self.schema, &fm.shape),
            };
            out.insert(m.name.clone(), v);
        }
        Ok(Json::Object(out))
    }

    fn param(&self, m: Mem<'_>, shape: &Shape, p: &Node) -> Result<Json> {
        let l = self.lines;
        match shape {
            Shape::Struct(c) => {
                let o = p
                    .children
                    .iter()
                    .find(|c| c.name == "hkobject")
                    .ok_or_else(|| l.error(p.pos, "a struct member holds an <hkobject>"))?;
                self.fields(*c, o)
            }
            Shape::Array(_, elem) | Shape::CArray(_, elem) => {
                let items = self.elements(m, elem, p)?;
                if let Some(n) = p.attr("numelements") {
                    if n.parse::<usize>().ok() != Some(items.len()) {
                        return Err(l.error(
                            p.pos,
                            format!("numelements=\"{n}\" but {} elements", items.len()),
                        ));
                    }
                }
                Ok(Json::Array(items))
            }
            Shape::String => Ok(string(p)),
            _ => {
                let tokens = tokens(&p.text);
                match tokens.as_slice() {
                    [] if matches!(shape, Shape::Void | Shape::Unsupported(_)) => Ok(Json::Null),
                    [t] => self.leaf(m, shape, t),
                    _ if matches!(shape, Shape::Floats(_)) => self.floats(shape, &tokens),
                    _ => Err(bad(format!(
                        "expected one value, found `{}`",
                        p.text.trim()
                    ))),
                }
            }
        }
    }

    fn elements(&self, m: Mem<'_>, elem: &Shape, p: &Node) -> Result<Vec<Json>> {
        let l = self.lines;
        match elem {
            Shape::Struct(c) => p
                .children
                .iter()
                .map(|o| {
                    if o.name != "hkobject" {
                        return Err(l.error(
                            o.pos,
                            format!("<{}> in an array of structs (expected <hkobject>)", o.name),
                        ));
                    }
                    self.fields(*c, o)
                })
                .collect(),
            Shape::String => Ok(p.children.iter().map(string).collect()),
            Shape::Floats(n) => {
                let tokens = tokens(&p.text);
                let per = usize::from(*n).div_ceil(4).max(1);
                tokens.chunks(per).map(|c| self.floats(elem, c)).collect()
            }
            _ => tokens(&p.text)
                .iter()
                .map(|t| self.leaf(m, elem, t))
                .collect(),
        }
    }

    /// A float tuple from `(…)` groups; a group of three (Havok writes vectors of
    /// transforms so) takes a zero fourth.
    fn floats(&self, shape: &Shape, groups: &[Token<'_>]) -> Result<Json> {
        let Shape::Floats(n) = shape else {
            return Err(bad("not a float tuple"));
        };
        let mut out = Vec::with_capacity(usize::from(*n));
        for g in groups {
            let Token::Group(items) = g else {
                return Err(bad(format!("expected `(x y z w)` groups of {n} floats")));
            };
            for x in items {
                out.push(float(x)?);
            }
            if items.len() == 3 && *n >= 4 {
                out.push(json!(0.0));
            }
        }
        if out.len() != usize::from(*n) {
            return Err(bad(format!("expected {n} floats, found {}", out.len())));
        }
        Ok(Json::Array(out))
    }

    fn leaf(&self, m: Mem<'_>, shape: &Shape, t: &Token<'_>) -> Result<Json> {
        let word = match t {
            Token::Word(w) => *w,
            Token::Group(items) => {
                return match (shape, items.as_slice()) {
                    (Shape::Variant, [o, c]) => {
                        Ok(json!({"object": self.pointer(o)?, "class": self.pointer(c)?}))
                    }
                    (Shape::Floats(_), _) => self.floats(shape, std::slice::from_ref(t)),
                    _ => Err(bad(format!("unexpected `({})`", items.join(" ")))),
                }
            }
        };
        match shape {
            Shape::Bool => match word {
                "true" => Ok(json!(true)),
                "false" => Ok(json!(false)),
                w => parse_int(w)
                    .map(|n| json!(n))
                    .ok_or_else(|| bad(format!("`{w}` is not true or false"))),
            },
            Shape::Int { signed, .. } => {
                if !signed {
                    if let Ok(u) = word.parse::<u64>() {
                        return Ok(json!(u));
                    }
                }
                enum_value(self.schema, m.0, m.1, word)
                    .map(|n| {
                        if n < 0 && !signed {
                            json!(n as u64)
                        } else {
                            json!(n)
                        }
                    })
                    .ok_or_else(|| {
                        bad(format!(
                            "`{word}` is not a number or a name of the member's enum"
                        ))
                    })
            }
            Shape::ULong => word
                .parse::<u64>()
                .ok()
                .or_else(|| parse_int(word).map(|n| n as u64))
                .map(|n| json!(n))
                .ok_or_else(|| bad(format!("`{word}` is not a number"))),
            Shape::Real | Shape::Half => float(word),
            Shape::Pointer => self.pointer(word),
            Shape::Variant => Ok(json!({"object": self.pointer(word)?, "class": null})),
            _ => Err(bad(format!(
                "`{word}` where the member takes {}",
                shape.describe(self.schema)
            ))),
        }
    }

    fn pointer(&self, word: &str) -> Result<Json> {
        if word == "null" {
            return Ok(Json::Null);
        }
        if let Some(&id) = self.names.get(word) {
            return Ok(json!(id));
        }
        if let Some(name) = word.strip_prefix("import:") {
            return Ok(json!({"import": name}));
        }
        if let Some((obj, path)) = word.split_once('@') {
            if let Some(&id) = self.names.get(obj) {
                return Ok(json!({"object": id, "path": path}));
            }
        }
        Err(bad(format!("`{word}` names no object")))
    }
}

/// A float's text: what `%f` or Rust write, the `1.#INF` forms of MSVC, or `f32:0x…` /
/// `f16:0x…` bits.
fn float(w: &str) -> Result<Json> {
    if w.starts_with("f32:0x") || w.starts_with("f16:0x") {
        return Ok(json!(w));
    }
    let special = match w.trim_start_matches('-') {
        s if s.starts_with("1.#INF") || s.eq_ignore_ascii_case("inf") => Some(f32::INFINITY),
        s if s.starts_with("1.#") || s.eq_ignore_ascii_case("nan") => Some(f32::NAN),
        _ => None,
    };
    let f = match special {
        Some(s) if w.starts_with('-') => -s,
        Some(s) => s,
        None => {
            let f: f32 = w
                .parse()
                .map_err(|_| bad(format!("`{w}` is not a number")))?;
            if !f.is_finite() {
                return Err(bad(format!("`{w}` is out of the f32 range")));
            }
            f
        }
    };
    Ok(if f.is_finite() {
        json!(f64::from(f))
    } else {
        json!(format!("f32:0x{:08X}", f.to_bits()))
    })
}

/// A string element's value: null (U+2400), bytes (`hk:bytes`), or its text.
fn string(p: &Node) -> Json {
    if let Some(hex) = p.attr("hk:bytes") {
        return json!({"bytes": hex});
    }
    if p.text == "\u{2400}" {
        return Json::Null;
    }
    json!(p.text)
}

#[derive(Debug)]
enum Token<'t> {
    Word(&'t str),
    Group(Vec<&'t str>),
}

/// Words and `( … )` groups of an element's text.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return out;
        }
        if let Some(r) = rest.strip_prefix('(') {
            let end = r.find(')').unwrap_or(r.len());
            out.push(Token::Group(r[..end].split_whitespace().collect()));
            rest = r.get(end + 1..).unwrap_or("");
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '(')
                .unwrap_or(rest.len());
            out.push(Token::Word(&rest[..end]));
            rest = &rest[end..];
        }
    }
}

/// The value a member takes when the XML leaves it out.
fn default(schema: &Schema, shape: &Shape) -> Json {
    match shape {
        Shape::Void | Shape::Unsupported(_) | Shape::Pointer | Shape::String => Json::Null,
        Shape::Bool => json!(false),
        Shape::Int { .. } | Shape::ULong => json!(0),
        Shape::Real | Shape::Half => json!(0.0),
        Shape::Floats(n) => Json::Array(vec![json!(0.0); usize::from(*n)]),
        Shape::Variant => json!({"object": null, "class": null}),
        Shape::Struct(c) => {
            let mut m = Map::new();
            if let Ok(ms) = schema.members(*c) {
                for fm in ms.iter() {
                    m.insert(
                        schema.member_of(fm).name.clone(),
                        default(schema, &fm.shape),
                    );
                }
            }
            Json::Object(m)
        }
        Shape::Array(..) => Json::Array(Vec::new()),
        Shape::CArray(n, e) => Json::Array(vec![default(schema, e); usize::from(*n)]),
    }
}
