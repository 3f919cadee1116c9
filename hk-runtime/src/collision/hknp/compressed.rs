//! `hknpCompressedMeshShape` as triangles (docs/collision-notes.md §3 for the primitive and
//! vertex forms, §12 for hk's reading of the section fields): the mesh tree's sections in
//! order, each a run of primitives over its own packed vertices and some shared ones.
//!
//! Every count the walk trusts is a byte (`offset << 8 | count` fields, `numPackedVertices`),
//! so one section costs at most 255 primitives and 510 vertices, and the whole read is linear
//! in the stored arrays.

use std::collections::HashMap;

use crate::collision::access::Rec;
use crate::collision::hknp::packed::Grid;
use crate::collision::hknp::triangles::{carray_ints, carray_reals, uint_array};
use crate::collision::math::Aabb;
use crate::collision::shapes::{blank, plain};
use crate::collision::{Mesh, Result, ShapeKind, Triangle};

/// The four indices of an empty primitive slot.
pub const EMPTY_PRIMITIVE: [u8; 4] = [0xDE, 0xAD, 0xDE, 0xAD];

/// `offset << 8 | count` as `(offset, count)`.
pub fn split_run(data: u64) -> (usize, usize) {
    ((data >> 8) as usize, (data & 0xFF) as usize)
}

/// A struct member holding one `data` word (`Section::Primitives` and the like).
fn run(section: &Rec<'_>, name: &str) -> Result<(usize, usize)> {
    let data = section.rec(name)?.int("data")?;
    Ok(split_run(data as u64 & 0xFFFF_FFFF))
}

/// An `hkAabb` struct member's corners.
fn aabb(r: &Rec<'_>, name: &str) -> Result<Aabb> {
    let b = r.rec(name)?;
    let (lo, hi) = (b.vec3("min")?, b.vec3("max")?);
    Ok(Aabb { min: lo, max: hi })
}

/// The range `first..first + n` of a list of `len`, or an error about member `path`.
fn range(
    r: &Rec<'_>,
    path: &str,
    what: &str,
    first: usize,
    n: usize,
    len: usize,
) -> Result<std::ops::Range<usize>> {
    let end = first.saturating_add(n);
    if end > len {
        return Err(r.err(
            path,
            format!("{what} {first}..{end} run past the {len} stored"),
        ));
    }
    Ok(first..end)
}

