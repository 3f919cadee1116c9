//! `hk sample`: small files hk writes itself from schemas, for profiles that have no real
//! files to test with (and for trying hk without a corpus). Each is an object graph built
//! with [`Graph::add_object`] and [`Graph::set`] (every value checked against its member).
//! Packfile samples go through the packfile writer; tagfile samples get a type table
//! written from their schema (`tagfile::reflect`), the TAG0 writer, and their container
//! (cm or phive).

pub mod destiny;
mod doom;
pub mod level71;
mod nso;

use std::path::Path;
use std::sync::Arc;

use hk_runtime::error::WriteError;
use hk_runtime::graph::{default_value, Graph, ObjectId, Value};
use hk_runtime::packfile::PackfileInfo;
use hk_runtime::schema::Shape;
use hk_runtime::tagfile::{cm, phive::Phive, reflect};
use hk_runtime::Schema;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::outputs::Outputs;
use crate::Status;

/// The samples hk can write: `(file name, schema folder, what it holds)`.
pub const SAMPLES: &[(&str, &str, &str)] = &[
    (
        "havok-demo-710_skeleton.hkx",
        "havok-7.1",
        "an animation container with a two-bone skeleton, 32-bit big endian",
    ),
    (
        "shred_box.hkx",
        "havok-7.1",
        "one fixed rigid body with a box shape, 32-bit big endian",
    ),
    (
        "havok-710_level.hkx",
        "havok-7.1",
        "a level of eleven rigid bodies, one of every hkp shape kind, a MOPP mesh terrain",
    ),
    (
        "destiny-2012_compound.hkx",
        "havok-2012.2",
        "a static compound shape with one compressed-mesh instance",
    ),
    (
        "destiny-2012_level.hkx",
        "havok-2012.2",
        "a static compound of three instances (one scaled, one rotated) of two compressed meshes built from 812 triangles",
    ),
    (
        "nso-2023_box.bphsh",
        "havok-2023.2",
        "phive shape: an hknpMeshShape box of six quads, one material, one hit mask",
    ),
    (
        "nso-2023_level.bphsh",
        "havok-2023.2",
        "phive shape: an hknpMeshShape level (floor, ramp, box) in 4 sections, four materials",
    ),
    (
        "doom-2016_box.hkshape",
        "havok-2016",
        "id Tech cm: one surface record and a box hknpConvexPolytopeShape (TAG0 20160200)",
    ),
    (
        "doom-2016_compound.hkshape",
        "havok-2016",
        "id Tech cm: an hknpCompoundShape of two box instances (and a free element) over an hkcdDynamicTree",
    ),
    (
        "doom-2016_mesh.hkshape",
        "havok-2016",
        "id Tech cm: one surface record and an hknpCompressedMeshShape terrain of 288 triangles",
    ),
];

/// The container a tagfile sample goes in.
enum Container {
    /// An id Tech cm container with these surface records (retail record version).
    Cm(Vec<cm::SurfaceRecord>),
    /// A phive container.
    Phive(Phive),
}

/// A sample's graph under construction (the first object added is the root).
pub(crate) struct Build {
    /// The graph.
    pub(crate) g: Graph,
}

impl Build {
    pub(crate) fn new(schema: Arc<Schema>) -> Build {
        Build {
            g: Graph::new(schema),
        }
    }

    pub(crate) fn add(&mut self, class: &str) -> Result<ObjectId> {
        Ok(self.g.add_object(class)?)
    }

    fn set(&mut self, id: ObjectId, path: &str, v: Value) -> Result<()> {
        Ok(self.g.set(id, path, v)?)
    }

    /// Sets the array at `path` to `n` zero elements (struct elements are then set member
    /// by member through `path[i].member`).
    fn fill(&mut self, id: ObjectId, path: &str, n: usize) -> Result<()> {
        let class = self.g.object(id).class;
        let (_, shape) = self.g.resolve(class, path)?;
        let Shape::Array(_, elem) = shape else {
            return Err(hk_runtime::Error::write(WriteError::NotArray(path.to_string())).into());
        };
        let zero = default_value(self.g.schema(), &elem)?;
        self.set(id, path, Value::list(vec![zero; n]))
    }
}

/// Sets the root-level container `root`'s one named variant to `variant`.
pub(crate) fn named_variant(
    b: &mut Build,
    root: ObjectId,
    name: &str,
    class: &str,
    variant: ObjectId,
) -> Result<()> {
    b.fill(root, "namedVariants", 1)?;
    b.set(root, "namedVariants[0].name", Value::text(name))?;
    b.set(root, "namedVariants[0].className", Value::text(class))?;
    b.set(root, "namedVariants[0].variant", Value::object(variant))
}

