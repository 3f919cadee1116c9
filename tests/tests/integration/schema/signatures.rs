//! Signatures of the hand-written and converted schemas against the values
//! docs/collision-notes.md §1.1 states.

use hk_runtime::schema::signature::{self, SignatureSource};

use hk_tests::SIGNATURES_71;

/// The seven 7.1 classes with no public description: pinned, never computed.
const PINNED_71: [&str; 7] = [
    "hkpRigidBody",
    "hkpStorageExtendedMeshShape",
    "hkpConvexVerticesShape",
    "hkpConstraintInstance",
    "hkpRagdollConstraintData",
    "hkpLimitedHingeConstraintData",
    "hkpBreakableConstraintData",
];

/// The 18 signatures Havok 2014.2 stores for the same classes (docs/collision-notes.md §1.1,
/// the 2014.2 columns).
const SIGNATURES_2014_2: [(&str, u32); 18] = [
    ("hkClass", 0x33D42383),
    ("hkClassMember", 0xB0EFA719),
    ("hkClassEnum", 0x8A3609CF),
    ("hkClassEnumItem", 0xCE6F8A6C),
    ("hkRootLevelContainer", 0x2772C11E),
    ("hkpPhysicsData", 0x47A8CA83),
    ("hkpPhysicsSystem", 0xB3CC6E64),
    ("hkpRigidBody", 0xCD2E69E5),
    ("hkpConvexVerticesShape", 0xC21C8B5A),
    ("hkpBoxShape", 0xDCA2D1A7),
    ("hkpCapsuleShape", 0xFDA179F3),
    ("hkpSphereShape", 0x37AA32C9),
    ("hkpListShape", 0xF2EC3ED5),
    ("hkpCylinderShape", 0xFAAE1F08),
    ("hkpConvexTranslateShape", 0xA3F8BF6A),
    ("hkpConstraintInstance", 0xDA4CE91E),
    ("hkpRagdollConstraintData", 0xED9648F7),
    ("hkpLimitedHingeConstraintData", 0x75AAE5A3),
];

#[test]
fn havok_7_1_signature_table_17_computed_7_pinned() {
    let schema = hk_tests::schema("havok-7.1");
    let mut computed = 0;
    let mut pinned = 0;
    for (class, want) in SIGNATURES_71 {
        let s = signature::signature(&schema, class).unwrap_or_else(|e| panic!("{class}: {e}"));
        assert_eq!(s.value, want, "{class}: a writer must store the 7.1 value");
        if PINNED_71.contains(&class) {
            let SignatureSource::Pinned { computed: c } = s.source else {
                panic!("{class} must be pinned");
            };
            // A pin is never passed off as computed: the schema's own description hashes
            // to something else.
            assert_ne!(c, want, "{class} computes its 7.1 value; unpin it");
            let p = schema.class(class).unwrap().pinned.as_ref().unwrap();
            assert!(
                !p.reason.trim().is_empty(),
                "{class}: pinned without a reason"
            );
            assert!(!p.doubtful.is_empty(), "{class}: list the members in doubt");
            pinned += 1;
        } else {
            assert_eq!(s.source, SignatureSource::Computed, "{class}");
            computed += 1;
        }
    }
    println!("havok-7.1: {computed}/24 computed, {pinned}/24 pinned");
    assert_eq!((computed, pinned), (17, 7));
}

#[test]
fn havok_2014_2_signature_table_recomputes() {
    let schema = hk_tests::schema("havok-2014.2");
    let mut ok = 0;
    for (class, want) in SIGNATURES_2014_2 {
        let s = signature::signature(&schema, class).unwrap_or_else(|e| panic!("{class}: {e}"));
        assert_eq!(s.source, SignatureSource::Computed, "{class}");
        assert_eq!(s.value, want, "{class}: 0x{:08X} != 0x{want:08X}", s.value);
        ok += 1;
    }
    println!("havok-2014.2: {ok}/18 recompute");
}

#[test]
fn compile_time_signatures_equal_runtime_ones() {
    const BOX: u32 = hk_derive::signature!(path = "../schemas/havok-7.1", class = "hkpBoxShape");
    const BODY: u32 = hk_derive::signature!(path = "../schemas/havok-7.1", class = "hkpRigidBody");
    const SKELETON: u32 =
        hk_derive::signature!(path = "../schemas/havok-2012.2", class = "hkaSkeleton");
    assert_eq!(BOX, 0x3444D2D5);
    assert_eq!(BODY, 0xAA8C3B19, "the pinned value, as a writer stores it");
    assert_eq!(SKELETON, 0xFC2A095F);
}

#[test]
fn reflection_classes_differ_only_by_member_type_enum() {
    // docs/layout-and-signatures.md §5: hkClass is 38771F8E in 5.5, 14425E51 in 7.1, 75585EF6
    // in 2010.2 and 33D42383 from 2012.2; hkClassMember A5240F57, 4A986551, 5C7EA4C2, B0EFA719.
    for (folder, class, member) in [
        ("havok-5.5", 0x38771F8E, 0xA5240F57),
        ("havok-7.1", 0x14425E51, 0x4A986551),
        ("havok-2010.2", 0x75585EF6, 0x5C7EA4C2),
        ("havok-2012.2", 0x33D42383, 0xB0EFA719),
        ("havok-2014.1", 0x33D42383, 0xB0EFA719),
        ("havok-2014.2", 0x33D42383, 0xB0EFA719),
    ] {
        let schema = hk_tests::schema(folder);
        assert_eq!(
            signature::compute(&schema, "hkClass").unwrap(),
            class,
            "{folder} hkClass"
        );
        assert_eq!(
            signature::compute(&schema, "hkClassMember").unwrap(),
            member,
            "{folder} hkClassMember"
        );
        assert_eq!(
            signature::compute(&schema, "hkClassEnum").unwrap(),
            0x8A3609CF,
            "{folder}"
        );
        assert_eq!(
            signature::compute(&schema, "hkClassEnumItem").unwrap(),
            0xCE6F8A6C,
            "{folder}"
        );
    }
}
