//! The shape tree walk: containers (MOPP trees, lists, transform and translate shapes)
//! pass their transform down; leaves become [`Mesh`]es. Primitive shapes (box, sphere,
//! capsule, cylinder) are tessellated here (docs/collision-notes.md §10).

use std::collections::HashMap;

use crate::graph::{Graph, ObjectId};

use super::hknp::{compressed, triangles};
use super::hkp::{bvmesh, compound, convex, mesh};
use super::math::{Aabb, Affine, Vec3};
use super::{CollisionError, Mesh, Result, ShapeKind, Triangle};
use crate::collision::access::{objects, Rec};
use crate::collision::mopp::Code;

/// How deep shape containers may nest (a pointer cycle in a hostile file ends here).
const MAX_DEPTH: u32 = 64;

/// Segments around a round primitive (sphere, capsule, cylinder).
const SEGMENTS: usize = 12;

/// The classes the walk knows, most specific first within each family; an object is read
/// as the first of these on its parent chain (itself first).
const KINDS: &[&str] = &[
    "hkpMoppBvTreeShape",
    "hkpStorageExtendedMeshShape",
    "hkpExtendedMeshShape",
    "hkpSimpleMeshShape",
    "hkpConvexVerticesShape",
    "hkpBoxShape",
    "hkpSphereShape",
    "hkpCapsuleShape",
    "hkpCylinderShape",
    "hkpConvexTranslateShape",
    "hkpConvexTransformShape",
    "hkpTransformShape",
    "hkpListShape",
    "hkpStaticCompoundShape",
    "hkpBvCompressedMeshShape",
    "hknpConvexPolytopeShape",
    "hknpCompressedMeshShape",
    "hknpCompoundShape",
    "hknpMeshShape",
];

/// Walks shape trees, collecting the MOPP codes it meets.
#[derive(Debug)]
pub(crate) struct Walker<'g> {
    graph: &'g Graph,
    codes: Vec<Code>,
    code_of: HashMap<ObjectId, usize>,
}

