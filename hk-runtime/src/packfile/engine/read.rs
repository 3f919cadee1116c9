//! The packfile read engine: what every object model (the dynamic graph of
//! [`crate::packfile::graph::read`], the typed classes `hk-derive` generates) reads through.
//!
//! It owns the file's invariants, so each model only says which member is where:
//! - pointer slots store zero and are non-null exactly when a fixup names them; every
//!   fixup is met on a pointer member (docs/packfile-format.md §7.1);
//! - array capacity words are `size | 0x80000000` (5.5 and 6.6 may add 0x40000000, kept);
//! - counts are checked against the bytes that remain before anything is allocated,
//!   zero-size elements included;
//! - every byte of a section's object data belongs to exactly one block (an object body,
//!   an array's elements, a string) and is a member's, or padding that is zero.
//!
//! Strict reading fails on the first broken invariant; lenient reading records the first
//! of each rule as a [`Violation`], counts the others, and goes on. Structural errors (a count past the data, a pointer out of
//! the section) fail in both modes.

use crate::bytes::Scalar;
use crate::error::{Error, Result};
use crate::graph::{ObjectId, Ptr, Seg};
use crate::limits::{Budget, Limits};
use crate::packfile::header::{DONT_DEALLOCATE, FLAG_MASK};
use crate::packfile::{Loc, Packfile};
use crate::rules::Endian;
use crate::schema::ArrayKind;

pub use crate::limits::ReadOptions;

/// A broken invariant found in lenient mode: the first place a rule is broken, and how
/// many times the file breaks it (one warning per rule, docs/packfile-format.md §9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// File offset of the first occurrence.
    pub offset: u64,
    /// Object and member path of the first occurrence.
    pub path: String,
    /// What is wrong there.
    pub message: String,
    /// The rule broken ([`rule`]).
    pub rule: &'static str,
    /// How many times the file breaks it.
    pub count: u64,
}

/// The invariants lenient reading lets pass, each named as its warning names it
/// (docs/packfile-format.md §9).
pub mod rule {
    /// Padding inside an object or element is zero.
    pub const PADDING: &str = "non-zero padding in objects";
    /// Bytes outside every object and the data it owns are zero.
    pub const PADDING_BETWEEN: &str = "non-zero padding between objects";
    /// Pointer slots store zero (fixups give their values).
    pub const POINTER_SLOT: &str = "pointer slots that store a value";
    /// A slot is imported or fixed up, not both.
    pub const IMPORTED_AND_FIXED: &str = "pointer slots both imported and fixed up";
    /// An array's capacity word is its size with 0x80000000 set.
    pub const CAPACITY: &str = "array capacity words that are not size | 0x80000000";
    /// A non-empty array has a data pointer.
    pub const NO_DATA_POINTER: &str = "non-empty arrays without a data pointer";
    /// An empty array has none.
    pub const EMPTY_WITH_POINTER: &str = "empty arrays with a data pointer";
    /// An empty relative array has offset 0.
    pub const REL_OFFSET: &str = "empty relative arrays with an offset";
    /// A pointer names an object or an array element.
    pub const INTERIOR: &str = "pointers to neither an object nor an array element";
    /// Fixup sources are 4-byte aligned.
    pub const FIXUP_ALIGNMENT: &str = "fixup sources not 4-byte aligned";
    /// Every fixup lands on a pointer member.
    pub const FIXUP_OFF_MEMBER: &str = "fixups that land on no pointer member";
    /// Every import names a pointer member.
    pub const IMPORT_OFF_MEMBER: &str = "imports that name no pointer member";
    /// No byte belongs to two blocks.
    pub const TWO_OWNERS: &str = "data claimed by two owners";
    /// Objects start 16-byte aligned.
    pub const OBJECT_ALIGNMENT: &str = "objects not 16-byte aligned";
}

/// What a pointer slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'p> {
    /// Null: no fixup names the slot.
    Null,
    /// An object of this file.
    Object(ObjectId),
    /// Somewhere inside data an object owns (an array element); resolved once every block
    /// is known, see [`Reader::defer`] and [`Reader::finish`].
    Interior(Loc),
    /// An object of another file.
    Import(&'p str),
}

