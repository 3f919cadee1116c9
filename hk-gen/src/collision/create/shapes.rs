//! The graphs of new level files: input meshes turned into each generation's shapes, with
//! the format limits checked (each failure names the object and face) and the fix-ups
//! made (splitting an object into more shapes), noted for stderr.

use std::collections::HashMap;
use std::sync::Arc;

use hk_runtime::collision::hknp;
use hk_runtime::collision::hknp::build::Placed;
use hk_runtime::collision::hknp::mesh_build::{self, BuildOptions, Face};
use hk_runtime::collision::hknp::mesh_shape::NO_TAG;
use hk_runtime::collision::hkp::bvmesh_build::{build_compound, build_mesh, InstanceInput};
use hk_runtime::collision::hkp::level_build::{self, BodyDesc, Placement, ShapeDesc, TriMesh};
use hk_runtime::collision::input::{InputMesh, InputTriangle};
use hk_runtime::collision::{Aabb, Affine, Vec3};
use hk_runtime::graph::{Graph, ObjectId, Ptr, Value};
use hk_runtime::tagfile::phive::{Extra, HitMask, Material, Phive, SHAPE};
use hk_runtime::Schema;

use crate::error::{Error, Result};
use crate::sample::{named_variant, Build};

/// Triangles of one MOPP subpart: keys are `subpart << 20 | triangle`
/// (docs/collision-notes.md §9.2).
pub const MOPP_TRIANGLES: usize = 1 << 20;

/// Vertices of one MOPP mesh: its triangles index them with 16 bits.
pub const MOPP_VERTICES: usize = 1 << 16;

/// The largest surface id a MOPP mesh's material word holds (bits 3 to 8, §9.3).
pub const MOPP_SURFACE: u32 = 63;

/// Triangles of one compressed mesh in a static compound: its keys (`section << 8 |
/// primitive`, sections of at most 128 primitives) then fit 16 bits (§11).
pub const BV_TRIANGLES: usize = 1 << 15;

/// Triangles and vertices of one 2016 `hknpCompressedMeshShape` hk builds: its vertices
/// used by several sections are stored once in a shared array of at most 65,536
/// (docs/collision-notes.md §12.2), which a mesh of at most that many vertices never
/// overflows; its keys, like the bv meshes', stay within 16 bits.
pub const CM_TRIANGLES: usize = 1 << 15;

/// See [`CM_TRIANGLES`].
pub const CM_VERTICES: usize = 1 << 16;

/// The widest face (metres) a phive mesh section holds at the default 1 mm grid: 65,000
/// steps of 1/512 m (docs/collision-notes.md §13).
pub const PHIVE_FACE: f32 = 65000.0 / 512.0;

/// The farthest coordinate (metres) a phive section offset reaches: a signed 32-bit grid
/// offset of 1/512 m steps (§13).
pub const PHIVE_REACH: f32 = 4_194_304.0;

/// The phive material entry of a surface id whose name states none.
pub const PHIVE_MATERIAL: Material = Material {
    material: 0,
    sub_material: 0,
    shape_tags: 0,
};

/// The phive hit mask of a surface id whose name states none (layer 0).
pub const PHIVE_HIT_MASK: HitMask = HitMask {
    layers: 1,
    sub_layers: 0,
};

/// An error naming mesh `m`'s triangle `t` (its object and source face).
fn at(m: &InputMesh, t: &InputTriangle, what: impl std::fmt::Display) -> Error {
    Error::usage(format!("{}: face {}: {what}", m.name, t.face))
}

/// A surface id as a number of at most `max`, `None` taken as 0.
fn surface_id(m: &InputMesh, t: &InputTriangle, max: u32, format: &str) -> Result<u32> {
    let id = t.surface.id.unwrap_or(0);
    if id > max {
        return Err(at(
            m,
            t,
            format!("surface id {id} does not fit {format} (0 to {max})"),
        ));
    }
    Ok(id)
}

/// Refuses a triangle with an index past the vertices or coordinates whose extent is not
/// a finite number.
fn check_mesh(m: &InputMesh) -> Result<()> {
    for t in &m.triangles {
        if t.v.iter().any(|&i| i as usize >= m.vertices.len()) {
            return Err(at(m, t, "a corner past the object's vertices"));
        }
    }
    let b = Aabb::of(m.vertices.iter().copied())
        .ok_or_else(|| Error::usage(format!("{}: no vertices", m.name)))?;
    if let Some(a) = (0..3).find(|&a| !(b.max[a] - b.min[a]).is_finite()) {
        let far = m
            .triangles
            .iter()
            .max_by(|x, y| {
                let r = |t: &InputTriangle| {
                    m.corners(t).iter().map(|p| p[a].abs()).fold(0f32, f32::max)
                };
                r(x).total_cmp(&r(y))
            })
            .ok_or_else(|| Error::usage(format!("{}: no triangles", m.name)))?;
        return Err(at(
            m,
            far,
            format!("the object's extent along axis {a} overflows a 32-bit float"),
        ));
    }
    Ok(())
}

