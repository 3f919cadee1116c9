//! Class descriptions of one Havok generation, loaded from a schema folder.
//!
//! See `schemas/README.md` for the TOML format. [`Schema::load`] reads and validates a
//! folder; [`Schema::to_folder`] writes one (used by `hk schema extract`).

#[cfg(feature = "load")]
pub mod catalog;
mod diagnostic;
pub mod embed;
#[cfg(feature = "front")]
pub mod explain;
#[cfg(feature = "tagfile")]
pub mod infer;
pub mod layout;
#[cfg(feature = "load")]
mod load;
pub mod names;
pub mod plan;
pub mod report;
pub mod shape;
pub mod signature;
#[cfg(feature = "load")]
mod spanned;
mod validate;
#[cfg(feature = "load")]
mod write;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub use diagnostic::{Diagnostic, Diagnostics, LineIndex};
pub use layout::{ClassLayout, Layouts, MemberLayout};
pub use plan::{ClassPlan, Elem, MemberPlan, Op};
pub use shape::{ArrayKind, Shape};
#[cfg(feature = "load")]
pub use spanned::MAX_SCHEMA_FILE;

use crate::error::{Error, Result};
use crate::rules::LayoutRules;
use crate::types::TypeKind;

/// The container a generation stores its objects in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// Binary packfile (`57E0E057 10C0C010`), docs/packfile-format.md.
    Packfile,
    /// TAG0 tagfile, docs/tagfile-format.md.
    Tagfile,
}

impl Container {
    /// The schema spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Container::Packfile => "packfile",
            Container::Tagfile => "tagfile",
        }
    }
}

/// The `generation.toml` of a schema folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generation {
    /// Folder name, e.g. `havok-7.1`.
    pub name: String,
    /// Container kind.
    pub container: Container,
    /// Packfile header file version.
    pub file_version: u32,
    /// Contents-version string of the header, e.g. `Havok-7.1.0-r1`.
    pub contents_version: String,
    /// Default layout of files of this generation.
    pub layout: LayoutRules,
    /// Member-type numbering, by type.
    pub member_types: Vec<(TypeKind, u8)>,
    /// Member flags, by name.
    pub member_flags: Vec<(String, u16)>,
    /// How this generation's packfile writer places data (`[packfile]`).
    pub packfile: PackfileRules,
    /// How this generation's tagfile writer orders its tables (`[tagfile]`), for tagfile
    /// generations.
    pub tagfile: Option<TagfileRules>,
}

/// How a tagfile generation writes its tables: the `[tagfile]` table of its
/// `generation.toml` (docs/tagfile-format.md §6 measures 2015 against 2022). Plain data: the
/// tagfile writer reads it, the schema only carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagfileRules {
    /// One string item per distinct text (2022) rather than one per slot (2015).
    pub dedupe_strings: bool,
    /// 2022's type order: names registered with their template arguments depth-first, and
    /// bodies only for types DATA needs; else 2015's: every registered type gets a body.
    pub templates_first: bool,
    /// Padding byte of the string tables (0xFF in 2022, 0 in 2015).
    pub string_pad: u8,
    /// Tags of the string, name, field-string and body subsections.
    pub tags: [[u8; 4]; 4],
}

/// Placement choices of a generation's packfile writer that the object graph does not
/// decide (`[packfile]` in `generation.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackfileRules {
    /// Alignment of strings that follow other data: 2 from Havok 6.6 on (hkStringPtr keeps a
    /// flag in its low bit), 1 in 5.5 (havoklib-550: packed float-slot names).
    pub string_align: u32,
}

impl Default for PackfileRules {
    fn default() -> Self {
        PackfileRules { string_align: 2 }
    }
}

