//! Class descriptions a packfile carries about itself (the `hkClass`, `hkClassMember` and
//! `hkClassEnum` objects of `__types__`, docs/packfile-format.md §3 and
//! docs/layout-and-signatures.md).
//!
//! The reflection classes are read through a schema like any other class: their member
//! offsets come from the layout engine under the file's own rules, so nothing here knows a
//! version's layout.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::packfile::members::View;
use crate::packfile::{Loc, Packfile};
use crate::schema::layout::Layouts;
use crate::schema::names::{self, NameKind};
use crate::schema::{Class, Enum, EnumItem, Generation, Member, Schema};
use crate::types::TypeKind;

pub use super::header::REFLECTION_CLASSES;

/// Where the header's contents-version field is.
const CONTENTS_VERSION_AT: u64 = 0x28;

/// Reads the class metadata in `pf`'s `__types__` section.
///
/// `reflection` supplies the reflection classes (`hkClass`, `hkClassMember`, `hkClassEnum`,
/// `hkClassEnumItem`) and the member-type numbering; they are laid out under the file's own
/// rules. The result is a schema with the file's version and layout, the described classes
/// (their stored offsets and sizes as expectations, and the stored signatures where the
/// file lists them) and a copy of the reflection classes. `None` when the file describes no
/// classes.
///
/// # Errors
/// Malformed metadata (with its offset and the member being read), a type number the
/// generation does not know, or a reference to a class the file does not describe.
pub fn extract(pf: &Packfile<'_>, reflection: &Schema) -> Result<Option<Schema>> {
    let types = pf.section("__types__").map(|s| s.index);
    let class_objects: Vec<Loc> = pf
        .objects()
        .filter(|(loc, name)| *name == "hkClass" && Some(loc.section) == types)
        .map(|(loc, _)| loc)
        .collect();
    if class_objects.is_empty() {
        return Ok(None);
    }
    // The contents version names the extracted generation.
    let version = pf.header.contents_version();
    names::check(NameKind::Sdk, &version)
        .map_err(|m| Error::invalid(CONTENTS_VERSION_AT, m).in_("packfile header"))?;
    let mut x = Extractor::new(pf, reflection)?;
    for &at in &class_objects {
        x.index_class(at)?;
    }
    for (c, e) in x.enum_at.values() {
        x.declared.entry(e.clone()).or_default().push(c.clone());
    }
    for classes in x.declared.values_mut() {
        classes.sort();
    }
    let mut classes = Vec::with_capacity(class_objects.len());
    for &at in &class_objects {
        classes.push(x.class(at)?);
    }
    shorten_enum_refs(&mut classes);
    // Set lookups: a file may describe as many classes as it has bytes for.
    let mut named: std::collections::HashSet<String> =
        classes.iter().map(|c| c.name.clone()).collect();
    for holder in std::mem::take(&mut x.holders) {
        if named.insert(holder.name.clone()) {
            classes.push(holder);
        }
    }
    for rc in reflection.closure(&REFLECTION_CLASSES)? {
        if !named.contains(&rc.name) {
            let mut rc = rc.clone();
            rc.expected_signature = pf.stored_signature(&rc.name);
            rc.expected_size = None;
            rc.members.iter_mut().for_each(|m| m.expected_offset = None);
            classes.push(rc);
        }
    }
    let g = &reflection.generation;
    let generation = Generation {
        name: format!("extracted-{version}"),
        container: crate::schema::Container::Packfile,
        file_version: pf.header.file_version,
        contents_version: pf.header.contents_version(),
        layout: pf.rules(),
        member_types: g.member_types.clone(),
        member_flags: g.member_flags.clone(),
        packfile: g.packfile,
        tagfile: None,
    };
    Schema::new(generation, classes).map(Some).map_err(|d| {
        Error::schema(format!(
            "the file's metadata does not form a valid schema:\n{d}"
        ))
    })
}

/// What a standalone enum resolved to.
enum Standalone {
    /// Classes of the file declare the same enum (called `name`): the member's own class
    /// if it is one of them, else `first`.
    Declared {
        name: String,
        first: String,
        by: std::collections::HashSet<String>,
    },
    /// A class of the reflection schema, or a holder made for it.
    Held(String),
}

