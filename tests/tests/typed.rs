//! Classes generated at compile time by `hk_derive::schema!` read and write the corpus with
//! their derived codecs: every havoklib-710 file decodes straight from its bytes into typed
//! objects (no graph is built), writes back byte for byte, and holds the same values as the
//! dynamic graph (through the checked `TryFrom` conversions both ways). Views read the same
//! values without allocating.

use std::sync::{Arc, Mutex};

use hk_runtime::graph::{graphs_built, Object};
use hk_runtime::packfile::graph::read::read;
use hk_runtime::packfile::Packfile;
use hk_runtime::typed::{AnyViewClass, Class, GraphObject, HkClass, TypedFile};
use hk_runtime::LayoutRules;

/// The classes of the `havok-demo-710` game profile (`games/havok-demo-710.toml`), with the
/// reflection classes `hk gen crate` adds for packfiles: what its generated crate holds.
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
            "hkClass",
            "hkClassMember",
            "hkClassEnum",
            "hkClassEnumItem",
        ]
    );
}

/// Held by the tests of this file that build graphs while another counts them (the
/// counter is per process, the tests run on parallel threads).
static GRAPHS: Mutex<()> = Mutex::new(());

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

/// The acceptance test of the derived codecs: all 56 havoklib-710 files (all eight layout
/// rules) decode with the generated decoders and encode back byte for byte, without a
/// graph; the typed values equal the dynamic graph's, and the container facts too.
#[test]
fn havoklib_710_through_derived_codecs() {
    let Some(corpus) = hk_tests::corpus("havoklib_710_through_derived_codecs") else {
        return;
    };
    let files = hk_tests::files(&corpus.join("packfile/havoklib-710"));
    assert_eq!(files.len(), 56);
    let data: Vec<Vec<u8>> = files.iter().map(|f| hk_tests::read(f)).collect();

    // The typed path alone: decode, encode, traverse the views. No graph.
    let lock = GRAPHS.lock().unwrap_or_else(|e| e.into_inner());
    let before = graphs_built();
    let mut typed = Vec::new();
    let mut identical = 0;
    for (f, d) in files.iter().zip(&data) {
        let t = h710::decode_file(d).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let back = t.write().unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if back == *d {
            identical += 1;
        } else {
            eprintln!("{}: typed write differs", f.display());
        }
        let pf = Packfile::parse(d).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        hk_runtime::typed::view::traverse_packfile::<h710::AnyView<'_>>(&pf)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        typed.push(t);
    }
    assert_eq!(
        graphs_built(),
        before,
        "the typed path built a graph (graph::graphs_built moved)"
    );
    drop(lock);
    println!(
        "havoklib-710 through the derived codecs: {identical}/56 byte-identical, no graph built"
    );
    assert_eq!(identical, files.len());

    // The same values as the dynamic graph, both ways through `TryFrom`.
    let schema: &Arc<hk_runtime::Schema> = h710::schema();
    for ((f, d), t) in files.iter().zip(&data).zip(&typed) {
        let pf = Packfile::parse(d).unwrap();
        let dynamic = read(&pf, schema, Default::default()).unwrap();
        let g = &dynamic.graph;
        assert_eq!(t.root, g.root, "{}", f.display());
        assert_eq!(t.info, dynamic.info, "{}: container facts", f.display());
        assert_eq!(t.objects.len(), g.objects.len(), "{}", f.display());
        for (i, (o, go)) in t.objects.iter().zip(&g.objects).enumerate() {
            let as_graph = Object::try_from(o).unwrap();
            assert_eq!(
                &as_graph,
                go,
                "{} object #{i} {}",
                f.display(),
                o.class_name()
            );
            let as_typed = h710::AnyObject::try_from(GraphObject { schema, object: go }).unwrap();
            assert_eq!(&as_typed, o, "{} object #{i}", f.display());
        }
        assert_eq!(&t.to_graph(schema).unwrap(), g, "{}", f.display());
        let from_graph: TypedFile<h710::AnyObject> =
            TypedFile::from_graph(g, dynamic.info.clone()).unwrap();
        assert_eq!(&from_graph, t, "{}", f.display());
    }
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
            let _lock = GRAPHS.lock().unwrap_or_else(|e| e.into_inner());
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
