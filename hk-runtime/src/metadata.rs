//! Class descriptions a packfile carries about itself (the `hkClass`, `hkClassMember` and
//! `hkClassEnum` objects of `__types__`, seed 000 "Class metadata in the ragdoll files").
//!
//! The reflection classes are read through a schema like any other class: their member
//! offsets come from the layout engine under the file's own rules, so nothing here knows a
//! version's layout.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::layout::{Layouts, MemberLayout};
use crate::packfile::{Loc, Packfile};
use crate::schema::{Class, Enum, EnumItem, Generation, Member, Schema};
use crate::types::TypeKind;

/// Typed access to the members of one object, by member name.
struct View<'p, 's, 'a> {
    pf: &'p Packfile<'a>,
    at: Loc,
    class: String,
    members: HashMap<&'s str, (&'s Member, MemberLayout)>,
}

impl<'s> View<'_, 's, '_> {
    fn member(&self, name: &str) -> Result<(&'s Member, MemberLayout)> {
        self.members.get(name).copied().ok_or_else(|| {
            Error::schema(format!(
                "reflection class `{}` has no member `{name}`",
                self.class
            ))
        })
    }

    fn slot(&self, name: &str) -> Result<Loc> {
        let (_, l) = self.member(name)?;
        Ok(Loc {
            section: self.at.section,
            offset: self.at.offset + l.offset,
        })
    }

    fn err(&self, name: &str, e: Error) -> Error {
        e.at(self.pf.abs(self.at)).in_member(&self.class, name)
    }

    fn int(&self, name: &str) -> Result<i64> {
        let (m, l) = self.member(name)?;
        let ty = if matches!(m.ty, TypeKind::Enum | TypeKind::Flags) {
            m.subtype
        } else {
            m.ty
        };
        let w = ty.int_width().unwrap_or(l.size);
        let v = self
            .pf
            .bytes()
            .uint(self.pf.abs(self.slot(name)?), w)
            .map_err(|e| self.err(name, e))?;
        Ok(match ty {
            TypeKind::Int8 => i64::from(v as u8 as i8),
            TypeKind::Int16 => i64::from(v as u16 as i16),
            TypeKind::Int32 => i64::from(v as u32 as i32),
            _ => v as i64,
        })
    }

    fn ptr(&self, name: &str) -> Result<Option<Loc>> {
        Ok(self.pf.resolve(self.slot(name)?))
    }

    fn string(&self, name: &str) -> Result<Option<String>> {
        match self.ptr(name)? {
            None => Ok(None),
            Some(t) => self
                .pf
                .bytes()
                .cstr(self.pf.abs(t))
                .map(|s| Some(s.to_string()))
                .map_err(|e| self.err(name, e)),
        }
    }

    /// A simple array: its data pointer and its length, the length checked against the bytes
    /// left in the target section for elements of `stride` bytes.
    fn simple_array(&self, name: &str, stride: u32) -> Result<Option<(Loc, u32)>> {
        let (_, l) = self.member(name)?;
        let ptr = self.pf.rules().ptr();
        let count_at = self.pf.abs(self.slot(name)?) + u64::from(ptr);
        let count = self
            .pf
            .bytes()
            .u32(count_at)
            .map_err(|e| self.err(name, e))?;
        let _ = l;
        let Some(data) = self.ptr(name)? else {
            return Ok(None);
        };
        let sec = &self.pf.sections[data.section as usize];
        let left = u64::from(sec.local_fixups.saturating_sub(data.offset));
        if u64::from(count) * u64::from(stride) > left {
            return Err(self.err(
                name,
                Error::invalid(
                    count_at,
                    format!("array of {count} × {stride} bytes runs past its section"),
                ),
            ));
        }
        Ok(Some((data, count)))
    }
}

impl Packfile<'_> {
    /// The file's layout rules.
    pub fn rules(&self) -> crate::layout::LayoutRules {
        self.header.layout
    }
}

fn view<'p, 's, 'a>(
    pf: &'p Packfile<'a>,
    layouts: &mut Layouts<'s>,
    class: &str,
    at: Loc,
) -> Result<View<'p, 's, 'a>> {
    let members = layouts
        .flattened(class)?
        .into_iter()
        .map(|(_, m, l)| (m.name.as_str(), (m, l)))
        .collect();
    Ok(View {
        pf,
        at,
        class: class.to_string(),
        members,
    })
}