/// State of one extraction: the file, the reflection layouts and what pass 1 indexed.
struct Extractor<'p, 's, 'a> {
    pf: &'p Packfile<'a>,
    reflection: &'s Schema,
    layouts: Layouts<'s>,
    member_size: u32,
    enum_size: u32,
    item_size: u32,
    class_at: HashMap<Loc, String>,
    enum_at: HashMap<Loc, (String, Enum)>,
    /// The classes declaring each enum of `enum_at`, by its contents (made after pass 1).
    declared: HashMap<Enum, Vec<String>>,
    /// The first class of the reflection schema declaring each enum, by its contents.
    known: Option<HashMap<&'s Enum, &'s str>>,
    /// What each standalone enum resolved to, by its address: many members may name one
    /// enum of many items, which is read (and given a holder) once.
    standalone: HashMap<Loc, Standalone>,
    holders: Vec<Class>,
}

impl<'p, 's, 'a> Extractor<'p, 's, 'a> {
    fn new(pf: &'p Packfile<'a>, reflection: &'s Schema) -> Result<Self> {
        let mut layouts = Layouts::new(reflection, pf.rules());
        Ok(Extractor {
            pf,
            reflection,
            member_size: layouts.class("hkClassMember")?.size,
            enum_size: layouts.class("hkClassEnum")?.size,
            item_size: layouts.class("hkClassEnumItem")?.size,
            layouts,
            class_at: HashMap::new(),
            enum_at: HashMap::new(),
            declared: HashMap::new(),
            known: None,
            standalone: HashMap::new(),
            holders: Vec::new(),
        })
    }