/// Reads a compressed mesh: shape key `section << 8 | primitive`, the material of a
/// triangle the value of the data run covering its primitive.
pub(crate) fn read(r: &Rec<'_>) -> Result<Mesh> {
    let mut m = blank(r, ShapeKind::CompressedMesh);
    let data = r
        .ptr("data")?
        .ok_or_else(|| r.err("data", "a compressed mesh without data"))?;
    let d = Rec::object(r.graph(), data)?;
    let tree = d.rec("meshTree")?;
    let domain = aabb(&tree, "domain")?;
    m.stored_aabb = Some(domain);
    let shared_grid = Grid::spanning(
        domain.min,
        domain.max,
        crate::collision::hknp::packed::SHARED_BITS,
    );
    let packed = uint_array(&tree, "packedVertices")?;
    let shared = uint_array(&tree, "sharedVertices")?;
    let shared_index = uint_array(&tree, "sharedVerticesIndex")?;
    let prims = tree.recs("primitives")?;
    let runs = tree.recs("primitiveDataRuns")?;
    let sections = tree.recs("sections")?;
    // Shared vertex number → mesh vertex, so sections that share one share the point.
    let mut shared_at: HashMap<usize, u32> = HashMap::new();
    for (s, sec) in sections.iter().enumerate() {
        let path = |m: &str| format!("meshTree.sections[{s}].{m}");
        let parms = carray_reals(sec, "codecParms", 6)?;
        let grid = Grid {
            origin: [parms[0], parms[1], parms[2]],
            step: [parms[3], parms[4], parms[5]],
        };
        let first = sec.int("firstPackedVertex")? as usize;
        let n_packed = sec.int("numPackedVertices")? as usize;
        let own = range(
            &tree,
            &path("firstPackedVertex"),
            "packed vertices",
            first,
            n_packed,
            packed.len(),
        )?;
        let (sh_first, sh_n) = run(sec, "sharedVertices")?;
        let sh = range(
            &tree,
            &path("sharedVertices"),
            "shared vertex indices",
            sh_first,
            sh_n,
            shared_index.len(),
        )?;
        // The section's vertices as mesh vertices: its packed ones, then its shared ones.
        let mut local: Vec<u32> = Vec::with_capacity(n_packed + sh_n);
        for &v in &packed[own] {
            local.push(m.vertices.len() as u32);
            m.vertices.push(grid.unpack32(v as u32));
        }
        for (j, &k) in shared_index[sh].iter().enumerate() {
            let k = k as usize;
            let Some(&v) = shared.get(k) else {
                return Err(tree.err(
                    &format!("sharedVerticesIndex[{}]", sh_first + j),
                    format!("shared vertex {k} of {}", shared.len()),
                ));
            };
            let at = *shared_at.entry(k).or_insert_with(|| {
                m.vertices.push(shared_grid.unpack64(v));
                (m.vertices.len() - 1) as u32
            });
            local.push(at);
        }
        let (p_first, p_n) = run(sec, "primitives")?;
        let own_prims = range(
            &tree,
            &path("primitives"),
            "primitives",
            p_first,
            p_n,
            prims.len(),
        )?;
        let (r_first, r_n) = run(sec, "dataRuns")?;
        let own_runs = range(
            &tree,
            &path("dataRuns"),
            "data runs",
            r_first,
            r_n,
            runs.len(),
        )?;
        let mut material: Vec<Option<u32>> = vec![None; p_n];
        for (j, dr) in runs[own_runs].iter().enumerate() {
            let value = dr.rec("value")?.int("data")? as u32;
            let (at, n) = (dr.int("index")? as usize, dr.int("count")? as usize);
            let slots = material.get_mut(at..at.saturating_add(n)).ok_or_else(|| {
                tree.err(
                    &format!("primitiveDataRuns[{}]", r_first + j),
                    format!(
                        "primitives {at}..{} of a section of {p_n}",
                        at.saturating_add(n)
                    ),
                )
            })?;
            slots.iter_mut().for_each(|x| *x = Some(value));
        }
        for (j, p) in prims[own_prims].iter().enumerate() {
            let ix = carray_ints(p, "indices")?;
            let ix: [u8; 4] = [0, 1, 2, 3].map(|i| ix.get(i).copied().unwrap_or(0) as u8);
            let key = (s as u32) << 8 | j as u32;
            let Some(tris) = primitive_triangles(ix) else {
                continue;
            };
            for t in tris.into_iter().flatten() {
                let v = t.map(|i| local.get(usize::from(i)).copied());
                let [Some(a), Some(b), Some(c)] = v else {
                    return Err(tree.err(
                        &format!("primitives[{}].indices", p_first + j),
                        format!(
                            "{ix:?} names a vertex past the section's {} ({} packed, {} shared)",
                            local.len(),
                            n_packed,
                            sh_n
                        ),
                    ));
                };
                m.triangles.push(Triangle {
                    material: material[j],
                    ..plain([a, b, c], key)
                });
            }
        }
    }
    Ok(m)
}

/// The triangles of a primitive's four indices: none for an empty slot or a custom
/// (convex) piece (`i1 = i2 = i3`), one for a triangle (`i2 = i3`), two for a quad.
pub fn primitive_triangles(ix: [u8; 4]) -> Option<[Option<[u8; 3]>; 2]> {
    if ix == EMPTY_PRIMITIVE || (ix[1] == ix[2] && ix[2] == ix[3]) {
        return None;
    }
    let first = Some([ix[0], ix[1], ix[2]]);
    Some(if ix[2] == ix[3] {
        [first, None]
    } else {
        [first, Some([ix[0], ix[2], ix[3]])]
    })
}