impl<'g> Walker<'g> {
    pub(crate) fn new(graph: &'g Graph) -> Walker<'g> {
        Walker {
            graph,
            codes: Vec::new(),
            code_of: HashMap::new(),
        }
    }

    pub(crate) fn into_codes(self) -> Vec<Code> {
        self.codes
    }

    /// Whether object `id` is of a shape class the walk reads.
    pub(crate) fn knows(&self, id: ObjectId) -> bool {
        Rec::object(self.graph, id).is_ok_and(|r| r.kind_among(KINDS).is_some())
    }

    fn code(&mut self, id: ObjectId) -> Result<usize> {
        if let Some(&i) = self.code_of.get(&id) {
            return Ok(i);
        }
        let code = Code::read(self.graph, id)?;
        self.codes.push(code);
        self.code_of.insert(id, self.codes.len() - 1);
        Ok(self.codes.len() - 1)
    }

    /// Adds the meshes of shape `id` (placed by `to_body`, under MOPP code `code`).
    pub(crate) fn walk(
        &mut self,
        id: ObjectId,
        at: Place,
        depth: u32,
        out: &mut Vec<Mesh>,
    ) -> Result<()> {
        let r = Rec::object(self.graph, id)?;
        if depth > MAX_DEPTH {
            return Err(CollisionError::shape(
                r.label(),
                "",
                format!("shape containers nest deeper than {MAX_DEPTH} levels"),
            ));
        }
        let Some(kind) = r.kind_among(KINDS) else {
            return Err(CollisionError::shape(
                r.label(),
                "",
                "not a shape class hk reads (see docs/collision.md)",
            ));
        };
        let child = |r: &Rec<'_>| -> Result<Option<ObjectId>> {
            match r.rec("childShape") {
                Ok(c) => c.ptr("childShape"),
                Err(_) => r.ptr("childShape"),
            }
        };
        match kind {
            "hkpMoppBvTreeShape" => {
                let inner = match r.ptr("code")? {
                    Some(c) => Place {
                        to_body: at.to_body,
                        code: Some(self.code(c)?),
                        to_code: Affine::IDENTITY,
                    },
                    None => at,
                };
                let ch = r.rec("child")?.ptr("childShape")?;
                if let Some(ch) = ch {
                    self.walk(ch, inner, depth + 1, out)?;
                }
            }
            "hkpStorageExtendedMeshShape" | "hkpExtendedMeshShape" => {
                for m in mesh::extended(&r)? {
                    out.push(at.place(m));
                }
            }
            "hkpSimpleMeshShape" => out.push(at.place(mesh::simple(&r)?)),
            "hkpConvexVerticesShape" => out.push(at.place(convex::read(&r)?)),
            "hkpBoxShape" => out.push(at.place(boxed(&r)?)),
            "hkpSphereShape" => {
                let m = sphere(&r, r.real("radius")?, [0.0; 3], [0.0; 3], ShapeKind::Sphere);
                out.push(at.place(m));
            }
            "hkpCapsuleShape" => {
                let (a, b) = (r.vec3("vertexA")?, r.vec3("vertexB")?);
                let m = sphere(&r, r.real("radius")?, a, b, ShapeKind::Capsule);
                out.push(at.place(m));
            }
            "hkpCylinderShape" => out.push(at.place(cylinder(&r)?)),
            "hkpConvexTranslateShape" => {
                let t = Affine::translation(r.vec3("translation")?);
                if let Some(ch) = child(&r)? {
                    self.walk(ch, at.then(&t), depth + 1, out)?;
                }
            }
            "hkpConvexTransformShape" | "hkpTransformShape" => {
                let f = r.get("transform")?;
                let f = f.as_floats().unwrap_or(&[]);
                let t = if f.len() >= 16 {
                    Affine::from_transform(f)
                } else {
                    Affine::from_qs(f)
                }
                .ok_or_else(|| r.err("transform", "expected a transform or qstransform"))?;
                if let Some(ch) = child(&r)? {
                    self.walk(ch, at.then(&t), depth + 1, out)?;
                }
            }
            "hkpListShape" => {
                let children = r.recs("childInfo")?;
                for (i, c) in children.iter().enumerate() {
                    let Some(ch) = c.ptr("shape")? else { continue };
                    let start = out.len();
                    self.walk(ch, at, depth + 1, out)?;
                    // A list's shape key is the child's index.
                    for m in &mut out[start..] {
                        for t in &mut m.triangles {
                            t.key = i as u32;
                        }
                    }
                }
            }
            "hkpStaticCompoundShape" => {
                let c = compound::decode_rec(&r)?;
                for (i, inst) in c.instances.iter().enumerate() {
                    let Some(ch) = inst.shape else { continue };
                    let start = out.len();
                    self.walk(ch, at.then(&inst.transform), depth + 1, out)?;
                    compound::rekey(&mut out[start..], i, c.child_key_bits);
                }
            }
            "hkpBvCompressedMeshShape" => out.push(at.place(bvmesh::read(&r)?)),
            "hknpConvexPolytopeShape" => out.push(at.place(triangles::polytope(&r)?)),
            "hknpCompressedMeshShape" => out.push(at.place(compressed::read(&r)?)),
            "hknpCompoundShape" => {
                for inst in triangles::compound(&r)? {
                    let start = out.len();
                    self.walk(inst.shape, at.then(&inst.to_parent), depth + 1, out)?;
                    // A compound's shape key is the instance's index (as a list's), and
                    // its meshes are named `…@index`, as a static compound's.
                    for m in &mut out[start..] {
                        m.name = format!("{}@{}", m.name, inst.index);
                        m.triangles
                            .iter_mut()
                            .for_each(|t| t.key = inst.index as u32);
                    }
                }
            }
            "hknpMeshShape" => {
                for m in crate::collision::hknp::mesh_shape::read(&r)? {
                    out.push(at.place(m));
                }
            }
            _ => unreachable!("KINDS lists every arm"),
        }
        Ok(())
    }
}

/// Where the walk is: the transform to the body, and the MOPP code above with the
/// transform into its space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    pub(crate) to_body: Affine,
    pub(crate) code: Option<usize>,
    pub(crate) to_code: Affine,
}

impl Place {
    /// The top of a body's shape tree.
    pub(crate) const BODY: Place = Place {
        to_body: Affine::IDENTITY,
        code: None,
        to_code: Affine::IDENTITY,
    };

    /// One transform further down.
    fn then(&self, t: &Affine) -> Place {
        Place {
            to_body: self.to_body.then_inner(t),
            code: self.code,
            to_code: self.to_code.then_inner(t),
        }
    }

    /// `m` (with its own transform in `to_body`) placed here.
    fn place(&self, mut m: Mesh) -> Mesh {
        m.to_code = self.to_code.then_inner(&m.to_body);
        m.to_body = self.to_body.then_inner(&m.to_body);
        m.code = self.code;
        m
    }
}

/// An empty mesh of shape `r`.
pub(crate) fn blank(r: &Rec<'_>, kind: ShapeKind) -> Mesh {
    Mesh {
        name: format!("{}#{}", r.class_name(), r.id().0),
        object: r.id(),
        kind,
        to_body: Affine::IDENTITY,
        vertices: Vec::new(),
        triangles: Vec::new(),
        stored_aabb: None,
        declared_triangles: None,
        code: None,
        to_code: Affine::IDENTITY,
    }
}

