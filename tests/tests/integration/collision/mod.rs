//! Collision (docs/collision.md): hkp and hknp shapes, compressed meshes, the MOPP
//! interpreter, encoder and check, level building, and the corpus's maps.

mod bvmesh;
mod corpus_maps;
mod flat_hull;
mod hknp_mesh_shape;
mod hknp_shapes;
mod hkp_shapes;
mod import_compressed;
mod import_hkp;
mod import_phive;
mod level_build;
mod mopp_build;
mod mopp_check_cap;
mod mopp_interpreter;
mod mopp_rebuild;
mod trees;
