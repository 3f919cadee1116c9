//! The TYPE section: string tables, type names with template parameters (TNAM/TNA1), type
//! bodies (TBOD/TBDY) and hashes (THSH). Layouts: docs/tagfile-format.md §3.

use super::section::Section;
use super::varint;
use crate::error::{Error, Result};
use crate::limits::{Budget, Limits};
use crate::schema::names::{self, NameKind};

/// How deep records and tuples may nest inside each other in a type table (a table whose
/// types nest deeper is refused before a schema is extracted from it).
pub const MAX_DEPTH: usize = 32;

/// The longest full type name (with its template arguments) a type table may give a type;
/// [`TypeTable::full_name`] spells out no more. The corpus and sample tables' longest is 104
/// characters.
pub const MAX_NAME: usize = 512;

/// What one type of a table is charged against a read's memory limit besides its
/// [`TagType`]: its facts, and its class in the schema extracted from the table.
const TYPE_COST: u64 = 512;
/// What one member of a type body is charged besides its [`TagMember`] and name: its member
/// in the extracted schema, its flattened member and its record binding.
const MEMBER_COST: u64 = 320;

/// A template parameter: `t…` names take a type index, `v…` names an integer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Parameter name, with its `t`/`v` kind prefix.
    pub name: String,
    /// Type index or integer value.
    pub value: u64,
}

/// One member of a type body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagMember {
    /// Member name.
    pub name: String,
    /// Member flags (0x20–0x25; 0xA0 in 2022 carries `extra`).
    pub flags: u64,
    /// The extra varint of flag 0x80, kept verbatim.
    pub extra: Option<u64>,
    /// Offset in the type.
    pub offset: u64,
    /// Type index.
    pub ty: u64,
}

/// The body of a type; every field is optional, as `opt`'s bits say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// Parent type index (0 for none).
    pub parent: u64,
    /// Format word: the low byte is the kind (void, opaque, bool, string, int, float,
    /// pointer, record, array, tuple).
    pub format: Option<u64>,
    /// Pointee, element or storage type index.
    pub subtype: Option<u64>,
    /// Version.
    pub version: Option<u64>,
    /// Size and alignment (the alignment's low byte; high bits kept verbatim).
    pub size_align: Option<(u64, u64)>,
    /// Type flags.
    pub flags: Option<u64>,
    /// Members (present but possibly empty).
    pub members: Option<Vec<TagMember>>,
    /// Interfaces: type index and offset.
    pub interfaces: Option<Vec<(u64, u64)>>,
    /// Attribute varint (never seen in the corpus).
    pub attribute: Option<u64>,
}

/// One type of the table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TagType {
    /// Type name.
    pub name: String,
    /// Template parameters.
    pub params: Vec<Param>,
    /// Body, when the file describes one.
    pub body: Option<Body>,
    /// THSH hash, when the file stores one.
    pub hash: Option<u32>,
}

/// The decoded TYPE section. Index 0 is the implicit null type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeTable {
    /// Types by index; `types[0]` is the null type.
    pub types: Vec<TagType>,
    /// Type indices in TBOD/TBDY order.
    pub body_order: Vec<u64>,
    /// Type indices in THSH order.
    pub hash_order: Vec<u64>,
}

/// The NUL-separated strings of `sec`, charged to `budget` before they are made.
fn strings(data: &[u8], sec: &Section, budget: &mut Budget) -> Result<Vec<String>> {
    let (o, n) = sec.payload();
    let bytes = &data[o as usize..(o + n) as usize];
    let count = bytes.iter().filter(|&&b| b == 0).count() as u64 + 1;
    budget.charge(
        count.saturating_mul(std::mem::size_of::<String>() as u64) + n,
        o,
    )?;
    Ok(bytes
        .split(|&b| b == 0)
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect())
}

struct Reader<'a, 'b> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    tag: &'static str,
    budget: &'b mut Budget,
}

impl Reader<'_, '_> {
    /// Charges `count` entries of `each` bytes found at `at`.
    fn charge(&mut self, count: u64, each: u64, at: u64) -> Result<()> {
        self.budget
            .charge_n(count, each, at)
            .map_err(|e| e.in_(self.tag))
    }

