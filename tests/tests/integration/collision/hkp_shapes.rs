//! Every hkp shape kind hk reads, in a Havok 2010.2 graph built here from the schema
//! (docs/collision.md): placement by the body and by translate and transform shapes, list
//! keys, tessellated primitives, convex faces from connectivity or a rebuilt hull, simple
//! meshes, storage meshes with 8- and 32-bit indices, materials, welding and a MOPP tree.

use std::sync::Arc;

use hk_runtime::collision::hkp::convex;
use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self, Aabb, Body, Mesh, ShapeKind};
use hk_runtime::graph::{default_value, Array, Floats, Graph, ObjectId, Value};
use hk_runtime::schema::Shape;

struct G(Graph);

impl G {
    fn new() -> G {
        G(Graph::new(Arc::new(hk_tests::schema("havok-2010.2"))))
    }

    fn add(&mut self, class: &str) -> ObjectId {
        self.0.add_object(class).unwrap()
    }

    fn set(&mut self, id: ObjectId, path: &str, v: impl Into<Value>) {
        let v = v.into();
        self.0
            .set(id, path, v)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
    }

    fn int(&mut self, id: ObjectId, path: &str, v: i64) {
        let try_signed = self.0.set(id, path, Value::Int(v));
        if try_signed.is_err() {
            self.set(id, path, Value::UInt(v as u64));
        }
    }

    fn v4(&mut self, id: ObjectId, path: &str, v: [f32; 4]) {
        self.set(id, path, Value::Floats(Floats::from(v)));
    }

    /// `n` zero structs of `class` as an array member.
    fn structs(&mut self, id: ObjectId, path: &str, class: &str, n: usize) {
        let s = self.0.schema().clone();
        let c = s.require(class).unwrap();
        let items = (0..n)
            .map(|_| default_value(&s, &Shape::Struct(c)).unwrap())
            .collect();
        self.set(id, path, Value::Array(Array::Values(items)));
    }

    fn ptrs(&mut self, id: ObjectId, path: &str, to: &[ObjectId]) {
        let items = to.iter().map(|&o| Value::from(o)).collect();
        self.set(id, path, Value::Array(Array::Values(items)));
    }

    /// A rigid body named `name` holding `shape`, rotated by `cols` and moved by `t`.
    fn body(&mut self, name: &str, shape: ObjectId, cols: [[f32; 3]; 3], t: [f32; 3]) {
        let b = self.add("hkpRigidBody");
        self.set(b, "name", Value::String(Some(name.into())));
        self.set(b, "collidable.shape", shape);
        self.int(b, "collidable.broadPhaseHandle.collisionFilterInfo", 11);
        self.int(b, "motion.type", 5);
        let mut tf = [0f32; 16];
        for (i, c) in cols.iter().enumerate() {
            tf[4 * i..4 * i + 3].copy_from_slice(c);
        }
        tf[12..15].copy_from_slice(&t);
        tf[15] = 1.0;
        self.set(
            b,
            "motion.motionState.transform",
            Value::Floats(Floats::new(&tf).unwrap()),
        );
    }
}

const IDENTITY: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn world_box(b: &Body, m: &Mesh) -> Aabb {
    Aabb::of(b.world_vertices(m)).unwrap()
}

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() < 1e-4)
}

/// The cube of half size 1: its corners (x fastest) and its faces as quads.
fn cube() -> ([[f32; 3]; 8], [[u16; 4]; 6]) {
    let mut c = [[0f32; 3]; 8];
    for (i, p) in c.iter_mut().enumerate() {
        *p = [0, 1, 2].map(|a| if i >> a & 1 == 1 { 1.0 } else { -1.0 });
    }
    (
        c,
        [
            [0, 2, 6, 4],
            [1, 5, 7, 3],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 1, 3, 2],
            [4, 6, 7, 5],
        ],
    )
}

