//! `hkpConvexVerticesShape`: vertices stored four to a `FourVectors` record (x, y, z
//! lanes), faces from the connectivity object where the stored planes are exact hull
//! faces, and a rebuilt hull otherwise (docs/collision-notes.md §10.2).

use crate::collision::access::{ints, Rec};
use crate::collision::math::{Aabb, Vec3};
use crate::collision::shapes::{blank, plain};
use crate::collision::{Mesh, Result, ShapeKind};

/// The most vertices a hull is rebuilt from (the rebuild is quadratic in the count).
const MAX_HULL_VERTICES: usize = 4096;

/// How far (in the shape's units) a vertex may lie outside a normalised stored plane for
/// the planes to count as exact.
const PLANE_TOLERANCE: f32 = 1e-3;

/// Reads a convex vertices shape.
pub(crate) fn read(r: &Rec<'_>) -> Result<Mesh> {
    let mut m = blank(r, ShapeKind::ConvexVertices);
    let n = usize::try_from(r.int("numVertices")?).map_err(|_| r.err("numVertices", "negative"))?;
    let groups = four_vectors(r)?;
    if n > groups.len() * 4 {
        return Err(r.err(
            "numVertices",
            format!(
                "{n} vertices, but {} FourVectors hold {}",
                groups.len(),
                groups.len() * 4
            ),
        ));
    }
    for j in 0..n {
        let g = &groups[j / 4];
        let lane = j % 4;
        m.vertices.push([g[lane], g[4 + lane], g[8 + lane]]);
    }
    if let (Ok(c), Ok(h)) = (r.vec3("aabbCenter"), r.vec3("aabbHalfExtents")) {
        m.stored_aabb = Some(Aabb::centered(c, h));
    }
    let planes: Vec<[f32; 4]> = match r.opt("planeEquations").and_then(|v| v.as_array()) {
        Some(crate::graph::Array::Vec4(p)) => p.clone(),
        _ => Vec::new(),
    };
    let faces = match r.opt("connectivity").and_then(|v| v.as_ptr()) {
        Some(crate::graph::Ptr::Object(c)) => Some(Rec::object(r.graph(), *c)?),
        _ => None,
    };
    if let (Some(c), true) = (faces, planes_exact(&planes, &m.vertices)) {
        let idx = ints(c.array("vertexIndices")?)
            .ok_or_else(|| c.err("vertexIndices", "expected integers"))?;
        let per = ints(c.array("numVerticesPerFace")?)
            .ok_or_else(|| c.err("numVerticesPerFace", "expected integers"))?;
        let mut at = 0usize;
        for (f, &k) in per.iter().enumerate() {
            let k = k as usize;
            let face = idx.get(at..at + k).ok_or_else(|| {
                c.err(
                    "vertexIndices",
                    format!("face {f} runs past the {} indices", idx.len()),
                )
            })?;
            if let Some(&bad) = face.iter().find(|&&v| v as usize >= n) {
                return Err(c.err(
                    "vertexIndices",
                    format!("face {f} names vertex {bad} of {n}"),
                ));
            }
            for i in 1..k.saturating_sub(1) {
                m.triangles.push(plain([face[0], face[i], face[i + 1]], 0));
            }
            at += k;
        }
    }
    // No connectivity, planes that are not exact, or a connectivity of no faces (as some
    // tools write for flat shapes): the hull of the vertices.
    if m.triangles.is_empty() {
        if n > MAX_HULL_VERTICES {
            return Err(r.err(
                "numVertices",
                format!("{n} vertices: more than the {MAX_HULL_VERTICES} a hull is rebuilt from"),
            ));
        }
        m.triangles = hull(&m.vertices).into_iter().map(|v| plain(v, 0)).collect();
    }
    Ok(m)
}

/// Whether every plane has a unit normal and no vertex lies more than
/// 10⁻³ outside it (research: most stored planes are such; some are
/// scaled or cut the hull, docs/collision-notes.md §10.2).
pub fn planes_exact(planes: &[[f32; 4]], vertices: &[Vec3]) -> bool {
    !planes.is_empty()
        && planes.iter().all(|p| {
            let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            (len - 1.0).abs() <= 1e-3
                && vertices
                    .iter()
                    .all(|v| v[0] * p[0] + v[1] * p[1] + v[2] * p[2] + p[3] <= PLANE_TOLERANCE)
        })
}

