//! Havok 2016 hknp shapes as triangles (docs/collision-notes.md §12): convex polytopes
//! (vertices, faces as ranges of an index array, one plane per face, the connectivity
//! object), compressed meshes (`compressed`) and compound shapes (instances placed by
//! transform and scale, found through their `hkcdDynamicTree`; free-list elements skipped).
//! Read by member name through the schema like every other shape.

use crate::graph::{Array, ObjectId, Value};

use crate::collision::access::{points, Rec};
use crate::collision::math::Affine;
use crate::collision::shapes::{blank, plain};
use crate::collision::{Mesh, Result, ShapeKind};

/// Integer elements of an array (any width), `None` when one is not an integer.
pub(crate) fn uints(a: &Array) -> Option<Vec<u64>> {
    match a {
        Array::U8(v) => Some(v.iter().map(|&x| u64::from(x)).collect()),
        Array::U16(v) => Some(v.iter().map(|&x| u64::from(x)).collect()),
        Array::U32(v) => Some(v.iter().map(|&x| u64::from(x)).collect()),
        Array::U64(v) => Some(v.clone()),
        _ => a.to_values().iter().map(Value::as_u64).collect(),
    }
}

/// An integer array member of `r`.
pub(crate) fn uint_array(r: &Rec<'_>, name: &str) -> Result<Vec<u64>> {
    uints(r.array(name)?).ok_or_else(|| r.err(name, "expected non-negative integers"))
}

/// A C array member's integers (`uint8[4]`, `int16[4]`, ...).
pub(crate) fn carray_ints(r: &Rec<'_>, name: &str) -> Result<Vec<i64>> {
    let v = r.get(name)?;
    v.as_values()
        .and_then(|vs| vs.iter().map(Value::as_i64).collect::<Option<Vec<_>>>())
        .ok_or_else(|| r.err(name, format!("expected integers, found {}", v.describe())))
}

/// A C array member's reals (`real[6]`).
pub(crate) fn carray_reals(r: &Rec<'_>, name: &str, n: usize) -> Result<Vec<f32>> {
    let v = r.get(name)?;
    match v
        .as_values()
        .and_then(|vs| vs.iter().map(Value::as_f32).collect::<Option<Vec<_>>>())
    {
        Some(f) if f.len() >= n => Ok(f),
        _ => Err(r.err(name, format!("expected {n} reals, found {}", v.describe()))),
    }
}

/// `hknpConvexPolytopeShape`: each face is `numIndices` entries of `indices` from
/// `firstIndex`, fanned into triangles; every index names a vertex; there is one plane per
/// face (the list padded to a multiple of four, or not); the connectivity object, when there is one, holds one twin per half-edge and
/// edges that exist.
pub(crate) fn polytope(r: &Rec<'_>) -> Result<Mesh> {
    let mut m = blank(r, ShapeKind::ConvexPolytope);
    m.vertices = points(r.array("vertices")?)
        .ok_or_else(|| r.err("vertices", "expected vector4 elements"))?;
    let n = m.vertices.len();
    let idx = uint_array(r, "indices")?;
    let faces = r.recs("faces")?;
    // One plane per face, padded to a multiple of four (SIMD) with empty planes in the
    // files Havok writes (docs/collision-notes.md §12.1).
    let planes = r.array("planes")?.len();
    if planes != faces.len() && planes != faces.len().next_multiple_of(4) {
        return Err(r.err(
            "planes",
            format!(
                "{planes} planes for {} faces (one per face, or padded to a multiple of 4)",
                faces.len()
            ),
        ));
    }
    let mut ranges = Vec::with_capacity(faces.len());
    for (f, face) in faces.iter().enumerate() {
        let first = face.int("firstIndex")? as usize;
        let k = face.int("numIndices")? as usize;
        let path = format!("faces[{f}]");
        let loop_ = idx.get(first..first.saturating_add(k)).ok_or_else(|| {
            r.err(
                &path,
                format!(
                    "indices {first}..{} run past the {} indices",
                    first.saturating_add(k),
                    idx.len()
                ),
            )
        })?;
        if k < 3 {
            return Err(r.err(&path, format!("a face of {k} indices")));
        }
        if let Some(&bad) = loop_.iter().find(|&&v| v as usize >= n) {
            return Err(r.err("indices", format!("face {f} names vertex {bad} of {n}")));
        }
        for i in 1..k - 1 {
            m.triangles.push(plain(
                [loop_[0] as u32, loop_[i] as u32, loop_[i + 1] as u32],
                f as u32,
            ));
        }
        ranges.push(k);
    }
    // Havok 2014 polytopes have no `connectivity` member (Bloodborne's capsules).
    let linked = match r.opt("connectivity") {
        Some(_) => r.ptr("connectivity")?,
        None => None,
    };
    if let Some(c) = linked {
        connectivity(&Rec::object(r.graph(), c)?, &ranges, n)?;
    }
    Ok(m)
}

