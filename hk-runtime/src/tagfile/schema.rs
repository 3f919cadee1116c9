//! Schemas from a tagfile's own type table, and checks of a schema against one.
//!
//! Records become classes (their size and member offsets as expectations, member flags
//! kept as stored); slot types (`hkArray`, `T*`, `hkStringPtr`), typedefs and tuples become
//! member types. Tagfiles store no member-type numbers and no signatures, so the extracted
//! generation numbers the types in hk's own order.

use super::parse::TagFile;
use super::types::TypeTable;
use std::collections::HashMap;

use crate::error::Result;
use crate::rules::{Endian, LayoutRules};
use crate::schema::layout::Layouts;
use crate::schema::report::{stored_layout, LayoutRow, Verdict};
use crate::schema::{Class, Container, Generation, Member, Schema};
use crate::types::TypeKind;

fn is_class(table: &TypeTable, t: u64) -> bool {
    let ty = &table.types[t as usize];
    ty.body.as_ref().is_some_and(|b| b.members.is_some()) && table.kind_of(t) == 7
}

/// The class a record type stands for: itself, or the record a typedef of it names
/// (`hkQsTransform` for `hkQsTransformf`).
fn record_class(table: &TypeTable, mut t: u64) -> Option<u64> {
    for _ in 0..64 {
        if is_class(table, t) {
            return Some(t);
        }
        let b = table.types.get(t as usize)?.body.as_ref()?;
        if b.parent == 0 {
            return None;
        }
        t = b.parent;
    }
    None
}

/// The member type of a member of tagfile type `t`: kind, sub-kind, class, C-array length.
fn member_type(table: &TypeTable, t: u64) -> (TypeKind, TypeKind, Option<String>, u16) {
    member_type_at(table, t, 0)
}

/// [`member_type`] at nesting `depth`: a corrupted table can make a type its own element,
/// so nesting stops (as `void`) well past anything real (arrays of tuples of records).
fn member_type_at(
    table: &TypeTable,
    t: u64,
    depth: u32,
) -> (TypeKind, TypeKind, Option<String>, u16) {
    if depth > 8 || t as usize >= table.types.len() {
        return (TypeKind::Void, TypeKind::Void, None, 0);
    }
    let class_of = |x: u64| record_class(table, x).map(|c| table.full_name(c));
    match table.kind_of(t) {
        2 => (TypeKind::Bool, TypeKind::Void, None, 0),
        3 => {
            let k = if table.types[t as usize].name == "char*" {
                TypeKind::CString
            } else {
                TypeKind::StringPtr
            };
            (k, TypeKind::Void, None, 0)
        }
        4 => {
            let f = table.format_of(t);
            let signed = f & 0x200 != 0;
            let k = match (f & 0x1F000, signed) {
                (0x2000, true) => TypeKind::Int8,
                (0x2000, false) => TypeKind::UInt8,
                (0x4000, true) => TypeKind::Int16,
                (0x4000, false) => TypeKind::UInt16,
                (0x8000, true) => TypeKind::Int32,
                (0x8000, false) => TypeKind::UInt32,
                (_, true) => TypeKind::Int64,
                (_, false) => TypeKind::UInt64,
            };
            (k, TypeKind::Void, None, 0)
        }
        5 => (
            if table.size_of(t) == 2 {
                TypeKind::Half
            } else {
                TypeKind::Real
            },
            TypeKind::Void,
            None,
            0,
        ),
        6 => {
            let sub = table.subtype_of(t);
            let c = class_of(sub);
            (
                TypeKind::Pointer,
                if c.is_some() {
                    TypeKind::Struct
                } else {
                    TypeKind::Void
                },
                c,
                0,
            )
        }
        7 => (TypeKind::Struct, TypeKind::Void, class_of(t), 0),
        8 => {
            let (k, _, c, _) = member_type_at(table, table.subtype_of(t), depth + 1);
            (TypeKind::Array, k, c, 0)
        }
        0x28 => {
            let elem = table.subtype_of(t);
            let n = (table.format_of(t) >> 8) as u16;
            let (k, sub, c, _) = member_type_at(table, elem, depth + 1);
            // Float tuples aligned like SIMD vectors are the vector and matrix types.
            let simd = table.align_of(t) == 16;
            match (k, n) {
                _ if !simd && k == TypeKind::Real => (k, sub, c, n),
                (TypeKind::Real, 4) => (TypeKind::Vector4, TypeKind::Void, None, 0),
                (TypeKind::Real, 12) => (TypeKind::Matrix3, TypeKind::Void, None, 0),
                (TypeKind::Real, 16) => (TypeKind::Matrix4, TypeKind::Void, None, 0),
                (TypeKind::Vector4, 3) => (TypeKind::Matrix3, TypeKind::Void, None, 0),
                (TypeKind::Vector4, 4) => (TypeKind::Matrix4, TypeKind::Void, None, 0),
                _ => (k, sub, c, n),
            }
        }
        1 => (
            TypeKind::UInt8,
            TypeKind::Void,
            None,
            table.size_of(t) as u16,
        ),
        _ => (TypeKind::Void, TypeKind::Void, None, 0),
    }
}