/// An array's elements, once its header is read: where they start and how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elements {
    /// First element.
    pub at: Loc,
    /// Element count (already checked against the bytes that remain).
    pub count: u32,
}

/// A block of a section's object data, for the coverage check.
#[derive(Clone, Copy, Debug)]
struct Block {
    section: u32,
    start: u32,
    end: u32,
}

/// An array's elements, for resolving interior pointers into them; its member path is
/// `paths[path.0..path.1]` (one arena, no allocation per array).
#[derive(Debug)]
struct ArrayBlock {
    at: Loc,
    stride: u32,
    count: u32,
    owner: ObjectId,
    path: (u32, u32),
}

/// An interior pointer waiting for every array to be known.
#[derive(Debug)]
pub struct Deferred {
    /// The object whose member holds the pointer.
    pub owner: ObjectId,
    /// The member path of the pointer (for a variant: the variant member).
    pub path: Box<[Seg]>,
    /// Whether it is a variant's class pointer (else its object pointer, or a pointer).
    pub variant_class: bool,
    /// Where it points.
    pub target: Loc,
    /// The slot's file offset, for messages.
    pub slot: u64,
}

/// The read engine over one parsed packfile.
#[derive(Debug)]
pub struct Reader<'p, 'a> {
    pf: &'p Packfile<'a>,
    /// Each section's object data (up to its local fixups).
    data: Vec<&'a [u8]>,
    endian: Endian,
    ptr: u32,
    opts: ReadOptions,
    /// What the read may still allocate.
    budget: Budget,
    violations: Vec<Violation>,
    consumed: Vec<bool>,
    imported: Vec<bool>,
    blocks: Vec<Block>,
    arrays: Vec<ArrayBlock>,
    paths: Vec<Seg>,
    deferred: Vec<Deferred>,
    capacity_flags: Vec<(ObjectId, Box<[Seg]>, u32)>,
    /// Where the next pointer lookup starts: the walk meets slots mostly in file order.
    hint: usize,
    /// The object being read.
    pub current: ObjectId,
    /// The member path being read, kept by the model (`enter`/`leave`).
    path: Vec<Seg>,
}

/// The findings of a whole read, once every object is read.
#[derive(Debug, Default)]
pub struct Finish {
    /// Interior pointers resolved: each deferred pointer and the element it names.
    pub interior: Vec<(Deferred, Ptr)>,
    /// Arrays whose capacity word carries flag bits besides `0x80000000`, by owner and
    /// member path.
    pub capacity_flags: Vec<(ObjectId, Box<[Seg]>, u32)>,
    /// Broken invariants (lenient mode).
    pub violations: Vec<Violation>,
}

impl<'p, 'a> Reader<'p, 'a> {
    /// An engine over `pf`, within `opts.limits`: the object count is checked, and the
    /// memory of the parsed tables and of the engine's own records charged, before
    /// anything else is read.
    ///
    /// # Errors
    /// More objects than [`Limits::max_objects`], or tables past [`Limits::max_memory`].
    pub fn new(pf: &'p Packfile<'a>, opts: ReadOptions) -> Result<Self> {
        let bytes = pf.bytes().data();
        let limits = opts.limits;
        let objects = pf.object_table().len() as u64;
        let first = pf.sections.first().map_or(0, |s| u64::from(s.start));
        limits.check_objects(objects, first)?;
        let mut budget = Budget::new(&limits, bytes.len() as u64);
        budget.charge(pf.heap_size(), 0)?;
        // Per object: the graph's object and section index, a block of the coverage check;
        // per fixup, whether a member met it.
        budget.charge_n(objects, 64, first)?;
        budget.charge_n(pf.pointers().len() as u64, 1, first)?;
        let data = pf
            .sections
            .iter()
            .map(|s| {
                let start = s.start as usize;
                let end = s.abs(s.local_fixups) as usize;
                bytes.get(start..end).unwrap_or_default()
            })
            .collect();
        Ok(Reader {
            pf,
            data,
            endian: pf.rules().endian,
            ptr: pf.rules().ptr(),
            opts,
            budget,
            violations: Vec::new(),
            consumed: vec![false; pf.pointers().len()],
            imported: vec![false; pf.imports.len()],
            blocks: Vec::with_capacity(pf.object_table().len() * 2),
            arrays: Vec::new(),
            paths: Vec::new(),
            deferred: Vec::new(),
            capacity_flags: Vec::new(),
            hint: 0,
            current: ObjectId(0),
            path: Vec::with_capacity(16),
        })
    }

