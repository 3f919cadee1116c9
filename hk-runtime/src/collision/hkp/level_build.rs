//! Building level collision: an `hkRootLevelContainer` → `hkpPhysicsData` →
//! `hkpPhysicsSystem` → `hkpRigidBody` graph from a description of bodies and shapes
//! ([`BodyDesc`], [`ShapeDesc`]), every value set by member name through the schema
//! ([`Graph::add_object`], [`Graph::set`]), so the writers lay it out for the schema's
//! generation. Triangle meshes under a MOPP tree get a code from [`crate::collision::mopp::build`].
//! What each class holds is in docs/collision-notes.md §2, §8, §10 and §14.

use std::sync::Arc;

use crate::graph::{default_value, Graph, ObjectId, Ptr, Value};
use crate::schema::{Schema, Shape};
use crate::{Error, Result};

use crate::collision::math::{Aabb, Affine, Vec3};
use crate::collision::mopp;
use crate::collision::mopp::degenerate;

/// A rotation (unit quaternion `x, y, z, w`) and a translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The rotation.
    pub rotation: [f32; 4],
    /// The translation.
    pub translation: Vec3,
}

impl Placement {
    /// No rotation, no translation.
    pub const IDENTITY: Placement = Placement {
        rotation: [0.0, 0.0, 0.0, 1.0],
        translation: [0.0; 3],
    };

    /// As an [`Affine`] (what the collision reader makes of the stored transform).
    pub fn affine(&self) -> Affine {
        let mut a = Affine::from_quaternion(self.rotation);
        a.t = self.translation;
        a
    }

    /// Havok's `transform`: three rotation columns and the translation, four lanes each.
    pub fn transform(&self) -> [f32; 16] {
        let a = self.affine();
        let mut f = [0f32; 16];
        for (i, c) in a.cols.iter().chain([&a.t]).enumerate() {
            f[4 * i..4 * i + 3].copy_from_slice(c);
        }
        f[15] = 1.0;
        f
    }
}

/// A triangle mesh: vertices, triangles and one surface id (0 to 63) a triangle.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    /// Vertices in the shape's space.
    pub vertices: Vec<Vec3>,
    /// Triangles (vertex indices).
    pub triangles: Vec<[u16; 3]>,
    /// One surface id a triangle.
    pub surfaces: Vec<u8>,
}

/// A shape to build.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ShapeDesc {
    /// `hkpBoxShape`.
    Box {
        /// Half extents.
        half: Vec3,
        /// Convex radius.
        radius: f32,
    },
    /// `hkpSphereShape` at the origin.
    Sphere {
        /// Radius.
        radius: f32,
    },
    /// `hkpCapsuleShape` from `a` to `b`.
    Capsule {
        /// First end.
        a: Vec3,
        /// Second end.
        b: Vec3,
        /// Radius.
        radius: f32,
    },
    /// `hkpCylinderShape` from `a` to `b`.
    Cylinder {
        /// First end.
        a: Vec3,
        /// Second end.
        b: Vec3,
        /// Radius.
        radius: f32,
    },
    /// `hkpConvexVerticesShape` with its planes and connectivity.
    ConvexVertices {
        /// Vertices.
        vertices: Vec<Vec3>,
        /// Faces (convex polygons, counter-clockwise seen from outside).
        faces: Vec<Vec<u16>>,
    },
    /// `hkpConvexTranslateShape` over a convex child.
    ConvexTranslate {
        /// The translation.
        translation: Vec3,
        /// The child.
        child: Box<ShapeDesc>,
    },
    /// `hkpConvexTransformShape` over a convex child.
    ConvexTransform {
        /// The transform.
        at: Placement,
        /// The child.
        child: Box<ShapeDesc>,
    },
    /// `hkpTransformShape` over any child.
    Transform {
        /// The transform.
        at: Placement,
        /// The child.
        child: Box<ShapeDesc>,
    },
    /// `hkpListShape`.
    List(Vec<ShapeDesc>),
    /// `hkpSimpleMeshShape` (the surface id is its material index).
    SimpleMesh(TriMesh),
    /// `hkpStorageExtendedMeshShape` (one triangle subpart, 16-bit indices, one material
    /// record per surface id) under an `hkpMoppBvTreeShape` with a code hk builds.
    MoppMesh(TriMesh),
}

