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

mod seed24 {
    hk_derive::schema!(
        path = "../schemas/havok-7.1",
        classes = [
            "hkClass",
            "hkClassMember",
            "hkClassEnum",
            "hkClassEnumItem",
            "hkRootLevelContainer",
            "hkpPhysicsData",
            "hkpPhysicsSystem",
            "hkpRigidBody",
            "hkpMoppBvTreeShape",
            "hkpMoppCode",
            "hkpStorageExtendedMeshShape",
            "hkpStorageExtendedMeshShapeMeshSubpartStorage",
            "hkpConvexVerticesShape",
            "hkpConvexVerticesConnectivity",
            "hkpConvexTranslateShape",
            "hkpBoxShape",
            "hkpCylinderShape",
            "hkpSphereShape",
            "hkpCapsuleShape",
            "hkpListShape",
            "hkpConstraintInstance",
            "hkpRagdollConstraintData",
            "hkpLimitedHingeConstraintData",
            "hkpBreakableConstraintData",
        ]
    );
}

/// Seed 000's 24-entry table against the constants the macro computed at compile time.
#[test]
fn compile_time_signatures_of_seed_000_table() {
    use seed24::*;
    let got: [(&str, u32); 24] = [
        (HkClass::NAME, HkClass::SIGNATURE),
        (HkClassMember::NAME, HkClassMember::SIGNATURE),
        (HkClassEnum::NAME, HkClassEnum::SIGNATURE),
        (HkClassEnumItem::NAME, HkClassEnumItem::SIGNATURE),
        (HkRootLevelContainer::NAME, HkRootLevelContainer::SIGNATURE),
        (HkpPhysicsData::NAME, HkpPhysicsData::SIGNATURE),
        (HkpPhysicsSystem::NAME, HkpPhysicsSystem::SIGNATURE),
        (HkpRigidBody::NAME, HkpRigidBody::SIGNATURE),
        (HkpMoppBvTreeShape::NAME, HkpMoppBvTreeShape::SIGNATURE),
        (HkpMoppCode::NAME, HkpMoppCode::SIGNATURE),
        (
            HkpStorageExtendedMeshShape::NAME,
            HkpStorageExtendedMeshShape::SIGNATURE,
        ),
        (
            HkpStorageExtendedMeshShapeMeshSubpartStorage::NAME,
            HkpStorageExtendedMeshShapeMeshSubpartStorage::SIGNATURE,
        ),
        (
            HkpConvexVerticesShape::NAME,
            HkpConvexVerticesShape::SIGNATURE,
        ),
        (
            HkpConvexVerticesConnectivity::NAME,
            HkpConvexVerticesConnectivity::SIGNATURE,
        ),
        (
            HkpConvexTranslateShape::NAME,
            HkpConvexTranslateShape::SIGNATURE,
        ),
        (HkpBoxShape::NAME, HkpBoxShape::SIGNATURE),
        (HkpCylinderShape::NAME, HkpCylinderShape::SIGNATURE),
        (HkpSphereShape::NAME, HkpSphereShape::SIGNATURE),
        (HkpCapsuleShape::NAME, HkpCapsuleShape::SIGNATURE),
        (HkpListShape::NAME, HkpListShape::SIGNATURE),
        (
            HkpConstraintInstance::NAME,
            HkpConstraintInstance::SIGNATURE,
        ),
        (
            HkpRagdollConstraintData::NAME,
            HkpRagdollConstraintData::SIGNATURE,
        ),
        (
            HkpLimitedHingeConstraintData::NAME,
            HkpLimitedHingeConstraintData::SIGNATURE,
        ),
        (
            HkpBreakableConstraintData::NAME,
            HkpBreakableConstraintData::SIGNATURE,
        ),
    ];
    assert_eq!(got, hk_tests::SEED_71);
    println!(
        "24/24 compile-time signatures equal seed 000's table (7 of them pinned by the schema)"
    );
}