/// A packfile sample's graph.
fn packfile(name: &str, schema: Arc<Schema>) -> Result<Graph> {
    let mut b = Build::new(schema);
    let identity = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    match name {
        "shred_box.hkx" => {
            let root = b.add("hkRootLevelContainer")?;
            let data = b.add("hkpPhysicsData")?;
            let system = b.add("hkpPhysicsSystem")?;
            let body = b.add("hkpRigidBody")?;
            let shape = b.add("hkpBoxShape")?;
            named_variant(&mut b, root, "Physics Data", "hkpPhysicsData", data)?;
            b.set(data, "systems", Value::list(vec![Value::object(system)]))?;
            b.set(
                system,
                "rigidBodies",
                Value::list(vec![Value::object(body)]),
            )?;
            b.set(system, "name", Value::text("Default Physics System"))?;
            b.set(system, "active", Value::Bool(1))?;
            b.set(body, "collidable.shape", Value::object(shape))?;
            b.set(body, "collidable.broadPhaseHandle.type", Value::Int(1))?;
            b.set(body, "name", Value::text("box"))?;
            b.set(body, "motion.type", Value::UInt(5))?;
            b.set(
                body,
                "motion.motionState.transform",
                Value::floats(&identity),
            )?;
            b.set(shape, "radius", Value::Real(0.05))?;
            b.set(shape, "halfExtents", Value::floats(&[0.5, 0.5, 0.5, 0.0]))?;
        }
        "havok-demo-710_skeleton.hkx" => {
            let root = b.add("hkRootLevelContainer")?;
            let container = b.add("hkaAnimationContainer")?;
            let skeleton = b.add("hkaSkeleton")?;
            named_variant(
                &mut b,
                root,
                "Merged Animation Container",
                "hkaAnimationContainer",
                container,
            )?;
            b.set(
                container,
                "skeletons",
                Value::list(vec![Value::object(skeleton)]),
            )?;
            b.set(skeleton, "name", Value::text("sample"))?;
            b.set(
                skeleton,
                "parentIndices",
                Value::list(vec![Value::Int(-1), Value::Int(0)]),
            )?;
            b.fill(skeleton, "bones", 2)?;
            b.set(skeleton, "bones[0].name", Value::text("root"))?;
            b.set(skeleton, "bones[1].name", Value::text("spine"))?;
            // Translation, rotation (identity quaternion), scale; the spine one unit up.
            let pose =
                |y: f32| Value::floats(&[0.0, y, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0]);
            b.set(
                skeleton,
                "referencePose",
                Value::list(vec![pose(0.0), pose(1.0)]),
            )?;
        }
        "destiny-2012_compound.hkx" => {
            let root = b.add("hkRootLevelContainer")?;
            let compound = b.add("hkpStaticCompoundShape")?;
            let mesh = b.add("hkpBvCompressedMeshShape")?;
            named_variant(
                &mut b,
                root,
                "Static Compound",
                "hkpStaticCompoundShape",
                compound,
            )?;
            b.fill(compound, "instances", 1)?;
            // Translation, rotation (identity quaternion), scale.
            b.set(
                compound,
                "instances[0].transform",
                Value::floats(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
            )?;
            b.set(compound, "instances[0].shape", Value::object(mesh))?;
        }
        other => return Err(Error::usage(format!("no sample named `{other}`"))),
    }
    Ok(b.g)
}

/// Writes a tagfile sample: a type table from its schema for the classes its objects use,
/// the TAG0 in the generation's table order, and the container.
fn tagfile_bytes(graph: &Graph, container: Container) -> Result<Vec<u8>> {
    let schema = graph.schema();
    let tag0 = reflect::write(graph, schema, &schema.generation.contents_version)?;
    Ok(match container {
        Container::Cm(records) => cm::Cm::write(&records, cm::RETAIL_VERSION, &tag0),
        Container::Phive(p) => p.write(&tag0)?,
    })
}

/// The bytes of sample `name`.
///
/// # Errors
/// An unknown sample, or a schema that lacks its classes.
pub fn bytes(ctx: &Context, name: &str) -> Result<Vec<u8>> {
    let (_, folder, _) = SAMPLES
        .iter()
        .find(|s| s.0 == name)
        .ok_or_else(|| Error::usage(format!("no sample named `{name}`")))?;
    let schema = ctx.schemas().load(folder)?;
    let tagfile = |(g, c): (Graph, Container)| tagfile_bytes(&g, c);
    match name {
        "doom-2016_box.hkshape" => tagfile(doom::box_shape(schema)?),
        "doom-2016_mesh.hkshape" => tagfile(doom::mesh(schema)?),
        "doom-2016_compound.hkshape" => tagfile(doom::compound(schema)?),
        destiny::NAME => {
            let g = &schema.generation;
            let info = PackfileInfo::new(g, g.layout);
            let graph = destiny::level(Arc::clone(&schema))?;
            Ok(hk_runtime::packfile::graph::write::write(&graph, &info)?)
        }
        "nso-2023_box.bphsh" => tagfile(nso::build_box(schema)?),
        "nso-2023_level.bphsh" => tagfile(nso::build_level(schema)?),
        _ => {
            let g = &schema.generation;
            let info = PackfileInfo::new(g, g.layout);
            let graph = match name {
                "havok-710_level.hkx" => level71::graph(Arc::clone(&schema))?,
                _ => packfile(name, Arc::clone(&schema))?,
            };
            Ok(hk_runtime::packfile::graph::write::write(&graph, &info)?)
        }
    }
}

/// `hk sample --out DIR`: writes every sample.
///
/// # Errors
/// A sample that cannot be built, or a file that cannot be written (a symbolic link in the
/// folder is refused before anything is written, [`crate::outputs`]).
pub fn run(ctx: &Context, out: &Path, o: &mut Out<'_>) -> Result<Status> {
    let outputs = Outputs::new();
    for (name, _, _) in SAMPLES {
        outputs.check_under(out, Path::new(name))?;
    }
    for (name, folder, what) in SAMPLES {
        let b = bytes(ctx, name)?;
        let path = out.join(name);
        outputs.write_under(out, Path::new(name), &b)?;
        outln!(
            o,
            "{} ({} bytes, {folder}): {what}",
            path.display(),
            b.len()
        );
    }
    Ok(Status::Success)
}
