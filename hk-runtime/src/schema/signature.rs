//! Havok class signatures: CRC-32 of a class description.
//!
//! The algorithm is docs/layout-and-signatures.md §4, measured on the corpus (§4.4 and §6):
//! names are hashed without a NUL, the enum/flags rewrite runs before the serialize-ignored
//! rewrite, and an ignored member's old sub-type, when not `void`, is written as an extra
//! `u16`. All integers are little-endian whatever the file's byte order.

use std::sync::OnceLock;

use crate::error::{Error, Result, SchemaError};
use crate::schema::{Class, ClassId, Enum, Member, Schema};
use crate::types::{flag_names, TypeKind};

/// The longest description a signature hashes: 4 MiB, about 160 times the longest of the
/// shipped schemas (25,965 bytes, `hkp6DofConstraintData` of 2014.2). Struct members that
/// hold a class that holds another many times over describe a class exponentially long
/// (two members a level, 34 levels: 2^34 copies); such a class is refused at this length
/// rather than hashed, or written out when traced, without end.
pub const MAX_DESCRIPTION: u64 = 4 << 20;

/// A class's chain description hashed: the CRC state with its length, and how many levels
/// of struct members nest under it. The schema keeps one per class, so each class's own
/// description is hashed once however many classes include it (as a parent or by value);
/// the rest is combining CRCs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Digest {
    crc: crc32fast::Hasher,
    height: usize,
}

impl Digest {
    /// `next` appended; the combined description's length is checked first.
    fn append(&mut self, next: &Digest, class: &str) -> Result<()> {
        let len = self.crc.total_len() + next.crc.total_len();
        if len > MAX_DESCRIPTION {
            return Err(Error::schema(format!(
                "the description the signature of `{class}` hashes runs past {MAX_DESCRIPTION} bytes: struct members hold classes that hold others many times over"
            )));
        }
        self.crc.combine(&next.crc);
        self.height = self.height.max(next.height);
        Ok(())
    }
}

/// How a class's signature was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureSource {
    /// Computed from the schema's description.
    Computed,
    /// Pinned by the schema (`[pinned]`); the computed value is kept beside it.
    Pinned {
        /// What the schema's description hashes to.
        computed: u32,
    },
}

/// A class signature and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The value a writer stores.
    pub value: u32,
    /// Computed or pinned.
    pub source: SignatureSource,
}

impl Signature {
    /// The computed CRC, whether or not it is the value in use.
    pub fn computed(self) -> u32 {
        match self.source {
            SignatureSource::Computed => self.value,
            SignatureSource::Pinned { computed } => computed,
        }
    }

    /// Whether the value is pinned rather than computed.
    pub fn is_pinned(self) -> bool {
        matches!(self.source, SignatureSource::Pinned { .. })
    }
}

/// The signature a writer stores for `class`: pinned if the schema pins it, else computed.
///
/// # Errors
/// Fails when the class or a class its description needs is missing, or a type has no
/// number in the schema's generation.
pub fn signature(schema: &Schema, class: &str) -> Result<Signature> {
    let computed = compute(schema, class)?;
    let c = schema
        .class(class)
        .ok_or_else(|| Error::missing_class(class))?;
    Ok(match &c.pinned {
        Some(p) => Signature {
            value: p.signature,
            source: SignatureSource::Pinned { computed },
        },
        None => Signature {
            value: computed,
            source: SignatureSource::Computed,
        },
    })
}

/// The CRC-32 of `class`'s description, ignoring any pin.
///
/// # Errors
/// As [`signature`].
pub fn compute(schema: &Schema, class: &str) -> Result<u32> {
    Ok(chain_digest(schema, class, 0)?.crc.finalize())
}

