//! Decoding a packfile's objects into a [`Graph`] through a schema's layouts.
//!
//! Every byte of the object data is accounted for: it belongs to a member (a leaf value or
//! a pointer slot), or it is padding, which strict mode requires to be zero (seed 000,
//! "Fixups, arrays and padding"). Lenient mode reports each broken invariant instead.

use std::collections::{HashMap, HashSet};

use super::{Loc, Packfile};
use crate::error::{Error, Result};
use crate::graph::{Field, FileInfo, Graph, Object, ObjectId, Ptr, Seg, Value};
use crate::layout::Layouts;
use crate::schema::Schema;
use crate::types::TypeKind;

/// How strictly to read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Report broken invariants instead of failing on the first.
    pub lenient: bool,
}

/// A broken invariant found in lenient mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// File offset.
    pub offset: u64,
    /// Object and member path.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// The flag Havok sets in every serialized array's capacity word (seed 000: "The capacity
/// word is size | 0x80000000 in all 114,784 array headers").
pub const DONT_DEALLOCATE: u32 = 0x8000_0000;

/// The capacity word's flag bits. Havok 5.5 and 6.6 set 0x40000000 as well on some arrays
/// (havoklib-550/660: hkxEnvironment.variables, spline blockOffsets); it is kept per array.
pub const FLAG_MASK: u32 = 0xC000_0000;

const MAX_DEPTH: usize = 48;

/// Decodes every object of `pf` with the layouts of `schema` under the file's rules.
///
/// # Errors
/// The first broken invariant in strict mode; in any mode, structural errors (a class the
/// schema lacks, a count larger than the bytes left, data owned twice), each with its file
/// offset and object/member path.
pub fn read(
    pf: &Packfile<'_>,
    schema: &Schema,
    opts: ReadOptions,
) -> Result<(Graph, Vec<Violation>)> {
    let mut objects: Vec<(Loc, String)> = pf.objects().map(|(l, n)| (l, n.to_string())).collect();
    objects.sort();
    let ids: HashMap<Loc, ObjectId> = objects
        .iter()
        .enumerate()
        .map(|(i, (l, _))| (*l, ObjectId(i as u32)))
        .collect();
    let mut d = Decoder {
        pf,
        layouts: Layouts::new(schema, pf.rules()),
        ids,
        opts,
        violations: Vec::new(),
        consumed: HashSet::new(),
        covered: pf
            .sections
            .iter()
            .map(|s| vec![false; s.local_fixups as usize])
            .collect(),
        blocks: Vec::new(),
        interior: Vec::new(),
        current: ObjectId(0),
        capacity_flags: Default::default(),
        imported: HashSet::new(),
    };
    let mut out = Vec::with_capacity(objects.len());
    for (i, (loc, class)) in objects.iter().enumerate() {
        d.current = ObjectId(i as u32);
        if loc.offset % 16 != 0 {
            d.violation(
                pf.abs(*loc),
                class,
                "object is not 16-byte aligned (seed 000: objects are)",
            )?;
        }
        let fields = d
            .fields(class, *loc, &mut Vec::new(), 0)
            .map_err(|e| e.at(pf.abs(*loc)).in_(format!("object #{i} {class}")))?;
        out.push(Object {
            class: class.clone(),
            section: loc.section,
            fields,
        });
    }
    d.resolve_interior(&mut out)?;
    d.check_leftovers()?;
    let root_loc = Loc {
        section: pf.header.contents_section,
        offset: pf.header.contents_offset,
    };
    let root = *d
        .ids
        .get(&root_loc)
        .ok_or_else(|| Error::invalid(0x1C, "the header's contents offset names no object"))?;
    let mut info = file_info(pf);
    for (loc, name) in &pf.exports {
        let id = d.ids.get(loc).ok_or_else(|| {
            Error::invalid(pf.abs(*loc), format!("export `{name}` names no object"))
        })?;
        info.exports.push((*id, name.clone()));
    }
    let mut default_names: Vec<&str> = crate::metadata::REFLECTION_CLASSES.to_vec();
    for (_, c) in &objects {
        if !default_names.contains(&c.as_str()) {
            default_names.push(c);
        }
    }
    let stored: Vec<&str> = pf.class_names.iter().map(|c| c.name.as_str()).collect();
    if stored != default_names {
        info.class_names = Some(stored.iter().map(|s| s.to_string()).collect());
    }
    let violations = d.violations;
    Ok((
        Graph {
            info,
            objects: out,
            root,
            capacity_flags: d.capacity_flags,
        },
        violations,
    ))
}

