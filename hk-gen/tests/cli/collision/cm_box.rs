//! `hk cm box` refuses half extents whose box's volume, mass or inertia is not a finite
//! float, and writes nothing (docs/collision.md).

use crate::support::hk;
use hk_tests::temp_dir;

#[test]
fn cm_box_refuses_extents_whose_mass_overflows() {
    let dir = temp_dir("cm-box-overflow");
    for extents in [
        "1e13,1e13,1e13",
        "1e38,1e38,1e38",
        "1,1,3e38",
        "1e8,1e8,1e8",
    ] {
        let out = dir.join("box.hkshape");
        let (code, text, err) = hk(&[
            "cm",
            "box",
            "--half-extents",
            extents,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{extents}: {text}{err}");
        assert!(
            err.contains(extents) && err.contains("must be finite") && err.contains("inertia"),
            "{extents}: {err}"
        );
        assert!(!out.exists(), "{extents}: nothing is written");
    }
    // Large boxes whose values fit are written, every value finite.
    for extents in ["1e6,1e6,1e6", "1000,2000,30000"] {
        let out = dir.join("big.hkshape");
        let (code, text, err) = hk(&[
            "cm",
            "box",
            "--half-extents",
            extents,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{extents}: {err}");
        assert!(!text.contains("inf") && !text.contains("NaN"), "{text}");
        let (code, _, err) = hk(&["roundtrip", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
    }
}