/// The digest of `name`'s chain description at nesting `depth`: the classes up to the
/// first ancestor the schema keeps a digest of are described (struct members through
/// their own kept digests) and kept in turn, so a chain of thousands of classes is
/// described once for all their signatures. A failure at the top (`depth` 0) is kept too,
/// for the class and the ones below it: it fails at any depth.
fn chain_digest(schema: &Schema, name: &str, depth: usize) -> Result<Digest> {
    if depth > MAX_DEPTH {
        return Err(nested_too_deep(name));
    }
    let mut todo = Vec::new();
    let mut tail = Digest::default();
    let mut cur = Some(name);
    while let Some(n) = cur {
        let id = schema.class_id(n).ok_or_else(|| Error::missing_class(n))?;
        match schema.chain_digest_cell(id).and_then(OnceLock::get) {
            Some(Ok(d)) => {
                tail = d.clone();
                break;
            }
            Some(Err(e)) => return Err(keep_failure(schema, &todo, e.clone())),
            None => {}
        }
        // A chain longer than the schema has classes goes round in a cycle.
        if todo.len() > schema.classes().len() {
            let e = Error::from(SchemaError::ParentCycle(n.to_string()));
            return Err(keep_failure(schema, &todo, e));
        }
        todo.push(id);
        cur = schema.classes()[id.0 as usize].parent.as_deref();
    }
    for i in (0..todo.len()).rev() {
        let c = &schema.classes()[todo[i].0 as usize];
        let d = own_digest(schema, c, depth).and_then(|mut d| {
            d.append(&tail, &c.name)?;
            Ok(d)
        });
        match d {
            Ok(d) => {
                if let Some(cell) = schema.chain_digest_cell(todo[i]) {
                    let _ = cell.set(Ok(d.clone()));
                }
                tail = d;
            }
            Err(e) if depth == 0 => return Err(keep_failure(schema, &todo[..=i], e)),
            Err(e) => return Err(e),
        }
    }
    if depth + tail.height > MAX_DEPTH {
        return Err(nested_too_deep(name));
    }
    Ok(tail)
}

/// The digest of `c`'s own description at nesting `depth`.
fn own_digest(schema: &Schema, c: &Class, depth: usize) -> Result<Digest> {
    let mut w = Writer::hashing();
    describe_class(schema, c, &mut w, depth).map_err(|e| e.in_(c.name.clone()))?;
    w.finish(&c.name)
}

/// Keeps `e` as the outcome of `classes` (a class and the ones below it on its parent
/// chain), and gives it back.
fn keep_failure(schema: &Schema, classes: &[ClassId], e: Error) -> Error {
    for &id in classes {
        if let Some(cell) = schema.chain_digest_cell(id) {
            let _ = cell.set(Err(e.clone()));
        }
    }
    e
}

fn nested_too_deep(class: &str) -> Error {
    Error::schema(format!(
        "struct members nest deeper than {MAX_DEPTH} at `{class}`"
    ))
}

/// The description bytes of `class` and its parents (exposed for diagnostics and tests).
///
/// # Errors
/// As [`signature`].
pub fn description(schema: &Schema, class: &str) -> Result<Vec<u8>> {
    let mut w = Writer::new(false);
    describe_chain(schema, class, &mut w, 0)?;
    Ok(w.buf)
}

/// Which part of a class's own description a [`DescLine`] is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// The implemented-interface count that opens the class.
    Interfaces,
    /// A declared enum: its name, items and item count.
    Enum(String),
    /// The number of declared enums.
    EnumCount,
    /// A member: its enum's description (enum and flags members), then its name, type,
    /// sub-type, C-array length and flags after the rewrites. A struct member's class is
    /// described before it, in lines of its own.
    Member(String),
    /// The number of declared members.
    MemberCount,
}

/// One line of a signature's hashed description: what a run of the hashed bytes says, in
/// hash order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescLine {
    /// Nesting: 0 for the class and its parents, one more inside each struct member's class.
    pub depth: u16,
    /// The class whose own description this line is part of.
    pub class: String,
    /// Which part.
    pub part: Part,
    /// The hashed values, readable: names as they are, numbers in decimal, flags in hex.
    pub text: String,
    /// How many bytes of the hashed text this line stands for.
    pub bytes: usize,
}

impl std::fmt::Display for DescLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pad = usize::from(self.depth) * 2;
        write!(f, "{:pad$}{}", "", self.text)
    }
}

/// How a class came into another class's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// The parent of `of`.
    Parent {
        /// The subclass.
        of: String,
    },
    /// The class of a struct member (or of the elements of an array of structs).
    Member {
        /// The class declaring the member.
        owner: String,
        /// The member.
        member: String,
    },
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Via::Parent { of } => write!(f, "parent of {of}"),
            Via::Member { owner, member } => write!(f, "struct of {owner}.{member}"),
        }
    }
}

/// A signature's hashed description, readable: every line in hash order, and the classes
/// it includes besides the class itself (parents, and struct members' classes with their
/// own parents and struct members), each with how it came in, first appearance first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    /// The class.
    pub class: String,
    /// The lines, in hash order.
    pub lines: Vec<DescLine>,
    /// Classes the description includes, without the class itself.
    pub includes: Vec<(String, Via)>,
    /// Length of the hashed text.
    pub bytes: usize,
    /// Its CRC-32: the computed signature.
    pub crc: u32,
}

