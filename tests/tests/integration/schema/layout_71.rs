//! Every offset and size docs/collision-notes.md §1.2 states for the seven pinned Havok 7.1
//! classes (and the objects around them) comes out of `schemas/havok-7.1` under the 7.1 rules
//! (32-bit pointers, big endian, reuse padding). The subpart record's offsets are §2's.

use hk_runtime::schema::layout::Layouts;
use hk_runtime::types::TypeKind;
use hk_runtime::LayoutRules;

/// Offset of a dotted member path (`motion.motionState.objectRadius`) from the start of an
/// object of `class`, walking into struct members.
fn offset(layouts: &mut Layouts<'_>, class: &str, path: &str) -> u32 {
    let mut class = class.to_string();
    let mut at = 0;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let members = layouts.flattened(&class).unwrap();
        let (_, m, l) = members
            .iter()
            .find(|(_, m, _)| m.name == part)
            .unwrap_or_else(|| panic!("{class} has no member `{part}` (path {path})"));
        at += l.offset;
        if parts.peek().is_some() {
            assert_eq!(m.ty, TypeKind::Struct, "{class}.{part} is not a struct");
            class = m.class.clone().unwrap();
        }
    }
    at
}

/// (class, member path, offset) from docs/collision-notes.md §1.2.
const OFFSETS: &[(&str, &str, u32)] = &[
    // hkpRigidBody (docs/collision-notes.md §1.2).
    ("hkpRigidBody", "collidable.shape", 0x10),
    ("hkpRigidBody", "collidable.broadPhaseHandle.type", 0x28),
    (
        "hkpRigidBody",
        "collidable.broadPhaseHandle.collisionFilterInfo",
        0x2C,
    ),
    ("hkpRigidBody", "collidable.collisionEntries", 0x60),
    ("hkpRigidBody", "name", 0x74),
    ("hkpRigidBody", "material.responseType", 0x8C),
    ("hkpRigidBody", "storageIndex", 0xA8),
    ("hkpRigidBody", "contactPointCallbackDelay", 0xAA),
    ("hkpRigidBody", "constraintsSlave", 0xB4),
    ("hkpRigidBody", "constraintRuntime", 0xC0),
    ("hkpRigidBody", "uid", 0xD4),
    ("hkpRigidBody", "motion", 0xE0),
    ("hkpRigidBody", "motion.type", 0xE8),
    ("hkpRigidBody", "motion.motionState.transform", 0xF0),
    ("hkpRigidBody", "motion.motionState.objectRadius", 0x190),
    ("hkpRigidBody", "motion.inertiaAndMassInv", 0x1A0),
    ("hkpRigidBody", "motion.linearVelocity", 0x1B0),
    ("hkpRigidBody", "motion.angularVelocity", 0x1C0),
    ("hkpRigidBody", "motion.gravityFactor", 0x1FE),
    // hkpConstraintInstance (docs/collision-notes.md §1.2).
    ("hkpConstraintInstance", "owner", 0x08),
    ("hkpConstraintInstance", "data", 0x0C),
    ("hkpConstraintInstance", "constraintModifiers", 0x10),
    ("hkpConstraintInstance", "entities", 0x14),
    ("hkpConstraintInstance", "priority", 0x1C),
    ("hkpConstraintInstance", "wantRuntime", 0x1D),
    ("hkpConstraintInstance", "destructionRemapInfo", 0x1E),
    ("hkpConstraintInstance", "listeners", 0x20),
    ("hkpConstraintInstance", "name", 0x28),
    ("hkpConstraintInstance", "userData", 0x2C),
    // hkpRagdollConstraintData (docs/collision-notes.md §1.2).
    ("hkpRagdollConstraintData", "atoms.transforms", 0x10),
    (
        "hkpRagdollConstraintData",
        "atoms.transforms.transformA",
        0x20,
    ),
    (
        "hkpRagdollConstraintData",
        "atoms.transforms.transformB",
        0x60,
    ),
    ("hkpRagdollConstraintData", "atoms.ragdollMotors", 0xA0),
    (
        "hkpRagdollConstraintData",
        "atoms.ragdollMotors.target_bRca",
        0xB0,
    ),
    (
        "hkpRagdollConstraintData",
        "atoms.ragdollMotors.motors",
        0xE0,
    ),
    ("hkpRagdollConstraintData", "atoms.angFriction", 0xF0),
    (
        "hkpRagdollConstraintData",
        "atoms.angFriction.maxFrictionTorque",
        0xF8,
    ),
    ("hkpRagdollConstraintData", "atoms.twistLimit", 0xFC),
    (
        "hkpRagdollConstraintData",
        "atoms.twistLimit.angularLimitsTauFactor",
        0x10C,
    ),
    ("hkpRagdollConstraintData", "atoms.coneLimit", 0x110),
    (
        "hkpRagdollConstraintData",
        "atoms.coneLimit.memOffsetToAngleOffset",
        0x116,
    ),
    ("hkpRagdollConstraintData", "atoms.planesLimit", 0x124),
    ("hkpRagdollConstraintData", "atoms.ballSocket", 0x138),
    (
        "hkpRagdollConstraintData",
        "atoms.ballSocket.maxImpulse",
        0x13C,
    ),
    // hkpLimitedHingeConstraintData (docs/collision-notes.md §1.2).
    ("hkpLimitedHingeConstraintData", "atoms.transforms", 0x10),
    ("hkpLimitedHingeConstraintData", "atoms.angMotor", 0xA0),
    (
        "hkpLimitedHingeConstraintData",
        "atoms.angMotor.targetAngle",
        0xAC,
    ),
    (
        "hkpLimitedHingeConstraintData",
        "atoms.angMotor.motor",
        0xB0,
    ),
    ("hkpLimitedHingeConstraintData", "atoms.angFriction", 0xB4),
    ("hkpLimitedHingeConstraintData", "atoms.angLimit", 0xC0),
    (
        "hkpLimitedHingeConstraintData",
        "atoms.angLimit.angularLimitsTauFactor",
        0xCC,
    ),
    ("hkpLimitedHingeConstraintData", "atoms.2dAng", 0xD0),
    ("hkpLimitedHingeConstraintData", "atoms.ballSocket", 0xD4),
    // hkpBreakableConstraintData (docs/collision-notes.md §1.2).
    ("hkpBreakableConstraintData", "atoms", 0x0C),
    (
        "hkpBreakableConstraintData",
        "atoms.bridgeAtom.buildJacobianFunc",
        0x10,
    ),
    (
        "hkpBreakableConstraintData",
        "atoms.bridgeAtom.constraintData",
        0x14,
    ),
    ("hkpBreakableConstraintData", "constraintData", 0x18),
    ("hkpBreakableConstraintData", "childRuntimeSize", 0x1C),
    ("hkpBreakableConstraintData", "childNumSolverResults", 0x1E),
    ("hkpBreakableConstraintData", "solverResultLimit", 0x20),
    ("hkpBreakableConstraintData", "removeWhenBroken", 0x24),
    (
        "hkpBreakableConstraintData",
        "revertBackVelocityOnBreak",
        0x25,
    ),
    // hkpConvexVerticesShape (docs/collision-notes.md §1.2).
    ("hkpConvexVerticesShape", "radius", 0x10),
    ("hkpConvexVerticesShape", "aabbHalfExtents", 0x20),
    ("hkpConvexVerticesShape", "aabbCenter", 0x30),
    ("hkpConvexVerticesShape", "rotatedVertices", 0x40),
    ("hkpConvexVerticesShape", "numVertices", 0x4C),
    ("hkpConvexVerticesShape", "externalObject", 0x50),
    ("hkpConvexVerticesShape", "planeEquations", 0x54),
    ("hkpConvexVerticesShape", "connectivity", 0x60),
    // hkpStorageExtendedMeshShape (docs/collision-notes.md §1.2).
    (
        "hkpStorageExtendedMeshShape",
        "embeddedTrianglesSubpart",
        0x20,
    ),
    (
        "hkpStorageExtendedMeshShape",
        "embeddedTrianglesSubpart.triangleOffset",
        0x6C,
    ),
    ("hkpStorageExtendedMeshShape", "scaling", 0x80),
    ("hkpStorageExtendedMeshShape", "aabbHalfExtents", 0x90),
    ("hkpStorageExtendedMeshShape", "aabbCenter", 0xA0),
    ("hkpStorageExtendedMeshShape", "trianglesSubparts", 0xB4),
    ("hkpStorageExtendedMeshShape", "weldingInfo", 0xCC),
    ("hkpStorageExtendedMeshShape", "weldingType", 0xD8),
    (
        "hkpStorageExtendedMeshShape",
        "defaultCollisionFilterInfo",
        0xDC,
    ),
    ("hkpStorageExtendedMeshShape", "cachedNumChildShapes", 0xE0),
    ("hkpStorageExtendedMeshShape", "triangleRadius", 0xE4),
    ("hkpStorageExtendedMeshShape", "meshstorage", 0xF0),
    ("hkpStorageExtendedMeshShape", "shapestorage", 0xFC),
    // hkpExtendedMeshShapeTrianglesSubpart (docs/collision-notes.md §2).
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "materialIndexStridingType",
        0x1,
    ),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "materialStriding",
        0x2,
    ),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "materialIndexBase",
        0x4,
    ),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "materialIndexStriding",
        0x8,
    ),
    ("hkpExtendedMeshShapeTrianglesSubpart", "numMaterials", 0xA),
    ("hkpExtendedMeshShapeTrianglesSubpart", "materialBase", 0xC),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "materialClass",
        0x10,
    ),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "numTriangleShapes",
        0x14,
    ),
    ("hkpExtendedMeshShapeTrianglesSubpart", "vertexBase", 0x18),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "vertexStriding",
        0x1C,
    ),
    ("hkpExtendedMeshShapeTrianglesSubpart", "numVertices", 0x20),
    ("hkpExtendedMeshShapeTrianglesSubpart", "extrusion", 0x30),
    ("hkpExtendedMeshShapeTrianglesSubpart", "indexBase", 0x40),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "indexStriding",
        0x44,
    ),
    ("hkpExtendedMeshShapeTrianglesSubpart", "stridingType", 0x48),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "flipAlternateTriangles",
        0x49,
    ),
    (
        "hkpExtendedMeshShapeTrianglesSubpart",
        "triangleOffset",
        0x4C,
    ),
    ("hkpExtendedMeshShapeTrianglesSubpart", "userData", 0x50),
    (
        "hkpStorageExtendedMeshShapeMeshSubpartStorage",
        "materials",
        0x44,
    ),
    // hkpPhysicsSystem and hkpPhysicsData (docs/collision-notes.md §1.2).
    ("hkpPhysicsSystem", "rigidBodies", 0x08),
    ("hkpPhysicsSystem", "constraints", 0x14),
    ("hkpPhysicsSystem", "actions", 0x20),
    ("hkpPhysicsSystem", "phantoms", 0x2C),
    ("hkpPhysicsSystem", "name", 0x38),
    ("hkpPhysicsSystem", "userData", 0x3C),
    ("hkpPhysicsSystem", "active", 0x40),
    ("hkpPhysicsData", "worldCinfo", 0x08),
    ("hkpPhysicsData", "systems", 0x0C),
    // Other shapes (docs/collision-notes.md §1.2).
    ("hkpBoxShape", "halfExtents", 0x20),
    ("hkpCylinderShape", "cylRadius", 0x14),
    ("hkpCylinderShape", "vertexA", 0x20),
    ("hkpCylinderShape", "perpendicular2", 0x50),
    ("hkpCapsuleShape", "vertexB", 0x30),
    ("hkpConvexTranslateShape", "childShape.childShape", 0x18),
    ("hkpConvexTranslateShape", "translation", 0x20),
    ("hkpListShape", "childInfo", 0x18),
    ("hkpListShape", "aabbHalfExtents", 0x30),
    ("hkpListShape", "enabledChildren", 0x50),
    ("hkpMoppBvTreeShape", "code", 0x14),
    ("hkpMoppBvTreeShape", "child.childShape", 0x34),
    ("hkpMoppCode", "info", 0x10),
    ("hkpMoppCode", "data", 0x20),
    ("hkpMoppCode", "buildType", 0x2C),
    ("hkpConvexVerticesConnectivity", "vertexIndices", 0x08),
    ("hkpConvexVerticesConnectivity", "numVerticesPerFace", 0x14),
];

