//! The 2023.2 `.bphsh` samples: phive shape files holding one `hknpMeshShape` built by
//! [`hk_runtime::collision::hknp::mesh_build`] (docs/collision-notes.md §13), with the phive
//! material and hit-mask arrays (§6).
//!
//! - `nso-2023_box.bphsh`: a 1 m box of six quads in one geometry section, one material.
//! - `nso-2023_level.bphsh`: a small level in several sections: a 12 × 12 m floor of quads
//!   in four materials, a ramp of triangles and a box, over four materials and hit masks.
//!
//! The classes and their members are the tables of docs/collision-notes.md §7
//! (schemas/havok-2023.2); how the vertices and boxes are quantised is hk's reading (§13).
//! Nothing here has been loaded by a game.

use std::sync::Arc;

use hk_runtime::collision::hknp::mesh_build::{build, BuildOptions, Face};
use hk_runtime::collision::Vec3;
use hk_runtime::graph::Graph;
use hk_runtime::tagfile::phive::{Extra, HitMask, Material, Phive, SHAPE};
use hk_runtime::Schema;

use super::Container;
use crate::error::{Error, Result};

/// The six quads of an axis-aligned box from `lo` to `hi` (outward winding), tagged `tag`.
pub fn box_faces(lo: Vec3, hi: Vec3, tag: u16) -> Vec<Face> {
    let c = |i: usize| {
        [
            if i & 1 == 1 { hi[0] } else { lo[0] },
            if i & 2 == 2 { hi[1] } else { lo[1] },
            if i & 4 == 4 { hi[2] } else { lo[2] },
        ]
    };
    const QUADS: [[usize; 4]; 6] = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [1, 3, 7, 5],
        [0, 4, 6, 2],
    ];
    QUADS
        .iter()
        .map(|q| Face {
            points: q.iter().map(|&i| c(i)).collect(),
            tag,
        })
        .collect()
}

/// The level sample's faces: a floor of 1 m quads (tags 0 to 3 in a pattern), a ramp of
/// triangles (tag 1) and a box (tag 2).
pub fn level_faces() -> Vec<Face> {
    let mut faces = Vec::new();
    for i in 0..12 {
        for j in 0..12 {
            let (x, z) = (i as f32 - 6.0, j as f32 - 6.0);
            faces.push(Face {
                points: vec![
                    [x, 0.0, z],
                    [x, 0.0, z + 1.0],
                    [x + 1.0, 0.0, z + 1.0],
                    [x + 1.0, 0.0, z],
                ],
                tag: ((i / 3 + j / 3) % 4) as u16,
            });
        }
    }
    for k in 0..8 {
        let (z0, z1) = (k as f32 * 0.5 - 2.0, k as f32 * 0.5 - 1.5);
        let (a, b) = ([7.0, 0.0, z0], [7.0, 0.0, z1]);
        let (c, d) = ([9.0, 1.5, z0], [9.0, 1.5, z1]);
        faces.push(Face {
            points: vec![a, b, d],
            tag: 1,
        });
        faces.push(Face {
            points: vec![a, d, c],
            tag: 1,
        });
    }
    faces.extend(box_faces([-2.0, 0.0, -2.0], [-1.0, 2.5, -1.0], 2));
    faces
}

/// The level sample's material array (four entries).
pub fn level_materials() -> Vec<Material> {
    (0..4)
        .map(|i| Material {
            material: 10 + i,
            sub_material: i % 2,
            shape_tags: 1 << i,
        })
        .collect()
}

/// The level sample's hit-mask array (four entries).
pub fn level_hit_masks() -> Vec<HitMask> {
    (0..4u64)
        .map(|i| HitMask {
            layers: 1 << (2 * i),
            sub_layers: i,
        })
        .collect()
}

/// A phive shape file's graph and container around `faces`.
fn shape(
    schema: Arc<Schema>,
    faces: &[Face],
    materials: Vec<Material>,
    hit_masks: Vec<HitMask>,
) -> Result<(Graph, Container)> {
    let mut g = Graph::new(schema);
    let collision = |e| Error::collision(std::path::Path::new("(sample)"), e);
    let data = build(faces, &BuildOptions::default()).map_err(collision)?;
    data.write(&mut g).map_err(collision)?;
    let phive = Phive {
        reserved: [1, 0],
        file_type: SHAPE,
        // Three sections and the end marker.
        capacity: 4,
        extras: vec![Extra::Materials(materials), Extra::HitMasks(hit_masks)],
    };
    Ok((g, Container::Phive(phive)))
}

/// The box sample.
pub fn build_box(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let faces = box_faces([-0.5; 3], [0.5; 3], 0);
    let material = Material {
        material: 0,
        sub_material: 0,
        shape_tags: 0,
    };
    let hit = HitMask {
        layers: 1,
        sub_layers: 0,
    };
    shape(schema, &faces, vec![material], vec![hit])
}

/// The level sample.
pub fn build_level(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    shape(schema, &level_faces(), level_materials(), level_hit_masks())
}
