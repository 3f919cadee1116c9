//! `hknpMeshShape`s of phive `.bphsh` files (docs/collision-notes.md §13): every mesh
//! object naming one of the shape's sections (`body/hknpMeshShape#N/S`, one object a
//! section as `hk export` writes them) goes into one rebuild by
//! [`mesh_build::build`]; the shape's geometry members (grid steps, key width, tag table,
//! both trees, sections) and its primitive mapping's members are replaced in place, its
//! other members and objects are kept.
//!
//! A triangle's shape tag comes from its surface: its phive material and hit mask (from
//! the material name) pick the palette entry holding both, preferring the surface id's own
//! entry, and are appended to the container's material and hit-mask arrays when no entry
//! holds them; a surface id without phive data must index the palette; no surface id is
//! "no tag".

use std::collections::BTreeMap;

use crate::collision::access::Rec;
use crate::collision::hknp::mesh_build::{self, BuildOptions, Face};
use crate::collision::hknp::mesh_shape::{Palette, PhiveSurface, NO_TAG};
use crate::collision::import::{err, IntoReport, Job};
use crate::collision::input::InputTriangle;
use crate::collision::ShapeKind;
use crate::graph::{Graph, ObjectId};
use crate::tagfile::phive::Extra;
use crate::Result;

/// The members of the shape a rebuild replaces.
const SHAPE_MEMBERS: [&str; 5] = [
    "numShapeKeyBits",
    "vertexConversionUtil",
    "shapeTagTable",
    "topLevelTree",
    "geometrySections",
];

/// The members of the primitive mapping a rebuild replaces.
const MAPPING_MEMBERS: [&str; 4] = [
    "sectionStart",
    "bitString",
    "bitsPerEntry",
    "triangleIndexBitMask",
];

/// Rewrites the mesh-shape jobs of `jobs` in `graph`, appending to the palette in
/// `extras` (a phive container's sections after the TAG0) what their surfaces need.
pub(super) fn apply(
    graph: &mut Graph,
    extras: Option<&mut Vec<Extra>>,
    jobs: &[Job<'_>],
    report: &mut IntoReport,
) -> Result<()> {
    let mut by_object: BTreeMap<ObjectId, Vec<&Job<'_>>> = BTreeMap::new();
    for j in jobs.iter().filter(|j| j.mesh.kind == ShapeKind::MeshShape) {
        by_object.entry(j.mesh.object).or_default().push(j);
    }
    if by_object.is_empty() {
        return Ok(());
    }
    let Some(extras) = extras else {
        let first = by_object.values().flat_map(|js| js.first()).next();
        return Err(err(
            first.map_or("", |j| j.name.as_str()),
            "an hknpMeshShape is rebuilt with its container's material and hit-mask arrays, which were not given",
        )
        .into());
    };
    let mut palette = Palette::from_extras(extras).unwrap_or_default();
    let before = palette.clone();
    for (&id, js) in &by_object {
        if let Some(other) = js.iter().find(|j| prefix(&j.name) != prefix(&js[0].name)) {
            return Err(err(
                &other.name,
                format!(
                    "its hknpMeshShape is shared with {}: hk import rewrites a shared mesh shape through one body",
                    js[0].name
                ),
            )
            .into());
        }
        let mut faces = Vec::new();
        for j in js {
            for t in &j.input.triangles {
                let tag = shape_tag(j, t, &mut palette)?;
                faces.push(Face {
                    points: j.corners(t).to_vec(),
                    tag,
                });
            }
            report.replaced.push(j.replaced(|p| p));
        }
        let data = mesh_build::build(&faces, &BuildOptions::default())
            .map_err(|e| err(&js[0].name, e.to_string()))?;
        let first_new = graph.objects.len() as u32;
        let built = data.write(graph)?;
        for m in SHAPE_MEMBERS {
            let v = graph.get(built, m)?;
            graph.set(id, m, v)?;
        }
        let view = graph.with_struct_values().into_owned();
        let old_map = Rec::object(&view, id)?.ptr("primitiveMapping")?;
        let new_map = Rec::object(&view, built)?.ptr("primitiveMapping")?;
        if let (Some(old), Some(new)) = (old_map, new_map) {
            for m in MAPPING_MEMBERS {
                let v = graph.get(new, m)?;
                graph.set(old, m, v)?;
            }
        }
        // The objects `write` added are the last; the later first.
        for k in (first_new..graph.objects.len() as u32).rev() {
            graph.remove_object(ObjectId(k))?;
        }
    }
    if palette != before {
        store(extras, &palette);
    }
    Ok(())
}

/// The shape tag of triangle `t` of job `j`, appending its phive surface to `palette`
/// when no entry holds it.
fn shape_tag(j: &Job<'_>, t: &InputTriangle, palette: &mut Palette) -> Result<u16> {
    let at = |what: String| err(&j.name, format!("face {}: {what}", t.face));
    let index = match (t.surface.id, t.surface.phive) {
        (id, Some((material, hit_mask))) => {
            let want = PhiveSurface { material, hit_mask };
            let own = id.filter(|&i| palette.resolve(i) == Some(want));
            match own.or_else(|| {
                (0..palette.len() as u32).find(|&i| palette.resolve(i) == Some(want))
            }) {
                Some(i) => i,
                None => {
                    if palette.materials.len() != palette.hit_masks.len() {
                        return Err(at(format!(
                            "its phive material and hit mask are not in the palette, whose material and hit-mask arrays differ in length ({} and {}): hk import does not append to it",
                            palette.materials.len(),
                            palette.hit_masks.len()
                        ))
                        .into());
                    }
                    palette.materials.push(material);
                    palette.hit_masks.push(hit_mask);
                    palette.len() as u32 - 1
                }
            }
        }
        (Some(id), None) if (id as usize) < palette.len() => id,
        (Some(id), None) => {
            return Err(at(format!(
                "surface_{id} states no phive material or hit mask and is past the palette's {} entries",
                palette.len()
            ))
            .into())
        }
        (None, None) => return Ok(NO_TAG),
    };
    u16::try_from(index)
        .ok()
        .filter(|&i| i < NO_TAG)
        .ok_or_else(|| {
            at(format!(
                "palette entry {index}: a shape tag is below {NO_TAG}"
            ))
            .into()
        })
}

/// Writes `palette` into the container's sections: the material and hit-mask arrays
/// replaced where they are, added after the others where there were none.
fn store(extras: &mut Vec<Extra>, palette: &Palette) {
    let (mut materials, mut hit_masks) = (false, false);
    for e in extras.iter_mut() {
        match e {
            Extra::Materials(m) => {
                m.clone_from(&palette.materials);
                materials = true;
            }
            Extra::HitMasks(h) => {
                h.clone_from(&palette.hit_masks);
                hit_masks = true;
            }
            Extra::Raw(_) => {}
        }
    }
    if !materials {
        extras.push(Extra::Materials(palette.materials.clone()));
    }
    if !hit_masks {
        extras.push(Extra::HitMasks(palette.hit_masks.clone()));
    }
}

/// The export name of a mesh-shape section without its section number (`body/shape#N/`):
/// every mesh object whose name starts with it goes into the shape's rebuild.
pub(super) fn prefix(section_name: &str) -> &str {
    section_name
        .rfind('/')
        .map_or(section_name, |k| &section_name[..=k])
}

/// Whether `name` is a mesh object of the shape whose export names start with `prefix`.
pub(super) fn names_shape(prefix: &str, name: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'))
}
