//! A compressed mesh rebuilt from its own primitives with hk's builder, and the state size
//! of a compressed mesh: the measure of how the builders compare with a stored original
//! (docs/compressed-mesh-encoders.md).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::graph::{Graph, ObjectId};
use crate::schema::Schema;

use crate::collision::access::Rec;
use crate::collision::hknp::compressed_build::{add_compressed_mesh, MeshInput};
use crate::collision::hknp::mesh_build::{build, BuildOptions, Face};
use crate::collision::hknp::mesh_shape;
use crate::collision::hkp::{bvmesh, bvmesh_build};
use crate::collision::math::Vec3;
use crate::collision::shapes::{Place, Walker};
use crate::collision::{CollisionError, Result};

/// Bytes of one stored element, by array: the element widths of the classes as the 2014,
/// 2016 and 2023.2 schemas give them, without padding.
pub mod widths {
    /// A primitive: four byte indices.
    pub const PRIMITIVE: usize = 4;
    /// A packed 11-11-10 vertex.
    pub const PACKED: usize = 4;
    /// A shared 21-21-22 vertex.
    pub const SHARED: usize = 8;
    /// A shared-vertex index.
    pub const SHARED_INDEX: usize = 2;
    /// A data run: value, index, count.
    pub const RUN: usize = 8;
    /// A compressed mesh's section record (box, codec, words, counts).
    pub const SECTION: usize = 96;
    /// A node of a section's static tree (`Codec3Axis4`).
    pub const NODE4: usize = 4;
    /// A node of the mesh's static tree (`Codec3Axis5`).
    pub const NODE5: usize = 5;
    /// A `Vertex16_3`.
    pub const VERTEX16: usize = 6;
    /// An `hknpAabb8TreeNode`.
    pub const AABB8: usize = 28;
    /// A node of the top-level `hkcdSimdTree`: six float lanes of four, four data words.
    pub const SIMD_NODE: usize = 112;
    /// An `hknpMeshShape` geometry section record.
    pub const GEOMETRY_SECTION: usize = 64;
}

/// The shape kinds a rebuild knows.
pub const KINDS: &[&str] = &[
    "hkpBvCompressedMeshShape",
    "hknpCompressedMeshShape",
    "hknpMeshShape",
];

/// Bytes the stored arrays of compressed mesh `id` hold (the element widths of
/// [`widths`]), or `None` when `id` is not a compressed mesh or mesh shape.
///
/// # Errors
/// A shape that does not decode.
pub fn state_bytes(graph: &Graph, id: ObjectId) -> Result<Option<usize>> {
    use widths::*;
    let g = &*graph.with_struct_values();
    let r = Rec::object(g, id)?;
    Ok(Some(match r.kind_among(KINDS) {
        Some("hkpBvCompressedMeshShape") => {
            let d = bvmesh::decode_rec(&r)?;
            let t = r.rec("tree")?;
            let nodes4: usize = t
                .recs("sections")?
                .iter()
                .map(|s| s.recs("nodes").map(|n| n.len()))
                .sum::<Result<usize>>()?;
            d.primitives.len() * PRIMITIVE
                + d.packed.len() * PACKED
                + d.shared.len() * SHARED
                + len(&t, "sharedVerticesIndex")? * SHARED_INDEX
                + t.recs("primitiveDataRuns")?.len() * RUN
                + d.sections.len() * SECTION
                + nodes4 * NODE4
                + t.recs("nodes")?.len() * NODE5
        }
        Some("hknpCompressedMeshShape") => {
            let data = r
                .ptr("data")?
                .ok_or_else(|| r.err("data", "a compressed mesh without data"))?;
            let t = Rec::object(g, data)?.rec("meshTree")?;
            let secs = t.recs("sections")?;
            let nodes4: usize = secs
                .iter()
                .map(|s| s.recs("nodes").map(|n| n.len()))
                .sum::<Result<usize>>()?;
            t.recs("primitives")?.len() * PRIMITIVE
                + len(&t, "packedVertices")? * PACKED
                + len(&t, "sharedVertices")? * SHARED
                + len(&t, "sharedVerticesIndex")? * SHARED_INDEX
                + t.recs("primitiveDataRuns")?.len() * RUN
                + secs.len() * SECTION
                + nodes4 * NODE4
                + t.recs("nodes")?.len() * NODE5
        }
        Some("hknpMeshShape") => {
            let d = mesh_shape::decode(g, id)?;
            let sections: usize = d
                .sections
                .iter()
                .map(|s| {
                    GEOMETRY_SECTION
                        + s.vertices.len() * VERTEX16
                        + s.primitives.len() * PRIMITIVE
                        + s.bvh.len() * AABB8
                        + s.interior.len()
                })
                .sum();
            sections + d.top.len() * SIMD_NODE + d.tag_table.len() * 8
        }
        _ => return Ok(None),
    }))
}

