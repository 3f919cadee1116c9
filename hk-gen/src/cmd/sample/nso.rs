//! The 2023.2 `.bphsh` sample: a phive shape file holding one `hknpMeshShape`, a 1 m box
//! of six quads in one geometry section, with one material and one hit mask (seed 003).
//!
//! The classes and their members are seed 003's tables (schemas/havok-2023.2). How Havok
//! quantises the vertices is hk's reading of those tables (16-bit vertices in the section's
//! grid, 8-bit child boxes in the section tree); nothing here has been loaded by a game.

use hk_runtime::graph::{Object, Value};
use hk_runtime::tagfile::phive::{Extra, HitMask, Material, Phive, SHAPE};
use hk_runtime::Schema;

use super::{new, ptr, set, Built};

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

fn struct_of(schema: &Schema, class: &str, sets: &[(&str, Value)]) -> Result<Value, String> {
    let mut o = new(schema, class)?;
    for (k, v) in sets {
        set(&mut o, k, v.clone())?;
    }
    Ok(Value::Struct(o.fields))
}

/// The mesh shape graph (root first) and the phive container around it.
pub fn build(schema: &Schema) -> Result<Built, String> {
    let q = 2.0 * HALF / 65535.0;
    let mut mesh = new(schema, "hknpMeshShape")?;
    // Seed 003: an hknpMeshShape stores "MESH (0x8)"; its enum table lists 0x8 as
    // EXTERN_MESH, so the file's own statement about this class is followed.
    set(&mut mesh, "type", Value::UInt(8))?;
    set(&mut mesh, "dispatchType", Value::UInt(2))?; // COMPOSITE
    set(&mut mesh, "flags", Value::UInt(0x4))?; // IS_COMPOSITE_SHAPE
    set(&mut mesh, "numShapeKeyBits", Value::UInt(3))?; // 6 primitives in one section
    set(
        &mut mesh,
        "vertexConversionUtil.bitScale16",
        Value::Floats(vec![1.0 / q, 1.0 / q, 1.0 / q, 0.0]),
    )?;
    set(
        &mut mesh,
        "vertexConversionUtil.bitScale16Inv",
        Value::Floats(vec![q, q, q, 0.0]),
    )?;
    // One 4-wide top-level node whose first lane bounds the box; empty lanes are inverted.
    let lane = |lo: f32, hi: f32| (vec![lo, hi, hi, hi], vec![hi, lo, lo, lo]);
    let (lx, hx) = lane(-HALF, HALF);
    let node = struct_of(
        schema,
        "hkcdSimdTreeNamespace::Node",
        &[
            ("lx", Value::Floats(lx.clone())),
            ("hx", Value::Floats(hx.clone())),
            ("ly", Value::Floats(lx.clone())),
            ("hy", Value::Floats(hx.clone())),
            ("lz", Value::Floats(lx)),
            ("hz", Value::Floats(hx)),
            ("data", uints(&[0, 0, 0, 0])),
            ("flags", Value::UInt(0x1)), // NODE_IS_LEAF
            ("numLeaves", Value::UInt(1)),
        ],
    )?;
    set(&mut mesh, "topLevelTree.nodes", Value::Array(vec![node]))?;
    set(&mut mesh, "topLevelTree.isCompact", Value::Bool(1))?;
    let vertices: Vec<Value> = CORNERS
        .iter()
        .flat_map(|c| c.iter().flat_map(|x| x.to_le_bytes()))
        .map(|b| Value::UInt(u64::from(b)))
        .collect();
    let primitives = QUADS
        .iter()
        .map(|p| {
            struct_of(
                schema,
                "hknpMeshShape::GeometrySection::Primitive",
                &[
                    ("aId", Value::UInt(u64::from(p[0]))),
                    ("bId", Value::UInt(u64::from(p[1]))),
                    ("cId", Value::UInt(u64::from(p[2]))),
                    ("dId", Value::UInt(u64::from(p[3]))),
                ],
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    // One section-tree node: child 0 spans the whole 8-bit grid, the others are empty.
    let span = |lo: u64, hi: u64| lo | (hi << 8) | (hi << 16) | (hi << 24);
    let bvh = struct_of(
        schema,
        "hknpAabb8TreeNode",
        &[
            ("lx", Value::UInt(span(0, 0xFF))),
            ("hx", Value::UInt(0xFF)),
            ("ly", Value::UInt(span(0, 0xFF))),
            ("hy", Value::UInt(0xFF)),
            ("lz", Value::UInt(span(0, 0xFF))),
            ("hz", Value::UInt(0xFF)),
        ],
    )?;
    let section = struct_of(
        schema,
        "hknpMeshShape::GeometrySection",
        &[
            ("sectionBvh", Value::Array(vec![bvh])),
            ("primitives", Value::Array(primitives)),
            ("vertexBuffer", Value::Array(vertices)),
            (
                "interiorPrimitiveBitField",
                Value::Array(vec![Value::UInt(0)]),
            ),
            ("sectionOffset", uints(&[0, 0, 0])),
            (
                "bitScale8Inv",
                Value::CArray(vec![Value::Real(2.0 * HALF / 255.0); 3]),
            ),
            ("bitOffset", Value::CArray(vec![Value::Int(0); 3])),
        ],
    )?;
    set(&mut mesh, "geometrySections", Value::Array(vec![section]))?;
    set(&mut mesh, "primitiveMapping", ptr(1))?;
    let mut mapping = new(schema, "hknpMeshShapePrimitiveMapping")?;
    set(
        &mut mapping,
        "sectionStart",
        Value::Array(vec![Value::UInt(0)]),
    )?;
    let objects: Vec<Object> = vec![mesh, mapping];
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
    Ok(Built {
        objects,
        container: super::Container::Phive(phive),
    })
}