fn file_info(pf: &Packfile<'_>) -> FileInfo {
    let h = &pf.header;
    FileInfo {
        file_version: h.file_version,
        contents_version: h.contents_version(),
        layout: h.layout,
        user_tag: h.user_tag,
        flags: h.flags,
        sections: pf.sections.iter().map(|s| s.tag.clone()).collect(),
        class_names_section: h.class_names_section,
        contents_section: h.contents_section,
        predicates: (h.predicate_size >= 0 && h.max_predicate >= 0).then(|| {
            let start = 0x40usize;
            let len = h.predicate_size as usize;
            (
                h.max_predicate,
                pf.bytes()
                    .data()
                    .get(start..start + len)
                    .unwrap_or_default()
                    .to_vec(),
            )
        }),
        class_names: None,
        exports: Vec::new(),
    }
}

/// A data block some object owns, for resolving pointers into it.
struct Block {
    at: Loc,
    stride: u32,
    count: u32,
    owner: ObjectId,
    path: Vec<Seg>,
}

struct Decoder<'p, 's, 'a> {
    pf: &'p Packfile<'a>,
    layouts: Layouts<'s>,
    ids: HashMap<Loc, ObjectId>,
    opts: ReadOptions,
    violations: Vec<Violation>,
    consumed: HashSet<Loc>,
    covered: Vec<Vec<bool>>,
    blocks: Vec<Block>,
    interior: Vec<(ObjectId, Vec<Seg>, Loc, u64)>,
    current: ObjectId,
    capacity_flags: std::collections::BTreeMap<(ObjectId, Vec<Seg>), u32>,
    imported: HashSet<Loc>,
}

fn path_text(path: &[Seg]) -> String {
    path.iter().map(ToString::to_string).collect()
}