/// A part of an object: its own vertices, and its triangles (the index of each in the
/// object, and its corners re-indexed into the part's vertices).
type Part = (Vec<Vec3>, Vec<(usize, [u32; 3])>);

/// Cuts `m`'s triangles, in order, into runs of at most `tris` triangles naming at most
/// `verts` vertices; each run with its own vertices (re-indexed from 0).
fn chunks(m: &InputMesh, tris: usize, verts: usize) -> Vec<Part> {
    let mut out = Vec::new();
    let mut map: HashMap<u32, u32> = HashMap::new();
    let mut cur: Part = (Vec::new(), Vec::new());
    for (k, t) in m.triangles.iter().enumerate() {
        let new = t.v.iter().filter(|v| !map.contains_key(v)).count();
        if cur.1.len() + 1 > tris || cur.0.len() + new > verts {
            out.push(std::mem::take(&mut cur));
            map.clear();
        }
        let v = t.v.map(|i| {
            *map.entry(i).or_insert_with(|| {
                cur.0.push(m.vertices[i as usize]);
                cur.0.len() as u32 - 1
            })
        });
        cur.1.push((k, v));
    }
    if !cur.1.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// The name of part `i` of `n` of object `name`.
pub fn part_name(name: &str, i: usize, n: usize) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name}#{}", i + 1)
    }
}

/// A level of MOPP meshes: one fixed body per object (split into more when it has more
/// vertices or triangles than one mesh addresses), through
/// [`hk_runtime::collision::hkp::level_build`].
pub fn mopp(schema: Arc<Schema>, meshes: &[InputMesh], notes: &mut Vec<String>) -> Result<Graph> {
    if !super::verify::surfaces_kept(&schema) {
        notes.push(format!(
            "{}: storage meshes keep no material records hk writes: surface ids are not stored",
            schema.generation.name
        ));
    }
    let mut bodies = Vec::new();
    for m in meshes {
        check_mesh(m)?;
        let surfaces = m
            .triangles
            .iter()
            .map(|t| surface_id(m, t, MOPP_SURFACE, "a MOPP mesh's material word"))
            .collect::<Result<Vec<u32>>>()?;
        let parts = chunks(m, MOPP_TRIANGLES, MOPP_VERTICES);
        if parts.len() > 1 {
            notes.push(format!(
                "{}: {} vertices and {} triangles split into {} bodies `{}#1` to `{}#{}` (a MOPP mesh holds at most {MOPP_VERTICES} vertices and {MOPP_TRIANGLES} triangles)",
                m.name,
                m.vertices.len(),
                m.triangles.len(),
                parts.len(),
                m.name,
                m.name,
                parts.len()
            ));
        }
        for (i, (vertices, tris)) in parts.iter().enumerate() {
            let mesh = TriMesh {
                vertices: vertices.clone(),
                triangles: tris.iter().map(|(_, v)| v.map(|x| x as u16)).collect(),
                surfaces: tris.iter().map(|(k, _)| surfaces[*k] as u8).collect(),
            };
            bodies.push(BodyDesc {
                name: part_name(&m.name, i, parts.len()),
                at: Placement::IDENTITY,
                motion: "MOTION_FIXED".into(),
                filter_info: 0,
                shape: ShapeDesc::MoppMesh(mesh),
            });
        }
    }
    Ok(level_build::build(schema, &bodies)?)
}

