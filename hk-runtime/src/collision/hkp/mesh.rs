//! Triangle meshes: the subparts of `hkpExtendedMeshShape` / `hkpStorageExtendedMeshShape`
//! (and game subclasses), and `hkpSimpleMeshShape` (docs/collision-notes.md §9).

use crate::graph::Value;

use crate::collision::access::{ints, points, Rec};
use crate::collision::math::{Aabb, Affine};
use crate::collision::shapes::{blank, plain, pointer_list};
use crate::collision::{Mesh, Result, ShapeKind, Triangle};

/// Width in bytes of an index or material-index striding type, from the item name the
/// schema gives the stored value (`INDICES_INT16`, `MATERIAL_INDICES_INT8`, ...).
pub(crate) fn width_of(item: &str) -> Option<usize> {
    if item.ends_with("INT8") {
        Some(1)
    } else if item.ends_with("INT16") {
        Some(2)
    } else if item.ends_with("INT32") {
        Some(4)
    } else {
        None
    }
}

/// The storage array that holds indices of `width` bytes.
pub(crate) fn index_array(width: usize) -> &'static str {
    match width {
        1 => "indices8",
        2 => "indices16",
        _ => "indices32",
    }
}

/// The index array of subpart `sp` in storage `st`, and its element width: the width the
/// subpart's `stridingType` names when the schema states that enum; else (a tagfile's type
/// table has no enums) the one non-empty index array of the storage.
fn indices(sp: &Rec<'_>, st: &Rec<'_>) -> Result<(Vec<u32>, usize)> {
    let width =
        match sp.enum_item("stridingType").and_then(width_of) {
            Some(w) => w,
            None => {
                let filled: Vec<usize> = [1, 2, 4]
                    .into_iter()
                    .filter(|&w| {
                        st.opt(index_array(w))
                            .and_then(Value::as_array)
                            .is_some_and(|a| !a.is_empty())
                    })
                    .collect();
                match filled[..] {
                    [w] => w,
                    [] => 2,
                    _ => return Err(sp.err(
                        "stridingType",
                        "no index striding type in the schema and more than one index array filled",
                    )),
                }
            }
        };
    let name = index_array(width);
    let a = match st.opt(name) {
        Some(v) => v
            .as_array()
            .ok_or_else(|| st.err(name, "expected an array"))?,
        None => return Err(st.err(name, "the storage has no such index array")),
    };
    let v = ints(a).ok_or_else(|| st.err(name, "expected unsigned integers"))?;
    Ok((v, width))
}

/// The per-triangle material indices of a storage, with their stride in elements.
fn material_indices(sp: &Rec<'_>, st: &Rec<'_>) -> Result<Option<(Vec<u32>, usize)>> {
    let named = sp
        .enum_item("materialIndexStridingType")
        .and_then(width_of)
        .map(|w| {
            if w == 1 {
                "materialIndices"
            } else {
                "materialIndices16"
            }
        });
    let candidates: Vec<&str> = match named {
        Some(n) => vec![n],
        None => vec!["materialIndices16", "materialIndices"],
    };
    for name in candidates {
        let Some(a) = st.opt(name).and_then(Value::as_array) else {
            continue;
        };
        if a.is_empty() {
            continue;
        }
        let v = ints(a).ok_or_else(|| st.err(name, "expected unsigned integers"))?;
        let width = if name == "materialIndices" { 1 } else { 2 };
        let stride = sp
            .int("materialIndexStriding")
            .ok()
            .and_then(|s| usize::try_from(s).ok())
            .map_or(1, |s| (s / width).max(1));
        return Ok(Some((v, stride)));
    }
    Ok(None)
}

/// The subpart's own transform (2010 and later), as a `qstransform` tuple or a struct of
/// `translation`, `rotation` and `scale`.
pub(crate) fn subpart_transform(sp: &Rec<'_>) -> Result<Affine> {
    match sp.opt("transform") {
        None => Ok(Affine::IDENTITY),
        Some(Value::Floats(f)) => {
            Affine::from_qs(f).ok_or_else(|| sp.err("transform", "expected 12 floats"))
        }
        Some(Value::Struct(_)) => {
            let t = sp.rec("transform")?;
            let mut f = Vec::with_capacity(12);
            for n in ["translation", "rotation", "scale"] {
                f.extend_from_slice(&t.floats(n, 4)?[..4]);
            }
            Affine::from_qs(&f).ok_or_else(|| sp.err("transform", "expected 12 floats"))
        }
        Some(v) => Err(sp.err("transform", format!("unexpected {}", v.describe()))),
    }
}