impl Decoder<'_, '_, '_> {
    fn violation(&mut self, offset: u64, path: &str, message: impl Into<String>) -> Result<()> {
        let message = message.into();
        if !self.opts.lenient {
            // The callers add the member and object while the error unwinds.
            return Err(Error::invalid(offset, message));
        }
        self.violations.push(Violation {
            offset,
            path: format!("object #{}{path}", self.current.0),
            message,
        });
        Ok(())
    }

    fn cover(&mut self, at: Loc, len: u32) -> Result<()> {
        let sec = &mut self.covered[at.section as usize];
        let (s, e) = (at.offset as usize, at.offset as usize + len as usize);
        if e > sec.len() {
            return Err(Error::truncated(
                self.pf.abs(at),
                u64::from(len),
                (sec.len().saturating_sub(s)) as u64,
            ));
        }
        sec[s..e].iter_mut().for_each(|b| *b = true);
        Ok(())
    }

    fn fields(
        &mut self,
        class: &str,
        at: Loc,
        path: &mut Vec<Seg>,
        depth: usize,
    ) -> Result<Vec<Field>> {
        if depth > MAX_DEPTH {
            return Err(Error::invalid(
                self.pf.abs(at),
                format!("data nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        let members = self.layouts.flattened(class)?;
        let size = self.layouts.class(class)?.size;
        let sec_len = self.covered[at.section as usize].len() as u64;
        if u64::from(at.offset) + u64::from(size) > sec_len {
            return Err(Error::truncated(
                self.pf.abs(at),
                u64::from(size),
                sec_len.saturating_sub(u64::from(at.offset)),
            )
            .in_(class.to_string()));
        }
        let mut out = Vec::with_capacity(members.len());
        for &(owner, m, l) in members.iter() {
            path.push(Seg::Field(m.name.clone()));
            let mat = Loc {
                section: at.section,
                offset: at.offset + l.offset,
            };
            let v = if m.array_size > 0 {
                let n = u32::from(m.array_size);
                let each = l.size / n;
                let mut items = Vec::with_capacity(n as usize);
                for k in 0..n {
                    path.push(Seg::Index(k));
                    let el = Loc {
                        section: at.section,
                        offset: mat.offset + k * each,
                    };
                    items.push(self.value(
                        m.ty,
                        m.subtype,
                        m.class.as_deref(),
                        el,
                        each,
                        path,
                        depth,
                    )?);
                    path.pop();
                }
                Value::CArray(items)
            } else {
                self.value(
                    m.ty,
                    m.subtype,
                    m.class.as_deref(),
                    mat,
                    l.size,
                    path,
                    depth,
                )
                .map_err(|e| e.in_member(&owner.name, &m.name))?
            };
            path.pop();
            out.push(Field::new(m.name.clone(), v));
        }
        Ok(out)
    }

    fn slot_word(&mut self, at: Loc, path: &[Seg]) -> Result<Option<Loc>> {
        let p = self.pf.rules().ptr();
        self.cover(at, p)?;
        let word = self.pf.bytes().uint(self.pf.abs(at), p)?;
        if word != 0 {
            self.violation(
                self.pf.abs(at),
                &path_text(path),
                format!("pointer slot stores 0x{word:X}, not 0"),
            )?;
        }
        let target = self.pf.resolve(at);
        if target.is_some() {
            self.consumed.insert(at);
        }
        Ok(target)
    }

    fn pointer(&mut self, at: Loc, path: &[Seg]) -> Result<Option<Ptr>> {
        if let Some(name) = self.pf.imports.get(&at) {
            self.cover(at, self.pf.rules().ptr())?;
            if self.pf.resolve(at).is_some() {
                self.violation(
                    self.pf.abs(at),
                    &path_text(path),
                    "pointer slot is both imported and fixed up",
                )?;
            }
            self.imported.insert(at);
            return Ok(Some(Ptr::Import(name.clone())));
        }
        let Some(t) = self.slot_word(at, path)? else {
            return Ok(None);
        };
        if let Some(id) = self.ids.get(&t) {
            return Ok(Some(Ptr::Object(*id)));
        }
        // Not an object: a place inside data some object owns. Resolved once all blocks
        // are known.
        self.interior
            .push((self.current, path.to_vec(), t, self.pf.abs(at)));
        Ok(None)
    }

    fn string(&mut self, at: Loc, path: &[Seg]) -> Result<Value> {
        let Some(t) = self.slot_word(at, path)? else {
            return Ok(Value::String(None));
        };
        let bytes = self.pf.bytes().cbytes(self.pf.abs(t))?;
        self.cover(t, bytes.len() as u32 + 1)?;
        Ok(match std::str::from_utf8(bytes) {
            Ok(s) => Value::String(Some(s.to_string())),
            Err(_) => Value::Bytes(bytes.to_vec()),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn value(
        &mut self,
        ty: TypeKind,
        subtype: TypeKind,
        class: Option<&str>,
        at: Loc,
        size: u32,
        path: &mut Vec<Seg>,
        depth: usize,
    ) -> Result<Value> {
        let b = self.pf.bytes();
        let abs = self.pf.abs(at);
        let p = self.pf.rules().ptr();
        let int = |t: TypeKind, me: &mut Self| -> Result<Value> {
            let w = t.int_width().unwrap_or(p);
            me.cover(at, w)?;
            let v = b.uint(abs, w)?;
            Ok(match t {
                TypeKind::Char | TypeKind::Int8 => Value::Int(i64::from(v as u8 as i8)),
                TypeKind::Int16 => Value::Int(i64::from(v as u16 as i16)),
                TypeKind::Int32 => Value::Int(i64::from(v as u32 as i32)),
                TypeKind::Int64 => Value::Int(v as i64),
                _ => Value::UInt(v),
            })
        };
        let floats = |n: u32, me: &mut Self| -> Result<Value> {
            me.cover(at, 4 * n)?;
            (0..n)
                .map(|i| b.u32(abs + 4 * u64::from(i)).map(f32::from_bits))
                .collect::<Result<Vec<f32>>>()
                .map(Value::Floats)
        };
        Ok(match ty {
            TypeKind::Void | TypeKind::Zero => {
                // No value; the bytes must be zero like padding (left uncovered).
                let _ = size;
                Value::None
            }
            TypeKind::Bool => {
                self.cover(at, 1)?;
                Value::Bool(b.u8(abs)?)
            }
            TypeKind::Char
            | TypeKind::Int8
            | TypeKind::UInt8
            | TypeKind::Int16
            | TypeKind::UInt16
            | TypeKind::Int32
            | TypeKind::UInt32
            | TypeKind::Int64
            | TypeKind::UInt64
            | TypeKind::ULong => int(ty, self)?,
            TypeKind::Enum | TypeKind::Flags => int(
                if subtype.int_width().is_some() {
                    subtype
                } else {
                    TypeKind::UInt32
                },
                self,
            )?,
            TypeKind::Real => {
                self.cover(at, 4)?;
                Value::Real(f32::from_bits(b.u32(abs)?))
            }
            TypeKind::Half => {
                self.cover(at, 2)?;
                Value::Half(b.u16(abs)?)
            }
            TypeKind::Vector4 | TypeKind::Quaternion => floats(4, self)?,
            TypeKind::Matrix3 | TypeKind::Rotation | TypeKind::QsTransform => floats(12, self)?,
            TypeKind::Matrix4 | TypeKind::Transform => floats(16, self)?,
            TypeKind::Pointer | TypeKind::FunctionPointer => {
                Value::Pointer(self.pointer(at, path)?)
            }
            TypeKind::CString | TypeKind::StringPtr => self.string(at, path)?,
            TypeKind::Variant => {
                let object = self.pointer(at, path)?;
                path.push(Seg::Field("class".into()));
                let class = self.pointer(
                    Loc {
                        section: at.section,
                        offset: at.offset + p,
                    },
                    path,
                )?;
                path.pop();
                Value::Variant { object, class }
            }
            TypeKind::Struct => {
                let cname = class.ok_or_else(|| Error::schema("struct member names no class"))?;
                Value::Struct(self.fields(cname, at, path, depth + 1)?)
            }
            TypeKind::Array | TypeKind::SimpleArray => {
                self.array(ty, subtype, class, at, path, depth)?
            }
            TypeKind::RelArray => self.rel_array(subtype, class, at, path, depth)?,
            // The 2022+ relative forms (seed 003) occur in tagfiles only.
            TypeKind::InplaceArray
            | TypeKind::HomogeneousArray
            | TypeKind::RelPtr
            | TypeKind::RelArrayView
            | TypeKind::RelArray64 => {
                return Err(Error::invalid(
                    abs,
                    format!("member type `{ty}` is not supported in packfiles"),
                ))
            }
        })
    }

    fn array(
        &mut self,
        ty: TypeKind,
        subtype: TypeKind,
        class: Option<&str>,
        at: Loc,
        path: &mut Vec<Seg>,
        depth: usize,
    ) -> Result<Value> {
        let b = self.pf.bytes();
        let p = self.pf.rules().ptr();
        let count_at = Loc {
            section: at.section,
            offset: at.offset + p,
        };
        self.cover(count_at, 4)?;
        let count = b.u32(self.pf.abs(count_at))?;
        if ty == TypeKind::Array {
            let cap_at = Loc {
                section: at.section,
                offset: at.offset + p + 4,
            };
            self.cover(cap_at, 4)?;
            let cap = b.u32(self.pf.abs(cap_at))?;
            let flags = cap & FLAG_MASK;
            if cap & !FLAG_MASK == count && flags & DONT_DEALLOCATE != 0 {
                if flags != DONT_DEALLOCATE {
                    self.capacity_flags
                        .insert((self.current, path.clone()), flags);
                }
            } else {
                self.violation(
                    self.pf.abs(cap_at),
                    &path_text(path),
                    format!(
                        "array capacity word 0x{cap:08X} is not size | 0x80000000 (size {count})"
                    ),
                )?;
            }
        }
        let data = self.slot_word(at, path)?;
        let Some(data) = data else {
            if count != 0 {
                self.violation(
                    self.pf.abs(at),
                    &path_text(path),
                    format!("array of {count} elements has no data pointer"),
                )?;
            }
            return Ok(Value::Array(Vec::new()));
        };
        if count == 0 {
            self.violation(
                self.pf.abs(at),
                &path_text(path),
                "empty array has a data pointer",
            )?;
        }
        let stride = self.layouts.element_size(subtype, class)?;
        let left = u64::from(
            self.pf.sections[data.section as usize]
                .local_fixups
                .saturating_sub(data.offset),
        );
        if u64::from(count) * u64::from(stride) > left {
            return Err(Error::invalid(
                self.pf.abs(count_at),
                format!("array of {count} × {stride} bytes runs past the end of its section ({left} bytes left)"),
            ));
        }
        if self.blocks.iter().any(|bl| bl.at == data) {
            return Err(Error::invalid(self.pf.abs(at), "array data is owned twice"));
        }
        self.blocks.push(Block {
            at: data,
            stride,
            count,
            owner: self.current,
            path: path.clone(),
        });
        self.elements(subtype, class, data, count, stride, path, depth)
    }

    /// `count` elements of `stride` bytes from `data`, the count already checked against
    /// the bytes left.
    #[allow(clippy::too_many_arguments)]
    fn elements(
        &mut self,
        subtype: TypeKind,
        class: Option<&str>,
        data: Loc,
        count: u32,
        stride: u32,
        path: &mut Vec<Seg>,
        depth: usize,
    ) -> Result<Value> {
        let mut items = Vec::with_capacity(count as usize);
        for i in 0..count {
            path.push(Seg::Index(i));
            let el = Loc {
                section: data.section,
                offset: data.offset + i * stride,
            };
            items.push(self.value(subtype, TypeKind::Void, class, el, stride, path, depth + 1)?);
            path.pop();
        }
        Ok(Value::Array(items))
    }

    /// `hkRelArray`: a u16 count and a u16 offset from the member to its elements, which
    /// the object carries after its body (games/bloodborne/c2020_ragdoll_with_types.hkx:
    /// hknpConvexShape.vertices).
    fn rel_array(
        &mut self,
        subtype: TypeKind,
        class: Option<&str>,
        at: Loc,
        path: &mut Vec<Seg>,
        depth: usize,
    ) -> Result<Value> {
        let b = self.pf.bytes();
        self.cover(at, 4)?;
        let count = u32::from(b.u16(self.pf.abs(at))?);
        let offset = u32::from(b.u16(self.pf.abs(at) + 2)?);
        if count == 0 {
            if offset != 0 {
                self.violation(
                    self.pf.abs(at),
                    &path_text(path),
                    format!("empty relative array has offset 0x{offset:X}"),
                )?;
            }
            return Ok(Value::Array(Vec::new()));
        }
        let stride = self.layouts.element_size(subtype, class)?;
        let data = Loc {
            section: at.section,
            offset: at.offset + offset,
        };
        let left = u64::from(
            self.pf.sections[at.section as usize]
                .local_fixups
                .saturating_sub(data.offset),
        );
        if u64::from(count) * u64::from(stride) > left {
            return Err(Error::invalid(
                self.pf.abs(at),
                format!("relative array of {count} × {stride} bytes at +0x{offset:X} runs past its section"),
            ));
        }
        self.elements(subtype, class, data, count, stride, path, depth)
    }

    /// Pointers to data some object owns become paths into that object.
    fn resolve_interior(&mut self, objects: &mut [Object]) -> Result<()> {
        for (obj, path, target, at) in std::mem::take(&mut self.interior) {
            let block = self.blocks.iter().find(|bl| {
                bl.at.section == target.section
                    && target.offset >= bl.at.offset
                    && target.offset < bl.at.offset + bl.stride * bl.count
                    && (target.offset - bl.at.offset) % bl.stride == 0
            });
            let Some(bl) = block else {
                self.violation(
                    at,
                    &path_text(&path),
                    format!(
                        "pointer to 0x{:X} is neither an object nor an array element",
                        self.pf.abs(target)
                    ),
                )?;
                continue;
            };
            let mut p = bl.path.clone();
            p.push(Seg::Index((target.offset - bl.at.offset) / bl.stride));
            let ptr = Ptr::Into {
                object: bl.owner,
                path: p,
            };
            let slot =
                value_at_mut(&mut objects[obj.0 as usize].fields, &path).ok_or_else(|| {
                    Error::invalid(at, "lost the pointer's member while resolving it")
                })?;
            match slot {
                Value::Pointer(v) => *v = Some(ptr),
                Value::Variant { object, class } => {
                    if matches!(path.last(), Some(Seg::Field(f)) if f == "class") {
                        *class = Some(ptr);
                    } else {
                        *object = Some(ptr);
                    }
                }
                _ => {
                    return Err(Error::invalid(
                        at,
                        "pointer resolved onto a non-pointer member",
                    ))
                }
            }
        }
        Ok(())
    }

    /// Every fixup must have been met on a pointer member, and every byte no member covers
    /// must be zero.
    fn check_leftovers(&mut self) -> Result<()> {
        // Seed 000: every fixup source is 4-byte aligned.
        let misaligned = sorted(self.pf.pointers().keys(), |l| l.offset % 4 != 0);
        let unused = sorted(self.pf.imports.keys(), |l| !self.imported.contains(l));
        let strays = sorted(self.pf.pointers().keys(), |l| !self.consumed.contains(l));
        for (locs, msg) in [
            (misaligned, "fixup source is not 4-byte aligned"),
            (unused, "import names a slot that is no pointer member"),
            (
                strays,
                "fixup source lies on no pointer member of its object",
            ),
        ] {
            for l in locs {
                self.violation(self.pf.abs(l), "", msg)?;
            }
        }
        for (si, cov) in std::mem::take(&mut self.covered).into_iter().enumerate() {
            if si as u32 == self.pf.header.class_names_section {
                continue;
            }
            let sec = &self.pf.sections[si];
            let data = sec.data(&self.pf.bytes());
            if let Some(i) = cov.iter().zip(data).position(|(c, b)| !c && *b != 0) {
                let at = sec.abs(i as u32);
                let owner = super::locate::locate(self.pf, self.layouts.schema(), at);
                self.violation(
                    at,
                    "",
                    format!("padding byte 0x{:02X} is not zero ({owner})", data[i]),
                )?;
            }
        }
        Ok(())
    }
}

/// The value at `path` (a Variant's `class` step stops at the variant).
pub(crate) fn value_at_mut<'v>(fields: &'v mut [Field], path: &[Seg]) -> Option<&'v mut Value> {
    let (first, rest) = path.split_first()?;
    let Seg::Field(name) = first else { return None };
    let mut v = &mut fields.iter_mut().find(|f| &f.name == name)?.value;
    for seg in rest {
        v = match (v, seg) {
            (Value::Struct(fs), Seg::Field(n)) => &mut fs.iter_mut().find(|f| &f.name == n)?.value,
            (Value::Array(items) | Value::CArray(items), Seg::Index(i)) => {
                items.get_mut(*i as usize)?
            }
            (v @ Value::Variant { .. }, Seg::Field(_)) => return Some(v),
            _ => return None,
        };
    }
    Some(v)
}

/// The locations `keep` selects, in file order.
fn sorted<'a>(locs: impl Iterator<Item = &'a Loc>, keep: impl Fn(&Loc) -> bool) -> Vec<Loc> {
    let mut v: Vec<Loc> = locs.filter(|l| keep(l)).copied().collect();
    v.sort();
    v
}
