//! Builders for Havok 2016 hknp collision (docs/collision-notes.md §12): a box
//! `hknpConvexPolytopeShape` with the mass properties and penetration depth of a retail id
//! Tech box (§4), an `hknpCompressedMeshShape` encoded from triangles and quads, and an
//! `hknpCompoundShape` of placed instances over an `hkcdDynamicTree`; and the id Tech cm
//! file around them. Every value goes through [`Graph::set`], so it is checked against the
//! schema's member; enum values are looked up by name. `hk cm box` and `hk sample` use these.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::graph::{Graph, ObjectId, Value};
use crate::schema::Schema;
use crate::tagfile::{cm, reflect};

use crate::collision::hknp::packed::pack_vector3;
use crate::collision::hknp::values::{fill, int16s, set_aabb, shape, uints};
use crate::collision::math::{Aabb, Affine, Vec3};

pub use crate::collision::hknp::compressed_build::{
    add_compressed_mesh, MeshInput, MeshLayout, SECTION_PRIMITIVES, SECTION_VERTICES,
};

/// The convex radius of every retail polytope (docs/collision-notes.md §4).
pub const CONVEX_RADIUS: f32 = 0.01;
/// Mass per unit of volume of a retail box.
pub const DENSITY: f32 = 1000.0;
/// A retail box's inertia over the solid cuboid's.
pub const INERTIA_FACTOR: f32 = 1.5;
/// `maxAllowedPenetration` over (smallest half extent + convex radius).
pub const PENETRATION_RATIO: f32 = 0.3305;
/// The `majorAxisSpace` of every measured retail axis box (docs/collision-notes.md §4).
pub const AXIS_BOX_MAJOR_AXIS_SPACE: [i16; 4] = [-0x8000, -0x8000, -0x8000, 0xF530u16 as i16];
/// A box hull's mass properties and penetration depth (docs/collision-notes.md §12).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxMass {
    /// Edge lengths, each `2 × (half extent + convex radius)`.
    pub edges: Vec3,
    /// Their product.
    pub volume: f32,
    /// [`DENSITY`] × volume.
    pub mass: f32,
    /// [`INERTIA_FACTOR`] × the solid cuboid's principal moments, `mass · (b² + c²) / 12`.
    pub inertia: Vec3,
    /// `maxAllowedPenetration` as stored: the upper 16 bits of the float
    /// [`PENETRATION_RATIO`] × (smallest half extent + radius), rounded to nearest.
    pub penetration: u16,
}

/// The float `x` as an `hkHalf16` (its upper 16 bits, rounded to nearest).
pub fn half16(x: f32) -> u16 {
    ((u64::from(x.to_bits()) + 0x8000) >> 16) as u16
}