impl Generation {
    /// This generation's number for `kind`.
    pub fn type_number(&self, kind: TypeKind) -> Option<u8> {
        self.member_types
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, n)| *n)
    }

    /// The type this generation numbers `n`.
    pub fn type_from_number(&self, n: u8) -> Option<TypeKind> {
        self.member_types
            .iter()
            .find(|(_, v)| *v == n)
            .map(|(k, _)| *k)
    }

    /// The value of the flag called `name`, 0 when this generation has no such flag.
    pub fn flag_value(&self, name: &str) -> u16 {
        self.member_flags
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, v)| *v)
    }

    /// Whether `flags` has the flag called `name`.
    pub fn has_flag(&self, flags: u16, name: &str) -> bool {
        let v = self.flag_value(name);
        v != 0 && flags & v == v
    }

    /// Splits `flags` into known names and an unnamed remainder.
    pub fn flag_names(&self, flags: u16) -> (Vec<&str>, u16) {
        let mut rest = flags;
        let mut names = Vec::new();
        for (n, v) in &self.member_flags {
            if *v != 0 && rest & v == *v {
                names.push(n.as_str());
                rest &= !v;
            }
        }
        (names, rest)
    }
}

/// One item of an enum.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnumItem {
    /// Item name.
    pub name: String,
    /// Item value.
    pub value: i32,
}

/// An enum a class declares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Enum {
    /// Enum name, without its class.
    pub name: String,
    /// `hkClassEnum::flags`.
    pub flags: u32,
    /// Items in declaration order.
    pub items: Vec<EnumItem>,
}

/// One declared member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Member name.
    pub name: String,
    /// Type.
    pub ty: TypeKind,
    /// Sub-type (element or storage type).
    pub subtype: TypeKind,
    /// Element type of the inner array when `subtype` is itself an array (tagfiles'
    /// `hkArray<hkArray<int>>`; `element = "int32"`), else `void`.
    pub element: TypeKind,
    /// The struct class, or the class pointed to or held.
    pub class: Option<String>,
    /// Enum reference: `Name` (this class or an ancestor) or `Class.Name`.
    pub enum_ref: Option<String>,
    /// C-array length, 0 for none.
    pub array_size: u16,
    /// Raw flag bits in this generation's numbering.
    pub flags: u16,
    /// Expected offset under the generation's default layout, when stated.
    pub expected_offset: Option<u32>,
    /// Bytes of members the reflection data does not describe, just before this one
    /// (`gap_before`). Layout only: gaps are not part of the signature.
    pub gap_before: u32,
    /// 1-based line in the class file, 0 when not read from a file.
    pub line: usize,
}

/// A signature fixed by hand because the class's definition is not known exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinned {
    /// The signature files store.
    pub signature: u32,
    /// Why it cannot be computed.
    pub reason: String,
    /// Members whose names or enums are in doubt.
    pub doubtful: Vec<String>,
}

/// Where a class was defined.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Origin {
    /// The TOML file.
    pub file: PathBuf,
    /// 1-based line of the class name.
    pub line: usize,
}

/// One class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// Class name.
    pub name: String,
    /// Parent class.
    pub parent: Option<String>,
    /// Implemented-interface count.
    pub interfaces: u32,
    /// `hkClass::describedVersion`.
    pub version: u32,
    /// `hkClass::flags`.
    pub flags: u32,
    /// Declared enums.
    pub enums: Vec<Enum>,
    /// Declared members.
    pub members: Vec<Member>,
    /// Expected size under the default layout, when stated.
    pub expected_size: Option<u32>,
    /// Alignment the class declares beyond its members' (`align = 16` for HK_ALIGN16
    /// classes such as 2015's hkpConstraintAtom).
    pub align: Option<u32>,
    /// Expected (stored) signature, when stated. Checked, never used as input.
    pub expected_signature: Option<u32>,
    /// Pinned signature, for classes whose definition is not known exactly.
    pub pinned: Option<Pinned>,
    /// The type hash a tagfile's THSH stores for this class (a per-version constant,
    /// docs/tagfile-format.md §3), when known. Written into tagfiles, never computed.
    pub hash: Option<u32>,
    /// Free-text provenance note (`note = "..."`).
    pub note: Option<String>,
    /// Where the class was defined.
    pub origin: Origin,
}

impl Class {
    /// A class with no members.
    pub fn new(name: impl Into<String>) -> Self {
        Class {
            name: name.into(),
            parent: None,
            interfaces: 0,
            version: 0,
            flags: 0,
            enums: Vec::new(),
            members: Vec::new(),
            expected_size: None,
            align: None,
            expected_signature: None,
            pinned: None,
            hash: None,
            note: None,
            origin: Origin::default(),
        }
    }
}

/// Index of a class in its [`Schema`] ([`Schema::classes`] order). Graphs name classes by
/// id, never by a string per object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId(pub u32);

