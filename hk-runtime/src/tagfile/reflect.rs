//! A TAG0 type table written from a schema: the inverse of [`super::schema::extract`].
//!
//! Files hk makes itself (the synthetic 2016 and 2023.2 samples) and files built from a
//! dump have no type table to copy, so one is described from the schema. Classes become
//! records with the layout engine's sizes and offsets; member types become the slot and leaf
//! types Havok's own tables use (docs/tagfile-format.md §3): `hkArray<T, A>` with its three
//! members, `T*<T>`, `hkStringPtr`, `hkEnum<E, S>` over an integer typedef, `T[N]` tuples,
//! and the float tuples `hkVector4f`, `hkQuaternionf`, `hkRotationImpl<float>`,
//! `hkMatrix4f`. Relative forms (docs/collision-notes.md §7) are `hkRelPtr<T>` (a pointer slot) and
//! `hkRelArray<T>`, `hkRelArrayView<T, int>` (array slots); their DATA form is in
//! docs/relative-pointers.md.
//!
//! Hashes come from the schema's `hash` keys (kept by extraction); a type without one gets
//! no THSH entry.

use std::collections::HashMap;

use super::types::{kind, Body, Param, TagMember, TagType, TypeTable};
use crate::error::{Error, Result};
use crate::schema::layout::Layouts;
use crate::schema::{Class, Member, Schema};
use crate::types::TypeKind;

/// Member flags of the three `hkArray` members (0x22, every 2015 array body).
const ARRAY_MEMBER: u64 = 0x22;
/// Flags of a string slot's and a ref pointer's single member (0x24, 2015 and 2022).
const SLOT_MEMBER: u64 = 0x24;

struct Builder<'s> {
    table: TypeTable,
    by_name: HashMap<String, u64>,
    layouts: Layouts<'s>,
    schema: &'s Schema,
}

/// The C integer behind each Havok integer typedef, with its format word (int kind 4,
/// 0x200 signed, 0x2000/0x4000/0x8000/0x10000 for 8/16/32/64 bits; docs §3).
fn int_type(k: TypeKind) -> Option<(&'static str, &'static str, u64, u64)> {
    Some(match k {
        TypeKind::Char => ("char", "char", 0x2004, 1),
        TypeKind::Int8 => ("hkInt8", "signed char", 0x2204, 1),
        TypeKind::UInt8 => ("hkUint8", "unsigned char", 0x2004, 1),
        TypeKind::Int16 => ("hkInt16", "short", 0x4204, 2),
        TypeKind::UInt16 => ("hkUint16", "unsigned short", 0x4004, 2),
        TypeKind::Int32 => ("hkInt32", "int", 0x8204, 4),
        TypeKind::UInt32 => ("hkUint32", "unsigned int", 0x8004, 4),
        TypeKind::Int64 => ("hkInt64", "long long", 0x10204, 8),
        TypeKind::UInt64 => ("hkUint64", "unsigned long long", 0x10004, 8),
        TypeKind::ULong => ("hkUlong", "unsigned long long", 0x10004, 8),
        _ => return None,
    })
}

fn body(format: u64, subtype: Option<u64>, size: u64, align: u64) -> Body {
    Body {
        format: Some(format),
        subtype,
        size_align: Some((size, align)),
        ..Body::default()
    }
}

