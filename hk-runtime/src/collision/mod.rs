//! Level collision as geometry (layer 5, above the graph and the containers, like `dump`
//! and `diff`): the rigid bodies of an `hkpPhysicsData` graph, their shapes as triangles in
//! one small model ([`Body`], [`Mesh`], [`Triangle`]), MOPP trees ([`mopp`]) and OBJ export
//! ([`export`]).
//!
//! Everything is read through the schema by member name (the private `access` module), never by offset, so
//! the generations hk reads (Havok 5.5 to 2014 packfiles, and the 2015 tagfile of Dark
//! Souls Remastered) go through the same code; a game's subclass of an `hkp` shape is read
//! as the Havok class it derives from. The facts this rests on are in
//! docs/collision-notes.md (§8 to §10) and docs/mopp.md.
//!
//! | module | holds |
//! |---|---|
//! | [`math`] | transforms and boxes |
//! | `access` | members by name through the schema, the one way the readers look at data |
//! | `body` | rigid bodies: placement, motion type, filter word |
//! | `shapes` | the shape tree walk and the primitive shapes (box, sphere, capsule, cylinder) |
//! | [`hkp`] | Havok 5.5 to 2014 shapes: extended, storage and simple meshes, convex vertices, compressed meshes and static compounds (decoded and built), their packed numbers, level collision built from bodies and shapes |
//! | [`hknp`] | Havok 2016 and later shapes: polytopes, compressed meshes and compounds of id Tech `cm` files (docs/collision-notes.md §12), the 2023.2 `hknpMeshShape` of phive `.bphsh` files (§13): decoded, checked and built |
//! | [`mopp`] | MOPP codes: the interpreter, the degenerate-triangle rule, an encoder, and the check of a code against its triangles |
//! | [`check`] | the check of every stored tree (MOPP, static, dynamic and mesh-shape trees) against what it indexes |
//! | [`export`] | Wavefront OBJ output |
//! | [`input`] | meshes to import: named objects of world-space triangles with their surfaces |
//! | [`import`] | a file's collision geometry replaced by such meshes, matched by name |

mod access;
mod body;
pub mod check;
pub mod export;
pub mod hknp;
pub mod hkp;
pub mod import;
pub mod input;
pub mod math;
pub mod mopp;
mod shapes;

use crate::graph::{Graph, ObjectId};

pub use math::{Aabb, Affine, Vec3};

/// What went wrong reading collision, boxed in [`Result`]; one kind of the crate's
/// [`crate::Error`], into which it converts.
pub use crate::error::CollisionError;

/// Result of the collision readers.
pub type Result<T> = std::result::Result<T, Box<CollisionError>>;

/// What a [`Mesh`] was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeKind {
    /// A triangle subpart of an extended mesh (storage or not, game subclasses included).
    ExtendedMesh,
    /// An `hkpSimpleMeshShape`.
    SimpleMesh,
    /// An `hkpConvexVerticesShape`.
    ConvexVertices,
    /// An `hkpBoxShape` (tessellated).
    Box,
    /// An `hkpSphereShape` (tessellated).
    Sphere,
    /// An `hkpCapsuleShape` (tessellated).
    Capsule,
    /// An `hkpCylinderShape` (tessellated).
    Cylinder,
    /// An `hkpBvCompressedMeshShape` (docs/collision-notes.md §11).
    BvCompressedMesh,
    /// An `hknpConvexPolytopeShape` (Havok 2016; faces fanned into triangles).
    ConvexPolytope,
    /// An `hknpCompressedMeshShape` (Havok 2016; sections of packed primitives).
    CompressedMesh,
    /// A geometry section of a Havok 2023.2 `hknpMeshShape` ([`hknp::mesh_shape`]).
    MeshShape,
}

