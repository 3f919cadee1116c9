//! `havok-710_level.hkx`: a Havok 7.1 level with a rigid body of every hkp shape kind hk reads
//! (docs/collision.md, "A synthetic 7.1 level"), built by
//! [`hk_runtime::collision::hkp::level_build`]. Each body has its own placement, motion type
//! and filter word; the terrain is a storage extended mesh under a MOPP tree hk encodes.
//! It is not named for the `shred` game profile: it holds three classes that profile's
//! files do not (`hkpConvexTransformShape`, `hkpTransformShape`, `hkpSimpleMeshShape`).

use std::sync::Arc;

use hk_runtime::collision::hkp::level_build::{build, BodyDesc, Placement, ShapeDesc, TriMesh};
use hk_runtime::graph::Graph;
use hk_runtime::Schema;

use crate::error::Result;

/// Quads a side of the terrain grid (two triangles each).
pub const GRID: usize = 5;

/// A rotation of `angle` radians about `axis` followed by a move to `t`.
pub fn placed(axis: [f32; 3], angle: f32, t: [f32; 3]) -> Placement {
    let l = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let (s, c) = (angle / 2.0).sin_cos();
    Placement {
        rotation: [axis[0] / l * s, axis[1] / l * s, axis[2] / l * s, c],
        translation: t,
    }
}

/// A `GRID` × `GRID` terrain of 1-unit quads with hills, three surface ids in bands.
pub fn terrain() -> TriMesh {
    let n = GRID + 1;
    let mut vertices = Vec::with_capacity(n * n);
    for z in 0..n {
        for x in 0..n {
            let h = ((x as f32) * 0.9).sin() * ((z as f32) * 0.7).cos() * 0.6;
            vertices.push([
                x as f32 - GRID as f32 / 2.0,
                h,
                z as f32 - GRID as f32 / 2.0,
            ]);
        }
    }
    let mut triangles = Vec::new();
    let mut surfaces = Vec::new();
    for z in 0..GRID {
        for x in 0..GRID {
            let i = (z * n + x) as u16;
            let (r, d, rd) = (i + 1, i + n as u16, i + n as u16 + 1);
            triangles.push([i, d, r]);
            triangles.push([r, d, rd]);
            let s = [1, 7, 12][z * 3 / GRID];
            surfaces.extend([s, s]);
        }
    }
    TriMesh {
        vertices,
        triangles,
        surfaces,
    }
}

/// A wedge: a triangular prism of six vertices, two triangle faces and three quads.
pub fn wedge() -> ShapeDesc {
    ShapeDesc::ConvexVertices {
        vertices: vec![
            [-0.5, 0.0, -0.4],
            [0.5, 0.0, -0.4],
            [0.0, 0.6, -0.4],
            [-0.5, 0.0, 0.4],
            [0.5, 0.0, 0.4],
            [0.0, 0.6, 0.4],
        ],
        faces: vec![
            vec![0, 2, 1],
            vec![3, 4, 5],
            vec![0, 1, 4, 3],
            vec![1, 2, 5, 4],
            vec![2, 0, 3, 5],
        ],
    }
}

/// A ramp of two quads as a simple mesh, two surface ids.
pub fn ramp() -> TriMesh {
    TriMesh {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.5, 1.0],
            [1.0, 0.5, 1.0],
            [0.0, 1.0, 2.0],
            [1.0, 1.0, 2.0],
        ],
        triangles: vec![[0, 2, 1], [1, 2, 3], [2, 4, 3], [3, 4, 5]],
        surfaces: vec![3, 3, 5, 5],
    }
}

/// The bodies of the level, one a shape kind.
pub fn bodies() -> Vec<BodyDesc> {
    let boxed = |h: [f32; 3]| ShapeDesc::Box {
        half: h,
        radius: 0.05,
    };
    let capsule = ShapeDesc::Capsule {
        a: [0.0, -0.4, 0.0],
        b: [0.0, 0.4, 0.0],
        radius: 0.25,
    };
    let cylinder = ShapeDesc::Cylinder {
        a: [-0.3, 0.0, 0.0],
        b: [0.3, 0.0, 0.0],
        radius: 0.35,
    };
    let shapes: Vec<(&str, &str, ShapeDesc)> = vec![
        ("terrain", "MOTION_FIXED", ShapeDesc::MoppMesh(terrain())),
        ("crate", "MOTION_BOX_INERTIA", boxed([0.5, 0.4, 0.3])),
        (
            "ball",
            "MOTION_SPHERE_INERTIA",
            ShapeDesc::Sphere { radius: 0.4 },
        ),
        ("pill", "MOTION_DYNAMIC", capsule.clone()),
        ("drum", "MOTION_THIN_BOX_INERTIA", cylinder.clone()),
        ("rock", "MOTION_KEYFRAMED", wedge()),
        (
            "shifted crate",
            "MOTION_BOX_INERTIA",
            ShapeDesc::ConvexTranslate {
                translation: [0.2, 0.3, -0.1],
                child: Box::new(boxed([0.3, 0.3, 0.3])),
            },
        ),
        (
            "tilted rock",
            "MOTION_CHARACTER",
            ShapeDesc::ConvexTransform {
                at: placed([1.0, 0.0, 0.0], 0.5, [0.0, 0.2, 0.0]),
                child: Box::new(wedge()),
            },
        ),
        (
            "moved pill",
            "MOTION_DYNAMIC",
            ShapeDesc::Transform {
                at: placed([0.0, 0.0, 1.0], 1.2, [0.1, 0.0, 0.3]),
                child: Box::new(capsule),
            },
        ),
        (
            "cluster",
            "MOTION_KEYFRAMED",
            ShapeDesc::List(vec![
                boxed([0.2, 0.2, 0.2]),
                ShapeDesc::ConvexTranslate {
                    translation: [0.6, 0.0, 0.0],
                    child: Box::new(ShapeDesc::Sphere { radius: 0.2 }),
                },
                cylinder,
            ]),
        ),
        ("ramp", "MOTION_FIXED", ShapeDesc::SimpleMesh(ramp())),
    ];
    shapes
        .into_iter()
        .enumerate()
        .map(|(i, (name, motion, shape))| {
            let k = i as f32;
            BodyDesc {
                name: name.to_string(),
                at: if i == 0 {
                    placed([0.0, 1.0, 0.0], 0.25, [0.0, -0.5, 0.0])
                } else {
                    placed(
                        [k.sin(), 1.0, k.cos()],
                        0.3 * k,
                        [(i % 4) as f32 * 1.5 - 2.25, 1.5, (i / 4) as f32 * 1.5 - 1.5],
                    )
                },
                motion: motion.to_string(),
                // Layer i + 1, system group 100 + i (docs/collision-notes.md §1.3).
                filter_info: (i as u32 + 1) | (100 + i as u32) << 16,
                shape,
            }
        })
        .collect()
}

/// The level's graph.
pub fn graph(schema: Arc<Schema>) -> Result<Graph> {
    Ok(build(schema, &bodies())?)
}
