//! Meshes to import: what `hk import` (and the Python `import_collision`) hands the
//! collision builders, independent of the file format the user edited (OBJ, glTF, GLB, or
//! arrays from Python).
//!
//! An [`InputMesh`] is one object of the edited file, named as `hk export` names it
//! (`body/shape`, docs/collision.md), with world-space vertices and triangles that carry
//! their surface (the `surface_N` material `hk export` wrote) and the number of the face
//! they came from, so every error can name the object and the face.

use crate::collision::Vec3;
use crate::tagfile::phive::{HitMask, Material};

/// A surface as a material name states it: `surface_N` gives the id N, `surface_none` no
/// id; a phive material name (`surface_2 material=7 sub=1 tags=0x4 layers=0x1
/// sublayers=0x0`) also gives the material entry and hit mask the id indexes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Surface {
    /// The surface id (`None` for `surface_none`).
    pub id: Option<u32>,
    /// The phive material entry and hit mask, when the name states them.
    pub phive: Option<(Material, HitMask)>,
}

/// One triangle of an [`InputMesh`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputTriangle {
    /// Vertex indices into [`InputMesh::vertices`].
    pub v: [u32; 3],
    /// Its surface.
    pub surface: Surface,
    /// The 1-based number of the face of the source file it came from (a polygon gives
    /// several triangles with one face number).
    pub face: u32,
}

/// One object of the edited file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputMesh {
    /// Its name: `body/shape` as `hk export` writes it, or any name for a new file.
    pub name: String,
    /// World-space vertices.
    pub vertices: Vec<Vec3>,
    /// Triangles.
    pub triangles: Vec<InputTriangle>,
}

impl InputMesh {
    /// The world-space corners of triangle `t`.
    pub fn corners(&self, t: &InputTriangle) -> [Vec3; 3] {
        t.v.map(|i| self.vertices[i as usize])
    }
}