/// Which of [`KINDS`] object `id` is (its class or a parent), if any.
pub fn kind(graph: &Graph, id: ObjectId) -> Option<&'static str> {
    Rec::object(graph, id).ok()?.kind_among(KINDS)
}

fn len(r: &Rec<'_>, name: &str) -> Result<usize> {
    Ok(r.array(name)?.len())
}

/// Vertices, primitives (`a b c d`, or `a b c c` for a triangle) and a value per primitive.
type Primitives = (Vec<Vec3>, Vec<[u32; 4]>, Vec<u32>);

/// A triangle's corners and value.
type Keyed = ([u32; 3], u32);

/// Primitives of shape `id` as the shape walk gives its triangles: triangles whose keys
/// differ only in the lowest bit (`keyed_pairs`) or are equal (otherwise) are one quad
/// `a b c d` (the second triangle `a c d`); with their vertices and surface values.
fn primitives(graph: &Graph, id: ObjectId, keyed_pairs: bool) -> Result<Primitives> {
    let mut w = Walker::new(graph);
    let mut meshes = Vec::new();
    w.walk(id, Place::BODY, 1, &mut meshes)?;
    let mut verts = Vec::new();
    let mut groups: BTreeMap<(usize, u32), Vec<Keyed>> = BTreeMap::new();
    for (mi, m) in meshes.iter().enumerate() {
        let base = verts.len() as u32;
        verts.extend_from_slice(&m.vertices);
        for t in &m.triangles {
            let k = if keyed_pairs { t.key >> 1 } else { t.key };
            let value = t.surface.or(t.material).unwrap_or(0);
            groups
                .entry((mi, k))
                .or_default()
                .push((t.v.map(|v| v + base), value));
        }
    }
    let (mut prims, mut data) = (Vec::new(), Vec::new());
    for tris in groups.values() {
        match tris.as_slice() {
            [(a, va), (b, _)] if a[0] == b[0] && a[2] == b[1] => {
                prims.push([a[0], a[1], a[2], b[2]]);
                data.push(*va);
            }
            _ => {
                for (t, v) in tris {
                    prims.push([t[0], t[1], t[2], t[2]]);
                    data.push(*v);
                }
            }
        }
    }
    Ok((verts, prims, data))
}

/// Shape `id` (a compressed mesh or mesh shape) rebuilt from its own primitives by hk's
/// builder for its class, alone in a new graph of `schema` (one that has the builder's
/// classes: a file's own definitions may lack them); `None` for another class.
///
/// # Errors
/// A shape that does not decode, or the builder's refusal.
pub fn rebuild(
    graph: &Graph,
    id: ObjectId,
    schema: Arc<Schema>,
) -> Result<Option<(Graph, ObjectId)>> {
    let sv = &*graph.with_struct_values();
    let r = Rec::object(sv, id)?;
    let mut g = Graph::new(schema);
    let err = |e: crate::Error| CollisionError::shape(r.label(), "(rebuilt)", e.to_string());
    let out = match kind(graph, id) {
        Some("hkpBvCompressedMeshShape") => {
            let (v, p, data) = primitives(sv, id, true)?;
            bvmesh_build::build_primitives(&mut g, &v, &p, &data)?
        }
        Some("hknpCompressedMeshShape") => {
            let (vertices, primitives, data) = primitives(sv, id, false)?;
            let input = MeshInput {
                vertices,
                primitives,
                materials: data.iter().map(|&d| d as u16).collect(),
            };
            add_compressed_mesh(&mut g, &input).map_err(err)?.shape
        }
        Some("hknpMeshShape") => {
            let d = mesh_shape::decode(sv, id)?;
            let (v, p, data) = primitives(sv, id, true)?;
            let faces: Vec<Face> = p
                .iter()
                .zip(&data)
                .map(|(q, &tag)| Face {
                    points: if q[2] == q[3] { &q[..3] } else { &q[..] }
                        .iter()
                        .map(|&i| v[i as usize])
                        .collect(),
                    tag: tag as u16,
                })
                .collect();
            let opts = BuildOptions {
                max_error: d.bit_scale16_inv[0] * 0.5,
                ..BuildOptions::default()
            };
            build(&faces, &opts)?.write(&mut g)?
        }
        _ => return Ok(None),
    };
    Ok(Some((g, out)))
}
