//! `hknpCompressedMeshShape`s of Havok 2016 (id Tech `cm` files, docs/collision-notes.md
//! §12.2): the data object's `meshTree` and the shape's key width and quad and
//! internal-triangle bits are rebuilt from the new triangles by
//! [`compressed_build::add_compressed_mesh`]; the shape's other members, its data object
//! and the container's surface records are kept. A triangle's surface id becomes its
//! data-run value; triangles without one (what `hk export` writes for these meshes) keep
//! the value the triangle of the same number held, when the triangle count is unchanged,
//! else 0.

use std::collections::BTreeMap;

use crate::collision::access::Rec;
use crate::collision::hknp::compressed_build::{self, MeshInput};
use crate::collision::import::{err, IntoReport, Job, Replaced};
use crate::collision::mopp::degenerate;
use crate::collision::ShapeKind;
use crate::graph::{Graph, ObjectId};
use crate::Result;

/// The members of the shape and of its data object a rebuild replaces.
const SHAPE_MEMBERS: [&str; 3] = ["numShapeKeyBits", "quadIsFlat", "triangleIsInternal"];
const DATA_MEMBERS: [&str; 1] = ["meshTree"];

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
        if js.len() > 1 {
            return Err(err(
                &js[1].name,
                format!("its shape is shared with {}: hk import rewrites a shared compressed mesh only through one object", js[0].name),
            )
            .into());
        }
        let j = js[0];
        if j.body.object != id {
            return Err(err(
                &j.name,
                "hk import does not rewrite a compressed mesh inside a compound yet (its instance tree would keep the old boxes)",
            )
            .into());
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
        report.replaced.push(Replaced {
            name: j.name.clone(),
            vertices: j.vertices.len(),
            triangles: j.input.triangles.len(),
            degenerate: j
                .input
                .triangles
                .iter()
                .filter(|t| {
                    let [a, b, c] = j.corners(t);
                    degenerate(a, b, c)
                })
                .count(),
        });
    }
    Ok(())
}