    fn v(&mut self) -> Result<u64> {
        varint::read(self.data, &mut self.pos, self.base).map_err(|e| e.in_(self.tag))
    }

    fn index(&mut self, limit: usize, what: &str) -> Result<u64> {
        let at = self.base + self.pos as u64;
        let v = self.v()?;
        if v as usize >= limit {
            return Err(
                Error::invalid(at, format!("{what} {v} is out of range (< {limit})")).in_(self.tag),
            );
        }
        Ok(v)
    }

    /// The string of `table` the next varint names, charged (three times: the schema
    /// extracted from the table and the graph's messages copy names again) before it is
    /// copied.
    fn name(&mut self, table: &[String], what: &str, kind: NameKind) -> Result<String> {
        let at = self.base + self.pos as u64;
        let s = &table[self.index(table.len(), what)? as usize];
        names::check(kind, s).map_err(|m| Error::invalid(at, m).in_(self.tag))?;
        self.charge(3, s.len() as u64, at)?;
        Ok(s.clone())
    }

    fn count(&mut self) -> Result<usize> {
        let at = self.base + self.pos as u64;
        let v = self.v()?;
        // Every counted entry takes at least one byte: bound counts by what is left.
        if v as usize > self.data.len() - self.pos {
            return Err(Error::invalid(
                at,
                format!(
                    "count {v} exceeds the {} bytes left",
                    self.data.len() - self.pos
                ),
            )
            .in_(self.tag));
        }
        Ok(v as usize)
    }

    fn rest_is_padding(&self) -> bool {
        self.data[self.pos..].iter().all(|&b| b == 0)
    }
}

impl<'a, 'b> Reader<'a, 'b> {
    /// A reader over the payload of subsection `s`.
    fn of(data: &'a [u8], s: &Section, tag: &'static str, budget: &'b mut Budget) -> Self {
        let (o, n) = s.payload();
        Reader {
            data: &data[o as usize..(o + n) as usize],
            pos: 0,
            base: o,
            tag,
            budget,
        }
    }
}

/// TNAM: v(N+1), then the name, parameter count and parameters of types 1..N. The types
/// are charged before they are allocated: a count that fits the bytes left may still ask
/// for far more memory than the file is worth. Gives the types and N.
fn type_names(r: &mut Reader<'_, '_>, tstr: &[String]) -> Result<(Vec<TagType>, usize)> {
    let at = r.base;
    let n = r.count()?;
    r.charge(
        n.max(1) as u64,
        std::mem::size_of::<TagType>() as u64 + TYPE_COST,
        at,
    )?;
    let mut types = vec![TagType::default(); n.max(1)];
    for t in types.iter_mut().skip(1) {
        t.name = r.name(tstr, "type name", NameKind::TypeName)?;
        let at = r.base + r.pos as u64;
        let params = r.count()?;
        r.charge(params as u64, std::mem::size_of::<Param>() as u64 + 32, at)?;
        for _ in 0..params {
            let name = r.name(tstr, "parameter name", NameKind::Member)?;
            let value = if name.starts_with('t') {
                r.index(n, "template type")?
            } else {
                r.v()?
            };
            t.params.push(Param { name, value });
        }
    }
    if !r.rest_is_padding() {
        return Err(Error::invalid(
            r.base + r.pos as u64,
            "TNAM ends in non-zero bytes",
        ));
    }
    Ok((types, n))
}

/// TBOD: body records until the padding; gives the types in the order their bodies come.
fn bodies(
    r: &mut Reader<'_, '_>,
    types: &mut [TagType],
    n: usize,
    fstr: &[String],
) -> Result<Vec<u64>> {
    let mut body_order = Vec::new();
    while r.pos < r.data.len() {
        let at = r.base + r.pos as u64;
        let ti = r.index(n, "type")?;
        if ti == 0 {
            if !r.rest_is_padding() {
                return Err(Error::invalid(at, "TBOD record for the null type"));
            }
            break;
        }
        let b = body(r, n, fstr, at)?;
        if types[ti as usize].body.replace(b).is_some() {
            return Err(Error::invalid(at, format!("type {ti} has two bodies")).in_("TBOD"));
        }
        body_order.push(ti);
    }
    Ok(body_order)
}

