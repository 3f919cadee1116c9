//! Polygons into triangles: a convex polygon is fanned from its first corner; any other
//! simple polygon is cut into ears in the plane that its Newell normal picks. A polygon
//! whose edges cross (a twist, or a hole joined by a seam that crosses itself) is refused,
//! and so is one of more than [`MAX_CORNERS`] corners, which keeps the work per face
//! bounded (the ear search is quadratic in the corners).

use hk_runtime::collision::Vec3;

/// The most corners one face may have.
pub const MAX_CORNERS: usize = 1024;

/// The triangles of the polygon `corners` (indices into `points`), each a triple of
/// entries of `corners`, in the polygon's winding.
///
/// # Errors
/// Fewer than 3 or more than [`MAX_CORNERS`] corners, or edges that cross.
pub fn triangulate(points: &[Vec3], corners: &[u32]) -> Result<Vec<[u32; 3]>, String> {
    let n = corners.len();
    if n < 3 {
        return Err(format!("a face needs 3 corners, this one has {n}"));
    }
    if n > MAX_CORNERS {
        return Err(format!(
            "a face of {n} corners: at most {MAX_CORNERS} (split it in the modeller)"
        ));
    }
    if n == 3 {
        return Ok(vec![[corners[0], corners[1], corners[2]]]);
    }
    let flat = project(points, corners);
    if let Some((a, b)) = crossing(&flat) {
        return Err(format!(
            "edges {} and {} of the face cross: a polygon with a twist or a hole cannot be \
             imported (triangulate it in the modeller)",
            a + 1,
            b + 1
        ));
    }
    let area = signed_area(&flat);
    if area == 0.0 || !area.is_finite() || convex(&flat, area) {
        // Flat polygons (no area) give degenerate triangles, which the builders keep out
        // of their trees; convex ones a fan.
        return Ok((1..n - 1)
            .map(|i| [corners[0], corners[i], corners[i + 1]])
            .collect());
    }
    ears(&flat, area, corners)
}