/// One member of a class's flattened member list: the class that declares it, its index
/// there, and the shape of its values.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatMember {
    /// The declaring class (the class itself or an ancestor).
    pub owner: ClassId,
    /// Index in the owner's `members`.
    pub index: u16,
    /// What values the member holds.
    pub shape: Shape,
}

/// A value computed once per class, the error kept if it failed.
type Once<T> = OnceLock<Result<T>>;

/// The plans of every class under one set of rules.
type PlanTable = Box<[Once<Arc<ClassPlan>>]>;

/// Per-class data computed on first use and kept for the schema's lifetime.
#[derive(Debug, Default)]
struct Caches {
    /// Flattened members per class (`Err` for a class whose chain or member classes are
    /// broken).
    flat: Box<[Once<Arc<[FlatMember]>>]>,
    /// Plans per layout-rules index, then per class.
    plans: [OnceLock<PlanTable>; 8],
    /// The signature a writer stores, per class.
    signatures: Box<[Once<u32>]>,
    /// Values one instance holds, per class ([`Schema::values_of`]).
    values: Box<[Once<u64>]>,
    /// The hashed chain description per class, kept once described, or why it fails
    /// (signatures).
    chains: Box<[Once<signature::Digest>]>,
}

impl Clone for Caches {
    fn clone(&self) -> Self {
        Caches::new(self.flat.len())
    }
}

impl Caches {
    fn new(n: usize) -> Self {
        Caches {
            flat: (0..n).map(|_| OnceLock::new()).collect(),
            plans: Default::default(),
            signatures: (0..n).map(|_| OnceLock::new()).collect(),
            values: (0..n).map(|_| OnceLock::new()).collect(),
            chains: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }
}

/// A validated schema folder.
#[derive(Clone, Debug)]
pub struct Schema {
    /// The generation file.
    pub generation: Generation,
    classes: Vec<Class>,
    by_name: HashMap<String, usize>,
    /// The folder it came from, if any.
    pub root: Option<PathBuf>,
    caches: Caches,
}

impl Schema {
    /// A schema of `classes`, validated.
    ///
    /// # Errors
    /// Returns every problem found (duplicates, unknown classes, enums or types, cycles).
    pub fn new(generation: Generation, classes: Vec<Class>) -> Result<Self, Diagnostics> {
        let mut s = Schema {
            generation,
            classes: Vec::new(),
            by_name: HashMap::new(),
            root: None,
            caches: Caches::default(),
        };
        let mut diags = Diagnostics::default();
        for c in classes {
            if s.by_name.contains_key(&c.name) {
                let first = &s.classes[s.by_name[&c.name]].origin;
                diags.push(Diagnostic::at_origin(
                    &c.origin,
                    "name",
                    format!(
                        "duplicate class `{}` (first defined in {}:{})",
                        c.name,
                        first.file.display(),
                        first.line
                    ),
                ));
                continue;
            }
            s.by_name.insert(c.name.clone(), s.classes.len());
            s.classes.push(c);
        }
        validate::validate(&s, &mut diags);
        s.caches = Caches::new(s.classes.len());
        diags.into_result(s)
    }

    /// The id of class `name`.
    pub fn class_id(&self, name: &str) -> Option<ClassId> {
        self.by_name.get(name).map(|&i| ClassId(i as u32))
    }

    /// The id of class `name`, or a [`crate::error::SchemaError::MissingClass`] error.
    ///
    /// # Errors
    /// When the schema has no such class.
    pub fn require(&self, name: &str) -> Result<ClassId> {
        self.class_id(name)
            .ok_or_else(|| Error::missing_class(name))
    }

    /// The class `id` names.
    ///
    /// # Panics
    /// When `id` is not an id of this schema.
    pub fn class_by_id(&self, id: ClassId) -> &Class {
        &self.classes[id.0 as usize]
    }

    /// The name of class `id`.
    ///
    /// # Panics
    /// When `id` is not an id of this schema.
    pub fn name_of(&self, id: ClassId) -> &str {
        &self.classes[id.0 as usize].name
    }

    /// The declaration of a flattened member.
    pub fn member_of(&self, m: &FlatMember) -> &Member {
        &self.classes[m.owner.0 as usize].members[usize::from(m.index)]
    }

