//! `hk mopp rebuild` and `hk mopp bench --build` as a user runs them (docs/collision.md,
//! docs/mopp.md §6): the committed 7.1 sample level rebuilt against its own code, and a
//! build over a synthetic terrain.

use crate::support::hk;
use hk_tests::root;

/// The two numbers of a row of the rebuild table (`name  original  rebuilt  [ratio]`).
fn row(text: &str, name: &str) -> (f64, f64) {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no {name} row in {text}"));
    let v: Vec<f64> = line[line.find(name).unwrap() + name.len()..]
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    (v[0], v[1])
}

#[test]
fn the_sample_levels_code_rebuilds_without_a_miss() {
    let sample = root().join("samples/havok-710_level.hkx");
    let (code, stdout, stderr) = hk(&[
        "mopp",
        "rebuild",
        sample.to_str().unwrap(),
        "--boxes",
        "500",
        "--seed",
        "3",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("50 triangles, 500 boxes (seed 3)"),
        "{stdout}"
    );
    // The sample's code is hk's own: the rebuild is the same code.
    let (a, b) = row(&stdout, "bytes");
    assert_eq!(a, b, "{stdout}");
    assert_eq!(row(&stdout, "misses"), (0.0, 0.0), "{stdout}");
    assert_eq!(row(&stdout, "own box misses"), (0.0, 0.0), "{stdout}");
    assert_eq!(row(&stdout, "stray terminals"), (0.0, 0.0), "{stdout}");
    let (a, b) = row(&stdout, "keys/box");
    assert!(a > 0.1 && a == b, "{stdout}");
}

#[test]
fn bench_build_times_a_terrain() {
    let (code, stdout, stderr) = hk(&["mopp", "bench", "--build", "2000"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("built a code over 2000 triangles in "),
        "{stdout}"
    );
    assert!(stdout.contains("triangles/s"), "{stdout}");
    // A file and --build together, or neither, is a usage error.
    let (code, _, _) = hk(&["mopp", "bench"]);
    assert_eq!(code, 2);
}
