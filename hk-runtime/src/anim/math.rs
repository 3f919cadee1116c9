//! Quaternion and interpolation helpers shared by the decoders.

/// A quaternion `[x, y, z, w]`.
pub type Quat = [f32; 4];

/// The dot product of two quaternions.
pub fn dot(a: Quat, b: Quat) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// `q` scaled to unit length (the identity for a zero quaternion).
pub fn normalize(q: Quat) -> Quat {
    let n = dot(q, q).sqrt();
    if n > 0.0 && n.is_finite() {
        [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Linear interpolation of two triples.
pub fn lerp3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// Normalised linear interpolation along the shorter arc: `b` is negated when it lies
/// on the other hemisphere from `a`, the blend is normalised.
pub fn nlerp(a: Quat, b: Quat, t: f32) -> Quat {
    let s = if dot(a, b) < 0.0 { -1.0 } else { 1.0 };
    normalize([
        a[0] + (s * b[0] - a[0]) * t,
        a[1] + (s * b[1] - a[1]) * t,
        a[2] + (s * b[2] - a[2]) * t,
        a[3] + (s * b[3] - a[3]) * t,
    ])
}

/// The Hamilton product `a · b`.
pub fn mul(a: Quat, b: Quat) -> Quat {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

/// `v` rotated by the unit quaternion `q`.
pub fn rotate(q: Quat, v: [f32; 3]) -> [f32; 3] {
    let p = mul(mul(q, [v[0], v[1], v[2], 0.0]), [-q[0], -q[1], -q[2], q[3]]);
    [p[0], p[1], p[2]]
}

/// The angle in degrees between the rotations two unit quaternions describe (`q` and
/// `-q` are the same rotation).
pub fn angle_deg(a: Quat, b: Quat) -> f32 {
    let d = dot(normalize(a), normalize(b)).abs().min(1.0);
    2.0 * d.acos().to_degrees()
}

/// Frame index and fraction for `time` in an animation of `frames` frames evenly spread
/// over `duration` seconds (time clamped to the animation).
pub fn frame_and_delta(time: f32, duration: f32, frames: usize) -> (usize, f32) {
    if frames < 2 || duration <= 0.0 || !time.is_finite() {
        return (0, 0.0);
    }
    let last = (frames - 1) as f32;
    let x = (time.clamp(0.0, duration) / duration) * last;
    let i = (x.floor() as usize).min(frames - 2);
    (i, (x - i as f32).clamp(0.0, 1.0))
}
