//! Schemas from the class definitions of binary tagfiles (docs/binary-tagfile-format.md §6).
//!
//! Each definition becomes a class with its parent, version and members. A type code gives
//! the member type: `byte` is `uint8`, `real` is `real`, the vectors are `vector4`,
//! `matrix3` and `matrix4` (8 floats: a `real[8]`), `object` a pointer, `struct` a struct,
//! `cstring` a string, the array flag an `hkArray` and the tuple flag a C array. An
//! integer member is `int32` or `int64` as its arrays, tuples or struct columns declare
//! their width (4 or 8 bytes), and `int64` where the file never says. The files state no
//! sizes or offsets: the schema describes values, not a memory layout.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

use super::defs::{Base, ClassDef, MemberDef};
use super::BinaryTagfile;
use crate::error::{Error, Limit, ReadError, Result};
use crate::limits::{Limits, HARD_MAX_DEPTH};
use crate::schema::{Class, Container, Generation, Member, Schema};
use crate::types::TypeKind;

/// The member type of `base` in a schema, with `width` the bytes of an integer.
fn kind(base: Base, width: Option<u8>) -> TypeKind {
    match base {
        Base::Void => TypeKind::Void,
        Base::Byte => TypeKind::UInt8,
        Base::Int if width == Some(4) => TypeKind::Int32,
        Base::Int => TypeKind::Int64,
        Base::Real | Base::Vec8 => TypeKind::Real,
        Base::Vec4 => TypeKind::Vector4,
        Base::Vec12 => TypeKind::Matrix3,
        Base::Vec16 => TypeKind::Matrix4,
        Base::Object => TypeKind::Pointer,
        Base::Struct => TypeKind::Struct,
        Base::CString => TypeKind::CString,
    }
}

/// The schema member of definition member `m`.
///
/// # Errors
/// An array or tuple of 8-float vectors, which no schema type holds.
fn member(m: &MemberDef, width: Option<u8>) -> Result<Member> {
    let ty = m.ty;
    let k = kind(ty.base, width);
    if ty.base == Base::Vec8 && (ty.array || ty.tuple > 0) {
        return Err(Error::schema(format!(
            "member {}: arrays and tuples of 8-float vectors have no schema type",
            m.name
        )));
    }
    // A pointer names the struct class it points to, as tagfile schemas do.
    let pointee = if ty.base == Base::Object && m.class.is_some() {
        TypeKind::Struct
    } else {
        TypeKind::Void
    };
    let (ty_kind, subtype) = if ty.array {
        (TypeKind::Array, k)
    } else {
        (k, pointee)
    };
    let array_size = match (ty.tuple, ty.base) {
        (0, Base::Vec8) => 8,
        (n, _) => u16::try_from(n)
            .map_err(|_| Error::schema(format!("member {}: tuple of {n}", m.name)))?,
    };
    Ok(Member {
        name: m.name.clone(),
        ty: ty_kind,
        subtype,
        element: TypeKind::Void,
        class: m.class.clone(),
        enum_ref: None,
        array_size,
        flags: 0,
        expected_offset: None,
        gap_before: 0,
        line: 0,
    })
}

/// Refuses classes that contain each other by value, or whose values nest (struct members
/// by value, through their parents' members too) deeper than `max` levels
/// ([`Limit::Depth`]), or chains of parents and struct members longer than
/// [`HARD_MAX_DEPTH`] classes (what the recursion here follows).
fn check_nesting(defs: &[ClassDef], max: usize) -> Result<()> {
    let by_name: HashMap<&str, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    // 0: not visited, 1: being visited, 2 + h: values nest h levels below it.
    let mut state = vec![0usize; defs.len()];
    let too_deep = |name: &str| {
        Error::read(ReadError::Limit {
            limit: Limit::Depth,
            needed: max as u64 + 1,
            max: max as u64,
        })
        .in_(format!("class {name} (structs by value)"))
    };
    struct Cx<'a> {
        defs: &'a [ClassDef],
        by_name: HashMap<&'a str, usize>,
        too_deep: &'a dyn Fn(&str) -> Error,
        max: usize,
    }
    // `steps` (classes on the path) bounds the recursion.
    fn visit(i: usize, steps: usize, cx: &Cx<'_>, state: &mut [usize]) -> Result<usize> {
        let defs = cx.defs;
        if steps > HARD_MAX_DEPTH as usize {
            return Err(Error::schema(format!(
                "class {}: a chain of parents and struct members longer than {HARD_MAX_DEPTH} classes",
                defs[i].name
            )));
        }
        match state[i] {
            1 => {
                return Err(Error::schema(format!(
                    "class {} contains itself by value",
                    defs[i].name
                )))
            }
            s if s >= 2 => return Ok(s - 2),
            _ => {}
        }
        state[i] = 1;
        let d = &defs[i];
        // A parent's members are the class's own (flattened): no level below it.
        let mut h = if d.parent > 0 {
            visit(d.parent as usize - 1, steps + 1, cx, state)?
        } else {
            0
        };
        for m in d
            .members
            .iter()
            .filter(|m| m.ty.base == Base::Struct && !m.ty.array)
        {
            let c = m.class.as_deref().unwrap_or_default();
            let n = *cx.by_name.get(c).ok_or_else(|| {
                Error::schema(format!(
                    "member {}.{}: struct class {c} is not defined",
                    d.name, m.name
                ))
            })?;
            h = h.max(1 + visit(n, steps + 1, cx, state)?);
        }
        if h > cx.max {
            return Err((cx.too_deep)(&d.name));
        }
        state[i] = 2 + h;
        Ok(h)
    }
    let cx = Cx {
        defs,
        by_name,
        too_deep: &too_deep,
        max,
    };
    for i in 0..defs.len() {
        visit(i, 0, &cx, &mut state)?;
    }
    Ok(())
}