/// A convex vertices shape of the cube with `planes` scaled by `scale`, and connectivity
/// for the first five faces only.
fn convex_cube(g: &mut G, scale: f32) -> ObjectId {
    let (corners, faces) = cube();
    let s = g.add("hkpConvexVerticesShape");
    g.int(s, "numVertices", 8);
    g.structs(s, "rotatedVertices", "hkpConvexVerticesShapeFourVectors", 2);
    for k in 0..2 {
        for (a, lane) in ["x", "y", "z"].iter().enumerate() {
            let v = [0, 1, 2, 3].map(|j| corners[4 * k + j][a]);
            g.v4(s, &format!("rotatedVertices[{k}].{lane}"), v);
        }
    }
    let mut planes = Vec::new();
    for a in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut p = [0.0; 4];
            p[a] = sign * scale;
            p[3] = -scale;
            planes.push(p);
        }
    }
    g.set(s, "planeEquations", Value::Array(Array::Vec4(planes)));
    g.v4(s, "aabbHalfExtents", [1.0, 1.0, 1.0, 0.0]);
    g.v4(s, "aabbCenter", [0.0; 4]);
    let c = g.add("hkpConvexVerticesConnectivity");
    let idx: Vec<u16> = faces[..5].iter().flatten().copied().collect();
    g.set(c, "vertexIndices", Value::Array(Array::U16(idx)));
    g.set(c, "numVerticesPerFace", Value::Array(Array::U8(vec![4; 5])));
    g.set(s, "connectivity", c);
    s
}

