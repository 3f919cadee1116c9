//! Level collision of the corpus's three map files (docs/collision.md): triangle counts
//! against the subpart records, vertices inside the stored boxes, MOPP codes against their
//! triangles, random box queries against brute force, and every byte of a code flipped.

use std::collections::HashSet;
use std::path::Path;

use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self, Aabb, Scene};
use hk_runtime::file;
use hk_runtime::graph::Value;
use hk_runtime::ReadOptions;

/// The three maps: file, triangles the subpart records declare (the sum of
/// `numTriangleShapes`, read from the dumps by hand, not by hk's collision code).
const MAPS: [(&str, usize); 3] = [
    ("games/demons-souls-ps3/map_collision_h0004b0.hkx", 461),
    ("games/dark-souls-ptde/map_collision_template.hkx", 3_469),
    ("games/dark-souls-remastered/map_collision_template.hkx", 2),
];

fn open(corpus: &Path, rel: &str) -> (hk_runtime::graph::Graph, Scene) {
    let schemas = hk_tests::schema_set();
    let doc = file::open_path(&corpus.join(rel), &schemas, ReadOptions::default()).unwrap();
    let scene = collision::read(&doc.graph).unwrap_or_else(|e| panic!("{rel}: {e}"));
    (doc.graph, scene)
}

#[test]
fn exported_triangles_match_the_subpart_records() {
    let Some(corpus) = hk_tests::corpus("exported_triangles_match_the_subpart_records") else {
        return;
    };
    for (rel, declared) in MAPS {
        let (graph, scene) = open(&corpus, rel);
        assert_eq!(scene.triangle_count(), declared, "{rel}");
        assert_eq!(scene.bodies.len(), 1, "{rel}");
        // The vertex arrays' lengths, straight from the graph's storage objects.
        let stored: usize = graph
            .objects
            .iter()
            .enumerate()
            .filter(|(_, o)| {
                graph
                    .schema()
                    .name_of(o.class)
                    .contains("MeshSubpartStorage")
            })
            .map(|(i, _)| {
                match graph
                    .get(hk_runtime::graph::ObjectId(i as u32), "vertices")
                    .unwrap()
                {
                    Value::Array(a) => a.len(),
                    v => panic!("{v:?}"),
                }
            })
            .sum();
        assert_eq!(scene.vertex_count(), stored, "{rel}");
        let mut out = Vec::new();
        let w = collision::export::obj::write(&scene, &mut out, 1).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text.lines().filter(|l| l.starts_with("f ")).count(),
            declared
        );
        assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), stored);
        assert_eq!(w.triangles, declared);
        eprintln!(
            "{rel}: {} bodies, {} meshes, {stored} vertices, {declared} triangles",
            scene.bodies.len(),
            w.objects
        );
    }
}

#[test]
fn every_vertex_lies_in_its_shapes_stored_box() {
    let Some(corpus) = hk_tests::corpus("every_vertex_lies_in_its_shapes_stored_box") else {
        return;
    };
    for (rel, _) in MAPS {
        let (_, scene) = open(&corpus, rel);
        for (_, m) in scene.meshes() {
            let b = m.stored_aabb.expect("an extended mesh stores its box");
            let mut worst = 0f32;
            for &v in &m.vertices {
                let p = m.to_code.apply(v);
                for (i, x) in p.into_iter().enumerate() {
                    worst = worst.max(b.min[i] - x).max(x - b.max[i]);
                }
            }
            // The box is stored as centre and half extents in f32.
            assert!(worst <= 1e-3, "{rel} {}: a vertex {worst} outside", m.name);
        }
    }
}

#[test]
fn mopp_codes_find_every_kept_triangle() {
    let Some(corpus) = hk_tests::corpus("mopp_codes_find_every_kept_triangle") else {
        return;
    };
    for (rel, _) in MAPS {
        let (graph, scene) = open(&corpus, rel);
        assert_eq!(scene.codes.len(), 1, "{rel}");
        let r = check::check(&scene, 0).unwrap();
        assert_eq!(r.found, r.kept, "{rel}: missed {:?}", r.missed);
        assert!(r.stray.is_empty(), "{rel}: stray keys {:?}", r.stray);
        assert_eq!(r.far, 0, "{rel}");
        assert_eq!(r.terminals, r.kept, "{rel}");
        // The shape's own count of child shapes (where the class has one) is the number
        // of triangles the degenerate rule keeps.
        let shape = graph
            .objects
            .iter()
            .position(|o| {
                graph
                    .schema()
                    .name_of(o.class)
                    .contains("ExtendedMeshShape")
            })
            .unwrap();
        if let Ok(v) = graph.get(
            hk_runtime::graph::ObjectId(shape as u32),
            "cachedNumChildShapes",
        ) {
            assert_eq!(v.as_u64(), Some(r.kept as u64), "{rel}");
        }
        eprintln!(
            "{rel}: found {}/{}, {} degenerate, {} terminals",
            r.found, r.kept, r.degenerate, r.terminals
        );
    }
}

