//! Havok class signatures: CRC-32 of a class description.
//!
//! The algorithm is docs/layout-and-signatures.md §4, measured on the corpus (§4.4 and §6):
//! names are hashed without a NUL, the enum/flags rewrite runs before the serialize-ignored
//! rewrite, and an ignored member's old sub-type, when not `void`, is written as an extra
//! `u16`. All integers are little-endian whatever the file's byte order.

use crate::error::{Error, Result};
use crate::schema::{Class, Enum, Member, Schema};
use crate::types::{flag_names, TypeKind};

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
        .ok_or_else(|| Error::schema(format!("class `{class}` is not in the schema")))?;
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
    let mut buf = Vec::with_capacity(1024);
    describe_chain(schema, class, &mut buf, 0)?;
    Ok(crc32fast::hash(&buf))
}

/// The description bytes of `class` and its parents (exposed for diagnostics and tests).
///
/// # Errors
/// As [`signature`].
pub fn description(schema: &Schema, class: &str) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    describe_chain(schema, class, &mut buf, 0)?;
    Ok(buf)
}

const MAX_DEPTH: usize = 64;

fn describe_chain(schema: &Schema, class: &str, buf: &mut Vec<u8>, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::schema(format!(
            "struct members nest deeper than {MAX_DEPTH} at `{class}`"
        )));
    }
    for c in schema.chain(class)? {
        describe_class(schema, c, buf, depth).map_err(|e| e.in_(c.name.clone()))?;
    }
    Ok(())
}

fn put_i32(buf: &mut Vec<u8>, v: i32) {
    buf.extend_from_slice(&v.to_le_bytes());
}

fn put_u16(buf: &mut Vec<u8>, v: u16) {
    buf.extend_from_slice(&v.to_le_bytes());
}

fn describe_enum(e: &Enum, buf: &mut Vec<u8>) {
    buf.extend_from_slice(e.name.as_bytes());
    for item in &e.items {
        buf.extend_from_slice(item.name.as_bytes());
        put_i32(buf, item.value);
    }
    put_i32(buf, e.items.len() as i32);
}

fn describe_class(schema: &Schema, c: &Class, buf: &mut Vec<u8>, depth: usize) -> Result<()> {
    put_i32(buf, c.interfaces as i32);
    for e in &c.enums {
        describe_enum(e, buf);
    }
    put_i32(buf, c.enums.len() as i32);
    for m in &c.members {
        describe_member(schema, c, m, buf, depth).map_err(|e| e.in_(m.name.clone()))?;
    }
    put_i32(buf, c.members.len() as i32);
    Ok(())
}

fn describe_member(
    schema: &Schema,
    owner: &Class,
    m: &Member,
    buf: &mut Vec<u8>,
    depth: usize,
) -> Result<()> {
    let g = &schema.generation;
    let num = |k: TypeKind| -> Result<u16> {
        g.type_number(k)
            .map(u16::from)
            .ok_or_else(|| Error::schema(format!("type `{k}` has no number in {}", g.name)))
    };
    if let Some(cl) = &m.class {
        if m.ty != TypeKind::Pointer && m.subtype != TypeKind::Pointer {
            describe_chain(schema, cl, buf, depth + 1)?;
        }
    }
    if let Some(r) = &m.enum_ref {
        let (_, e) = schema
            .resolve_enum(&owner.name, r)
            .ok_or_else(|| Error::schema(format!("enum `{r}` not found")))?;
        describe_enum(e, buf);
    }
    let mut ty = num(m.ty)?;
    let mut subtype = num(m.subtype)?;
    let mut flags = m.flags;
    let mut extra = None;
    // Rewrite 1: an enum or flags member has sub-type void and its storage width in bits
    // toggled in the flags (docs/layout-and-signatures.md §4.2).
    if matches!(m.ty, TypeKind::Enum | TypeKind::Flags) {
        let bits = m.subtype.int_width().unwrap_or(0) * 8;
        flags ^= bits as u16;
        subtype = num(TypeKind::Void)?;
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
    }
    buf.extend_from_slice(m.name.as_bytes());
    put_u16(buf, ty);
    put_u16(buf, subtype);
    if let Some(x) = extra {
        put_u16(buf, x);
    }
    put_u16(buf, m.array_size);
    put_u16(buf, flags);
    Ok(())
}