/// (class, size) from docs/collision-notes.md §1.2.
const SIZES: &[(&str, u32)] = &[
    ("hkpRigidBody", 0x220),
    ("hkpMaxSizeMotion", 0x120),
    ("hkpConstraintInstance", 0x38),
    ("hkpRagdollConstraintData", 0x140),
    ("hkpLimitedHingeConstraintData", 0xE0),
    ("hkpBreakableConstraintData", 0x28),
    ("hkpConvexVerticesShape", 0x70),
    ("hkpStorageExtendedMeshShape", 0x110),
    ("hkpExtendedMeshShapeTrianglesSubpart", 0x60),
    ("hkpStorageExtendedMeshShapeMaterial", 0xC),
    ("hkpPhysicsSystem", 0x44),
    ("hkpPhysicsData", 0x18),
    ("hkpMoppCode", 0x30),
    ("hkpSetLocalTransformsConstraintAtom", 0x90),
    ("hkpRagdollMotorConstraintAtom", 0x50),
    ("hkpAngFrictionConstraintAtom", 0xC),
    ("hkpTwistLimitConstraintAtom", 0x14),
    ("hkpConeLimitConstraintAtom", 0x14),
    ("hkpAngLimitConstraintAtom", 0x10),
    ("hkpAngMotorConstraintAtom", 0x14),
    ("hkp2dAngConstraintAtom", 0x4),
    ("hkpBallSocketConstraintAtom", 0x8),
];

#[test]
fn documented_offsets_and_sizes_of_the_7_1_classes() {
    let schema = hk_tests::schema("havok-7.1");
    let mut layouts = Layouts::new(&schema, LayoutRules::BE32);
    let mut bad = Vec::new();
    for &(class, path, want) in OFFSETS {
        let got = offset(&mut layouts, class, path);
        if got != want {
            bad.push(format!("{class}.{path}: docs 0x{want:X}, layout 0x{got:X}"));
        }
    }
    for &(class, want) in SIZES {
        let got = layouts
            .class(class)
            .unwrap_or_else(|e| panic!("{class}: {e}"))
            .size;
        if got != want {
            bad.push(format!("{class}: docs size 0x{want:X}, layout 0x{got:X}"));
        }
    }
    println!(
        "{} offsets and {} sizes from docs/collision-notes.md §1.2 checked",
        OFFSETS.len(),
        SIZES.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
