//! Havok 2016 hknp collision (docs/collision-notes.md §12): synthetic cm files hk builds
//! from schemas/havok-2016 (a box polytope, a compressed-mesh terrain, a compound of placed
//! boxes with a free element), written, read back strictly and turned into triangles; the
//! box's mass properties against the retail rules worked out by hand; packed vectors that
//! pack back to themselves; and mutated counts, indices and tree nodes that fail with the
//! object and member named.

use std::sync::Arc;

use hk_runtime::collision::hknp;
use hk_runtime::collision::hknp::build::{MeshInput, Placed};
use hk_runtime::collision::hknp::packed::{self, Grid, PACKED_BITS, SHARED_BITS};
use hk_runtime::collision::{self, Aabb, Affine, Scene, ShapeKind};
use hk_runtime::file;
use hk_runtime::graph::{Graph, ObjectId, Value};
use hk_runtime::limits::ReadOptions;
use hk_runtime::tagfile::cm::SurfaceRecord;

fn schema() -> Arc<hk_runtime::Schema> {
    Arc::new(hk_tests::schema("havok-2016"))
}

/// Writes `g` as a cm file and reads it back through the strict front door.
fn round_trip(g: &Graph) -> Graph {
    let bytes = hknp::build::cm_bytes(g, &[SurfaceRecord::default()]).unwrap();
    let schemas = hk_tests::schema_set();
    file::open(&bytes, &schemas, ReadOptions::strict())
        .unwrap()
        .graph
}

fn scene(g: &Graph) -> Scene {
    collision::read(g).unwrap_or_else(|e| panic!("{e}"))
}

/// Every world-space vertex of every triangle, triangle by triangle.
fn world_triangles(s: &Scene) -> Vec<[[f32; 3]; 3]> {
    let mut out = Vec::new();
    for (b, m) in s.meshes() {
        let w = b.world_vertices(m);
        for t in &m.triangles {
            out.push(t.v.map(|i| w[i as usize]));
        }
    }
    out
}

fn close(a: [f32; 3], b: [f32; 3], tol: [f32; 3]) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() <= tol[i] + 1e-4 * b[i].abs().max(1.0))
}

/// A box: 12 triangles on its eight corners, every triangle facing out.
#[test]
fn a_box_polytope_gives_twelve_outward_triangles() {
    let half = [0.5, 1.0, 1.5];
    let mut g = Graph::new(schema());
    hknp::build::add_box(&mut g, half).unwrap();
    let s = scene(&round_trip(&g));
    assert_eq!(s.bodies.len(), 1);
    assert!(s.bodies[0].free);
    assert_eq!(s.bodies[0].meshes[0].kind, ShapeKind::ConvexPolytope);
    let tris = world_triangles(&s);
    assert_eq!(tris.len(), 12);
    for t in &tris {
        for p in t {
            assert!(
                (0..3).all(|a| p[a].abs() == half[a]),
                "{p:?} is not a corner"
            );
        }
        // Outward: the normal points away from the centre.
        let u = [0, 1, 2].map(|i| t[1][i] - t[0][i]);
        let v = [0, 1, 2].map(|i| t[2][i] - t[0][i]);
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let c = [0, 1, 2].map(|i| (t[0][i] + t[1][i] + t[2][i]) / 3.0);
        assert!(n[0] * c[0] + n[1] * c[1] + n[2] * c[2] > 0.0, "{t:?}");
    }
}