fn sub(a: Vec3, b: Vec3) -> [f64; 3] {
    [0, 1, 2].map(|i| f64::from(a[i]) - f64::from(b[i]))
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The convex hull of `p` as outward triangles (incremental: each point removes the faces
/// it sees and joins the horizon). Points that all lie in one plane give their flat hull,
/// the polygon's fan of triangles (a flat quad gives its two); points on one line give
/// none.
pub fn hull(p: &[Vec3]) -> Vec<[u32; 3]> {
    let n = p.len();
    if n < 3 {
        return Vec::new();
    }
    let scale = p
        .iter()
        .flat_map(|v| v.iter())
        .fold(0f64, |m, &x| m.max(f64::from(x).abs()))
        .max(1.0);
    let eps = scale * 1e-6;
    // A first tetrahedron: two far points, the point farthest from their line, the point
    // farthest from their plane.
    let a = 0usize;
    let b = (0..n)
        .max_by(|&i, &j| {
            dot(sub(p[i], p[a]), sub(p[i], p[a])).total_cmp(&dot(sub(p[j], p[a]), sub(p[j], p[a])))
        })
        .unwrap_or(0);
    let ab = sub(p[b], p[a]);
    let line = |i: usize| {
        let c = cross(ab, sub(p[i], p[a]));
        dot(c, c)
    };
    let c = (0..n)
        .max_by(|&i, &j| line(i).total_cmp(&line(j)))
        .unwrap_or(0);
    let normal = cross(ab, sub(p[c], p[a]));
    let plane = |i: usize| dot(normal, sub(p[i], p[a])).abs();
    let d = (0..n)
        .max_by(|&i, &j| plane(i).total_cmp(&plane(j)))
        .unwrap_or(0);
    if line(c).sqrt() <= eps * eps.max(1.0) {
        return Vec::new();
    }
    if n < 4 || plane(d) <= eps * dot(normal, normal).sqrt() {
        return flat_hull(p, a, ab, normal, eps);
    }
    let centre: [f64; 3] = [0, 1, 2].map(|k| {
        (f64::from(p[a][k]) + f64::from(p[b][k]) + f64::from(p[c][k]) + f64::from(p[d][k])) / 4.0
    });
    let outward = |f: [usize; 3]| -> [usize; 3] {
        let nrm = cross(sub(p[f[1]], p[f[0]]), sub(p[f[2]], p[f[0]]));
        let to_c = [0, 1, 2].map(|k| centre[k] - f64::from(p[f[0]][k]));
        if dot(nrm, to_c) > 0.0 {
            [f[0], f[2], f[1]]
        } else {
            f
        }
    };
    let mut faces: Vec<[usize; 3]> = [[a, b, c], [a, b, d], [a, c, d], [b, c, d]]
        .into_iter()
        .map(outward)
        .collect();
    for i in 0..n {
        if [a, b, c, d].contains(&i) {
            continue;
        }
        let sees = |f: &[usize; 3]| {
            let nrm = cross(sub(p[f[1]], p[f[0]]), sub(p[f[2]], p[f[0]]));
            let len = dot(nrm, nrm).sqrt();
            len > 0.0 && dot(nrm, sub(p[i], p[f[0]])) > eps * len
        };
        let (visible, kept): (Vec<[usize; 3]>, Vec<[usize; 3]>) =
            faces.iter().partition(|f| sees(f));
        if visible.is_empty() {
            continue;
        }
        let edges: std::collections::HashSet<(usize, usize)> = visible
            .iter()
            .flat_map(|f| [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])])
            .collect();
        faces = kept;
        for &(u, v) in &edges {
            if !edges.contains(&(v, u)) {
                faces.push([u, v, i]);
            }
        }
    }
    faces.into_iter().map(|f| f.map(|x| x as u32)).collect()
}

/// The hull of points that lie in the plane through `p[a]` with direction `ab` and normal
/// `normal`: the convex polygon (monotone chain over the points' coordinates in the plane),
/// as a fan of triangles whose winding follows `normal`.
fn flat_hull(p: &[Vec3], a: usize, ab: [f64; 3], normal: [f64; 3], eps: f64) -> Vec<[u32; 3]> {
    let unit = |v: [f64; 3]| {
        let l = dot(v, v).sqrt();
        v.map(|x| x / l)
    };
    let (u, v) = (unit(ab), unit(cross(normal, ab)));
    let mut pts: Vec<(f64, f64, usize)> = (0..p.len())
        .map(|i| {
            let d = sub(p[i], p[a]);
            (dot(d, u), dot(d, v), i)
        })
        .collect();
    pts.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
    let turn = |o: (f64, f64, usize), a: (f64, f64, usize), b: (f64, f64, usize)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    // Lower then upper chain, counter-clockwise around `normal`; points on an edge are
    // left out.
    let mut chain: Vec<(f64, f64, usize)> = Vec::with_capacity(2 * pts.len());
    for pass in [false, true] {
        let start = chain.len();
        let order: Box<dyn Iterator<Item = &(f64, f64, usize)>> = if pass {
            Box::new(pts.iter().rev())
        } else {
            Box::new(pts.iter())
        };
        for &q in order {
            while chain.len() >= start + 2
                && turn(chain[chain.len() - 2], chain[chain.len() - 1], q) <= eps * eps
            {
                chain.pop();
            }
            chain.push(q);
        }
        chain.pop();
    }
    let ring: Vec<u32> = chain.iter().map(|q| q.2 as u32).collect();
    (1..ring.len().saturating_sub(1))
        .map(|i| [ring[0], ring[i], ring[i + 1]])
        .collect()
}

/// The `rotatedVertices` records as 12 floats each (x, y, z lanes): structs of `x`, `y`, `z`
/// in a packfile or TAG0 file, a `vec12` each in an old binary tagfile (whose definitions
/// give the member as an array of `matrix3`, docs/collision-notes.md §10.2).
fn four_vectors(r: &Rec<'_>) -> Result<Vec<[f32; 12]>> {
    match r.opt("rotatedVertices").and_then(|v| v.as_array()) {
        Some(crate::graph::Array::Mat3(v)) => return Ok(v.clone()),
        Some(crate::graph::Array::Values(v)) if v.iter().all(|x| x.as_floats().is_some()) => {
            return v
                .iter()
                .map(|x| {
                    x.as_floats()
                        .and_then(|f| f.get(..12))
                        .and_then(|f| f.try_into().ok())
                        .ok_or_else(|| r.err("rotatedVertices", "expected 12 floats a record"))
                })
                .collect();
        }
        _ => {}
    }
    r.recs("rotatedVertices")?
        .iter()
        .map(|g| {
            let mut f = [0f32; 12];
            for (k, lane) in ["x", "y", "z"].iter().enumerate() {
                f[4 * k..4 * k + 4].copy_from_slice(&g.floats(lane, 4)?[..4]);
            }
            Ok(f)
        })
        .collect()
}