impl Description {
    /// The lines of `class`'s own description (the first time it appears).
    pub fn own_lines<'a>(&'a self, class: &'a str) -> impl Iterator<Item = &'a DescLine> + 'a {
        let depth = self
            .lines
            .iter()
            .find(|l| l.class == class)
            .map(|l| l.depth);
        let start = self.lines.iter().position(|l| l.class == class);
        let end = start.and_then(|s| {
            self.lines[s..]
                .iter()
                .position(|l| l.class == class && l.part == Part::MemberCount)
                .map(|e| s + e + 1)
        });
        let range = match (start, end) {
            (Some(s), Some(e)) => s..e,
            _ => 0..0,
        };
        self.lines[range]
            .iter()
            .filter(move |l| Some(l.depth) == depth && l.class == class)
    }
}

/// The description of `class` that its signature hashes, line by line.
///
/// # Errors
/// As [`signature`].
pub fn describe(schema: &Schema, class: &str) -> Result<Description> {
    let mut w = Writer::new(true);
    describe_chain(schema, class, &mut w, 0)?;
    Ok(Description {
        class: class.to_string(),
        lines: w.lines,
        includes: w.includes,
        bytes: w.buf.len(),
        crc: crc32fast::hash(&w.buf),
    })
}

const MAX_DEPTH: usize = 64;

/// The hashed bytes and, when tracing, what they say; or, when hashing, the digest of what
/// was written so far with struct members' classes taken from their kept digests.
struct Writer {
    buf: Vec<u8>,
    trace: bool,
    lines: Vec<DescLine>,
    includes: Vec<(String, Via)>,
    included: std::collections::HashSet<String>,
    /// Where the current line's bytes start.
    mark: usize,
    /// When hashing: the bytes before `buf` and the nested digests, combined.
    digest: Option<Digest>,
}

impl Writer {
    fn new(trace: bool) -> Self {
        Writer {
            buf: Vec::with_capacity(1024),
            trace,
            lines: Vec::new(),
            includes: Vec::new(),
            included: Default::default(),
            mark: 0,
            digest: None,
        }
    }

    fn hashing() -> Self {
        Writer {
            digest: Some(Digest::default()),
            ..Writer::new(false)
        }
    }

    /// The bytes written so far moved into the digest.
    fn flush(&mut self) {
        if let Some(d) = &mut self.digest {
            d.crc.update(&self.buf);
            self.buf.clear();
            self.mark = 0;
        }
    }

    /// A struct member's class described by its digest `d` (hashing only).
    fn nest(&mut self, d: &Digest, class: &str) -> Result<()> {
        self.flush();
        if let Some(mine) = &mut self.digest {
            mine.append(d, class)?;
            mine.height = mine.height.max(d.height + 1);
        }
        Ok(())
    }

    /// The digest of everything written (hashing only).
    fn finish(mut self, class: &str) -> Result<Digest> {
        let pending = Digest {
            crc: {
                let mut h = crc32fast::Hasher::new();
                h.update(&self.buf);
                h
            },
            height: 0,
        };
        let mut d = self.digest.take().unwrap_or_default();
        d.append(&pending, class)?;
        Ok(d)
    }

    fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn name(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Ends a line covering the bytes written since the last one; `text` runs only when
    /// tracing.
    fn line(&mut self, depth: usize, class: &str, part: Part, text: impl FnOnce() -> String) {
        if self.trace {
            self.lines.push(DescLine {
                depth: depth as u16,
                class: class.to_string(),
                part,
                text: text(),
                bytes: self.buf.len() - self.mark,
            });
        }
        self.mark = self.buf.len();
    }

    fn include(&mut self, class: &str, via: impl FnOnce() -> Via) {
        if self.trace && self.included.insert(class.to_string()) {
            self.includes.push((class.to_string(), via()));
        }
    }
}

/// `class` and its parents written out whole (for the description's bytes and lines).
fn describe_chain(schema: &Schema, class: &str, w: &mut Writer, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(nested_too_deep(class));
    }
    let chain = schema.chain(class)?;
    for (i, c) in chain.iter().enumerate() {
        if i > 0 {
            w.include(&c.name, || Via::Parent {
                of: chain[i - 1].name.clone(),
            });
        }
        describe_class(schema, c, w, depth).map_err(|e| e.in_(c.name.clone()))?;
        if w.buf.len() as u64 > MAX_DESCRIPTION {
            return Err(Error::schema(format!(
                "the description the signature of `{class}` hashes runs past {MAX_DESCRIPTION} bytes: struct members hold classes that hold others many times over"
            )));
        }
    }
    Ok(())
}

fn enum_text(e: &Enum) -> String {
    let items: Vec<String> = e
        .items
        .iter()
        .map(|i| format!("{} = {}", i.name, i.value))
        .collect();
    format!(
        "enum {} {{ {} }} ({} items)",
        e.name,
        items.join(", "),
        e.items.len()
    )
}

fn describe_enum(e: &Enum, w: &mut Writer) {
    w.name(&e.name);
    for item in &e.items {
        w.name(&item.name);
        w.i32(item.value);
    }
    w.i32(e.items.len() as i32);
}

