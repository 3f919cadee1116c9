//! Class definitions (docs/binary-tagfile-format.md §4): reading them, and what the
//! reader derives from them once per definition: its flattened members (its ancestors'
//! first) and how many values one of its objects expands into.
//!
//! Each is linear in the stream: a member declared twice is found through a set of the
//! class's names, parent chains are at most [`HARD_MAX_DEPTH`] classes long (refused where
//! the class that makes one longer is defined), and a definition's flattened members and
//! value count are computed once.

use std::rc::Rc;

use foldhash::{HashSet, HashSetExt};

use super::defs::{Base, ClassDef, MemberDef, TypeCode, MAX_MEMBERS};
use super::read::{Flat, Reader};
use crate::error::{Error, Result};
use crate::limits::HARD_MAX_DEPTH;
use crate::schema::names::{self, NameKind};

/// Bytes a member name takes in the set that finds a name declared twice (a 16-byte slot
/// in a table up to 2.3 times as large as the names it holds).
const NAME_SLOT: u64 = 40;

/// Bytes the reader keeps per class definition besides its members and names: the
/// definition (shared), its place in the list of definitions and in the lookup by name,
/// and its entries in the per-definition tables (lists that may double as they grow).
const CLASS_ENTRY: u64 = std::mem::size_of::<ClassDef>() as u64 + 16 + 24 + 112 + 64;

/// Bytes per entry of a definition's flattened members: the reader's pair (built, then
/// shared), and the schema's flattened member (24 bytes, in a vector that may double, then
/// copied).
const FLAT_ENTRY: u64 = 32 + 96;

impl<'a> Reader<'a> {
    /// A class definition record (after its tag): the name, then the definition.
    pub fn metadata(&mut self) -> Result<()> {
        let at = self.input.pos as u64;
        if !self.objects.is_empty() {
            // The writer defines every class before the first object; hk writes so too.
            self.input.soft(at as usize, || {
                "a class defined after an object (Havok defines every class first)".into()
            })?;
        }
        let name = self.input.name_of(NameKind::Class, "a class name")?;
        if self.by_name.contains_key(&name) {
            return Err(Error::invalid(at, format!("class {name} is defined twice")));
        }
        self.class_body(name.clone())
            .map_err(|e| e.in_(format!("class {name}")))
    }

    fn class_body(&mut self, name: String) -> Result<()> {
        let version = self.input.int32("the class version")?;
        let at = self.input.pos as u64;
        let parent = self.input.int32("the parent class number")?;
        let parent = u32::try_from(parent)
            .ok()
            .filter(|p| *p as usize <= self.defs.len())
            .ok_or_else(|| {
                Error::invalid(
                    at,
                    format!(
                        "parent class number {parent}: {} classes are defined before",
                        self.defs.len()
                    ),
                )
            })?;
        // Parents are earlier definitions, so the chain is known here; the schema follows
        // no longer one, and neither does `flat`.
        let ancestors = match parent {
            0 => 0,
            p => self.ancestors[p as usize - 1] + 1,
        };
        if ancestors > HARD_MAX_DEPTH {
            return Err(Error::invalid(
                at,
                format!("a chain of parents longer than {HARD_MAX_DEPTH} classes"),
            ));
        }
        let at = self.input.pos as u64;
        let n = self.input.count("the member count", 2)?;
        if n > MAX_MEMBERS {
            return Err(Error::invalid(
                at,
                format!("member count {n}: a class declares at most {MAX_MEMBERS} members"),
            ));
        }
        let each = std::mem::size_of::<MemberDef>() as u64;
        // The name twice: the definition's and its key in the lookup.
        let size = CLASS_ENTRY + 2 * name.len() as u64;
        self.input.budget.charge(size, at)?;
        // The member and its slot in the set of names (freed with the definition read).
        self.input.budget.charge_n(n as u64, each + NAME_SLOT, at)?;
        let mut members: Vec<MemberDef> = Vec::with_capacity(n);
        let mut names: HashSet<&'a str> = HashSet::with_capacity(n);
        for _ in 0..n {
            let at = self.input.pos as u64;
            let (m, name) = self.member()?;
            if !names.insert(name) {
                return Err(Error::invalid(
                    at,
                    format!("member {name} is declared twice"),
                ));
            }
            members.push(m);
        }
        self.by_name.insert(name.clone(), self.defs.len());
        self.defs.push(Rc::new(ClassDef {
            name,
            version,
            parent,
            members,
        }));
        self.ancestors.push(ancestors);
        self.flat.push(None);
        self.expansion.push(None);
        self.counting.push(false);
        Ok(())
    }

