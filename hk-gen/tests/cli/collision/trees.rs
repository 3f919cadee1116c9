//! `hk collision check` and `hk collision rebuild` (docs/collision.md): a line per tree
//! and exit 0 on the samples, and the rebuild table.

use hk_tests::root;

use crate::support::hk;

#[test]
fn the_samples_trees_pass_and_print_a_line_each() {
    let s = |n: &str| {
        root()
            .join("samples")
            .join(n)
            .to_string_lossy()
            .into_owned()
    };
    let files = [
        s("destiny-2012_level.hkx"),
        s("doom-2016_mesh.hkshape"),
        s("nso-2023_level.bphsh"),
        s("havok-710_level.hkx"),
    ];
    let mut args = vec!["collision", "check", "--boxes", "500"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = hk(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("  ok ").count(), 6, "{out}");
    assert!(
        out.contains("triangles found 800/800, 500 random boxes, 0 misses"),
        "{out}"
    );
    assert!(
        out.contains("hknpCompressedMeshShape: triangles found 288/288"),
        "{out}"
    );
    assert!(out.contains("MOPP code #5: triangles found 50/50"), "{out}");
}

#[test]
fn the_rebuild_table_compares_a_sample_with_its_rebuild() {
    let sample = root().join("samples/destiny-2012_level.hkx");
    let (code, out, err) = hk(&[
        "collision",
        "rebuild",
        sample.to_str().unwrap(),
        "--boxes",
        "500",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("| #2 hkpBvCompressedMeshShape | 12899 → 12899 (1.00×)"),
        "{out}"
    );
    assert!(out.contains("| 800/800 → 800/800 |"), "{out}");
    // A file without compressed meshes is a usage error.
    let box_file = root().join("samples/shred_box.hkx");
    let (code, _, err) = hk(&["collision", "rebuild", box_file.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no compressed mesh or mesh shape"), "{err}");
}
