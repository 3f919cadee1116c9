//! Skeletons and animations (`hk_runtime::anim`, docs/animation.md).

mod delta;
mod interleaved;
mod reference_frame;
mod spline;
mod wavelet;
mod write;