/// The retail box rules (docs/collision-notes.md §12) for a 1 × 2 × 3 box, by hand:
/// edges 1.02, 2.02, 3.02 with the 0.01 convex radius on both sides.
#[test]
fn box_mass_properties_follow_the_retail_rules() {
    let g = {
        let mut g = Graph::new(schema());
        hknp::build::add_box(&mut g, [0.5, 1.0, 1.5]).unwrap();
        round_trip(&g)
    };
    let volume = 1.02f64 * 2.02 * 3.02; // 6.222408
    let mass = 1000.0 * volume; // 6222.408
    let inertia = [
        1.5 * mass * (2.02 * 2.02 + 3.02 * 3.02) / 12.0, // 10267.6
        1.5 * mass * (1.02 * 1.02 + 3.02 * 3.02) / 12.0, // 7903.08
        1.5 * mass * (1.02 * 1.02 + 2.02 * 2.02) / 12.0, // 3982.96
    ];
    assert!((inertia[0] - 10267.6).abs() < 0.1, "{inertia:?}");
    let mp = g.first("hknpShapeMassProperties").unwrap();
    let get = |path: &str| g.get(mp, path).unwrap().clone();
    let real = |path: &str| match get(path) {
        Value::Real(r) => f64::from(r),
        v => panic!("{path}: {v:?}"),
    };
    let int16s = |path: &str| -> [i16; 4] {
        let v: Vec<i16> = get(path)
            .as_values()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap() as i16)
            .collect();
        v.try_into().unwrap()
    };
    let cmp = "compressedMassProperties";
    assert!((real(&format!("{cmp}.volume")) - volume).abs() / volume < 1e-6);
    assert!((real(&format!("{cmp}.mass")) - mass).abs() / mass < 1e-6);
    let packed = int16s(&format!("{cmp}.inertia.values"));
    // The scale is a power of two putting the largest component in [2^14, 2^15).
    let scale = f32::from_bits((packed[3] as u16 as u32) << 16);
    assert_eq!(scale.to_bits() & 0x007F_FFFF, 0, "a power of two");
    assert!((16384..=32767).contains(&packed[0]), "{packed:?}");
    for a in 0..3 {
        let got = f64::from(packed[a]) * f64::from(scale);
        assert!(
            (got - inertia[a]).abs() <= f64::from(scale) / 2.0 + 1e-3,
            "inertia {a}: {got} against {}",
            inertia[a]
        );
    }
    assert_eq!(
        int16s(&format!("{cmp}.centerOfMass.values")),
        [0, 0, 0, 0x1980]
    );
    assert_eq!(
        int16s(&format!("{cmp}.majorAxisSpace")),
        [-0x8000, -0x8000, -0x8000, 0xF530u16 as i16]
    );
    // Penetration: 0.3305 × (smallest half extent + radius) = 0.3305 × 0.51, its upper 16
    // bits rounded to nearest.
    let shape = g.first("hknpConvexPolytopeShape").unwrap();
    let Value::Half(h) = g.get(shape, "maxAllowedPenetration").unwrap().clone() else {
        panic!()
    };
    let want = 0.3305f32 * 0.51;
    assert_eq!(h, ((want.to_bits() + 0x8000) >> 16) as u16);
    let ratio = f32::from_bits(u32::from(h) << 16) / 0.51;
    assert!((0.3288..=0.3313).contains(&ratio), "{ratio}");
    let Value::Real(r) = g.get(shape, "convexRadius").unwrap().clone() else {
        panic!()
    };
    assert_eq!(r, 0.01);
}

#[test]
fn bad_half_extents_are_refused() {
    for half in [
        [0.0, 1.0, 1.0],
        [1.0, -2.0, 1.0],
        [1.0, 1.0, f32::NAN],
        [f32::INFINITY, 1.0, 1.0],
    ] {
        let mut g = Graph::new(schema());
        let e = hknp::build::add_box(&mut g, half).unwrap_err().to_string();
        assert!(e.contains("positive finite"), "{half:?}: {e}");
    }
}

