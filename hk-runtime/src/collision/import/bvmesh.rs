//! `hkpBvCompressedMeshShape`s (Havok 2012.2-2014, docs/collision-notes.md §11), alone or
//! as children of `hkpStaticCompoundShape`s: the mesh's `tree` is rebuilt from the new
//! triangles by [`bvmesh_build::build_mesh`] (a surface id becomes the data-run value),
//! and every compound above a rebuilt mesh gets a new instance tree over the instances'
//! placed boxes ([`bvmesh_build::build_compound`]); everything else the objects hold is
//! kept. A mesh several instances share is rewritten once, from meshes that agree in its
//! own space.

use std::collections::BTreeMap;

use crate::collision::access::{is_a, Rec};
use crate::collision::hkp::bvmesh_build::{self, InstanceInput};
use crate::collision::hkp::compound::{self, FLAG_CONVEX};
use crate::collision::import::{err, IntoReport, Job};
use crate::collision::math::{Aabb, Vec3};
use crate::collision::{Scene, ShapeKind};
use crate::graph::{Graph, ObjectId};
use crate::Result;

/// How far two meshes for one shared child may disagree in its space.
const SHARED_TOLERANCE: f32 = 1e-3;

/// Rewrites the compressed-mesh jobs of `jobs` in `graph`, then the compounds above them.
pub(super) fn apply(graph: &mut Graph, jobs: &[Job<'_>], report: &mut IntoReport) -> Result<()> {
    let mut by_object: BTreeMap<ObjectId, Vec<&Job<'_>>> = BTreeMap::new();
    for j in jobs
        .iter()
        .filter(|j| j.mesh.kind == ShapeKind::BvCompressedMesh)
    {
        by_object.entry(j.mesh.object).or_default().push(j);
    }
    if by_object.is_empty() {
        return Ok(());
    }
    for (&id, js) in &by_object {
        let j = js[0];
        for other in &js[1..] {
            agree(j, other)?;
        }
        let tris: Vec<[u32; 3]> = j.input.triangles.iter().map(|t| t.v).collect();
        let data: Vec<u32> = j
            .input
            .triangles
            .iter()
            .map(|t| t.surface.id.unwrap_or(0))
            .collect();
        let built = bvmesh_build::build_mesh(graph, &j.vertices, &tris, &data)?;
        transplant(graph, built, id, &["tree"])?;
        for j in js {
            report.replaced.push(j.replaced(|p| p));
        }
    }
    let changed: Vec<ObjectId> = by_object.keys().copied().collect();
    rebuild_compounds(graph, &changed)
}

/// Two meshes for one shared child give the same triangles in its space.
pub(super) fn agree(a: &Job<'_>, b: &Job<'_>) -> Result<()> {
    let same = a.input.triangles.len() == b.input.triangles.len()
        && a.input
            .triangles
            .iter()
            .zip(&b.input.triangles)
            .all(|(s, t)| {
                s.surface.id == t.surface.id
                    && a.corners(s)
                        .iter()
                        .zip(&b.corners(t))
                        .all(|(p, q): (&Vec3, &Vec3)| {
                            (0..3).all(|i| (p[i] - q[i]).abs() <= SHARED_TOLERANCE)
                        })
            });
    if same {
        Ok(())
    } else {
        Err(err(
            &b.name,
            format!(
                "its shape is shared with {}, whose mesh differs in the shape's own space: edit every instance of a shared shape alike",
                a.name
            ),
        )
        .into())
    }
}

/// Copies members `members` of the object `from` (the last of the graph, just built) into
/// `to`, then removes `from`.
pub(super) fn transplant(
    g: &mut Graph,
    from: ObjectId,
    to: ObjectId,
    members: &[&str],
) -> Result<()> {
    for m in members {
        let v = g.get(from, m)?;
        g.set(to, m, v)?;
    }
    g.remove_object(from)?;
    Ok(())
}

/// Gives every static compound that holds a mesh of `changed` a new instance tree.
fn rebuild_compounds(g: &mut Graph, changed: &[ObjectId]) -> Result<()> {
    let compounds: Vec<ObjectId> = (0..g.objects.len() as u32)
        .map(ObjectId)
        .filter(|&id| is_a(g.schema(), g.class_name(id), "hkpStaticCompoundShape"))
        .collect();
    for id in compounds {
        let view = g.with_struct_values().into_owned();
        let c = compound::decode(&view, id)?;
        let scene = crate::collision::read(&view)?;
        if !c
            .instances
            .iter()
            .any(|i| i.shape.is_some_and(|s| changed.contains(&s)))
        {
            continue;
        }
        let mut inputs = Vec::with_capacity(c.instances.len());
        for i in &c.instances {
            let Some(shape) = i.shape else {
                return Err(Rec::object(&view, id)?
                    .err(
                        "instances",
                        "an instance without a shape: its tree cannot be rebuilt",
                    )
                    .into());
            };
            inputs.push(InstanceInput {
                shape,
                translation: [i.qs[0], i.qs[1], i.qs[2]],
                rotation: [i.qs[4], i.qs[5], i.qs[6], i.qs[7]],
                scale: [i.qs[8], i.qs[9], i.qs[10]],
                child_box: child_box(&scene, shape),
                convex: i.flags & FLAG_CONVEX != 0,
                user_data: i.user_data,
            });
        }
        let built = bvmesh_build::build_compound(g, &inputs, c.child_key_bits)?;
        transplant(g, built, id, &["tree"])?;
    }
    Ok(())
}

/// The box a child shape's triangles span in its own space (a point for a shape without
/// triangles).
pub(super) fn child_box(scene: &Scene, shape: ObjectId) -> Aabb {
    scene
        .meshes()
        .find(|(_, m)| m.object == shape)
        .and_then(|(_, m)| Aabb::of(m.vertices.iter().copied()))
        .unwrap_or(Aabb {
            min: [0.0; 3],
            max: [0.0; 3],
        })
}
