//! Classes generated at compile time by `hk_derive::schema!` read and write the corpus: each
//! object goes graph -> typed struct -> graph, and the file writes back byte for byte.

use hk_runtime::graph::Graph;
use hk_runtime::packfile::write::write;
use hk_runtime::typed::HkClass;
use hk_runtime::LayoutRules;

mod h710 {
    hk_derive::schema!(
        path = "../schemas/havok-7.1",
        classes = [
            "hkRootLevelContainer",
            "hkaAnimationContainer",
            "hkaAnimationBinding",
            "hkaDefaultAnimatedReferenceFrame",
            "hkaDeltaCompressedAnimation",
            "hkaInterleavedUncompressedAnimation",
            "hkaSkeleton",
            "hkaSplineCompressedAnimation",
            "hkxEnvironment",
            "hkpRigidBody",
            "hkpBoxShape",
        ]
    );
}

/// Seed 000's table, through the compile-time constants.
#[test]
fn compile_time_signatures_and_layout() {
    assert_eq!(h710::HkaSkeleton::SIGNATURE, 0xB892FD4F);
    assert_eq!(h710::HkpBoxShape::SIGNATURE, 0x3444D2D5);
    assert_eq!(h710::HkpRigidBody::SIGNATURE, 0xAA8C3B19, "pinned");
    assert_eq!(h710::HkpRigidBody::size(LayoutRules::BE32), 0x220);
    let i = h710::HkpRigidBody::MEMBERS
        .iter()
        .position(|m| *m == "motion")
        .unwrap();
    assert_eq!(h710::HkpRigidBody::offsets(LayoutRules::BE32)[i], 0xE0);
    assert_eq!(
        h710::HkpMotionMotionType::from_value(5),
        h710::HkpMotionMotionType::MotionFixed
    );
}

fn typed_round_trip(g: &Graph) -> Graph {
    let mut out = g.clone();
    for o in &mut out.objects {
        let typed = h710::AnyObject::from_object(o).unwrap_or_else(|e| panic!("{}: {e}", o.class));
        assert_eq!(typed.class_name(), o.class);
        o.fields = typed.to_fields();
    }
    out
}

#[test]
fn havoklib_710_through_generated_types() {
    let Some(corpus) = hk_tests::corpus("havoklib_710_through_generated_types") else {
        return;
    };
    let files = hk_tests::files(&corpus.join("packfile/havoklib-710"));
    let mut ok = 0;
    for f in &files {
        let data = hk_tests::read(f);
        let (g, schema) = hk_tests::graph_of(&data).unwrap();
        let back = typed_round_trip(&g);
        assert_eq!(back, g, "{}: typed values differ", f.display());
        if write(&back, &schema).unwrap() == data {
            ok += 1;
        }
    }
    println!(
        "havoklib-710 through generated types: {ok}/{} byte-identical",
        files.len()
    );
    assert_eq!(ok, files.len());
}