/// One TBOD record after its type index: the parent, then what its `opt` bits say follows.
fn body(r: &mut Reader<'_, '_>, n: usize, fstr: &[String], at: u64) -> Result<Body> {
    let mut b = Body {
        parent: r.index(n, "parent")?,
        ..Body::default()
    };
    let opt = r.v()?;
    if opt & !0xFF != 0 {
        return Err(Error::invalid(at, format!("unknown body option bits 0x{opt:X}")).in_("TBOD"));
    }
    if opt & 0x01 != 0 {
        b.format = Some(r.v()?);
    }
    if opt & 0x02 != 0 {
        b.subtype = Some(r.index(n, "subtype")?);
    }
    if opt & 0x04 != 0 {
        b.version = Some(r.v()?);
    }
    if opt & 0x08 != 0 {
        b.size_align = Some((r.v()?, r.v()?));
    }
    if opt & 0x10 != 0 {
        b.flags = Some(r.v()?);
    }
    if opt & 0x20 != 0 {
        b.members = Some(body_members(r, n, fstr)?);
    }
    if opt & 0x40 != 0 {
        let at = r.base + r.pos as u64;
        let count = r.count()?;
        r.charge(count as u64, 16, at)?;
        let mut ifaces = Vec::with_capacity(count);
        for _ in 0..count {
            ifaces.push((r.index(n, "interface")?, r.v()?));
        }
        b.interfaces = Some(ifaces);
    }
    if opt & 0x80 != 0 {
        b.attribute = Some(r.v()?);
    }
    Ok(b)
}

/// A body's members: a count, then name, flags, (extra), offset and type of each.
fn body_members(r: &mut Reader<'_, '_>, n: usize, fstr: &[String]) -> Result<Vec<TagMember>> {
    let at = r.base + r.pos as u64;
    let count = r.count()?;
    r.charge(
        count as u64,
        std::mem::size_of::<TagMember>() as u64 + MEMBER_COST,
        at,
    )?;
    let mut members = Vec::with_capacity(count);
    for _ in 0..count {
        let name = r.name(fstr, "member name", NameKind::Member)?;
        let flags = r.v()?;
        let extra = if flags & 0x80 != 0 {
            Some(r.v()?)
        } else {
            None
        };
        members.push(TagMember {
            name,
            flags,
            extra,
            offset: r.v()?,
            ty: r.index(n, "member type")?,
        });
    }
    Ok(members)
}

/// THSH: v(count), then a type index and its u32 LE hash; gives the types in that order.
fn hashes(r: &mut Reader<'_, '_>, types: &mut [TagType], n: usize) -> Result<Vec<u64>> {
    let mut hash_order = Vec::new();
    for _ in 0..r.count()? {
        let ti = r.index(n, "hashed type")?;
        let at = r.base + r.pos as u64;
        let h = r
            .data
            .get(r.pos..r.pos + 4)
            .ok_or_else(|| Error::truncated(at, 4, 0))?;
        types[ti as usize].hash = Some(u32::from_le_bytes([h[0], h[1], h[2], h[3]]));
        r.pos += 4;
        hash_order.push(ti);
    }
    Ok(hash_order)
}

impl TypeTable {
    /// Decodes the TYPE section `ty` of `data`, within the default [`Limits`].
    ///
    /// # Errors
    /// As [`TypeTable::parse_within`].
    pub fn parse(data: &[u8], ty: &Section) -> Result<TypeTable> {
        let mut budget = Budget::new(&Limits::default(), data.len() as u64);
        Self::parse_within(data, ty, &mut budget)
    }