/// The layout rules tagfiles describe: 64-bit, little endian (every corpus tagfile), base
/// tail padding not reused (see [`extract`]).
pub const RULES: LayoutRules = LayoutRules {
    pointer_size: 8,
    endian: Endian::Little,
    reuse_padding: false,
    empty_base: true,
};

/// A schema of every record type the files describe, under whichever tail-padding rule
/// needs fewer inferred gaps (the plain rule on a tie). Measured: the DSR (2015.1) and TotK
/// (2022.1) corpus files need no gap at all under the plain rule, 11 of 122 classes need
/// one under the reusing rule (tests/tests/integration/tagfile/schema.rs).
///
/// # Errors
/// As [`extract_with`].
pub fn extract(files: &[&TagFile], name: &str) -> Result<Schema> {
    let gaps = |s: &Schema| {
        s.classes()
            .iter()
            .filter(|c| c.members.iter().any(|m| m.gap_before > 0))
            .count()
    };
    let plain = extract_with(files, name, RULES)?;
    // No rule needs fewer than no gaps.
    if gaps(&plain) == 0 {
        return Ok(plain);
    }
    let reusing = LayoutRules {
        reuse_padding: true,
        ..RULES
    };
    let other = extract_with(files, name, reusing)?;
    Ok(if gaps(&other) < gaps(&plain) {
        other
    } else {
        plain
    })
}

/// A schema of every record type the files describe, under `rules`. A class that several
/// files describe must be described the same way in each.
///
/// # Errors
/// A class two files describe differently (size, parent or members), or records that do
/// not form a valid schema (a parent or member class missing).
pub fn extract_with(files: &[&TagFile], name: &str, rules: LayoutRules) -> Result<Schema> {
    let tables: Vec<(&TypeTable, &str)> = files
        .iter()
        .map(|tf| (&*tf.types, tf.sdk_version.as_str()))
        .collect();
    extract_tables(&tables, name, rules)
}

/// The records of `table` whose members do not fit them, or whose parent's do not: the
/// ones [`extract_tables`] refuses, all of them.
pub fn misfit_records(table: &TypeTable) -> Vec<u64> {
    super::bind::misfit_records(table)
}

/// [`extract_with`] over type tables that come from elsewhere than a tagfile (a public
/// type dump, `hk schema import`), each with the SDK version it describes.
///
/// # Errors
/// As [`extract_with`].
pub fn extract_tables(
    tables: &[(&TypeTable, &str)],
    name: &str,
    rules: LayoutRules,
) -> Result<Schema> {
    let mut classes: Vec<Class> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut sdk = String::new();
    for &(table, version) in tables {
        // Records that do not fit their members, or nest without end, are refused before
        // the layout engine follows them.
        super::bind::check_records(table).map_err(crate::Error::schema)?;
        sdk = version.to_string();
        for c in classes_of(table, version) {
            match index.get(&c.name) {
                None => {
                    index.insert(c.name.clone(), classes.len());
                    classes.push(c);
                }
                Some(&i) => {
                    let x = &mut classes[i];
                    if !merge(x, &c) {
                        return Err(crate::Error::schema(format!(
                            "class {} is described differently by two of the files (SDK {version})",
                            c.name
                        )));
                    }
                }
            }
        }
    }
    let generation = Generation {
        name: name.to_string(),
        container: Container::Tagfile,
        file_version: 0,
        contents_version: sdk,
        layout: rules,
        // Tagfiles carry no member-type numbers; hk's own order stands in for them.
        member_types: TypeKind::ALL
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, i as u8))
            .collect(),
        member_flags: Vec::new(),
        packfile: Default::default(),
        tagfile: None,
    };
    // Tagfiles list no vtable slots, nor why a member sits past the natural place (an
    // HK_ALIGN16 member, a base that keeps its tail padding): the stated offsets say, so the
    // interface counts and gaps are inferred from them, unless the classes as stated already
    // reproduce every offset and size (inference would then keep them as they are).
    let stated = Schema::new(generation.clone(), classes.clone())
        .map_err(|d| crate::Error::schema(d.to_string()))?;
    if stored_layout(&stated, &stated)
        .iter()
        .all(|r| r.verdict == Verdict::Match)
    {
        return Ok(stated);
    }
    crate::schema::infer::fit(&generation, &mut classes).map_err(crate::Error::schema)?;
    Schema::new(generation, classes).map_err(|d| crate::Error::schema(d.to_string()))
}

