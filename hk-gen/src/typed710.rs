//! Typed classes of the `havok-demo-710` profile (games/havok-demo-710.toml), derived from
//! `schemas/havok-7.1` at compile time: what `hk bench` measures the derived decoders,
//! encoders and views with.
#![allow(missing_docs, clippy::all)]

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
    ]
);

/// The contents version of the files these classes describe (`schemas/havok-7.1`).
pub const CONTENTS_VERSION: &str = "Havok-7.1.0-r1";