/// Checks a polytope's connectivity: `faceLinks` holds one edge per half-edge (face by
/// face, in index order) and `vertexEdges` at most one per vertex; every edge names a face
/// and one of its edges.
fn connectivity(c: &Rec<'_>, faces: &[usize], vertices: usize) -> Result<()> {
    let half_edges: usize = faces.iter().sum();
    let links = c.recs("faceLinks")?;
    if links.len() != half_edges {
        return Err(c.err(
            "faceLinks",
            format!(
                "{} links for {half_edges} half-edges (one each)",
                links.len()
            ),
        ));
    }
    let starts = c.recs("vertexEdges")?;
    if starts.len() > vertices {
        return Err(c.err(
            "vertexEdges",
            format!("{} edges for {vertices} vertices", starts.len()),
        ));
    }
    for (name, list) in [("faceLinks", &links), ("vertexEdges", &starts)] {
        for (i, e) in list.iter().enumerate() {
            let f = e.int("faceIndex")? as usize;
            let k = e.int("edgeIndex")? as usize;
            match faces.get(f) {
                Some(&n) if k < n => {}
                Some(&n) => {
                    return Err(c.err(
                        &format!("{name}[{i}].edgeIndex"),
                        format!("edge {k} of face {f}, which has {n}"),
                    ))
                }
                None => {
                    return Err(c.err(
                        &format!("{name}[{i}].faceIndex"),
                        format!("face {f} of {}", faces.len()),
                    ))
                }
            }
        }
    }
    Ok(())
}

/// One placed child of a compound shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instance {
    /// Its index in `instances.elements` (the shape key the child's triangles get).
    pub(crate) index: usize,
    /// From the child's space to the compound's: the transform after the scale.
    pub(crate) to_parent: Affine,
    /// The child shape.
    pub(crate) shape: ObjectId,
}

/// The free elements of an `hkFreeListArray` of shape instances: the chain from
/// `firstFree` (-1 ends it) through each free element's next index, an `int16` in bytes 2
/// and 3 of its `padding`; byte 0 is non-zero on a free element (docs/collision-notes.md
/// §12). The walk stops after as many steps as there are elements.
fn free_elements(list: &Rec<'_>, elements: &[Rec<'_>]) -> Result<Vec<bool>> {
    let mut free = vec![false; elements.len()];
    let mut at = list.int("firstFree")?;
    let mut steps = 0usize;
    while at != -1 {
        let i = usize::try_from(at)
            .ok()
            .filter(|&i| i < elements.len())
            .ok_or_else(|| {
                list.err(
                    "firstFree",
                    format!(
                        "free-list index {at} outside the {} elements",
                        elements.len()
                    ),
                )
            })?;
        if free[i] || steps >= elements.len() {
            return Err(list.err(
                "firstFree",
                format!("the free list runs into element {i} twice"),
            ));
        }
        free[i] = true;
        steps += 1;
        let pad = carray_ints(&elements[i], "padding")?;
        if pad.first().copied().unwrap_or(0) == 0 || pad.len() < 4 {
            return Err(list.err(
                &format!("elements[{i}].padding"),
                "on the free list but not marked free",
            ));
        }
        at = i64::from(i16::from_le_bytes([pad[2] as u8, pad[3] as u8]));
    }
    Ok(free)
}

