//! `hk import MESH --into FILE`: the geometry of a file's collision replaced by edited
//! meshes, everything else kept (bodies, placements, motion types, filter words, materials,
//! other objects). Edits go through [`Graph::set`] by member name, never by offset.
//!
//! Each [`InputMesh`] names the shape it replaces as `hk export` writes it
//! (`body/shape`, docs/collision.md): its world-space vertices are taken back into the
//! shape's space through the inverse of the body's placement and the shape's own
//! transforms, then written in the shape's own form:
//!
//! | shape | what is rewritten (module) |
//! |---|---|
//! | extended / storage mesh subpart under a MOPP | vertices, indices, per-triangle materials, the shape's box, `cachedNumChildShapes`, the MOPP code (`hkp`) |
//! | `hkpBvCompressedMeshShape`, alone or in an `hkpStaticCompoundShape` | the mesh's `tree` (sections, primitives, vertices, data runs, nodes), the compound's instance tree (`bvmesh`) |
//! | `hknpCompressedMeshShape` (id Tech `cm`), alone or in an `hknpCompoundShape` | the data object's `meshTree`, the shape's key width and quad bits, the compound's instance tree, box and radius (`hknp`) |
//! | `hknpMeshShape` (phive `.bphsh`) | the grid steps, key width, tag table, both trees and sections, the primitive mapping, the container's palette (`mesh_shape`) |
//!
//! Other shapes (primitives, convex shapes) are kept as stored; a mesh object naming one
//! is reported, not applied.

mod bvmesh;
mod hknp;
mod hkp;
mod mesh_shape;

use std::collections::HashMap;

use crate::collision::input::{InputMesh, InputTriangle, Surface};
use crate::collision::math::{Affine, Vec3};
use crate::collision::{self, Body, CollisionError, Mesh, Scene, ShapeKind};
use crate::graph::Graph;
use crate::tagfile::phive::Extra;
use crate::Result;

/// How [`into`] matches meshes to shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntoOptions {
    /// Leave shapes without a mesh as stored, and pass over mesh objects that name no
    /// shape, instead of refusing.
    pub allow_missing: bool,
}

/// One shape [`into`] replaced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replaced {
    /// The name it was matched by (`body/shape`).
    pub name: String,
    /// Its vertices now.
    pub vertices: usize,
    /// Its triangles now.
    pub triangles: usize,
    /// Triangles kept in the mesh but left out of its tree (the degenerate rule,
    /// docs/mopp.md §4).
    pub degenerate: usize,
}

/// What [`into`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntoReport {
    /// The shapes replaced, in file order.
    pub replaced: Vec<Replaced>,
    /// Shapes no mesh named, left as stored (`--allow-missing`).
    pub missing: Vec<String>,
    /// Mesh objects that name no shape, passed over (`--allow-missing`).
    pub unmatched: Vec<String>,
    /// Mesh objects that name a shape hk does not rewrite (a primitive or convex shape),
    /// left as stored.
    pub kept: Vec<String>,
    /// MOPP codes rebuilt.
    pub codes: usize,
}

/// The name `hk export` gives mesh `m` of body `b` (OBJ names end at a blank, so blanks
/// become `_`).
pub fn export_name(b: &Body, m: &Mesh) -> String {
    format!("{}/{}", clean(&b.name), clean(&m.name))
}

fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

/// The meshes of `scene` as `hk export` writes them: one object per body and shape,
/// world-space vertices, each triangle's surface id (and phive material and hit mask).
/// Importing these into the file `scene` was read from changes no triangle.
pub fn from_scene(scene: &Scene) -> Vec<InputMesh> {
    scene
        .meshes()
        .map(|(b, m)| InputMesh {
            name: export_name(b, m),
            vertices: b.world_vertices(m),
            triangles: m
                .triangles
                .iter()
                .enumerate()
                .map(|(k, t)| InputTriangle {
                    v: t.v,
                    surface: Surface {
                        id: t.surface,
                        phive: scene.phive_surface(t).map(|p| (p.material, p.hit_mask)),
                    },
                    face: k as u32 + 1,
                })
                .collect(),
        })
        .collect()
}

