//! The 2016 id Tech cm samples (seed 004): a box `hknpConvexPolytopeShape` and an
//! `hknpCompressedMeshShape`, each the root of a TAG0 behind one retail solid-brush surface
//! record (seed 004 §5's default record; `userData` 0 names it).
//!
//! The box follows seed 004 §5: convex radius 0.01, corners with `w = 0x3F000000 | i`,
//! outward planes, quad faces, twin half-edges in `faceLinks`, one outgoing edge per vertex
//! in `vertexEdges`, mass = 1000 × volume (edges include 2 × radius), inertia = 1.5 × the
//! full cuboid tensor, hkPackedVector3 with the largest component in [2^14, 2^15) and the
//! scale's upper float half, the retail `majorAxisSpace` of axis boxes, and
//! `maxAllowedPenetration` = round16(0.3305 × (smallest half-edge + radius)). Enum values
//! are looked up by name in schemas/havok-2016. The compressed mesh is a flat quad in one
//! section; its codec fields are hk's reading of the class names (no retail mesh was
//! measured). Nothing here has been loaded by the game.

use hk_runtime::graph::{Object, Value};
use hk_runtime::tagfile::cm::SurfaceRecord;
use hk_runtime::Schema;

use super::{new, ptr, set, Built, Container};

/// Half extents of the box (id units; seed 004 §5's example `--half-extents 32,32,64`).
const HALF: [f32; 3] = [32.0, 32.0, 64.0];
/// Convex radius every retail polytope carries (seed 004 §5).
const RADIUS: f32 = 0.01;

/// Value of item `item` of enum `class.name` in the schema.
fn item(schema: &Schema, class: &str, name: &str, item: &str) -> Result<Value, String> {
    schema
        .class(class)
        .and_then(|c| c.enums.iter().find(|e| e.name == name))
        .and_then(|e| e.items.iter().find(|i| i.name == item))
        .map(|i| Value::UInt(i.value as u64))
        .ok_or_else(|| format!("{} has no {class}.{name}.{item}", schema.generation.name))
}

fn flags(schema: &Schema, names: &[&str]) -> Result<Value, String> {
    let mut bits = 0;
    for n in names {
        if let Value::UInt(v) = item(schema, "hknpShape", "FlagsEnum", n)? {
            bits |= v;
        }
    }
    Ok(Value::UInt(bits))
}

fn struct_value(o: Object) -> Value {
    Value::Struct(o.fields)
}

fn int16s(v: [i16; 4]) -> Value {
    Value::CArray(v.iter().map(|&x| Value::Int(i64::from(x))).collect())
}

/// hkPackedVector3 (seed 004 §5): three int16 and the upper half of the float scale, the
/// largest component scaled into [2^14, 2^15). The zero vector is `0,0,0,0x1980`.
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

/// A new `class` object with hknpShape's type, dispatch type and flags set by name.
fn shape(
    schema: &Schema,
    class: &str,
    ty: &str,
    dispatch: &str,
    flag_names: &[&str],
) -> Result<Object, String> {
    let mut o = new(schema, class)?;
    set(&mut o, "type", item(schema, "hknpShapeType", "Enum", ty)?)?;
    set(
        &mut o,
        "dispatchType",
        item(schema, "hknpCollisionDispatchType", "Enum", dispatch)?,
    )?;
    set(&mut o, "flags", flags(schema, flag_names)?)?;
    Ok(o)
}

fn record() -> Container {
    Container::Cm(vec![SurfaceRecord::default()])
}

