//! The 2016 id Tech cm samples (docs/collision-notes.md §4-5): a box
//! `hknpConvexPolytopeShape` and an `hknpCompressedMeshShape`, each the root of a TAG0 behind
//! one retail solid-brush surface record (the default record of docs/collision-notes.md §5;
//! `userData` 0 names it).
//!
//! The box follows docs/collision-notes.md §4: convex radius 0.01, corners with
//! `w = 0x3F000000 | i`, outward planes, quad faces, twin half-edges in `faceLinks`, one
//! outgoing edge per vertex in `vertexEdges`, mass = 1000 × volume (edges include 2 × radius),
//! inertia = 1.5 × the full cuboid tensor, hkPackedVector3 with the largest component in
//! [2^14, 2^15) and the scale's upper float half, the retail `majorAxisSpace` of axis boxes,
//! and `maxAllowedPenetration` = round16(0.3305 × (smallest half-edge + radius)). Enum values
//! are looked up by name in schemas/havok-2016. The compressed mesh is a flat quad in one
//! section; its codec fields are hk's reading of the class names (no retail mesh was measured).
//! Nothing here has been loaded by the game.

use std::sync::Arc;

use hk_runtime::graph::{Graph, ObjectId, Value};
use hk_runtime::tagfile::cm::SurfaceRecord;
use hk_runtime::Schema;

use super::{floats, item, list, ptr, Build, Container};
use crate::error::Result;

/// Half extents of the box (id units; the example box of docs/collision-notes.md §4).
const HALF: [f32; 3] = [32.0, 32.0, 64.0];
/// Convex radius every retail polytope carries (docs/collision-notes.md §4).
const RADIUS: f32 = 0.01;

fn flags(schema: &Schema, names: &[&str]) -> Result<Value> {
    let mut bits = 0;
    for n in names {
        if let Value::UInt(v) = item(schema, "hknpShape", "FlagsEnum", n)? {
            bits |= v;
        }
    }
    Ok(Value::UInt(bits))
}

fn int16s(v: [i16; 4]) -> Value {
    Value::CArray(v.iter().map(|&x| Value::Int(i64::from(x))).collect())
}

/// hkPackedVector3 (docs/collision-notes.md §4): three int16 and the upper half of the float
/// scale, the largest component scaled into [2^14, 2^15). The zero vector is `0,0,0,0x1980`.
fn packed(v: [f32; 3]) -> [i16; 4] {
    let max = v.iter().fold(0f32, |a, x| a.max(x.abs()));
    if max == 0.0 {
        return [0, 0, 0, 0x1980];
    }
    let n = 14 - max.log2().floor() as i32;
    let m = 2f32.powi(n);
    let scale = (1.0 / m).to_bits();
    [
        (v[0] * m).round() as i16,
        (v[1] * m).round() as i16,
        (v[2] * m).round() as i16,
        (scale >> 16) as i16,
    ]
}

/// Corner `i` of the box: bit 0, 1, 2 choose +x, +y, +z.
fn corner(i: usize) -> [f32; 3] {
    let s = |b: usize, h: f32| if i >> b & 1 == 1 { h } else { -h };
    [s(0, HALF[0]), s(1, HALF[1]), s(2, HALF[2])]
}

/// Faces as corner loops, wound counter-clockwise seen from outside, with their normals.
const FACES: [([usize; 4], [f32; 3]); 6] = [
    ([1, 3, 7, 5], [1.0, 0.0, 0.0]),
    ([0, 4, 6, 2], [-1.0, 0.0, 0.0]),
    ([2, 6, 7, 3], [0.0, 1.0, 0.0]),
    ([0, 1, 5, 4], [0.0, -1.0, 0.0]),
    ([4, 5, 7, 6], [0.0, 0.0, 1.0]),
    ([0, 2, 3, 1], [0.0, 0.0, -1.0]),
];

/// Adds a `class` object with hknpShape's type, dispatch type and flags set by name.
fn shape(
    b: &mut Build,
    class: &str,
    ty: &str,
    dispatch: &str,
    flag_names: &[&str],
) -> Result<ObjectId> {
    let o = b.add(class)?;
    let ty = item(b.schema(), "hknpShapeType", "Enum", ty)?;
    let dispatch = item(b.schema(), "hknpCollisionDispatchType", "Enum", dispatch)?;
    let flag_bits = flags(b.schema(), flag_names)?;
    b.set(o, "type", ty)?;
    b.set(o, "dispatchType", dispatch)?;
    b.set(o, "flags", flag_bits)?;
    Ok(o)
}

