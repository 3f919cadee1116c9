//! Between the two passes: what the first one read (the top-level keys, each object's id,
//! class and section) checked and turned into the schema, the classes, the id index and
//! the container facts. Every error names the spot of its value (`file.layout.endian`,
//! `objects[3].section`), so that its line and column can be found.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value as Json;

use super::classdefs::binary_from;
use super::container::{cm_from, phive_from};
use super::spot::{bad, Checked, Fail, Node, Spot};
use super::types::types_from;
use super::DUMP_VERSION;
use crate::dump::members::Ids;
use crate::dump::skim::Head;
use crate::dump::text::{hex_bytes, resolve};
use crate::error::{Error, SchemaError, WriteError};
use crate::file::Schemas;
use crate::graph::{ObjectId, Seg};
use crate::packfile::PackfileInfo;
use crate::rules::{Endian, LayoutRules};
use crate::schema::{ClassId, Schema};
use crate::tagfile::binary::BinaryTagfile;
use crate::tagfile::cm::SurfaceRecord;
use crate::tagfile::phive::Phive;
use crate::tagfile::types::TypeTable;

const FILE_KEYS: &[&str] = &[
    "file_version",
    "contents_version",
    "layout",
    "user_tag",
    "flags",
    "sections",
    "class_names_section",
    "contents_section",
    "predicates",
    "class_names",
    "exports",
];

/// The schema a dump is read with.
#[derive(Debug)]
pub(crate) enum Pick<'a> {
    /// The folder the dump names, else the one matching its versions.
    From(&'a Schemas),
    /// This one.
    Given(&'a Arc<Schema>),
}

/// A capacity flag, kept with its spot until the objects are read (its element must
/// exist).
#[derive(Debug)]
pub(crate) struct Flag {
    pub(crate) spot: Spot,
    pub(crate) object: ObjectId,
    pub(crate) path: Vec<Seg>,
    pub(crate) flags: u32,
}

/// The container a dump describes, before its objects are read.
#[derive(Debug)]
pub(crate) enum Facts {
    /// A packfile's facts (object sections filled in) and its capacity flags.
    Packfile(PackfileInfo, Vec<Flag>),
    /// A tagfile's SDK version, container and own type table.
    Tagfile {
        sdk: String,
        cm: Option<(u32, Vec<SurfaceRecord>)>,
        phive: Option<Phive>,
        types: Option<TypeTable>,
    },
    /// An old binary tagfile's file information and class definitions.
    BinaryTagfile(Box<BinaryTagfile>),
}

/// Refuses an object with a `section` (only a packfile's objects have one).
fn no_sections(objects: &[crate::dump::skim::ObjectHead]) -> Checked<()> {
    match objects.iter().position(|o| o.section.is_some()) {
        Some(k) => {
            let spot = objects_spot(k).key("section");
            Err(Fail {
                error: bad("a tagfile's objects have no section").in_(spot.text()),
                spot: Some(spot),
            })
        }
        None => Ok(()),
    }
}

/// What the second pass needs.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) schema: Arc<Schema>,
    pub(crate) classes: Vec<ClassId>,
    pub(crate) ids: Ids,
    pub(crate) root: ObjectId,
    pub(crate) facts: Facts,
}

fn objects_spot(k: usize) -> Spot {
    Spot::default().key("objects").index(k)
}