/// A triangle with no material.
pub(crate) fn plain(v: [u32; 3], key: u32) -> Triangle {
    Triangle {
        v,
        key,
        material: None,
        surface: None,
        welding: None,
    }
}

/// A box: its half extents grown by the convex radius.
fn boxed(r: &Rec<'_>) -> Result<Mesh> {
    let h = r.vec3("halfExtents")?;
    let rad = r.real("radius").unwrap_or(0.0);
    let h = h.map(|x| x + rad);
    let mut m = blank(r, ShapeKind::Box);
    for i in 0..8u32 {
        m.vertices
            .push([0, 1, 2].map(|a| if i >> a & 1 == 1 { h[a] } else { -h[a] }));
    }
    // Two triangles a face, outward (counter-clockwise seen from outside).
    const FACES: [[u32; 4]; 6] = [
        [0, 2, 6, 4],
        [1, 5, 7, 3],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 6, 7, 5],
    ];
    for f in FACES {
        m.triangles.push(plain([f[0], f[1], f[2]], 0));
        m.triangles.push(plain([f[0], f[2], f[3]], 0));
    }
    m.stored_aabb = Some(Aabb::centered([0.0; 3], h));
    Ok(m)
}

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: Vec3) -> Vec3 {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    if l > 0.0 {
        a.map(|x| x / l)
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Two unit vectors perpendicular to `axis` and to each other.
fn basis(axis: Vec3) -> (Vec3, Vec3) {
    let a = norm(axis);
    let helper = if a[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let u = norm(cross(a, helper));
    (u, cross(a, u))
}

/// A sphere of `radius` around `a` (when `a == b`), or a capsule from `a` to `b`: rings of
/// latitude, the upper half around `b` and the lower around `a`.
fn sphere(r: &Rec<'_>, radius: f32, a: Vec3, b: Vec3, kind: ShapeKind) -> Mesh {
    let mut m = blank(r, kind);
    let axis = if a == b {
        [0.0, 0.0, 1.0]
    } else {
        norm(sub(b, a))
    };
    let (u, v) = basis(axis);
    let rings = SEGMENTS / 2;
    // Ring k from the bottom pole (k = 0) to the top (k = rings), SEGMENTS points each.
    let mut ring_start = Vec::new();
    for k in 0..=rings {
        let phi = std::f32::consts::PI * (k as f32 / rings as f32) - std::f32::consts::FRAC_PI_2;
        let centre = if k * 2 < rings { a } else { b };
        ring_start.push(m.vertices.len() as u32);
        for s in 0..SEGMENTS {
            let th = std::f32::consts::TAU * s as f32 / SEGMENTS as f32;
            let (c, sn) = (th.cos() * phi.cos(), th.sin() * phi.cos());
            let z = phi.sin();
            m.vertices
                .push([0, 1, 2].map(|i| centre[i] + radius * (c * u[i] + sn * v[i] + z * axis[i])));
        }
    }
    for k in 0..rings {
        for s in 0..SEGMENTS as u32 {
            let n = (s + 1) % SEGMENTS as u32;
            let (lo, hi) = (ring_start[k], ring_start[k + 1]);
            m.triangles.push(plain([lo + s, lo + n, hi + n], 0));
            m.triangles.push(plain([lo + s, hi + n, hi + s], 0));
        }
    }
    m
}

/// A cylinder from `vertexA` to `vertexB` of `cylRadius`, capped.
fn cylinder(r: &Rec<'_>) -> Result<Mesh> {
    let (a, b) = (r.vec3("vertexA")?, r.vec3("vertexB")?);
    let radius = r.real("cylRadius")? + r.real("radius").unwrap_or(0.0);
    let mut m = blank(r, ShapeKind::Cylinder);
    let (u, v) = basis(sub(b, a));
    for centre in [a, b] {
        for s in 0..SEGMENTS {
            let th = std::f32::consts::TAU * s as f32 / SEGMENTS as f32;
            let (c, sn) = (th.cos(), th.sin());
            m.vertices
                .push([0, 1, 2].map(|i| centre[i] + radius * (c * u[i] + sn * v[i])));
        }
    }
    let n = SEGMENTS as u32;
    for s in 0..n {
        let t = (s + 1) % n;
        m.triangles.push(plain([s, t, n + t], 0));
        m.triangles.push(plain([s, n + t, n + s], 0));
    }
    for s in 1..n - 1 {
        m.triangles.push(plain([0, s + 1, s], 0));
        m.triangles.push(plain([n, n + s, n + s + 1], 0));
    }
    Ok(m)
}

/// The objects of a pointer array member, failing on a member that is not one.
pub(crate) fn pointer_list(r: &Rec<'_>, name: &str) -> Result<Vec<Option<ObjectId>>> {
    Ok(objects(r.array(name)?))
}