/// An `hkHalf16` as a float.
pub fn unhalf16(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// Refuses half extents that are not positive finite numbers, or whose box's volume, mass
/// or inertia ([`box_mass`]) is not a finite `f32` (the inertia, about `1000 × h⁵` for a
/// cube of half extent `h`, overflows first: past about `h = 8.4e6`).
///
/// # Errors
/// Which axis is wrong and its value, or the derived values.
pub fn check_half_extents(half: Vec3) -> Result<()> {
    for (axis, h) in ["x", "y", "z"].iter().zip(half) {
        if !(h.is_finite() && h > 0.0) {
            return Err(Error::invalid_write(format!(
                "half extent {axis} is {h}: half extents must be positive finite numbers"
            )));
        }
    }
    let m = box_mass(half, CONVEX_RADIUS);
    let derived = [m.volume, m.mass, m.inertia[0], m.inertia[1], m.inertia[2]];
    if !derived.iter().chain(&m.edges).all(|x| x.is_finite()) {
        let [x, y, z] = m.inertia;
        return Err(Error::invalid_write(format!(
            "the box's volume, mass and inertia must be finite numbers, and are volume {}, mass {}, inertia {x} {y} {z}: take smaller half extents",
            m.volume, m.mass
        )));
    }
    Ok(())
}

/// The retail rules for a box of `half` extents and convex `radius`.
pub fn box_mass(half: Vec3, radius: f32) -> BoxMass {
    let edges = half.map(|h| 2.0 * (h + radius));
    let volume = edges[0] * edges[1] * edges[2];
    let mass = DENSITY * volume;
    let sq = edges.map(|e| e * e);
    let k = INERTIA_FACTOR * mass / 12.0;
    let smallest = half.iter().fold(f32::MAX, |a, &h| a.min(h)) + radius;
    BoxMass {
        edges,
        volume,
        mass,
        inertia: [
            k * (sq[1] + sq[2]),
            k * (sq[0] + sq[2]),
            k * (sq[0] + sq[1]),
        ],
        penetration: half16(PENETRATION_RATIO * smallest),
    }
}

/// The box's faces as corner loops (corner bit 0, 1, 2 = +x, +y, +z), counter-clockwise
/// seen from outside, with their normals.
const BOX_FACES: [([usize; 4], Vec3); 6] = [
    ([1, 3, 7, 5], [1.0, 0.0, 0.0]),
    ([0, 4, 6, 2], [-1.0, 0.0, 0.0]),
    ([2, 6, 7, 3], [0.0, 1.0, 0.0]),
    ([0, 1, 5, 4], [0.0, -1.0, 0.0]),
    ([4, 5, 7, 6], [0.0, 0.0, 1.0]),
    ([0, 2, 3, 1], [0.0, 0.0, -1.0]),
];

/// Half-edge `(face, edge)` runs from corner `loop[e]` to `loop[e + 1]`.
fn box_edge(f: usize, e: usize) -> (usize, usize) {
    (BOX_FACES[f].0[e], BOX_FACES[f].0[(e + 1) % 4])
}

fn box_half_edges() -> impl Iterator<Item = (usize, usize)> {
    (0..6).flat_map(|g| (0..4).map(move |j| (g, j)))
}

/// Adds a box `hknpConvexPolytopeShape` of `half` extents and the objects it points to
/// (connectivity, properties, mass properties), in that order: corners with
/// `w = 0x3F000000 | index`, outward unit planes, quad faces, twin half-edges, one outgoing
/// edge per corner, convex radius [`CONVEX_RADIUS`], mass and penetration by [`box_mass`].
///
/// # Errors
/// Half extents that are not positive and finite; a schema without the hknp classes.
pub fn add_box(g: &mut Graph, half: Vec3) -> Result<ObjectId> {
    check_half_extents(half)?;
    let shape = shape(
        g,
        "hknpConvexPolytopeShape",
        "CONVEX_POLYTOPE",
        "CONVEX",
        &["IS_CONVEX_SHAPE", "IS_CONVEX_POLYTOPE_SHAPE"],
    )?;
    let conn = g.add_object("hknpConvexPolytopeShape::Connectivity")?;
    let props = g.add_object("hkRefCountedProperties")?;
    let mp = g.add_object("hknpShapeMassProperties")?;
    let mass = box_mass(half, CONVEX_RADIUS);
    g.set(shape, "convexRadius", Value::Real(CONVEX_RADIUS))?;
    g.set(
        shape,
        "maxAllowedPenetration",
        Value::Half(mass.penetration),
    )?;
    let corner = |i: usize| [0, 1, 2].map(|a| if i >> a & 1 == 1 { half[a] } else { -half[a] });
    let vertices = (0..8)
        .map(|i| {
            let c = corner(i);
            Value::floats(&[c[0], c[1], c[2], f32::from_bits(0x3F00_0000 | i as u32)])
        })
        .collect();
    g.set(shape, "vertices", Value::list(vertices))?;
    let mut planes = Vec::new();
    let mut indices = Vec::new();
    fill(g, shape, "faces", BOX_FACES.len())?;
    for (k, (corners, n)) in BOX_FACES.iter().enumerate() {
        let d = -(0..3).map(|a| n[a].abs() * half[a]).sum::<f32>();
        planes.push(Value::floats(&[n[0], n[1], n[2], d]));
        g.set(
            shape,
            &format!("faces[{k}].firstIndex"),
            Value::UInt(4 * k as u64),
        )?;
        g.set(shape, &format!("faces[{k}].numIndices"), Value::UInt(4))?;
        indices.extend(corners.iter().map(|&v| v as u64));
    }
    g.set(shape, "planes", Value::list(planes))?;
    g.set(shape, "indices", uints(indices))?;
    let set_edge = |g: &mut Graph, path: String, (f, e): (usize, usize)| -> Result<()> {
        g.set(conn, &format!("{path}.faceIndex"), Value::UInt(f as u64))?;
        g.set(conn, &format!("{path}.edgeIndex"), Value::UInt(e as u64))
    };
    fill(g, conn, "faceLinks", 24)?;
    for (k, (f, e)) in box_half_edges().enumerate() {
        let (from, to) = box_edge(f, e);
        let twin = box_half_edges()
            .find(|&(h, j)| box_edge(h, j) == (to, from))
            .ok_or_else(|| Error::invalid_write("box faces do not close"))?;
        set_edge(g, format!("faceLinks[{k}]"), twin)?;
    }
    fill(g, conn, "vertexEdges", 8)?;
    for v in 0..8 {
        let start = box_half_edges()
            .find(|&(h, j)| box_edge(h, j).0 == v)
            .ok_or_else(|| Error::invalid_write("a corner without an edge"))?;
        set_edge(g, format!("vertexEdges[{v}]"), start)?;
    }
    g.set(shape, "connectivity", Value::object(conn))?;
    let cmp = "compressedMassProperties";
    g.set(
        mp,
        &format!("{cmp}.centerOfMass.values"),
        int16s(pack_vector3([0.0; 3])),
    )?;
    g.set(
        mp,
        &format!("{cmp}.inertia.values"),
        int16s(pack_vector3(mass.inertia)),
    )?;
    g.set(
        mp,
        &format!("{cmp}.majorAxisSpace"),
        int16s(AXIS_BOX_MAJOR_AXIS_SPACE),
    )?;
    g.set(mp, &format!("{cmp}.mass"), Value::Real(mass.mass))?;
    g.set(mp, &format!("{cmp}.volume"), Value::Real(mass.volume))?;
    fill(g, props, "entries", 1)?;
    g.set(props, "entries[0].object", Value::object(mp))?;
    g.set(shape, "properties", Value::object(props))?;
    Ok(shape)
}

/// The bytes of an id Tech cm file holding `graph` (a TAG0 with a type table written from
/// the graph's schema) behind `records`, at the retail record version.
///
/// # Errors
/// A graph the tagfile writer refuses.
pub fn cm_bytes(graph: &Graph, records: &[cm::SurfaceRecord]) -> Result<Vec<u8>> {
    let schema = graph.schema();
    let tag0 = reflect::write(graph, schema, &schema.generation.contents_version)?;
    Ok(cm::Cm::write(records, cm::RETAIL_VERSION, &tag0))
}

/// A cm file of one box polytope of `half` extents behind the default (retail solid
/// brush) surface record: what `hk cm box` writes.
///
/// # Errors
/// Bad half extents, or a schema without the hknp classes.
pub fn box_file(schema: Arc<Schema>, half: Vec3) -> Result<Vec<u8>> {
    let mut g = Graph::new(schema);
    add_box(&mut g, half)?;
    cm_bytes(&g, &[cm::SurfaceRecord::default()])
}

/// One used element of a compound: a child shape placed by `transform` after `scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// The child shape.
    pub shape: ObjectId,
    /// Rotation and translation.
    pub transform: Affine,
    /// Per-axis scale, applied first.
    pub scale: Vec3,
    /// The child's box in its own space.
    pub local: Aabb,
}