    /// Every member of class `id` and its ancestors, root class first, with the shape of
    /// its values; computed once per class.
    ///
    /// # Errors
    /// A broken parent chain, or a member whose type has no shape (a struct naming a
    /// missing class).
    pub fn members(&self, id: ClassId) -> Result<Arc<[FlatMember]>> {
        let cell = self
            .caches
            .flat
            .get(id.0 as usize)
            .ok_or_else(|| Error::schema(format!("class id {} is not in the schema", id.0)))?;
        cell.get_or_init(|| self.flatten(id)).clone()
    }

    fn flatten(&self, id: ClassId) -> Result<Arc<[FlatMember]>> {
        let name = self.name_of(id);
        let mut out = Vec::new();
        let chain = self.chain(name)?;
        for c in chain.into_iter().rev() {
            let owner = self.require(&c.name)?;
            for (i, m) in c.members.iter().enumerate() {
                let shape = Shape::of(self, m).map_err(|e| e.in_member(&c.name, &m.name))?;
                out.push(FlatMember {
                    owner,
                    index: i as u16,
                    shape,
                });
            }
        }
        Ok(out.into())
    }

    /// How many values one instance of class `id` holds in an object graph: one per
    /// flattened member, plus what its structs and C arrays hold (an array member is one
    /// value: its elements are counted when they are read). A float tuple of more than 4
    /// floats counts 2 and a variant 3 (they hold a second allocation). Saturating; computed
    /// once per class. Readers charge it against their limits before reading an object, so
    /// a class that holds many of a class that holds many of ... is refused at once.
    ///
    /// # Errors
    /// As [`Schema::members`].
    pub fn values_of(&self, id: ClassId) -> Result<u64> {
        let cell = self
            .caches
            .values
            .get(id.0 as usize)
            .ok_or_else(|| Error::schema(format!("class id {} is not in the schema", id.0)))?;
        if let Some(v) = cell.get() {
            return v.clone();
        }
        // Computed outside the cell: struct members need their classes' counts (the
        // recursion is bounded by validation's nesting limit).
        let v = self.members(id).and_then(|ms| {
            ms.iter().try_fold(0u64, |acc, m| {
                Ok(acc.saturating_add(self.shape_values(&m.shape)?))
            })
        });
        cell.get_or_init(|| v).clone()
    }

    /// How many values one value of `shape` holds (see [`Schema::values_of`]).
    ///
    /// # Errors
    /// As [`Schema::members`].
    pub fn shape_values(&self, shape: &Shape) -> Result<u64> {
        Ok(match shape {
            Shape::Floats(n) if *n > 4 => 2,
            Shape::Variant => 3,
            Shape::Struct(c) => self.values_of(*c)?.saturating_add(1),
            Shape::CArray(n, inner) => u64::from(*n)
                .saturating_mul(self.shape_values(inner)?)
                .saturating_add(1),
            _ => 1,
        })
    }

    /// The kept digest of class `id`'s chain description (`None` while the schema is being
    /// validated, before its caches exist).
    pub(crate) fn chain_digest_cell(&self, id: ClassId) -> Option<&Once<signature::Digest>> {
        self.caches.chains.get(id.0 as usize)
    }

    /// The signature a writer stores for class `id` (pinned, else computed), computed once.
    ///
    /// # Errors
    /// As [`signature::signature`].
    pub fn signature_of(&self, id: ClassId) -> Result<u32> {
        let cell = self
            .caches
            .signatures
            .get(id.0 as usize)
            .ok_or_else(|| Error::schema(format!("class id {} is not in the schema", id.0)))?;
        cell.get_or_init(|| signature::signature(self, self.name_of(id)).map(|s| s.value))
            .clone()
    }

    /// The plan of class `id` under `rules`: every flattened member's offset and
    /// operation, element strides, and the body's padding; computed once per class and
    /// rules (byte order does not change a plan).
    ///
    /// # Errors
    /// As [`Schema::members`], or a layout error (classes that contain each other, a type
    /// with no size under these rules).
    pub fn plan(&self, id: ClassId, rules: LayoutRules) -> Result<Arc<ClassPlan>> {
        self.plan_cell(id, rules)?.clone()
    }