#[test]
fn every_hkp_shape_kind_reads_into_world_space_triangles() {
    let mut g = G::new();

    // A box moved by a convex translate shape, in a body turned 90° about z and raised 5.
    let bx = g.add("hkpBoxShape");
    g.v4(bx, "halfExtents", [1.0, 2.0, 3.0, 0.0]);
    let tr = g.add("hkpConvexTranslateShape");
    g.set(tr, "childShape.childShape", bx);
    g.v4(tr, "translation", [10.0, 0.0, 0.0, 0.0]);
    let turn = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    g.body("turned box", tr, turn, [0.0, 0.0, 5.0]);

    // A list of a sphere, a capsule and a cylinder.
    let sp = g.add("hkpSphereShape");
    g.set(sp, "radius", 1.0f32);
    let cap = g.add("hkpCapsuleShape");
    g.set(cap, "radius", 0.5f32);
    g.v4(cap, "vertexA", [0.0; 4]);
    g.v4(cap, "vertexB", [0.0, 0.0, 2.0, 0.0]);
    let cyl = g.add("hkpCylinderShape");
    g.set(cyl, "cylRadius", 0.5f32);
    g.v4(cyl, "vertexA", [0.0; 4]);
    g.v4(cyl, "vertexB", [0.0, 0.0, 1.0, 0.0]);
    let list = g.add("hkpListShape");
    g.structs(list, "childInfo", "hkpListShapeChildInfo", 3);
    for (i, c) in [sp, cap, cyl].into_iter().enumerate() {
        g.set(list, &format!("childInfo[{i}].shape"), c);
    }
    g.body("list", list, IDENTITY, [0.0; 3]);

    // Convex cubes: exact planes (faces from connectivity, five of them here) and planes
    // scaled by 2 (not exact: the hull is rebuilt, all six faces).
    let exact = convex_cube(&mut g, 1.0);
    g.body("exact planes", exact, IDENTITY, [0.0; 3]);
    let scaled = convex_cube(&mut g, 2.0);
    // Under a transform shape that lifts it by 100.
    let ts = g.add("hkpTransformShape");
    g.set(ts, "childShape.childShape", scaled);
    let mut tf = [0f32; 16];
    tf[0] = 1.0;
    tf[5] = 1.0;
    tf[10] = 1.0;
    tf[14] = 100.0;
    tf[15] = 1.0;
    g.set(ts, "transform", Value::Floats(Floats::new(&tf).unwrap()));
    g.body("scaled planes", ts, IDENTITY, [0.0; 3]);

    // A simple mesh: two triangles with material indices 3 and 4.
    let sm = g.add("hkpSimpleMeshShape");
    let quad = vec![
        [0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
    ];
    g.set(sm, "vertices", Value::Array(Array::Vec4(quad.clone())));
    g.structs(sm, "triangles", "hkpSimpleMeshShapeTriangle", 2);
    for (k, t) in [[0, 1, 2], [0, 2, 3]].iter().enumerate() {
        for (n, name) in ["a", "b", "c"].iter().enumerate() {
            g.int(sm, &format!("triangles[{k}].{name}"), t[n]);
        }
    }
    g.set(sm, "materialIndices", Value::Array(Array::U8(vec![3, 4])));
    g.body("simple", sm, IDENTITY, [0.0; 3]);

    // A cube moved by a convex transform shape.
    let cube_box = g.add("hkpBoxShape");
    g.v4(cube_box, "halfExtents", [1.0, 1.0, 1.0, 0.0]);
    let ct = g.add("hkpConvexTransformShape");
    g.set(ct, "childShape.childShape", cube_box);
    let mut tf = [0f32; 16];
    tf[0] = 1.0;
    tf[5] = 1.0;
    tf[10] = 1.0;
    tf[13] = 5.0;
    tf[15] = 1.0;
    g.set(ct, "transform", Value::Floats(Floats::new(&tf).unwrap()));
    g.body("convex transform", ct, IDENTITY, [0.0; 3]);

    let scene = collision::read(&g.0).unwrap();
    assert_eq!(scene.bodies.len(), 6);
    let by = |n: &str| scene.bodies.iter().find(|b| b.name == n).unwrap();

    let b = by("turned box");
    assert_eq!((b.filter_info, b.motion_type), (11, 5));
    assert_eq!(b.motion_name.as_deref(), Some("MOTION_FIXED"));
    assert_eq!(b.meshes.len(), 1);
    let m = &b.meshes[0];
    assert_eq!(
        (m.kind, m.triangles.len(), m.vertices.len()),
        (ShapeKind::Box, 12, 8)
    );
    // Body space x 9..11, y -2..2, z -3..3; turned: (x, y, z) -> (-y, x, z + 5).
    let w = world_box(b, m);
    assert!(
        close(w.min, [-2.0, 9.0, 2.0]) && close(w.max, [2.0, 11.0, 8.0]),
        "{w:?}"
    );

    let b = by("list");
    assert_eq!(b.meshes.len(), 3);
    let kinds: Vec<_> = b.meshes.iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        [ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Cylinder]
    );
    for (i, m) in b.meshes.iter().enumerate() {
        assert!(
            m.triangles.iter().all(|t| t.key == i as u32),
            "list keys are child indices"
        );
    }
    for p in &b.meshes[0].vertices {
        let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        assert!((r - 1.0).abs() < 1e-5, "sphere vertex at {r}");
    }
    for p in &b.meshes[1].vertices {
        // Distance from the segment z 0..2 on the z axis.
        let z = p[2].clamp(0.0, 2.0);
        let r = (p[0] * p[0] + p[1] * p[1] + (p[2] - z) * (p[2] - z)).sqrt();
        assert!((r - 0.5).abs() < 1e-5, "capsule vertex at {r}");
    }
    let cb = world_box(b, &b.meshes[1]);
    assert!(
        close(cb.min, [-0.5, -0.5, -0.5]) && close(cb.max, [0.5, 0.5, 2.5]),
        "{cb:?}"
    );
    for p in &b.meshes[2].vertices {
        assert!(((p[0] * p[0] + p[1] * p[1]).sqrt() - 0.5).abs() < 1e-5);
        assert!(p[2] == 0.0 || p[2] == 1.0);
    }

    let b = by("exact planes");
    assert_eq!(b.meshes[0].kind, ShapeKind::ConvexVertices);
    assert_eq!(b.meshes[0].vertices, cube().0.to_vec(), "FourVectors lanes");
    assert_eq!(
        b.meshes[0].triangles.len(),
        10,
        "five quads of the connectivity"
    );
    let b = by("scaled planes");
    let m = &b.meshes[0];
    assert_eq!(m.triangles.len(), 12, "the rebuilt hull has all six faces");
    let w = world_box(b, m);
    assert!(
        close(w.min, [-1.0, -1.0, 99.0]) && close(w.max, [1.0, 1.0, 101.0]),
        "{w:?}"
    );
    for t in &m.triangles {
        let [a, bb, c] = t.v.map(|i| m.vertices[i as usize]);
        let u = [0, 1, 2].map(|i| bb[i] - a[i]);
        let v = [0, 1, 2].map(|i| c[i] - a[i]);
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let centre = [0, 1, 2].map(|i| a[i] + bb[i] + c[i]);
        assert!(
            n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2] > 0.0,
            "outward"
        );
    }

    let b = by("simple");
    let m = &b.meshes[0];
    assert_eq!(m.kind, ShapeKind::SimpleMesh);
    let s: Vec<_> = m
        .triangles
        .iter()
        .map(|t| (t.v, t.key, t.surface))
        .collect();
    assert_eq!(s, [([0, 1, 2], 0, Some(3)), ([0, 2, 3], 1, Some(4))]);

    let b = by("convex transform");
    let w = world_box(b, &b.meshes[0]);
    assert!(
        close(w.min, [-1.0, 4.0, -1.0]) && close(w.max, [1.0, 6.0, 1.0]),
        "{w:?}"
    );
}

