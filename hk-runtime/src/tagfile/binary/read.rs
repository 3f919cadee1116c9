//! Reading the stream: the file information, class definitions and objects
//! (docs/binary-tagfile-format.md §2-§5), then the schema of the classes and the graph of
//! the objects. Values are decoded by the definitions' type codes; members the bitfield
//! leaves out take their zero value once the schema says what that is.
//!
//! The read works within the [`Limits`] of its [`ReadOptions`]: objects are counted as they
//! come; each object's values (its members, nested structs and tuples) are counted from its
//! class's definitions before it is read (`max_expansion`); structs and arrays nest at most
//! `max_depth` deep; every definition, object, array, string, reference and lenient-mode
//! violation is charged to the memory budget before it is allocated. Members left out of a
//! bitfield cost a bit, and struct elements whose columns are all left out cost nothing, so
//! the budget, not the bytes left, bounds such arrays.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;
use std::sync::Arc;

use super::defs::{self, tag, Base, ClassDef, MemberDef, TypeCode, VersionRules};
use super::input::{Input, Step};
use super::zero::{always_written, fill, into_values, worth, VALUE};
use super::{BinaryTagfile, Predicates, Read};
use crate::error::{Error, ReadError, Result};
use crate::graph::{Floats, Graph, ObjectId, Ptr, Value};
use crate::limits::ReadOptions;
use crate::limits::{Budget, Limits};
use crate::packfile::reader::Violation;
use crate::schema::names::NameKind;
use crate::schema::{ClassId, Schema};

/// A definition's members and its ancestors', root first: (definition, member) pairs.
pub(super) type Flat = Rc<[(usize, usize)]>;

pub(super) struct Reader<'a> {
    pub input: Input<'a>,
    pub rules: VersionRules,
    pub limits: Limits,
    pub defs: Vec<Rc<ClassDef>>,
    by_name: HashMap<String, usize>,
    flat: Vec<Option<Flat>>,
    /// Values one object of each definition expands into, once computed (cleared when a
    /// class is defined, which may complete a struct member's class).
    expansion: Vec<Option<u64>>,
    /// Definitions whose expansion is being counted (a struct member met again on the way
    /// contains its class by value).
    counting: Vec<bool>,
    objects: Vec<(usize, Vec<Value>)>,
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
    let budget = Budget::new(&limits, data.len() as u64);
    let mut input = Input::new(data, opts.lenient, budget);
    let (rules, sdk, predicates) = header(&mut input)?;
    let mut r = Reader {
        input,
        rules,
        limits,
        defs: Vec::new(),
        by_name: HashMap::new(),
        flat: Vec::new(),
        expansion: Vec::new(),
        counting: Vec::new(),
        objects: Vec::new(),
        refs: Vec::new(),
        widths: BTreeMap::new(),
    };
    let end = r.records().map_err(|e| r.attach(e))?;
    let trailing = r.input.rest().to_vec();
    let file = BinaryTagfile {
        version: rules.version,
        sdk,
        predicates,
        classes: r.defs.iter().map(|d| ClassDef::clone(d)).collect(),
        int_widths: std::mem::take(&mut r.widths),
        strings: r.input.strings() - 2,
        trailing,
    };
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
    let schema = schema_of(&file, limits.depth()).map_err(|e| e.at(8))?;
    let mut objects = Vec::with_capacity(n);
    let end = end as u64;
    for (def, mut values) in std::mem::take(&mut r.objects) {
        let class = ClassId(def as u32);
        for (m, v) in schema.members(class)?.iter().zip(&mut values) {
            fill(&schema, &m.shape, v, &mut r.input.budget, end)?;
        }
        objects.push(crate::graph::Object { class, values });
    }
    let graph = Graph::from_objects(schema, objects, ObjectId(0));
    graph.check()?;
    let violations = std::mem::take(&mut r.input.soft)
        .into_iter()
        .map(|s| Violation {
            offset: s.offset,
            path: r.path_text(&s.path).join(" > "),
            message: s.message,
        })
        .collect();
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
        Some(input.name_of(NameKind::Sdk, "the SDK string")?)
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

    fn path_text(&self, path: &[Step]) -> Vec<String> {
        path.iter()
            .map(|s| match *s {
                Step::Object(n, d) => format!("object #{} {}", n - 1, self.defs[d].name),
                Step::Member(d, m) => {
                    format!("{}.{}", self.defs[d].name, self.defs[d].members[m].name)
                }
                Step::Index(i) => format!("[{i}]"),
            })
            .collect()
    }

    fn metadata(&mut self) -> Result<()> {
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
        let at = self.input.pos as u64;
        let n = self.input.count("the member count", 2)?;
        let each = std::mem::size_of::<MemberDef>() as u64;
        let size = std::mem::size_of::<ClassDef>() as u64 + name.len() as u64;
        self.input.budget.charge(size, at)?;
        self.input.budget.charge_n(n as u64, each, at)?;
        let mut members: Vec<MemberDef> = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.input.pos as u64;
            let m = self.member()?;
            if members.iter().any(|x| x.name == m.name) {
                return Err(Error::invalid(
                    at,
                    format!("member {} is declared twice", m.name),
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
        self.flat.push(None);
        // A struct member's class may have just been defined: count again.
        self.expansion.clear();
        self.expansion.resize(self.defs.len(), None);
        self.counting.resize(self.defs.len(), false);
        Ok(())
    }

    fn member(&mut self) -> Result<MemberDef> {
        let name = self.input.name_of(NameKind::Member, "a member name")?;
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
            let class = self
                .input
                .opt_name_of(NameKind::Class, "the member's class name");
            match class.map_err(in_member)? {
                None if base == Base::Struct => {
                    return Err(in_member(Error::invalid(
                        at,
                        "a struct member names no class",
                    )))
                }
                c => c,
            }
        } else {
            None
        };
        Ok(MemberDef {
            name,
            ty: TypeCode { base, array, tuple },
            class,
        })
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
        // The object's entry and its values.
        self.input.budget.charge(64, at)?;
        let values = self.body(def, 0)?;
        self.input.path.pop();
        self.objects.push((def, values));
        Ok(())
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
        let pair = std::mem::size_of::<(usize, usize)>() as u64;
        self.input
            .budget
            .charge_n(len, pair, self.input.pos as u64)?;
        let list: Flat = chain
            .iter()
            .rev()
            .flat_map(|&d| (0..self.defs[d].members.len()).map(move |m| (d, m)))
            .collect();
        self.flat[def] = Some(Rc::clone(&list));
        Ok(list)
    }

    /// How many values one object of definition `def` expands into, counted as
    /// [`crate::schema::Schema::values_of`] counts its class (a struct or tuple counts
    /// itself and its values; a matrix counts 2; an array 1, its elements aside).
    /// Saturating.
    ///
    /// # Errors
    /// A class that contains itself by value, or structs by value nested deeper than the
    /// depth limit.
    fn expansion(&mut self, def: usize, level: usize) -> Result<u64> {
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
        self.input.budget.charge(32 + path, at as u64)?;
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