fn record() -> Container {
    Container::Cm(vec![SurfaceRecord::default()])
}

/// Sets the `hkAabb` at `path` (`min` and `max`, each with its `w`).
fn aabb(b: &mut Build, o: ObjectId, path: &str, lo: [f32; 4], hi: [f32; 4]) -> Result<()> {
    b.set(o, &format!("{path}.min"), floats(&lo))?;
    b.set(o, &format!("{path}.max"), floats(&hi))
}

/// Half-edge (face, edge) runs from loop[e] to loop[e + 1]; its twin runs back.
fn edge(f: usize, e: usize) -> (usize, usize) {
    (FACES[f].0[e], FACES[f].0[(e + 1) % 4])
}

/// Every half-edge as (face, edge).
fn half_edges() -> impl Iterator<Item = (usize, usize)> {
    (0..6).flat_map(|g| (0..4).map(move |j| (g, j)))
}

/// Adds the box polytope and the objects it points to (connectivity, properties, mass
/// properties), in that order; the polytope's id.
fn box_into(b: &mut Build) -> Result<ObjectId> {
    let shape = shape(
        b,
        "hknpConvexPolytopeShape",
        "CONVEX_POLYTOPE",
        "CONVEX",
        &["IS_CONVEX_SHAPE", "IS_CONVEX_POLYTOPE_SHAPE"],
    )?;
    let conn = b.add("hknpConvexPolytopeShape::Connectivity")?;
    let props = b.add("hkRefCountedProperties")?;
    let mp = b.add("hknpShapeMassProperties")?;
    b.set(shape, "convexRadius", Value::Real(RADIUS))?;
    let smallest = HALF.iter().fold(f32::MAX, |a, &h| a.min(h)) + RADIUS;
    let pen = (0.3305 * smallest).to_bits();
    b.set(
        shape,
        "maxAllowedPenetration",
        Value::Half(((pen + 0x8000) >> 16) as u16),
    )?;
    // Eight corners (a multiple of 4, so no padding copies), w = 0x3F000000 | index.
    let vertices: Vec<Value> = (0..8)
        .map(|i| {
            let c = corner(i);
            floats(&[c[0], c[1], c[2], f32::from_bits(0x3F00_0000 | i as u32)])
        })
        .collect();
    b.set(shape, "vertices", list(vertices))?;
    let mut planes = Vec::new();
    let mut indices = Vec::new();
    b.fill(shape, "faces", FACES.len())?;
    for (k, (loop_, n)) in FACES.iter().enumerate() {
        let d = -(n[0].abs() * HALF[0] + n[1].abs() * HALF[1] + n[2].abs() * HALF[2]);
        planes.push(floats(&[n[0], n[1], n[2], d]));
        b.set(
            shape,
            &format!("faces[{k}].firstIndex"),
            Value::UInt(4 * k as u64),
        )?;
        b.set(shape, &format!("faces[{k}].numIndices"), Value::UInt(4))?;
        indices.extend(loop_.iter().map(|&v| Value::UInt(v as u64)));
    }
    b.set(shape, "planes", list(planes))?;
    b.set(shape, "indices", list(indices))?;
    let set_edge = |b: &mut Build, path: String, (f, e): (usize, usize)| -> Result<()> {
        b.set(conn, &format!("{path}.faceIndex"), Value::UInt(f as u64))?;
        b.set(conn, &format!("{path}.edgeIndex"), Value::UInt(e as u64))
    };
    b.fill(conn, "faceLinks", 24)?;
    for (k, (f, e)) in half_edges().enumerate() {
        let (from, to) = edge(f, e);
        let twin = half_edges()
            .find(|&(g, j)| edge(g, j) == (to, from))
            .ok_or_else(|| hk_runtime::Error::invalid_write("box faces do not close"))?;
        set_edge(b, format!("faceLinks[{k}]"), twin)?;
    }
    b.fill(conn, "vertexEdges", 8)?;
    for v in 0..8 {
        let start = half_edges()
            .find(|&(g, j)| edge(g, j).0 == v)
            .ok_or_else(|| hk_runtime::Error::invalid_write("a corner without an edge"))?;
        set_edge(b, format!("vertexEdges[{v}]"), start)?;
    }
    b.set(shape, "connectivity", ptr(conn))?;
    // Mass properties through hknpShape.properties (schemas/havok-2016/SOURCES.md).
    let full: Vec<f32> = HALF.iter().map(|h| 2.0 * h + 2.0 * RADIUS).collect();
    let volume = full[0] * full[1] * full[2];
    let mass = 1000.0 * volume;
    let inertia = [
        1.5 * mass / 12.0 * (full[1] * full[1] + full[2] * full[2]),
        1.5 * mass / 12.0 * (full[0] * full[0] + full[2] * full[2]),
        1.5 * mass / 12.0 * (full[0] * full[0] + full[1] * full[1]),
    ];
    let cmp = "compressedMassProperties";
    b.set(
        mp,
        &format!("{cmp}.centerOfMass.values"),
        int16s(packed([0.0; 3])),
    )?;
    b.set(
        mp,
        &format!("{cmp}.inertia.values"),
        int16s(packed(inertia)),
    )?;
    // 00800080008030F5 on 1762/1762 retail axis boxes (docs/collision-notes.md §4).
    b.set(
        mp,
        &format!("{cmp}.majorAxisSpace"),
        int16s([-0x8000, -0x8000, -0x8000, 0xF530u16 as i16]),
    )?;
    b.set(mp, &format!("{cmp}.mass"), Value::Real(mass))?;
    b.set(mp, &format!("{cmp}.volume"), Value::Real(volume))?;
    b.fill(props, "entries", 1)?;
    b.set(props, "entries[0].object", ptr(mp))?;
    b.set(shape, "properties", ptr(props))?;
    Ok(shape)
}

