//! Skeletons and animations (`hk_runtime::anim`, docs/animation.md).

mod delta;
mod interleaved;
mod reference_frame;
mod spline;
mod wavelet;
mod write;

/// The size of a skeleton's reference pose: its model-space bounding box's diagonal.
fn extent(s: &hk_runtime::anim::Skeleton) -> f32 {
    let local: Vec<_> = s.bones.iter().map(|b| b.reference).collect();
    let model = s.model_pose(&local);
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for t in &model {
        for i in 0..3 {
            lo[i] = lo[i].min(t.translation[i]);
            hi[i] = hi[i].max(t.translation[i]);
        }
    }
    (0..3).map(|i| (hi[i] - lo[i]).powi(2)).sum::<f32>().sqrt()
}