impl Builder<'_> {
    /// The type called `name` with `params`, made by `make` on first use.
    fn ty(
        &mut self,
        name: &str,
        params: Vec<Param>,
        make: impl FnOnce(&mut Self) -> Result<Option<Body>>,
    ) -> Result<u64> {
        let probe = TagType {
            name: name.to_string(),
            params: params.clone(),
            body: None,
            hash: None,
        };
        let i = self.table.types.len() as u64;
        self.table.types.push(probe);
        let full = self.table.full_name(i);
        if let Some(&known) = self.by_name.get(&full) {
            self.table.types.pop();
            return Ok(known);
        }
        self.by_name.insert(full, i);
        let b = make(self)?;
        self.table.types[i as usize].body = b;
        Ok(i)
    }

    fn leaf(&mut self, name: &str, format: u64, size: u64) -> Result<u64> {
        self.ty(name, Vec::new(), |_| {
            Ok(Some(body(format, None, size, size)))
        })
    }

    fn float(&mut self) -> Result<u64> {
        self.leaf("float", 0x17_4605, 4)
    }

    fn typedef(&mut self, name: &str, parent: u64) -> Result<u64> {
        self.ty(name, Vec::new(), |_| {
            Ok(Some(Body {
                parent,
                ..Body::default()
            }))
        })
    }

    fn int(&mut self, k: TypeKind) -> Result<u64> {
        let (name, c, format, size) = int_type(k).ok_or_else(|| {
            Error::schema(format!("`{k}` is not an integer type a tagfile can store"))
        })?;
        let base = self.leaf(c, format, size)?;
        if name == c {
            return Ok(base);
        }
        self.typedef(name, base)
    }

    /// `n` elements of `elem` (format `n << 8 | 0x28`), aligned to `align`, or to the
    /// element's alignment when `align` is 0.
    fn tuple(
        &mut self,
        name: &str,
        params: Vec<Param>,
        elem: u64,
        n: u64,
        align: u64,
    ) -> Result<u64> {
        let size = self.table.size_of(elem);
        let align = if align == 0 {
            self.table.align_of(elem)
        } else {
            align
        };
        self.ty(name, params, |_| {
            Ok(Some(body(
                (n << 8) | kind::TUPLE,
                Some(elem),
                n * size,
                align,
            )))
        })
    }

    /// A SIMD float type: `n` floats, 16-aligned (`hkVector4f` is format 0x428 over
    /// `float`, 16 bytes, aligned 16 in every corpus table).
    fn floats(&mut self, name: &str, n: u64) -> Result<u64> {
        let f = self.float()?;
        self.tuple(name, Vec::new(), f, n, 16)
    }

    fn void(&mut self) -> Result<u64> {
        self.ty("void", Vec::new(), |_| {
            Ok(Some(body(kind::VOID, None, 0, 1)))
        })
    }

    fn pointer(&mut self, target: u64) -> Result<u64> {
        self.ty("T*", vec![tparam("tT", target)], |_| {
            Ok(Some(body(kind::POINTER, Some(target), 8, 8)))
        })
    }

    /// The type of one element or value of kind `k` holding `class`.
    fn value_type(&mut self, k: TypeKind, class: Option<&str>, m: &Member) -> Result<u64> {
        if int_type(k).is_some() {
            return self.int(k);
        }
        let class_ty = |me: &mut Self| -> Result<u64> {
            match class {
                Some(c) => me.class(c),
                None => me.void(),
            }
        };
        match k {
            // An element type the schema does not know (an always-empty array of a class
            // the file never describes, as extraction leaves it).
            TypeKind::Void => self.void(),
            TypeKind::Bool => self.leaf("hkBool", 0x2002, 1),
            TypeKind::Real => {
                let f = self.float()?;
                self.typedef("hkReal", f)
            }
            TypeKind::Half => self.leaf("hkHalf16", 0x7_4605, 2),
            TypeKind::Vector4 => self.floats("hkVector4f", 4),
            TypeKind::Quaternion => self.floats("hkQuaternionf", 4),
            TypeKind::Matrix3 | TypeKind::Rotation => {
                let f = self.float()?;
                self.tuple("hkRotationImpl", vec![tparam("tFT", f)], f, 12, 16)
            }
            TypeKind::Matrix4 | TypeKind::Transform => self.floats("hkMatrix4f", 16),
            // Havok's tables describe hkQsTransformf as a record of three vectors; a schema
            // that has that class uses it, else the 12 floats stand alone.
            TypeKind::QsTransform if self.schema.class("hkQsTransformf").is_some() => {
                self.class("hkQsTransformf")
            }
            TypeKind::QsTransform => self.floats("hkQsTransformf", 12),
            TypeKind::Struct => class_ty(self),
            TypeKind::CString => self.leaf("char*", kind::STRING, 8),
            TypeKind::StringPtr => {
                let c = self.leaf("const char*", kind::STRING, 8)?;
                self.ty("hkStringPtr", Vec::new(), |_| {
                    let mut b = body(kind::STRING, None, 8, 8);
                    b.members = Some(vec![member("stringAndFlag", SLOT_MEMBER, 0, c)]);
                    Ok(Some(b))
                })
            }
            TypeKind::Pointer => {
                let t = class_ty(self)?;
                self.pointer(t)
            }
            TypeKind::RelPtr => {
                let t = class_ty(self)?;
                self.ty("hkRelPtr", vec![tparam("tTYPE", t)], |_| {
                    Ok(Some(body(kind::POINTER, Some(t), 8, 8)))
                })
            }
            TypeKind::Array => {
                let e = self.element(m)?;
                let alloc = self.ty("hkContainerHeapAllocator", Vec::new(), |_| {
                    let mut b = body(kind::RECORD, None, 1, 1);
                    b.flags = Some(0x10);
                    b.members = Some(Vec::new());
                    Ok(Some(b))
                })?;
                let data = self.pointer(e)?;
                let int = self.int(TypeKind::Int32)?;
                let params = vec![tparam("tT", e), tparam("tAllocator", alloc)];
                self.ty("hkArray", params, |_| {
                    let mut b = body(kind::ARRAY, Some(e), 16, 8);
                    b.members = Some(vec![
                        member("m_data", ARRAY_MEMBER, 0, data),
                        member("m_size", ARRAY_MEMBER, 8, int),
                        member("m_capacityAndFlags", ARRAY_MEMBER, 12, int),
                    ]);
                    Ok(Some(b))
                })
            }
            TypeKind::RelArray | TypeKind::RelArray64 => {
                let e = self.element(m)?;
                // 2014-2016's hkRelArray is a u16 pair (4 bytes); 2022's is 16 bytes.
                let (size, align) = if k == TypeKind::RelArray {
                    (4, 2)
                } else {
                    (16, 8)
                };
                self.ty("hkRelArray", vec![tparam("tT", e)], |_| {
                    Ok(Some(body(kind::ARRAY, Some(e), size, align)))
                })
            }
            TypeKind::RelArrayView => {
                let e = self.element(m)?;
                let int = self.int(TypeKind::Int32)?;
                let params = vec![tparam("tT", e), tparam("tB", int)];
                self.ty("hkRelArrayView", params, |_| {
                    Ok(Some(body(kind::ARRAY, Some(e), 8, 4)))
                })
            }
            other => Err(Error::schema(format!(
                "member type `{other}` has no tagfile form"
            ))),
        }
    }

    /// The element type of array member `m`.
    fn element(&mut self, m: &Member) -> Result<u64> {
        let probe = Member {
            ty: m.subtype,
            subtype: m.element,
            element: TypeKind::Void,
            array_size: 0,
            ..m.clone()
        };
        self.value_type(m.subtype, m.class.as_deref(), &probe)
    }

    /// The type of member `m` of `owner`: its value type, an enum over it, or a C array.
    fn member_type(&mut self, owner: &Class, m: &Member) -> Result<u64> {
        let base = match m.ty {
            TypeKind::Enum | TypeKind::Flags => {
                let storage = if m.subtype.int_width().is_some() {
                    m.subtype
                } else {
                    TypeKind::UInt32
                };
                let s = self.int(storage)?;
                match m
                    .enum_ref
                    .as_deref()
                    .and_then(|r| self.schema.resolve_enum(&owner.name, r))
                {
                    Some((decl, e)) => {
                        let ename = format!("{}::{}", decl.name, e.name);
                        let et = self.leaf(&ename, 0x8204, 4)?;
                        let wrapper = if m.ty == TypeKind::Enum {
                            "hkEnum"
                        } else {
                            "hkFlags"
                        };
                        let params = vec![tparam("tENUM", et), tparam("tSTORAGE", s)];
                        self.ty(wrapper, params, |_| {
                            Ok(Some(Body {
                                parent: s,
                                ..Body::default()
                            }))
                        })?
                    }
                    None => s,
                }
            }
            k => self.value_type(k, m.class.as_deref(), m)?,
        };
        if m.array_size == 0 {
            return Ok(base);
        }
        let n = u64::from(m.array_size);
        let params = vec![
            tparam("tT", base),
            Param {
                name: "vN".into(),
                value: n,
            },
        ];
        self.tuple("T[N]", params, base, n, 0)
    }

    /// The record type of class `name`, with its parent and members.
    fn class(&mut self, name: &str) -> Result<u64> {
        let schema = self.schema;
        let c = schema
            .class(name)
            .ok_or_else(|| Error::schema(format!("no class `{name}` in the schema")))?;
        if let Some(&t) = self.by_name.get(name) {
            return Ok(t);
        }
        let layout = self.layouts.class(name)?.clone();
        self.ty(name, Vec::new(), |me| {
            let parent = match &c.parent {
                Some(p) => me.class(p)?,
                None => 0,
            };
            let mut members = Vec::new();
            for (m, l) in c.members.iter().zip(&layout.members) {
                let t = me.member_type(c, m).map_err(|e| e.in_(m.name.clone()))?;
                // Tagfile generations state Havok's member flags (0x20 for an ordinary
                // member) in their schemas; they are written as stated.
                let flags = u64::from(m.flags);
                let mut tm = member(&m.name, flags, u64::from(l.offset), t);
                // Flag 0x80 carries one extra varint; its meaning is unknown and it is 3 in
                // every member that has it (4/4, 2022; docs/tagfile-format.md §3).
                if flags & 0x80 != 0 {
                    tm.extra = Some(3);
                }
                members.push(tm);
            }
            let mut b = body(
                kind::RECORD,
                None,
                u64::from(layout.size),
                u64::from(layout.align),
            );
            b.parent = parent;
            b.version = (c.version != 0).then_some(u64::from(c.version));
            b.members = Some(members);
            Ok(Some(b))
        })
        .map_err(|e| e.in_(name.to_string()))
    }
}