/// Whether hk rewrites shapes of kind `k`.
fn rewritable(k: ShapeKind) -> bool {
    matches!(
        k,
        ShapeKind::ExtendedMesh
            | ShapeKind::BvCompressedMesh
            | ShapeKind::CompressedMesh
            | ShapeKind::MeshShape
    )
}

/// Replaces the geometry of `graph`'s collision with `meshes`, matched by name: [`into_with`]
/// without container sections (a phive file's `hknpMeshShape` needs them).
///
/// # Errors
/// As [`into_with`].
pub fn into(graph: &mut Graph, meshes: &[InputMesh], opts: &IntoOptions) -> Result<IntoReport> {
    into_with(graph, None, meshes, opts)
}

/// Replaces the geometry of `graph`'s collision with `meshes`, matched by name; `extras`
/// are the phive container's sections after the TAG0, whose material and hit-mask arrays
/// get the phive surfaces a rebuilt `hknpMeshShape` needs. The mesh objects of an
/// `hknpMeshShape` are matched by the shape: every object named `body/shape#N/…` goes into
/// its one rebuild, whatever sections it had.
///
/// # Errors
/// A mesh object that names no shape, or a rewritable shape no mesh names (both unless
/// [`IntoOptions::allow_missing`]); two mesh objects with one name; a vertex the inverse
/// placement cannot reach; a surface id the shape cannot store (naming object and face);
/// an `hknpMeshShape` without `extras`; and what the graph edits report.
pub fn into_with(
    graph: &mut Graph,
    extras: Option<&mut Vec<Extra>>,
    meshes: &[InputMesh],
    opts: &IntoOptions,
) -> Result<IntoReport> {
    let scene = collision::read(graph)?;
    let mut by_name: HashMap<String, &InputMesh> = HashMap::new();
    for m in meshes {
        if by_name.insert(clean(&m.name), m).is_some() {
            return Err(err(&m.name, "two mesh objects have this name").into());
        }
    }
    let mut report = IntoReport::default();
    // Matched meshes, with their input in shape space.
    let mut jobs: Vec<Job<'_>> = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    let mut shapes_seen = Vec::new();
    for (b, m) in scene.meshes() {
        let name = export_name(b, m);
        if m.kind == ShapeKind::MeshShape {
            if shapes_seen.contains(&(b.object, m.object)) {
                continue;
            }
            shapes_seen.push((b.object, m.object));
            let prefix = mesh_shape::prefix(&name);
            let mut inputs: Vec<&InputMesh> = meshes
                .iter()
                .filter(|i| mesh_shape::names_shape(prefix, &clean(&i.name)))
                .collect();
            inputs.sort_by_key(|i| clean(&i.name));
            if inputs.is_empty() {
                if !opts.allow_missing {
                    return Err(err(&format!("{prefix}*"), "no mesh object names this hknpMeshShape (the shape would be left without a mesh; --allow-missing keeps it as stored)").into());
                }
                report.missing.push(format!("{prefix}*"));
            }
            for input in inputs {
                used.push(input.name.as_str());
                jobs.push(job(clean(&input.name), b, m, input)?);
            }
            continue;
        }
        let Some(input) = by_name.get(&name) else {
            if rewritable(m.kind) {
                if !opts.allow_missing {
                    return Err(err(&name, "no mesh object has this name (the shape would be left without a mesh; --allow-missing keeps it as stored)").into());
                }
                report.missing.push(name);
            }
            continue;
        };
        used.push(input.name.as_str());
        if !rewritable(m.kind) {
            report.kept.push(name);
            continue;
        }
        jobs.push(job(name, b, m, input)?);
    }
    for m in meshes {
        if !used.contains(&m.name.as_str()) {
            if !opts.allow_missing {
                return Err(err(
                    &m.name,
                    "names no shape of the file (hk export names objects body/shape; --allow-missing passes it over)",
                )
                .into());
            }
            report.unmatched.push(m.name.clone());
        }
    }
    check_indices(&jobs)?;
    hkp::apply(graph, &jobs, &mut report)?;
    bvmesh::apply(graph, &jobs, &mut report)?;
    hknp::apply(graph, &jobs, &mut report)?;
    mesh_shape::apply(graph, extras, &jobs, &mut report)?;
    Ok(report)
}

