//! New level files from meshes (`hk import MESH --game PROFILE` or `--like FILE`): one
//! static body per mesh object in the generation's native shape (docs/collision.md, "New
//! level files from meshes"):
//!
//! | generation | container | shape |
//! |---|---|---|
//! | 5.5 to 2011 | packfile, or the TAG0 of a `--like` file | `hkpMoppBvTreeShape` over an `hkpStorageExtendedMeshShape` |
//! | 2012.2 to 2014 | packfile | `hkpBvCompressedMeshShape`s in an `hkpStaticCompoundShape` |
//! | 2016 | id Tech cm | `hknpCompressedMeshShape` (an `hknpCompoundShape` of them for several objects) |
//! | 2023.2 | phive `.bphsh` | one `hknpMeshShape`, a palette entry per surface id |
//!
//! Every file is read back strictly through the front door before it is handed out
//! ([`verify::verify`]): it must round-trip byte for byte, give every mesh's triangles
//! and surface ids back within the format's quantum, and pass the tree checks.

pub mod shapes;
pub mod verify;

use std::path::Path;
use std::sync::Arc;

use hk_runtime::collision::input::InputMesh;
use hk_runtime::file::Origin;
use hk_runtime::graph::Graph;
use hk_runtime::packfile::PackfileInfo;
use hk_runtime::tagfile::{cm, phive::Phive, reflect};
use hk_runtime::Schema;

use crate::context::Context;
use crate::error::{Error, Result};

/// What the new file is modelled on.
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// A game profile of `games/*.toml` (its generation, container and layout).
    Profile(&'a str),
    /// An existing file: its generation, container, layout and shape kind.
    Like(&'a Path),
}

/// A new level file.
#[derive(Clone, Debug, PartialEq)]
pub struct Created {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The fix-ups made to fit the format (split objects, dropped names), one line each.
    pub notes: Vec<String>,
    /// The time building the shapes, their trees and the file's bytes took.
    pub built: std::time::Duration,
    /// The time the checks of the new file took ([`verify::verify`]).
    pub checked: std::time::Duration,
}

/// The shape kind a generation's level collision uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A MOPP tree over a storage extended mesh (5.5 to 2011, and 2015's TAG0).
    Mopp,
    /// Compressed meshes in a static compound (2012.2 to 2014).
    BvCompound,
    /// An `hknpCompressedMeshShape` in an id Tech cm file (2016).
    CompressedCm,
    /// An `hknpMeshShape` in a phive shape file (2023.2).
    MeshShape,
}

/// How the built graph becomes bytes.
enum Writer {
    /// A packfile with these header facts.
    Packfile(Box<PackfileInfo>),
    /// A bare TAG0 of this SDK version, the type table written from the schema.
    Tag0(String),
    /// An id Tech cm file with these surface records and record version.
    Cm(Vec<cm::SurfaceRecord>, u32),
    /// A phive shape file with this header (its material and hit-mask arrays replaced).
    Phive(Phive),
}

/// The schema to build with, the shape kind and the writer.
struct Plan {
    schema: Arc<Schema>,
    kind: Kind,
    writer: Writer,
}

/// Builds a new level file of `meshes` for `target`, and checks it ([`verify::verify`]).
///
/// # Errors
/// A profile or file hk makes no level collision for, a mesh the format cannot hold (an
/// error naming the object and face), or a file that fails its own checks (a bug).
pub fn create(ctx: &Context, target: Target<'_>, meshes: &[InputMesh]) -> Result<Created> {
    if meshes.is_empty() {
        return Err(Error::usage("no mesh object to build a level from"));
    }
    let plan = plan(ctx, target)?;
    let start = std::time::Instant::now();
    let mut notes = Vec::new();
    let (graph, extras) = match plan.kind {
        Kind::Mopp => (
            shapes::mopp(Arc::clone(&plan.schema), meshes, &mut notes)?,
            None,
        ),
        Kind::BvCompound => (
            shapes::bv(Arc::clone(&plan.schema), meshes, &mut notes)?,
            None,
        ),
        Kind::CompressedCm => (
            shapes::compressed(Arc::clone(&plan.schema), meshes, &mut notes)?,
            None,
        ),
        Kind::MeshShape => {
            let (g, extras) = shapes::mesh_shape(Arc::clone(&plan.schema), meshes, &mut notes)?;
            (g, Some(extras))
        }
    };
    let bytes = write(&graph, plan.writer, extras)?;
    let built = start.elapsed();
    verify::verify(ctx, &bytes, plan.kind, meshes)?;
    Ok(Created {
        bytes,
        notes,
        built,
        checked: start.elapsed() - built,
    })
}