fn tparam(name: &str, value: u64) -> Param {
    Param {
        name: name.into(),
        value,
    }
}

fn member(name: &str, flags: u64, offset: u64, ty: u64) -> TagMember {
    TagMember {
        name: name.into(),
        flags,
        extra: None,
        offset,
        ty,
    }
}

/// A type table describing `classes` of `schema` (and everything they reach), laid out
/// under the generation's rules, with the hashes the schema states.
///
/// # Errors
/// A class the schema lacks, a member type with no tagfile form (`variant`,
/// `homogeneousarray`, ...), or a layout the engine cannot compute.
pub fn table(schema: &Schema, classes: &[&str]) -> Result<TypeTable> {
    let mut b = Builder {
        table: TypeTable {
            types: vec![TagType::default()],
            ..TypeTable::default()
        },
        by_name: HashMap::new(),
        layouts: Layouts::new(schema, schema.generation.layout),
        schema,
    };
    // Strings are `char` items (docs §4), whether or not a class names `char`.
    b.int(TypeKind::Char)?;
    for c in classes {
        b.class(c)?;
    }
    let mut table = b.table;
    for t in table.types.iter_mut().skip(1) {
        if t.params.is_empty() {
            t.hash = schema.class(&t.name).and_then(|c| c.hash);
        }
    }
    Ok(table)
}