/// Checks the first pass's reading.
pub(crate) fn prepare(head: Head, pick: Pick<'_>) -> Checked<Prepared> {
    let Head {
        top,
        objects,
        class_names,
    } = head;
    let top = Json::Object(top);
    let doc = Node::top(&top);
    let version = doc.get("hk_dump")?;
    if version.uint(64)? != DUMP_VERSION {
        return Err(version.fail(bad(format!(
            "dump format {}; this hk reads format {DUMP_VERSION}",
            version.v
        ))));
    }
    let objects = objects.ok_or_else(|| doc.fail(bad("the dump has no `objects`")))?;
    let (tagfile, binary) = match doc.opt("container") {
        None => (false, None),
        Some(c) if c.v.as_str() == Some("tagfile") => (true, None),
        Some(c) if c.v.as_str() == Some("binary-tagfile") => {
            (false, Some(Box::new(binary_from(&doc)?)))
        }
        Some(c) => {
            return Err(c.fail(bad(format!(
                "container {} (a packfile dump has none, a tagfile's is \"tagfile\" or \"binary-tagfile\")",
                c.v
            ))))
        }
    };
    let schema = match (pick, &binary) {
        (Pick::Given(s), _) => Arc::clone(s),
        (Pick::From(schemas), _) if schemas.given().is_some() => {
            schema_for(&doc, tagfile, schemas)?
        }
        // An old binary tagfile's classes are its own definitions.
        (Pick::From(_), Some(file)) => {
            let name = file.schema_name();
            Arc::new(
                crate::tagfile::binary::schema::extract(&[file], &name)
                    .map_err(|e| doc.get("classes").map_or_else(|f| f, |c| c.fail(e)))?,
            )
        }
        (Pick::From(schemas), None) => schema_for(&doc, tagfile, schemas)?,
    };
    let mut by_name = Vec::with_capacity(class_names.len());
    for (i, name) in class_names.iter().enumerate() {
        by_name.push(schema.require(name).map_err(|e| {
            let k = objects
                .iter()
                .position(|o| o.class as usize == i)
                .unwrap_or(0);
            Fail {
                error: e.in_(format!("objects[{k}].class")),
                spot: Some(objects_spot(k).key("class")),
            }
        })?);
    }
    let classes: Vec<ClassId> = objects.iter().map(|o| by_name[o.class as usize]).collect();
    let ids = Ids::new(objects.iter().map(|o| o.id).collect()).map_err(|(a, b)| Fail {
        error: bad(format!(
            "two objects have id {} (objects[{a}] and objects[{b}])",
            objects[b].id
        ))
        .in_(format!("objects[{b}].id")),
        spot: Some(objects_spot(b).key("id")),
    })?;
    let root_node = doc.get("root")?;
    let root_id = root_node.uint(64)?;
    let root = ids
        .get(root_id)
        .ok_or_else(|| root_node.fail(Error::write(WriteError::MissingObject(root_id))))?;
    let foreign = |keys: &[&str], what: &str| -> Checked<()> {
        match keys.iter().find_map(|k| doc.v.get(*k).map(|v| (k, v))) {
            Some((k, v)) => Err(Node {
                v,
                spot: Spot::default().key(k),
            }
            .fail(bad(format!("`{k}` belongs to a {what} dump")))),
            None => Ok(()),
        }
    };
    let facts = if let Some(file) = binary {
        foreign(
            &["file", "capacity_flags", "cm", "phive", "types"],
            "packfile or TAG0",
        )?;
        no_sections(&objects)?;
        Facts::BinaryTagfile(file)
    } else if tagfile {
        foreign(&["file", "capacity_flags"], "packfile")?;
        foreign(
            &["classes", "predicates", "trailing", "tagfile_version"],
            "binary tagfile",
        )?;
        no_sections(&objects)?;
        let cm = doc.opt("cm").map(|c| cm_from(&c)).transpose()?;
        let phive = doc.opt("phive").map(|p| phive_from(&p)).transpose()?;
        if cm.is_some() && phive.is_some() {
            return Err(doc.get("phive")?.fail(bad(
                "a tagfile is wrapped in a cm container or a phive one, not both",
            )));
        }
        Facts::Tagfile {
            sdk: doc.get("sdk_version")?.str()?.to_string(),
            cm,
            phive,
            types: doc.opt("types").map(|t| types_from(&t)).transpose()?,
        }
    } else {
        foreign(&["sdk_version", "cm", "phive", "types"], "tagfile")?;
        foreign(
            &["classes", "predicates", "trailing", "tagfile_version"],
            "binary tagfile",
        )?;
        let mut info = info_from(&doc.get("file")?, &ids)?;
        info.object_sections = Vec::with_capacity(objects.len());
        for (k, o) in objects.iter().enumerate() {
            let spot = objects_spot(k).key("section");
            let at = |e: Error| Fail {
                error: e.in_(spot.text()),
                spot: Some(spot.clone()),
            };
            let s = o.section.ok_or_else(|| {
                let spot = objects_spot(k);
                Fail {
                    error: bad("every object of a packfile dump needs its `section`")
                        .in_(spot.text()),
                    spot: Some(spot),
                }
            })?;
            if s as usize >= info.sections.len() || s == info.class_names_section {
                return Err(at(bad(format!(
                    "section {s} is not a data section of the file ({} sections, class names in {})",
                    info.sections.len(),
                    info.class_names_section
                ))));
            }
            info.object_sections.push(s);
        }
        let flags = capacity_flags(&doc, &schema, &classes, &ids)?;
        Facts::Packfile(info, flags)
    };
    Ok(Prepared {
        schema,
        classes,
        ids,
        root,
        facts,
    })
}

