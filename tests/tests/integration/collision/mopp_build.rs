//! The MOPP encoder (`collision::mopp::build`, docs/mopp.md §6) against hk's interpreter:
//! every kept triangle is found by its own box, the terminals name exactly the kept
//! triangles, random boxes return every triangle a brute-force overlap test finds (and
//! nothing far from the box), the long-jump form past 64 KiB works, and a corrupted code
//! never panics or loops.

use hk_runtime::collision::mopp;
use hk_runtime::collision::mopp::{degenerate, Code};
use hk_runtime::collision::{Aabb, Vec3};

/// A triangle soup: `n` triangles of random size in a 200 × 50 × 120 box, every seventh
/// one degenerate (a repeated corner or three points on a line), with keys that need every
/// terminal width (subpart bits put some above 2^16, 2^24).
fn soup(n: usize, seed: u64) -> Vec<(u32, [Vec3; 3])> {
    let mut next = hk_tests::xorshift(seed);
    let mut unit = move || (next() % 1_000_000) as f32 / 1_000_000.0;
    (0..n)
        .map(|i| {
            let c = [unit() * 200.0 - 100.0, unit() * 50.0, unit() * 120.0 - 60.0];
            let size = 0.05 + unit() * 4.0;
            let mut corner = || [0, 1, 2].map(|a| c[a] + (unit() - 0.5) * size);
            let (a, b) = (corner(), corner());
            let tri = match i % 7 {
                3 => [a, b, a],
                5 => [
                    a,
                    b,
                    [2.0 * b[0] - a[0], 2.0 * b[1] - a[1], 2.0 * b[2] - a[2]],
                ],
                _ => [a, b, corner()],
            };
            let key = if i < 32 {
                i as u32
            } else {
                i as u32 | [0u32, 5, 40][i % 3] << 20
            };
            (key, tri)
        })
        .collect()
}

fn aabb(t: &[Vec3; 3]) -> Aabb {
    Aabb::of(t.iter().copied()).unwrap()
}

/// Runs `boxes` random boxes against a brute force over the kept triangles: the query
/// holds every overlapping triangle, and each key it returns names a kept triangle. The
/// encoder leaves out bounds that cut little (docs/mopp.md §6), so a query may return a
/// triangle near the box; over all boxes the keys returned stay within 1.5 times the
/// overlapping triangles.
fn against_brute_force(code: &Code, tris: &[(u32, [Vec3; 3])], boxes: usize, seed: u64) {
    let kept: Vec<(u32, Aabb)> = tris
        .iter()
        .filter(|(_, [a, b, c])| !degenerate(*a, *b, *c))
        .map(|(k, t)| (*k, aabb(t)))
        .collect();
    let all = Aabb::of(kept.iter().flat_map(|(_, b)| [b.min, b.max])).unwrap();
    let mut next = hk_tests::xorshift(seed);
    let mut unit = move || (next() % 1_000_000) as f32 / 1_000_000.0;
    let (mut hits, mut returned) = (0, 0);
    for _ in 0..boxes {
        let c = [0, 1, 2].map(|a| all.min[a] + unit() * (all.max[a] - all.min[a]));
        let h = [0, 1, 2].map(|_| unit() * 10.0);
        let q = Aabb::centered(c, h);
        let got = code.query(&q).unwrap();
        let mut want: Vec<u32> = kept
            .iter()
            .filter(|(_, b)| b.overlaps(&q))
            .map(|(k, _)| *k)
            .collect();
        want.sort_unstable();
        for k in &want {
            assert!(got.binary_search(k).is_ok(), "key {k} missed by {q:?}");
        }
        for k in &got {
            assert!(
                kept.iter().any(|(x, _)| x == k),
                "key {k} names no kept triangle"
            );
        }
        hits += want.len();
        returned += got.len();
    }
    assert!(hits > boxes / 2, "the boxes hit only {hits} triangles");
    assert!(
        returned * 2 <= hits * 3,
        "{returned} keys returned for {hits} overlapping triangles"
    );
}