#[test]
fn storage_meshes_with_8_and_32_bit_indices_under_a_mopp_tree() {
    let mut g = G::new();
    let quad = vec![
        [0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
    ];
    // Subpart 0: 8-bit indices, three a triangle; 8-bit material indices into two
    // material records.
    let s0 = g.add("hkpStorageExtendedMeshShapeMeshSubpartStorage");
    g.set(s0, "vertices", Value::Array(Array::Vec4(quad.clone())));
    g.set(
        s0,
        "indices8",
        Value::Array(Array::U8(vec![0, 1, 2, 0, 2, 3])),
    );
    g.set(s0, "materialIndices", Value::Array(Array::U8(vec![1, 0])));
    g.structs(s0, "materials", "hkpStorageExtendedMeshShapeMaterial", 2);
    g.int(s0, "materials[0].filterInfo", (5 << 3) | 1);
    g.int(s0, "materials[1].filterInfo", (9 << 3) | 0x800);
    // Subpart 1: 32-bit indices, four a triangle (v0, v1, v2, 0), no materials, moved up
    // by 7 by its own transform.
    let s1 = g.add("hkpStorageExtendedMeshShapeMeshSubpartStorage");
    g.set(s1, "vertices", Value::Array(Array::Vec4(quad)));
    g.set(s1, "indices32", Value::Array(Array::U32(vec![0, 1, 3, 0])));
    let mesh = g.add("hkpStorageExtendedMeshShape");
    g.int(mesh, "numBitsForSubpartIndex", 12);
    g.structs(
        mesh,
        "trianglesSubparts",
        "hkpExtendedMeshShapeTrianglesSubpart",
        2,
    );
    let sub = |k: usize, m: &str| format!("trianglesSubparts[{k}].{m}");
    for (k, (striding, stride, n, mat)) in [(1, 3, 2, 1), (3, 16, 1, 0)].into_iter().enumerate() {
        g.int(mesh, &sub(k, "stridingType"), striding);
        g.int(mesh, &sub(k, "indexStriding"), stride);
        g.int(mesh, &sub(k, "numTriangleShapes"), n);
        g.int(mesh, &sub(k, "numVertices"), 4);
        g.int(mesh, &sub(k, "vertexStriding"), 16);
        g.int(mesh, &sub(k, "materialIndexStridingType"), mat);
        g.int(mesh, &sub(k, "materialIndexStriding"), mat);
        let mut qs = [0f32; 12];
        qs[7] = 1.0;
        qs[8..12].copy_from_slice(&[1.0; 4]);
        if k == 1 {
            qs[2] = 7.0;
        }
        g.set(
            mesh,
            &sub(k, "transform"),
            Value::Floats(Floats::new(&qs).unwrap()),
        );
    }
    g.ptrs(mesh, "meshstorage", &[s0, s1]);
    g.set(
        mesh,
        "weldingInfo",
        Value::Array(Array::U16(vec![10, 20, 30])),
    );
    g.v4(mesh, "aabbCenter", [0.5, 0.5, 3.5, 0.0]);
    g.v4(mesh, "aabbHalfExtents", [0.5, 0.5, 3.5, 0.0]);

    // A MOPP code over the mesh: bounds on every axis, then two diagonal splits that
    // reach keys 0 and 1, and key 1 << 20 after a terminal offset.
    let data: Vec<u8> = [
        vec![0x26, 0, 255, 0x27, 0, 255, 0x28, 0, 255],
        vec![0x13, 0, 255, 1],
        vec![0x30],
        vec![0x13, 0, 255, 1],
        vec![0x31],
        vec![0x0B, 0x00, 0x10, 0x00, 0x00],
        vec![0x30],
    ]
    .concat();
    let code = g.add("hkpMoppCode");
    g.v4(
        code,
        "info.offset",
        [-1.0, -1.0, -1.0, (1u32 << 24) as f32 / 10.0],
    );
    g.set(code, "data", Value::Array(Array::U8(data)));
    let tree = g.add("hkpMoppBvTreeShape");
    g.set(tree, "code", code);
    g.set(tree, "child.childShape", mesh);
    g.body("mesh", tree, IDENTITY, [100.0, 0.0, 0.0]);

    let scene = collision::read(&g.0).unwrap();
    let b = &scene.bodies[0];
    assert_eq!(b.meshes.len(), 2);
    let t0: Vec<_> = b.meshes[0]
        .triangles
        .iter()
        .map(|t| (t.v, t.key, t.surface, t.material, t.welding))
        .collect();
    assert_eq!(
        t0,
        [
            ([0, 1, 2], 0, Some(9), Some((9 << 3) | 0x800), Some(10)),
            ([0, 2, 3], 1, Some(5), Some((5 << 3) | 1), Some(20)),
        ]
    );
    let t1: Vec<_> = b.meshes[1]
        .triangles
        .iter()
        .map(|t| (t.v, t.key, t.surface))
        .collect();
    assert_eq!(t1, [([0, 1, 3], 1 << 20, None)]);
    assert_eq!(b.meshes[1].declared_triangles, Some(1));
    let w = world_box(b, &b.meshes[1]);
    assert!(
        close(w.min, [100.0, 0.0, 7.0]) && close(w.max, [101.0, 1.0, 7.0]),
        "{w:?}"
    );
    // The MOPP check runs in the mesh's space (the body's move does not apply).
    assert_eq!(scene.codes.len(), 1);
    let r = check::check(&scene, 0).unwrap();
    assert!(r.passes(), "{r:?}");
    assert_eq!((r.found, r.kept, r.terminals), (3, 3, 3));
    // Every vertex in the stored box, in the code's space.
    for m in &b.meshes {
        let bx = m.stored_aabb.unwrap();
        assert!(m
            .vertices
            .iter()
            .all(|&v| bx.contains(m.to_code.apply(v), 1e-6)));
    }
}

#[test]
fn a_storage_mesh_whose_indices_name_missing_vertices_is_an_error() {
    let mut g = G::new();
    let s0 = g.add("hkpStorageExtendedMeshShapeMeshSubpartStorage");
    g.set(s0, "vertices", Value::Array(Array::Vec4(vec![[0.0; 4]; 3])));
    g.set(s0, "indices16", Value::Array(Array::U16(vec![0, 1, 9, 0])));
    let mesh = g.add("hkpStorageExtendedMeshShape");
    g.int(mesh, "numBitsForSubpartIndex", 12);
    g.structs(
        mesh,
        "trianglesSubparts",
        "hkpExtendedMeshShapeTrianglesSubpart",
        1,
    );
    g.int(mesh, "trianglesSubparts[0].stridingType", 2);
    g.int(mesh, "trianglesSubparts[0].indexStriding", 8);
    g.int(mesh, "trianglesSubparts[0].numTriangleShapes", 1);
    g.ptrs(mesh, "meshstorage", &[s0]);
    g.body("bad", mesh, IDENTITY, [0.0; 3]);
    let e = collision::read(&g.0).unwrap_err().to_string();
    assert!(e.contains("vertex 9") && e.contains("indices16"), "{e}");
    // More triangles than indices.
    g.int(mesh, "trianglesSubparts[0].numTriangleShapes", 2);
    let e = collision::read(&g.0).unwrap_err().to_string();
    assert!(e.contains("need 7 indices"), "{e}");
}

#[test]
fn hull_of_a_point_cloud_is_the_cube_around_it() {
    let (corners, _) = cube();
    let mut pts: Vec<[f32; 3]> = corners.to_vec();
    // Interior points and points on faces do not change the hull.
    for i in 0..50 {
        let f = i as f32 / 50.0;
        pts.push([f - 0.5, 0.3 - f * 0.5, 0.9 * f]);
    }
    pts.push([1.0, 0.0, 0.0]);
    let h = convex::hull(&pts);
    assert_eq!(h.len(), 12);
    assert!(
        h.iter().flatten().all(|&i| (i as usize) < 8),
        "only corners"
    );
    // Flat point sets give their flat hull: corners 0 to 3 are the square z = -1.
    assert_eq!(convex::hull(&pts[..3]).len(), 1);
    let square = convex::hull(&pts[..4]);
    assert_eq!(square.len(), 2, "{square:?}");
    let mut used: Vec<u32> = square.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    assert_eq!(used, [0, 1, 2, 3]);
    // A point inside the square and one on its edge change nothing.
    let mut flat = pts[..4].to_vec();
    flat.extend([[0.2, 0.1, -1.0], [0.0, -1.0, -1.0]]);
    let h = convex::hull(&flat);
    assert_eq!(h.len(), 2, "{h:?}");
    assert!(h.iter().flatten().all(|&i| i < 4), "{h:?}");
    // Points on one line have no hull.
    assert!(
        convex::hull(&[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0; 3]]).is_empty()
    );
    assert!(convex::planes_exact(&[[1.0, 0.0, 0.0, -1.0]], &corners));
    assert!(!convex::planes_exact(&[[2.0, 0.0, 0.0, -2.0]], &corners));
    assert!(!convex::planes_exact(&[[1.0, 0.0, 0.0, -0.5]], &corners));
}