/// The corners in 2D: the axis the Newell normal leans on most is dropped.
fn project(points: &[Vec3], corners: &[u32]) -> Vec<[f64; 2]> {
    let p: Vec<[f64; 3]> = corners
        .iter()
        .map(|&i| points[i as usize].map(f64::from))
        .collect();
    let mut normal = [0.0f64; 3];
    for (i, a) in p.iter().enumerate() {
        let b = p[(i + 1) % p.len()];
        normal[0] += (a[1] - b[1]) * (a[2] + b[2]);
        normal[1] += (a[2] - b[2]) * (a[0] + b[0]);
        normal[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    if normal == [0.0; 3] {
        // Windings that cancel (a bow tie): the plane of the largest corner triangle.
        normal = (1..p.len() - 1)
            .map(|i| cross3(sub(p[i], p[0]), sub(p[i + 1], p[0])))
            .max_by(|a, b| norm2(*a).total_cmp(&norm2(*b)))
            .unwrap_or(normal);
    }
    let abs = normal.map(f64::abs);
    let drop = if abs[0] >= abs[1] && abs[0] >= abs[2] {
        0
    } else if abs[1] >= abs[2] {
        1
    } else {
        2
    };
    let (u, v) = [(1, 2), (2, 0), (0, 1)][drop];
    p.iter().map(|q| [q[u], q[v]]).collect()
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross3(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

fn norm2(u: [f64; 3]) -> f64 {
    u[0] * u[0] + u[1] * u[1] + u[2] * u[2]
}

fn signed_area(f: &[[f64; 2]]) -> f64 {
    let n = f.len();
    (0..n)
        .map(|i| {
            let (a, b) = (f[i], f[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f64>()
        / 2.0
}

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Every corner turns the way the polygon winds.
fn convex(f: &[[f64; 2]], area: f64) -> bool {
    let n = f.len();
    (0..n).all(|i| cross(f[(i + n - 1) % n], f[i], f[(i + 1) % n]) * area.signum() >= 0.0)
}

/// The first two non-adjacent edges that properly cross.
fn crossing(f: &[[f64; 2]]) -> Option<(usize, usize)> {
    let n = f.len();
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            let (a, b, c, d) = (f[i], f[(i + 1) % n], f[j], f[(j + 1) % n]);
            let (d1, d2) = (cross(a, b, c), cross(a, b, d));
            let (d3, d4) = (cross(c, d, a), cross(c, d, b));
            if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
                return Some((i, j));
            }
        }
    }
    None
}

/// Ear clipping of a simple polygon.
fn ears(f: &[[f64; 2]], area: f64, corners: &[u32]) -> Result<Vec<[u32; 3]>, String> {
    let s = area.signum();
    let mut left: Vec<usize> = (0..f.len()).collect();
    let mut out = Vec::with_capacity(f.len() - 2);
    while left.len() > 3 {
        let m = left.len();
        let ear = (0..m).find(|&k| {
            let (a, b, c) = (left[(k + m - 1) % m], left[k], left[(k + 1) % m]);
            cross(f[a], f[b], f[c]) * s > 0.0
                && !left
                    .iter()
                    .any(|&p| p != a && p != b && p != c && inside(f[p], f[a], f[b], f[c], s))
        });
        let Some(k) = ear else {
            return Err(
                "the face folds onto itself (no corner can be cut off): triangulate it in the \
                 modeller"
                    .to_string(),
            );
        };
        let (a, b, c) = (left[(k + m - 1) % m], left[k], left[(k + 1) % m]);
        out.push([corners[a], corners[b], corners[c]]);
        left.remove(k);
    }
    out.push([corners[left[0]], corners[left[1]], corners[left[2]]]);
    Ok(out)
}

/// `p` inside or on triangle `abc` wound `s`.
fn inside(p: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2], s: f64) -> bool {
    cross(a, b, p) * s >= 0.0 && cross(b, c, p) * s >= 0.0 && cross(c, a, p) * s >= 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area3(points: &[Vec3], t: &[u32; 3]) -> f64 {
        let [a, b, c] = t.map(|i| points[i as usize].map(f64::from));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let x = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt() / 2.0
    }

    #[test]
    fn a_concave_polygon_is_cut_into_ears_that_cover_it() {
        // An L in the x/z plane (y = 5), area 3.
        let p: Vec<Vec3> = [[0., 0.], [2., 0.], [2., 1.], [1., 1.], [1., 2.], [0., 2.]]
            .iter()
            .map(|q| [q[0], 5.0, q[1]])
            .collect();
        let corners: Vec<u32> = (0..6).collect();
        let t = triangulate(&p, &corners).unwrap();
        assert_eq!(t.len(), 4);
        let total: f64 = t.iter().map(|t| area3(&p, t)).sum();
        assert!((total - 3.0).abs() < 1e-9, "{t:?} covers {total}");
        // The reflex corner 3 is never the tip of a fan that would leave the polygon.
        assert!(!t.contains(&[2, 3, 4]));
    }

    #[test]
    fn a_quad_is_a_fan_and_a_twisted_one_is_refused() {
        let p: Vec<Vec3> = vec![[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]];
        assert_eq!(
            triangulate(&p, &[0, 1, 2, 3]).unwrap(),
            vec![[0, 1, 2], [0, 2, 3]]
        );
        // A bow tie: edges 1 and 3 cross (its signed area is 0).
        let e = triangulate(&p, &[0, 2, 1, 3]).unwrap_err();
        assert!(e.contains("cross"), "{e}");
        assert!(triangulate(&p, &[0, 1]).is_err());
        let many: Vec<u32> = vec![0; MAX_CORNERS + 1];
        assert!(triangulate(&p, &many).unwrap_err().contains("at most"));
    }
}