/// The shape kind of generation `name` in `container`, `None` when hk makes no level
/// collision for it.
pub fn kind_of(name: &str, container: &str) -> Option<Kind> {
    let version = name.strip_prefix("havok-")?;
    let major: u32 = version.split('.').next()?.parse().ok()?;
    match (container, major) {
        ("packfile", 5..=7 | 2010..=2011) => Some(Kind::Mopp),
        ("packfile", 2012..=2014) => Some(Kind::BvCompound),
        ("tagfile", 2016) => Some(Kind::CompressedCm),
        ("tagfile", 2023) => Some(Kind::MeshShape),
        _ => None,
    }
}

fn plan(ctx: &Context, target: Target<'_>) -> Result<Plan> {
    match target {
        Target::Profile(name) => profile_plan(ctx, name),
        Target::Like(path) => like_plan(ctx, path),
    }
}

/// A profile's generation, container and layout.
fn profile_plan(ctx: &Context, name: &str) -> Result<Plan> {
    let p = crate::gen::profile(ctx, name)?;
    let kind = kind_of(&p.generation, &p.container).ok_or_else(|| {
        Error::usage(format!(
            "profile `{}` ({} {}): hk makes new level files for 5.5 to 2014 packfiles, 2016 id Tech cm and 2023.2 phive files; use --like with a file of the game",
            p.name, p.generation, p.container
        ))
    })?;
    let schema = ctx.schemas().load(&p.generation)?;
    let layout = p.layout_rules(&schema)?;
    let writer = match kind {
        Kind::Mopp | Kind::BvCompound => {
            Writer::Packfile(Box::new(PackfileInfo::new(&schema.generation, layout)))
        }
        Kind::CompressedCm => Writer::Cm(vec![cm::SurfaceRecord::default()], cm::RETAIL_VERSION),
        Kind::MeshShape => Writer::Phive(shapes::phive_header()),
    };
    Ok(Plan {
        schema,
        kind,
        writer,
    })
}

/// The shape kind of the classes `graph` holds, `None` when it holds none hk builds.
fn kind_in(graph: &Graph) -> Option<Kind> {
    let schema = graph.schema();
    let mut kinds = graph.objects.iter().filter_map(|o| {
        let chain = schema.chain(schema.name_of(o.class)).ok()?;
        chain.iter().find_map(|c| match c.name.as_str() {
            "hkpMoppBvTreeShape" => Some(Kind::Mopp),
            "hkpBvCompressedMeshShape" | "hkpStaticCompoundShape" => Some(Kind::BvCompound),
            "hknpCompressedMeshShape" => Some(Kind::CompressedCm),
            "hknpMeshShape" => Some(Kind::MeshShape),
            _ => None,
        })
    });
    kinds.next()
}

