//! Builds an `hkpBvCompressedMeshShape` from triangles and an `hkpStaticCompoundShape` from
//! instances, into a graph of a schema that has the classes (docs/collision-notes.md §11):
//! sections of at most 128 triangles and 255 vertices, vertices used by one section packed
//! 11-11-10 over the section's box and the others shared 21-21-22 over the mesh's, data runs,
//! and static trees whose boxes are coded conservatively (each decoded box holds its
//! children's decoded geometry). Every value goes in through [`Graph::set`].

use std::collections::HashMap;

use crate::graph::Floats;
use crate::graph::{default_values, Graph, ObjectId, Ptr, Value};

use crate::collision::hkp::compound::{flags_of, W_BASE};
use crate::collision::hkp::pack::{self, encode_shared, Node, SectionCodec, Storage};
use crate::collision::math::{Aabb, Vec3};
use crate::collision::{CollisionError, Result};

/// The most primitives a section holds.
pub const MAX_SECTION_PRIMITIVES: usize = 128;

/// The most vertices (packed and shared) a section names.
pub const MAX_SECTION_VERTICES: usize = 255;

/// The most shared vertices hk writes (one page).
pub const MAX_SHARED_VERTICES: usize = 0x10000;

fn fail(what: &str, msg: impl Into<String>) -> Box<CollisionError> {
    CollisionError::shape("(new)", what, msg)
}

fn graph_err(what: &str) -> impl Fn(crate::Error) -> Box<CollisionError> + '_ {
    move |e| fail(what, e.to_string())
}

/// A struct value of `class` with `members` set by name, the rest zero.
fn record(g: &Graph, class: &str, members: &[(&str, Value)]) -> Result<Value> {
    let schema = g.schema();
    let c = schema.require(class).map_err(graph_err(class))?;
    let mut values = default_values(schema, c).map_err(graph_err(class))?;
    let flat = schema.members(c).map_err(graph_err(class))?;
    for (name, v) in members {
        let i = flat
            .iter()
            .position(|m| schema.member_of(m).name == *name)
            .ok_or_else(|| {
                fail(
                    class,
                    format!("the schema's {class} has no member `{name}`"),
                )
            })?;
        values[i] = v.clone();
    }
    Ok(Value::Struct(values))
}

fn vec4(p: Vec3, w: f32) -> Value {
    Value::Floats(Floats::new(&[p[0], p[1], p[2], w]).unwrap_or_else(|| Floats::zeros(4)))
}

fn bytes(b: &[u8]) -> Value {
    Value::CArray(b.iter().map(|&x| Value::UInt(u64::from(x))).collect())
}

fn aabb_value(g: &Graph, b: &Aabb) -> Result<Value> {
    record(
        g,
        "hkAabb",
        &[("min", vec4(b.min, 0.0)), ("max", vec4(b.max, 0.0))],
    )
}

/// The value of enum item `item` of member `member`'s enum in `class` (its chain).
fn item(g: &Graph, class: &str, member: &str, item: &str) -> Option<Value> {
    let schema = g.schema();
    let chain = schema.chain(class).ok()?;
    for c in chain {
        if let Some(m) = c.members.iter().find(|m| m.name == member) {
            let (_, e) = schema.resolve_enum(&c.name, m.enum_ref.as_deref()?)?;
            return e
                .items
                .iter()
                .find(|i| i.name == item)
                .map(|i| Value::UInt(i.value as u64));
        }
    }
    None
}

/// Tree nodes as values of `class` (`Codec3Axis4`, `5` or `6`).
fn node_values(g: &Graph, nodes: &[Node], storage: Storage, class: &str) -> Result<Value> {
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        let (hi, lo) = storage.data(n);
        let members: Vec<(&str, Value)> = match storage {
            Storage::Axis4 => vec![("xyz", bytes(&n.xyz)), ("data", Value::UInt(u64::from(hi)))],
            _ => vec![
                ("xyz", bytes(&n.xyz)),
                ("hiData", Value::UInt(u64::from(hi))),
                ("loData", Value::UInt(u64::from(lo))),
            ],
        };
        out.push(record(g, class, &members)?);
    }
    Ok(Value::list(out))
}

