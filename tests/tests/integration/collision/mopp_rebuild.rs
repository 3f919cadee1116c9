//! hk's MOPP encoder rebuilt over the Demon's Souls and Dark Souls maps' own triangles
//! (docs/mopp.md §6): against the original code over the same random boxes, the rebuilt
//! code is at most 1.1 times its bytes, runs at most 1.2 times its commands per query,
//! returns at most 1.1 times its keys per box, and misses nothing a brute-force overlap
//! test finds.

use hk_runtime::collision::mopp::measure::{measure, random_boxes};
use hk_runtime::collision::mopp::{build, check, degenerate};
use hk_runtime::collision::{self, Aabb};
use hk_runtime::file;
use hk_runtime::ReadOptions;

const MAPS: [&str; 2] = [
    "games/demons-souls-ps3/map_collision_h0004b0.hkx",
    "games/dark-souls-ptde/map_collision_template.hkx",
];

#[test]
fn rebuilt_map_codes_are_as_small_and_fast_as_the_originals() {
    let Some(corpus) = hk_tests::corpus("rebuilt_map_codes_are_as_small_and_fast_as_the_originals")
    else {
        return;
    };
    let schemas = hk_tests::schema_set();
    for rel in MAPS {
        let doc = file::open_path(&corpus.join(rel), &schemas, ReadOptions::default()).unwrap();
        let scene = collision::read(&doc.graph).unwrap();
        let tris = check::triangles(&scene, 0);
        let within = Aabb::of(
            tris.iter()
                .filter(|(_, [a, b, c])| !degenerate(*a, *b, *c))
                .flat_map(|(_, t)| t.iter().copied()),
        )
        .unwrap();
        let boxes = random_boxes(&within, 10_000, 1);
        let built = build::build(&tris).unwrap();
        let a = measure(&scene.codes[0], &tris, &boxes).unwrap();
        let b = measure(&built, &tris, &boxes).unwrap();
        eprintln!("{rel}: original {a:?}, rebuilt {b:?}");
        assert_eq!((a.misses, a.own_misses, a.stray), (0, 0, 0), "{rel}");
        assert_eq!((b.misses, b.own_misses, b.stray), (0, 0, 0), "{rel}");
        assert!(b.bytes as f64 <= 1.1 * a.bytes as f64, "{rel}: {b:?}");
        assert!(b.commands <= 1.2 * a.commands, "{rel}: {b:?}");
        assert!(b.keys <= 1.1 * a.keys, "{rel}: {b:?}");
        // The boxes hit something: the keys ratio is not 0 / 0.
        assert!(a.keys > 0.5 && b.keys > 0.5, "{rel}: {a:?} {b:?}");
        // The code object's space as the original's: the same origin and scale (the
        // PTDE vertices pass through a subpart transform, so within rounding).
        assert!(
            (built.scale / scene.codes[0].scale - 1.0).abs() < 1e-6,
            "{rel}"
        );
        for i in 0..3 {
            assert!(
                (built.offset[i] - scene.codes[0].offset[i]).abs() < 1e-4,
                "{rel}"
            );
        }
    }
}
