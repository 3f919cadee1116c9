//! The `hkp` shapes of Havok 5.5 to 2014: extended, storage and simple meshes, convex
//! vertices, compressed meshes and static compounds, their packed numbers, and the builders
//! of level collision over them (docs/collision-notes.md §8 to §11).

pub mod bvmesh;
pub mod bvmesh_build;
pub mod compound;
pub mod convex;
pub mod level_build;
pub(crate) mod mesh;
pub mod pack;