/// The box polytope sample.
pub fn box_shape(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let mut b = Build::new(schema);
    box_into(&mut b)?;
    Ok((b.g, record()))
}

/// The compressed mesh sample: one flat quad (two triangles) in one section.
pub fn mesh(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let mut b = Build::new(schema);
    let shape = shape(
        &mut b,
        "hknpCompressedMeshShape",
        "COMPRESSED_MESH",
        "COMPOSITE",
        &["IS_COMPOSITE_SHAPE"],
    )?;
    let data = b.add("hknpCompressedMeshShapeData")?;
    b.set(shape, "data", ptr(data))?;
    // Bit 0: the one quad is flat; its two triangles are not internal.
    b.set(
        shape,
        "quadIsFlat.storage.words",
        list(vec![Value::UInt(1)]),
    )?;
    b.set(shape, "quadIsFlat.storage.numBits", Value::Int(1))?;
    b.set(
        shape,
        "triangleIsInternal.storage.words",
        list(vec![Value::UInt(0)]),
    )?;
    b.set(shape, "triangleIsInternal.storage.numBits", Value::Int(2))?;
    let (lo, hi) = ([-64.0f32, -64.0, 0.0], [64.0f32, 64.0, 0.0]);
    let (lo4, hi4) = ([lo[0], lo[1], lo[2], 0.0], [hi[0], hi[1], hi[2], 0.0]);
    aabb(&mut b, data, "meshTree.domain", lo4, hi4)?;
    b.set(data, "meshTree.numPrimitiveKeys", Value::Int(1))?;
    b.set(data, "meshTree.bitsPerKey", Value::Int(1))?;
    b.set(data, "meshTree.maxKeyValue", Value::UInt(1))?;
    // Packed vertices: 11, 11 and 10 bits of the section's grid (codecParms: origin, step).
    let step = [(hi[0] - lo[0]) / 2047.0, (hi[1] - lo[1]) / 2047.0, 1.0];
    let pack = |x: u64, y: u64, z: u64| Value::UInt(x | y << 11 | z << 22);
    b.set(
        data,
        "meshTree.packedVertices",
        list(vec![
            pack(0, 0, 0),
            pack(2047, 0, 0),
            pack(2047, 2047, 0),
            pack(0, 2047, 0),
        ]),
    )?;
    b.fill(data, "meshTree.sections", 1)?;
    let section = "meshTree.sections[0]";
    aabb(&mut b, data, &format!("{section}.domain"), lo4, hi4)?;
    b.set(
        data,
        &format!("{section}.codecParms"),
        Value::CArray(
            [lo[0], lo[1], lo[2], step[0], step[1], step[2]]
                .iter()
                .map(|&f| Value::Real(f))
                .collect(),
        ),
    )?;
    b.set(
        data,
        &format!("{section}.numPackedVertices"),
        Value::UInt(4),
    )?;
    // Offset 0, count 1 (offset << 8 | count).
    b.set(data, &format!("{section}.primitives.data"), Value::UInt(1))?;
    b.set(data, &format!("{section}.dataRuns.data"), Value::UInt(1))?;
    b.fill(data, "meshTree.primitives", 1)?;
    b.set(
        data,
        "meshTree.primitives[0].indices",
        Value::CArray((0..4).map(Value::UInt).collect()),
    )?;
    aabb(&mut b, data, "simdTree.domain", lo4, hi4)?;
    Ok((b.g, record()))
}