/// A rigid body to build.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDesc {
    /// Its name.
    pub name: String,
    /// Where it is.
    pub at: Placement,
    /// Its motion type, an item name of `hkpMotion.MotionType` (`MOTION_FIXED`, ...).
    pub motion: String,
    /// Its collision filter word.
    pub filter_info: u32,
    /// Its shape.
    pub shape: ShapeDesc,
}

/// The filter word of a mesh material record for surface id `s`: the id in bits 3 to 8
/// (docs/collision-notes.md §9.3).
pub fn surface_word(s: u8) -> u32 {
    u32::from(s & 0x3F) << 3
}

/// Builds the level: a root-level container named `Physics Data` holding one physics
/// system of `bodies`.
///
/// # Errors
/// A schema without one of the classes or members used, a motion type the schema's enum
/// does not name, or a mesh whose triangles name missing vertices.
pub fn build(schema: Arc<Schema>, bodies: &[BodyDesc]) -> Result<Graph> {
    let mut b = B(Graph::new(schema));
    let root = b.add("hkRootLevelContainer")?;
    let data = b.add("hkpPhysicsData")?;
    let system = b.add("hkpPhysicsSystem")?;
    b.fill(root, "namedVariants", 1)?;
    b.set(root, "namedVariants[0].name", Value::text("Physics Data"))?;
    b.set(
        root,
        "namedVariants[0].className",
        Value::text("hkpPhysicsData"),
    )?;
    // A `variant` member (Havok 5.5) holds the object and a null class pointer.
    let variant = match b
        .0
        .resolve(b.0.object(root).class, "namedVariants[0].variant")?
    {
        (_, Shape::Variant) => Value::variant(Some(Ptr::Object(data)), None),
        _ => Value::object(data),
    };
    b.set(root, "namedVariants[0].variant", variant)?;
    b.set(data, "systems", Value::list(vec![Value::object(system)]))?;
    b.set(system, "name", Value::text("Default Physics System"))?;
    b.set(system, "active", Value::Bool(1))?;
    let mut ids = Vec::new();
    for d in bodies {
        let body = b.add("hkpRigidBody")?;
        ids.push(Value::object(body));
        let shape = b.shape(&d.shape)?;
        b.set(body, "name", Value::text(&d.name))?;
        b.set(body, "collidable.shape", Value::object(shape))?;
        b.num(body, "collidable.broadPhaseHandle.type", 1)?;
        b.num(
            body,
            "collidable.broadPhaseHandle.collisionFilterInfo",
            i64::from(d.filter_info),
        )?;
        let motion = item(b.0.schema(), "hkpMotion", "MotionType", &d.motion)?;
        b.num(body, "motion.type", motion)?;
        b.set(
            body,
            "motion.motionState.transform",
            Value::floats(&d.at.transform()),
        )?;
    }
    b.set(system, "rigidBodies", Value::list(ids))?;
    Ok(b.0)
}

/// The graph under construction.
struct B(Graph);

impl B {
    /// Adds an object of `class`, or of its nested spelling (`Outer::Inner` for
    /// `OuterInner`) when the schema names it so (the 2015 tagfile schema does).
    fn add(&mut self, class: &str) -> Result<ObjectId> {
        if self.0.schema().class(class).is_none() {
            for (i, _) in class.match_indices(char::is_uppercase).skip(1) {
                let nested = format!("{}::{}", &class[..i], &class[i..]);
                if self.0.schema().class(&nested).is_some() {
                    return self.0.add_object(&nested);
                }
            }
        }
        self.0.add_object(class)
    }

    fn set(&mut self, id: ObjectId, path: &str, v: Value) -> Result<()> {
        self.0.set(id, path, v)
    }

    /// An integer member, signed or unsigned as the member is.
    fn num(&mut self, id: ObjectId, path: &str, v: i64) -> Result<()> {
        let class = self.0.object(id).class;
        let (_, shape) = self.0.resolve(class, path)?;
        let signed = matches!(shape, Shape::Int { signed: true, .. });
        let value = if signed {
            Value::Int(v)
        } else {
            Value::UInt(v as u64)
        };
        self.set(id, path, value)
    }

    /// Whether the object's class has member path `path` (members some generations lack).
    fn has(&self, id: ObjectId, path: &str) -> bool {
        self.0.resolve(self.0.object(id).class, path).is_ok()
    }