/// Merges a second description of a class into `into`. A file that declares a member's
/// element or pointee type without describing it (an empty array of a class the file never
/// needs) leaves that member untyped; another file may fill it in. Anything else must agree.
fn merge(into: &mut Class, other: &Class) -> bool {
    let head = |c: &Class| {
        (
            c.parent.clone(),
            c.version,
            c.expected_size,
            c.align,
            c.members.len(),
        )
    };
    // A file that never touches a class stores no hash for it; another may.
    if into.hash.is_none() {
        into.hash = other.hash;
    } else if other.hash.is_some() && other.hash != into.hash {
        return false;
    }
    if head(into) != head(other) {
        return false;
    }
    for (a, b) in into.members.iter_mut().zip(&other.members) {
        if (
            &a.name,
            a.ty,
            a.array_size,
            a.flags,
            a.expected_offset,
            a.element,
        ) != (
            &b.name,
            b.ty,
            b.array_size,
            b.flags,
            b.expected_offset,
            b.element,
        ) {
            return false;
        }
        let untyped = |m: &Member| m.subtype == TypeKind::Void && m.class.is_none();
        if untyped(a) {
            a.subtype = b.subtype;
            a.class.clone_from(&b.class);
        } else if !untyped(b) && (a.subtype, &a.class) != (b.subtype, &b.class) {
            return false;
        }
    }
    true
}

/// The record types of one file as classes, with stated sizes and offsets.
fn classes_of(table: &TypeTable, sdk: &str) -> Vec<Class> {
    let mut classes = Vec::new();
    for t in 1..table.types.len() as u64 {
        if !is_class(table, t) {
            continue;
        }
        let ty = &table.types[t as usize];
        let Some(b) = ty.body.as_ref() else { continue };
        let mut c = Class::new(table.full_name(t));
        c.parent = (b.parent != 0 && is_class(table, b.parent)).then(|| table.full_name(b.parent));
        c.version = b.version.unwrap_or(0) as u32;
        c.interfaces = b.interfaces.as_ref().map_or(0, |i| i.len() as u32);
        c.expected_size = Some(table.size_of(t) as u32);
        c.hash = ty.hash;
        if table.align_of(t) >= 16 {
            c.align = Some(table.align_of(t) as u32);
        }
        for m in b.members.iter().flatten() {
            let (kind, subtype, class, array_size) = member_type(table, m.ty);
            // An array of arrays names its inner element too (`hkArray<hkArray<int>>`).
            let element = if kind == TypeKind::Array && subtype == TypeKind::Array {
                member_type(table, table.subtype_of(table.subtype_of(m.ty))).0
            } else {
                TypeKind::Void
            };
            c.members.push(Member {
                name: m.name.clone(),
                ty: kind,
                subtype,
                element,
                class,
                enum_ref: None,
                array_size,
                flags: m.flags as u16,
                expected_offset: Some(m.offset as u32),
                gap_before: 0,
                line: 0,
            });
        }
        c.note = Some(format!("from the type table of a tagfile of SDK {sdk}"));
        classes.push(c);
    }
    classes
}

/// Every record of `tf` against `schema`: its size and each member's offset under the
/// layout engine, and each member's flags as stored.
pub fn check(schema: &Schema, tf: &TagFile) -> Vec<LayoutRow> {
    let table = &tf.types;
    let mut layouts = Layouts::new(schema, schema.generation.layout);
    let mut rows = Vec::new();
    for t in 1..table.types.len() as u64 {
        if !is_class(table, t) {
            continue;
        }
        let name = table.full_name(t);
        let layout = layouts.class(&name).ok().cloned();
        let stored = table.size_of(t) as u32;
        let got = layout.as_ref().map(|l| l.size);
        rows.push(row(&name, None, stored, got));
        let mine = schema.class(&name);
        let body = table.types[t as usize]
            .body
            .as_ref()
            .expect("class has a body");
        for m in body.members.iter().flatten() {
            let idx = mine.and_then(|c| c.members.iter().position(|x| x.name == m.name));
            let got = idx.zip(layout.as_ref()).map(|(i, l)| l.members[i].offset);
            rows.push(row(&name, Some(&m.name), m.offset as u32, got));
            let flags = idx.and_then(|i| mine.map(|c| u32::from(c.members[i].flags)));
            rows.push(row(
                &name,
                Some(&format!("{}#flags", m.name)),
                m.flags as u32,
                flags,
            ));
        }
    }
    rows
}

fn row(class: &str, member: Option<&str>, stored: u32, computed: Option<u32>) -> LayoutRow {
    LayoutRow {
        class: class.to_string(),
        member: member.map(str::to_string),
        stored,
        computed,
        verdict: match computed {
            None => Verdict::Missing,
            Some(c) if c == stored => Verdict::Match,
            Some(_) => Verdict::Mismatch,
        },
    }
}