/// Boxes that only touch a triangle's box find it: a point at each of the eight corners of
/// every kept triangle's box, and a box one unit of the code's space wide just outside each
/// face of it, grown back to touch.
fn touching_boxes_find_each_triangle(code: &Code, tris: &[(u32, [Vec3; 3])]) {
    for (k, t) in tris.iter().filter(|(_, [a, b, c])| !degenerate(*a, *b, *c)) {
        let b = aabb(t);
        for corner in 0..8 {
            let p = [0, 1, 2].map(|a| {
                if corner >> a & 1 == 0 {
                    b.min[a]
                } else {
                    b.max[a]
                }
            });
            let q = Aabb { min: p, max: p };
            assert!(
                code.query(&q).unwrap().binary_search(k).is_ok(),
                "{k} at corner {corner}"
            );
        }
        let unit = 1.0 / code.scale;
        for a in 0..3 {
            let mut below = b;
            below.max[a] = b.min[a];
            below.min[a] = b.min[a] - unit;
            let mut above = b;
            above.min[a] = b.max[a];
            above.max[a] = b.max[a] + unit;
            for q in [below, above] {
                assert!(
                    code.query(&q).unwrap().binary_search(k).is_ok(),
                    "{k} on axis {a}"
                );
            }
        }
    }
}

#[test]
fn a_triangle_soup_queries_like_brute_force() {
    let tris = soup(3000, 7);
    let code = mopp::build::build(&tris).unwrap();
    // docs/mopp.md §1: the origin is the minimum corner, 127/128 × 2^24 over the largest
    // side (as in the corpus maps' codes).
    let kept: Vec<&(u32, [Vec3; 3])> = tris
        .iter()
        .filter(|(_, [a, b, c])| !degenerate(*a, *b, *c))
        .collect();
    assert!(kept.len() < tris.len() && kept.len() > 2000);
    let all = Aabb::of(kept.iter().flat_map(|(_, t)| t.iter().copied())).unwrap();
    assert_eq!(code.offset, all.min);
    let extent = (0..3).map(|i| all.max[i] - all.min[i]).fold(0f32, f32::max);
    assert!((code.scale * extent / 16_777_216.0 - 0.992_187_5).abs() < 1e-6);
    // Terminals: exactly the kept keys.
    let mut keys: Vec<u32> = kept.iter().map(|(k, _)| *k).collect();
    keys.sort_unstable();
    assert_eq!(code.terminals().unwrap(), keys);
    assert!(keys.iter().any(|&k| k >= 1 << 24) && keys.iter().any(|&k| k < 32));
    // Each kept triangle by its own box.
    for (k, t) in &kept {
        assert!(
            code.query(&aabb(t)).unwrap().binary_search(k).is_ok(),
            "{k}"
        );
    }
    against_brute_force(&code, &tris, 2000, 99);
    touching_boxes_find_each_triangle(&code, &tris);
}

/// A terrain: a grid of `side` × `side` cells of one metre, two triangles a cell, on
/// waves; keys in grid order.
fn terrain(side: usize) -> Vec<(u32, [Vec3; 3])> {
    let p = |x: usize, z: usize| {
        let (fx, fz) = (x as f32, z as f32);
        [fx, 2.0 * (fx * 0.21).sin() + (fz * 0.13).cos(), fz]
    };
    let mut out = Vec::new();
    for z in 0..side {
        for x in 0..side {
            for t in [
                [p(x, z), p(x + 1, z), p(x, z + 1)],
                [p(x + 1, z), p(x + 1, z + 1), p(x, z + 1)],
            ] {
                out.push((out.len() as u32, t));
            }
        }
    }
    out
}

#[test]
fn a_terrain_takes_about_eight_bytes_a_triangle() {
    let tris = terrain(40);
    let code = mopp::build::build(&tris).unwrap();
    // Rescaled frames, 8-bit splits and bounds, one-byte terminals: measured 7 to 8 bytes
    // a triangle on grids (docs/mopp.md §6); one triangle a leaf with 24-bit bounds
    // takes 24.
    assert!(
        code.bytes.len() < 9 * tris.len(),
        "{} bytes",
        code.bytes.len()
    );
    assert_eq!(code.terminals().unwrap().len(), tris.len());
    against_brute_force(&code, &tris, 1000, 17);
    touching_boxes_find_each_triangle(&code, &tris);
}

