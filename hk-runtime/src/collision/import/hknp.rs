//! `hknpCompressedMeshShape`s of Havok 2016 (id Tech `cm` files, docs/collision-notes.md
//! §12.2): the data object's `meshTree` and the shape's key width and quad and
//! internal-triangle bits are rebuilt from the new triangles by
//! [`compressed_build::add_compressed_mesh`]; the shape's other members, its data object
//! and the container's surface records are kept. A triangle's surface id becomes its
//! data-run value; triangles without one (what `hk export` writes for these meshes) keep
//! the value the triangle of the same number held, when the triangle count is unchanged,
//! else 0.
//!
//! Every `hknpCompoundShape` above a rebuilt mesh gets a new instance tree, box and
//! bounding radius over its instances' placed boxes ([`build::add_compound`]); its
//! instances are kept. A mesh several instances share is rewritten once, from meshes that
//! agree in its own space.

use std::collections::BTreeMap;

use crate::collision::access::{is_a, Rec};
use crate::collision::hknp::build::{self, Placed};
use crate::collision::hknp::compressed_build::{self, MeshInput};
use crate::collision::hknp::triangles;
use crate::collision::import::bvmesh::{agree, child_box};
use crate::collision::import::{err, IntoReport, Job};
use crate::collision::math::Affine;
use crate::collision::ShapeKind;
use crate::graph::{Graph, ObjectId};
use crate::Result;

/// The members of the shape and of its data object a rebuild replaces.
const SHAPE_MEMBERS: [&str; 3] = ["numShapeKeyBits", "quadIsFlat", "triangleIsInternal"];
const DATA_MEMBERS: [&str; 1] = ["meshTree"];

/// The members of a compound a rebuild of its children replaces.
const COMPOUND_MEMBERS: [&str; 3] = ["aabb", "boundingVolumeData", "boundingRadius"];

/// Rewrites the compressed-mesh jobs of `jobs` in `graph`.
pub(super) fn apply(graph: &mut Graph, jobs: &[Job<'_>], report: &mut IntoReport) -> Result<()> {
    let mut by_object: BTreeMap<ObjectId, Vec<&Job<'_>>> = BTreeMap::new();
    for j in jobs
        .iter()
        .filter(|j| j.mesh.kind == ShapeKind::CompressedMesh)
    {
        by_object.entry(j.mesh.object).or_default().push(j);
    }
    for (&id, js) in &by_object {
        let j = js[0];
        for other in &js[1..] {
            agree(j, other)?;
        }
        let view = graph.with_struct_values().into_owned();
        let data = Rec::object(&view, id)?
            .ptr("data")?
            .ok_or_else(|| err(&j.name, "the shape has no data object"))?;
        let keep = j.mesh.triangles.len() == j.input.triangles.len();
        let materials = j
            .input
            .triangles
            .iter()
            .zip(0..)
            .map(|(t, k)| match t.surface.id {
                Some(s) => u16::try_from(s).map_err(|_| {
                    err(
                        &j.name,
                        format!(
                            "face {}: surface_{s}: a data-run value holds 0 to 65535",
                            t.face
                        ),
                    )
                }),
                None if keep => Ok(j.mesh.triangles[k].material.unwrap_or(0) as u16),
                None => Ok(0),
            })
            .collect::<std::result::Result<Vec<u16>, _>>()?;
        let input = MeshInput {
            vertices: j.vertices.clone(),
            primitives: j
                .input
                .triangles
                .iter()
                .map(|t| [t.v[0], t.v[1], t.v[2], t.v[2]])
                .collect(),
            materials,
        };
        let built = compressed_build::add_compressed_mesh(graph, &input)?;
        let new_data = Rec::object(&graph.with_struct_values(), built.shape)?
            .ptr("data")?
            .ok_or_else(|| err(&j.name, "the built shape has no data object"))?;
        for m in SHAPE_MEMBERS {
            let v = graph.get(built.shape, m)?;
            graph.set(id, m, v)?;
        }
        for m in DATA_MEMBERS {
            let v = graph.get(new_data, m)?;
            graph.set(data, m, v)?;
        }
        // The two new objects are the last; the later first.
        graph.remove_object(built.shape.max(new_data))?;
        graph.remove_object(built.shape.min(new_data))?;
        for j in js {
            report.replaced.push(j.replaced(|p| p));
        }
    }
    let changed: Vec<ObjectId> = by_object.keys().copied().collect();
    rebuild_compounds(graph, &changed)
}

/// Gives every `hknpCompoundShape` that holds a mesh of `changed` a new instance tree,
/// box and bounding radius.
fn rebuild_compounds(g: &mut Graph, changed: &[ObjectId]) -> Result<()> {
    let compounds: Vec<ObjectId> = (0..g.objects.len() as u32)
        .map(ObjectId)
        .filter(|&id| is_a(g.schema(), g.class_name(id), "hknpCompoundShape"))
        .collect();
    for id in compounds {
        let view = g.with_struct_values().into_owned();
        let r = Rec::object(&view, id)?;
        let used = triangles::compound(&r)?;
        if !used.iter().any(|i| changed.contains(&i.shape)) {
            continue;
        }
        let scene = crate::collision::read(&view)?;
        let elements = r.rec("instances")?.recs("elements")?;
        let mut slots: Vec<Option<Placed>> = vec![None; elements.len()];
        for i in &used {
            let e = &elements[i.index];
            let transform = Affine::from_transform(e.floats("transform", 16)?)
                .ok_or_else(|| e.err("transform", "expected 16 floats"))?;
            slots[i.index] = Some(Placed {
                shape: i.shape,
                transform,
                scale: e.vec3("scale")?,
                local: child_box(&scene, i.shape),
            });
        }
        let first_new = g.objects.len() as u32;
        let built = build::add_compound(g, &slots)?;
        for m in COMPOUND_MEMBERS {
            let v = g.get(built, m)?;
            g.set(id, m, v)?;
        }
        for k in (first_new..g.objects.len() as u32).rev() {
            g.remove_object(ObjectId(k))?;
        }
    }
    Ok(())
}