impl Placed {
    /// The child's box in the compound's space (the eight corners placed).
    pub fn world_box(&self) -> Aabb {
        let (lo, hi) = (self.local.min, self.local.max);
        let corners = (0..8).map(|i| {
            let p = [0, 1, 2].map(|a| if i >> a & 1 == 1 { hi[a] } else { lo[a] } * self.scale[a]);
            self.transform.apply(p)
        });
        Aabb::of(corners).unwrap_or(self.local)
    }
}

fn union(a: &Aabb, b: &Aabb) -> Aabb {
    Aabb {
        min: [0, 1, 2].map(|i| a.min[i].min(b.min[i])),
        max: [0, 1, 2].map(|i| a.max[i].max(b.max[i])),
    }
}

/// Tree nodes: (box, parent, first link, second link); node 0 is the null node.
type Node = (Aabb, u32, u32, u32);

/// Adds the subtree over `leaves` (instance index, box) under `parent`; its node index.
fn subtree(nodes: &mut Vec<Node>, leaves: &mut [(usize, Aabb)], parent: u32) -> u32 {
    let at = nodes.len() as u32;
    let all = leaves[1..].iter().fold(leaves[0].1, |b, l| union(&b, &l.1));
    if leaves.len() == 1 {
        nodes.push((all, parent, leaves[0].0 as u32, 0));
        return at;
    }
    nodes.push((all, parent, 0, 0));
    let ext = [0, 1, 2].map(|a| all.max[a] - all.min[a]);
    let axis = (0..3).fold(0, |m, a| if ext[a] > ext[m] { a } else { m });
    leaves.sort_by(|x, y| {
        (x.1.min[axis] + x.1.max[axis]).total_cmp(&(y.1.min[axis] + y.1.max[axis]))
    });
    let (l, r) = leaves.split_at_mut(leaves.len() / 2);
    let a = subtree(nodes, l, at);
    let b = subtree(nodes, r, at);
    nodes[at as usize].2 = a;
    nodes[at as usize].3 = b;
    at
}

