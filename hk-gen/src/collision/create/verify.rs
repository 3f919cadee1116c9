//! The checks every new level file passes before it is handed out: read back strictly
//! through the front door, written again byte for byte, every input triangle found (its
//! corners within the format's quantum, its surface id kept), no triangle more, and the
//! trees checked.

use std::collections::HashMap;

use hk_runtime::collision::check;
use hk_runtime::collision::input::InputMesh;
use hk_runtime::collision::mopp::degenerate;
use hk_runtime::collision::{self, Scene, Vec3};
use hk_runtime::file::{self, Origin};
use hk_runtime::schema::Shape;
use hk_runtime::Schema;

use super::Kind;
use crate::context::Context;
use crate::error::{Error, Result};

/// One triangle as read back: world corners and its surface id.
type Found = ([Vec3; 3], Option<u32>);

/// The largest distance (per coordinate) a vertex of `m` may move in a file of `kind`:
/// none for the float vertices of a MOPP mesh; a step of the coarsest grid a compressed
/// mesh packs a vertex on (10 bits over the object's box, docs/collision-notes.md §11-12);
/// the 1 mm a phive mesh shape is built to (§13).
pub fn quantum(kind: Kind, m: &InputMesh) -> f32 {
    let extent = collision::Aabb::of(m.vertices.iter().copied()).map_or(0.0, |b| {
        (0..3).map(|a| b.max[a] - b.min[a]).fold(0f32, f32::max)
    });
    match kind {
        Kind::Mopp => 0.0,
        Kind::BvCompound | Kind::CompressedCm => extent / 1024.0,
        Kind::MeshShape => 0.001,
    }
}

/// The surface id a file of `kind` gives back for `id`: a missing id is 0 except in a
/// phive mesh shape, which stores "no tag"; none at all when the file keeps no surface
/// ids (`kept` false, see [`surfaces_kept`]).
pub fn expected_surface(kind: Kind, id: Option<u32>, kept: bool) -> Option<u32> {
    match kind {
        _ if !kept => None,
        Kind::MeshShape => id,
        _ => Some(id.unwrap_or(0)),
    }
}

/// Whether the storage meshes of `graph`'s schema keep surface ids: their `materials` are
/// records with a filter word (Havok 5.5 stores plain words there, which hk does not read
/// and the level builder leaves empty). True for a schema without storage meshes.
pub fn surfaces_kept(schema: &Schema) -> bool {
    let Some(id) = [
        "hkpStorageExtendedMeshShapeMeshSubpartStorage",
        "hkpStorageExtendedMeshShape::MeshSubpartStorage",
    ]
    .iter()
    .find_map(|c| schema.class_id(c)) else {
        return true;
    };
    let members = schema.members(id).ok();
    let shape = members
        .iter()
        .flat_map(|m| m.iter())
        .find(|m| schema.member_of(m).name == "materials")
        .map(|m| m.shape.clone());
    match shape {
        Some(Shape::Array(_, e)) => matches!(*e, Shape::Struct(_)),
        _ => true,
    }
}

/// Reads `bytes` strictly and checks them against `meshes` (see the module).
///
/// # Errors
/// A file that does not read strictly or round-trip, a triangle missing or moved past the
/// quantum or with another surface id (naming the object and face), an extra triangle, a
/// tree that fails its check. Each is a bug of the builders, never a user error.
pub fn verify(ctx: &Context, bytes: &[u8], kind: Kind, meshes: &[InputMesh]) -> Result<()> {
    let bug = |what: String| Error::usage(format!("the new level file fails its check: {what}"));
    let (doc, _) = ctx.open_written(bytes)?;
    if file::write(&doc)? != bytes {
        return Err(bug("it does not write back byte for byte".into()));
    }
    let extras = match &doc.origin {
        Origin::Tagfile { file, .. } => file.phive.as_ref().map(|p| p.extras.as_slice()),
        _ => None,
    };
    let scene = collision::read_with(&doc.graph, extras.unwrap_or(&[]))
        .map_err(|e| Error::collision(std::path::Path::new("(new level file)"), e))?;
    let kept = surfaces_kept(doc.graph.schema());
    compare(&scene, kind, meshes, kept).map_err(bug)?;
    check::check_trees(&doc.graph, &scene, crate::collision::import::BOXES, 1)
        .map_err(|e| bug(e.to_string()))?;
    Ok(())
}

/// Every triangle of `scene`, in world space, with its surface id (a cm file's material
/// value).
fn found(scene: &Scene, kind: Kind) -> Vec<Found> {
    let mut out = Vec::new();
    for (b, m) in scene.meshes() {
        let w = b.world_vertices(m);
        for t in &m.triangles {
            let s = if kind == Kind::CompressedCm {
                t.material
            } else {
                t.surface
            };
            out.push((t.v.map(|i| w[i as usize]), s));
        }
    }
    out
}

fn centre(c: &[Vec3; 3]) -> Vec3 {
    [0, 1, 2].map(|a| (c[0][a] + c[1][a] + c[2][a]) / 3.0)
}

/// Whether `got` is `want` (a rotation of its corners) within `tol` per coordinate, plus
/// the float rounding of the coordinate's size.
fn same(want: &[Vec3; 3], got: &[Vec3; 3], tol: f32) -> bool {
    let near =
        |p: &Vec3, q: &Vec3| (0..3).all(|a| (p[a] - q[a]).abs() <= tol + 1e-6 * (1.0 + p[a].abs()));
    (0..3).any(|r| (0..3).all(|k| near(&want[k], &got[(k + r) % 3])))
}

/// Matches every input triangle to one triangle of `scene` (a grid over the centres finds
/// the candidates), its surface id as [`expected_surface`] gives it; degenerate input
/// triangles may be left out, nothing else.
///
/// # Errors
/// The first missing triangle (object and face), or the count of extra ones.
pub fn compare(
    scene: &Scene,
    kind: Kind,
    meshes: &[InputMesh],
    kept: bool,
) -> std::result::Result<(), String> {
    let got = found(scene, kind);
    let tol = meshes.iter().map(|m| quantum(kind, m)).fold(0f32, f32::max);
    let span = collision::Aabb::of(got.iter().flat_map(|t| t.0)).map_or(1.0, |b| {
        (0..3).map(|a| b.max[a] - b.min[a]).fold(0f32, f32::max)
    });
    let cell = (4.0 * tol).max(span / 1024.0).max(1e-6);
    let key = |p: Vec3| p.map(|x| (x / cell).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, t) in got.iter().enumerate() {
        grid.entry(key(centre(&t.0))).or_default().push(i);
    }
    let mut used = vec![false; got.len()];
    for m in meshes {
        for t in &m.triangles {
            let want = m.corners(t);
            let surface = expected_surface(kind, t.surface.id, kept);
            let k = key(centre(&want));
            let hit = (0..27).find_map(|n| {
                let c = [k[0] + n % 3 - 1, k[1] + n / 3 % 3 - 1, k[2] + n / 9 - 1];
                grid.get(&c)?
                    .iter()
                    .copied()
                    .find(|&i| !used[i] && got[i].1 == surface && same(&want, &got[i].0, tol))
            });
            match hit {
                Some(i) => used[i] = true,
                None if degenerate(want[0], want[1], want[2]) => {}
                None => {
                    return Err(format!(
                        "{}: face {}: its triangle {want:?} (surface {surface:?}) is not read back within {tol}",
                        m.name, t.face
                    ))
                }
            }
        }
    }
    let extra = used.iter().filter(|u| !**u).count();
    if extra > 0 {
        return Err(format!("{extra} triangles read back that no mesh holds"));
    }
    Ok(())
}