/// Reads the class metadata in `pf`'s `__types__` section.
///
/// `reflection` supplies the reflection classes (`hkClass`, `hkClassMember`, `hkClassEnum`,
/// `hkClassEnumItem`) and the member-type numbering; they are laid out under the file's own
/// rules. The result is a schema with the file's version and layout, the described classes
/// (with their stored offsets and sizes as expectations and the stored signatures where the
/// file lists them) and a copy of the reflection classes. `None` when the file describes no
/// classes.
///
/// # Errors
/// Malformed metadata (with its offset and the member being read), a type number the
/// generation does not know, or a reference to an enum or class the file does not describe.
pub fn extract(pf: &Packfile<'_>, reflection: &Schema) -> Result<Option<Schema>> {
    let mut layouts = Layouts::new(reflection, pf.rules());
    let class_size = layouts.class("hkClass")?.size;
    let member_size = layouts.class("hkClassMember")?.size;
    let enum_size = layouts.class("hkClassEnum")?.size;
    let item_size = layouts.class("hkClassEnumItem")?.size;
    let _ = class_size;
    let g = &reflection.generation;

    let class_objects: Vec<Loc> = pf
        .objects()
        .filter(|(loc, name)| {
            *name == "hkClass" && Some(loc.section) == pf.section("__types__").map(|s| s.index)
        })
        .map(|(loc, _)| loc)
        .collect();
    if class_objects.is_empty() {
        return Ok(None);
    }

    // Pass 1: names of classes and enums by address, so members can refer to them.
    let mut class_at: HashMap<Loc, String> = HashMap::new();
    let mut enum_at: HashMap<Loc, (String, Enum)> = HashMap::new();
    for &at in &class_objects {
        let v = view(pf, &mut layouts, "hkClass", at)?;
        let name = v
            .string("name")?
            .ok_or_else(|| v.err("name", Error::invalid(0, "class without a name")))?;
        if let Some((data, n)) = v.simple_array("declaredEnums", enum_size)? {
            for i in 0..n {
                let e_at = Loc {
                    section: data.section,
                    offset: data.offset + i * enum_size,
                };
                let e = read_enum(pf, &mut layouts, e_at, item_size)
                    .map_err(|e| e.in_(name.clone()))?;
                enum_at.insert(e_at, (name.clone(), e));
            }
        }
        class_at.insert(at, name);
    }

    // Pass 2: the classes.
    let mut classes = Vec::with_capacity(class_objects.len());
    let mut external: Vec<Class> = Vec::new();
    for &at in &class_objects {
        let v = view(pf, &mut layouts, "hkClass", at)?;
        let name = class_at[&at].clone();
        let mut c = Class::new(name.clone());
        c.parent = match v.ptr("parent")? {
            None => None,
            Some(p) => Some(class_at.get(&p).cloned().ok_or_else(|| {
                v.err(
                    "parent",
                    Error::invalid(pf.abs(p), "parent is not an hkClass of this file"),
                )
            })?),
        };
        c.expected_size = Some(v.int("objectSize")? as u32);
        c.interfaces = v.int("numImplementedInterfaces")? as u32;
        c.version = v.int("describedVersion")? as u32;
        c.flags = v.int("flags")? as u32;
        c.expected_signature = pf.stored_signature(&name);
        if let Some((data, n)) = v.simple_array("declaredEnums", enum_size)? {
            for i in 0..n {
                let e_at = Loc {
                    section: data.section,
                    offset: data.offset + i * enum_size,
                };
                c.enums.push(
                    read_enum(pf, &mut layouts, e_at, item_size)
                        .map_err(|e| e.in_(name.clone()))?,
                );
            }
        }
        if let Some((data, n)) = v.simple_array("declaredMembers", member_size)? {
            for i in 0..n {
                let m_at = Loc {
                    section: data.section,
                    offset: data.offset + i * member_size,
                };
                let m = read_member(
                    pf,
                    &mut layouts,
                    g,
                    m_at,
                    &class_at,
                    &enum_at,
                    &name,
                    reflection,
                    item_size,
                    &mut external,
                )
                .map_err(|e| e.in_(name.clone()))?;
                c.members.push(m);
            }
        }
        classes.push(c);
    }
    // Members name enums as `Class.Enum` at first; shorten to `Enum` where the owner chain
    // resolves it to the same enum.
    let names: HashMap<String, Option<String>> = classes
        .iter()
        .map(|c| (c.name.clone(), c.parent.clone()))
        .collect();
    let declared: HashMap<String, Vec<String>> = classes
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                c.enums.iter().map(|e| e.name.clone()).collect(),
            )
        })
        .collect();
    for c in &mut classes {
        for m in &mut c.members {
            let Some(r) = m.enum_ref.clone() else {
                continue;
            };
            let Some((owner, ename)) = r.split_once('.') else {
                continue;
            };
            let mut cur = Some(c.name.clone());
            while let Some(n) = cur {
                if declared
                    .get(&n)
                    .is_some_and(|d| d.iter().any(|e| e == ename))
                {
                    if n == owner {
                        m.enum_ref = Some(ename.to_string());
                    }
                    break;
                }
                cur = names.get(&n).cloned().flatten();
            }
        }
    }
    for holder in external {
        if !classes.iter().any(|c| c.name == holder.name) {
            classes.push(holder);
        }
    }
    let roots = ["hkClass", "hkClassMember", "hkClassEnum", "hkClassEnumItem"];
    for rc in reflection.closure(&roots)? {
        if !classes.iter().any(|c| c.name == rc.name) {
            let mut rc = rc.clone();
            rc.expected_signature = pf.stored_signature(&rc.name);
            rc.expected_size = None;
            rc.members.iter_mut().for_each(|m| m.expected_offset = None);
            classes.push(rc);
        }
    }
    let generation = Generation {
        name: format!("extracted-{}", pf.header.contents_version()),
        container: crate::schema::Container::Packfile,
        file_version: pf.header.file_version,
        contents_version: pf.header.contents_version(),
        layout: pf.rules(),
        member_types: g.member_types.clone(),
        member_flags: g.member_flags.clone(),
    };
    Schema::new(generation, classes).map(Some).map_err(|d| {
        Error::schema(format!(
            "the file's metadata does not form a valid schema:\n{d}"
        ))
    })
}