    /// Decodes the TYPE section `ty` of `data`, charging `budget` for every type, member
    /// and string before it is made (and for what the reader later derives from each:
    /// facts, schema classes and members, bindings).
    ///
    /// # Errors
    /// A missing subsection, an index out of range, a count larger than the bytes left,
    /// non-zero padding, an `opt` bit hk does not know, or a table past the memory limit —
    /// each with its offset.
    pub fn parse_within(data: &[u8], ty: &Section, budget: &mut Budget) -> Result<TypeTable> {
        let sub = |tags: &[&[u8; 4]]| -> Result<&Section> {
            tags.iter()
                .find_map(|t| ty.child(t))
                .ok_or_else(|| Error::missing(ty.offset, "TYPE", String::from_utf8_lossy(tags[0])))
        };
        let tstr = strings(data, sub(&[b"TSTR", b"TST1"])?, budget)?;
        let fstr = strings(data, sub(&[b"FSTR", b"FST1"])?, budget)?;
        let names = sub(&[b"TNAM", b"TNA1"])?;
        let (mut types, n) = type_names(&mut Reader::of(data, names, "TNAM", budget), &tstr)?;
        let mut r = Reader::of(data, sub(&[b"TBOD", b"TBDY"])?, "TBOD", budget);
        let body_order = bodies(&mut r, &mut types, n, &fstr)?;
        let mut r = Reader::of(data, sub(&[b"THSH"])?, "THSH", budget);
        let hash_order = hashes(&mut r, &mut types, n)?;
        let table = TypeTable {
            types,
            body_order,
            hash_order,
        };
        table.charge_names(names.offset, budget)?;
        Ok(table)
    }

    /// Full names are spelled out for classes, member classes and messages: charged, and
    /// bounded (template arguments can make a name of a few bytes of TNAM spell out
    /// thousands of characters).
    fn charge_names(&self, names_at: u64, budget: &mut Budget) -> Result<()> {
        let lengths = self.name_lengths();
        if let Some(t) = (1..lengths.len()).find(|&t| lengths[t] > MAX_NAME as u64) {
            return Err(Error::invalid(
                names_at,
                format!(
                    "type {t} has a full name of {} characters or more, longer than {MAX_NAME}: {}",
                    lengths[t],
                    self.full_name(t as u64)
                ),
            )
            .in_("TNAM"));
        }
        let members: u64 = self
            .types
            .iter()
            .filter_map(|t| t.body.as_ref()?.members.as_ref())
            .flatten()
            .map(|m| lengths.get(m.ty as usize).copied().unwrap_or(0))
            .sum();
        budget.charge(2 * (lengths.iter().sum::<u64>() + members), names_at)
    }

    /// The length of every type's [`TypeTable::full_name`], at most (a value's digits count
    /// 20), counted up to a little past [`MAX_NAME`] and to 16 nested arguments.
    fn name_lengths(&self) -> Vec<u64> {
        fn len(table: &TypeTable, t: usize, memo: &mut [Option<u64>], depth: u32) -> u64 {
            if let Some(Some(n)) = memo.get(t) {
                return *n;
            }
            let Some(ty) = table.types.get(t) else {
                return 4;
            };
            if depth > 16 {
                return 3;
            }
            let mut n = ty.name.len() as u64;
            if !ty.params.is_empty() {
                n += 2 * ty.params.len() as u64;
                for p in &ty.params {
                    // Past the bound the exact length does not matter: stopping keeps the
                    // work per name proportional to the bound.
                    if n > MAX_NAME as u64 {
                        break;
                    }
                    n = n.saturating_add(if p.name.starts_with('t') {
                        len(table, p.value as usize, memo, depth + 1)
                    } else {
                        20
                    });
                }
            }
            // A name is final only when no argument was cut by the nesting bound.
            if depth == 0 {
                memo[t] = Some(n);
            }
            n
        }
        let mut memo = vec![None; self.types.len()];
        for t in 0..self.types.len() {
            len(self, t, &mut memo, 0);
        }
        memo.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// The full name of type `i`, with its template arguments: `hkArray<hkaBone, ...>`.
    /// A corrupted table can make a type its own template argument, or give types many
    /// arguments that have many arguments: arguments nest at most 16 deep and a name stops
    /// at [`MAX_NAME`] bytes (`…` where it was cut).
    pub fn full_name(&self, i: u64) -> String {
        let mut out = String::new();
        self.name_at(i, 0, &mut out);
        out
    }

    fn name_at(&self, i: u64, depth: u32, out: &mut String) {
        use std::fmt::Write as _;
        if depth > 16 || out.len() > MAX_NAME {
            if !out.ends_with('…') {
                out.push('…');
            }
            return;
        }
        let Some(t) = self.types.get(i as usize) else {
            let _ = write!(out, "#{i}");
            return;
        };
        out.push_str(&t.name);
        if t.params.is_empty() {
            return;
        }
        out.push('<');
        for (k, p) in t.params.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            if out.len() > MAX_NAME {
                out.push('…');
                break;
            }
            if p.name.starts_with('t') {
                self.name_at(p.value, depth + 1, out);
            } else {
                let _ = write!(out, "{}", p.value);
            }
        }
        out.push('>');
    }
}

