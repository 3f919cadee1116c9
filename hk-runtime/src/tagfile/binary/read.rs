//! Reading the stream: the file information, class definitions and objects
//! (docs/binary-tagfile-format.md §2-§5), then the schema of the classes and the graph of
//! the objects. Values are decoded by the definitions' type codes; members the bitfield
//! leaves out take their zero value once the schema says what that is.
//!
//! The read works within the [`Limits`] of its [`ReadOptions`]: objects are counted as they
//! come; each object's values (its members, nested structs and tuples) are counted from its
//! class's definitions before it is read, and again from the schema before its left-out
//! members are filled in (`max_expansion`); structs and arrays nest at most `max_depth`
//! deep; every definition, object, array, string, reference and lenient-mode violation is
//! charged to the memory budget before it is allocated, and so is the schema made of the
//! definitions (`cost`). Members left out of a bitfield cost a bit, and struct elements
//! whose columns are all left out cost nothing, so the budget, not the bytes left, bounds
//! such arrays.
//!
//! Class definitions, and what the reader derives from each, are read in `classes`.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;
use std::sync::Arc;

use super::cost;
use super::defs::{self, tag, Base, ClassDef, MemberDef, VersionRules};
use super::input::{Input, Step};
use super::zero::{always_written, extra_bytes, fill, into_values, worth, VALUE};
use super::{BinaryTagfile, Predicates, Read};
use crate::error::PathSegment;
use crate::error::{Error, ReadError, Result};
use crate::graph::{Floats, Graph, ObjectId, Ptr, Value};
use crate::limits::ReadOptions;
use crate::limits::{Budget, Limits};
use crate::packfile::engine::read::Violation;
use crate::schema::names::NameKind;
use crate::schema::{ClassId, Schema};

/// A definition's members and its ancestors', root first: (definition, member) pairs.
pub(super) type Flat = Rc<[(usize, usize)]>;

/// Bytes the reader's own state may take besides what it charges as it goes (the path
/// being read, the file information, an error's text).
const READER_STATE: u64 = 64 << 10;

/// Bytes per object besides its values: its entry in the reader's list (which may double)
/// and in the graph.
const OBJECT_ENTRY: u64 = 3 * 40 + 32;

/// Bytes per object reference kept to check once every object is known, besides its path:
/// its entry in a list that may double.
const REF_ENTRY: u64 = 3 * 40;

pub(super) struct Reader<'a> {
    pub input: Input<'a>,
    pub rules: VersionRules,
    pub limits: Limits,
    pub defs: Vec<Rc<ClassDef>>,
    pub by_name: HashMap<String, usize>,
    /// Ancestors of each definition (at most [`crate::limits::HARD_MAX_DEPTH`]).
    pub ancestors: Vec<u32>,
    pub flat: Vec<Option<Flat>>,
    /// Values one object of each definition expands into, once computed from the classes
    /// defined then (kept: a class defined later is counted when the schema is made).
    pub expansion: Vec<Option<u64>>,
    /// Definitions whose expansion is being counted (a struct member met again on the way
    /// contains its class by value).
    pub counting: Vec<bool>,
    /// Each object's definition, offset and values.
    pub objects: Vec<(usize, u64, Vec<Value>)>,
    /// Object references to check once every object is known: offset, number, path.
    refs: Vec<(usize, u32, Vec<Step>)>,
    pub widths: BTreeMap<(usize, usize), u8>,
}