/// `graph` as a TAG0 of SDK `sdk`, with a type table [`table`] writes from `schema` for the
/// classes the graph's objects have (by name), in the order the generation's `[tagfile]`
/// rules give.
///
/// # Errors
/// A schema without `[tagfile]` rules, anything [`table`] reports, or a value that does not
/// fit its type.
pub fn write(graph: &crate::graph::Graph, schema: &Schema, sdk: &str) -> Result<Vec<u8>> {
    let g = &schema.generation;
    let rules = g
        .tagfile
        .as_ref()
        .ok_or_else(|| Error::schema(format!("{} has no [tagfile] rules", g.name)))?;
    let names = graph.schema();
    let mut classes: Vec<&str> = graph
        .objects
        .iter()
        .map(|o| names.name_of(o.class))
        .collect();
    classes.sort_unstable();
    classes.dedup();
    let table = table(schema, &classes)?;
    super::write::write(graph, &table, sdk, rules)
}

/// `table` with the records `graph`'s classes need and it lacks: for each class of an
/// object that no record of `table` describes (a type of that name with a body), the
/// records [`table`] writes from `schema` for it, appended after the table's own types
/// (a type of the same full name already there is used instead, and gets the body it lacks).
/// The table's own records stay as they are.
///
/// # Errors
/// What [`table`] reports for the missing classes.
pub fn extend(
    table: &TypeTable,
    graph: &crate::graph::Graph,
    schema: &Schema,
) -> Result<TypeTable> {
    let names = graph.schema();
    let described: std::collections::HashSet<&str> = table
        .types
        .iter()
        .filter(|t| t.body.is_some() && t.params.is_empty())
        .map(|t| t.name.as_str())
        .collect();
    let mut missing: Vec<&str> = graph
        .objects
        .iter()
        .map(|o| names.name_of(o.class))
        .filter(|n| !described.contains(n))
        .collect();
    if missing.is_empty() {
        return Ok(table.clone());
    }
    missing.sort_unstable();
    missing.dedup();
    let extra = self::table(schema, &missing)?;
    let mut out = table.clone();
    let mut by_name: HashMap<String, u64> = HashMap::new();
    for i in 1..table.types.len() as u64 {
        by_name.entry(table.full_name(i)).or_insert(i);
    }
    // Where each of `extra`'s types goes: a type of the same full name, or a new one.
    let mut to = vec![0u64; extra.types.len()];
    for (i, slot) in to.iter_mut().enumerate().skip(1) {
        *slot = match by_name.get(&extra.full_name(i as u64)) {
            Some(&k) => k,
            None => {
                out.types.push(TagType::default());
                out.types.len() as u64 - 1
            }
        };
    }
    let map = |t: u64| to.get(t as usize).copied().unwrap_or(0);
    for (i, t) in extra.types.iter().enumerate().skip(1) {
        let new = to[i] as usize >= table.types.len();
        let at = &mut out.types[to[i] as usize];
        if new {
            at.name.clone_from(&t.name);
            at.params = t
                .params
                .iter()
                .map(|p| Param {
                    name: p.name.clone(),
                    value: if p.name.starts_with('t') {
                        map(p.value)
                    } else {
                        p.value
                    },
                })
                .collect();
            at.hash = t.hash;
        }
        if at.body.is_none() {
            at.body = t.body.as_ref().map(|b| remap_body(b, &map));
        }
    }
    Ok(out)
}

/// `b` with its type references moved by `map`.
fn remap_body(b: &Body, map: &dyn Fn(u64) -> u64) -> Body {
    let mut b = b.clone();
    b.parent = map(b.parent);
    b.subtype = b.subtype.map(map);
    for m in b.members.iter_mut().flatten() {
        m.ty = map(m.ty);
    }
    for i in b.interfaces.iter_mut().flatten() {
        i.0 = map(i.0);
    }
    b
}