/// A schema of every class `files` define. A class several files define must be defined
/// the same way in each (integer widths one file leaves open another may give). Classes
/// may nest (parents and structs by value) as deep as the default
/// [`Limits::max_depth`].
///
/// # Errors
/// A class defined differently by two files, classes that nest by value in a cycle or too
/// deep, a member naming a class no file defines, or an array of 8-float vectors.
pub fn extract(files: &[&BinaryTagfile], name: &str) -> Result<Schema> {
    extract_within(files, name, Limits::default().depth())
}

/// [`extract`] with classes nesting at most `max_depth` levels.
///
/// # Errors
/// As [`extract`].
pub fn extract_within(files: &[&BinaryTagfile], name: &str, max_depth: usize) -> Result<Schema> {
    let mut classes: Vec<(&ClassDef, Option<&str>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut widths: BTreeMap<(&str, &str), u8> = BTreeMap::new();
    let mut sdk = String::new();
    let mut version = 0;
    for f in files {
        check_nesting(&f.classes, max_depth)?;
        sdk = f.sdk.clone().unwrap_or_default();
        version = f.version;
        let parent =
            |d: &ClassDef| (d.parent > 0).then(|| f.classes[d.parent as usize - 1].name.as_str());
        for d in &f.classes {
            match index.get(d.name.as_str()) {
                None => {
                    index.insert(&d.name, classes.len());
                    classes.push((d, parent(d)));
                }
                Some(&i) => {
                    let (x, xp) = classes[i];
                    if (&x.version, &x.members, xp) != (&d.version, &d.members, parent(d)) {
                        return Err(Error::schema(format!(
                            "class {} is defined differently by two of the files",
                            d.name
                        )));
                    }
                }
            }
        }
        for (&(d, m), &w) in &f.int_widths {
            let Some(def) = f.classes.get(d) else {
                continue;
            };
            let Some(member) = def.members.get(m) else {
                continue;
            };
            let key = (def.name.as_str(), member.name.as_str());
            if widths.insert(key, w).is_some_and(|x| x != w) {
                return Err(Error::schema(format!(
                    "member {}.{}: integers {w} bytes wide in one file, {} in another",
                    def.name,
                    member.name,
                    12 - w
                )));
            }
        }
    }
    let mut out = Vec::with_capacity(classes.len());
    for (d, parent) in classes {
        let mut c = Class::new(d.name.clone());
        c.members.reserve_exact(d.members.len());
        c.parent = parent.map(str::to_string);
        // A negative (in-development) version keeps its bits.
        c.version = d.version as u32;
        c.note = Some(format!(
            "from the class definitions of a binary tagfile (version {version}{})",
            if sdk.is_empty() {
                String::new()
            } else {
                format!(", SDK {sdk}")
            }
        ));
        for m in &d.members {
            let w = widths.get(&(d.name.as_str(), m.name.as_str())).copied();
            c.members
                .push(member(m, w).map_err(|e| e.in_(format!("class {}", d.name)))?);
        }
        out.push(c);
    }
    let generation = Generation {
        name: name.to_string(),
        container: Container::Tagfile,
        file_version: version,
        contents_version: sdk,
        layout: crate::tagfile::schema::RULES,
        member_types: TypeKind::ALL
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, i as u8))
            .collect(),
        member_flags: Vec::new(),
        packfile: Default::default(),
        tagfile: None,
    };
    Schema::new(generation, out).map_err(|d| Error::schema(d.to_string()))
}