    /// [`Schema::plan`] borrowed from the schema's cache: two loads once computed, no
    /// reference counting (what readers and writers call per object and element).
    ///
    /// # Errors
    /// As [`Schema::plan`].
    #[inline]
    pub fn plan_ref(&self, id: ClassId, rules: LayoutRules) -> Result<&ClassPlan> {
        match self.plan_cell(id, rules)? {
            Ok(p) => Ok(p),
            Err(e) => Err(e.clone()),
        }
    }

    #[inline]
    fn plan_cell(&self, id: ClassId, rules: LayoutRules) -> Result<&Result<Arc<ClassPlan>>> {
        let n = self.classes.len();
        let table = self.caches.plans[rules.index()]
            .get_or_init(|| (0..n).map(|_| OnceLock::new()).collect());
        let cell = table
            .get(id.0 as usize)
            .ok_or_else(|| Error::schema(format!("class id {} is not in the schema", id.0)))?;
        if let Some(p) = cell.get() {
            return Ok(p);
        }
        // Computed outside the cell: a plan needs the plans of its struct members' classes
        // (the layout engine rejects classes that contain each other before that) and of
        // its arrays' element classes (bounded by `plan::MAX_PLAN_NESTING`).
        match plan::build(self, id, rules) {
            (Err(e), false) => Err(e),
            (p, _) => Ok(cell.get_or_init(|| p)),
        }
    }

    /// Every class, in load order.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// Class `i` (load order), mutable, for changes that keep the schema valid (an
    /// interface count, a member's `gap_before`): what layout inference tunes on a schema
    /// it builds for the purpose. The computed caches (members, plans, signatures) are not
    /// updated: only the layout engine, which keeps none, may look at a schema tuned so.
    #[cfg(feature = "tagfile")]
    pub(crate) fn class_mut(&mut self, i: usize) -> &mut Class {
        &mut self.classes[i]
    }

    /// The class called `name`.
    pub fn class(&self, name: &str) -> Option<&Class> {
        self.by_name.get(name).map(|&i| &self.classes[i])
    }

    /// `name` and its ancestors, `name` first.
    ///
    /// # Errors
    /// Fails on a missing class or parent, or a parent cycle.
    pub fn chain(&self, name: &str) -> Result<Vec<&Class>> {
        let mut out: Vec<&Class> = Vec::new();
        let mut cur = Some(name);
        while let Some(n) = cur {
            let c = self.class(n).ok_or_else(|| Error::missing_class(n))?;
            // A chain longer than the schema has classes goes round in a cycle.
            if out.len() > self.classes.len() {
                return Err(Error::schema(format!("parent cycle through `{n}`")));
            }
            out.push(c);
            cur = c.parent.as_deref();
        }
        Ok(out)
    }

    /// Resolves a member's enum reference from class `owner`: `Class.Enum`, or an enum of
    /// `owner` or an ancestor.
    pub fn resolve_enum(&self, owner: &str, reference: &str) -> Option<(&Class, &Enum)> {
        if let Some((cname, ename)) = reference.split_once('.') {
            let c = self.class(cname)?;
            return c.enums.iter().find(|e| e.name == ename).map(|e| (c, e));
        }
        let chain = self.chain(owner).ok()?;
        chain
            .into_iter()
            .find_map(|c| c.enums.iter().find(|e| e.name == reference).map(|e| (c, e)))
    }

    /// The classes `roots` need: themselves, parents, and the classes their members name.
    ///
    /// # Errors
    /// Fails when a root or a named class is missing.
    pub fn closure(&self, roots: &[&str]) -> Result<Vec<&Class>> {
        let mut seen: Vec<&str> = Vec::new();
        let mut todo: Vec<&str> = roots.to_vec();
        while let Some(n) = todo.pop() {
            if seen.contains(&n) {
                continue;
            }
            let c = self
                .class(n)
                .ok_or_else(|| Error::schema(format!("class `{n}` is not in the schema")))?;
            seen.push(&c.name);
            todo.extend(c.parent.as_deref());
            for m in &c.members {
                todo.extend(m.class.as_deref());
                if let Some((ec, _)) = m
                    .enum_ref
                    .as_deref()
                    .and_then(|r| self.resolve_enum(&c.name, r))
                {
                    todo.push(&ec.name);
                }
            }
        }
        let mut out: Vec<&Class> = seen.iter().filter_map(|n| self.class(n)).collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }
}