fn describe_class(schema: &Schema, c: &Class, w: &mut Writer, depth: usize) -> Result<()> {
    w.i32(c.interfaces as i32);
    w.line(depth, &c.name, Part::Interfaces, || {
        format!("{}: interfaces {}", c.name, c.interfaces)
    });
    for e in &c.enums {
        describe_enum(e, w);
        w.line(depth, &c.name, Part::Enum(e.name.clone()), || {
            format!("  {}", enum_text(e))
        });
    }
    w.i32(c.enums.len() as i32);
    w.line(depth, &c.name, Part::EnumCount, || {
        format!("  enums {}", c.enums.len())
    });
    for m in &c.members {
        describe_member(schema, c, m, w, depth).map_err(|e| e.in_(m.name.clone()))?;
    }
    w.i32(c.members.len() as i32);
    w.line(depth, &c.name, Part::MemberCount, || {
        format!("  members {}", c.members.len())
    });
    Ok(())
}

fn describe_member(
    schema: &Schema,
    owner: &Class,
    m: &Member,
    w: &mut Writer,
    depth: usize,
) -> Result<()> {
    let g = &schema.generation;
    let num = |k: TypeKind| -> Result<u16> {
        g.type_number(k)
            .map(u16::from)
            .ok_or_else(|| Error::schema(format!("type `{k}` has no number in {}", g.name)))
    };
    let part = || Part::Member(m.name.clone());
    if let Some(cl) = &m.class {
        if m.ty != TypeKind::Pointer && m.subtype != TypeKind::Pointer {
            w.include(cl, || Via::Member {
                owner: owner.name.clone(),
                member: m.name.clone(),
            });
            if w.digest.is_some() {
                let d = chain_digest(schema, cl, depth + 1)?;
                w.nest(&d, &owner.name)?;
            } else {
                describe_chain(schema, cl, w, depth + 1)?;
            }
        }
    }
    if let Some(r) = &m.enum_ref {
        let (_, e) = schema
            .resolve_enum(&owner.name, r)
            .ok_or_else(|| Error::schema(format!("enum `{r}` not found")))?;
        describe_enum(e, w);
        w.line(depth, &owner.name, part(), || {
            format!("  {}: {}", m.name, enum_text(e))
        });
    }
    let mut ty = num(m.ty)?;
    let mut subtype = num(m.subtype)?;
    let mut flags = m.flags;
    let mut extra = None;
    let (mut enum_rewrite, mut ignored_rewrite) = (false, false);
    // Rewrite 1: an enum or flags member has sub-type void and its storage width in bits
    // toggled in the flags (docs/layout-and-signatures.md §4.2).
    if matches!(m.ty, TypeKind::Enum | TypeKind::Flags) {
        let bits = m.subtype.int_width().unwrap_or(0) * 8;
        flags ^= bits as u16;
        subtype = num(TypeKind::Void)?;
        enum_rewrite = true;
    }
    // Rewrite 2, after rewrite 1 (docs/layout-and-signatures.md §4.2): serialize-ignored
    // members become `zero`, the old type moves to the sub-type, and a non-void old sub-type
    // follows as an extra u16.
    let ignored = g.flag_value(flag_names::SERIALIZE_IGNORED);
    if ignored != 0 && flags & ignored == ignored {
        flags &= !ignored;
        let void = num(TypeKind::Void)?;
        if subtype != void {
            extra = Some(subtype);
        }
        subtype = ty;
        ty = num(TypeKind::Zero)?;
        ignored_rewrite = true;
    }
    w.name(&m.name);
    w.u16(ty);
    w.u16(subtype);
    if let Some(x) = extra {
        w.u16(x);
    }
    w.u16(m.array_size);
    w.u16(flags);
    w.line(depth, &owner.name, part(), || {
        let t = |n: u16| {
            let name = u8::try_from(n)
                .ok()
                .and_then(|n| g.type_from_number(n))
                .map_or("?", TypeKind::name);
            format!("{name}({n})")
        };
        let mut s = format!("  {}: type {} subtype {}", m.name, t(ty), t(subtype));
        if let Some(x) = extra {
            s.push_str(&format!(" extra {}", t(x)));
        }
        s.push_str(&format!(" array_size {} flags 0x{flags:04X}", m.array_size));
        match (enum_rewrite, ignored_rewrite) {
            (true, true) => s.push_str(" [enum, then serialize_ignored rewrite]"),
            (true, false) => s.push_str(" [enum rewrite]"),
            (false, true) => s.push_str(" [serialize_ignored rewrite]"),
            (false, false) => {}
        }
        s
    });
    Ok(())
}
