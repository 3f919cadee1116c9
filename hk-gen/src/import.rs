//! Converting public class reflection dumps into schema folders (`hk schema import`).
//!
//! Both formats describe classes the way `hkClass` does; what they leave out (interface
//! counts, which class declares a referenced enum) is inferred and checked against the
//! offsets they state.

use std::collections::HashMap;
use std::path::Path;

use hk_runtime::schema::{
    signature, Class, Container, Enum, EnumItem, Generation, Layouts, Member,
};
use hk_runtime::types::TypeKind;
use hk_runtime::{Endian, LayoutRules, Schema};
use serde_json::Value;

use crate::error::{Error, Result};

/// What the dump does not say about its generation.
#[derive(Debug)]
pub struct Meta {
    /// Generation name.
    pub name: String,
    /// Packfile file version.
    pub file_version: u32,
    /// Contents-version string.
    pub contents_version: String,
}

/// A converted dump: the schema, and what the conversion noticed on the way (a stated
/// signature the dump's own description does not hash to, an enum id it lacks).
#[derive(Debug)]
pub struct Imported {
    /// The schema.
    pub schema: Schema,
    /// Warnings, one line each.
    pub warnings: Vec<String>,
}

fn bad(input: &Path, message: impl Into<String>) -> Error {
    Error::Import {
        input: input.to_path_buf(),
        message: message.into(),
    }
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| Error::json(path, &e))
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn n(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn kind(input: &Path, name: &str, ctx: &str) -> Result<TypeKind> {
    TypeKind::from_name(name).ok_or_else(|| bad(input, format!("{ctx}: unknown type `{name}`")))
}

/// Member types and flags from the dump's own `hkClassMember` enums `Type` and `FlagValues`.
/// A generation's member-type numbering and member-flag values.
type Numbering = (Vec<(TypeKind, u8)>, Vec<(String, u16)>);

fn numbering(input: &Path, member_class: &Class) -> Result<Numbering> {
    let find = |n: &str| member_class.enums.iter().find(|e| e.name == n);
    let ty =
        find("Type").ok_or_else(|| bad(input, "the dump's hkClassMember declares no Type enum"))?;
    let mut types = Vec::new();
    for item in &ty.items {
        if item.name == "TYPE_MAX" {
            continue;
        }
        types.push((
            kind(input, &item.name, "hkClassMember.Type")?,
            item.value as u8,
        ));
    }
    let mut flags: Vec<(String, u16)> = Vec::new();
    if let Some(f) = find("FlagValues") {
        for item in &f.items {
            if item.value != 0 {
                flags.push((item.name.to_ascii_lowercase(), item.value as u16));
            }
        }
    }
    Ok((types, flags))
}

/// Points each member's enum at the class declaring it: its own chain first, else the one
/// class of the dump that declares an enum of that name and items.
fn resolve_enums(
    input: &Path,
    classes: &mut [Class],
    wanted: &HashMap<(String, String), Enum>,
) -> Result<()> {
    let parents: HashMap<String, Option<String>> = classes
        .iter()
        .map(|c| (c.name.clone(), c.parent.clone()))
        .collect();
    let declared: HashMap<String, Vec<Enum>> = classes
        .iter()
        .map(|c| (c.name.clone(), c.enums.clone()))
        .collect();
    for c in classes.iter_mut() {
        for m in &mut c.members {
            let Some(target) = wanted.get(&(c.name.clone(), m.name.clone())) else {
                continue;
            };
            let mut cur = Some(c.name.clone());
            let mut found = None;
            while let Some(name) = cur {
                if declared
                    .get(&name)
                    .is_some_and(|es| es.iter().any(|e| e == target))
                {
                    found = Some(if name == c.name {
                        target.name.clone()
                    } else {
                        format!("{name}.{}", target.name)
                    });
                    break;
                }
                cur = parents.get(&name).cloned().flatten();
            }
            if found.is_none() {
                let mut owners: Vec<&String> = declared
                    .iter()
                    .filter(|(_, es)| {
                        es.iter()
                            .any(|e| e.name == target.name && e.items == target.items)
                    })
                    .map(|(k, _)| k)
                    .collect();
                owners.sort();
                found = owners.first().map(|o| format!("{o}.{}", target.name));
            }
            m.enum_ref = Some(found.ok_or_else(|| {
                bad(
                    input,
                    format!(
                        "{}.{}: enum `{}` is declared by no class of the dump",
                        c.name, m.name, target.name
                    ),
                )
            })?);
        }
    }
    Ok(())
}

/// Chooses the reuse-padding rule that reproduces more stated offsets.
fn choose_reuse_padding(generation: &mut Generation, classes: &[Class]) -> Result<()> {
    let mut best = (0usize, false);
    for reuse in [false, true] {
        generation.layout.reuse_padding = reuse;
        let schema = Schema::new(generation.clone(), classes.to_vec())
            .map_err(|d| Error::schema(&generation.name, d))?;
        let mut layouts = Layouts::new(&schema, generation.layout);
        let mut ok = 0;
        for c in classes {
            if let Ok(l) = layouts.class(&c.name) {
                ok += usize::from(c.expected_size == Some(l.size));
                ok += c
                    .members
                    .iter()
                    .zip(&l.members)
                    .filter(|(m, ml)| m.expected_offset == Some(ml.offset))
                    .count();
            }
        }
        if ok > best.0 {
            best = (ok, reuse);
        }
    }
    generation.layout.reuse_padding = best.1;
    Ok(())
}

fn finish(
    input: &Path,
    mut generation: Generation,
    mut classes: Vec<Class>,
    enums: HashMap<(String, String), Enum>,
    mut warnings: Vec<String>,
) -> Result<Imported> {
    let member_class = classes
        .iter()
        .find(|c| c.name == "hkClassMember")
        .ok_or_else(|| {
            bad(
                input,
                "the dump has no hkClassMember class to take the type numbering from",
            )
        })?;
    let (types, flags) = numbering(input, member_class)?;
    generation.member_types = types;
    generation.member_flags = flags;
    resolve_enums(input, &mut classes, &enums)?;
    let infer = |r: std::result::Result<(), String>| r.map_err(|m| bad(input, m));
    infer(hk_runtime::schema::infer::interfaces(
        &generation,
        &mut classes,
    ))?;
    choose_reuse_padding(&mut generation, &classes)?;
    infer(hk_runtime::schema::infer::interfaces(
        &generation,
        &mut classes,
    ))?;
    infer(hk_runtime::schema::infer::gaps(&generation, &mut classes))?;
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    let schema = Schema::new(generation.clone(), classes.clone())
        .map_err(|d| Error::schema(&generation.name, d))?;
    // A stated signature the dump's own description does not hash to is a defect of the
    // dump: keep it as a note rather than as an expectation nothing can meet.
    for c in &mut classes {
        let Some(stated) = c.expected_signature else {
            continue;
        };
        let computed = signature::compute(&schema, &c.name)?;
        if computed != stated {
            warnings.push(format!("{}: the dump states signature 0x{stated:08X}, its description hashes to 0x{computed:08X}", c.name));
            c.expected_signature = None;
            c.note = Some(format!(
                "the source dump states signature 0x{stated:08X}, but its own description of the class hashes to 0x{computed:08X}; the dump's data for it is defective"
            ));
        }
    }
    let name = generation.name.clone();
    let schema = Schema::new(generation, classes).map_err(|d| Error::schema(name, d))?;
    Ok(Imported { schema, warnings })
}

fn generation(meta: &Meta, pointer_size: u8) -> Generation {
    Generation {
        name: meta.name.clone(),
        container: Container::Packfile,
        file_version: meta.file_version,
        contents_version: meta.contents_version.clone(),
        layout: LayoutRules {
            pointer_size,
            endian: Endian::Little,
            reuse_padding: false,
            empty_base: true,
        },
        member_types: Vec::new(),
        member_flags: Vec::new(),
        packfile: Default::default(),
        tagfile: None,
    }
}

/// Reads a BotW-style `reflection_data.json`: `classes` by name with 64-bit offsets, and
/// `enums_by_id` for the enums members refer to.
///
/// # Errors
/// Unreadable JSON, unknown types, or an enum no class declares.
pub fn botw(path: &Path, meta: &Meta) -> Result<Imported> {
    let v = read_json(path)?;
    let classes_v = v
        .get("classes")
        .and_then(Value::as_object)
        .ok_or_else(|| bad(path, "no `classes` object"))?;
    let enums_by_id = v
        .get("enums_by_id")
        .and_then(Value::as_object)
        .ok_or_else(|| bad(path, "no `enums_by_id` object"))?;
    let mut warnings = Vec::new();
    let parse_enum = |e: &Value| Enum {
        name: s(e, "name").unwrap_or_default(),
        flags: n(e, "flags") as u32,
        items: e
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|it| EnumItem {
                name: it
                    .get(1)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                value: it.get(0).and_then(Value::as_i64).unwrap_or(0) as i32,
            })
            .collect(),
    };
    let mut classes = Vec::new();
    let mut wanted = HashMap::new();
    for (name, c) in classes_v {
        let mut class = Class::new(name.clone());
        class.parent = s(c, "parent");
        class.version = n(c, "version") as u32;
        class.flags = n(c, "flags") as u32;
        class.expected_size = Some(n(c, "obj_size") as u32);
        class.enums = c
            .get("enums")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(parse_enum)
            .collect();
        for m in c
            .get("members")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mname = s(m, "name").unwrap_or_default();
            let ctx = format!("{name}.{mname}");
            let enum_id = n(m, "enum");
            if enum_id != 0 {
                match enums_by_id.get(&enum_id.to_string()) {
                    Some(e) => {
                        wanted.insert((name.clone(), mname.clone()), parse_enum(e));
                    }
                    None => warnings.push(format!(
                        "{ctx}: enum id {enum_id} is not in enums_by_id; the member keeps no enum"
                    )),
                }
            }
            class.members.push(Member {
                name: mname,
                ty: kind(path, &s(m, "type").unwrap_or_default(), &ctx)?,
                subtype: kind(path, &s(m, "subtype").unwrap_or_default(), &ctx)?,
                class: s(m, "cl"),
                enum_ref: None,
                array_size: n(m, "array_size") as u16,
                flags: n(m, "flags") as u16,
                expected_offset: Some(n(m, "offset") as u32),
                element: TypeKind::Void,
                gap_before: 0,
                line: 0,
            });
        }
        classes.push(class);
    }
    finish(path, generation(meta, 8), classes, wanted, warnings)
}