fn read_enum(
    pf: &Packfile<'_>,
    layouts: &mut Layouts<'_>,
    at: Loc,
    item_size: u32,
) -> Result<Enum> {
    let v = view(pf, layouts, "hkClassEnum", at)?;
    let mut e = Enum {
        name: v.string("name")?.unwrap_or_default(),
        flags: v.int("flags")? as u32,
        items: Vec::new(),
    };
    if let Some((data, n)) = v.simple_array("items", item_size)? {
        for i in 0..n {
            let iv = view(
                pf,
                layouts,
                "hkClassEnumItem",
                Loc {
                    section: data.section,
                    offset: data.offset + i * item_size,
                },
            )?;
            e.items.push(EnumItem {
                name: iv.string("name")?.unwrap_or_default(),
                value: iv.int("value")? as i32,
            });
        }
    }
    Ok(e)
}

fn read_member(
    pf: &Packfile<'_>,
    layouts: &mut Layouts<'_>,
    g: &Generation,
    at: Loc,
    class_at: &HashMap<Loc, String>,
    enum_at: &HashMap<Loc, (String, Enum)>,
    owner: &str,
    reflection: &Schema,
    item_size: u32,
    external: &mut Vec<Class>,
) -> Result<Member> {
    let v = view(pf, layouts, "hkClassMember", at)?;
    let name = v.string("name")?.unwrap_or_default();
    let kind = |field: &str| -> Result<TypeKind> {
        let n = v.int(field)? as u8;
        g.type_from_number(n).ok_or_else(|| {
            v.err(
                field,
                Error::invalid(
                    0,
                    format!("type number {n} is not a member type of {}", g.name),
                ),
            )
            .in_(name.clone())
        })
    };
    let ty = kind("type")?;
    let subtype = kind("subtype")?;
    let class = match v.ptr("class")? {
        None => None,
        Some(p) => Some(class_at.get(&p).cloned().ok_or_else(|| {
            v.err(
                "class",
                Error::invalid(
                    pf.abs(p),
                    "member names a class this file does not describe",
                ),
            )
            .in_(name.clone())
        })?),
    };
    let enum_ref = match v.ptr("enum")? {
        None => None,
        Some(p) => match enum_at.get(&p) {
            Some((c, e)) => Some(format!("{c}.{}", e.name)),
            None => {
                // A standalone hkClassEnum object (seed 000: 12 of the 80 metadata objects of
                // each ragdoll file). Find the class that declares the same enum: this
                // member's class first, then any class of the file, then a class of the
                // generation's schema (for enums the file declares nowhere).
                let e = read_enum(pf, layouts, p, item_size)?;
                let mut same: Vec<&String> = enum_at
                    .values()
                    .filter(|(_, x)| *x == e)
                    .map(|(c, _)| c)
                    .collect();
                same.sort();
                if let Some(c) = same.iter().find(|c| c.as_str() == owner).or(same.first()) {
                    return finish_member(
                        &v,
                        name,
                        ty,
                        subtype,
                        class,
                        Some(format!("{c}.{}", e.name)),
                    );
                }
                let known = reflection
                    .classes()
                    .iter()
                    .find(|c| c.enums.iter().any(|x| *x == e))
                    .map(|c| c.name.clone());
                let holder_name = known
                    .clone()
                    .unwrap_or_else(|| format!("hkEnumHolder_{owner}_{name}"));
                let mut holder_class = Class::new(holder_name.clone());
                holder_class.enums = vec![e.clone()];
                holder_class.note = Some(match known {
                    Some(_) => format!("declares enum `{}` as schema {} does; the file stores it as a standalone hkClassEnum", e.name, reflection.generation.name),
                    None => format!(
                        "synthetic: the file stores enum `{}` of {owner}.{name} as a standalone hkClassEnum and describes no class declaring it",
                        e.name
                    ),
                });
                let r = format!("{holder_name}.{}", e.name);
                external.push(holder_class);
                Some(r)
            }
        },
    };
    finish_member(&v, name, ty, subtype, class, enum_ref)
}

fn finish_member(
    v: &View<'_, '_, '_>,
    name: String,
    ty: TypeKind,
    subtype: TypeKind,
    class: Option<String>,
    enum_ref: Option<String>,
) -> Result<Member> {
    Ok(Member {
        name,
        ty,
        subtype,
        class,
        enum_ref,
        array_size: v.int("cArraySize")? as u16,
        flags: v.int("flags")? as u16,
        expected_offset: Some(v.int("offset")? as u32),
        line: 0,
    })
}
