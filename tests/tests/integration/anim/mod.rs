//! Skeletons and animations (`hk_runtime::anim`, docs/animation.md).

mod interleaved;
mod spline;
mod write;
