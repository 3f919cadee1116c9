//! Collision written for other tools: Wavefront OBJ (glTF and pictures are made by the
//! command line, `hk export` and `hk render`).

pub mod obj;