fn parse_flags(input: &Path, text: &str, ctx: &str) -> Result<u16> {
    let mut bits = 0u16;
    for part in text.split('|') {
        bits |= match part.trim() {
            "FLAGS_NONE" | "" => 0,
            "ALIGN_8" => 128,
            "ALIGN_16" => 256,
            "NOT_OWNED" => 512,
            "SERIALIZE_IGNORED" => 1024,
            other => return Err(bad(input, format!("{ctx}: unknown flag `{other}`"))),
        };
    }
    Ok(bits)
}

/// Reads a folder of serde-hkx class JSON files (32-bit offsets in `offset_x86`).
///
/// # Errors
/// Unreadable JSON, unknown types or flags, or an enum no class declares.
pub fn serde_hkx(dir: &Path, meta: &Meta) -> Result<Imported> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut classes = Vec::new();
    let mut refs: Vec<(String, String, String)> = Vec::new();
    for f in files {
        let c = read_json(&f)?;
        let name = s(&c, "name").ok_or_else(|| bad(&f, "no name"))?;
        let mut class = Class::new(name.clone());
        class.parent = s(&c, "parent");
        class.version = n(&c, "version") as u32;
        class.expected_size = Some(n(&c, "size_x86") as u32);
        class.expected_signature = s(&c, "signature")
            .and_then(|t| u32::from_str_radix(t.trim_start_matches("0x"), 16).ok());
        for e in c
            .get("enums")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            class.enums.push(Enum {
                name: s(e, "name").unwrap_or_default(),
                flags: s(e, "flags")
                    .and_then(|t| u32::from_str_radix(&t, 16).ok())
                    .unwrap_or(0),
                items: e
                    .get("enum_item")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|it| EnumItem {
                        name: s(it, "name").unwrap_or_default(),
                        value: n(it, "value") as i32,
                    })
                    .collect(),
            });
        }
        for m in c
            .get("members")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mname = s(m, "name").unwrap_or_default();
            let ctx = format!("{name}.{mname}");
            if let Some(e) = s(m, "enum_ref") {
                refs.push((name.clone(), mname.clone(), e));
            }
            class.members.push(Member {
                name: mname,
                ty: kind(&f, &s(m, "vtype").unwrap_or_default(), &ctx)?,
                subtype: kind(&f, &s(m, "vsubtype").unwrap_or_default(), &ctx)?,
                class: s(m, "class_ref"),
                enum_ref: None,
                array_size: n(m, "arrsize") as u16,
                flags: parse_flags(&f, &s(m, "flags").unwrap_or_default(), &ctx)?,
                expected_offset: Some(n(m, "offset_x86") as u32),
                element: TypeKind::Void,
                gap_before: 0,
                line: 0,
            });
        }
        classes.push(class);
    }
    // serde-hkx names the enum only; the declaring class is the member's own chain or the
    // one class declaring an enum of that name.
    let declared: HashMap<String, Vec<Enum>> = classes
        .iter()
        .map(|c| (c.name.clone(), c.enums.clone()))
        .collect();
    let parents: HashMap<String, Option<String>> = classes
        .iter()
        .map(|c| (c.name.clone(), c.parent.clone()))
        .collect();
    let mut wanted = HashMap::new();
    for (cname, mname, ename) in refs {
        let mut cur = Some(cname.clone());
        let mut found = None;
        while let Some(k) = cur {
            if let Some(e) = declared
                .get(&k)
                .and_then(|es| es.iter().find(|e| e.name == ename))
            {
                found = Some(e.clone());
                break;
            }
            cur = parents.get(&k).cloned().flatten();
        }
        if found.is_none() {
            let mut owners: Vec<_> = declared
                .iter()
                .filter_map(|(k, es)| es.iter().find(|e| e.name == ename).map(|e| (k, e)))
                .collect();
            owners.sort_by(|a, b| a.0.cmp(b.0));
            found = owners.first().map(|(_, e)| (*e).clone());
        }
        let e = found.ok_or_else(|| {
            bad(
                dir,
                format!("{cname}.{mname}: enum `{ename}` is declared by no class"),
            )
        })?;
        wanted.insert((cname, mname), e);
    }
    finish(dir, generation(meta, 4), classes, wanted, Vec::new())
}