    fn view(&mut self, class: &str, at: Loc) -> Result<View<'p, 's, 'a>> {
        View::new(self.pf, &mut self.layouts, class, at)
    }

    /// Pass 1: the class's name and its declared enums by address, so that members and
    /// parents can refer to them.
    fn index_class(&mut self, at: Loc) -> Result<()> {
        let v = self.view("hkClass", at)?;
        let name = v
            .name("name", NameKind::Class)?
            .ok_or_else(|| v.err("name", Error::invalid(0, "class without a name")))?;
        for e_at in v.elements("declaredEnums", self.enum_size)? {
            let e = self.read_enum(e_at).map_err(|e| e.in_(name.clone()))?;
            self.enum_at.insert(e_at, (name.clone(), e));
        }
        self.class_at.insert(at, name);
        Ok(())
    }

    fn class_name(
        &self,
        v: &View<'_, '_, '_>,
        field: &str,
        p: Option<Loc>,
    ) -> Result<Option<String>> {
        p.map(|p| {
            self.class_at.get(&p).cloned().ok_or_else(|| {
                v.err(
                    field,
                    Error::invalid(self.pf.abs(p), "points to no hkClass of this file"),
                )
            })
        })
        .transpose()
    }

    /// Pass 2: the whole class.
    fn class(&mut self, at: Loc) -> Result<Class> {
        let v = self.view("hkClass", at)?;
        let name = self.class_at[&at].clone();
        let mut c = Class::new(name.clone());
        c.parent = self.class_name(&v, "parent", v.ptr("parent")?)?;
        c.expected_size = Some(v.int("objectSize")? as u32);
        c.interfaces = v.int("numImplementedInterfaces")? as u32;
        c.version = v.int("describedVersion")? as u32;
        c.flags = v.int("flags")? as u32;
        c.expected_signature = self.pf.stored_signature(&name);
        for e_at in v.elements("declaredEnums", self.enum_size)? {
            c.enums.push(self.enum_at[&e_at].1.clone());
        }
        for m_at in v.elements("declaredMembers", self.member_size)? {
            let m = self.member(m_at, &name).map_err(|e| e.in_(name.clone()))?;
            c.members.push(m);
        }
        Ok(c)
    }

    fn read_enum(&mut self, at: Loc) -> Result<Enum> {
        let v = self.view("hkClassEnum", at)?;
        let mut e = Enum {
            name: v.name("name", NameKind::Enum)?.unwrap_or_default(),
            flags: v.int("flags")? as u32,
            items: Vec::new(),
        };
        for i_at in v.elements("items", self.item_size)? {
            let iv = self.view("hkClassEnumItem", i_at)?;
            e.items.push(EnumItem {
                name: iv.name("name", NameKind::EnumItem)?.unwrap_or_default(),
                value: iv.int("value")? as i32,
            });
        }
        Ok(e)
    }

    fn member(&mut self, at: Loc, owner: &str) -> Result<Member> {
        let v = self.view("hkClassMember", at)?;
        let name = v.name("name", NameKind::Member)?.unwrap_or_default();
        let g = &self.reflection.generation;
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
        let class = self
            .class_name(&v, "class", v.ptr("class")?)
            .map_err(|e| e.in_(name.clone()))?;
        let enum_ref = match v.ptr("enum")? {
            None => None,
            Some(p) => Some(self.enum_ref(p, owner, &name)?),
        };
        Ok(Member {
            name,
            ty,
            subtype,
            class,
            enum_ref,
            array_size: v.int("cArraySize")? as u16,
            flags: v.int("flags")? as u16,
            expected_offset: Some(v.int("offset")? as u32),
            element: TypeKind::Void,
            gap_before: 0,
            line: 0,
        })
    }

    /// The `Class.Enum` reference of the enum at `p`.
    ///
    /// Enums inside a class's declared-enum array are named after that class. Others are
    /// standalone hkClassEnum objects of `__types__` (docs/packfile-format.md §3): they name
    /// the class that declares the same enum, this member's class first, then any class of the
    /// file, then a class of the generation's schema; failing all three, a synthetic holder
    /// class (with a `note`) carries the enum, since only its contents enter the signature.
    fn enum_ref(&mut self, p: Loc, owner: &str, member: &str) -> Result<String> {
        if let Some((c, e)) = self.enum_at.get(&p) {
            return Ok(format!("{c}.{}", e.name));
        }
        if !self.standalone.contains_key(&p) {
            let s = self.standalone(p, owner, member)?;
            self.standalone.insert(p, s);
        }
        Ok(match &self.standalone[&p] {
            Standalone::Declared { name, first, by } => {
                let c = if by.contains(owner) { owner } else { first };
                format!("{c}.{name}")
            }
            Standalone::Held(r) => r.clone(),
        })
    }

    /// What the standalone enum at `p`, first met on `owner.member`, resolves to.
    fn standalone(&mut self, p: Loc, owner: &str, member: &str) -> Result<Standalone> {
        let e = self.read_enum(p)?;
        if let Some(same) = self.declared.get(&e) {
            if let Some(first) = same.first() {
                return Ok(Standalone::Declared {
                    name: e.name.clone(),
                    first: first.clone(),
                    by: same.iter().cloned().collect(),
                });
            }
        }
        let reflection = self.reflection;
        let known = self
            .known
            .get_or_insert_with(|| {
                let mut m = HashMap::new();
                for c in reflection.classes() {
                    for x in &c.enums {
                        m.entry(x).or_insert(c.name.as_str());
                    }
                }
                m
            })
            .get(&e)
            .map(|c| c.to_string());
        let holder = known
            .clone()
            .unwrap_or_else(|| format!("hkEnumHolder_{owner}_{member}"));
        let mut class = Class::new(holder.clone());
        class.note = Some(match known {
            Some(_) => format!(
                "declares enum `{}` as schema {} does; the file stores it as a standalone hkClassEnum",
                e.name, self.reflection.generation.name
            ),
            None => format!(
                "synthetic: the file stores enum `{}` of {owner}.{member} as a standalone hkClassEnum and describes no class declaring it",
                e.name
            ),
        });
        let r = format!("{holder}.{}", e.name);
        class.enums.push(e);
        self.holders.push(class);
        Ok(Standalone::Held(r))
    }
}

/// Members name enums as `Class.Enum`; shorten to `Enum` where the member's own class
/// declares it.
fn shorten_enum_refs(classes: &mut [Class]) {
    for c in classes {
        let own: std::collections::HashSet<String> =
            c.enums.iter().map(|e| e.name.clone()).collect();
        let prefix = format!("{}.", c.name);
        for m in &mut c.members {
            if let Some(short) = m.enum_ref.as_deref().and_then(|r| r.strip_prefix(&prefix)) {
                if own.contains(short) {
                    m.enum_ref = Some(short.to_string());
                }
            }
        }
    }
}