/// A terrain of `n`² cells with uneven heights: quads, and triangles in the last row;
/// materials by row.
fn terrain(n: u32) -> MeshInput {
    let mut t = MeshInput::default();
    for j in 0..=n {
        for i in 0..=n {
            let z = ((i * 5 + j * 3) % 7) as f32 * 0.75;
            t.vertices.push([i as f32 * 2.5, j as f32 * 4.0 - 10.0, z]);
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            let m = (j % 4) as u16;
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

/// The input's triangles, as the format splits primitives: (a, b, c) and (a, c, d).
fn input_triangles(t: &MeshInput) -> Vec<([u32; 3], u16)> {
    let mut out = Vec::new();
    for (k, p) in t.primitives.iter().enumerate() {
        out.push(([p[0], p[1], p[2]], t.materials[k]));
        if p[2] != p[3] {
            out.push(([p[0], p[2], p[3]], t.materials[k]));
        }
    }
    out
}

#[test]
fn a_compressed_mesh_gives_back_its_triangles() {
    for n in [1, 5, 20] {
        let input = terrain(n);
        let want = input_triangles(&input);
        let mut g = Graph::new(schema());
        let layout = hknp::build::add_compressed_mesh(&mut g, &input).unwrap();
        let back = round_trip(&g);
        let s = scene(&back);
        let tris = world_triangles(&s);
        assert_eq!(tris.len(), want.len(), "{n}×{n} cells");
        assert_eq!(tris.len(), input.triangle_count());
        // Every corner within half a grid step of where it was put: the coarsest step is
        // the 11/10-bit section grid over the whole terrain at worst.
        let ext = [n as f32 * 2.5, n as f32 * 4.0, 4.5];
        let tol = [ext[0] / 2047.0, ext[1] / 2047.0, ext[2] / 1023.0].map(|s| s * 0.5);
        let m = &s.bodies[0].meshes[0];
        assert_eq!(m.kind, ShapeKind::CompressedMesh);
        // The builder orders sections spatially: each triangle read back matches one input
        // triangle (every corner, in order) and its material, each input triangle once.
        let mut matched = vec![false; want.len()];
        for (k, t) in tris.iter().enumerate() {
            let hit = want
                .iter()
                .position(|(v, _)| (0..3).all(|c| close(t[c], input.vertices[v[c] as usize], tol)));
            let Some(i) = hit else {
                panic!("triangle {k} {t:?}: no input triangle within {tol:?}");
            };
            assert!(
                !std::mem::replace(&mut matched[i], true),
                "input triangle {i} twice"
            );
            assert_eq!(
                m.triangles[k].material,
                Some(u32::from(want[i].1)),
                "triangle {k}"
            );
        }
        // The vertices sections share are stored once.
        let distinct = m.vertices.len();
        assert_eq!(
            distinct,
            input.vertices.len(),
            "{n}: one vertex per input vertex"
        );
        println!(
            "{n}×{n}: {} triangles in {} sections, {} packed + {} shared vertices, {} data runs",
            tris.len(),
            layout.sections,
            layout.packed,
            layout.shared,
            layout.runs
        );
        if n == 20 {
            assert!(layout.sections > 1 && layout.shared > 0, "{layout:?}");
        }
    }
}

#[test]
fn bad_mesh_input_is_refused() {
    let mut t = terrain(2);
    t.primitives[0][1] = 999;
    let e = hknp::build::add_compressed_mesh(&mut Graph::new(schema()), &t)
        .unwrap_err()
        .to_string();
    assert!(e.contains("primitive 0") && e.contains("999"), "{e}");
    let mut t = terrain(2);
    t.primitives[1] = [3, 3, 4, 5];
    let e = hknp::build::add_compressed_mesh(&mut Graph::new(schema()), &t)
        .unwrap_err()
        .to_string();
    assert!(e.contains("repeats a corner"), "{e}");
    let mut t = terrain(2);
    t.materials.pop();
    let e = hknp::build::add_compressed_mesh(&mut Graph::new(schema()), &t)
        .unwrap_err()
        .to_string();
    assert!(e.contains("materials"), "{e}");
}

/// Two boxes and a free element: the free one is skipped, each box placed by its
/// transform after its scale.
fn compound_graph() -> (Graph, ObjectId) {
    let mut g = Graph::new(schema());
    let b = hknp::build::add_box(&mut g, [1.0, 2.0, 3.0]).unwrap();
    let local = Aabb {
        min: [-1.0, -2.0, -3.0],
        max: [1.0, 2.0, 3.0],
    };
    // A quarter turn around z (x to y), then moved by (10, 0, 5).
    let turn = Affine {
        cols: [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        t: [10.0, 0.0, 5.0],
    };
    let slots = [
        None,
        Some(Placed {
            shape: b,
            transform: Affine::translation([-10.0, 0.0, 0.0]),
            scale: [1.0; 3],
            local,
        }),
        None,
        Some(Placed {
            shape: b,
            transform: turn,
            scale: [3.0, 1.0, 1.0],
            local,
        }),
    ];
    let c = hknp::build::add_compound(&mut g, &slots).unwrap();
    g.root = c;
    (g, c)
}

#[test]
fn a_compound_places_its_instances_and_skips_free_ones() {
    let (g, _) = compound_graph();
    let s = scene(&round_trip(&g));
    assert_eq!(s.bodies.len(), 1, "the compound is the one free shape");
    let tris = world_triangles(&s);
    assert_eq!(tris.len(), 24);
    let mut keys: Vec<u32> = s
        .meshes()
        .flat_map(|(_, m)| m.triangles.iter().map(|t| t.key))
        .collect();
    keys.dedup();
    assert_eq!(
        keys,
        vec![1, 3],
        "shape keys are the used elements' indices"
    );
    // Instance 1: x in -11..-9, y in -2..2, z in -3..3. Instance 3: scaled x by 3 (-3..3),
    // then x -> y and y -> -x: x in -2..2 + 10, y in -3..3, z in -3..3 + 5.
    let (first, second) = tris.split_at(12);
    for p in first.iter().flatten() {
        assert!([-11.0, -9.0].contains(&p[0]), "{p:?}");
        assert!(
            [-2.0, 2.0].contains(&p[1]) && [-3.0, 3.0].contains(&p[2]),
            "{p:?}"
        );
    }
    for p in second.iter().flatten() {
        assert!([8.0, 12.0].contains(&p[0]), "{p:?}");
        assert!(
            [-3.0, 3.0].contains(&p[1]) && [2.0, 8.0].contains(&p[2]),
            "{p:?}"
        );
    }
    let corners: std::collections::HashSet<[i32; 3]> = second
        .iter()
        .flatten()
        .map(|p| p.map(|x| x as i32))
        .collect();
    assert_eq!(corners.len(), 8);
}

/// Every packed vector of the synthetic files packs back to itself.
#[test]
fn packed_vectors_round_trip() {
    let mut checked = [0usize; 3];
    let (cg, _) = compound_graph();
    let mut mg = Graph::new(schema());
    hknp::build::add_compressed_mesh(&mut mg, &terrain(20)).unwrap();
    for g in [round_trip(&cg), round_trip(&mg)] {
        for (i, o) in g.objects.iter().enumerate() {
            let id = ObjectId(i as u32);
            match g.schema().name_of(o.class) {
                "hknpShapeMassProperties" => {
                    for m in ["centerOfMass", "inertia"] {
                        let path = format!("compressedMassProperties.{m}.values");
                        let v: Vec<i16> = g
                            .get(id, &path)
                            .unwrap()
                            .as_values()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_i64().unwrap() as i16)
                            .collect();
                        let v: [i16; 4] = v.try_into().unwrap();
                        assert_eq!(packed::pack_vector3(packed::unpack_vector3(v)), v, "{m}");
                        checked[0] += 1;
                    }
                }
                "hknpCompressedMeshShapeData" => {
                    let words = |path: &str| -> Vec<u64> {
                        g.get(id, path)
                            .unwrap()
                            .as_array()
                            .unwrap()
                            .to_values()
                            .iter()
                            .map(|v| v.as_u64().unwrap())
                            .collect()
                    };
                    let floats =
                        |path: &str| g.get(id, path).unwrap().as_floats().unwrap().to_vec();
                    let lo = floats("meshTree.domain.min");
                    let hi = floats("meshTree.domain.max");
                    let grid =
                        Grid::spanning([lo[0], lo[1], lo[2]], [hi[0], hi[1], hi[2]], SHARED_BITS);
                    for v in words("meshTree.sharedVertices") {
                        assert_eq!(grid.pack64(grid.unpack64(v)), v);
                        checked[2] += 1;
                    }
                    let packed = words("meshTree.packedVertices");
                    let n = g
                        .get(id, "meshTree.sections")
                        .unwrap()
                        .as_array()
                        .unwrap()
                        .len();
                    for s in 0..n {
                        let p = |m: &str| {
                            g.get(id, &format!("meshTree.sections[{s}].{m}"))
                                .unwrap()
                                .clone()
                        };
                        let parms: Vec<f32> = p("codecParms")
                            .as_values()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_f32().unwrap())
                            .collect();
                        let grid = Grid {
                            origin: [parms[0], parms[1], parms[2]],
                            step: [parms[3], parms[4], parms[5]],
                        };
                        let first = p("firstPackedVertex").as_u64().unwrap() as usize;
                        let count = p("numPackedVertices").as_u64().unwrap() as usize;
                        for &v in &packed[first..first + count] {
                            assert_eq!(u64::from(grid.pack32(grid.unpack32(v as u32))), v);
                            checked[1] += 1;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    assert!(checked.iter().all(|&n| n > 0), "{checked:?}");
    println!(
        "pack(unpack(x)) == x: {} hkPackedVector3, {} packed u32 and {} shared u64 vertices",
        checked[0], checked[1], checked[2]
    );
    // And the other way, within the format's precision, on vectors of every magnitude.
    let mut next = hk_tests::xorshift(0x2016);
    for _ in 0..10_000 {
        let r = |next: &mut dyn FnMut() -> u64| {
            let m = (next() % 1_000_000) as f32 / 1000.0 - 500.0;
            m * 2f32.powi((next() % 40) as i32 - 20)
        };
        let v = [r(&mut next), r(&mut next), r(&mut next)];
        let p = packed::pack_vector3(v);
        assert_eq!(packed::pack_vector3(packed::unpack_vector3(p)), p, "{v:?}");
        let max = v.iter().fold(0f32, |a, x| a.max(x.abs()));
        let back = packed::unpack_vector3(p);
        for a in 0..3 {
            assert!(
                (back[a] - v[a]).abs() <= max * 2f32.powi(-14),
                "{v:?} -> {back:?}"
            );
        }
    }
    assert_eq!(packed::pack_vector3([0.0; 3]), [0, 0, 0, 0x1980]);
    let _ = PACKED_BITS;
}

/// Sets member `path` of object `id` to `v`, reads the collision, and returns the error.
fn broken(g: &Graph, id: ObjectId, path: &str, v: Value) -> String {
    let mut g = g.clone();
    g.set(id, path, v).unwrap_or_else(|e| panic!("{path}: {e}"));
    match collision::read(&g) {
        Ok(s) => panic!("{path}: read {} triangles", s.triangle_count()),
        Err(e) => e.to_string(),
    }
}

fn w_bits(lo: [f32; 3], w: u32) -> Value {
    Value::Floats(hk_runtime::graph::Floats::from([
        lo[0],
        lo[1],
        lo[2],
        f32::from_bits(w),
    ]))
}

/// A free element's padding: marked free, the next free element `next`.
fn pad_next(next: i16) -> Value {
    let b = next.to_le_bytes();
    let mut v = vec![Value::UInt(0); 30];
    v[0] = Value::UInt(1);
    v[2] = Value::UInt(u64::from(b[0]));
    v[3] = Value::UInt(u64::from(b[1]));
    Value::CArray(v)
}

#[test]
fn mutated_shapes_fail_naming_object_and_member() {
    let mut g = Graph::new(schema());
    let b = hknp::build::add_box(&mut g, [1.0, 1.0, 1.0]).unwrap();
    let conn = g.first("hknpConvexPolytopeShape::Connectivity").unwrap();
    let cases: Vec<(ObjectId, &str, Value, &str)> = vec![
        (
            b,
            "faces[2].numIndices",
            Value::UInt(200),
            "hknpConvexPolytopeShape.faces[2]",
        ),
        (b, "faces[5].firstIndex", Value::UInt(60000), "faces[5]"),
        (b, "faces[1].numIndices", Value::UInt(2), "a face of 2"),
        (b, "indices[7]", Value::UInt(99), "names vertex 99"),
        (
            b,
            "planes",
            Value::Array(hk_runtime::graph::Array::Vec4(vec![])),
            "planes",
        ),
        (
            conn,
            "faceLinks[3].faceIndex",
            Value::UInt(6),
            "faceLinks[3].faceIndex",
        ),
        (
            conn,
            "faceLinks[4].edgeIndex",
            Value::UInt(4),
            "faceLinks[4].edgeIndex",
        ),
        (
            conn,
            "vertexEdges[0].faceIndex",
            Value::UInt(70),
            "vertexEdges[0].faceIndex",
        ),
    ];
    let mut n = 0;
    for (id, path, v, want) in cases {
        let e = broken(&g, id, path, v);
        assert!(
            e.contains(want) && e.contains(&format!("#{}", id.0)),
            "{path}: {e}"
        );
        n += 1;
    }
    let (g, c) = compound_graph();
    let tree = "boundingVolumeData.aabbTree";
    let node = |k: usize| format!("{tree}.nodes[{k}].aabb.max");
    let root = g.get(c, &format!("{tree}.root")).unwrap().as_u64().unwrap() as u32;
    let cases: Vec<(String, Value, &str)> = vec![
        // A child past the nodes, a child that is the root (a cycle), a leaf naming a free
        // element, a leaf past the elements.
        (
            node(root as usize),
            w_bits([0.0; 3], 2 | 99 << 16),
            "node 99",
        ),
        (
            node(root as usize),
            w_bits([0.0; 3], 2 | root << 16),
            "reached twice",
        ),
        (node(2), w_bits([0.0; 3], 0), "instance 0, which is free"),
        (
            node(2),
            w_bits([0.0; 3], 40),
            "instance 40, which is missing",
        ),
        (format!("{tree}.numLeaves"), Value::UInt(3), "numLeaves"),
        (format!("{tree}.root"), Value::UInt(77), "node 77"),
        ("instances.firstFree".into(), Value::Int(9), "firstFree"),
        ("instances.elements[2].padding".into(), pad_next(0), "twice"),
        (
            "instances.firstFree".into(),
            Value::Int(1),
            "not marked free",
        ),
        ("instances.firstFree".into(), Value::Int(2), "no leaf"),
        (
            "instances.elements[3].shape".into(),
            Value::Pointer(None),
            "without a shape",
        ),
    ];
    for (path, v, want) in cases {
        let e = broken(&g, c, &path, v);
        assert!(
            e.contains(want) && e.contains("hknpCompoundShape"),
            "{path}: {e}"
        );
        n += 1;
    }
    let mut mg = Graph::new(schema());
    hknp::build::add_compressed_mesh(&mut mg, &terrain(20)).unwrap();
    let d = mg.first("hknpCompressedMeshShapeData").unwrap();
    let s = "meshTree.sections[1]";
    let cases: Vec<(String, Value, &str)> = vec![
        (
            format!("{s}.firstPackedVertex"),
            Value::UInt(1 << 30),
            "firstPackedVertex",
        ),
        (
            format!("{s}.primitives.data"),
            Value::UInt(u64::from(u32::MAX)),
            "sections[1].primitives",
        ),
        (
            format!("{s}.sharedVertices.data"),
            Value::UInt(0xFFFF_FF10),
            "sections[1].sharedVertices",
        ),
        (
            format!("{s}.dataRuns.data"),
            Value::UInt(0xFFFF_FF01),
            "sections[1].dataRuns",
        ),
        (
            "meshTree.primitives[3].indices".into(),
            Value::CArray(vec![
                Value::UInt(0),
                Value::UInt(1),
                Value::UInt(250),
                Value::UInt(2),
            ]),
            "primitives[3].indices",
        ),
        (
            "meshTree.sharedVerticesIndex[0]".into(),
            Value::UInt(60000),
            "sharedVerticesIndex[0]",
        ),
        (
            "meshTree.primitiveDataRuns[0].count".into(),
            Value::UInt(255),
            "primitiveDataRuns[0]",
        ),
    ];
    for (path, v, want) in cases {
        let e = broken(&mg, d, &path, v);
        assert!(
            e.contains(want) && e.contains("hknpCompressedMeshShapeData"),
            "{path}: {e}"
        );
        n += 1;
    }
    println!("{n} mutations: each an error naming its object and member");
}

/// Random byte corruptions of the three synthetic files never panic or hang.
#[test]
fn corrupted_files_never_panic() {
    let schemas = hk_tests::schema_set();
    let (cg, _) = compound_graph();
    let mut mg = Graph::new(schema());
    hknp::build::add_compressed_mesh(&mut mg, &terrain(8)).unwrap();
    let mut bg = Graph::new(schema());
    hknp::build::add_box(&mut bg, [1.0, 2.0, 3.0]).unwrap();
    let mut next = hk_tests::xorshift(0x686b_6e70);
    let (mut read, mut refused) = (0, 0);
    for g in [&bg, &mg, &cg] {
        let bytes = hknp::build::cm_bytes(g, &[SurfaceRecord::default()]).unwrap();
        for _ in 0..400 {
            let bad = hk_tests::corrupt(&bytes, &mut next);
            let Ok(doc) = file::open(&bad, &schemas, ReadOptions::strict()) else {
                refused += 1;
                continue;
            };
            match collision::read(&doc.graph) {
                Ok(_) => read += 1,
                Err(_) => refused += 1,
            }
        }
    }
    println!("1200 corrupted cm files: {read} read, {refused} refused, no panic");
}

/// Real hknp polytopes: the 28 `hknpCapsuleShape`s of Bloodborne's ragdoll (Havok 2014.1)
/// store 6 faces of 4 indices and 8 planes, the list padded to a multiple of four with
/// empty planes (docs/collision-notes.md §12.1). Each reads as 12 triangles; a plane list
/// of any other length is refused.
#[test]
fn padded_plane_lists_of_a_real_file_are_read() {
    let Some(corpus) = hk_tests::corpus("padded_plane_lists") else {
        return;
    };
    let path = corpus.join("games/bloodborne/c2020_ragdoll_with_types.hkx");
    let data = hk_tests::read(&path);
    let schemas = hk_tests::schema_set();
    let mut doc = file::open(&data, &schemas, ReadOptions::default()).unwrap();
    let capsules: Vec<ObjectId> = doc.graph.find("hknpCapsuleShape").collect();
    assert_eq!(capsules.len(), 28);
    for &id in &capsules {
        let planes = doc.graph.get(id, "planes").unwrap();
        let Value::Array(planes) = planes else {
            panic!("planes: {planes:?}")
        };
        assert_eq!(planes.len(), 8);
        for k in 6..8 {
            let p = planes.get(k).unwrap();
            let p = p.as_floats().unwrap();
            assert_eq!(&p[..3], &[0.0, 0.0, 0.0]);
            assert!(p[3] < -1e38, "padding plane {k}: {p:?}");
        }
    }
    let s = collision::read(&doc.graph).unwrap();
    let polytopes: Vec<_> = s
        .meshes()
        .filter(|(_, m)| m.kind == ShapeKind::ConvexPolytope)
        .collect();
    assert_eq!(polytopes.len(), 28);
    for (_, m) in &polytopes {
        assert_eq!((m.vertices.len(), m.triangles.len()), (8, 12), "{}", m.name);
    }
    // Seven planes for six faces is neither count.
    let id = capsules[0];
    let Value::Array(mut planes) = doc.graph.get(id, "planes").unwrap() else {
        unreachable!()
    };
    planes.truncate(7);
    doc.graph.set(id, "planes", Value::Array(planes)).unwrap();
    let e = collision::read(&doc.graph).unwrap_err().to_string();
    assert!(
        e.contains("hknpCapsuleShape") && e.contains("7 planes for 6 faces"),
        "{e}"
    );
}