/// Adds an `hknpCompoundShape` whose `instances.elements` are `slots` (`None` is a free
/// element, chained into the free list), over an `hkcdDynamicTree` of the used ones built
/// by splitting at the median of the longest axis (node encoding: docs/collision-notes.md
/// §12).
///
/// # Errors
/// More elements or nodes than the 16-bit links hold, or a schema refusal.
pub fn add_compound(g: &mut Graph, slots: &[Option<Placed>]) -> Result<ObjectId> {
    if slots.len() > 0x7FFF {
        return Err(Error::invalid_write(format!(
            "{} compound instances: at most 32767",
            slots.len()
        )));
    }
    let c = shape(
        g,
        "hknpCompoundShape",
        "STATIC_COMPOUND",
        "COMPOSITE",
        &["IS_COMPOSITE_SHAPE"],
    )?;
    fill(g, c, "instances.elements", slots.len())?;
    let free: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_none()).collect();
    let mut leaves = Vec::new();
    for (k, slot) in slots.iter().enumerate() {
        let e = format!("instances.elements[{k}]");
        let (t, s) = slot.map_or((Affine::IDENTITY, [1.0; 3]), |p| (p.transform, p.scale));
        let mut m = [0.0f32; 16];
        for (i, col) in t.cols.iter().chain(std::iter::once(&t.t)).enumerate() {
            m[4 * i..4 * i + 3].copy_from_slice(col);
        }
        m[15] = 1.0;
        g.set(c, &format!("{e}.transform"), Value::floats(&m))?;
        g.set(
            c,
            &format!("{e}.scale"),
            Value::floats(&[s[0], s[1], s[2], 0.0]),
        )?;
        match slot {
            Some(p) => {
                g.set(c, &format!("{e}.shape"), Value::object(p.shape))?;
                leaves.push((k, p.world_box()));
            }
            None => {
                // Free: byte 0 marks it, bytes 2-3 the next free element (-1 ends).
                let at = free.iter().position(|&f| f == k).unwrap_or(0);
                let next = free.get(at + 1).map_or(-1i16, |&n| n as i16).to_le_bytes();
                let mut pad = vec![Value::UInt(0); 30];
                pad[0] = Value::UInt(1);
                pad[2] = Value::UInt(u64::from(next[0]));
                pad[3] = Value::UInt(u64::from(next[1]));
                g.set(c, &format!("{e}.padding"), Value::CArray(pad))?;
            }
        }
    }
    let first_free = free.first().map_or(-1, |&f| f as i64);
    g.set(c, "instances.firstFree", Value::Int(first_free))?;
    let mut nodes: Vec<Node> = vec![(
        Aabb {
            min: [0.0; 3],
            max: [0.0; 3],
        },
        0,
        0,
        0,
    )];
    let root = if leaves.is_empty() {
        0
    } else {
        subtree(&mut nodes, &mut leaves, 0)
    };
    if nodes.len() > 0xFFFF {
        return Err(Error::invalid_write(
            "more tree nodes than 16-bit links hold",
        ));
    }
    let all = nodes.get(root as usize).map_or(nodes[0].0, |n| n.0);
    set_aabb(g, c, "aabb", &all, [0, 0])?;
    let tree = "boundingVolumeData.aabbTree";
    fill(g, c, &format!("{tree}.nodes"), nodes.len())?;
    for (k, (b, parent, a, second)) in nodes.iter().enumerate() {
        set_aabb(
            g,
            c,
            &format!("{tree}.nodes[{k}].aabb"),
            b,
            [*parent, a | second << 16],
        )?;
    }
    g.set(
        c,
        &format!("{tree}.numLeaves"),
        Value::UInt(leaves.len() as u64),
    )?;
    g.set(c, &format!("{tree}.root"), Value::UInt(u64::from(root)))?;
    let radius = (0..8)
        .map(|i| {
            [0, 1, 2].map(|a| {
                if i >> a & 1 == 1 {
                    all.max[a]
                } else {
                    all.min[a]
                }
            })
        })
        .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
        .fold(0f32, f32::max);
    g.set(c, "boundingRadius", Value::Real(radius))?;
    g.set(c, "estimatedNumShapeKeys", Value::Int(leaves.len() as i64))?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_extents_whose_box_values_overflow_are_refused() {
        for half in [[1e13; 3], [1e38; 3], [1.0, 1.0, 3e38], [9e6; 3]] {
            let e = check_half_extents(half).unwrap_err().to_string();
            assert!(
                e.contains("must be finite") && e.contains("inf"),
                "{half:?}: {e}"
            );
        }
        for half in [[8e6; 3], [1e6, 2.0, 3.0], [1e-30; 3]] {
            check_half_extents(half).unwrap();
            let m = box_mass(half, CONVEX_RADIUS);
            assert!(m
                .inertia
                .iter()
                .chain(&[m.volume, m.mass])
                .all(|x| x.is_finite()));
        }
    }
}