/// The schema to read a dump's objects with: the one the caller names
/// ([`Schemas::given`]), else the catalog folder the dump names, else the folder of exactly
/// the dump's version. Never a neighbouring version's: a dump of a file read with a nearest
/// folder names that folder (docs/schema-selection.md).
fn schema_for(doc: &Node<'_>, tagfile: bool, schemas: &Schemas) -> Checked<Arc<Schema>> {
    if let Some(g) = schemas.given() {
        return Ok(Arc::clone(&g.schema));
    }
    let named = doc.opt("schema");
    if let Some(n) = &named {
        let name = n.str()?;
        if schemas.catalog().get(name).is_some() {
            return schemas.load(name).map_err(|e| n.fail(e));
        }
    }
    let said = match &named {
        Some(n) => format!("`{}`", n.str()?),
        None => "none".to_string(),
    };
    let no = |version: String| {
        Error::from(SchemaError::NoMatch(format!(
            "the dump names schema {said}, which is not a folder here, and no folder is of {version}: pass --schema DIR or --schema NAME"
        )))
    };
    let (node, name) = if tagfile {
        let n = doc.get("sdk_version")?;
        let sdk = n.str()?;
        let e = schemas.catalog().tagfile(sdk).map(|e| e.name.clone());
        (
            n.clone(),
            e.ok_or_else(|| n.fail(no(format!("SDK {sdk}"))))?,
        )
    } else {
        let f = doc.get("file")?;
        let fv = f.get("file_version")?.uint(32)? as u32;
        let cv = f.get("contents_version")?.str()?;
        let e = schemas.catalog().packfile(fv, cv).map(|e| e.name.clone());
        (
            f.clone(),
            e.ok_or_else(|| f.fail(no(format!("{cv} (file version {fv})"))))?,
        )
    };
    schemas.load(&name).map_err(|e| node.fail(e))
}