/// A level of static compounds. With rigid bodies in the schema: one fixed body per
/// object whose shape is an `hkpStaticCompoundShape` of the object's compressed meshes (one,
/// or one per [`BV_TRIANGLES`] triangles), the bodies built by `level_build` around a
/// placeholder shape that is then replaced. Without (the 2012.2 schema holds no
/// `hkpPhysicsData`): a root-level container of one static compound holding every
/// object's meshes, as the 2012.2 samples are.
pub fn bv(schema: Arc<Schema>, meshes: &[InputMesh], notes: &mut Vec<String>) -> Result<Graph> {
    for m in meshes {
        check_mesh(m)?;
    }
    if schema.class("hkpPhysicsData").is_none() {
        let mut b = Build::new(schema);
        let root = b.add("hkRootLevelContainer")?;
        let mut instances = Vec::new();
        for m in meshes {
            instances.extend(bv_meshes(&mut b.g, m, notes)?);
        }
        if meshes.len() > 1 {
            notes.push(format!(
                "this generation's schema has no rigid bodies: the {} objects are instances of one hkpStaticCompoundShape, their names are not stored",
                meshes.len()
            ));
        }
        let compound = bv_compound(&mut b.g, &instances)?;
        let class = "hkpStaticCompoundShape";
        named_variant(&mut b, root, "Static Compound", class, compound)?;
        return Ok(b.g);
    }
    let bodies: Vec<BodyDesc> = meshes
        .iter()
        .map(|m| BodyDesc {
            name: m.name.clone(),
            at: Placement::IDENTITY,
            motion: "MOTION_FIXED".into(),
            filter_info: 0,
            shape: ShapeDesc::Sphere { radius: 0.0 },
        })
        .collect();
    let mut g = level_build::build(schema, &bodies)?;
    let body_ids: Vec<ObjectId> = g.find("hkpRigidBody").collect();
    let mut placeholders = Vec::new();
    for (m, &body) in meshes.iter().zip(&body_ids) {
        let instances = bv_meshes(&mut g, m, notes)?;
        let compound = bv_compound(&mut g, &instances)?;
        if let Value::Pointer(Some(Ptr::Object(id))) = g.get(body, "collidable.shape")? {
            placeholders.push(id);
        }
        g.set(body, "collidable.shape", Value::object(compound))?;
    }
    placeholders.sort_unstable_by_key(|id| std::cmp::Reverse(id.0));
    for id in placeholders {
        g.remove_object(id)?;
    }
    Ok(g)
}

/// A static compound of `instances`, with as many bits for the instance index as their
/// count needs and the rest for the child keys.
fn bv_compound(g: &mut Graph, instances: &[InstanceInput]) -> Result<ObjectId> {
    let index_bits = (usize::BITS - instances.len().saturating_sub(1).leading_zeros()).max(1);
    build_compound(g, instances, 32 - index_bits)
        .map_err(|e| Error::collision(std::path::Path::new("(new static compound)"), e))
}

/// Object `m`'s compressed meshes, placed as they are, as compound instances.
fn bv_meshes(g: &mut Graph, m: &InputMesh, notes: &mut Vec<String>) -> Result<Vec<InstanceInput>> {
    let err = |e| Error::collision(std::path::Path::new(&m.name), e);
    let data = m
        .triangles
        .iter()
        .map(|t| surface_id(m, t, u32::MAX, "a data value"))
        .collect::<Result<Vec<u32>>>()?;
    let parts = chunks(m, BV_TRIANGLES, usize::MAX);
    if parts.len() > 1 {
        notes.push(format!(
            "{}: {} triangles split into {} compressed meshes (instances of its static compound; one holds at most {BV_TRIANGLES})",
            m.name,
            m.triangles.len(),
            parts.len()
        ));
    }
    let mut instances = Vec::new();
    for (vertices, tris) in &parts {
        let triangles: Vec<[u32; 3]> = tris.iter().map(|(_, v)| *v).collect();
        let values: Vec<u32> = tris.iter().map(|(k, _)| data[*k]).collect();
        let shape = build_mesh(g, vertices, &triangles, &values).map_err(err)?;
        instances.push(InstanceInput {
            shape,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            child_box: Aabb::of(vertices.iter().copied()).unwrap_or(Aabb {
                min: [0.0; 3],
                max: [0.0; 3],
            }),
            convex: false,
            user_data: 0,
        });
    }
    Ok(instances)
}

/// An id Tech cm shape: one `hknpCompressedMeshShape` per object (an `hknpCompoundShape`
/// of them for several), the surface id as each triangle's material value.
pub fn compressed(
    schema: Arc<Schema>,
    meshes: &[InputMesh],
    notes: &mut Vec<String>,
) -> Result<Graph> {
    let mut g = Graph::new(schema);
    let mut placed = Vec::new();
    for m in meshes {
        check_mesh(m)?;
        let ids = m
            .triangles
            .iter()
            .map(|t| surface_id(m, t, u32::from(u16::MAX), "a 16-bit material value"))
            .collect::<Result<Vec<u32>>>()?;
        let parts = chunks(m, CM_TRIANGLES, CM_VERTICES);
        if parts.len() > 1 {
            notes.push(format!(
                "{}: {} vertices and {} triangles split into {} compressed meshes (instances of the compound; one holds at most {CM_VERTICES} vertices and {CM_TRIANGLES} triangles)",
                m.name,
                m.vertices.len(),
                m.triangles.len(),
                parts.len()
            ));
        }
        for (vertices, tris) in parts {
            let mut input = hknp::build::MeshInput {
                vertices,
                ..Default::default()
            };
            for (k, v) in tris {
                input.primitives.push([v[0], v[1], v[2], v[2]]);
                input.materials.push(ids[k] as u16);
            }
            let layout = hknp::build::add_compressed_mesh(&mut g, &input)?;
            placed.push(Placed {
                shape: layout.shape,
                transform: Affine::IDENTITY,
                scale: [1.0; 3],
                local: Aabb::of(input.vertices.iter().copied()).unwrap_or(Aabb {
                    min: [0.0; 3],
                    max: [0.0; 3],
                }),
            });
        }
    }
    if placed.len() > 1 {
        notes.push(format!(
            "a cm file holds one shape: the {} objects are instances of one hknpCompoundShape, their names are not stored",
            placed.len()
        ));
        let slots: Vec<Option<Placed>> = placed.into_iter().map(Some).collect();
        g.root = hknp::build::add_compound(&mut g, &slots)?;
    } else {
        g.root = placed[0].shape;
    }
    Ok(g)
}

