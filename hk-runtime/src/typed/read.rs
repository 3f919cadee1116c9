//! Decoding a packfile into typed objects through the read engine
//! ([`crate::packfile::engine::read::Reader`]): the generated code reads each member at its
//! compile-time offset; the engine checks pointer slots, fixups, array headers, counts,
//! padding and coverage exactly as it does for the dynamic graph.

pub use super::class::{decode_struct, decode_struct_into};
pub use super::member::decode_array;

use super::class::{AnyClass, Class, DecodeFn, TypedFile};
use super::engine::{Decoder, Members};
use super::member::Field;
use crate::error::PathSegment;
use crate::error::{ConvertError, Error, Result};
use crate::graph::{ObjectId, Seg};
use crate::packfile::engine::read::{ReadOptions, Violation};
use crate::packfile::info::container_info;
use crate::packfile::{Loc, Packfile};

/// Reads the members of a class from `body` (read at `at`) into `fields`, one per member
/// in flattened order, at `offsets` (the class's table for the file's rules), each inside
/// its member path and named in errors by `members`; the member list is nested `depth`
/// deep. What every generated decoder calls.
///
/// # Errors
/// As the dynamic reader: a broken invariant, data past its section, nesting deeper than
/// [`crate::Limits::max_depth`].
pub fn fields(
    d: &mut Decoder<'_, '_>,
    body: &[u8],
    at: Loc,
    depth: usize,
    offsets: &[u32],
    members: Members,
    fields: &mut [&mut dyn Field],
) -> Result<()> {
    if depth > d.r.max_depth() {
        return Err(d.r.too_deep(at));
    }
    if fields.len() != offsets.len() || fields.len() != members.len() {
        return Err(Error::schema(
            "a class's fields and layout tables have different lengths",
        ));
    }
    for (i, ((f, off), m)) in fields.iter_mut().zip(offsets).zip(members).enumerate() {
        d.r.enter(Seg::Member(i as u16));
        f.decode_into(d, body, *off, at, depth, m.kind)
            .map_err(|e| e.in_member(m.owner, m.name))?;
        d.r.leave();
    }
    Ok(())
}

/// Reads the object of class `C` at `loc` as an `A` (a generated `AnyObject`): its body as
/// one block, its padding, then its members. What [`AnyClass::decoder`] gives for `C`'s
/// name: one function per class, the class built in place and moved once into `A`.
///
/// # Errors
/// As the dynamic reader.
pub fn decode_object<C: Class, A: From<C>>(d: &mut Decoder<'_, '_>, loc: Loc) -> Result<A> {
    let body = object_body(d, loc, C::SIZES[d.ri], C::GAPS[d.ri])?;
    let mut s = C::default();
    s.decode_fields(d, body, loc, 0)?;
    Ok(A::from(s))
}

/// The `size` bytes of an object's body at `loc`, recorded as one block, with its padding
/// (`gaps`) checked. Not generic and never inlined: one copy serves every class of a
/// generated crate (bench/results.md, "Building a generated crate").
#[inline(never)]
fn object_body<'a>(
    d: &mut Decoder<'_, 'a>,
    loc: Loc,
    size: u32,
    gaps: &[(u32, u32)],
) -> Result<&'a [u8]> {
    let body = d.r.block(loc, u64::from(size))?;
    d.r.check_gaps(body, loc, gaps)?;
    Ok(body)
}

/// Decodes every object of a packfile with the classes of module `A`.
///
/// # Errors
/// As the dynamic reader (the first broken invariant in strict mode), or an object of a
/// class `A` does not generate.
pub fn decode_file<A: AnyClass>(
    bytes: &[u8],
    opts: ReadOptions,
) -> Result<(TypedFile<A>, Vec<Violation>)> {
    let pf = Packfile::parse(bytes)?;
    decode_packfile(&pf, opts)
}

/// As [`decode_file`], over a parsed packfile.
///
/// # Errors
/// As [`decode_file`].
pub fn decode_packfile<A: AnyClass>(
    pf: &Packfile<'_>,
    opts: ReadOptions,
) -> Result<(TypedFile<A>, Vec<Violation>)> {
    let mut d = Decoder::new(pf, opts)?;
    let table = pf.object_table();
    // Class-name entry -> decoder, resolved once per entry.
    let mut decoders: Vec<Option<DecodeFn<A>>> = vec![None; pf.class_names.len()];
    let mut objects = Vec::with_capacity(table.len());
    let mut object_sections = Vec::with_capacity(table.len());
    for (i, &(loc, name_index)) in table.iter().enumerate() {
        let name = &pf.class_names[name_index as usize].name;
        let label = || PathSegment::object(i, name);
        let decode = match decoders[name_index as usize] {
            Some(f) => f,
            None => {
                let f = A::decoder(name).ok_or_else(|| {
                    Error::convert(ConvertError::Class(name.to_string()))
                        .at(pf.abs(loc))
                        .in_(label())
                })?;
                decoders[name_index as usize] = Some(f);
                f
            }
        };
        d.r.begin_object(ObjectId(i as u32));
        if loc.offset % 16 != 0 {
            d.r.violation(
                pf.abs(loc),
                crate::packfile::engine::read::rule::OBJECT_ALIGNMENT,
                "object is not 16-byte aligned (docs/packfile-format.md §4: objects are)",
            )
            .map_err(|e| e.in_(label()))?;
        }
        let o = decode(&mut d, loc).map_err(|e| e.at(pf.abs(loc)).in_(label()))?;
        objects.push(o);
        object_sections.push(loc.section);
    }
    let fin = d.r.finish()?;
    for (def, ptr) in fin.interior {
        let slot = objects
            .get_mut(def.owner.0 as usize)
            .and_then(|o: &mut A| o.slot_mut(&def.path, def.variant_class))
            .ok_or_else(|| {
                Error::invalid(def.slot, "lost the pointer's member while resolving it")
            })?;
        *slot = Some(ptr);
    }
    let (root, info) = container_info(pf, object_sections, fin.capacity_flags)?;
    Ok((
        TypedFile {
            objects,
            root,
            info,
        },
        fin.violations,
    ))
}