fn info_from(f: &Node<'_>, ids: &Ids) -> Checked<PackfileInfo> {
    f.keys(FILE_KEYS)?;
    let l = f.get("layout")?;
    l.keys(&["pointer_size", "endian", "reuse_padding", "empty_base"])?;
    let ps = l.get("pointer_size")?;
    let pointer_size = ps.uint(8)? as u8;
    if pointer_size != 4 && pointer_size != 8 {
        return Err(ps.fail(bad(format!("pointer size {pointer_size} (4 or 8)"))));
    }
    let e = l.get("endian")?;
    let endian = match e.v.as_str() {
        Some("big") => Endian::Big,
        Some("little") => Endian::Little,
        _ => return Err(e.fail(bad(format!("byte order {} (\"little\" or \"big\")", e.v)))),
    };
    let layout = LayoutRules {
        pointer_size,
        endian,
        reuse_padding: l.get("reuse_padding")?.bool()?,
        empty_base: l.get("empty_base")?.bool()?,
    };
    let strings = |n: &Node<'_>| -> Checked<Vec<String>> {
        n.list()?
            .iter()
            .map(|s| s.str().map(String::from))
            .collect()
    };
    let predicates = match f.opt("predicates") {
        Some(p) => {
            p.keys(&["max", "block"])?;
            let m = p.get("max")?;
            let max =
                m.v.as_i64()
                    .and_then(|x| i16::try_from(x).ok())
                    .ok_or_else(|| m.fail(bad(format!("{} is not a 16-bit integer", m.v))))?;
            let b = p.get("block")?;
            let block = hex_bytes(b.str()?)
                .ok_or_else(|| b.fail(bad("bad predicate block hex (pairs of hex digits)")))?;
            if u16::try_from(block.len()).is_err() {
                return Err(b.fail(bad(format!(
                    "a predicate block of {} bytes (the header holds 65,535)",
                    block.len()
                ))));
            }
            Some((max, block))
        }
        None => None,
    };
    let fv = f.get("file_version")?;
    let file_version = fv.uint(32)? as u32;
    if !(5..=11).contains(&file_version) {
        return Err(fv.fail(bad(format!(
            "file version {file_version} (hk reads and writes 5 to 11)"
        ))));
    }
    let cvn = f.get("contents_version")?;
    let contents_version = cvn.str()?.to_string();
    if contents_version.len() > 15 || contents_version.contains('\0') {
        return Err(cvn.fail(bad(format!(
            "the contents version {contents_version:?} (the header holds 15 bytes and a NUL)"
        ))));
    }
    let sn = f.get("sections")?;
    let sections = strings(&sn)?;
    if let Some(i) = sections
        .iter()
        .position(|t| t.len() > 19 || t.contains('\0'))
    {
        return Err(sn.list()?[i].fail(bad(format!(
            "section tag {:?} (a section header holds 19 bytes and a NUL)",
            sections[i]
        ))));
    }
    if sections.len() < 2 {
        return Err(sn.fail(bad(format!(
            "a packfile needs two sections at least (class names, contents); {} given",
            sections.len()
        ))));
    }
    let field32 = |key: &str| -> Checked<u32> { Ok(f.get(key)?.uint(32)? as u32) };
    let class_names_section = field32("class_names_section")?;
    let contents_section = field32("contents_section")?;
    let n = sections.len();
    for (key, s) in [
        ("class_names_section", class_names_section),
        ("contents_section", contents_section),
    ] {
        if s as usize >= n {
            return Err(f
                .get(key)?
                .fail(bad(format!("section {s}, but the file has {n} section(s)"))));
        }
    }
    if class_names_section == contents_section {
        return Err(f.get("contents_section")?.fail(bad(format!(
            "section {contents_section} also holds the class names"
        ))));
    }
    let class_names = f.opt("class_names").map(|c| strings(&c)).transpose()?;
    let mut exports = Vec::new();
    for e in f
        .opt("exports")
        .map(|x| x.list())
        .transpose()?
        .unwrap_or_default()
    {
        e.keys(&["object", "name"])?;
        let o = e.get("object")?;
        let id = o.uint(64)?;
        let object = ids
            .get(id)
            .ok_or_else(|| o.fail(Error::write(WriteError::MissingObject(id))))?;
        exports.push((object, e.get("name")?.str()?.to_string()));
    }
    Ok(PackfileInfo {
        file_version,
        contents_version,
        layout,
        user_tag: field32("user_tag")?,
        flags: field32("flags")?,
        sections,
        class_names_section,
        contents_section,
        predicates,
        class_names,
        exports,
        object_sections: Vec::new(),
        capacity_flags: BTreeMap::new(),
    })
}

fn capacity_flags(
    doc: &Node<'_>,
    schema: &Schema,
    classes: &[ClassId],
    ids: &Ids,
) -> Checked<Vec<Flag>> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let list = doc.opt("capacity_flags").map(|c| c.list()).transpose()?;
    for c in list.unwrap_or_default() {
        c.keys(&["object", "path", "flags"])?;
        let o = c.get("object")?;
        let id = o.uint(64)?;
        let object = ids
            .get(id)
            .ok_or_else(|| o.fail(Error::write(WriteError::MissingObject(id))))?;
        let p = c.get("path")?;
        let (path, _) =
            resolve(schema, classes[object.0 as usize], p.str()?).map_err(|e| p.fail(e))?;
        if !seen.insert((object, path.clone())) {
            return Err(p.fail(bad(format!(
                "a second flag for `{}` of object #{id}",
                p.v.as_str().unwrap_or("")
            ))));
        }
        out.push(Flag {
            spot: p.spot.clone(),
            object,
            path,
            flags: c.get("flags")?.uint(32)? as u32,
        });
    }
    Ok(out)
}
