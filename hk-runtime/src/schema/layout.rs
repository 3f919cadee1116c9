//! Member offsets, class sizes and alignments under a set of [`LayoutRules`].
//!
//! The rules are those of docs/layout-and-signatures.md §3, checked on the corpus's class
//! metadata: a member sits at the next multiple of its alignment after the one before, a
//! class starts where its parent's members end (or at the parent's padded size without
//! `reuse_padding`), each implemented interface takes one pointer-sized table slot before the
//! first member, a C array is its length times the element, and the `align_16` flag makes a
//! member 16-aligned.

use std::collections::HashMap;
use std::rc::Rc;

use crate::error::{Error, Result, SchemaError};
use crate::rules::LayoutRules;
use crate::schema::{Class, Member, Schema};
use crate::types::{flag_names, TypeKind};

/// Where one declared member lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberLayout {
    /// Offset from the start of the object.
    pub offset: u32,
    /// Size in bytes, C-array length included.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
}

/// The computed layout of one class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassLayout {
    /// Padded size (`hkClass::objectSize`).
    pub size: u32,
    /// Alignment.
    pub align: u32,
    /// End of the last member, before tail padding.
    pub data_end: u32,
    /// Where a derived class's own members may start when tail padding is not reused:
    /// the size without a declared class alignment, which derived classes do not inherit
    /// as padding (hkpConstraintAtom is declared 16-aligned and 16 bytes, yet its subclasses
    /// start at offset 2: every atom in c2240_ragdoll.hkx's type table).
    pub base_size: u32,
    /// Declared members, in declaration order.
    pub members: Vec<MemberLayout>,
}

/// Layouts of every class of a schema under one set of rules, computed on demand.
#[derive(Debug)]
pub struct Layouts<'s> {
    schema: &'s Schema,
    rules: LayoutRules,
    done: HashMap<String, ClassLayout>,
    /// Classes that do not lay out, with why: a class below one on its parent chain fails
    /// with the same error without walking the chain again.
    failed: HashMap<String, Error>,
    flat: HashMap<String, Flattened<'s>>,
}

/// Every member of a class and its ancestors with its layout, root class first.
pub type Flattened<'s> = Rc<[(&'s Class, &'s Member, MemberLayout)]>;

impl<'s> Layouts<'s> {
    /// Prepares layouts of `schema` under `rules`.
    pub fn new(schema: &'s Schema, rules: LayoutRules) -> Self {
        Layouts {
            schema,
            rules,
            done: HashMap::new(),
            failed: HashMap::new(),
            flat: HashMap::new(),
        }
    }

    /// The rules in force.
    pub fn rules(&self) -> LayoutRules {
        self.rules
    }