/// The job of `input` replacing mesh `m` of body `b`: its vertices taken into the mesh's
/// space.
fn job<'a>(name: String, b: &'a Body, m: &'a Mesh, input: &'a InputMesh) -> Result<Job<'a>> {
    let to_world = b.to_world.then_inner(&m.to_body);
    let back = Inverse::of(&to_world).ok_or_else(|| {
        err(
            &name,
            "its placement cannot be inverted (a zero scale): its vertices cannot be taken back into the shape's space",
        )
    })?;
    let vertices = input.vertices.iter().map(|&p| back.apply(p)).collect();
    Ok(Job {
        name,
        mesh: m,
        input,
        vertices,
    })
}

/// One shape to rewrite: its mesh as read, the input that replaces it, the input's
/// vertices in the mesh's space.
pub(crate) struct Job<'a> {
    pub(crate) name: String,
    pub(crate) mesh: &'a Mesh,
    pub(crate) input: &'a InputMesh,
    pub(crate) vertices: Vec<Vec3>,
}

impl Job<'_> {
    /// The corners of input triangle `t` in the mesh's space.
    pub(crate) fn corners(&self, t: &InputTriangle) -> [Vec3; 3] {
        t.v.map(|i| self.vertices[i as usize])
    }

    /// What this job replaced; `to_tree` takes a corner into the space the shape's tree
    /// judges degenerate triangles in (docs/mopp.md §4).
    pub(crate) fn replaced(&self, to_tree: impl Fn(Vec3) -> Vec3) -> Replaced {
        let degenerate = self
            .input
            .triangles
            .iter()
            .filter(|t| {
                let [a, b, c] = self.corners(t).map(&to_tree);
                crate::collision::mopp::degenerate(a, b, c)
            })
            .count();
        Replaced {
            name: self.name.clone(),
            vertices: self.vertices.len(),
            triangles: self.input.triangles.len(),
            degenerate,
        }
    }
}

/// Every triangle names vertices of its mesh.
fn check_indices(jobs: &[Job<'_>]) -> Result<()> {
    for j in jobs {
        let n = j.vertices.len();
        if let Some(t) = j
            .input
            .triangles
            .iter()
            .find(|t| t.v.iter().any(|&i| i as usize >= n))
        {
            return Err(err(
                &j.name,
                format!("face {} names a vertex past its {n} vertices", t.face),
            )
            .into());
        }
    }
    Ok(())
}

/// An import error about mesh object `name`.
pub(crate) fn err(name: &str, message: impl Into<String>) -> Box<CollisionError> {
    CollisionError::shape(name, "", message)
}

/// The inverse of an [`Affine`], applied in double precision so that a vertex taken to
/// world space and back lands on itself (to the last bit for the identity).
#[derive(Clone, Copy, Debug)]
pub struct Inverse {
    rows: [[f64; 3]; 3],
    t: [f64; 3],
}

impl Inverse {
    /// The inverse of `a`, `None` when its linear part is singular.
    pub fn of(a: &Affine) -> Option<Inverse> {
        let [c0, c1, c2] = a.cols.map(|c| c.map(f64::from));
        // The rows of the inverse are the cross products of the columns over the
        // determinant.
        let cross = |u: [f64; 3], v: [f64; 3]| {
            [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ]
        };
        let (r0, r1, r2) = (cross(c1, c2), cross(c2, c0), cross(c0, c1));
        let det = c0[0] * r0[0] + c0[1] * r0[1] + c0[2] * r0[2];
        if !det.is_finite() || det.abs() < 1e-12 {
            return None;
        }
        Some(Inverse {
            rows: [r0, r1, r2].map(|r| r.map(|x| x / det)),
            t: a.t.map(f64::from),
        })
    }

    /// The point `p` taken back.
    pub fn apply(&self, p: Vec3) -> Vec3 {
        let d = [0, 1, 2].map(|i| f64::from(p[i]) - self.t[i]);
        self.rows
            .map(|r| (r[0] * d[0] + r[1] * d[1] + r[2] * d[2]) as f32)
    }
}