    /// A member declaration, and its name as the input holds it.
    fn member(&mut self) -> Result<(MemberDef, &'a str)> {
        let name = self.input.name_ref_of(NameKind::Member, "a member name")?;
        self.input
            .budget
            .charge(name.len() as u64, self.input.pos as u64)?;
        let at = self.input.pos as u64;
        let code = self.input.varint()?;
        let in_member = |e: Error| e.in_(format!("member {name}"));
        let (base, array, tuple) = TypeCode::decode(code).ok_or_else(|| {
            in_member(Error::invalid(
                at,
                format!("member type code 0x{code:X} is unknown"),
            ))
        })?;
        let tuple = if tuple {
            let at = self.input.pos as u64;
            let n = self.input.int32("the tuple count").map_err(in_member)?;
            u16::try_from(n)
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    in_member(Error::invalid(at, format!("tuple count {n} (1 to 65535)")))
                })?
                .into()
        } else {
            0
        };
        let class = if base.has_class() {
            let at = self.input.pos as u64;
            match self.input.string().map_err(in_member)? {
                None if base == Base::Struct => {
                    return Err(in_member(Error::invalid(
                        at,
                        "a struct member names no class",
                    )))
                }
                None => None,
                Some(b) => {
                    // A name may be a reference to a long string: each copy is charged.
                    self.input.budget.charge(b.len() as u64, at)?;
                    let class = String::from_utf8(b.to_vec()).map_err(|_| {
                        in_member(Error::invalid(at, "the member's class name is not UTF-8"))
                    })?;
                    names::check(NameKind::Class, &class).map_err(|m| {
                        in_member(Error::invalid(at, format!("the member's class name: {m}")))
                    })?;
                    Some(class)
                }
            }
        } else {
            None
        };
        let ty = TypeCode { base, array, tuple };
        Ok((
            MemberDef {
                name: name.to_string(),
                ty,
                class,
            },
            name,
        ))
    }

    /// Definition `def`'s members and its ancestors', root class first (charged once).
    pub fn flat(&mut self, def: usize) -> Result<Flat> {
        if let Some(f) = &self.flat[def] {
            return Ok(Rc::clone(f));
        }
        // Parents are defined before their children, so the chain ends.
        let mut chain = vec![def];
        let mut p = self.defs[def].parent as usize;
        while p != 0 {
            chain.push(p - 1);
            p = self.defs[p - 1].parent as usize;
        }
        let len: u64 = chain
            .iter()
            .map(|&d| self.defs[d].members.len() as u64)
            .sum();
        self.input
            .budget
            .charge_n(len, FLAT_ENTRY, self.input.pos as u64)?;
        let mut list = Vec::with_capacity(len as usize);
        for &d in chain.iter().rev() {
            list.extend((0..self.defs[d].members.len()).map(|m| (d, m)));
        }
        let list: Flat = list.into();
        self.flat[def] = Some(Rc::clone(&list));
        Ok(list)
    }

    /// How many values one object of definition `def` expands into, counted as
    /// [`crate::schema::Schema::values_of`] counts its class (a struct or tuple counts
    /// itself and its values; a matrix counts 2; an array 1, its elements aside), with the
    /// classes defined when it is first counted: a struct member whose class is not defined
    /// yet counts 1, as it can only be left out. Saturating; kept for the whole read (the
    /// schema counts every object again once all classes are defined).
    ///
    /// # Errors
    /// A class that contains itself by value, or structs by value nested deeper than the
    /// depth limit.
    pub fn expansion(&mut self, def: usize, level: usize) -> Result<u64> {
        if let Some(n) = self.expansion[def] {
            return Ok(n);
        }
        let at = self.input.pos as u64;
        if self.counting[def] {
            let name = &self.defs[def].name;
            return Err(Error::invalid(
                at,
                format!("class {name} contains itself by value"),
            ));
        }
        if level > self.limits.depth() {
            return Err(self.limits.too_deep(at));
        }
        self.counting[def] = true;
        let flat = self.flat(def)?;
        let mut n = 0u64;
        for &(d, m) in flat.iter() {
            let ty = self.defs[d].members[m].ty;
            if ty.array && ty.tuple == 0 {
                n = n.saturating_add(1);
                continue;
            }
            let one = match ty.base {
                Base::Struct => {
                    let class = self.defs[d].members[m].class.as_deref();
                    match class.and_then(|c| self.by_name.get(c)).copied() {
                        Some(s) => self.expansion(s, level + 1)?.saturating_add(1),
                        None => 1,
                    }
                }
                Base::Vec8 => 9,
                Base::Vec12 | Base::Vec16 => 2,
                _ => 1,
            };
            let v = match ty.tuple {
                0 => one,
                t => u64::from(t).saturating_mul(one).saturating_add(1),
            };
            n = n.saturating_add(v);
        }
        self.counting[def] = false;
        self.expansion[def] = Some(n);
        Ok(n)
    }
}
