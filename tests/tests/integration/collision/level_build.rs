//! `collision::hkp::level_build` (docs/collision-notes.md §14): what it refuses, and that the
//! same description builds in another generation's schema and reads back there.

use std::sync::Arc;

use hk_runtime::collision::hkp::level_build::{build, BodyDesc, Placement, ShapeDesc, TriMesh};
use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self};

fn quad() -> TriMesh {
    TriMesh {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 1.0],
        ],
        triangles: vec![[0, 2, 1], [1, 2, 3]],
        surfaces: vec![4, 9],
    }
}

fn body(shape: ShapeDesc, motion: &str) -> BodyDesc {
    BodyDesc {
        name: "b".into(),
        at: Placement {
            rotation: [0.0, 0.6, 0.0, 0.8],
            translation: [1.0, 2.0, 3.0],
        },
        motion: motion.into(),
        filter_info: 0x0065_0003,
        shape,
    }
}

fn err(schema: &str, b: BodyDesc) -> String {
    let s = Arc::new(hk_tests::schema(schema));
    match build(s, &[b]) {
        Ok(_) => panic!("built"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_descriptions_are_errors_that_say_what() {
    let e = err(
        "havok-7.1",
        body(ShapeDesc::Sphere { radius: 1.0 }, "MOTION_FLYING"),
    );
    assert!(e.contains("MOTION_FLYING"), "{e}");
    let mut m = quad();
    m.surfaces.pop();
    let e = err("havok-7.1", body(ShapeDesc::MoppMesh(m), "MOTION_FIXED"));
    assert!(e.contains("2 triangles but 1 surface ids"), "{e}");
    let mut m = quad();
    m.triangles[1][2] = 4;
    let e = err("havok-7.1", body(ShapeDesc::SimpleMesh(m), "MOTION_FIXED"));
    assert!(e.contains("past the 4 vertices"), "{e}");
    let bad_face = ShapeDesc::ConvexVertices {
        vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        faces: vec![vec![0, 1]],
    };
    let e = err("havok-7.1", body(bad_face, "MOTION_FIXED"));
    assert!(e.contains("missing vertex"), "{e}");
    // A flat mesh has no triangle a MOPP code can index.
    let flat = TriMesh {
        vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
        triangles: vec![[0, 1, 2]],
        surfaces: vec![0],
    };
    let e = err("havok-7.1", body(ShapeDesc::MoppMesh(flat), "MOTION_FIXED"));
    assert!(e.contains("no usable triangle"), "{e}");
}

#[test]
fn the_same_description_builds_in_2010_2() {
    let s = Arc::new(hk_tests::schema("havok-2010.2"));
    let bodies = [
        body(ShapeDesc::MoppMesh(quad()), "MOTION_FIXED"),
        body(
            ShapeDesc::Transform {
                at: Placement::IDENTITY,
                child: Box::new(ShapeDesc::SimpleMesh(quad())),
            },
            "MOTION_KEYFRAMED",
        ),
    ];
    let g = build(s, &bodies).unwrap();
    let scene = collision::read(&g).unwrap();
    assert_eq!(scene.bodies.len(), 2);
    for (b, d) in scene.bodies.iter().zip(&bodies) {
        assert_eq!(b.motion_name.as_deref(), Some(d.motion.as_str()));
        assert_eq!(b.filter_info, 0x0065_0003);
        assert_eq!(b.to_world.t, [1.0, 2.0, 3.0]);
        let surfaces: Vec<_> = b.meshes[0].triangles.iter().map(|t| t.surface).collect();
        assert_eq!(surfaces, [Some(4), Some(9)]);
    }
    assert!(check::check(&scene, 0).unwrap().passes());
}
