//! Classes generated at compile time by `hk_derive::schema!`: their signatures, layouts and
//! plans as constants, views that read what the decoders read without allocating, and
//! corrupted files failing the typed decoder as they fail the dynamic reader. The corpus
//! round trip through the derived codecs, which also shows that no graph is built, is in the
//! memory binary (`memory/typed.rs`): the count of graphs built is process-wide.

use hk_runtime::packfile::graph::read::read;
use hk_runtime::packfile::Packfile;
use hk_runtime::typed::{AnyViewClass, Class, HkClass};
use hk_runtime::LayoutRules;

pub mod h710;

/// The 7.1 signatures and layout of docs/layout-and-signatures.md, from the const tables.
#[test]
fn compile_time_signatures_and_layout() {
    assert_eq!(collision71::HkpBoxShape::SIGNATURE, 0x3444D2D5);
    assert_eq!(h710::HkaSkeleton::SIGNATURE, 0xB892FD4F);
    assert_eq!(collision71::HkpRigidBody::SIGNATURE, 0xAA8C3B19, "pinned");
    assert_eq!(collision71::HkpRigidBody::size(LayoutRules::BE32), 0x220);
    let i = collision71::HkpRigidBody::MEMBER_NAMES
        .iter()
        .position(|m| *m == "motion")
        .unwrap();
    assert_eq!(
        collision71::HkpRigidBody::offsets(LayoutRules::BE32)[i],
        0xE0
    );
    assert_eq!(
        collision71::HkpMotionMotionType::from_value(5),
        collision71::HkpMotionMotionType::MotionFixed
    );
}

/// The layout tables the macro computed equal the plans the dynamic reader runs, for every
/// generated class under all eight rules.
#[test]
fn compile_time_tables_equal_the_plans() {
    fn check<C: Class>(schema: &hk_runtime::Schema) {
        let id = schema.require(C::NAME).unwrap();
        for ri in 0..8 {
            let plan = schema.plan(id, LayoutRules::from_index(ri)).unwrap();
            assert_eq!(C::SIZES[ri], plan.size, "{} size", C::NAME);
            assert_eq!(&*plan.gaps, C::GAPS[ri], "{} gaps", C::NAME);
            let offs: Vec<u32> = plan.members.iter().map(|m| m.offset).collect();
            assert_eq!(offs, C::offsets(ri), "{} offsets", C::NAME);
        }
    }
    let s = hk_tests::schema("havok-7.1");
    check::<h710::HkaSkeleton>(&s);
    check::<h710::HkaBone>(&s);
    check::<h710::HkaSplineCompressedAnimation>(&s);
    check::<h710::HkaAnimationBinding>(&s);
    check::<h710::HkRootLevelContainer>(&s);
    check::<h710::HkRootLevelContainerNamedVariant>(&s);
    check::<h710::HkClassMember>(&s);
    check::<collision71::HkpRigidBody>(&s);
    check::<collision71::HkpStorageExtendedMeshShape>(&s);
}

/// Views read what the decoders read, without allocating; pointers lead to views of the
/// objects they name.
#[test]
fn views_read_what_the_decoder_reads() {
    let Some(corpus) = hk_tests::corpus("views_read_what_the_decoder_reads") else {
        return;
    };
    let mut skeletons = 0;
    for f in hk_tests::files(&corpus.join("packfile/havoklib-710")) {
        let d = hk_tests::read(&f);
        let t = h710::decode_file(&d).unwrap();
        let pf = Packfile::parse(&d).unwrap();
        for (i, &(loc, _)) in pf.object_table().iter().enumerate() {
            let view = h710::AnyView::at(&pf, loc).unwrap();
            match (&t.objects[i], view) {
                (h710::AnyObject::HkaSkeleton(s), h710::AnyView::HkaSkeleton(v)) => {
                    skeletons += 1;
                    assert_eq!(v.name().unwrap(), s.name.as_bytes());
                    let bones = v.bones().unwrap();
                    assert_eq!(bones.len(), s.bones.len());
                    for (b, bv) in s.bones.iter().zip(bones.iter()) {
                        assert_eq!(bv.name().unwrap(), b.name.as_bytes());
                        assert_eq!(bv.lock_translation(), b.lock_translation);
                    }
                    assert_eq!(v.parent_indices().unwrap().to_vec(), s.parent_indices);
                    assert_eq!(v.reference_pose().unwrap().to_vec(), s.reference_pose);
                }
                (
                    h710::AnyObject::HkaSplineCompressedAnimation(a),
                    h710::AnyView::HkaSplineCompressedAnimation(v),
                ) => {
                    assert_eq!(v.num_frames(), a.num_frames);
                    assert_eq!(v.duration(), a.duration);
                    assert_eq!(v.data().unwrap().to_vec(), a.data);
                    assert_eq!(v.block_offsets().unwrap().to_vec(), a.block_offsets);
                }
                (
                    h710::AnyObject::HkaAnimationBinding(b),
                    h710::AnyView::HkaAnimationBinding(v),
                ) => {
                    let target = v.animation().unwrap();
                    assert_eq!(target.is_some(), b.animation.ptr.is_some());
                    assert_eq!(
                        v.transform_track_to_bone_indices().unwrap().to_vec(),
                        b.transform_track_to_bone_indices
                    );
                }
                (_, v) => {
                    assert!(!matches!(v, h710::AnyView::Other(_)));
                    let mut acc = 0;
                    v.traverse(&mut acc).unwrap();
                }
            }
        }
    }
    assert!(skeletons > 0);
}

/// Broken files fail the typed decoder exactly where and how they fail the dynamic reader:
/// both run the same engine.
#[test]
fn corrupted_files_fail_the_typed_decoder_as_the_dynamic_reader() {
    let Some(corpus) = hk_tests::corpus("corrupted_files_fail_the_typed_decoder") else {
        return;
    };
    let schema = h710::schema();
    let mut next = hk_tests::xorshift(0x710_7107);
    let (mut rejected, mut tried) = (0, 0);
    for f in hk_tests::files(&corpus.join("packfile/havoklib-710")) {
        let data = hk_tests::read(&f);
        for _ in 0..40 {
            let bad = hk_tests::corrupt(&data, &mut next);
            let Ok(pf) = Packfile::parse(&bad) else {
                continue;
            };
            tried += 1;
            let dynamic = read(&pf, schema, Default::default()).map(|_| ());
            let typed = h710::decode_file(&bad).map(|_| ());
            match (&dynamic, &typed) {
                (Err(a), Err(b)) => {
                    rejected += 1;
                    // A class the module does not generate is the one difference in kind.
                    if !matches!(b.kind(), hk_runtime::ErrorKind::Convert(_)) {
                        assert_eq!(a.to_string(), b.to_string(), "{}", f.display());
                    }
                }
                (Ok(()), Ok(())) => {}
                _ => panic!("{}: dynamic {dynamic:?}, typed {typed:?}", f.display()),
            }
        }
    }
    println!("{rejected} of {tried} corruptions rejected by both readers alike");
    assert!(rejected > 0);
}

mod collision71 {
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

/// The 24 Havok 7.1 collision classes' signatures (docs/collision-notes.md §1.1) against
/// the constants the macro computed at compile time.
#[test]
fn compile_time_signatures_of_the_71_collision_classes() {
    use collision71::*;
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
    assert_eq!(got, hk_tests::SIGNATURES_71);
    println!(
        "24/24 compile-time signatures equal docs/collision-notes.md §1.1 (7 of them pinned by the schema)"
    );
}
