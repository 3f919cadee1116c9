//! `hk sample`: small files hk writes itself from schemas, for profiles that have no real
//! files to test with (and for trying hk without a corpus). Packfile samples go through the
//! packfile writer; tagfile samples get a type table written from their schema
//! (`tagfile::reflect`), the TAG0 writer, and their container (cm or phive).

mod doom;
mod nso;

use crate::out::outln;
use std::path::Path;
use std::process::ExitCode;

use hk_runtime::graph::{Field, FileInfo, Graph, Object, ObjectId, Ptr, Value};
use hk_runtime::packfile::write::write;
use hk_runtime::Schema;

use crate::schemas::{self, Roots};

/// The samples hk can write: `(file name, schema folder, what it holds)`.
pub const SAMPLES: &[(&str, &str, &str)] = &[
    (
        "shred_box.hkx",
        "havok-7.1",
        "one fixed rigid body with a box shape, 32-bit big endian",
    ),
    (
        "destiny-2012_compound.hkx",
        "havok-2012.2",
        "a static compound shape with one compressed-mesh instance",
    ),
    (
        "nso-2023_box.bphsh",
        "havok-2023.2",
        "phive shape: an hknpMeshShape box of six quads, one material, one hit mask",
    ),
    (
        "doom-2016_box.hkshape",
        "havok-2016",
        "id Tech cm: one surface record and a box hknpConvexPolytopeShape (TAG0 20160200)",
    ),
    (
        "doom-2016_compound.hkshape",
        "havok-2016",
        "id Tech cm: an hknpCompoundShape of two box instances over an hkcdDynamicTree",
    ),
    (
        "doom-2016_mesh.hkshape",
        "havok-2016",
        "id Tech cm: one surface record and an hknpCompressedMeshShape of two triangles",
    ),
];

/// The container a tagfile sample goes in.
pub enum Container {
    /// An id Tech cm container with these surface records (retail record version).
    Cm(Vec<hk_runtime::tagfile::cm::SurfaceRecord>),
    /// A phive container.
    Phive(hk_runtime::tagfile::phive::Phive),
}

/// A tagfile sample's objects (the first is the root) and its container.
pub struct Built {
    objects: Vec<Object>,
    container: Container,
}

fn new(schema: &Schema, class: &str) -> Result<Object, String> {
    Object::new_default(schema, class, 0).map_err(|e| e.to_string())
}

fn set(o: &mut Object, path: &str, v: Value) -> Result<(), String> {
    o.set(path, v).map_err(|e| e.to_string())
}

/// Writes a tagfile sample: a type table from `schema` for the classes its objects use,
/// the TAG0 in the generation's table order, and the container.
fn tagfile_bytes(built: Built, schema: &Schema) -> Result<Vec<u8>, String> {
    use hk_runtime::tagfile::{cm, reflect};
    let g = &schema.generation;
    let graph = Graph {
        info: hk_runtime::graph::FileInfo {
            layout: g.layout,
            ..info(schema)
        },
        objects: built.objects,
        root: ObjectId(0),
        capacity_flags: Default::default(),
    };
    let tag0 = reflect::write(&graph, schema, &g.contents_version).map_err(|e| e.to_string())?;
    Ok(match built.container {
        Container::Cm(records) => cm::Cm::write(&records, cm::RETAIL_VERSION, &tag0),
        Container::Phive(p) => p.write(&tag0).map_err(|e| e.to_string())?,
    })
}

fn ptr(i: u32) -> Value {
    Value::Pointer(Some(Ptr::Object(ObjectId(i))))
}

fn text(s: &str) -> Value {
    Value::String(Some(s.to_string()))
}

fn info(schema: &Schema) -> FileInfo {
    let g = &schema.generation;
    FileInfo {
        file_version: g.file_version,
        contents_version: g.contents_version.clone(),
        layout: g.layout,
        user_tag: 0,
        flags: 0,
        sections: vec![
            "__classnames__".into(),
            "__types__".into(),
            "__data__".into(),
        ],
        class_names_section: 0,
        contents_section: 2,
        predicates: None,
        class_names: None,
        exports: Vec::new(),
    }
}

fn root(schema: &Schema, name: &str, class: &str) -> Result<Object, String> {
    let mut o =
        Object::new_default(schema, "hkRootLevelContainer", 2).map_err(|e| e.to_string())?;
    o.set(
        "namedVariants",
        Value::Array(vec![Value::Struct(vec![
            Field::new("name", text(name)),
            Field::new("className", text(class)),
            Field::new("variant", ptr(1)),
        ])]),
    )
    .map_err(|e| e.to_string())?;
    Ok(o)
}