/// A xorshift stream of floats in [0, 1).
fn uniform(mut s: u64) -> impl FnMut() -> f32 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[test]
fn random_queries_return_every_overlapping_kept_triangle() {
    let Some(corpus) = hk_tests::corpus("random_queries_return_every_overlapping_kept_triangle")
    else {
        return;
    };
    for (n, (rel, _)) in MAPS.iter().enumerate() {
        let (_, scene) = open(&corpus, rel);
        let code = &scene.codes[0];
        let tris = check::indexed(&scene, 0);
        let keys: HashSet<u32> = tris.iter().map(|t| t.key).collect();
        let all = Aabb::of(tris.iter().flat_map(|t| [t.aabb.min, t.aabb.max])).unwrap();
        let mut r = uniform(0x9E37_79B9 + n as u64);
        let (mut returned, mut overlapping) = (0usize, 0usize);
        for _ in 0..10_000 {
            let mut b = Aabb {
                min: [0.0; 3],
                max: [0.0; 3],
            };
            for i in 0..3 {
                // Boxes from points to a quarter of the mesh, some reaching outside it.
                let ext = all.max[i] - all.min[i];
                b.min[i] = all.min[i] - 0.1 * ext + r() * 1.2 * ext;
                b.max[i] = b.min[i] + r() * 0.25 * ext;
            }
            let got = code.query(&b).unwrap();
            returned += got.len();
            assert!(
                got.iter().all(|k| keys.contains(k)),
                "{rel}: a key names no triangle"
            );
            for t in tris.iter().filter(|t| !t.degenerate && t.aabb.overlaps(&b)) {
                overlapping += 1;
                assert!(
                    got.binary_search(&t.key).is_ok(),
                    "{rel}: {b:?} misses key {}",
                    t.key
                );
            }
        }
        eprintln!(
            "{rel}: 10000 boxes, {overlapping} overlaps by brute force, {returned} keys returned"
        );
    }
}

#[test]
fn every_byte_of_a_mopp_code_flipped_ends_in_keys_or_an_error() {
    let Some(corpus) =
        hk_tests::corpus("every_byte_of_a_mopp_code_flipped_ends_in_keys_or_an_error")
    else {
        return;
    };
    for (rel, _) in MAPS {
        let (_, scene) = open(&corpus, rel);
        let tris = check::indexed(&scene, 0);
        let one = tris[tris.len() / 2].aabb;
        let original = scene.codes[0].clone();
        // The whole-code walk is linear in the code; on the long code only the small
        // query runs for every byte.
        let whole = original.bytes.len() <= 8_192;
        let (mut ok, mut errors) = (0usize, 0usize);
        for i in 0..original.bytes.len() {
            let mut c = original.clone();
            c.bytes[i] ^= 0xFF;
            for r in [Some(c.query(&one)), whole.then(|| c.terminals())]
                .into_iter()
                .flatten()
            {
                match r {
                    Ok(_) => ok += 1,
                    Err(_) => errors += 1,
                }
            }
        }
        assert!(errors > 0, "{rel}: some flip must break the code");
        eprintln!(
            "{rel}: {} flips, {ok} runs ended in keys, {errors} in an error",
            original.bytes.len()
        );
    }
}

/// The two Dark Souls ragdolls: 21 bodies, each a capsule turned and moved by its body.
#[test]
fn ragdoll_capsules_sit_around_their_world_segments() {
    let Some(corpus) = hk_tests::corpus("ragdoll_capsules_sit_around_their_world_segments") else {
        return;
    };
    for rel in [
        "games/dark-souls-ptde/c2240_ragdoll_with_types.hkx",
        "games/dark-souls-remastered/c2240_ragdoll.hkx",
    ] {
        let (graph, scene) = open(&corpus, rel);
        assert_eq!(scene.bodies.len(), 21, "{rel}");
        let mut turned = 0;
        for b in &scene.bodies {
            assert_eq!(b.meshes.len(), 1);
            let m = &b.meshes[0];
            let shape = m.object;
            let v4 = |name: &str| -> [f32; 3] {
                let v = graph.get(shape, name).unwrap();
                let f = v.as_floats().unwrap();
                [f[0], f[1], f[2]]
            };
            let radius = graph.get(shape, "radius").unwrap().as_f32().unwrap();
            // The body's transform, read from the graph here: rotation columns and
            // translation.
            let t = graph.get(b.object, "motion.motionState.transform").unwrap();
            let t = t.as_floats().unwrap().to_vec();
            if (t[0] - 1.0).abs() > 1e-3 {
                turned += 1;
            }
            let place = |p: [f32; 3]| -> [f32; 3] {
                [0, 1, 2].map(|i| p[0] * t[i] + p[1] * t[4 + i] + p[2] * t[8 + i] + t[12 + i])
            };
            let (a, c) = (place(v4("vertexA")), place(v4("vertexB")));
            let ab = [0, 1, 2].map(|i| c[i] - a[i]);
            let len2: f32 = ab.iter().map(|x| x * x).sum();
            for p in b.world_vertices(m) {
                let ap = [0, 1, 2].map(|i| p[i] - a[i]);
                let s = ((0..3).map(|i| ap[i] * ab[i]).sum::<f32>() / len2).clamp(0.0, 1.0);
                let d: f32 = (0..3)
                    .map(|i| (p[i] - a[i] - s * ab[i]).powi(2))
                    .sum::<f32>()
                    .sqrt();
                assert!(
                    (d - radius).abs() < 1e-3 * radius.max(1.0),
                    "{rel} {}: {d} vs {radius}",
                    b.name
                );
            }
        }
        assert!(turned > 0, "{rel}: some body is rotated");
    }
}
