//! Flat convex shapes (docs/collision-notes.md §10.2): four coplanar vertices give their
//! two triangles whether the shape has no connectivity or one of no faces, and a shape
//! that gives no triangles is named (object, class, members). The file is written by hk
//! from the 2010.2 schema and read back through the front door.

use std::sync::Arc;

use hk_runtime::collision;
use hk_runtime::file;
use hk_runtime::graph::{default_value, Array, Floats, Graph, ObjectId, Value};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::packfile::PackfileInfo;
use hk_runtime::schema::Shape;

/// A convex vertices shape of `points` (at most 4), with a connectivity of no faces and
/// its two exact planes when `empty_connectivity`, in a rigid body named `name`.
fn flat(g: &mut Graph, name: &str, points: &[[f32; 3]], empty_connectivity: bool) -> ObjectId {
    let schema = Arc::clone(g.schema());
    let s = g.add_object("hkpConvexVerticesShape").unwrap();
    g.set(s, "numVertices", Value::Int(points.len() as i64))
        .unwrap();
    let four = schema.require("hkpConvexVerticesShapeFourVectors").unwrap();
    let rec = default_value(&schema, &Shape::Struct(four)).unwrap();
    g.set(s, "rotatedVertices", Value::Array(Array::Values(vec![rec])))
        .unwrap();
    for (a, lane) in ["x", "y", "z"].iter().enumerate() {
        let mut v = [0f32; 4];
        for (j, p) in points.iter().enumerate() {
            v[j] = p[a];
        }
        let path = format!("rotatedVertices[0].{lane}");
        g.set(s, &path, Value::Floats(Floats::from(v))).unwrap();
    }
    if empty_connectivity {
        let planes = vec![[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, -1.0, 0.0]];
        g.set(s, "planeEquations", Value::Array(Array::Vec4(planes)))
            .unwrap();
        let c = g.add_object("hkpConvexVerticesConnectivity").unwrap();
        g.set(s, "connectivity", Value::from(c)).unwrap();
    }
    let b = g.add_object("hkpRigidBody").unwrap();
    g.set(b, "name", Value::String(Some(name.into()))).unwrap();
    g.set(b, "collidable.shape", Value::from(s)).unwrap();
    let mut tf = [0f32; 16];
    for i in 0..4 {
        tf[5 * i] = 1.0;
    }
    let tf = Value::Floats(Floats::new(&tf).unwrap());
    g.set(b, "motion.motionState.transform", tf).unwrap();
    s
}

#[test]
fn flat_hulls_give_their_two_triangles_and_empty_shapes_are_named() {
    let schema = Arc::new(hk_tests::schema("havok-2010.2"));
    let mut g = Graph::new(Arc::clone(&schema));
    let square = [
        [0.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [2.0, 2.0, 0.0],
        [0.0, 2.0, 0.0],
    ];
    let bare = flat(&mut g, "bare", &square, false);
    let faceless = flat(&mut g, "faceless", &square, true);
    let line = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let on_a_line = flat(&mut g, "line", &line, false);
    g.root = ObjectId(0);
    let info = PackfileInfo::new(&schema.generation, schema.generation.layout);
    let bytes = hk_runtime::packfile::graph::write::write(&g, &info).unwrap();

    let doc = file::open(&bytes, &hk_tests::schema_set(), ReadOptions::default()).unwrap();
    assert_eq!(file::write(&doc).unwrap(), bytes);
    let scene = collision::read(&doc.graph).unwrap();
    let tris = |id: ObjectId| {
        let (_, m) = scene.meshes().find(|(_, m)| m.object == id).unwrap();
        (m.vertices.len(), m.triangles.len())
    };
    assert_eq!(tris(bare), (4, 2));
    assert_eq!(tris(faceless), (4, 2));
    assert_eq!(tris(on_a_line), (3, 0));
    // The two triangles cover the square: each vertex is used.
    let (_, m) = scene.meshes().find(|(_, m)| m.object == faceless).unwrap();
    let mut used: Vec<u32> = m.triangles.iter().flat_map(|t| t.v).collect();
    used.sort_unstable();
    used.dedup();
    assert_eq!(used, [0, 1, 2, 3]);
    assert_eq!(
        scene.empty_shapes(&doc.graph),
        [format!(
            "object #{} hkpConvexVerticesShape (rotatedVertices, connectivity) of body line: 3 vertices",
            on_a_line.0
        )]
    );
}