    /// Sets the array at `path` to `n` zero elements.
    fn fill(&mut self, id: ObjectId, path: &str, n: usize) -> Result<()> {
        let class = self.0.object(id).class;
        let (_, shape) = self.0.resolve(class, path)?;
        let Shape::Array(_, elem) = shape else {
            return Err(Error::write(crate::error::WriteError::NotArray(
                path.to_string(),
            )));
        };
        let zero = default_value(self.0.schema(), &elem)?;
        self.set(id, path, Value::list(vec![zero; n]))
    }

    fn v4(&mut self, id: ObjectId, path: &str, v: Vec3, w: f32) -> Result<()> {
        self.set(id, path, Value::floats(&[v[0], v[1], v[2], w]))
    }

    /// An `hkpSingleShapeContainer` member `path` pointing at `child`.
    fn child(&mut self, id: ObjectId, path: &str, child: &ShapeDesc) -> Result<()> {
        let c = self.shape(child)?;
        self.set(id, &format!("{path}.childShape"), Value::object(c))
    }

    /// The objects of shape `d`; returns its root.
    fn shape(&mut self, d: &ShapeDesc) -> Result<ObjectId> {
        Ok(match d {
            ShapeDesc::Box { half, radius } => {
                let s = self.add("hkpBoxShape")?;
                self.set(s, "radius", Value::Real(*radius))?;
                self.v4(s, "halfExtents", *half, 0.0)?;
                s
            }
            ShapeDesc::Sphere { radius } => {
                let s = self.add("hkpSphereShape")?;
                self.set(s, "radius", Value::Real(*radius))?;
                s
            }
            ShapeDesc::Capsule { a, b, radius } | ShapeDesc::Cylinder { a, b, radius } => {
                let cyl = matches!(d, ShapeDesc::Cylinder { .. });
                let s = self.add(if cyl {
                    "hkpCylinderShape"
                } else {
                    "hkpCapsuleShape"
                })?;
                self.v4(s, "vertexA", *a, 0.0)?;
                self.v4(s, "vertexB", *b, 0.0)?;
                if cyl {
                    // The convex radius is 0 so that `cylRadius` is the whole radius.
                    self.set(s, "cylRadius", Value::Real(*radius))?;
                } else {
                    self.set(s, "radius", Value::Real(*radius))?;
                }
                s
            }
            ShapeDesc::ConvexVertices { vertices, faces } => self.convex(vertices, faces)?,
            ShapeDesc::ConvexTranslate { translation, child } => {
                let s = self.add("hkpConvexTranslateShape")?;
                self.child(s, "childShape", child)?;
                self.v4(s, "translation", *translation, 0.0)?;
                s
            }
            ShapeDesc::ConvexTransform { at, child } => {
                let s = self.add("hkpConvexTransformShape")?;
                self.child(s, "childShape", child)?;
                self.set(s, "transform", Value::floats(&at.transform()))?;
                s
            }
            ShapeDesc::Transform { at, child } => {
                let s = self.add("hkpTransformShape")?;
                self.child(s, "childShape", child)?;
                self.set(s, "rotation", Value::floats(&at.rotation))?;
                self.set(s, "transform", Value::floats(&at.transform()))?;
                s
            }
            ShapeDesc::List(children) => {
                let s = self.add("hkpListShape")?;
                self.fill(s, "childInfo", children.len())?;
                for (i, c) in children.iter().enumerate() {
                    let c = self.shape(c)?;
                    self.set(s, &format!("childInfo[{i}].shape"), Value::object(c))?;
                }
                let on = (0..8)
                    .map(|w| {
                        let bits = children.len().saturating_sub(32 * w).min(32);
                        Value::UInt(
                            if bits == 32 {
                                u32::MAX
                            } else {
                                (1u32 << bits) - 1
                            }
                            .into(),
                        )
                    })
                    .collect();
                self.set(s, "enabledChildren", Value::CArray(on))?;
                s
            }
            ShapeDesc::SimpleMesh(m) => self.simple(m)?,
            ShapeDesc::MoppMesh(m) => self.mopp_mesh(m)?,
        })
    }

