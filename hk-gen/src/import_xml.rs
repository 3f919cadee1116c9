//! Public type dumps in XML, read as TAG0 type tables (`hk schema import`): HKLib's type
//! registry (`<HavokTypeRegistry>`, 2018.1 and later) and the `<types>` listing of TagTools
//! and soulstruct-havok (2010 to 2016). Both spell out the records a tagfile's TYPE
//! section holds (docs/tagfile-format.md §3): a name with template parameters, a parent,
//! a format word, a subtype, a version, a size and alignment, type flags, members with
//! flags and offsets, interfaces and the THSH hash. Each is turned into a
//! [`TypeTable`] and the classes are extracted from it as from a tagfile's own table.

use std::collections::HashMap;
use std::path::Path;

use hk_runtime::tagfile::types::{Body, Param, TagMember, TagType, TypeTable};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::error::{Error, Result};

/// The XML dialects of type dumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// HKLib's `HavokTypeRegistry<SDK>.xml`: `<HavokType Id Name Parent Format SubType Size
    /// Alignment Flags Version Hash>` with `<Template>`, `<Members>`, `<Interfaces>`.
    Registry,
    /// TagTools' `TypeDatabase.xml` and soulstruct-havok's `Types<year>.xml`: `<type id
    /// name parent flags subTypeFlags pointer version byteSize alignment abstractValue
    /// hash>` with `<template>`, `<member>`, `<interface>`; `flags` is the body's `opt`.
    Types,
}

/// One type as the dump states it, before its references are numbered.
#[derive(Debug, Default)]
struct Raw {
    id: u64,
    name: String,
    params: Vec<(String, u64)>,
    body: Option<Body>,
    hash: Option<u32>,
    /// Byte position of the element, for messages.
    at: usize,
}

/// A dump read as a type table, and the SDK version it names (the registry's `Version`).
#[derive(Debug)]
pub struct Dump {
    /// The table: index 0 is the null type, then the dump's types in document order.
    pub table: TypeTable,
    /// `Version` of a registry, when it states one.
    pub version: Option<String>,
    /// Which dialect it was.
    pub dialect: Dialect,
}

/// Line and column (1-based) of byte `at` of `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..at.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, col)
}

struct Ctx<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, at: usize, what: &str, message: impl std::fmt::Display) -> Error {
        let (line, col) = line_col(self.text, at);
        let what = if what.is_empty() {
            String::new()
        } else {
            format!(" (type {what})")
        };
        Error::Import {
            input: self.path.to_path_buf(),
            message: format!("line {line}, column {col}{what}: {message}"),
        }
    }

    /// The attributes of `e` by name.
    fn attrs(&self, e: &BytesStart<'_>, at: usize) -> Result<HashMap<String, String>> {
        let mut out = HashMap::new();
        for a in e.attributes() {
            let a = a.map_err(|x| self.err(at, "", x))?;
            let k = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            let v = a.unescape_value().map_err(|x| self.err(at, "", x))?;
            out.insert(k, v.into_owned());
        }
        Ok(out)
    }
}

/// A number attribute, or `None` when absent.
fn num(
    cx: &Ctx<'_>,
    a: &HashMap<String, String>,
    key: &str,
    at: usize,
    ty: &str,
) -> Result<Option<u64>> {
    match a.get(key) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| cx.err(at, ty, format!("`{key}=\"{v}\"` is not a number"))),
    }
}

/// The dialect of a dump from its root element.
///
/// # Errors
/// XML that does not parse, or a root element of neither dialect.
pub fn detect(path: &Path) -> Result<Dialect> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let cx = Ctx { path, text: &text };
    let mut r = Reader::from_str(text.trim_start_matches('\u{feff}'));
    let skip = text.len() - text.trim_start_matches('\u{feff}').len();
    loop {
        let at = r.buffer_position() as usize + skip;
        match r.read_event().map_err(|e| cx.err(at, "", e))? {
            Event::Start(e) | Event::Empty(e) => {
                return match e.name().as_ref() {
                    b"HavokTypeRegistry" => Ok(Dialect::Registry),
                    b"types" => Ok(Dialect::Types),
                    other => Err(cx.err(
                        at,
                        "",
                        format!(
                            "root element <{}> is neither <HavokTypeRegistry> (HKLib) nor <types> (TagTools, soulstruct-havok)",
                            String::from_utf8_lossy(other)
                        ),
                    )),
                };
            }
            Event::Eof => return Err(cx.err(at, "", "no root element")),
            _ => {}
        }
    }
}