fn set(g: &mut Graph, id: ObjectId, path: &str, v: Value) -> Result<()> {
    g.set(id, path, v).map_err(graph_err(path))
}

/// Splits triangles `items` into groups of at most [`MAX_SECTION_PRIMITIVES`] triangles
/// naming at most [`MAX_SECTION_VERTICES`] vertices.
fn sections(items: Vec<u32>, boxes: &[Aabb], tris: &[[u32; 3]], out: &mut Vec<Vec<u32>>) {
    let mut named: Vec<u32> = items.iter().flat_map(|&t| tris[t as usize]).collect();
    named.sort_unstable();
    named.dedup();
    if items.len() <= MAX_SECTION_PRIMITIVES && named.len() <= MAX_SECTION_VERTICES {
        out.push(items);
        return;
    }
    let (a, b) = pack::split(&items, boxes);
    sections(a, boxes, tris, out);
    sections(b, boxes, tris, out);
}

/// Adds an `hkpBvCompressedMeshShape` of `triangles` over `vertices` to `g`, each triangle
/// with its `data` value (or 0 when `data` is empty). Returns the new object.
///
/// # Errors
/// An index past the vertices, `data` of another length than `triangles`, a vertex that is
/// not finite, more than [`MAX_SHARED_VERTICES`] shared vertices, a schema without the
/// classes.
pub fn build_mesh(
    g: &mut Graph,
    vertices: &[Vec3],
    triangles: &[[u32; 3]],
    data: &[u32],
) -> Result<ObjectId> {
    if let Some(t) = triangles
        .iter()
        .position(|t| t.iter().any(|&v| v as usize >= vertices.len()))
    {
        return Err(fail(
            "triangles",
            format!("triangle {t} names a vertex past the {}", vertices.len()),
        ));
    }
    if !data.is_empty() && data.len() != triangles.len() {
        return Err(fail(
            "data",
            format!("{} values for {} triangles", data.len(), triangles.len()),
        ));
    }
    if vertices.iter().flatten().any(|x| !x.is_finite()) {
        return Err(fail("vertices", "a vertex is not finite"));
    }
    let domain = Aabb::of(vertices.iter().copied()).unwrap_or(Aabb {
        min: [0.0; 3],
        max: [0.0; 3],
    });
    let tri_box =
        |t: &[u32; 3]| Aabb::of(t.iter().map(|&v| vertices[v as usize])).unwrap_or(domain);
    let boxes: Vec<Aabb> = triangles.iter().map(tri_box).collect();
    let mut groups = Vec::new();
    if !triangles.is_empty() {
        sections(
            (0..triangles.len() as u32).collect(),
            &boxes,
            triangles,
            &mut groups,
        );
    }
    // Vertices named by more than one section are shared.
    let mut users: HashMap<u32, (usize, bool)> = HashMap::new();
    for (s, grp) in groups.iter().enumerate() {
        for &t in grp {
            for &v in &triangles[t as usize] {
                let e = users.entry(v).or_insert((s, false));
                if e.0 != s {
                    e.1 = true;
                }
            }
        }
    }
    let mut shared_slot: HashMap<u32, u32> = HashMap::new();
    let mut shared: Vec<u64> = Vec::new();
    for grp in &groups {
        for &t in grp {
            for &v in &triangles[t as usize] {
                if users[&v].1 && !shared_slot.contains_key(&v) {
                    shared_slot.insert(v, shared.len() as u32);
                    shared.push(encode_shared(vertices[v as usize], &domain));
                }
            }
        }
    }
    if shared.len() > MAX_SHARED_VERTICES {
        return Err(fail(
            "sharedVertices",
            format!(
                "{} shared vertices: more than one page of {MAX_SHARED_VERTICES}",
                shared.len()
            ),
        ));
    }
    let mut packed: Vec<u32> = Vec::new();
    let mut shared_index: Vec<Value> = Vec::new();
    let mut prims: Vec<Value> = Vec::new();
    let mut runs: Vec<Value> = Vec::new();
    let mut secs: Vec<Value> = Vec::new();
    let mut section_boxes: Vec<Aabb> = Vec::new();
    let mut max_key = 0u32;
    for (si, grp) in groups.iter().enumerate() {
        let mut own: Vec<u32> = Vec::new();
        let mut theirs: Vec<u32> = Vec::new();
        for &t in grp {
            for &v in &triangles[t as usize] {
                let list = if users[&v].1 { &mut theirs } else { &mut own };
                if !list.contains(&v) {
                    list.push(v);
                }
            }
        }
        let codec = Aabb::of(own.iter().map(|&v| vertices[v as usize]))
            .map(|b| SectionCodec::spanning(&b))
            .unwrap_or(SectionCodec {
                offset: domain.min,
                scale: [0.0; 3],
            });
        let first_packed = packed.len();
        let mut decoded: HashMap<u32, (u8, Vec3)> = HashMap::new();
        for (k, &v) in own.iter().enumerate() {
            let p = codec.encode(vertices[v as usize]);
            packed.push(p);
            decoded.insert(v, (k as u8, codec.decode(p)));
        }
        let first_shared = shared_index.len();
        for (k, &v) in theirs.iter().enumerate() {
            let slot = shared_slot[&v];
            shared_index.push(Value::UInt(u64::from(slot)));
            let at = (own.len() + k) as u8;
            decoded.insert(v, (at, pack::decode_shared(shared[slot as usize], &domain)));
        }
        let first_prim = prims.len();
        let mut prim_boxes = Vec::with_capacity(grp.len());
        let mut section_runs: Vec<(u32, usize, usize)> = Vec::new();
        for (local, &t) in grp.iter().enumerate() {
            let [a, b, c] = triangles[t as usize].map(|v| decoded[&v]);
            prims.push(record(
                g,
                "hkcdStaticMeshTreeBasePrimitive",
                &[("indices", bytes(&[a.0, b.0, c.0, c.0]))],
            )?);
            prim_boxes.push(Aabb::of([a.1, b.1, c.1]).unwrap_or(domain));
            let value = data.get(t as usize).copied().unwrap_or(0);
            match section_runs.last_mut() {
                Some(r) if r.0 == value && r.2 < 255 => r.2 += 1,
                _ => section_runs.push((value, local, 1)),
            }
            max_key = max_key.max(crate::collision::hkp::bvmesh::key(si, local, 0));
        }
        let first_run = runs.len();
        for (value, index, count) in &section_runs {
            runs.push(record(
                g,
                "hkpBvCompressedMeshShapeTreeDataRun",
                &[
                    ("value", Value::UInt(u64::from(*value))),
                    ("index", Value::UInt(*index as u64)),
                    ("count", Value::UInt(*count as u64)),
                ],
            )?);
        }
        let sbox = Aabb::of(prim_boxes.iter().flat_map(|b| [b.min, b.max])).unwrap_or(domain);
        section_boxes.push(sbox);
        let tree = pack::build_tree(&prim_boxes, &sbox, Storage::Axis4);
        let word = |first: usize, n: usize| Value::UInt(((first as u64) << 8) | n as u64);
        let parms = [codec.offset, codec.scale].concat();
        secs.push(record(
            g,
            "hkcdStaticMeshTreeBaseSection",
            &[
                (
                    "nodes",
                    node_values(g, &tree, Storage::Axis4, "hkcdStaticTreeCodec3Axis4")?,
                ),
                ("domain", aabb_value(g, &sbox)?),
                (
                    "codecParms",
                    Value::CArray(parms.iter().map(|&f| Value::Real(f)).collect()),
                ),
                ("firstPackedVertex", Value::UInt(first_packed as u64)),
                (
                    "sharedVertices",
                    record(
                        g,
                        "hkcdStaticMeshTreeBaseSectionSharedVertices",
                        &[("data", word(first_shared, own.len()))],
                    )?,
                ),
                (
                    "primitives",
                    record(
                        g,
                        "hkcdStaticMeshTreeBaseSectionPrimitives",
                        &[("data", word(first_prim, grp.len()))],
                    )?,
                ),
                (
                    "dataRuns",
                    record(
                        g,
                        "hkcdStaticMeshTreeBaseSectionDataRuns",
                        &[("data", word(first_run, section_runs.len()))],
                    )?,
                ),
                ("numPackedVertices", Value::UInt(own.len() as u64)),
                ("numSharedIndices", Value::UInt(theirs.len() as u64)),
            ],
        )?);
    }
    let mesh_tree = pack::build_tree(&section_boxes, &domain, Storage::Axis5);
    // Each section's leaf node.
    let leaves = pack::leaves(&mesh_tree, &domain).map_err(|m| fail("tree.nodes", m))?;
    for (node, index, _) in leaves {
        if let Some(Value::Struct(values)) = secs.get_mut(index as usize) {
            let c = g
                .schema()
                .require("hkcdStaticMeshTreeBaseSection")
                .map_err(graph_err("leafIndex"))?;
            let flat = g.schema().members(c).map_err(graph_err("leafIndex"))?;
            if let Some(i) = flat
                .iter()
                .position(|m| g.schema().member_of(m).name == "leafIndex")
            {
                values[i] = Value::UInt(node as u64);
            }
        }
    }
    let id = g
        .add_object("hkpBvCompressedMeshShape")
        .map_err(graph_err("hkpBvCompressedMeshShape"))?;
    let bits = 32 - max_key.leading_zeros();
    if let Some(v) = item(
        g,
        "hkpBvCompressedMeshShape",
        "bvTreeType",
        "BVTREE_COMPRESSED_MESH",
    ) {
        set(g, id, "bvTreeType", v)?;
    }
    if let Some(v) = item(
        g,
        "hkpBvCompressedMeshShape",
        "weldingType",
        "WELDING_TYPE_NONE",
    ) {
        set(g, id, "weldingType", v)?;
    }
    let domain_value = aabb_value(g, &domain)?;
    let nodes = node_values(g, &mesh_tree, Storage::Axis5, "hkcdStaticTreeCodec3Axis5")?;
    set(g, id, "tree.nodes", nodes)?;
    set(g, id, "tree.domain", domain_value)?;
    set(
        g,
        id,
        "tree.numPrimitiveKeys",
        Value::Int(triangles.len() as i64),
    )?;
    set(g, id, "tree.bitsPerKey", Value::Int(i64::from(bits)))?;
    set(g, id, "tree.maxKeyValue", Value::UInt(u64::from(max_key)))?;
    set(g, id, "tree.sections", Value::list(secs))?;
    set(g, id, "tree.primitives", Value::list(prims))?;
    set(g, id, "tree.sharedVerticesIndex", Value::list(shared_index))?;
    set(
        g,
        id,
        "tree.packedVertices",
        Value::list(packed.iter().map(|&p| Value::UInt(u64::from(p))).collect()),
    )?;
    set(
        g,
        id,
        "tree.sharedVertices",
        Value::list(shared.iter().map(|&p| Value::UInt(p)).collect()),
    )?;
    set(g, id, "tree.primitiveDataRuns", Value::list(runs))?;
    Ok(id)
}