    fn convex(&mut self, vertices: &[Vec3], faces: &[Vec<u16>]) -> Result<ObjectId> {
        let s = self.add("hkpConvexVerticesShape")?;
        let aabb = Aabb::of(vertices.iter().copied())
            .ok_or_else(|| Error::invalid_write("a convex vertices shape with no vertices"))?;
        let (c, h) = centre_half(&aabb);
        self.v4(s, "aabbCenter", c, 0.0)?;
        self.v4(s, "aabbHalfExtents", h, 0.0)?;
        // Four vertices a record, x, y and z lanes; the last record repeats its last vertex.
        let groups = vertices.len().div_ceil(4);
        self.fill(s, "rotatedVertices", groups)?;
        for g in 0..groups {
            let lane = |j: usize| vertices[(4 * g + j).min(vertices.len() - 1)];
            for (axis, name) in ["x", "y", "z"].iter().enumerate() {
                let v = [0, 1, 2, 3].map(|j| lane(j)[axis]);
                self.set(
                    s,
                    &format!("rotatedVertices[{g}].{name}"),
                    Value::floats(&v),
                )?;
            }
        }
        self.num(s, "numVertices", vertices.len() as i64)?;
        let mut planes = Vec::with_capacity(faces.len());
        for f in faces {
            let p = |k: usize| -> Result<Vec3> {
                f.get(k)
                    .and_then(|&i| vertices.get(usize::from(i)).copied())
                    .ok_or_else(|| Error::invalid_write("a convex face names a missing vertex"))
            };
            let (a, b, c) = (p(0)?, p(1)?, p(2)?);
            let n = normalize(cross(sub(b, a), sub(c, a)));
            planes.push(Value::floats(&[n[0], n[1], n[2], -dot(n, a)]));
        }
        self.set(s, "planeEquations", Value::list(planes))?;
        let conn = self.add("hkpConvexVerticesConnectivity")?;
        let idx = faces
            .iter()
            .flatten()
            .map(|&i| Value::UInt(i.into()))
            .collect();
        let per = faces.iter().map(|f| Value::UInt(f.len() as u64)).collect();
        self.set(conn, "vertexIndices", Value::list(idx))?;
        self.set(conn, "numVerticesPerFace", Value::list(per))?;
        self.set(s, "connectivity", Value::object(conn))?;
        Ok(s)
    }

    fn simple(&mut self, m: &TriMesh) -> Result<ObjectId> {
        check_mesh(m)?;
        let s = self.add("hkpSimpleMeshShape")?;
        let collection = item(
            self.0.schema(),
            "hkpShapeCollection",
            "CollectionType",
            "COLLECTION_SIMPLE_MESH",
        )?;
        self.num(s, "collectionType", collection)?;
        let verts = m
            .vertices
            .iter()
            .map(|&v| Value::floats(&[v[0], v[1], v[2], 0.0]));
        self.set(s, "vertices", Value::list(verts.collect()))?;
        self.fill(s, "triangles", m.triangles.len())?;
        for (k, t) in m.triangles.iter().enumerate() {
            for (n, v) in ["a", "b", "c"].iter().zip(t) {
                self.num(s, &format!("triangles[{k}].{n}"), i64::from(*v))?;
            }
        }
        let mats = m.surfaces.iter().map(|&x| Value::UInt(x.into())).collect();
        self.set(s, "materialIndices", Value::list(mats))?;
        let none = item(
            self.0.schema(),
            "hkpWeldingUtility",
            "WeldingType",
            "WELDING_TYPE_NONE",
        )?;
        self.num(s, "weldingType", none)?;
        Ok(s)
    }