/// The box polytope sample.
pub fn box_shape(schema: &Schema) -> Result<Built, String> {
    let mut shape = shape(
        schema,
        "hknpConvexPolytopeShape",
        "CONVEX_POLYTOPE",
        "CONVEX",
        &["IS_CONVEX_SHAPE", "IS_CONVEX_POLYTOPE_SHAPE"],
    )?;
    set(&mut shape, "convexRadius", Value::Real(RADIUS))?;
    let smallest = HALF.iter().fold(f32::MAX, |a, &b| a.min(b)) + RADIUS;
    let pen = (0.3305 * smallest).to_bits();
    set(
        &mut shape,
        "maxAllowedPenetration",
        Value::Half(((pen + 0x8000) >> 16) as u16),
    )?;
    // Eight corners (a multiple of 4, so no padding copies), w = 0x3F000000 | index.
    let vertices: Vec<Value> = (0..8)
        .map(|i| {
            let c = corner(i);
            Value::Floats(vec![
                c[0],
                c[1],
                c[2],
                f32::from_bits(0x3F00_0000 | i as u32),
            ])
        })
        .collect();
    set(&mut shape, "vertices", Value::Array(vertices))?;
    let mut planes = Vec::new();
    let mut faces = Vec::new();
    let mut indices = Vec::new();
    for (k, (loop_, n)) in FACES.iter().enumerate() {
        let d = -(n[0].abs() * HALF[0] + n[1].abs() * HALF[1] + n[2].abs() * HALF[2]);
        planes.push(Value::Floats(vec![n[0], n[1], n[2], d]));
        let mut f = new(schema, "hknpConvexPolytopeShape::Face")?;
        set(&mut f, "firstIndex", Value::UInt(4 * k as u64))?;
        set(&mut f, "numIndices", Value::UInt(4))?;
        faces.push(struct_value(f));
        indices.extend(loop_.iter().map(|&v| Value::UInt(v as u64)));
    }
    set(&mut shape, "planes", Value::Array(planes))?;
    set(&mut shape, "faces", Value::Array(faces))?;
    set(&mut shape, "indices", Value::Array(indices))?;
    // Half-edge (face, edge) runs from loop[e] to loop[e + 1]; its twin runs back.
    let edge = |f: usize, e: usize| (FACES[f].0[e], FACES[f].0[(e + 1) % 4]);
    let edge_value = |f: usize, e: usize| -> Result<Value, String> {
        let mut x = new(schema, "hknpConvexPolytopeShape::Connectivity::Edge")?;
        set(&mut x, "faceIndex", Value::UInt(f as u64))?;
        set(&mut x, "edgeIndex", Value::UInt(e as u64))?;
        Ok(struct_value(x))
    };
    let mut links = Vec::new();
    for f in 0..6 {
        for e in 0..4 {
            let (a, b) = edge(f, e);
            let twin = (0..6)
                .flat_map(|g| (0..4).map(move |j| (g, j)))
                .find(|&(g, j)| edge(g, j) == (b, a))
                .ok_or("box faces do not close")?;
            links.push(edge_value(twin.0, twin.1)?);
        }
    }
    let mut starts = Vec::new();
    for v in 0..8 {
        let (f, e) = (0..6)
            .flat_map(|g| (0..4).map(move |j| (g, j)))
            .find(|&(g, j)| edge(g, j).0 == v)
            .ok_or("a corner without an edge")?;
        starts.push(edge_value(f, e)?);
    }
    let mut conn = new(schema, "hknpConvexPolytopeShape::Connectivity")?;
    set(&mut conn, "vertexEdges", Value::Array(starts))?;
    set(&mut conn, "faceLinks", Value::Array(links))?;
    set(&mut shape, "connectivity", ptr(1))?;
    // Mass properties through hknpShape.properties (schemas/havok-2016/SOURCES.md).
    let full: Vec<f32> = HALF.iter().map(|h| 2.0 * h + 2.0 * RADIUS).collect();
    let volume = full[0] * full[1] * full[2];
    let mass = 1000.0 * volume;
    let inertia = [
        1.5 * mass / 12.0 * (full[1] * full[1] + full[2] * full[2]),
        1.5 * mass / 12.0 * (full[0] * full[0] + full[2] * full[2]),
        1.5 * mass / 12.0 * (full[0] * full[0] + full[1] * full[1]),
    ];
    let mut mp = new(schema, "hknpShapeMassProperties")?;
    set(
        &mut mp,
        "compressedMassProperties.centerOfMass.values",
        int16s(packed([0.0; 3])),
    )?;
    set(
        &mut mp,
        "compressedMassProperties.inertia.values",
        int16s(packed(inertia)),
    )?;
    // 00800080008030F5 on 1762/1762 retail axis boxes (seed 004 §5).
    set(
        &mut mp,
        "compressedMassProperties.majorAxisSpace",
        int16s([-0x8000, -0x8000, -0x8000, 0xF530u16 as i16]),
    )?;
    set(&mut mp, "compressedMassProperties.mass", Value::Real(mass))?;
    set(
        &mut mp,
        "compressedMassProperties.volume",
        Value::Real(volume),
    )?;
    let mut props = new(schema, "hkRefCountedProperties")?;
    let mut entry = new(schema, "hkRefCountedProperties::Entry")?;
    set(&mut entry, "object", ptr(3))?;
    set(
        &mut props,
        "entries",
        Value::Array(vec![struct_value(entry)]),
    )?;
    set(&mut shape, "properties", ptr(2))?;
    Ok(Built {
        objects: vec![shape, conn, props, mp],
        container: record(),
    })
}