/// An instance's placement: `transform` after a per-axis `scale`.
fn placement(e: &Rec<'_>, i: usize) -> Result<Affine> {
    let path = format!("instances.elements[{i}]");
    let t = Affine::from_transform(e.floats("transform", 16)?)
        .ok_or_else(|| e.err(&format!("{path}.transform"), "expected 16 floats"))?;
    let s = e.vec3("scale")?;
    if s.iter().any(|x| !x.is_finite()) || t.cols.iter().flatten().any(|x| !x.is_finite()) {
        return Err(e.err(&path, "a transform or scale that is not finite"));
    }
    let mut a = t;
    for (c, k) in a.cols.iter_mut().zip(s) {
        *c = c.map(|x| x * k);
    }
    Ok(a)
}

/// A node of the compound's tree: `aabb.min.w` its parent, `aabb.max.w` its children
/// (low and high 16 bits); a node whose second child is 0 is a leaf, its first "child" the
/// instance index (docs/collision-notes.md §12).
fn node_links(n: &Rec<'_>) -> Result<(u32, u32)> {
    let aabb = n.rec("aabb")?;
    let w = aabb.floats("max", 4)?[3].to_bits();
    Ok((w & 0xFFFF, w >> 16))
}

/// The used instances of `hknpCompoundShape` `r`, in the order its tree's leaves come
/// (depth first from `root`), or in element order when the tree has no nodes. Every node
/// is visited at most once; a child past the nodes, a node reached twice, a leaf naming a
/// free or missing instance, or a used instance the tree misses is an error.
pub(crate) fn compound(r: &Rec<'_>) -> Result<Vec<Instance>> {
    let list = r.rec("instances")?;
    let elements = list.recs("elements")?;
    let free = free_elements(&list, &elements)?;
    let tree = r.rec("boundingVolumeData")?.rec("aabbTree")?;
    let nodes = tree.recs("nodes")?;
    let root = tree.int("root")? as usize;
    let mut order = Vec::new();
    if nodes.is_empty() || root == 0 {
        order.extend((0..elements.len()).filter(|&i| !free[i]));
    } else {
        let mut seen = vec![false; nodes.len()];
        let mut stack = vec![root];
        while let Some(k) = stack.pop() {
            let path = format!("boundingVolumeData.aabbTree.nodes[{k}]");
            let node = nodes.get(k).filter(|_| k != 0).ok_or_else(|| {
                r.err(
                    "boundingVolumeData.aabbTree",
                    format!("a link to node {k} of {} (0 is the null node)", nodes.len()),
                )
            })?;
            if std::mem::replace(&mut seen[k], true) {
                return Err(r.err(&path, "reached twice: the tree has a cycle or shared node"));
            }
            let (a, b) = node_links(node)?;
            if b == 0 {
                let i = a as usize;
                if i >= elements.len() || free[i] {
                    return Err(r.err(
                        &path,
                        format!(
                            "a leaf naming instance {i}, which is {}",
                            if i >= elements.len() {
                                "missing"
                            } else {
                                "free"
                            }
                        ),
                    ));
                }
                order.push(i);
            } else {
                stack.push(b as usize);
                stack.push(a as usize);
            }
        }
        let leaves = tree.int("numLeaves")?;
        if leaves != order.len() as i64 {
            return Err(r.err(
                "boundingVolumeData.aabbTree.numLeaves",
                format!("{leaves}, but the tree has {} leaves", order.len()),
            ));
        }
        let mut reached = vec![false; elements.len()];
        for &i in &order {
            if std::mem::replace(&mut reached[i], true) {
                return Err(r.err(
                    "boundingVolumeData.aabbTree",
                    format!("two leaves name instance {i}"),
                ));
            }
        }
        if let Some(i) = (0..elements.len()).find(|&i| !free[i] && !reached[i]) {
            return Err(r.err(
                &format!("instances.elements[{i}]"),
                "a used instance no leaf of the tree names",
            ));
        }
    }
    order
        .into_iter()
        .map(|i| {
            let e = &elements[i];
            let shape = e.ptr("shape")?.ok_or_else(|| {
                r.err(
                    &format!("instances.elements[{i}].shape"),
                    "a used instance without a shape",
                )
            })?;
            Ok(Instance {
                index: i,
                to_parent: placement(e, i)?,
                shape,
            })
        })
        .collect()
}