    /// The limits of the read.
    pub fn limits(&self) -> &Limits {
        &self.opts.limits
    }

    /// How deep values may nest below an object ([`Limits::depth`]).
    #[inline]
    pub fn max_depth(&self) -> usize {
        self.opts.limits.depth()
    }

    /// The error for values nesting past [`Reader::max_depth`] at `at`.
    pub fn too_deep(&self, at: Loc) -> Error {
        self.opts.limits.too_deep(self.pf.abs(at))
    }

    /// Charges `bytes` the model is about to allocate for what it reads at `at`.
    ///
    /// # Errors
    /// Past [`Limits::max_memory`].
    #[inline]
    pub fn charge(&mut self, bytes: u64, at: Loc) -> Result<()> {
        let pf = self.pf;
        self.budget.charge_at(bytes, || pf.abs(at))
    }

    /// Charges the values one object of a class expands into (`values`, from
    /// [`crate::Schema::values_of`]), each `value_size` bytes, before it is read at `at`.
    ///
    /// # Errors
    /// Past [`Limits::max_expansion`] or [`Limits::max_memory`].
    #[inline]
    pub fn charge_object(&mut self, values: u64, value_size: u64, at: Loc) -> Result<()> {
        self.opts.limits.check_expansion(values, self.pf.abs(at))?;
        self.charge(values.saturating_mul(value_size), at)
    }

    /// The packfile.
    pub fn packfile(&self) -> &'p Packfile<'a> {
        self.pf
    }

    /// The file's byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The file's pointer size.
    pub fn ptr(&self) -> u32 {
        self.ptr
    }

    /// Absolute file offset of `loc`.
    pub fn abs(&self, loc: Loc) -> u64 {
        self.pf.abs(loc)
    }

    /// Enters member or element `seg` of the value being read.
    #[inline]
    pub fn enter(&mut self, seg: Seg) {
        self.path.push(seg);
    }

    /// Leaves the innermost member or element.
    #[inline]
    pub fn leave(&mut self) {
        self.path.pop();
    }

    /// The member path being read.
    pub fn path(&self) -> &[Seg] {
        &self.path
    }

    /// Starts object `id` (clears the path).
    pub fn begin_object(&mut self, id: ObjectId) {
        self.current = id;
        self.path.clear();
    }

    /// Records a broken invariant: an error in strict mode, a [`Violation`] in lenient
    /// mode, one per `rule` (its first occurrence, with the object and member path; later
    /// ones are counted). The caller's error path names the object and member in strict
    /// mode.
    ///
    /// # Errors
    /// In strict mode, always.
    pub fn violation(
        &mut self,
        offset: u64,
        rule: &'static str,
        message: impl Into<String>,
    ) -> Result<()> {
        let message = message.into();
        if !self.opts.lenient {
            return Err(Error::invalid(offset, message));
        }
        if let Some(v) = self.violations.iter_mut().find(|v| v.rule == rule) {
            v.count += 1;
            return Ok(());
        }
        let cost = 96 + message.len() as u64 + 8 * self.path.len() as u64;
        self.budget.charge(cost, offset)?;
        let path: String = self
            .path
            .iter()
            .map(|s| match s {
                Seg::Member(i) => format!(".#{i}"),
                Seg::Index(k) => format!("[{k}]"),
            })
            .collect();
        self.violations.push(Violation {
            offset,
            path: format!("object #{}{path}", self.current.0),
            message,
            rule,
            count: 1,
        });
        Ok(())
    }

