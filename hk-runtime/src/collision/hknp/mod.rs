//! The `hknp` shapes of Havok 2016 and later: polytopes, compressed meshes and compounds
//! (id Tech `cm` files, docs/collision-notes.md §12), the 2023.2 `hknpMeshShape` of phive
//! `.bphsh` files (§13), their packed vectors, and their builders.

pub mod build;
pub mod compressed;
pub(crate) mod compressed_build;
pub mod mesh_build;
pub(crate) mod mesh_check;
pub mod mesh_shape;
pub mod packed;
pub(crate) mod triangles;
pub(crate) mod values;