#[test]
fn inconsistent_shapes_are_errors_not_panics() {
    // A storage mesh with one good triangle, then one member at a time set wrong.
    let build = |member: &str, value: i64| {
        let mut g = G::new();
        let s0 = g.add("hkpStorageExtendedMeshShapeMeshSubpartStorage");
        g.set(s0, "vertices", Value::Array(Array::Vec4(vec![[0.0; 4]; 3])));
        g.set(s0, "indices16", Value::Array(Array::U16(vec![0, 1, 2, 0])));
        let mesh = g.add("hkpStorageExtendedMeshShape");
        g.int(mesh, "numBitsForSubpartIndex", 12);
        g.structs(
            mesh,
            "trianglesSubparts",
            "hkpExtendedMeshShapeTrianglesSubpart",
            1,
        );
        g.int(mesh, "trianglesSubparts[0].stridingType", 2);
        g.int(mesh, "trianglesSubparts[0].indexStriding", 8);
        g.int(mesh, "trianglesSubparts[0].numTriangleShapes", 1);
        g.set(mesh, "weldingInfo", Value::Array(Array::U16(vec![1])));
        g.ptrs(mesh, "meshstorage", &[s0]);
        g.int(mesh, member, value);
        g.body("m", mesh, IDENTITY, [0.0; 3]);
        collision::read(&g.0)
    };
    assert!(build("numBitsForSubpartIndex", 12).is_ok());
    for (member, value, says) in [
        ("numBitsForSubpartIndex", 0, "is not 1 to 31"),
        ("numBitsForSubpartIndex", 40, "is not 1 to 31"),
        ("trianglesSubparts[0].indexStriding", 0, "positive multiple"),
        ("trianglesSubparts[0].indexStriding", 3, "positive multiple"),
        ("trianglesSubparts[0].numTriangleShapes", -1, "negative"),
        (
            "trianglesSubparts[0].numTriangleShapes",
            i32::MAX as i64,
            "bits for",
        ),
        ("trianglesSubparts[0].numTriangleShapes", 5_000, "indices"),
        ("trianglesSubparts[0].stridingType", 3, "indices32"),
    ] {
        let e = build(member, value).expect_err(member).to_string();
        assert!(e.contains(says), "{member} = {value}: {e}");
    }
    // A transform shape that holds itself: the walk stops at its depth limit.
    let mut g = G::new();
    let ts = g.add("hkpTransformShape");
    g.set(ts, "childShape.childShape", ts);
    let mut tf = [0f32; 16];
    tf[0] = 1.0;
    tf[5] = 1.0;
    tf[10] = 1.0;
    tf[15] = 1.0;
    g.set(ts, "transform", Value::Floats(Floats::new(&tf).unwrap()));
    g.body("loop", ts, IDENTITY, [0.0; 3]);
    let e = collision::read(&g.0).unwrap_err().to_string();
    assert!(e.contains("deeper than"), "{e}");
    // A convex shape that claims more vertices than its records hold.
    let mut g = G::new();
    let c = convex_cube(&mut g, 1.0);
    g.int(c, "numVertices", 9);
    g.body("convex", c, IDENTITY, [0.0; 3]);
    let e = collision::read(&g.0).unwrap_err().to_string();
    assert!(e.contains("FourVectors hold 8"), "{e}");
    // A body whose shape is not a shape.
    let mut g = G::new();
    let not_shape = g.add("hkpStorageExtendedMeshShapeMeshSubpartStorage");
    g.body("odd", not_shape, IDENTITY, [0.0; 3]);
    let e = collision::read(&g.0).unwrap_err().to_string();
    assert!(e.contains("not a shape class"), "{e}");
}