    /// `len` bytes of section data at `at`, recorded as a block of the coverage check.
    ///
    /// # Errors
    /// When they run past the section's object data.
    #[inline]
    pub fn block(&mut self, at: Loc, len: u64) -> Result<&'a [u8]> {
        let b = self.bytes(at, len)?;
        if len > 0 {
            self.blocks.push(Block {
                section: at.section,
                start: at.offset,
                end: at.offset + len as u32,
            });
        }
        Ok(b)
    }

    /// `len` bytes of section data at `at`, not recorded.
    ///
    /// # Errors
    /// When they run past the section's object data.
    #[inline]
    pub fn bytes(&self, at: Loc, len: u64) -> Result<&'a [u8]> {
        let sec: &'a [u8] = self
            .data
            .get(at.section as usize)
            .copied()
            .unwrap_or_default();
        let start = at.offset as usize;
        let left = sec.len().saturating_sub(start) as u64;
        if len > left {
            return Err(Error::truncated(self.pf.abs(at), len, left));
        }
        Ok(&sec[start..start + len as usize])
    }

    /// Checks that the ranges `gaps` of `bytes` (a body or element read at `at`) are zero.
    ///
    /// # Errors
    /// In strict mode, the first non-zero padding byte.
    #[inline]
    pub fn check_gaps(&mut self, bytes: &[u8], at: Loc, gaps: &[(u32, u32)]) -> Result<()> {
        for &(s, e) in gaps {
            let Some(g) = bytes.get(s as usize..e as usize) else {
                continue;
            };
            if let Some(i) = g.iter().position(|&b| b != 0) {
                let off = self.pf.abs(at) + u64::from(s) + i as u64;
                self.violation(
                    off,
                    rule::PADDING,
                    format!("padding byte 0x{:02X} is not zero", g[i]),
                )?;
            }
        }
        Ok(())
    }

    /// What the pointer slot at `slot` holds.
    ///
    /// # Errors
    /// In strict mode, a slot that stores a non-zero word, or is both imported and fixed
    /// up.
    pub fn pointer(&mut self, slot: Loc) -> Result<Target<'p>> {
        let word = self.uint(slot, self.ptr)?;
        self.pointer_word(slot, word)
    }

    /// [`Reader::pointer`] for a slot whose stored word the caller has read.
    ///
    /// # Errors
    /// As [`Reader::pointer`].
    #[inline]
    pub fn pointer_word(&mut self, slot: Loc, word: u64) -> Result<Target<'p>> {
        let import = if self.pf.imports.is_empty() {
            None
        } else {
            self.pf.imports.binary_search_by_key(&slot, |p| p.0).ok()
        };
        if let Some(i) = import {
            self.imported[i] = true;
            if self.pf.fixup_index(slot).is_some() {
                self.violation(
                    self.pf.abs(slot),
                    rule::IMPORTED_AND_FIXED,
                    "pointer slot is both imported and fixed up",
                )?;
            }
            return Ok(Target::Import(&self.pf.imports[i].1));
        }
        let Some(target) = self.target(slot, word)? else {
            return Ok(Target::Null);
        };
        match self.pf.object_at(target) {
            Some(i) => Ok(Target::Object(ObjectId(i as u32))),
            None => Ok(Target::Interior(target)),
        }
    }

    /// The target of the slot at `at` storing `word`, marking its fixup as met.
    #[inline]
    fn target(&mut self, at: Loc, word: u64) -> Result<Option<Loc>> {
        if word != 0 {
            self.violation(
                self.pf.abs(at),
                rule::POINTER_SLOT,
                format!("pointer slot stores 0x{word:X}, not 0"),
            )?;
        }
        Ok(self.fixup(at).map(|i| {
            self.consumed[i] = true;
            self.pf.pointers()[i].1
        }))
    }

    /// The index of the fixup for slot `at`: the walk meets slots mostly in file order, so
    /// the search starts where the last one ended and falls back to a binary search.
    #[inline]
    fn fixup(&mut self, at: Loc) -> Option<usize> {
        let p = self.pf.pointers();
        let h = self.hint;
        if let Some((src, _)) = p.get(h) {
            if *src == at {
                self.hint = h + 1;
                return Some(h);
            }
            if at < *src && (h == 0 || p[h - 1].0 < at) {
                return None;
            }
        } else if h > 0 && p[h - 1].0 < at {
            return None;
        }
        match p.binary_search_by_key(&at, |x| x.0) {
            Ok(i) => {
                self.hint = i + 1;
                Some(i)
            }
            Err(i) => {
                self.hint = i;
                None
            }
        }
    }

    /// An unsigned integer of `width` bytes at `at`.
    ///
    /// # Errors
    /// When it runs past the section.
    #[inline]
    pub fn uint(&self, at: Loc, width: u32) -> Result<u64> {
        let b = self.bytes(at, u64::from(width))?;
        Ok(match width {
            1 => u64::from(b[0]),
            2 => u64::from(<u16 as Scalar>::read(b, self.endian)),
            4 => u64::from(<u32 as Scalar>::read(b, self.endian)),
            _ => <u64 as Scalar>::read(b, self.endian),
        })
    }

    /// Defers interior pointer `target`, found at `slot` in the current object's member
    /// path, until [`Reader::finish`].
    ///
    /// # Errors
    /// Past [`Limits::max_memory`] (the pointer, its path and the path it resolves to).
    pub fn defer(&mut self, target: Loc, slot: Loc, variant_class: bool) -> Result<()> {
        let cost = 96 + 24 * self.path.len() as u64;
        self.charge(cost, slot)?;
        self.deferred.push(Deferred {
            owner: self.current,
            path: self.path.as_slice().into(),
            variant_class,
            target,
            slot: self.pf.abs(slot),
        });
        Ok(())
    }

    /// The bytes of the string a string slot names, without the NUL; `None` for null.
    ///
    /// # Errors
    /// A string without a NUL before the end of its section, or (strict) a slot that
    /// stores a non-zero word.
    pub fn string(&mut self, slot: Loc) -> Result<Option<&'a [u8]>> {
        let word = self.uint(slot, self.ptr)?;
        self.string_word(slot, word)
    }

    /// [`Reader::string`] for a slot whose stored word the caller has read.
    ///
    /// # Errors
    /// As [`Reader::string`].
    #[inline]
    pub fn string_word(&mut self, slot: Loc, word: u64) -> Result<Option<&'a [u8]>> {
        let Some(t) = self.target(slot, word)? else {
            return Ok(None);
        };
        let s = self.nul_terminated(t)?;
        let n = s.len() as u64;
        // Two slots may name one string: each copies it into the graph.
        self.charge(n + 32, t)?;
        self.block(t, n + 1)?;
        Ok(Some(s))
    }

    /// The bytes from `t` to the next NUL of its section (without it).
    #[inline]
    fn nul_terminated(&self, t: Loc) -> Result<&'a [u8]> {
        self.bytes(t, 0)?;
        let sec: &'a [u8] = self
            .data
            .get(t.section as usize)
            .copied()
            .unwrap_or_default();
        let tail = sec.get(t.offset as usize..).unwrap_or_default();
        match tail.iter().position(|&b| b == 0) {
            Some(n) => Ok(&tail[..n]),
            None => Err(Error::unterminated(self.pf.abs(t), "string", "its section")),
        }
    }

    /// The bytes of the string the slot at `slot` names (without the NUL), read without
    /// marking its fixup as met or recording its block: another object's string, such as
    /// the name of the hkClass object a homogeneous array's class pointer names.
    ///
    /// # Errors
    /// A string without a NUL before the end of its section.
    pub fn peek_string(&self, slot: Loc) -> Result<Option<&'a [u8]>> {
        let Some(t) = self.pf.resolve(slot) else {
            return Ok(None);
        };
        self.nul_terminated(t).map(Some)
    }

    /// Reads the header of an array of `kind` at `at` whose elements are `stride` bytes,
    /// and records its elements as a block; `None` for an empty array.
    ///
    /// # Errors
    /// A count that does not fit the bytes left, relative data past the section, and (in
    /// strict mode) a capacity word that is not `size | 0x80000000`, an empty array with a
    /// data pointer, or a non-empty one without.
    pub fn array(&mut self, at: Loc, kind: ArrayKind, stride: u32) -> Result<Option<Elements>> {
        let p = self.ptr;
        let e = self.endian;
        let (data, count) = match kind {
            ArrayKind::Array | ArrayKind::Simple => {
                // One read of the header: data slot, count, capacity.
                let len = if kind == ArrayKind::Array {
                    p + 8
                } else {
                    p + 4
                };
                let hdr = self.bytes(at, u64::from(len))?;
                let pu = p as usize;
                let count = <u32 as Scalar>::read(&hdr[pu..], e);
                if kind == ArrayKind::Array {
                    let cap_at = at.plus(p + 4);
                    let cap = <u32 as Scalar>::read(&hdr[pu + 4..], e);
                    let flags = cap & FLAG_MASK;
                    if cap & !FLAG_MASK == count && flags & DONT_DEALLOCATE != 0 {
                        if flags != DONT_DEALLOCATE {
                            self.charge(64 + 8 * self.path.len() as u64, at)?;
                            self.capacity_flags.push((
                                self.current,
                                self.path.as_slice().into(),
                                flags,
                            ));
                        }
                    } else {
                        self.violation(
                            self.pf.abs(cap_at), rule::CAPACITY,
                            format!(
                                "array capacity word 0x{cap:08X} is not size | 0x80000000 (size {count})"
                            ),
                        )?;
                    }
                }
                let word = if p == 8 {
                    <u64 as Scalar>::read(hdr, e)
                } else {
                    u64::from(<u32 as Scalar>::read(hdr, e))
                };
                let data = self.target(at, word)?;
                match data {
                    None => {
                        if count != 0 {
                            self.violation(
                                self.pf.abs(at),
                                rule::NO_DATA_POINTER,
                                format!("array of {count} elements has no data pointer"),
                            )?;
                        }
                        return Ok(None);
                    }
                    Some(d) => {
                        if count == 0 {
                            self.violation(
                                self.pf.abs(at),
                                rule::EMPTY_WITH_POINTER,
                                "empty array has a data pointer",
                            )?;
                            return Ok(None);
                        }
                        (d, count)
                    }
                }
            }
            ArrayKind::Rel => {
                // hkRelArray: a u16 count and a u16 offset from the member to its
                // elements, which the object carries after its body
                // (games/bloodborne/c2020_ragdoll_with_types.hkx: hknpConvexShape.vertices).
                let hdr = self.bytes(at, 4)?;
                let count = u32::from(<u16 as Scalar>::read(hdr, e));
                let offset = u32::from(<u16 as Scalar>::read(&hdr[2..], e));
                if count == 0 {
                    if offset != 0 {
                        self.violation(
                            self.pf.abs(at),
                            rule::REL_OFFSET,
                            format!("empty relative array has offset 0x{offset:X}"),
                        )?;
                    }
                    return Ok(None);
                }
                (at.plus(offset), count)
            }
            ArrayKind::Rel64 | ArrayKind::RelView => {
                return Err(Error::read(crate::error::ReadError::Unsupported(format!(
                    "a {} array in a packfile",
                    if kind == ArrayKind::Rel64 {
                        "64-bit relative"
                    } else {
                        "relative view"
                    }
                )))
                .at(self.pf.abs(at)))
            }
        };
        let left = self
            .data
            .get(data.section as usize)
            .map_or(0, |s| s.len())
            .saturating_sub(data.offset as usize) as u64;
        // Zero-size elements count as one byte each: a count is never larger than the
        // bytes that remain, whatever the element size.
        if u64::from(count) * u64::from(stride.max(1)) > left {
            return Err(Error::count(
                self.pf.abs(at),
                u64::from(count),
                u64::from(stride),
                left,
            ));
        }
        // The engine's records of the array: its block, its entry and its member path.
        let records = 64 + 8 * self.path.len() as u64;
        self.charge(records, at)?;
        self.block(data, u64::from(count) * u64::from(stride))?;
        let from = self.paths.len() as u32;
        self.paths.extend_from_slice(&self.path);
        self.arrays.push(ArrayBlock {
            at: data,
            stride,
            count,
            owner: self.current,
            path: (from, self.paths.len() as u32),
        });
        Ok(Some(Elements { at: data, count }))
    }

    /// Ends the read: resolves interior pointers, and checks that every fixup and import
    /// was met on a member, that blocks do not overlap, and that every byte outside the
    /// blocks is zero.
    ///
    /// # Errors
    /// In strict mode, the first broken invariant.
    pub fn finish(mut self) -> Result<Finish> {
        self.path.clear();
        let mut arrays = std::mem::take(&mut self.arrays);
        arrays.sort_unstable_by_key(|a| a.at);
        let mut interior = Vec::new();
        for d in std::mem::take(&mut self.deferred) {
            let i = arrays.partition_point(|a| a.at <= d.target);
            let hit = i.checked_sub(1).map(|i| &arrays[i]).filter(|a| {
                a.at.section == d.target.section
                    && u64::from(d.target.offset)
                        < u64::from(a.at.offset) + u64::from(a.stride) * u64::from(a.count)
                    && a.stride > 0
                    && (d.target.offset - a.at.offset) % a.stride == 0
            });
            match hit {
                Some(a) => {
                    let mut path = self.paths[a.path.0 as usize..a.path.1 as usize].to_vec();
                    path.push(Seg::Index((d.target.offset - a.at.offset) / a.stride));
                    let ptr = Ptr::Into {
                        object: a.owner,
                        path: path.into(),
                    };
                    interior.push((d, ptr));
                }
                None => {
                    self.current = d.owner;
                    let target = self.pf.abs(d.target);
                    self.violation(
                        d.slot,
                        rule::INTERIOR,
                        format!(
                            "pointer to 0x{target:X} is neither an object nor an array element"
                        ),
                    )?;
                }
            }
        }
        self.current = ObjectId(u32::MAX);
        let pf = self.pf;
        // docs/packfile-format.md §4: every fixup source is aligned to the pointer size
        // in the corpus; the reader requires 4-byte alignment.
        for (i, (src, _)) in pf.pointers().iter().enumerate() {
            if src.offset % 4 != 0 {
                self.violation(
                    pf.abs(*src),
                    rule::FIXUP_ALIGNMENT,
                    "fixup source is not 4-byte aligned",
                )?;
            }
            if !self.consumed[i] {
                self.violation(
                    pf.abs(*src),
                    rule::FIXUP_OFF_MEMBER,
                    "fixup source lies on no pointer member of its object",
                )?;
            }
        }
        for (i, (slot, _)) in pf.imports.iter().enumerate() {
            if !self.imported[i] {
                self.violation(
                    pf.abs(*slot),
                    rule::IMPORT_OFF_MEMBER,
                    "import names a slot that is no pointer member",
                )?;
            }
        }
        self.check_blocks()?;
        Ok(Finish {
            interior,
            capacity_flags: std::mem::take(&mut self.capacity_flags),
            violations: self.violations,
        })
    }

    /// Blocks do not overlap, and every byte of object data outside them is zero.
    fn check_blocks(&mut self) -> Result<()> {
        let mut blocks = std::mem::take(&mut self.blocks);
        // The walk records blocks in runs of ascending offsets, which a stable sort merges.
        blocks.sort_by_key(|b| (u64::from(b.section) << 32) | u64::from(b.start));
        let names = self.pf.header.class_names_section;
        let mut bi = 0;
        for si in 0..self.data.len() {
            let sec = self.data[si];
            let mut at = 0u32;
            let mut prev: Option<(u32, u32)> = None;
            while bi < blocks.len() && blocks[bi].section == si as u32 {
                let b = blocks[bi];
                bi += 1;
                // The same string named by two slots is one block.
                if prev == Some((b.start, b.end)) {
                    continue;
                }
                prev = Some((b.start, b.end));
                if b.start < at {
                    let off = self.pf.abs(Loc {
                        section: si as u32,
                        offset: b.start,
                    });
                    self.violation(off, rule::TWO_OWNERS, "data here is claimed by two owners")?;
                    at = at.max(b.end);
                    continue;
                }
                if si as u32 != names {
                    self.zero(si, sec, at, b.start)?;
                }
                at = b.end;
            }
            if si as u32 != names {
                self.zero(si, sec, at, sec.len() as u32)?;
            }
        }
        Ok(())
    }

    fn zero(&mut self, si: usize, sec: &[u8], from: u32, to: u32) -> Result<()> {
        let Some(g) = sec.get(from as usize..to as usize) else {
            return Ok(());
        };
        if let Some(i) = g.iter().position(|&b| b != 0) {
            let at = self.pf.abs(Loc {
                section: si as u32,
                offset: from + i as u32,
            });
            self.violation(
                at,
                rule::PADDING_BETWEEN,
                format!(
                    "padding byte 0x{:02X} is not zero (outside every object and the data it owns)",
                    g[i]
                ),
            )?;
        }
        Ok(())
    }
}

impl Loc {
    /// `n` bytes further in the same section.
    #[inline]
    pub fn plus(self, n: u32) -> Loc {
        Loc {
            section: self.section,
            offset: self.offset.saturating_add(n),
        }
    }
}