/// The compressed mesh sample: one flat quad (two triangles) in one section.
pub fn mesh(schema: &Schema) -> Result<Built, String> {
    let mut shape = shape(
        schema,
        "hknpCompressedMeshShape",
        "COMPRESSED_MESH",
        "COMPOSITE",
        &["IS_COMPOSITE_SHAPE"],
    )?;
    set(&mut shape, "data", ptr(1))?;
    // Bit 0: the one quad is flat; its two triangles are not internal.
    set(
        &mut shape,
        "quadIsFlat.storage.words",
        Value::Array(vec![Value::UInt(1)]),
    )?;
    set(&mut shape, "quadIsFlat.storage.numBits", Value::Int(1))?;
    set(
        &mut shape,
        "triangleIsInternal.storage.words",
        Value::Array(vec![Value::UInt(0)]),
    )?;
    set(
        &mut shape,
        "triangleIsInternal.storage.numBits",
        Value::Int(2),
    )?;
    let (lo, hi) = ([-64.0f32, -64.0, 0.0], [64.0f32, 64.0, 0.0]);
    let aabb = Value::Struct(vec![
        hk_runtime::graph::Field::new("min", Value::Floats(vec![lo[0], lo[1], lo[2], 0.0])),
        hk_runtime::graph::Field::new("max", Value::Floats(vec![hi[0], hi[1], hi[2], 0.0])),
    ]);
    let mut data = new(schema, "hknpCompressedMeshShapeData")?;
    set(&mut data, "meshTree.domain", aabb.clone())?;
    set(&mut data, "meshTree.numPrimitiveKeys", Value::Int(1))?;
    set(&mut data, "meshTree.bitsPerKey", Value::Int(1))?;
    set(&mut data, "meshTree.maxKeyValue", Value::UInt(1))?;
    // Packed vertices: 11, 11 and 10 bits of the section's grid (codecParms: origin, step).
    let step = [(hi[0] - lo[0]) / 2047.0, (hi[1] - lo[1]) / 2047.0, 1.0];
    let pack = |x: u64, y: u64, z: u64| Value::UInt(x | y << 11 | z << 22);
    set(
        &mut data,
        "meshTree.packedVertices",
        Value::Array(vec![
            pack(0, 0, 0),
            pack(2047, 0, 0),
            pack(2047, 2047, 0),
            pack(0, 2047, 0),
        ]),
    )?;
    let mut section = new(schema, "hkcdStaticMeshTreeBase::Section")?;
    set(&mut section, "domain", aabb.clone())?;
    set(
        &mut section,
        "codecParms",
        Value::CArray(
            [lo[0], lo[1], lo[2], step[0], step[1], step[2]]
                .iter()
                .map(|&f| Value::Real(f))
                .collect(),
        ),
    )?;
    set(&mut section, "numPackedVertices", Value::UInt(4))?;
    // Offset 0, count 1 (offset << 8 | count).
    set(&mut section, "primitives.data", Value::UInt(1))?;
    set(&mut section, "dataRuns.data", Value::UInt(1))?;
    set(
        &mut data,
        "meshTree.sections",
        Value::Array(vec![struct_value(section)]),
    )?;
    let mut prim = new(schema, "hkcdStaticMeshTreeBase::Primitive")?;
    set(
        &mut prim,
        "indices",
        Value::CArray((0..4).map(Value::UInt).collect()),
    )?;
    set(
        &mut data,
        "meshTree.primitives",
        Value::Array(vec![struct_value(prim)]),
    )?;
    set(&mut data, "simdTree.domain", aabb)?;
    Ok(Built {
        objects: vec![shape, data],
        container: record(),
    })
}