/// Reads the dump at `path` as a type table.
///
/// # Errors
/// XML that does not parse, an element or attribute out of place, a number that is not
/// one, a reference to a type id the dump lacks, or two types of one id — each with its
/// line and column and the type it is about.
pub fn read(path: &Path, dialect: Dialect) -> Result<Dump> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let cx = Ctx { path, text: &text };
    let body = text.trim_start_matches('\u{feff}');
    let skip = text.len() - body.len();
    let mut r = Reader::from_str(body);
    r.config_mut().trim_text(true);
    let mut raws: Vec<Raw> = Vec::new();
    let mut version = None;
    // The type whose element is open (members, templates and interfaces go to it).
    let mut open: Option<usize> = None;
    loop {
        let before = r.buffer_position() as usize + skip;
        let ev = r.read_event().map_err(|e| cx.err(before, "", e))?;
        // An element's position is its `<`: the last one before the reader's position
        // (attribute values hold no raw `<`).
        let end = r.buffer_position() as usize + skip;
        let at = text[..end.min(text.len())].rfind('<').unwrap_or(before);
        let (e, empty) = match &ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                if matches!(e.name().as_ref(), b"HavokType" | b"type") {
                    open = None;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let a = cx.attrs(e, at)?;
        let tname = open.map_or(String::new(), |i| raws[i].name.clone());
        match (dialect, e.name().as_ref()) {
            (Dialect::Registry, b"HavokTypeRegistry") => version = a.get("Version").cloned(),
            (Dialect::Registry, b"HavokType") | (Dialect::Types, b"type") => {
                let raw = match dialect {
                    Dialect::Registry => registry_type(&cx, &a, at)?,
                    Dialect::Types => types_type(&cx, &a, at)?,
                };
                raws.push(raw);
                open = (!empty).then_some(raws.len() - 1);
            }
            (Dialect::Registry, b"Parameter") | (Dialect::Types, b"template") => {
                let i =
                    open.ok_or_else(|| cx.err(at, "", "a template parameter outside a type"))?;
                let p = match dialect {
                    Dialect::Registry => {
                        let kind = match a.get("Kind").map(String::as_str) {
                            Some("Type") => 't',
                            Some("Value") => 'v',
                            k => {
                                return Err(cx.err(
                                    at,
                                    &tname,
                                    format!("parameter Kind {k:?} is neither Type nor Value"),
                                ))
                            }
                        };
                        let name = a.get("Name").cloned().unwrap_or_default();
                        (
                            format!("{kind}{name}"),
                            signed(&cx, &a, "Value", at, &tname)?,
                        )
                    }
                    Dialect::Types => (
                        a.get("name").cloned().unwrap_or_default(),
                        signed(&cx, &a, "value", at, &tname)?,
                    ),
                };
                if !p.0.starts_with(['t', 'v']) {
                    return Err(cx.err(
                        at,
                        &tname,
                        format!("parameter `{}` is neither t… nor v…", p.0),
                    ));
                }
                raws[i].params.push(p);
            }
            (Dialect::Registry, b"Member") | (Dialect::Types, b"member") => {
                let i = open.ok_or_else(|| cx.err(at, "", "a member outside a type"))?;
                let (n, f, o, t) = match dialect {
                    Dialect::Registry => ("Name", "Flags", "Offset", "Type"),
                    Dialect::Types => ("name", "flags", "offset", "type"),
                };
                let m = TagMember {
                    name: a.get(n).cloned().unwrap_or_default(),
                    flags: need(&cx, &a, f, at, &tname)?,
                    extra: None,
                    offset: need(&cx, &a, o, at, &tname)?,
                    ty: need(&cx, &a, t, at, &tname)?,
                };
                let b = raws[i].body.get_or_insert_with(Body::default);
                let fields = b.members.get_or_insert_with(Vec::new);
                // A registry member with flag 0x10 and not 0x20 is a property (hkPropertyId's
                // three, offset 0): a body counts properties apart from its fields (the
                // high half of the member count) and DATA holds no value of them.
                if m.flags & 0x30 != 0x10 {
                    fields.push(m);
                }
            }
            (Dialect::Registry, b"Members") => {
                let i = open.ok_or_else(|| cx.err(at, "", "<Members> outside a type"))?;
                let b = raws[i].body.get_or_insert_with(Body::default);
                b.members.get_or_insert_with(Vec::new);
            }
            (Dialect::Registry, b"Interface") | (Dialect::Types, b"interface") => {
                let i = open.ok_or_else(|| cx.err(at, "", "an interface outside a type"))?;
                let (t, o) = match dialect {
                    Dialect::Registry => ("Type", "Offset"),
                    // TagTools names the interface's offset `flags`.
                    Dialect::Types => ("type", "flags"),
                };
                let entry = (need(&cx, &a, t, at, &tname)?, need(&cx, &a, o, at, &tname)?);
                let b = raws[i].body.get_or_insert_with(Body::default);
                b.interfaces.get_or_insert_with(Vec::new).push(entry);
            }
            // Kind groups (<Record>, <Int>, ...) and enum presets carry nothing a table needs.
            (
                Dialect::Registry,
                b"Void" | b"Opaque" | b"Bool" | b"String" | b"Int" | b"Float" | b"Pointer"
                | b"Record" | b"Array" | b"Template" | b"Interfaces" | b"Presets" | b"Preset",
            )
            | (Dialect::Types, b"types") => {}
            (_, other) => {
                return Err(cx.err(
                    at,
                    &tname,
                    format!(
                        "element <{}> is not part of this dump format",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        }
    }
    let table = number(&cx, raws)?;
    Ok(Dump {
        table,
        version,
        dialect,
    })
}

/// A template value: a number, negative ones kept as their 64-bit two's complement
/// (`vINVALID_VALUE=-1`).
fn signed(
    cx: &Ctx<'_>,
    a: &HashMap<String, String>,
    key: &str,
    at: usize,
    ty: &str,
) -> Result<u64> {
    let v = a
        .get(key)
        .ok_or_else(|| cx.err(at, ty, format!("no `{key}` attribute")))?;
    v.trim()
        .parse::<u64>()
        .or_else(|_| v.trim().parse::<i64>().map(|x| x as u64))
        .map_err(|_| cx.err(at, ty, format!("`{key}=\"{v}\"` is not a number")))
}

/// A required number attribute.
fn need(cx: &Ctx<'_>, a: &HashMap<String, String>, key: &str, at: usize, ty: &str) -> Result<u64> {
    num(cx, a, key, at, ty)?.ok_or_else(|| cx.err(at, ty, format!("no `{key}` attribute")))
}

fn hash_of(
    cx: &Ctx<'_>,
    a: &HashMap<String, String>,
    key: &str,
    at: usize,
    ty: &str,
) -> Result<Option<u32>> {
    num(cx, a, key, at, ty)?
        .map(|h| {
            u32::try_from(h).map_err(|_| cx.err(at, ty, format!("hash {h} does not fit 32 bits")))
        })
        .transpose()
}

/// A `<HavokType>`: every field stated; a record's `<Members>` says it has a member list.
fn registry_type(cx: &Ctx<'_>, a: &HashMap<String, String>, at: usize) -> Result<Raw> {
    let name = a.get("Name").cloned().unwrap_or_default();
    let n = |k: &str| need(cx, a, k, at, &name);
    let nonzero = |v: u64| (v != 0).then_some(v);
    let body = Body {
        parent: n("Parent")?,
        format: Some(n("Format")?),
        subtype: nonzero(n("SubType")?),
        version: nonzero(n("Version")?),
        size_align: Some((n("Size")?, n("Alignment")?)),
        flags: nonzero(n("Flags")?),
        ..Body::default()
    };
    Ok(Raw {
        id: n("Id")?,
        hash: hash_of(cx, a, "Hash", at, &name)?,
        name,
        params: Vec::new(),
        body: Some(body),
        at,
    })
}

/// A `<type>`: `flags` is the body's `opt` (docs/tagfile-format.md §3), so a field is
/// there when its bit is; a type with neither `flags` nor `parent` has no body.
fn types_type(cx: &Ctx<'_>, a: &HashMap<String, String>, at: usize) -> Result<Raw> {
    let name = a.get("name").cloned().unwrap_or_default();
    let o = |k: &str| num(cx, a, k, at, &name);
    let opt = o("flags")?;
    let parent = o("parent")?;
    let body = if opt.is_none() && parent.is_none() {
        None
    } else {
        let opt = opt.unwrap_or(0);
        let size_align = match (o("byteSize")?, o("alignment")?) {
            (Some(s), Some(al)) => Some((s, al)),
            _ => None,
        };
        Some(Body {
            parent: parent.unwrap_or(0),
            format: o("subTypeFlags")?,
            subtype: o("pointer")?,
            version: o("version")?,
            size_align,
            flags: o("abstractValue")?,
            members: (opt & 0x20 != 0).then(Vec::new),
            ..Body::default()
        })
    };
    Ok(Raw {
        id: need(cx, a, "id", at, &name)?,
        hash: hash_of(cx, a, "hash", at, &name)?,
        name,
        params: Vec::new(),
        body,
        at,
    })
}

/// The dump's types numbered 1.. in document order, every id reference rewritten.
fn number(cx: &Ctx<'_>, raws: Vec<Raw>) -> Result<TypeTable> {
    let mut index: HashMap<u64, u64> = HashMap::new();
    for (i, r) in raws.iter().enumerate() {
        if index.insert(r.id, i as u64 + 1).is_some() {
            return Err(cx.err(r.at, &r.name, format!("id {} is given to two types", r.id)));
        }
    }
    let map = |id: u64, r: &Raw, what: &str| -> Result<u64> {
        if id == 0 {
            return Ok(0);
        }
        index.get(&id).copied().ok_or_else(|| {
            cx.err(
                r.at,
                &r.name,
                format!("{what} names type id {id}, which the dump lacks"),
            )
        })
    };
    let mut types = vec![TagType::default()];
    for r in &raws {
        let mut params = Vec::new();
        for (n, v) in &r.params {
            let value = if n.starts_with('t') {
                map(*v, r, "a template parameter")?
            } else {
                *v
            };
            params.push(Param {
                name: n.clone(),
                value,
            });
        }
        let body = match &r.body {
            None => None,
            Some(b) => {
                let mut b = b.clone();
                b.parent = map(b.parent, r, "the parent")?;
                b.subtype = b.subtype.map(|s| map(s, r, "the subtype")).transpose()?;
                for m in b.members.iter_mut().flatten() {
                    m.ty = map(m.ty, r, &format!("member `{}`", m.name))?;
                }
                for i in b.interfaces.iter_mut().flatten() {
                    i.0 = map(i.0, r, "an interface")?;
                }
                Some(b)
            }
        };
        types.push(TagType {
            name: r.name.clone(),
            params,
            body,
            hash: r.hash,
        });
    }
    let n = types.len() as u64;
    Ok(TypeTable {
        types,
        body_order: (1..n).collect(),
        hash_order: Vec::new(),
    })
}

/// What an XML dump does not say about its generation.
#[derive(Debug)]
pub struct XmlMeta {
    /// Generation name.
    pub name: String,
    /// The SDK version (`20180100`): the registry's `Version` when not given.
    pub contents_version: Option<String>,
    /// The writer rules of tagfiles of the generation (`[tagfile]`), when known.
    pub tagfile: Option<hk_runtime::schema::TagfileRules>,
}

/// A converted XML dump: its schema, how many types the dump holds, and how many of its
/// classes carry a hash.
#[derive(Debug)]
pub struct XmlImported {
    /// The schema (a tagfile generation).
    pub schema: hk_runtime::Schema,
    /// Types in the dump.
    pub types: usize,
    /// Dialect read.
    pub dialect: Dialect,
    /// How many of `dropped` were left out for their name: not a class name a schema
    /// takes (a pointer type among the template arguments,
    /// `hkHashMap<T*<hkReflect::Type>, T*<void>>`), or they refer to such a record.
    pub unnamed: usize,
    /// Records left out: for their name, or because hk's layout engine does not lay them
    /// out as the dump states, or because they refer to such a record.
    pub dropped: Vec<String>,
}

/// The layout rules (pointer size 8 or 4, base tail padding reused or not) under which the
/// layout engine reproduces the most sizes and offsets the dump states: 2010's listing is
/// a 32-bit game's.
fn layout_rules(table: &TypeTable, sdk: &str) -> hk_runtime::LayoutRules {
    let base = hk_runtime::tagfile::schema::RULES;
    let mut best = (0usize, base);
    for pointer_size in [8, 4] {
        for reuse_padding in [false, true] {
            let rules = hk_runtime::LayoutRules {
                pointer_size,
                reuse_padding,
                ..base
            };
            let Ok(s) =
                hk_runtime::tagfile::schema::extract_tables(&[(table, sdk)], "probe", rules)
            else {
                continue;
            };
            let ok = hk_runtime::schema::report::self_check(&s)
                .0
                .iter()
                .filter(|r| r.verdict.ok())
                .count();
            if ok > best.0 {
                best = (ok, rules);
            }
        }
    }
    best.1
}

/// A tuple whose size the dump leaves out though its `opt` says it is there
/// (soulstruct-havok's `T[N]` entries): its elements' size times their count, aligned as
/// they are.
fn fill_tuples(table: &mut TypeTable) {
    for t in 1..table.types.len() {
        let k = t as u64;
        let missing = table.types[t]
            .body
            .as_ref()
            .is_some_and(|b| b.size_align.is_none() && b.parent == 0);
        if !missing || table.kind_of(k) != 0x28 {
            continue;
        }
        let sub = table.subtype_of(k);
        let size = table.size_of(sub).saturating_mul(table.tuple_count(k));
        let align = table.align_of(sub);
        if let Some(b) = table.types[t].body.as_mut() {
            b.size_align = Some((size, align));
        }
    }
}

/// An array format of pointer size (2018's `hkPropertyBag`: one pointer to its
/// `hkDefaultPropertyBag`, where `hkArray` is a pointer and two counts) is described as the
/// pointer it is: hk's `array` member type is 16 bytes.
fn narrow_arrays(table: &mut TypeTable) {
    for t in 1..table.types.len() {
        let k = t as u64;
        if table.kind_of(k) != 8 || table.size_of(k) != 8 {
            continue;
        }
        if let Some(f) = table.types[t].body.as_mut().and_then(|b| b.format.as_mut()) {
            *f = (*f & !0xFF) | 6;
        }
    }
}

/// Whether a value of type `t` holds a record marked `bad`: `t` or a typedef parent of it
/// is one, or it is an array or tuple of such a type (not through pointers).
fn holds(table: &TypeTable, bad: &[bool], t: u64) -> bool {
    let mut cur = t;
    for _ in 0..32 {
        if cur == 0 || bad.get(cur as usize).copied().unwrap_or(false) {
            return cur != 0;
        }
        match table.kind_of(cur) {
            8 | 0x28 => cur = table.subtype_of(cur),
            _ => match table.types.get(cur as usize).and_then(|x| x.body.as_ref()) {
                Some(b) if b.parent != 0 => cur = b.parent,
                _ => return false,
            },
        }
    }
    false
}

/// Takes the body off every record `first` picks, and off every record that holds one by
/// value ([`holds`]), so the rest extracts; the full names of the records left out.
fn drop_records(table: &mut TypeTable, first: impl Fn(&TypeTable, usize) -> bool) -> Vec<String> {
    let n = table.types.len();
    let record = |t: &TagType| t.body.as_ref().is_some_and(|b| b.members.is_some());
    let mut bad: Vec<bool> = (0..n)
        .map(|i| i > 0 && record(&table.types[i]) && first(table, i))
        .collect();
    // Spread to every record that holds a bad one by value (its parent or interfaces, a
    // member of it, an array or tuple of it, through typedefs), until nothing changes. A
    // pointer to a bad record stays: it becomes a pointer to void.
    loop {
        let mut changed = false;
        for i in 1..n {
            if bad[i] {
                continue;
            }
            let Some(b) = &table.types[i].body else {
                continue;
            };
            let mut refs: Vec<u64> = vec![b.parent];
            refs.extend(b.members.iter().flatten().map(|m| m.ty));
            refs.extend(b.interfaces.iter().flatten().map(|x| x.0));
            if refs.iter().any(|&r| holds(table, &bad, r)) {
                bad[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let gone: Vec<usize> = (1..n).filter(|&i| bad[i]).collect();
    let dropped = gone
        .iter()
        .filter(|&&i| record(&table.types[i]))
        .map(|&i| table.full_name(i as u64))
        .collect();
    for i in gone {
        table.types[i].body = None;
    }
    dropped
}

/// Converts the XML dump at `path` into a tagfile generation's schema: every record type
/// of the dump becomes a class, with the dump's sizes and offsets as stated values and its
/// hashes as the `hash` the generation's tagfiles store (docs/tagfile-format.md §3: a
/// hash is data, never computed).
///
/// # Errors
/// As [`read`], no SDK version, or records that do not form a schema.
pub fn import(path: &Path, dialect: Dialect, meta: &XmlMeta) -> Result<XmlImported> {
    let dump = read(path, dialect)?;
    let sdk = meta
        .contents_version
        .clone()
        .or(dump.version.clone())
        .ok_or_else(|| Error::Import {
            input: path.to_path_buf(),
            message: "the dump names no SDK version: give --contents-version".into(),
        })?;
    let bad = |e: hk_runtime::Error| Error::Import {
        input: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut table = dump.table;
    let types = table.types.len() - 1;
    narrow_arrays(&mut table);
    let named = |t: &TypeTable, i: usize| {
        hk_runtime::schema::names::check(
            hk_runtime::schema::names::NameKind::Class,
            &t.full_name(i as u64),
        )
        .is_err()
    };
    fill_tuples(&mut table);
    let mut dropped = drop_records(&mut table, named);
    let unnamed = dropped.len();
    // Records whose members do not fit them (a dump's own defect) are left out likewise.
    let misfit: std::collections::HashSet<u64> =
        hk_runtime::tagfile::schema::misfit_records(&table)
            .into_iter()
            .collect();
    dropped.extend(drop_records(&mut table, |_, i| {
        misfit.contains(&(i as u64))
    }));
    // A record the layout engine does not lay out as the dump states is left out too (with
    // what refers to it), so the folder states nothing it does not reproduce.
    let rules = layout_rules(&table, &sdk);
    let schema = loop {
        let schema =
            hk_runtime::tagfile::schema::extract_tables(&[(&table, &sdk)], &meta.name, rules)
                .map_err(bad)?;
        let wrong: std::collections::HashSet<String> =
            hk_runtime::schema::report::self_check(&schema)
                .0
                .into_iter()
                .filter(|r| !r.verdict.ok())
                .map(|r| r.class)
                .collect();
        if wrong.is_empty() {
            break schema;
        }
        dropped.extend(drop_records(&mut table, |t, i| {
            wrong.contains(&t.full_name(i as u64))
        }));
    };
    let mut schema = schema;
    let source = match dialect {
        Dialect::Registry => "an HKLib type registry",
        Dialect::Types => "a TagTools / soulstruct-havok type listing",
    };
    let mut classes = schema.classes().to_vec();
    for c in &mut classes {
        c.note = Some(format!("from {source} of SDK {sdk} (hk schema import)"));
    }
    let mut generation = schema.generation.clone();
    generation.tagfile.clone_from(&meta.tagfile);
    schema = hk_runtime::Schema::new(generation, classes).map_err(|d| Error::Import {
        input: path.to_path_buf(),
        message: d.to_string(),
    })?;
    Ok(XmlImported {
        schema,
        types,
        dialect,
        unnamed,
        dropped,
    })
}