    /// A storage extended mesh of one 16-bit triangle subpart under a MOPP tree.
    fn mopp_mesh(&mut self, m: &TriMesh) -> Result<ObjectId> {
        check_mesh(m)?;
        // Keys are `subpart << 20 | triangle` with 12 subpart bits.
        if m.triangles.len() > 1 << 20 {
            return Err(Error::invalid_write(format!(
                "{} triangles: a subpart's keys hold at most 2^20",
                m.triangles.len()
            )));
        }
        let schema = Arc::clone(self.0.schema());
        let it = |class: &str, e: &str, name: &str| item(&schema, class, e, name);
        let ems = "hkpExtendedMeshShape";
        let tree = self.add("hkpMoppBvTreeShape")?;
        let code = self.add("hkpMoppCode")?;
        let mesh = self.add("hkpStorageExtendedMeshShape")?;
        let storage = self.add("hkpStorageExtendedMeshShapeMeshSubpartStorage")?;
        // Materials: one record per distinct surface id, in order of first use.
        let mut surfaces: Vec<u8> = Vec::new();
        let mut mat_index = Vec::with_capacity(m.surfaces.len());
        for &s in &m.surfaces {
            let i = match surfaces.iter().position(|&x| x == s) {
                Some(i) => i,
                None => {
                    surfaces.push(s);
                    surfaces.len() - 1
                }
            };
            mat_index.push(Value::UInt(i as u64));
        }
        let verts = m
            .vertices
            .iter()
            .map(|&v| Value::floats(&[v[0], v[1], v[2], 0.0]));
        self.set(storage, "vertices", Value::list(verts.collect()))?;
        // v0, v1, v2 and a zero a triangle (docs/collision-notes.md §9.1).
        let idx = m
            .triangles
            .iter()
            .flat_map(|t| [t[0], t[1], t[2], 0])
            .map(|i| Value::UInt(i.into()))
            .collect();
        self.set(storage, "indices16", Value::list(idx))?;
        if material_records(&self.0, storage) {
            self.materials(storage, mat_index, &surfaces)?;
        }
        let aabb = Aabb::of(m.vertices.iter().copied())
            .ok_or_else(|| Error::invalid_write("a mesh with no vertices"))?;
        let (c, h) = centre_half(&aabb);
        let n = m.triangles.len() as i64;
        let kept = m
            .triangles
            .iter()
            .filter(|t| {
                let [a, b, c] = t.map(|i| m.vertices[usize::from(i)]);
                !degenerate(a, b, c)
            })
            .count();
        // Havok 5.5 has no collection type.
        if self.has(mesh, "collectionType") {
            let collection = it(
                "hkpShapeCollection",
                "CollectionType",
                "COLLECTION_EXTENDED_MESH",
            )?;
            self.num(mesh, "collectionType", collection)?;
        }
        if self.has(mesh, "scaling") {
            self.v4(mesh, "scaling", [1.0; 3], 0.0)?;
        }
        self.v4(mesh, "aabbCenter", c, 0.0)?;
        self.v4(mesh, "aabbHalfExtents", h, 0.0)?;
        self.num(mesh, "numBitsForSubpartIndex", 12)?;
        let welding = it("hkpWeldingUtility", "WeldingType", "WELDING_TYPE_NONE")?;
        self.num(mesh, "weldingType", welding)?;
        if self.has(mesh, "cachedNumChildShapes") {
            self.num(mesh, "cachedNumChildShapes", kept as i64)?;
        }
        self.fill(mesh, "trianglesSubparts", 1)?;
        let fields: [(&str, i64); 10] = [
            ("type", it(ems, "SubpartType", "SUBPART_TRIANGLES")?),
            (
                "materialIndexStridingType",
                it(ems, "MaterialIndexStridingType", "MATERIAL_INDICES_INT16")?,
            ),
            ("materialIndexStriding", 2),
            ("numMaterials", surfaces.len() as i64),
            ("numTriangleShapes", n),
            ("vertexStriding", 16),
            ("numVertices", m.vertices.len() as i64),
            ("indexStriding", 8),
            (
                "stridingType",
                it(ems, "IndexStridingType", "INDICES_INT16")?,
            ),
            ("flipAlternateTriangles", 0),
        ];
        // The shape embeds a copy of subpart 0 (docs/collision-notes.md §2).
        for prefix in ["trianglesSubparts[0]", "embeddedTrianglesSubpart"] {
            if !self.has(mesh, prefix) {
                continue;
            }
            for (name, v) in fields {
                let path = format!("{prefix}.{name}");
                if self.has(mesh, &path) {
                    self.num(mesh, &path, v)?;
                }
            }
            // The 2015 subpart packs its type (bit 0) and material index striding type
            // (from bit 1) into one word (docs/collision-notes.md §9.2).
            let packed = format!("{prefix}.typeAndFlags");
            if self.has(mesh, &packed) {
                self.num(mesh, &packed, fields[0].1 | fields[1].1 << 1)?;
            }
            // From 2010.2 on a subpart has its own transform (docs/collision-notes.md
            // §9.2): the identity, as translation, rotation and scale.
            let tf = format!("{prefix}.transform");
            if self.has(mesh, &tf) {
                let identity = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0];
                if self.has(mesh, &format!("{tf}.scale")) {
                    // A struct of three vectors (the 2015 tagfile schema).
                    for (k, part) in ["translation", "rotation", "scale"].iter().enumerate() {
                        let v = Value::floats(&identity[4 * k..4 * k + 4]);
                        self.set(mesh, &format!("{tf}.{part}"), v)?;
                    }
                } else {
                    self.set(mesh, &tf, Value::floats(&identity))?;
                }
            }
        }
        self.set(
            mesh,
            "meshstorage",
            Value::list(vec![Value::object(storage)]),
        )?;
        // Subpart 0: a triangle's key is its index.
        let tris: Vec<(u32, [Vec3; 3])> = m
            .triangles
            .iter()
            .enumerate()
            .map(|(k, t)| (k as u32, t.map(|i| m.vertices[usize::from(i)])))
            .collect();
        let built = mopp::build::build(&tris)
            .ok_or_else(|| Error::invalid_write("a MOPP mesh with no usable triangle"))?;
        let o = built.offset;
        self.set(
            code,
            "info.offset",
            Value::floats(&[o[0], o[1], o[2], built.scale]),
        )?;
        let bytes = built.bytes.iter().map(|&x| Value::UInt(x.into())).collect();
        self.set(code, "data", Value::list(bytes))?;
        // As every corpus code stores it (docs/mopp.md §1).
        let build_type = it("hkpMoppCode", "BuildType", "BUILT_WITH_CHUNK_SUBDIVISION")?;
        self.num(code, "buildType", build_type)?;
        self.set(tree, "code", Value::object(code))?;
        self.set(tree, "child.childShape", Value::object(mesh))?;
        Ok(tree)
    }
}