/// The world-like sample (docs/collision-notes.md §4: a map's `_combo/world.hkshape` is an
/// hknpCompoundShape of convex polytopes over an hkcdDynamicTree of Codec32 nodes): two
/// instances of the box, side by side, and a three-node tree over them. The node encoding
/// (parent and children in the AABB's w lanes) is hk's choice; no retail tree was measured.
pub fn compound(schema: Arc<Schema>) -> Result<(Graph, Container)> {
    let mut b = Build::new(schema);
    let c = shape(
        &mut b,
        "hknpCompoundShape",
        "STATIC_COMPOUND",
        "COMPOSITE",
        &["IS_COMPOSITE_SHAPE"],
    )?;
    let boxed = box_into(&mut b)?;
    let offsets = [-40.0f32, 40.0];
    b.fill(c, "instances.elements", offsets.len())?;
    for (k, x) in offsets.into_iter().enumerate() {
        // Column-major rotation (identity) and translation.
        let mut t = [0.0f32; 16];
        for i in 0..3 {
            t[5 * i] = 1.0;
        }
        t[12] = x;
        t[15] = 1.0;
        let i = format!("instances.elements[{k}]");
        b.set(c, &format!("{i}.transform"), floats(&t))?;
        b.set(c, &format!("{i}.scale"), floats(&[1.0, 1.0, 1.0, 0.0]))?;
        b.set(c, &format!("{i}.shape"), ptr(boxed))?;
    }
    b.set(c, "instances.firstFree", Value::Int(-1))?;
    let with_w = |p: [f32; 3], w: u32| [p[0], p[1], p[2], f32::from_bits(w)];
    let lo = |x: f32| [x - HALF[0], -HALF[1], -HALF[2]];
    let hi = |x: f32| [x + HALF[0], HALF[1], HALF[2]];
    aabb(&mut b, c, "aabb", with_w(lo(-40.0), 0), with_w(hi(40.0), 0))?;
    // Node 0 is the null node; 1 the root (children 2 and 3); 2 and 3 the leaves, whose
    // max.w holds the instance index.
    let nodes = [
        ([0.0; 3], [0.0; 3], 0, 0),
        (lo(-40.0), hi(40.0), 0, 2 | 3 << 16),
        (lo(-40.0), hi(-40.0), 1, 0),
        (lo(40.0), hi(40.0), 1, 1),
    ];
    let tree = "boundingVolumeData.aabbTree";
    b.fill(c, &format!("{tree}.nodes"), nodes.len())?;
    for (k, (l, h, lw, hw)) in nodes.into_iter().enumerate() {
        let path = format!("{tree}.nodes[{k}].aabb");
        aabb(&mut b, c, &path, with_w(l, lw), with_w(h, hw))?;
    }
    b.set(c, &format!("{tree}.numLeaves"), Value::UInt(2))?;
    b.set(c, &format!("{tree}.root"), Value::UInt(1))?;
    let radius = (80.0f32 + HALF[0]).hypot(HALF[1]).hypot(HALF[2]);
    b.set(c, "boundingRadius", Value::Real(radius))?;
    b.set(c, "estimatedNumShapeKeys", Value::Int(2))?;
    Ok((b.g, record()))
}