/// Moves every object pointer in `v` by `by` (objects placed after others).
fn shift(v: &mut Value, by: u32) {
    match v {
        Value::Pointer(Some(hk_runtime::graph::Ptr::Object(id))) => id.0 += by,
        Value::Array(items) | Value::CArray(items) => items.iter_mut().for_each(|x| shift(x, by)),
        Value::Struct(fields) => fields.iter_mut().for_each(|f| shift(&mut f.value, by)),
        _ => {}
    }
}

/// The world-like sample (seed 004 §6: a map's `_combo/world.hkshape` is an
/// hknpCompoundShape of convex polytopes over an hkcdDynamicTree of Codec32 nodes): two
/// instances of the box, side by side, and a three-node tree over them. The node encoding
/// (parent and children in the AABB's w lanes) is hk's choice; no retail tree was measured.
pub fn compound(schema: &Schema) -> Result<Built, String> {
    let boxed = box_shape(schema)?;
    let mut objects = boxed.objects;
    for o in &mut objects {
        o.fields.iter_mut().for_each(|f| shift(&mut f.value, 1));
    }
    let mut c = shape(
        schema,
        "hknpCompoundShape",
        "STATIC_COMPOUND",
        "COMPOSITE",
        &["IS_COMPOSITE_SHAPE"],
    )?;
    let offsets = [-40.0f32, 40.0];
    let mut instances = Vec::new();
    for x in offsets {
        let mut i = new(schema, "hknpShapeInstance")?;
        // Column-major rotation (identity) and translation.
        let mut t = vec![0.0f32; 16];
        for k in 0..3 {
            t[5 * k] = 1.0;
        }
        t[12] = x;
        t[15] = 1.0;
        set(&mut i, "transform", Value::Floats(t))?;
        set(&mut i, "scale", Value::Floats(vec![1.0, 1.0, 1.0, 0.0]))?;
        set(&mut i, "shape", ptr(1))?;
        instances.push(Value::Struct(i.fields));
    }
    set(&mut c, "instances.elements", Value::Array(instances))?;
    set(&mut c, "instances.firstFree", Value::Int(-1))?;
    let aabb = |lo: [f32; 3], hi: [f32; 3], lw: u32, hw: u32| {
        Value::Struct(vec![
            hk_runtime::graph::Field::new(
                "min",
                Value::Floats(vec![lo[0], lo[1], lo[2], f32::from_bits(lw)]),
            ),
            hk_runtime::graph::Field::new(
                "max",
                Value::Floats(vec![hi[0], hi[1], hi[2], f32::from_bits(hw)]),
            ),
        ])
    };
    let lo = |x: f32| [x - HALF[0], -HALF[1], -HALF[2]];
    let hi = |x: f32| [x + HALF[0], HALF[1], HALF[2]];
    set(&mut c, "aabb", aabb(lo(-40.0), hi(40.0), 0, 0))?;
    let node = |b: Value| Value::Struct(vec![hk_runtime::graph::Field::new("aabb", b)]);
    // Node 0 is the null node; 1 the root (children 2 and 3); 2 and 3 the leaves, whose
    // max.w holds the instance index.
    let nodes = vec![
        node(aabb([0.0; 3], [0.0; 3], 0, 0)),
        node(aabb(lo(-40.0), hi(40.0), 0, 2 | 3 << 16)),
        node(aabb(lo(-40.0), hi(-40.0), 1, 0)),
        node(aabb(lo(40.0), hi(40.0), 1, 1)),
    ];
    set(
        &mut c,
        "boundingVolumeData.aabbTree.nodes",
        Value::Array(nodes),
    )?;
    set(
        &mut c,
        "boundingVolumeData.aabbTree.numLeaves",
        Value::UInt(2),
    )?;
    set(&mut c, "boundingVolumeData.aabbTree.root", Value::UInt(1))?;
    let radius = (80.0f32 + HALF[0]).hypot(HALF[1]).hypot(HALF[2]);
    set(&mut c, "boundingRadius", Value::Real(radius))?;
    set(&mut c, "estimatedNumShapeKeys", Value::Int(2))?;
    objects.insert(0, c);
    Ok(Built {
        objects,
        container: record(),
    })
}