impl ShapeKind {
    /// The members of the shape's class its triangles come from (what a warning about a
    /// shape that gives none names).
    pub fn members(self) -> &'static str {
        match self {
            ShapeKind::ExtendedMesh => "trianglesSubparts",
            ShapeKind::SimpleMesh => "vertices, triangles",
            ShapeKind::ConvexVertices => "rotatedVertices, connectivity",
            ShapeKind::Box => "halfExtents",
            ShapeKind::Sphere => "radius",
            ShapeKind::Capsule => "vertexA, vertexB",
            ShapeKind::Cylinder => "vertexA, vertexB, cylRadius",
            ShapeKind::BvCompressedMesh => "tree",
            ShapeKind::ConvexPolytope => "vertices, faces, indices",
            ShapeKind::CompressedMesh => "data",
            ShapeKind::MeshShape => "geometrySections",
        }
    }
}

/// One triangle of a [`Mesh`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// Vertex indices into [`Mesh::vertices`].
    pub v: [u32; 3],
    /// Its shape key (`subpart << (32 - numBitsForSubpartIndex) | index` in an extended
    /// mesh; the index in a simple mesh; 0 for a tessellated primitive).
    pub key: u32,
    /// The per-triangle filter word of its material record, when the mesh has one.
    pub material: Option<u32>,
    /// Its surface id: `(word >> 3) & 0x3F` of [`Triangle::material`], else the game's
    /// per-subpart material number (docs/collision-notes.md §9.3), else `None`.
    pub surface: Option<u32>,
    /// Its welding word, when the shape stores one per triangle.
    pub welding: Option<u16>,
}

/// One shape (or one subpart of a mesh) as triangles in the shape's own space.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// A name: the shape's class and object id, and the subpart (`CustomParam…#6/1`).
    pub name: String,
    /// The object the triangles come from.
    pub object: ObjectId,
    /// What it was made from.
    pub kind: ShapeKind,
    /// From this mesh's space to its body's (every transform and translate shape between).
    pub to_body: Affine,
    /// Vertices in the mesh's space.
    pub vertices: Vec<Vec3>,
    /// Triangles.
    pub triangles: Vec<Triangle>,
    /// The box the shape stores for itself (in the mesh's space), when it stores one.
    pub stored_aabb: Option<Aabb>,
    /// The triangle count the subpart record declares (`numTriangleShapes`).
    pub declared_triangles: Option<u64>,
    /// The MOPP code (an index into [`Scene::codes`]) whose terminals are this mesh's keys.
    pub code: Option<usize>,
    /// From this mesh's space to the space of [`Mesh::code`] (the space its queries take).
    pub to_code: Affine,
}

/// A rigid body and its shapes.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Its name (`hkpWorldObject.name`), or `body#id`.
    pub name: String,
    /// Its object.
    pub object: ObjectId,
    /// From body space to world space.
    pub to_world: Affine,
    /// The stored motion type.
    pub motion_type: i64,
    /// The motion type's item name, when the schema states the enum.
    pub motion_name: Option<String>,
    /// The collidable's collision filter word.
    pub filter_info: u32,
    /// Its shapes, flattened.
    pub meshes: Vec<Mesh>,
    /// Whether this is a free shape of a file without rigid bodies, not a stored body:
    /// placed at the origin, motion type 0, filter word 0 (see [`read`]).
    pub free: bool,
}

impl Body {
    /// Mesh `m`'s vertices in world space.
    pub fn world_vertices(&self, m: &Mesh) -> Vec<Vec3> {
        let a = self.to_world.then_inner(&m.to_body);
        m.vertices.iter().map(|&p| a.apply(p)).collect()
    }
}

/// The collision of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Its bodies, in object order.
    pub bodies: Vec<Body>,
    /// Its MOPP codes.
    pub codes: Vec<mopp::Code>,
    /// The phive material and hit-mask arrays of a `.bphsh`, which a triangle's
    /// [`Triangle::surface`] (its shape tag) indexes ([`read_with`]).
    pub phive: Option<hknp::mesh_shape::Palette>,
}

impl Scene {
    /// Triangles over every body.
    pub fn triangle_count(&self) -> usize {
        self.meshes().map(|(_, m)| m.triangles.len()).sum()
    }

    /// Vertices over every body.
    pub fn vertex_count(&self) -> usize {
        self.meshes().map(|(_, m)| m.vertices.len()).sum()
    }