/// One instance to place in a static compound.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceInput {
    /// The child shape (an `hkpBvCompressedMeshShape` built by [`build_mesh`], or any shape
    /// with a box given in `child_box`).
    pub shape: ObjectId,
    /// Translation, rotation quaternion (x, y, z, w), scale.
    pub translation: Vec3,
    /// The rotation quaternion.
    pub rotation: [f32; 4],
    /// The scale per axis.
    pub scale: Vec3,
    /// The child's box in its own space.
    pub child_box: Aabb,
    /// Whether the child is convex (flag 1).
    pub convex: bool,
    /// `userData`.
    pub user_data: u64,
}

impl InstanceInput {
    /// The stored `qstransform`, with the flags in the translation's w lane.
    pub fn qs(&self) -> [f32; 12] {
        let mut qs = [0f32; 12];
        qs[..3].copy_from_slice(&self.translation);
        qs[4..8].copy_from_slice(&self.rotation);
        qs[8..11].copy_from_slice(&self.scale);
        let flags = flags_of(&qs, self.convex);
        qs[3] = f32::from_bits(W_BASE | flags);
        qs
    }
}

/// Adds an `hkpStaticCompoundShape` of `instances` to `g`, with `child_key_bits` bits of
/// child key under each instance index and a tree over the instances' placed boxes.
///
/// # Errors
/// A transform that is not finite, more instances than the key width leaves room for, a
/// schema without the classes.
pub fn build_compound(
    g: &mut Graph,
    instances: &[InstanceInput],
    child_key_bits: u32,
) -> Result<ObjectId> {
    if child_key_bits >= 32
        || (!instances.is_empty() && (instances.len() as u64 - 1) >> (32 - child_key_bits) != 0)
    {
        return Err(fail(
            "numBitsForChildShapeKey",
            format!(
                "{} instances above {child_key_bits} child bits do not fit 32-bit keys",
                instances.len()
            ),
        ));
    }
    let mut values = Vec::with_capacity(instances.len());
    let mut boxes = Vec::with_capacity(instances.len());
    for (k, i) in instances.iter().enumerate() {
        let qs = i.qs();
        if qs.iter().enumerate().any(|(j, x)| j != 3 && !x.is_finite()) {
            return Err(fail(
                "instances",
                format!("instance {k}: a transform lane is not finite"),
            ));
        }
        let t = crate::collision::math::Affine::from_qs(&qs)
            .ok_or_else(|| fail("instances", "bad transform"))?;
        let b = i.child_box;
        let corners = (0..8)
            .map(|c| t.apply([0, 1, 2].map(|a| if c >> a & 1 == 1 { b.max[a] } else { b.min[a] })));
        boxes.push(Aabb::of(corners).unwrap_or(b));
        values.push(record(
            g,
            "hkpStaticCompoundShapeInstance",
            &[
                (
                    "transform",
                    Value::Floats(Floats::new(&qs).unwrap_or_else(|| Floats::zeros(12))),
                ),
                ("shape", Value::Pointer(Some(Ptr::Object(i.shape)))),
                ("userData", Value::UInt(i.user_data)),
            ],
        )?);
    }
    let domain = Aabb::of(boxes.iter().flat_map(|b| [b.min, b.max])).unwrap_or(Aabb {
        min: [0.0; 3],
        max: [0.0; 3],
    });
    let tree = pack::build_tree(&boxes, &domain, Storage::Axis6);
    let id = g
        .add_object("hkpStaticCompoundShape")
        .map_err(graph_err("hkpStaticCompoundShape"))?;
    if let Some(v) = item(
        g,
        "hkpStaticCompoundShape",
        "bvTreeType",
        "BVTREE_STATIC_COMPOUND",
    ) {
        set(g, id, "bvTreeType", v)?;
    }
    set(
        g,
        id,
        "numBitsForChildShapeKey",
        Value::Int(i64::from(child_key_bits)),
    )?;
    set(g, id, "instances", Value::list(values))?;
    let domain_value = aabb_value(g, &domain)?;
    let nodes = node_values(g, &tree, Storage::Axis6, "hkcdStaticTreeCodec3Axis6")?;
    set(g, id, "tree.nodes", nodes)?;
    set(g, id, "tree.domain", domain_value)?;
    Ok(id)
}
