//! The classes of the `havok-demo-710` game profile (`games/havok-demo-710.toml`), with the
//! reflection classes `hk gen crate` adds for packfiles: what its generated crate holds.

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