/// The tagged records of `data`, read into the graph over the schema `schema_of` makes of
/// the file's class definitions (a cache may hand back one it made before).
pub(super) fn read(
    data: &[u8],
    opts: ReadOptions,
    schema_of: &dyn Fn(&BinaryTagfile, usize) -> Result<Arc<Schema>>,
) -> Result<Read> {
    if !super::is_binary_tagfile(data) {
        return Err(Error::read(ReadError::BadMagic).at(0));
    }
    let limits = opts.limits;
    let mut budget = Budget::new(&limits, data.len() as u64);
    budget.charge(READER_STATE, 8)?;
    let mut input = Input::new(data, &opts, budget);
    let (rules, sdk, predicates) = header(&mut input)?;
    let mut r = Reader {
        input,
        rules,
        limits,
        defs: Vec::new(),
        by_name: HashMap::new(),
        ancestors: Vec::new(),
        flat: Vec::new(),
        expansion: Vec::new(),
        counting: Vec::new(),
        objects: Vec::new(),
        refs: Vec::new(),
        widths: BTreeMap::new(),
    };
    let end = r.records().map_err(|e| r.attach(e))?;
    if r.objects.is_empty() {
        return Err(Error::invalid(
            end as u64,
            "the stream ends before any object",
        ));
    }
    let n = r.objects.len();
    for (at, id, path) in std::mem::take(&mut r.refs) {
        if id as usize > n {
            r.input.path = path;
            let e = Error::invalid(
                at as u64,
                format!("reference to object #{}; the file has {n} objects", id - 1),
            );
            return Err(r.attach(e));
        }
    }
    let soft = std::mem::take(&mut r.input.soft);
    // Each violation's path spelled out: the names on it, charged before they are copied.
    let mut violations = Vec::with_capacity(soft.len());
    for s in soft {
        let len = r.path_len(&s.path);
        r.input.budget.charge(len, s.offset)?;
        violations.push(Violation {
            offset: s.offset,
            path: r
                .path_text(&s.path)
                .iter()
                .map(PathSegment::to_string)
                .collect::<Vec<_>>()
                .join(" > "),
            message: s.message,
            rule: "binary tagfile invariants",
            count: 1,
        });
    }
    // The definitions move into the container facts: nothing else holds them now.
    let classes = std::mem::take(&mut r.defs)
        .into_iter()
        .map(|d| Rc::try_unwrap(d).unwrap_or_else(|d| ClassDef::clone(&d)))
        .collect();
    let file = BinaryTagfile {
        version: rules.version,
        sdk,
        predicates,
        classes,
        int_widths: std::mem::take(&mut r.widths),
        strings: r.input.strings() - 2,
        trailing: r.input.rest().to_vec(),
    };
    let end = end as u64;
    cost::charge_schema(&file, &mut r.input.budget, end).map_err(|e| {
        e.in_(format!(
            "the schema of {} class definitions",
            file.classes.len()
        ))
    })?;
    let schema = schema_of(&file, limits.depth()).map_err(|e| e.at(8))?;
    let mut objects = Vec::with_capacity(n);
    for (k, (def, at, mut values)) in std::mem::take(&mut r.objects).into_iter().enumerate() {
        let class = ClassId(def as u32);
        // Counted again with every class defined (a lenient read may define a struct
        // member's class after objects of the class holding it), before the left-out
        // members are filled in.
        limits
            .check_expansion(schema.values_of(class)?, at)
            .map_err(|e| e.in_(PathSegment::object(k, &file.classes[def].name)))?;
        for (m, v) in schema.members(class)?.iter().zip(&mut values) {
            fill(&schema, &m.shape, v, &mut r.input.budget, end)?;
        }
        objects.push(crate::graph::Object { class, values });
    }
    let graph = Graph::from_objects(schema, objects, ObjectId(0));
    graph.check()?;
    Ok(Read {
        file,
        graph,
        violations,
    })
}

/// The file information: tag, version, and what the version adds.
fn header(input: &mut Input<'_>) -> Result<(VersionRules, Option<String>, Option<Predicates>)> {
    let at = input.pos as u64;
    let t = input.varint()?;
    if t != tag::FILE_INFO {
        return Err(Error::invalid(
            at,
            format!("the stream starts with tag {t}, not file information (1)"),
        ));
    }
    let at = input.pos as u64;
    let version = input.int32("version")?;
    let rules = u32::try_from(version)
        .ok()
        .and_then(defs::rules)
        .ok_or_else(|| {
            Error::read(ReadError::Unsupported(format!(
                "binary tagfile version {version} (hk reads versions 3, 4 and 5)"
            )))
            .at(at)
        })?;
    let sdk = if rules.sdk_string {
        let at = input.pos as u64;
        let sdk = input.name_of(NameKind::Sdk, "the SDK string")?;
        // Its copies: the container facts, the schema's generation and name, a cache key.
        input.budget.charge_n(sdk.len() as u64, 4, at)?;
        Some(sdk)
    } else {
        None
    };
    let predicates = if rules.predicates {
        let max = input.u16()?;
        let at = input.pos as u64;
        let n = input.u16()?;
        if u64::from(n) * 2 > input.left() {
            return Err(Error::count(at, u64::from(n), 2, input.left()));
        }
        let verified = (0..n).map(|_| input.u16()).collect::<Result<_>>()?;
        Some(Predicates { max, verified })
    } else {
        None
    };
    Ok((rules, sdk, predicates))
}