/// Format kinds (the low byte of the format word; docs/tagfile-format.md §3).
pub mod kind {
    /// No value.
    pub const VOID: u64 = 0;
    /// Opaque bytes.
    pub const OPAQUE: u64 = 1;
    /// Boolean.
    pub const BOOL: u64 = 2;
    /// Any string form (bit 7 distinguishes them).
    pub const STRING: u64 = 3;
    /// Integer.
    pub const INT: u64 = 4;
    /// Floating point.
    pub const FLOAT: u64 = 5;
    /// Pointer.
    pub const POINTER: u64 = 6;
    /// Record (class or struct).
    pub const RECORD: u64 = 7;
    /// Array.
    pub const ARRAY: u64 = 8;
    /// Fixed-size tuple.
    pub const TUPLE: u64 = 0x28;
}

/// Type facts resolved through parent chains: a typedef inherits format, subtype and size.
/// The reader, the writer and schema extraction all ask these.
impl TypeTable {
    /// The body of type `t`, if it has one.
    pub fn body_of(&self, t: u64) -> Option<&Body> {
        self.types.get(t as usize).and_then(|x| x.body.as_ref())
    }

    fn eff<T>(&self, mut t: u64, get: impl Fn(&Body) -> Option<T>) -> Option<T> {
        // Bounded: a corrupted table may make a type its own parent.
        for _ in 0..64 {
            let b = self.body_of(t)?;
            if let Some(v) = get(b) {
                return Some(v);
            }
            if b.parent == 0 {
                return None;
            }
            t = b.parent;
        }
        None
    }

    /// The size of type `t`, through its parent chain.
    pub fn size_of(&self, t: u64) -> u64 {
        self.eff(t, |b| b.size_align.map(|s| s.0)).unwrap_or(0)
    }

    /// The alignment of type `t` (the low byte of the stored value).
    pub fn align_of(&self, t: u64) -> u64 {
        self.eff(t, |b| b.size_align.map(|s| s.1 & 0xFF))
            .unwrap_or(1)
            .max(1)
    }

    /// The format word of type `t`, through its parent chain.
    pub fn format_of(&self, t: u64) -> u64 {
        self.eff(t, |b| b.format).unwrap_or(0)
    }

    /// The format kind of type `t` (low byte of the format word; [`kind::STRING`] for every
    /// string form).
    pub fn kind_of(&self, t: u64) -> u64 {
        let k = self.format_of(t) & 0xFF;
        if k & 0x7F == kind::STRING {
            kind::STRING
        } else {
            k
        }
    }

    /// The pointee, element or storage type of `t`, through its parent chain.
    pub fn subtype_of(&self, t: u64) -> u64 {
        self.eff(t, |b| b.subtype).unwrap_or(0)
    }

    /// The members of record `t`'s full layout, root class first.
    pub fn members_of(&self, t: u64) -> Vec<&TagMember> {
        let mut chain = Vec::new();
        let mut cur = t;
        for _ in 0..64 {
            let Some(b) = self.body_of(cur) else { break };
            chain.push(b);
            if b.parent == 0 {
                break;
            }
            cur = b.parent;
        }
        chain
            .iter()
            .rev()
            .flat_map(|b| b.members.iter().flatten())
            .collect()
    }

    /// The element count of tuple `t` (the format word's bits above the kind byte).
    pub fn tuple_count(&self, t: u64) -> u64 {
        self.format_of(t) >> 8
    }

