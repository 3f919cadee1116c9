//! The 2016 id Tech cm samples (docs/collision-notes.md §4-5, §12): a box
//! `hknpConvexPolytopeShape`, an `hknpCompressedMeshShape` terrain and an
//! `hknpCompoundShape` of two box instances, each the root of a TAG0 behind one retail
//! solid-brush surface record (the default record of docs/collision-notes.md §5; `userData`
//! 0 names it). The shapes come from the builders in `hk_runtime::collision::hknp::build`.
//! Nothing here has been loaded by the game.

use std::sync::Arc;

use hk_runtime::collision::hknp;
use hk_runtime::collision::hknp::build::{MeshInput, Placed};
use hk_runtime::collision::{Aabb, Affine};
use hk_runtime::graph::Graph;
use hk_runtime::tagfile::cm::SurfaceRecord;
use hk_runtime::Schema;

use super::Container;
use crate::error::Result;

/// Half extents of the box (id units; the example box of docs/collision-notes.md §4).
pub const HALF: [f32; 3] = [32.0, 32.0, 64.0];

/// Cells per side of the mesh sample's terrain.
pub const TERRAIN_CELLS: u32 = 12;

/// Where the compound sample puts its two boxes (x of each instance; the element between
/// them is free).
pub const COMPOUND_X: [f32; 2] = [-40.0, 120.0];

/// The second instance's scale (applied before its rotation).
pub const COMPOUND_SCALE: [f32; 3] = [2.0, 1.0, 1.0];

fn record() -> Container {
    Container::Cm(vec![SurfaceRecord::default()])
}

/// The box polytope sample.
pub fn box_shape(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let mut g = Graph::new(schema);
    hknp::build::add_box(&mut g, HALF)?;
    Ok((g, record()))
}

/// The mesh sample's terrain: a grid of `TERRAIN_CELLS`² cells, 16 units each, with
/// integer heights; the last row of cells as two triangles each, every other cell a quad;
/// material = row % 3. 288 triangles.
pub fn terrain() -> MeshInput {
    let n = TERRAIN_CELLS;
    let mut t = MeshInput::default();
    for j in 0..=n {
        for i in 0..=n {
            let z = ((i * 7 + j * 13) % 11) as f32 - 5.0;
            t.vertices
                .push([i as f32 * 16.0 - 96.0, j as f32 * 16.0 - 96.0, z]);
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            let m = (j % 3) as u16;
            if j + 1 == n {
                t.primitives.extend([[a, b, c, c], [a, c, d, d]]);
                t.materials.extend([m, m]);
            } else {
                t.primitives.push([a, b, c, d]);
                t.materials.push(m);
            }
        }
    }
    t
}

/// The compressed mesh sample: [`terrain`] encoded.
pub fn mesh(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let mut g = Graph::new(schema);
    hknp::build::add_compressed_mesh(&mut g, &terrain())?;
    Ok((g, record()))
}

/// The world-like sample (docs/collision-notes.md §4: a map's `_combo/world.hkshape` is an
/// hknpCompoundShape of convex polytopes over an hkcdDynamicTree of Codec32 nodes): two
/// instances of one box at [`COMPOUND_X`], the second scaled by [`COMPOUND_SCALE`] and then
/// turned a quarter around x (y to z), with a free element between them.
pub fn compound(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let mut g = Graph::new(schema);
    let boxed = hknp::build::add_box(&mut g, HALF)?;
    let local = Aabb {
        min: HALF.map(|h| -h),
        max: HALF,
    };
    let quarter = Affine {
        cols: [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]],
        t: [0.0; 3],
    };
    let place = |x: f32, rot: Affine, scale: [f32; 3]| Placed {
        shape: boxed,
        transform: Affine {
            t: [x, 0.0, 0.0],
            ..rot
        },
        scale,
        local,
    };
    let slots = [
        Some(place(COMPOUND_X[0], Affine::IDENTITY, [1.0; 3])),
        None,
        Some(place(COMPOUND_X[1], quarter, COMPOUND_SCALE)),
    ];
    // The compound is the root (the tagfile writer starts from it).
    g.root = hknp::build::add_compound(&mut g, &slots)?;
    Ok((g, record()))
}