    /// The schema laid out.
    pub fn schema(&self) -> &'s Schema {
        self.schema
    }

    /// The layout of class `name`.
    ///
    /// # Errors
    /// Fails when the class, a parent or a struct member's class is missing, when a type has
    /// no size under these rules (`inplacearray`), or when classes contain each other.
    pub fn class(&mut self, name: &str) -> Result<&ClassLayout> {
        self.compute(name, &mut Vec::new())?;
        Ok(&self.done[name])
    }

    /// All members of `name` and its ancestors, root first, with their layouts (cached:
    /// readers and writers ask once per object and array element).
    ///
    /// # Errors
    /// As [`Layouts::class`].
    pub fn flattened(&mut self, name: &str) -> Result<Flattened<'s>> {
        if let Some(f) = self.flat.get(name) {
            return Ok(Rc::clone(f));
        }
        let schema = self.schema;
        let mut chain = schema.chain(name)?;
        chain.reverse();
        let mut out = Vec::new();
        for class in chain {
            let layout = self.class(&class.name)?.clone();
            for (m, l) in class.members.iter().zip(layout.members) {
                out.push((class, m, l));
            }
        }
        let out: Flattened<'s> = Rc::from(out);
        self.flat.insert(name.to_string(), Rc::clone(&out));
        Ok(out)
    }

    /// The size of one element of an array of `ty` (the array's sub-type) holding `class`.
    ///
    /// # Errors
    /// As [`Layouts::class`], or a type with no fixed size.
    pub fn element_size(&mut self, ty: TypeKind, class: Option<&str>) -> Result<u32> {
        Ok(self
            .type_size_align(ty, TypeKind::Void, class, &mut Vec::new())?
            .0)
    }

    /// Lays out `name` and the ancestors not laid out yet: the parent chain is walked in a
    /// loop (it may be thousands of classes long), struct members by recursion (which schema
    /// validation bounds to [`super::validate::MAX_NESTING`] levels).
    fn compute(&mut self, name: &str, stack: &mut Vec<String>) -> Result<()> {
        let schema = self.schema;
        let mut todo = Vec::new();
        let mut cur = Some(name);
        while let Some(n) = cur {
            if self.done.contains_key(n) {
                break;
            }
            let failed = match (self.failed.get(n), schema.class(n)) {
                (Some(e), _) => Some(e.clone()),
                (None, None) => Some(Error::schema(format!(
                    "class `{n}` is not in schema {}",
                    schema.generation.name
                ))),
                _ if todo.len() > schema.classes().len() => {
                    Some(Error::from(SchemaError::ParentCycle(n.to_string())))
                }
                (None, Some(class)) => {
                    todo.push(class);
                    cur = class.parent.as_deref();
                    None
                }
            };
            if let Some(e) = failed {
                return Err(self.fail(&todo, e));
            }
        }
        for i in (0..todo.len()).rev() {
            if let Err(e) = self.compute_one(todo[i], stack) {
                return Err(self.fail(&todo[..=i], e));
            }
        }
        Ok(())
    }

    /// Keeps `e` as the error of `classes` (a class and the ones below it on its parent
    /// chain), and gives it back.
    fn fail(&mut self, classes: &[&Class], e: Error) -> Error {
        for c in classes {
            self.failed.insert(c.name.clone(), e.clone());
        }
        e
    }

    /// Lays out `class`, whose parent is laid out.
    fn compute_one(&mut self, class: &'s Class, stack: &mut Vec<String>) -> Result<()> {
        let name = class.name.as_str();
        if stack.iter().any(|n| n == name) {
            stack.push(name.to_string());
            return Err(Error::schema(format!(
                "classes contain each other: {}",
                stack.join(" -> ")
            )));
        }
        stack.push(name.to_string());
        let ptr = self.rules.ptr();
        let (mut offset, mut align) = match &class.parent {
            Some(parent) => {
                let p = self.done.get(parent.as_str()).ok_or_else(|| {
                    Error::schema(format!("parent `{parent}` of `{name}` is not laid out"))
                })?;
                let start = if self.rules.reuse_padding {
                    p.data_end
                } else {
                    p.base_size
                };
                (start, p.align)
            }
            None => (0, 1),
        };
        let too_big = |what: &str| {
            Error::schema(format!(
                "class `{name}` is 4 GiB or larger under these rules ({what})"
            ))
        };
        if class.interfaces > 0 {
            offset = checked_align(offset, ptr)
                .and_then(|o| o.checked_add(class.interfaces.checked_mul(ptr)?))
                .ok_or_else(|| too_big("its interface table"))?;
            align = align.max(ptr);
        }
        let mut members = Vec::with_capacity(class.members.len());
        for m in &class.members {
            let (size, malign) = self
                .member_size_align(m, stack)
                .map_err(|e| e.in_member(&class.name, &m.name))?;
            offset = offset
                .checked_add(m.gap_before)
                .and_then(|o| checked_align(o, malign))
                .ok_or_else(|| too_big(&m.name))?;
            members.push(MemberLayout {
                offset,
                size,
                align: malign,
            });
            offset = offset.checked_add(size).ok_or_else(|| too_big(&m.name))?;
            align = align.max(malign);
        }
        let data_end = offset;
        // An empty root class still occupies one byte in C++; with the empty-base
        // optimisation a derived class reuses that byte (it starts at data_end = 0).
        let sized = |align: u32| {
            if data_end == 0 && class.parent.is_none() {
                Some(if self.rules.empty_base { 1 } else { align })
            } else {
                checked_align(data_end, align)
            }
        };
        let base_size = sized(align).ok_or_else(|| too_big("its tail padding"))?;
        align = align.max(class.align.unwrap_or(1));
        let size = sized(align).ok_or_else(|| too_big("its tail padding"))?;
        stack.pop();
        self.done.insert(
            name.to_string(),
            ClassLayout {
                size,
                align,
                data_end,
                base_size,
                members,
            },
        );
        Ok(())
    }

    fn member_size_align(&mut self, m: &Member, stack: &mut Vec<String>) -> Result<(u32, u32)> {
        let (size, mut align) = self.type_size_align(m.ty, m.subtype, m.class.as_deref(), stack)?;
        let g = &self.schema.generation;
        for (flag, a) in [
            (flag_names::ALIGN_8, 8),
            (flag_names::ALIGN_16, 16),
            (flag_names::ALIGN_32, 32),
        ] {
            if g.has_flag(m.flags, flag) {
                align = align.max(a);
            }
        }
        let count = u32::from(m.array_size).max(1);
        let total = size.checked_mul(count).ok_or_else(|| {
            Error::schema(format!(
                "{count} elements of {size} bytes are 4 GiB or more"
            ))
        })?;
        Ok((total, align))
    }

    fn type_size_align(
        &mut self,
        ty: TypeKind,
        subtype: TypeKind,
        class: Option<&str>,
        stack: &mut Vec<String>,
    ) -> Result<(u32, u32)> {
        let p = self.rules.ptr();
        Ok(match ty {
            TypeKind::Void => (0, 1),
            TypeKind::Bool | TypeKind::Char | TypeKind::Int8 | TypeKind::UInt8 => (1, 1),
            TypeKind::Int16 | TypeKind::UInt16 | TypeKind::Half => (2, 2),
            TypeKind::Int32 | TypeKind::UInt32 | TypeKind::Real => (4, 4),
            TypeKind::Int64 | TypeKind::UInt64 => (8, 8),
            TypeKind::Vector4 | TypeKind::Quaternion => (16, 16),
            TypeKind::Matrix3 | TypeKind::Rotation | TypeKind::QsTransform => (48, 16),
            TypeKind::Matrix4 | TypeKind::Transform => (64, 16),
            TypeKind::Pointer
            | TypeKind::FunctionPointer
            | TypeKind::CString
            | TypeKind::StringPtr
            | TypeKind::ULong => (p, p),
            TypeKind::Array => (p + 8, p),
            // A pointer and an int32 count, two separate C++ members: no tail padding
            // (havoklib-660 64-bit files: hkaAnimationBinding's body is 0x30).
            TypeKind::SimpleArray => (p + 4, p),
            TypeKind::Variant => (2 * p, p),
            TypeKind::HomogeneousArray => (3 * p, p),
            // 2014-2016 hkRelArray: a u16 count and a u16 offset (packfile/graph/read.rs), so
            // 2-aligned like any u16 pair (it follows a 2-byte hkHalf in hknpConvexShape).
            TypeKind::RelArray => (4, 2),
            // docs/collision-notes.md §7 (2023.2): hkRelPtr<T> is an i64 offset;
            // hkRelArrayView<T, int> an int offset and an int count; hkRelArray<T> an i64
            // offset, int size, int capacity.
            TypeKind::RelPtr => (8, 8),
            TypeKind::RelArrayView => (8, 4),
            TypeKind::RelArray64 => (16, 8),
            TypeKind::Enum | TypeKind::Flags => {
                let w = subtype.int_width().unwrap_or(4);
                (w, w)
            }
            TypeKind::Zero => {
                if subtype == TypeKind::Void || subtype == TypeKind::Zero {
                    (0, 1)
                } else {
                    self.type_size_align(subtype, TypeKind::Void, class, stack)?
                }
            }
            TypeKind::Struct => {
                let cname = class
                    .ok_or_else(|| Error::schema("struct member names no class".to_string()))?;
                self.compute(cname, stack)?;
                let l = &self.done[cname];
                (l.size, l.align)
            }
            TypeKind::InplaceArray => {
                return Err(Error::schema(
                    "inplacearray has no fixed size; describe it as a struct".to_string(),
                ))
            }
        })
    }
}

/// Rounds `v` up to a multiple of `a`, `None` past `u32::MAX`.
pub const fn checked_align(v: u32, a: u32) -> Option<u32> {
    if a <= 1 {
        Some(v)
    } else {
        v.div_ceil(a).checked_mul(a)
    }
}

/// Rounds `v` up to a multiple of `a` (a power of two or any non-zero value).
pub const fn align_up(v: u32, a: u32) -> u32 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a) * a
    }
}