impl Reader<'_> {
    /// Records until the end tag; returns the end tag's offset.
    fn records(&mut self) -> Result<usize> {
        loop {
            let at = self.input.pos;
            match self.input.varint()? {
                tag::METADATA => self.metadata()?,
                tag::OBJECT_REMEMBER => self.object()?,
                tag::FILE_END => return Ok(at),
                tag::FILE_INFO => {
                    return Err(Error::invalid(
                        at as u64,
                        "a second file information record",
                    ))
                }
                t => {
                    return Err(Error::invalid(
                        at as u64,
                        format!("tag {t} is not one versions 3-5 write (2 class, 4 object, 7 end)"),
                    ))
                }
            }
        }
    }

    /// `e` with the path being read when it happened.
    pub fn attach(&self, mut e: Error) -> Error {
        for p in self.path_text(&self.input.path).into_iter().rev() {
            e = e.in_(p);
        }
        e
    }

    /// At least the bytes of `path` spelled out by [`Reader::path_text`] and joined
    /// (with the strings made on the way).
    fn path_len(&self, path: &[Step]) -> u64 {
        path.iter()
            .map(|s| match *s {
                Step::Object(_, d) => 48 + 2 * self.defs[d].name.len() as u64,
                Step::Member(d, m) => {
                    let names = self.defs[d].name.len() + self.defs[d].members[m].name.len();
                    48 + 2 * names as u64
                }
                Step::Index(_) => 48,
            })
            .sum()
    }

    fn path_text(&self, path: &[Step]) -> Vec<PathSegment> {
        path.iter()
            .map(|s| match *s {
                Step::Object(n, d) => PathSegment::object(n - 1, &self.defs[d].name),
                Step::Member(d, m) => {
                    PathSegment::member(&self.defs[d].name, &self.defs[d].members[m].name)
                }
                Step::Index(i) => PathSegment::index(i),
            })
            .collect()
    }

    fn object(&mut self) -> Result<()> {
        let number = self.objects.len() as u32 + 1;
        let at = self.input.pos as u64;
        let c = self.input.int32("the class number")?;
        let def = usize::try_from(c)
            .ok()
            .filter(|c| (1..=self.defs.len()).contains(c))
            .ok_or_else(|| {
                Error::invalid(
                    at,
                    format!(
                        "object #{} of class number {c}: {} classes are defined",
                        number - 1,
                        self.defs.len()
                    ),
                )
            })?
            - 1;
        self.limits.check_objects(u64::from(number), at)?;
        self.input.path.push(Step::Object(number, def));
        let count = self.expansion(def, 0)?;
        self.limits.check_expansion(count, at)?;
        // The object's entries; its values are charged as they are read.
        self.input.budget.charge(OBJECT_ENTRY, at)?;
        let values = self.body(def, 0)?;
        self.input.path.pop();
        self.objects.push((def, at, values));
        Ok(())
    }

    /// Charges `n` values about to be made.
    pub fn charge(&mut self, n: u64) -> Result<()> {
        self.input.budget.charge_n(n, VALUE, self.input.pos as u64)
    }

    pub fn too_deep(&self, depth: usize) -> Result<()> {
        if depth > self.limits.depth() {
            return Err(self.limits.too_deep(self.input.pos as u64));
        }
        Ok(())
    }

    /// An object or struct body: the member bitfield, then each present member.
    fn body(&mut self, def: usize, depth: usize) -> Result<Vec<Value>> {
        self.too_deep(depth)?;
        let flat = self.flat(def)?;
        self.charge(flat.len() as u64)?;
        let present = self.input.bits(flat.len())?;
        let mut values = Vec::with_capacity(flat.len());
        for (k, &(d, m)) in flat.iter().enumerate() {
            let owner = Rc::clone(&self.defs[d]);
            let member = &owner.members[m];
            self.input.path.push(Step::Member(d, m));
            let at = self.input.pos;
            let v = if present[k] {
                let v = self.value(member, (d, m), depth)?;
                if !worth(&member.ty, &v) {
                    self.input.soft(at, || {
                        format!("present with {}, which Havok leaves out", v.describe())
                    })?;
                }
                v
            } else {
                if always_written(&member.ty) {
                    self.input.soft(at, || {
                        "left out, though Havok always writes such a member".to_string()
                    })?;
                }
                Value::None
            };
            self.input.path.pop();
            values.push(v);
        }
        Ok(values)
    }

    /// A present member's value.
    pub fn value(
        &mut self,
        member: &MemberDef,
        key: (usize, usize),
        depth: usize,
    ) -> Result<Value> {
        let ty = member.ty;
        if ty.base == Base::Void {
            return Err(Error::invalid(
                self.input.pos as u64,
                "a void member is marked present",
            ));
        }
        if ty.tuple > 0 {
            let items = self.items(member, key, ty.tuple as usize, depth)?;
            return Ok(Value::CArray(into_values(items)));
        }
        if ty.array {
            let n = self.input.count("the array count", ty.base.min_bytes())?;
            return Ok(Value::Array(self.items(member, key, n, depth)?));
        }
        // What a vector of 8 floats or a matrix holds besides its value.
        let at = self.input.pos as u64;
        self.input.budget.charge(extra_bytes(ty.base), at)?;
        Ok(match ty.base {
            Base::Byte => Value::UInt(u64::from(self.input.byte()?)),
            Base::Int => Value::Int(self.input.varint()?),
            Base::Real => Value::Real(self.input.f32()?),
            Base::Vec8 => {
                let f = self.floats::<8>()?;
                Value::CArray(f.iter().map(|x| Value::Real(*x)).collect())
            }
            Base::Vec4 => Value::Floats(Floats::from(self.floats::<4>()?)),
            Base::Vec12 => Value::Floats(Floats::from(self.floats::<12>()?)),
            Base::Vec16 => Value::Floats(Floats::from(self.floats::<16>()?)),
            Base::Object => Value::Pointer(self.reference()?),
            Base::Struct => {
                let def = self.struct_def(member)?;
                Value::Struct(self.body(def, depth + 1)?)
            }
            Base::CString => self.string_value()?,
            Base::Void => Value::None,
        })
    }

    pub fn floats<const N: usize>(&mut self) -> Result<[f32; N]> {
        let mut out = [0.0; N];
        for x in &mut out {
            *x = self.input.f32()?;
        }
        Ok(out)
    }

    pub fn struct_def(&self, member: &MemberDef) -> Result<usize> {
        let name = member.class.as_deref().unwrap_or_default();
        self.by_name.get(name).copied().ok_or_else(|| {
            Error::invalid(
                self.input.pos as u64,
                format!("struct class {name} is not defined before its first value"),
            )
        })
    }

    pub fn reference(&mut self) -> Result<Option<Ptr>> {
        let at = self.input.pos;
        let id = self.input.int32("an object reference")?;
        let id = u32::try_from(id)
            .map_err(|_| Error::invalid(at as u64, format!("object reference {id} is negative")))?;
        if id == 0 {
            return Ok(None);
        }
        let path = (self.input.path.len() * std::mem::size_of::<Step>()) as u64;
        self.input.budget.charge(REF_ENTRY + path, at as u64)?;
        self.refs.push((at, id, self.input.path.clone()));
        Ok(Some(Ptr::Object(ObjectId(id - 1))))
    }

    pub fn string_value(&mut self) -> Result<Value> {
        let at = self.input.pos as u64;
        let s = self.input.string()?;
        let len = s.map_or(0, <[u8]>::len) as u64;
        self.input.budget.charge(len, at)?;
        Ok(match s {
            None => Value::String(None),
            Some(b) if b.contains(&0) => {
                return Err(Error::invalid(at, "a string holds a NUL"));
            }
            Some(b) => match std::str::from_utf8(b) {
                Ok(s) => Value::String(Some(s.to_string())),
                Err(_) => Value::Bytes(b.to_vec()),
            },
        })
    }
}