    /// The shapes that give no triangles (points on a line, an empty mesh), one line each
    /// naming the object, its class and the members the triangles come from:
    /// `object #6 hkpConvexVerticesShape (rotatedVertices, connectivity) of body floor:
    /// 2 vertices`. `hk export` warns with each rather than write a shape with no faces
    /// without a word.
    pub fn empty_shapes(&self, graph: &Graph) -> Vec<String> {
        self.meshes()
            .filter(|(_, m)| m.triangles.is_empty())
            .map(|(b, m)| {
                format!(
                    "object #{} {} ({}) of body {}: {} vertices",
                    m.object.0,
                    graph.class_name(m.object),
                    m.kind.members(),
                    b.name,
                    m.vertices.len()
                )
            })
            .collect()
    }

    /// Every (body, mesh) pair.
    pub fn meshes(&self) -> impl Iterator<Item = (&Body, &Mesh)> {
        self.bodies
            .iter()
            .flat_map(|b| b.meshes.iter().map(move |m| (b, m)))
    }
}

/// Reads the collision of `graph`: every object that is an `hkpRigidBody` (or derives from
/// one), in object order, with its shape tree.
///
/// A file without rigid bodies (a shape file: an id Tech `.hkshape`, a phive `.bphsh`, a
/// Project Anarchy `.hkt` mesh) gives one body per *free shape*: an object of a shape
/// class hk reads that no other such shape points to (a root-level container may), placed
/// at the origin
/// ([`Body::free`]).
///
/// # Errors
/// A body or shape whose members are missing or inconsistent (an index past its vertices,
/// a pointer to a non-shape, a shape tree deeper than 64 levels), naming the object and
/// member.
pub fn read(graph: &Graph) -> Result<Scene> {
    // The readers borrow struct values (`access::Rec`).
    let graph = &*graph.with_struct_values();
    let mut scene = Scene::default();
    let mut walker = shapes::Walker::new(graph);
    for (i, o) in graph.objects.iter().enumerate() {
        let name = graph.schema().name_of(o.class);
        if access::is_a(graph.schema(), name, "hkpRigidBody") {
            let body = body::read(graph, ObjectId(i as u32), &mut walker)?;
            scene.bodies.push(body);
        }
    }
    if scene.bodies.is_empty() {
        let pointed = access::pointees_from(graph, |id| walker.knows(id));
        for i in 0..graph.objects.len() {
            let id = ObjectId(i as u32);
            if !pointed.contains(&id) && walker.knows(id) {
                scene.bodies.push(body::free(graph, id, &mut walker)?);
            }
        }
    }
    scene.codes = walker.into_codes();
    Ok(scene)
}

/// [`read`], with the sections a phive container holds after its tagfile
/// (`tagfile::phive::Phive::extras`; empty for other files): their material and hit-mask
/// arrays become [`Scene::phive`], and every shape tag of an `hknpMeshShape` must index
/// them (docs/collision-notes.md §13).
///
/// # Errors
/// As [`read`], and a shape tag past the shorter of the two arrays, naming the mesh.
pub fn read_with(graph: &Graph, extras: &[crate::tagfile::phive::Extra]) -> Result<Scene> {
    let mut scene = read(graph)?;
    scene.phive = hknp::mesh_shape::Palette::from_extras(extras);
    if let Some(p) = &scene.phive {
        for (b, m) in scene.meshes() {
            let bad = m
                .triangles
                .iter()
                .find_map(|t| t.surface.filter(|&s| s as usize >= p.len()));
            if let (ShapeKind::MeshShape, Some(s)) = (m.kind, bad) {
                return Err(CollisionError::shape(
                    format!("#{} {}", m.object.0, graph.class_name(m.object)),
                    "hknpMeshShape.shapeTagTable",
                    format!(
                        "{}/{}: shape tag {s} past the {} phive materials and hit masks",
                        b.name,
                        m.name,
                        p.len()
                    ),
                ));
            }
        }
    }
    Ok(scene)
}

impl Scene {
    /// The phive material and hit mask of `t` (a triangle of a `.bphsh` read with
    /// [`read_with`]).
    pub fn phive_surface(&self, t: &Triangle) -> Option<hknp::mesh_shape::PhiveSurface> {
        self.phive.as_ref()?.resolve(t.surface?)
    }
}