/// A phive container header for a new shape file: three sections and the end marker.
pub fn phive_header() -> Phive {
    Phive {
        reserved: [1, 0],
        file_type: SHAPE,
        capacity: 4,
        extras: Vec::new(),
    }
}

/// The palette of the surface ids `meshes` use: entry N is surface id N's phive material
/// and hit mask, [`PHIVE_MATERIAL`] and [`PHIVE_HIT_MASK`] where no name states them (one
/// such entry when no triangle has an id).
pub fn palette(meshes: &[InputMesh]) -> Result<(Vec<Material>, Vec<HitMask>)> {
    let mut entries: Vec<Option<(Material, HitMask)>> = Vec::new();
    for m in meshes {
        for t in &m.triangles {
            let Some(id) = t.surface.id else { continue };
            if id >= u32::from(NO_TAG) {
                return Err(at(
                    m,
                    t,
                    format!("surface id {id}: a shape tag is below {NO_TAG}"),
                ));
            }
            let i = id as usize;
            if entries.len() <= i {
                entries.resize(i + 1, None);
            }
            match (entries[i], t.surface.phive) {
                (Some(a), Some(b)) if a != b => {
                    return Err(at(
                        m,
                        t,
                        format!("surface id {id} states another phive material or hit mask than an earlier face"),
                    ))
                }
                (None, Some(b)) => entries[i] = Some(b),
                _ => {}
            }
        }
    }
    if entries.is_empty() {
        entries.push(None);
    }
    let full = entries
        .iter()
        .map(|e| e.unwrap_or((PHIVE_MATERIAL, PHIVE_HIT_MASK)));
    Ok(full.unzip())
}

/// A phive shape: one `hknpMeshShape` of every object's triangles, tag = surface id
/// (none for `surface_none`), and the container's material and hit-mask arrays.
pub fn mesh_shape(
    schema: Arc<Schema>,
    meshes: &[InputMesh],
    notes: &mut Vec<String>,
) -> Result<(Graph, Vec<Extra>)> {
    let (materials, hit_masks) = palette(meshes)?;
    let mut faces = Vec::new();
    for m in meshes {
        check_mesh(m)?;
        for t in &m.triangles {
            let points = m.corners(t).to_vec();
            let b = Aabb::of(points.iter().copied()).unwrap_or(Aabb {
                min: [0.0; 3],
                max: [0.0; 3],
            });
            if (0..3).any(|a| b.max[a] - b.min[a] > PHIVE_FACE) {
                return Err(at(
                    m,
                    t,
                    format!(
                        "wider than a mesh section's 16-bit grid holds ({PHIVE_FACE} m at 1 mm)"
                    ),
                ));
            }
            if points.iter().flatten().any(|x| x.abs() > PHIVE_REACH) {
                return Err(at(
                    m,
                    t,
                    format!(
                        "farther than {PHIVE_REACH} m from the origin (a section offset's reach)"
                    ),
                ));
            }
            let tag = t.surface.id.map_or(NO_TAG, |i| i as u16);
            faces.push(Face { points, tag });
        }
    }
    if meshes.len() > 1 {
        notes.push(format!(
            "a phive shape file holds one hknpMeshShape: the {} objects' triangles are merged, their names are not stored",
            meshes.len()
        ));
    }
    let collision = |e| Error::collision(std::path::Path::new("(new phive shape)"), e);
    let data = mesh_build::build(&faces, &BuildOptions::default()).map_err(collision)?;
    let mut g = Graph::new(schema);
    data.write(&mut g).map_err(collision)?;
    Ok((
        g,
        vec![Extra::Materials(materials), Extra::HitMasks(hit_masks)],
    ))
}