    /// Width in bytes and sign of the values integer type `t` stores: the format word's
    /// width bits (0x2000, 0x4000, 0x8000, 0x10000 for 1, 2, 4, 8 bytes), else its size.
    ///
    /// # Errors
    /// A type whose size is not 1, 2, 4 or 8 bytes, or narrower than its width.
    pub fn int_format(&self, t: u64) -> Result<(u8, bool), String> {
        let size = self.int_size(t)?;
        let f = self.format_of(t);
        let width = match f & 0x1F000 {
            0x2000 => 1,
            0x4000 => 2,
            0x8000 => 4,
            0x10000 => 8,
            _ => size,
        };
        if width > size {
            return Err(format!(
                "{} stores {width}-byte integers in {size} bytes",
                self.full_name(t)
            ));
        }
        Ok((width, f & 0x200 != 0))
    }

    /// The size of bool or integer type `t`, which must be an integer width.
    ///
    /// # Errors
    /// A size other than 1, 2, 4 or 8 bytes.
    pub fn int_size(&self, t: u64) -> Result<u8, String> {
        match self.size_of(t) {
            s @ (1 | 2 | 4 | 8) => Ok(s as u8),
            s => Err(format!(
                "{} is {s} bytes, not an integer width",
                self.full_name(t)
            )),
        }
    }

    /// How many consecutive `f32`s type `t` is, when it is nothing else: 1 for a 4-byte
    /// float, `n × k` for a tuple of `n` elements that are `k` floats each (`hkVector4f`: 4,
    /// `hkMatrix3f`: 12, a tuple of 4 `hkVector4f`: 16). At most 16; `None` otherwise.
    pub fn float_run(&self, t: u64) -> Option<u64> {
        self.float_run_at(t, 0)
    }

    fn float_run_at(&self, t: u64, depth: u32) -> Option<u64> {
        if depth > 8 {
            return None;
        }
        match self.kind_of(t) {
            kind::FLOAT if self.size_of(t) == 4 => Some(1),
            kind::TUPLE => {
                let sub = self.subtype_of(t);
                let k = self.float_run_at(sub, depth + 1)?;
                let total = self.tuple_count(t).checked_mul(k)?;
                (self.size_of(sub) == 4 * k && total <= 16 && self.size_of(t) >= 4 * total)
                    .then_some(total)
            }
            _ => None,
        }
    }

    /// The type arguments (`tT`, `tAllocator`, ...) of type `t`.
    pub fn type_params_of(&self, t: u64) -> Vec<u64> {
        self.types
            .get(t as usize)
            .map(|x| {
                x.params
                    .iter()
                    .filter(|p| p.name.starts_with('t'))
                    .map(|p| p.value)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// What the reader and writer ask of one type, through its parent chain: the answers of
/// [`TypeTable::size_of`], [`TypeTable::kind_of`] and the rest, computed once per table so
/// that no value walks a parent chain.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fact {
    pub size: u64,
    pub kind: u64,
    pub subtype: u64,
    pub tuple_count: u64,
    /// [`TypeTable::int_format`] of an integer or bool type, when it succeeds.
    pub int: Option<(u8, bool)>,
    /// [`TypeTable::int_size`] of an integer or bool type, when it succeeds.
    pub int_size: Option<u8>,
    pub float_run: Option<u64>,
}

/// What the reader and writer ask of every type of one table (sizes, kinds, integer
/// formats, float runs through the parent chains), computed once per table and shared by
/// the files that carry the same table.
#[derive(Debug, Default)]
pub struct Facts(Vec<Fact>);

impl Facts {
    /// The facts of `table`.
    pub fn new(table: &TypeTable) -> Self {
        Facts(
            (0..table.types.len() as u64)
                .map(|t| {
                    let kind = table.kind_of(t);
                    // Integer facts only for the kinds that have them (their errors build
                    // messages).
                    let int_like = matches!(kind, kind::INT | kind::BOOL);
                    Fact {
                        size: table.size_of(t),
                        kind,
                        subtype: table.subtype_of(t),
                        tuple_count: table.tuple_count(t),
                        int: int_like.then(|| table.int_format(t).ok()).flatten(),
                        int_size: int_like.then(|| table.int_size(t).ok()).flatten(),
                        float_run: table.float_run(t),
                    }
                })
                .collect(),
        )
    }

    /// The facts of type `t` (those of a type without a body past the table's end).
    #[inline]
    pub(crate) fn get(&self, t: u64) -> Fact {
        usize::try_from(t)
            .ok()
            .and_then(|i| self.0.get(i))
            .copied()
            .unwrap_or_default()
    }
}
