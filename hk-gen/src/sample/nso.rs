//! The 2023.2 `.bphsh` sample: a phive shape file holding one `hknpMeshShape`, a 1 m box
//! of six quads in one geometry section, with one material and one hit mask
//! (docs/collision-notes.md §6).
//!
//! The classes and their members are the tables of docs/collision-notes.md §7
//! (schemas/havok-2023.2). How Havok quantises the vertices is hk's reading of those tables
//! (16-bit vertices in the section's grid, 8-bit child boxes in the section tree); nothing here
//! has been loaded by a game.

use std::sync::Arc;

use hk_runtime::graph::{Graph, Value};
use hk_runtime::tagfile::phive::{Extra, HitMask, Material, Phive, SHAPE};
use hk_runtime::Schema;

use super::{floats, list, ptr, Build, Container};
use crate::error::Result;

/// Half extent of the box, in metres.
const HALF: f32 = 0.5;

/// Corners of the box in the 16-bit grid, and its quads (outward winding).
const CORNERS: [[u16; 3]; 8] = [
    [0, 0, 0],
    [0xFFFF, 0, 0],
    [0xFFFF, 0xFFFF, 0],
    [0, 0xFFFF, 0],
    [0, 0, 0xFFFF],
    [0xFFFF, 0, 0xFFFF],
    [0xFFFF, 0xFFFF, 0xFFFF],
    [0, 0xFFFF, 0xFFFF],
];
const QUADS: [[u8; 4]; 6] = [
    [0, 3, 2, 1],
    [4, 5, 6, 7],
    [0, 1, 5, 4],
    [2, 3, 7, 6],
    [1, 2, 6, 5],
    [0, 4, 7, 3],
];

fn uints(v: &[u64]) -> Value {
    Value::CArray(v.iter().map(|&x| Value::UInt(x)).collect())
}

/// The mesh shape graph (root first) and the phive container around it.
pub fn build(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let mut b = Build::new(schema);
    let q = 2.0 * HALF / 65535.0;
    let mesh = b.add("hknpMeshShape")?;
    let mapping = b.add("hknpMeshShapePrimitiveMapping")?;
    // docs/collision-notes.md §7: an hknpMeshShape stores type 8, which the enum table
    // names EXTERN_MESH; the stored value is followed.
    b.set(mesh, "type", Value::UInt(8))?;
    b.set(mesh, "dispatchType", Value::UInt(2))?; // COMPOSITE
    b.set(mesh, "flags", Value::UInt(0x4))?; // IS_COMPOSITE_SHAPE
    b.set(mesh, "numShapeKeyBits", Value::UInt(3))?; // 6 primitives in one section
    b.set(
        mesh,
        "vertexConversionUtil.bitScale16",
        floats(&[1.0 / q, 1.0 / q, 1.0 / q, 0.0]),
    )?;
    b.set(
        mesh,
        "vertexConversionUtil.bitScale16Inv",
        floats(&[q, q, q, 0.0]),
    )?;
    // One 4-wide top-level node whose first lane bounds the box; empty lanes are inverted.
    let (lx, hx) = ([-HALF, HALF, HALF, HALF], [HALF, -HALF, -HALF, -HALF]);
    b.fill(mesh, "topLevelTree.nodes", 1)?;
    let node = "topLevelTree.nodes[0]";
    for (member, v) in [
        ("lx", lx),
        ("hx", hx),
        ("ly", lx),
        ("hy", hx),
        ("lz", lx),
        ("hz", hx),
    ] {
        b.set(mesh, &format!("{node}.{member}"), floats(&v))?;
    }
    b.set(mesh, &format!("{node}.data"), uints(&[0, 0, 0, 0]))?;
    b.set(mesh, &format!("{node}.flags"), Value::UInt(0x1))?; // NODE_IS_LEAF
    b.set(mesh, &format!("{node}.numLeaves"), Value::UInt(1))?;
    b.set(mesh, "topLevelTree.isCompact", Value::Bool(1))?;
    let vertices: Vec<Value> = CORNERS
        .iter()
        .flat_map(|c| c.iter().flat_map(|x| x.to_le_bytes()))
        .map(|v| Value::UInt(u64::from(v)))
        .collect();
    b.fill(mesh, "geometrySections", 1)?;
    let section = "geometrySections[0]";
    // One section-tree node: child 0 spans the whole 8-bit grid, the others are empty.
    let span = |lo: u64, hi: u64| lo | (hi << 8) | (hi << 16) | (hi << 24);
    b.fill(mesh, &format!("{section}.sectionBvh"), 1)?;
    for (member, v) in [
        ("lx", span(0, 0xFF)),
        ("hx", 0xFF),
        ("ly", span(0, 0xFF)),
        ("hy", 0xFF),
        ("lz", span(0, 0xFF)),
        ("hz", 0xFF),
    ] {
        b.set(
            mesh,
            &format!("{section}.sectionBvh[0].{member}"),
            Value::UInt(v),
        )?;
    }
    b.fill(mesh, &format!("{section}.primitives"), QUADS.len())?;
    for (k, p) in QUADS.iter().enumerate() {
        for (member, v) in ["aId", "bId", "cId", "dId"].iter().zip(p) {
            b.set(
                mesh,
                &format!("{section}.primitives[{k}].{member}"),
                Value::UInt(u64::from(*v)),
            )?;
        }
    }
    b.set(mesh, &format!("{section}.vertexBuffer"), list(vertices))?;
    b.set(
        mesh,
        &format!("{section}.interiorPrimitiveBitField"),
        list(vec![Value::UInt(0)]),
    )?;
    b.set(mesh, &format!("{section}.sectionOffset"), uints(&[0, 0, 0]))?;
    b.set(
        mesh,
        &format!("{section}.bitScale8Inv"),
        Value::CArray(vec![Value::Real(2.0 * HALF / 255.0); 3]),
    )?;
    b.set(
        mesh,
        &format!("{section}.bitOffset"),
        Value::CArray(vec![Value::Int(0); 3]),
    )?;
    b.set(mesh, "primitiveMapping", ptr(mapping))?;
    b.set(mapping, "sectionStart", list(vec![Value::UInt(0)]))?;
    let phive = Phive {
        reserved: [1, 0],
        file_type: SHAPE,
        // Three sections and the end marker.
        capacity: 4,
        extras: vec![
            Extra::Materials(vec![Material {
                material: 0,
                sub_material: 0,
                shape_tags: 0,
            }]),
            Extra::HitMasks(vec![HitMask {
                layers: 1,
                sub_layers: 0,
            }]),
        ],
    };
    Ok((b.g, Container::Phive(phive)))
}