#[test]
fn a_left_subtree_past_64_kib_takes_the_long_jump() {
    // About 12 bytes a triangle (scattered triangles share few bounds): 15,000 make a
    // code past twice 64 KiB.
    let tris: Vec<_> = soup(15_000, 3)
        .into_iter()
        .filter(|(_, [a, b, c])| !degenerate(*a, *b, *c))
        .collect();
    let code = mopp::build::build(&tris).unwrap();
    let b = &code.bytes;
    assert!(b.len() > 2 * 65_536, "{} bytes", b.len());
    // The root split (after the root's bounds, 3 bytes each) is the 16-bit form whose
    // right branch goes through a 32-bit jump.
    let at = b
        .iter()
        .step_by(3)
        .take_while(|&&op| (0x26..=0x28).contains(&op))
        .count()
        * 3;
    let b = &b[at..];
    assert!((0x23..=0x25).contains(&b[0]), "root command 0x{:02X}", b[0]);
    assert_eq!((&b[3..7], b[7]), (&[0u8, 5, 0, 0][..], 0x08));
    assert_eq!(code.terminals().unwrap().len(), tris.len());
    against_brute_force(&code, &tris, 1000, 5);
}

#[test]
fn nothing_to_index_gives_no_code() {
    assert!(mopp::build::build(&[]).is_none());
    let flat = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    assert!(mopp::build::build(&[(0, flat)]).is_none());
    // One triangle: a leaf and nothing else.
    let one = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let code = mopp::build::build(&[(9, one)]).unwrap();
    assert_eq!(code.terminals().unwrap(), vec![9]);
    assert_eq!(code.query(&aabb(&one)).unwrap(), vec![9]);
    let far = Aabb::centered([50.0, 50.0, 50.0], [1.0; 3]);
    assert!(code.query(&far).unwrap().is_empty());
}

#[test]
fn every_byte_of_a_built_code_flipped_never_panics_or_loops() {
    let tris = soup(120, 11);
    let good = mopp::build::build(&tris).unwrap();
    let boxes: Vec<Aabb> = tris.iter().step_by(15).map(|(_, t)| aabb(t)).collect();
    let mut errors = 0;
    for i in 0..good.bytes.len() {
        let mut bad = good.clone();
        bad.bytes[i] ^= 0xFF;
        for b in &boxes {
            errors += usize::from(bad.query(b).is_err());
        }
        errors += usize::from(bad.terminals().is_err());
    }
    // Some flips make the code unrunnable (an unknown command, a jump out); each is an
    // error, not a panic or a hang.
    assert!(errors > 0);
}

#[test]
fn triangles_spread_on_a_geometric_scale_build_and_query() {
    // Centres at 1.006^i: the binned split peels off a few triangles a level, so past its
    // depth limit the tree halves at the median (docs/mopp.md §6).
    let tris: Vec<(u32, [Vec3; 3])> = (0..4000u32)
        .map(|i| {
            let x = 1.006f32.powi(i as i32);
            let s = x * 0.001;
            (i, [[x, 0.0, 0.0], [x + s, s, 0.0], [x, s, s]])
        })
        .collect();
    let code = mopp::build::build(&tris).unwrap();
    let kept: Vec<u32> = tris
        .iter()
        .filter(|(_, [a, b, c])| !degenerate(*a, *b, *c))
        .map(|(k, _)| *k)
        .collect();
    assert!(kept.len() > 3000);
    assert_eq!(code.terminals().unwrap(), kept);
    touching_boxes_find_each_triangle(&code, &tris);
}

#[test]
fn boxes_outside_a_small_code_find_nothing() {
    // A tetrahedron: four triangles, a tree so small that bounds inside the code's space
    // would never pay; boxes past it on every side must still find nothing.
    let p: [Vec3; 4] = [
        [10., 5., 10.],
        [12., 5., 10.],
        [11., 7., 11.],
        [11., 5., 12.],
    ];
    let tris: Vec<(u32, [Vec3; 3])> = [[0, 1, 2], [1, 3, 2], [3, 0, 2], [0, 3, 1]]
        .iter()
        .enumerate()
        .map(|(k, t)| (k as u32, t.map(|i| p[i])))
        .collect();
    let code = mopp::build::build(&tris).expect("a code");
    against_brute_force(&code, &tris, 500, 3);
    for axis in 0..3 {
        for far in [-1000.0f32, -3.0, 3.0, 1000.0] {
            let mut min = [9.0f32, 4.0, 9.0];
            let mut max = [13.0f32, 8.0, 13.0];
            let edge = if far < 0.0 { min[axis] } else { max[axis] };
            min[axis] = edge + far.min(0.0) + if far > 0.0 { far } else { 0.0 } - 0.5;
            max[axis] = min[axis] + 0.5;
            let q = Aabb { min, max };
            assert_eq!(
                code.query(&q).unwrap(),
                Vec::<u32>::new(),
                "axis {axis}, {far}: {q:?}"
            );
        }
    }
}
