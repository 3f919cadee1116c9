//! `hk`'s collision commands (docs/collision.md): export, render, mopp and `cm box`.

mod bvmesh_level;
mod cm_box;
mod create;
mod create_limits;
mod export_and_mopp;
mod gltf_and_render;
mod hknp;
mod hknp_mesh_shape;
mod import;
mod import_hknp;
mod level_71;
mod mesh_input;
mod mopp_rebuild;
mod render_memory;
mod trees;