impl B {
    /// The storage's per-triangle material indices and one material record per surface id.
    fn materials(&mut self, storage: ObjectId, index: Vec<Value>, surfaces: &[u8]) -> Result<()> {
        self.set(storage, "materialIndices16", Value::list(index))?;
        self.fill(storage, "materials", surfaces.len())?;
        for (i, &s) in surfaces.iter().enumerate() {
            self.num(
                storage,
                &format!("materials[{i}].filterInfo"),
                surface_word(s).into(),
            )?;
            // 1.0 and 0.5 as `half`s (the top 16 bits of the f32).
            self.set(
                storage,
                &format!("materials[{i}].friction"),
                Value::Half(0x3F80),
            )?;
            self.set(
                storage,
                &format!("materials[{i}].restitution"),
                Value::Half(0x3F00),
            )?;
        }
        Ok(())
    }
}

/// Whether the storage's `materials` are records with a filter word (Havok 5.5 stores
/// plain words there, which hk does not read: its meshes get no material records).
fn material_records(g: &Graph, storage: ObjectId) -> bool {
    matches!(
        g.resolve(g.object(storage).class, "materials"),
        Ok((_, Shape::Array(_, e))) if matches!(*e, Shape::Struct(_))
    )
}

fn check_mesh(m: &TriMesh) -> Result<()> {
    if m.surfaces.len() != m.triangles.len() {
        return Err(Error::invalid_write(format!(
            "{} triangles but {} surface ids",
            m.triangles.len(),
            m.surfaces.len()
        )));
    }
    let n = m.vertices.len();
    if let Some(t) = m
        .triangles
        .iter()
        .find(|t| t.iter().any(|&i| usize::from(i) >= n))
    {
        return Err(Error::invalid_write(format!(
            "triangle {t:?} names a vertex past the {n} vertices"
        )));
    }
    Ok(())
}

fn centre_half(b: &Aabb) -> (Vec3, Vec3) {
    let c = [0, 1, 2].map(|i| (b.min[i] + b.max[i]) / 2.0);
    let h = [0, 1, 2].map(|i| (b.max[i] - b.min[i]) / 2.0);
    (c, h)
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

fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize(a: Vec3) -> Vec3 {
    let l = dot(a, a).sqrt();
    if l > 0.0 {
        a.map(|x| x / l)
    } else {
        a
    }
}

/// The value of item `name` of enum `class.e` in the schema.
fn item(schema: &Schema, class: &str, e: &str, name: &str) -> Result<i64> {
    schema
        .class(class)
        .and_then(|c| c.enums.iter().find(|x| x.name == e))
        .and_then(|x| x.items.iter().find(|i| i.name == name))
        .map(|i| i64::from(i.value))
        .ok_or_else(|| {
            Error::schema(format!(
                "{} has no {class}.{e}.{name}",
                schema.generation.name
            ))
        })
}