fn build(name: &str, schema: &Schema) -> Result<Graph, String> {
    let new = |class: &str| Object::new_default(schema, class, 2).map_err(|e| e.to_string());
    let set = |o: &mut Object, path: &str, v: Value| o.set(path, v).map_err(|e| e.to_string());
    let identity = vec![
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let objects = match name {
        "shred_box.hkx" => {
            let mut data = new("hkpPhysicsData")?;
            set(&mut data, "systems", Value::Array(vec![ptr(2)]))?;
            let mut system = new("hkpPhysicsSystem")?;
            set(&mut system, "rigidBodies", Value::Array(vec![ptr(3)]))?;
            set(&mut system, "name", text("Default Physics System"))?;
            set(&mut system, "active", Value::Bool(1))?;
            let mut body = new("hkpRigidBody")?;
            set(&mut body, "collidable.shape", ptr(4))?;
            set(&mut body, "collidable.broadPhaseHandle.type", Value::Int(1))?;
            set(&mut body, "name", text("box"))?;
            set(&mut body, "motion.type", Value::UInt(5))?;
            set(
                &mut body,
                "motion.motionState.transform",
                Value::Floats(identity),
            )?;
            let mut shape = new("hkpBoxShape")?;
            set(&mut shape, "radius", Value::Real(0.05))?;
            set(
                &mut shape,
                "halfExtents",
                Value::Floats(vec![0.5, 0.5, 0.5, 0.0]),
            )?;
            vec![
                root(schema, "Physics Data", "hkpPhysicsData")?,
                data,
                system,
                body,
                shape,
            ]
        }
        "destiny-2012_compound.hkx" => {
            let mut compound = new("hkpStaticCompoundShape")?;
            let mut instance =
                hk_runtime::graph::default_fields(schema, "hkpStaticCompoundShapeInstance")
                    .map_err(|e| e.to_string())?;
            for f in &mut instance {
                match f.name.as_str() {
                    // Translation, rotation (identity quaternion), scale.
                    "transform" => {
                        f.value = Value::Floats(vec![
                            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0,
                        ])
                    }
                    "shape" => f.value = ptr(2),
                    _ => {}
                }
            }
            set(
                &mut compound,
                "instances",
                Value::Array(vec![Value::Struct(instance)]),
            )?;
            let mesh = new("hkpBvCompressedMeshShape")?;
            vec![
                root(schema, "Static Compound", "hkpStaticCompoundShape")?,
                compound,
                mesh,
            ]
        }
        other => return Err(format!("no sample named `{other}`")),
    };
    Ok(Graph {
        info: info(schema),
        objects,
        root: ObjectId(0),
        capacity_flags: Default::default(),
    })
}

/// The bytes of sample `name`.
///
/// # Errors
/// An unknown sample, or a schema that lacks its classes.
pub fn bytes(name: &str, roots: &Roots) -> Result<Vec<u8>, String> {
    let (_, folder, _) = SAMPLES
        .iter()
        .find(|s| s.0 == name)
        .ok_or_else(|| format!("no sample named `{name}`"))?;
    let schema = schemas::load(&roots.dir().join(folder))?;
    match name {
        "doom-2016_box.hkshape" => return tagfile_bytes(doom::box_shape(&schema)?, &schema),
        "doom-2016_mesh.hkshape" => return tagfile_bytes(doom::mesh(&schema)?, &schema),
        "doom-2016_compound.hkshape" => return tagfile_bytes(doom::compound(&schema)?, &schema),
        "nso-2023_box.bphsh" => return tagfile_bytes(nso::build(&schema)?, &schema),
        _ => {}
    }
    let graph = build(name, &schema)?;
    write(&graph, &schema).map_err(|e| e.to_string())
}

/// `hk sample --out DIR`: writes every sample.
pub fn run(out: &Path, roots: &Roots) -> Result<ExitCode, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (name, folder, what) in SAMPLES {
        let b = bytes(name, roots)?;
        let path = out.join(name);
        std::fs::write(&path, &b).map_err(|e| format!("{}: {e}", path.display()))?;
        outln!("{} ({} bytes, {folder}): {what}", path.display(), b.len());
    }
    Ok(ExitCode::SUCCESS)
}
