//! The 2012.2 level sample (docs/collision-notes.md §11): an `hkpStaticCompoundShape` of
//! three instances of two `hkpBvCompressedMeshShape`s built from triangles by
//! `hk_runtime::collision::hkp::bvmesh_build`: a rolling terrain (many sections, shared vertices
//! on their borders) placed as is, and a box placed once scaled and once rotated.

use std::sync::Arc;

use hk_runtime::collision::hkp::bvmesh_build::{build_compound, build_mesh, InstanceInput};
use hk_runtime::collision::{Aabb, Vec3};
use hk_runtime::graph::Graph;
use hk_runtime::Schema;

use super::{named_variant, Build};
use crate::error::{Error, Result};

/// One mesh of the level: vertices, triangles, a data value per triangle.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshInput {
    /// Vertices.
    pub vertices: Vec<Vec3>,
    /// Triangles (indices into `vertices`).
    pub triangles: Vec<[u32; 3]>,
    /// A data value per triangle.
    pub data: Vec<u32>,
}

/// Cells of the terrain along each side.
pub const TERRAIN_CELLS: u32 = 20;

/// The terrain: `TERRAIN_CELLS`² cells of two triangles, 2 units a cell, heights rolling
/// between 0 and 3; the data value is 1 on the left half and 2 on the right.
pub fn terrain() -> MeshInput {
    let n = TERRAIN_CELLS;
    let mut m = MeshInput {
        vertices: Vec::new(),
        triangles: Vec::new(),
        data: Vec::new(),
    };
    for j in 0..=n {
        for i in 0..=n {
            let (x, y) = (i as f32 * 2.0, j as f32 * 2.0);
            let z = 1.5 + 1.5 * (x * 0.3).sin() * (y * 0.2).cos();
            m.vertices.push([x, y, z]);
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            let value = if i < n / 2 { 1 } else { 2 };
            m.triangles.push([a, b, c]);
            m.triangles.push([a, c, d]);
            m.data.extend([value, value]);
        }
    }
    m
}

/// A unit box (half extent 1) of 12 triangles, data value 7.
pub fn unit_box() -> MeshInput {
    let vertices: Vec<Vec3> = (0..8)
        .map(|i| [0, 1, 2].map(|a| if i >> a & 1 == 1 { 1.0 } else { -1.0 }))
        .collect();
    const FACES: [[u32; 4]; 6] = [
        [0, 2, 6, 4],
        [1, 5, 7, 3],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 6, 7, 5],
    ];
    let triangles: Vec<[u32; 3]> = FACES
        .iter()
        .flat_map(|f| [[f[0], f[1], f[2]], [f[0], f[2], f[3]]])
        .collect();
    MeshInput {
        data: vec![7; triangles.len()],
        vertices,
        triangles,
    }
}

/// The instances: (which mesh, 0 terrain or 1 box; translation; rotation quaternion;
/// scale).
pub fn instances() -> Vec<(usize, Vec3, [f32; 4], Vec3)> {
    let s = std::f32::consts::FRAC_PI_8.sin();
    let c = std::f32::consts::FRAC_PI_8.cos();
    vec![
        (0, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        // Scaled: a 4 by 2 by 3 block.
        (1, [10.0, 10.0, 6.0], [0.0, 0.0, 0.0, 1.0], [2.0, 1.0, 1.5]),
        // Rotated 45 degrees about z.
        (1, [30.0, 30.0, 6.0], [0.0, 0.0, s, c], [1.0; 3]),
    ]
}

/// The sample's file name.
pub const NAME: &str = "destiny-2012_level.hkx";

fn mesh_err(e: Box<hk_runtime::collision::CollisionError>) -> Error {
    Error::collision(NAME, e)
}

/// The level's graph.
///
/// # Errors
/// A schema without the classes.
pub fn level(schema: Arc<Schema>) -> Result<Graph> {
    let mut b = Build::new(schema);
    let root = b.add("hkRootLevelContainer")?;
    let meshes = [terrain(), unit_box()];
    let mut ids = Vec::new();
    for m in &meshes {
        ids.push(build_mesh(&mut b.g, &m.vertices, &m.triangles, &m.data).map_err(mesh_err)?);
    }
    let inputs: Vec<InstanceInput> = instances()
        .into_iter()
        .map(|(k, t, q, s)| InstanceInput {
            shape: ids[k],
            translation: t,
            rotation: q,
            scale: s,
            child_box: Aabb::of(meshes[k].vertices.iter().copied()).unwrap_or(Aabb {
                min: [0.0; 3],
                max: [0.0; 3],
            }),
            convex: false,
            user_data: k as u64,
        })
        .collect();
    // The box mesh's keys need 5 bits (one section of 12 triangles), the terrain's more.
    let compound = build_compound(&mut b.g, &inputs, 16).map_err(mesh_err)?;
    named_variant(
        &mut b,
        root,
        "Static Compound",
        "hkpStaticCompoundShape",
        compound,
    )?;
    Ok(b.g)
}