/// An existing file's generation, container, layout and shape kind.
fn like_plan(ctx: &Context, path: &Path) -> Result<Plan> {
    let doc = ctx.open(path)?;
    let kind = kind_in(&doc.graph).ok_or_else(|| {
        Error::usage(format!(
            "{}: holds no MOPP tree, compressed mesh or mesh shape to model a level on",
            path.display()
        ))
    })?;
    let refuse = |what: &str| {
        Error::usage(format!(
            "{}: a {what} holding {kind:?} collision: hk makes that kind only in the container its generation uses",
            path.display()
        ))
    };
    match doc.origin {
        Origin::Packfile(info) => {
            if !matches!(kind, Kind::Mopp | Kind::BvCompound) {
                return Err(refuse("packfile"));
            }
            let schema = Arc::clone(doc.graph.schema());
            let fresh = PackfileInfo::new(&schema.generation, info.layout);
            let header = PackfileInfo {
                file_version: info.file_version,
                contents_version: info.contents_version.clone(),
                user_tag: info.user_tag,
                flags: info.flags,
                predicates: info.predicates.clone(),
                ..fresh
            };
            Ok(Plan {
                schema,
                kind,
                writer: Writer::Packfile(Box::new(header)),
            })
        }
        Origin::Tagfile { file, .. } => {
            let (schema, _) = ctx.tagfile_generation(&file.sdk_version)?;
            let writer = match (&file.cm, &file.phive, kind) {
                (Some(c), _, Kind::CompressedCm) => Writer::Cm(c.records.clone(), c.version),
                (_, Some(p), Kind::MeshShape) => Writer::Phive(Phive {
                    extras: Vec::new(),
                    ..p.clone()
                }),
                (None, None, Kind::Mopp) => {
                    let donor = ctx.schemas().load(ENUM_DONOR)?;
                    let schema = with_enums(&schema, &donor)?;
                    return Ok(Plan {
                        schema,
                        kind,
                        writer: Writer::Tag0(file.sdk_version.clone()),
                    });
                }
                _ => return Err(refuse("tagfile")),
            };
            Ok(Plan {
                schema,
                kind,
                writer,
            })
        }
        Origin::BinaryTagfile(_) => Err(refuse("binary tagfile")),
    }
}

/// The generation whose hkp enums fill in the ones a tagfile schema lacks (the 2015.1
/// schema, extracted from tagfiles, names no `CollectionType` or `WeldingType` items).
const ENUM_DONOR: &str = "havok-2010.2";

/// `schema` with the enums of `donor`'s classes it lacks, and `donor`'s classes of enums
/// only (`hkpWeldingUtility`): what the level builder looks item values up in. Classes
/// gain no members, so the type table written from the schema is unchanged.
fn with_enums(schema: &Schema, donor: &Schema) -> Result<Arc<Schema>> {
    let mut classes = schema.classes().to_vec();
    for d in donor.classes() {
        match classes.iter_mut().find(|c| c.name == d.name) {
            Some(c) => {
                for e in &d.enums {
                    if !c.enums.iter().any(|x| x.name == e.name) {
                        c.enums.push(e.clone());
                    }
                }
            }
            None if d.members.is_empty() && d.parent.is_none() && !d.enums.is_empty() => {
                classes.push(d.clone());
            }
            None => {}
        }
    }
    let name = schema.generation.name.clone();
    Schema::new(schema.generation.clone(), classes)
        .map(Arc::new)
        .map_err(|d| Error::schema(name, d))
}

/// The bytes of `graph` as `writer` lays it out (`extras`: a phive file's arrays).
fn write(
    graph: &Graph,
    writer: Writer,
    extras: Option<Vec<hk_runtime::tagfile::phive::Extra>>,
) -> Result<Vec<u8>> {
    let schema = graph.schema();
    let tag0 = |sdk: &str| reflect::write(graph, schema, sdk);
    Ok(match writer {
        Writer::Packfile(info) => hk_runtime::packfile::graph::write::write(graph, &info)?,
        Writer::Tag0(sdk) => tag0(&sdk)?,
        Writer::Cm(records, version) => cm::Cm::write(
            &records,
            version,
            &tag0(&schema.generation.contents_version)?,
        ),
        Writer::Phive(mut p) => {
            p.extras = extras.unwrap_or_default();
            p.write(&tag0(&schema.generation.contents_version)?)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_map_to_their_shape_kinds() {
        assert_eq!(kind_of("havok-5.5", "packfile"), Some(Kind::Mopp));
        assert_eq!(kind_of("havok-7.1", "packfile"), Some(Kind::Mopp));
        assert_eq!(kind_of("havok-2010.2", "packfile"), Some(Kind::Mopp));
        assert_eq!(kind_of("havok-2012.2", "packfile"), Some(Kind::BvCompound));
        assert_eq!(kind_of("havok-2014.1", "packfile"), Some(Kind::BvCompound));
        assert_eq!(kind_of("havok-2016", "tagfile"), Some(Kind::CompressedCm));
        assert_eq!(kind_of("havok-2023.2", "tagfile"), Some(Kind::MeshShape));
        assert_eq!(kind_of("havok-2016", "packfile"), None);
        assert_eq!(kind_of("havok-2022.1", "tagfile"), None);
    }
}