/// The triangle subparts of an extended mesh, one [`Mesh`] each.
pub(crate) fn extended(r: &Rec<'_>) -> Result<Vec<Mesh>> {
    let bits = r.int("numBitsForSubpartIndex")?;
    if !(1..=31).contains(&bits) {
        return Err(r.err("numBitsForSubpartIndex", format!("{bits} is not 1 to 31")));
    }
    let tri_bits = 32 - bits as u32;
    let subparts = r.recs("trianglesSubparts")?;
    let storage = if r.opt("meshstorage").is_some() {
        pointer_list(r, "meshstorage")?
    } else {
        Vec::new()
    };
    let game_materials = if r.opt("materialArray").is_some() {
        pointer_list(r, "materialArray")?
    } else {
        Vec::new()
    };
    let welding = match r.opt("weldingInfo").and_then(Value::as_array) {
        Some(a) => ints(a).unwrap_or_default(),
        None => Vec::new(),
    };
    let aabb = match (r.vec3("aabbCenter"), r.vec3("aabbHalfExtents")) {
        (Ok(c), Ok(h)) => Some(Aabb::centered(c, h)),
        _ => None,
    };
    let total: i64 = subparts
        .iter()
        .map(|s| s.int("numTriangleShapes").unwrap_or(0))
        .sum();
    let welding_per_triangle = welding.len() as i64 == total && total > 0;
    let mut out = Vec::with_capacity(subparts.len());
    let mut running = 0usize;
    for (i, sp) in subparts.iter().enumerate() {
        if (i as u64) >= 1u64 << bits {
            return Err(r.err(
                "trianglesSubparts",
                "more subparts than the key has bits for",
            ));
        }
        let Some(Some(sid)) = storage.get(i) else {
            return Err(r.err(
                "meshstorage",
                format!("subpart {i} has no storage object: its vertices are not in the file"),
            ));
        };
        let st = Rec::object(r.graph(), *sid)?;
        let mut m = blank(r, ShapeKind::ExtendedMesh);
        m.name = format!("{}/{i}", m.name);
        m.stored_aabb = aabb;
        m.to_body = subpart_transform(sp)?;
        m.vertices = points(st.array("vertices")?)
            .ok_or_else(|| st.err("vertices", "expected vector4 elements"))?;
        let n = sp.int("numTriangleShapes")?;
        let n = usize::try_from(n)
            .map_err(|_| sp.err("numTriangleShapes", format!("negative: {n}")))?;
        m.declared_triangles = Some(n as u64);
        if n as u64 > 1u64 << tri_bits {
            return Err(sp.err(
                "numTriangleShapes",
                "more triangles than the key has bits for",
            ));
        }
        let (idx, width) = indices(sp, &st)?;
        let stride_bytes = usize::try_from(sp.int("indexStriding")?)
            .map_err(|_| sp.err("indexStriding", "negative"))?;
        if stride_bytes == 0 || stride_bytes % width != 0 {
            return Err(sp.err(
                "indexStriding",
                format!("{stride_bytes} is not a positive multiple of the index width {width}"),
            ));
        }
        let stride = stride_bytes / width;
        if n > 0 && (n - 1) * stride + 3 > idx.len() {
            return Err(st.err(
                index_array(width),
                format!(
                    "{n} triangles at a stride of {stride} need {} indices, the storage holds {}",
                    (n - 1) * stride + 3,
                    idx.len()
                ),
            ));
        }
        let flip = sp.int("flipAlternateTriangles").unwrap_or(0) != 0;
        let mats = material_indices(sp, &st)?;
        let words: Vec<u32> = match st.opt("materials") {
            Some(Value::Array(a)) if !a.is_empty() => st
                .recs("materials")?
                .iter()
                .map(|m| m.int("filterInfo").map(|w| w as u32))
                .collect::<Result<_>>()?,
            _ => Vec::new(),
        };
        let game_surface = match game_materials.get(i) {
            Some(Some(g)) => Rec::object(r.graph(), *g)?
                .int("materialNameData")
                .ok()
                .map(|v| v as u32),
            _ => None,
        };
        let nv = m.vertices.len() as u32;
        m.triangles.reserve(n);
        for t in 0..n {
            let b = t * stride;
            let mut v = [idx[b], idx[b + 1], idx[b + 2]];
            if flip && t % 2 == 1 {
                v.swap(1, 2);
            }
            if let Some(&bad) = v.iter().find(|&&x| x >= nv) {
                return Err(st.err(
                    index_array(width),
                    format!("triangle {t} names vertex {bad}; the storage holds {nv}"),
                ));
            }
            let material = match &mats {
                Some((mi, ms)) => {
                    let k = mi.get(t * ms).copied();
                    k.and_then(|k| words.get(k as usize).copied())
                }
                None => None,
            };
            let surface = material.map(|w| (w >> 3) & 0x3F).or(game_surface);
            m.triangles.push(Triangle {
                v,
                key: ((i as u32) << tri_bits) | t as u32,
                material,
                surface,
                welding: welding_per_triangle
                    .then(|| welding.get(running + t).map(|&w| w as u16))
                    .flatten(),
            });
        }
        running += n;
        out.push(m);
    }
    Ok(out)
}

/// An `hkpSimpleMeshShape`: vertices, triangles `a, b, c` and one material index a
/// triangle.
pub(crate) fn simple(r: &Rec<'_>) -> Result<Mesh> {
    let mut m = blank(r, ShapeKind::SimpleMesh);
    m.vertices =
        points(r.array("vertices")?).ok_or_else(|| r.err("vertices", "expected vector4s"))?;
    let mats = r
        .opt("materialIndices")
        .and_then(Value::as_array)
        .and_then(ints)
        .unwrap_or_default();
    let nv = m.vertices.len() as i64;
    for (k, t) in r.recs("triangles")?.iter().enumerate() {
        let v = [t.int("a")?, t.int("b")?, t.int("c")?];
        if let Some(&bad) = v.iter().find(|&&x| x < 0 || x >= nv) {
            return Err(r.err(
                "triangles",
                format!("triangle {k} names vertex {bad}; the shape holds {nv}"),
            ));
        }
        let mut tri = plain(v.map(|x| x as u32), k as u32);
        tri.surface = mats.get(k).copied();
        tri.welding = t.int("weldingInfo").ok().map(|w| w as u16);
        m.triangles.push(tri);
    }
    m.declared_triangles = Some(m.triangles.len() as u64);
    Ok(m)
}
