//! Builds an `hkpBvCompressedMeshShape` from triangles and an `hkpStaticCompoundShape` from
//! instances, into a graph of a schema that has the classes (docs/collision-notes.md §11):
//! sections of at most 128 triangles and 255 vertices, vertices used by one section packed
//! 11-11-10 over the section's box and the others shared 21-21-22 over the mesh's, data runs,
//! and static trees whose boxes are coded conservatively (each decoded box holds its
//! children's decoded geometry). Every value goes in through [`Graph::set`].

use std::collections::HashMap;

use crate::graph::Floats;
use crate::graph::{default_values, Graph, ObjectId, Ptr, Value};
use crate::schema::Shape;

use crate::collision::access::Rec;
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

/// Splits primitives `items` into groups of at most [`MAX_SECTION_PRIMITIVES`] primitives
/// naming at most [`MAX_SECTION_VERTICES`] vertices.
fn sections(items: Vec<u32>, boxes: &[Aabb], tris: &[[u32; 4]], out: &mut Vec<Vec<u32>>) {
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
    let prims: Vec<[u32; 4]> = triangles.iter().map(|t| [t[0], t[1], t[2], t[2]]).collect();
    build_primitives(g, vertices, &prims, data)
}

/// As [`build_mesh`], from primitives: a quad `a b c d` (the triangles `a b c` and `a c d`,
/// keys `… << 1 | 0` and `| 1`) or a triangle `a b c c`; `data` holds a value per
/// primitive.
///
/// # Errors
/// As [`build_mesh`].
pub fn build_primitives(
    g: &mut Graph,
    vertices: &[Vec3],
    triangles: &[[u32; 4]],
    data: &[u32],
) -> Result<ObjectId> {
    check_input(vertices, triangles, data)?;
    let domain = Aabb::of(vertices.iter().copied()).unwrap_or(Aabb {
        min: [0.0; 3],
        max: [0.0; 3],
    });
    let tri_box =
        |t: &[u32; 4]| Aabb::of(t.iter().map(|&v| vertices[v as usize])).unwrap_or(domain);
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
    let mut tree = MeshTree::new(vertices, triangles, data, domain, &groups)?;
    for (si, grp) in groups.iter().enumerate() {
        tree.add_section(g, si, grp)?;
    }
    let mesh_tree = pack::build_tree(&tree.section_boxes, &domain, Storage::Axis5);
    set_leaf_indices(g, &mut tree.secs, &mesh_tree, &domain)?;
    tree.write(g, &mesh_tree)
}

/// Refuses indices past the vertices, `data` of the wrong length and vertices that are not
/// finite.
fn check_input(vertices: &[Vec3], triangles: &[[u32; 4]], data: &[u32]) -> Result<()> {
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
    Ok(())
}

/// The arrays of an `hkpBvCompressedMeshShape`'s tree as its sections are added.
struct MeshTree<'a> {
    vertices: &'a [Vec3],
    triangles: &'a [[u32; 4]],
    data: &'a [u32],
    domain: Aabb,
    /// Per vertex: whether more than one section names it.
    is_shared: HashMap<u32, bool>,
    /// Per shared vertex: its slot in `shared`.
    shared_slot: HashMap<u32, u32>,
    shared: Vec<u64>,
    packed: Vec<u32>,
    shared_index: Vec<Value>,
    prims: Vec<Value>,
    runs: Vec<Value>,
    secs: Vec<Value>,
    section_boxes: Vec<Aabb>,
    max_key: u32,
}

/// One section's vertices: its own (packed over its box) and the shared ones it names, each
/// with its index in the section and its decoded position.
struct SectionVertices {
    own: Vec<u32>,
    theirs: Vec<u32>,
    codec: SectionCodec,
    decoded: HashMap<u32, (u8, Vec3)>,
}

impl<'a> MeshTree<'a> {
    /// Finds the vertices named by more than one section and encodes them as shared
    /// vertices, in the order the sections first name them.
    fn new(
        vertices: &'a [Vec3],
        triangles: &'a [[u32; 4]],
        data: &'a [u32],
        domain: Aabb,
        groups: &[Vec<u32>],
    ) -> Result<Self> {
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
        let is_shared: HashMap<u32, bool> = users.into_iter().map(|(v, (_, s))| (v, s)).collect();
        let mut shared_slot: HashMap<u32, u32> = HashMap::new();
        let mut shared: Vec<u64> = Vec::new();
        for grp in groups {
            for &t in grp {
                for &v in &triangles[t as usize] {
                    if is_shared[&v] && !shared_slot.contains_key(&v) {
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
        Ok(MeshTree {
            vertices,
            triangles,
            data,
            domain,
            is_shared,
            shared_slot,
            shared,
            packed: Vec::new(),
            shared_index: Vec::new(),
            prims: Vec::new(),
            runs: Vec::new(),
            secs: Vec::new(),
            section_boxes: Vec::new(),
            max_key: 0,
        })
    }

    /// Packs section `grp`'s own vertices over their box and lists the shared ones it names.
    fn section_vertices(&mut self, grp: &[u32]) -> SectionVertices {
        let mut own: Vec<u32> = Vec::new();
        let mut theirs: Vec<u32> = Vec::new();
        for &t in grp {
            for &v in &self.triangles[t as usize] {
                let list = if self.is_shared[&v] {
                    &mut theirs
                } else {
                    &mut own
                };
                if !list.contains(&v) {
                    list.push(v);
                }
            }
        }
        let codec = Aabb::of(own.iter().map(|&v| self.vertices[v as usize]))
            .map(|b| SectionCodec::spanning(&b))
            .unwrap_or(SectionCodec {
                offset: self.domain.min,
                scale: [0.0; 3],
            });
        let mut decoded: HashMap<u32, (u8, Vec3)> = HashMap::new();
        for (k, &v) in own.iter().enumerate() {
            let p = codec.encode(self.vertices[v as usize]);
            self.packed.push(p);
            decoded.insert(v, (k as u8, codec.decode(p)));
        }
        for (k, &v) in theirs.iter().enumerate() {
            let slot = self.shared_slot[&v];
            self.shared_index.push(Value::UInt(u64::from(slot)));
            let at = (own.len() + k) as u8;
            let p = pack::decode_shared(self.shared[slot as usize], &self.domain);
            decoded.insert(v, (at, p));
        }
        SectionVertices {
            own,
            theirs,
            codec,
            decoded,
        }
    }

    /// Adds section `si` of triangles `grp`: its vertices, primitives, data runs and tree.
    fn add_section(&mut self, g: &Graph, si: usize, grp: &[u32]) -> Result<()> {
        let first_packed = self.packed.len();
        let first_shared = self.shared_index.len();
        let sv = self.section_vertices(grp);
        let first_prim = self.prims.len();
        let mut prim_boxes = Vec::with_capacity(grp.len());
        let mut section_runs: Vec<(u32, usize, usize)> = Vec::new();
        for (local, &t) in grp.iter().enumerate() {
            let [a, b, c, d] = self.triangles[t as usize].map(|v| sv.decoded[&v]);
            self.prims.push(record(
                g,
                "hkcdStaticMeshTreeBasePrimitive",
                &[("indices", bytes(&[a.0, b.0, c.0, d.0]))],
            )?);
            prim_boxes.push(Aabb::of([a.1, b.1, c.1, d.1]).unwrap_or(self.domain));
            let value = self.data.get(t as usize).copied().unwrap_or(0);
            match section_runs.last_mut() {
                Some(r) if r.0 == value && r.2 < 255 => r.2 += 1,
                _ => section_runs.push((value, local, 1)),
            }
            let second = usize::from(c.0 != d.0);
            let key = crate::collision::hkp::bvmesh::key(si, local, second);
            self.max_key = self.max_key.max(key);
        }
        let first_run = self.runs.len();
        for (value, index, count) in &section_runs {
            self.runs.push(record(
                g,
                "hkpBvCompressedMeshShapeTreeDataRun",
                &[
                    ("value", Value::UInt(u64::from(*value))),
                    ("index", Value::UInt(*index as u64)),
                    ("count", Value::UInt(*count as u64)),
                ],
            )?);
        }
        let sbox = Aabb::of(prim_boxes.iter().flat_map(|b| [b.min, b.max])).unwrap_or(self.domain);
        self.section_boxes.push(sbox);
        let tree = pack::build_tree(&prim_boxes, &sbox, Storage::Axis4);
        let firsts = [
            (first_shared, sv.own.len()),
            (first_prim, grp.len()),
            (first_run, section_runs.len()),
        ];
        let section = section_record(g, &sv, &tree, &sbox, first_packed, firsts)?;
        self.secs.push(section);
        Ok(())
    }

    /// Adds the shape object with the mesh tree `mesh_tree` over the sections.
    fn write(self, g: &mut Graph, mesh_tree: &[Node]) -> Result<ObjectId> {
        let id = g
            .add_object("hkpBvCompressedMeshShape")
            .map_err(graph_err("hkpBvCompressedMeshShape"))?;
        let bits = 32 - self.max_key.leading_zeros();
        for (member, value) in [
            ("bvTreeType", "BVTREE_COMPRESSED_MESH"),
            ("weldingType", "WELDING_TYPE_NONE"),
        ] {
            if let Some(v) = item(g, "hkpBvCompressedMeshShape", member, value) {
                set(g, id, member, v)?;
            }
        }
        let domain_value = aabb_value(g, &self.domain)?;
        let nodes = node_values(g, mesh_tree, Storage::Axis5, "hkcdStaticTreeCodec3Axis5")?;
        let keys = self
            .triangles
            .iter()
            .map(|t| if t[2] == t[3] { 1 } else { 2 })
            .sum::<i64>();
        // An old binary tagfile's definitions give the two arrays as signed integers
        // (docs/collision-notes.md §11.2): the same bits, as the member takes them.
        let signed = |path: &str| {
            let class = g.object(id).class;
            matches!(g.resolve(class, path), Ok((_, Shape::Array(_, e))) if matches!(*e, Shape::Int { signed: true, .. }))
        };
        let (sp, ss) = (signed("tree.packedVertices"), signed("tree.sharedVertices"));
        let packed = self.packed.iter().map(|&p| {
            if sp {
                Value::Int(i64::from(p as i32))
            } else {
                Value::UInt(u64::from(p))
            }
        });
        let shared = self.shared.iter().map(|&p| {
            if ss {
                Value::Int(p as i64)
            } else {
                Value::UInt(p)
            }
        });
        for (path, value) in [
            ("tree.nodes", nodes),
            ("tree.domain", domain_value),
            ("tree.numPrimitiveKeys", Value::Int(keys)),
            ("tree.bitsPerKey", Value::Int(i64::from(bits))),
            ("tree.maxKeyValue", Value::UInt(u64::from(self.max_key))),
            ("tree.sections", Value::list(self.secs)),
            ("tree.primitives", Value::list(self.prims)),
            ("tree.sharedVerticesIndex", Value::list(self.shared_index)),
            ("tree.packedVertices", Value::list(packed.collect())),
            ("tree.sharedVertices", Value::list(shared.collect())),
            ("tree.primitiveDataRuns", Value::list(self.runs)),
        ] {
            set(g, id, path, value)?;
        }
        Ok(id)
    }
}

/// One `hkcdStaticMeshTreeBaseSection`: its tree, box, codec, first packed vertex, and the
/// (first, count) words of its shared indices, primitives and data runs.
fn section_record(
    g: &Graph,
    sv: &SectionVertices,
    tree: &[Node],
    sbox: &Aabb,
    first_packed: usize,
    firsts: [(usize, usize); 3],
) -> Result<Value> {
    let word = |(first, n): (usize, usize)| Value::UInt(((first as u64) << 8) | n as u64);
    let parms = [sv.codec.offset, sv.codec.scale].concat();
    let part = |class: &str, w: (usize, usize)| record(g, class, &[("data", word(w))]);
    record(
        g,
        "hkcdStaticMeshTreeBaseSection",
        &[
            (
                "nodes",
                node_values(g, tree, Storage::Axis4, "hkcdStaticTreeCodec3Axis4")?,
            ),
            ("domain", aabb_value(g, sbox)?),
            (
                "codecParms",
                Value::CArray(parms.iter().map(|&f| Value::Real(f)).collect()),
            ),
            ("firstPackedVertex", Value::UInt(first_packed as u64)),
            (
                "sharedVertices",
                part("hkcdStaticMeshTreeBaseSectionSharedVertices", firsts[0])?,
            ),
            (
                "primitives",
                part("hkcdStaticMeshTreeBaseSectionPrimitives", firsts[1])?,
            ),
            (
                "dataRuns",
                part("hkcdStaticMeshTreeBaseSectionDataRuns", firsts[2])?,
            ),
            ("numPackedVertices", Value::UInt(sv.own.len() as u64)),
            ("numSharedIndices", Value::UInt(sv.theirs.len() as u64)),
        ],
    )
}

/// Sets each section's `leafIndex` to its leaf node in the mesh tree.
fn set_leaf_indices(
    g: &Graph,
    secs: &mut [Value],
    mesh_tree: &[Node],
    domain: &Aabb,
) -> Result<()> {
    let leaves = pack::leaves(mesh_tree, domain).map_err(|m| fail("tree.nodes", m))?;
    if leaves.is_empty() || secs.is_empty() {
        return Ok(());
    }
    let c = g
        .schema()
        .require("hkcdStaticMeshTreeBaseSection")
        .map_err(graph_err("leafIndex"))?;
    let flat = g.schema().members(c).map_err(graph_err("leafIndex"))?;
    let Some(i) = flat
        .iter()
        .position(|m| g.schema().member_of(m).name == "leafIndex")
    else {
        return Ok(());
    };
    for (node, index, _) in leaves {
        if let Some(Value::Struct(values)) = secs.get_mut(index as usize) {
            values[i] = Value::UInt(node as u64);
        }
    }
    Ok(())
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
    // The children's stored boxes, from one view of the graph with struct values (a view
    // per child would walk the whole graph once per instance).
    let stored: Vec<Aabb> = {
        let view = g.with_struct_values();
        instances
            .iter()
            .map(|i| stored_box(&view, i.shape, i.child_box))
            .collect()
    };
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
        let b = stored[k];
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

/// `given` grown to hold the vertices a compressed-mesh child decodes to: quantisation moves
/// a vertex up to half a step, possibly outside the box of the vertices it was built from,
/// and a leaf box must hold what queries see. Any other child keeps `given`.
/// `given`, grown to hold the decoded vertices of `child` in `view` (a graph with struct
/// values, [`Graph::with_struct_values`]).
fn stored_box(view: &Graph, child: ObjectId, given: Aabb) -> Aabb {
    let Ok(mesh) = Rec::object(view, child).and_then(|r| super::bvmesh::decode_rec(&r)) else {
        return given;
    };
    let corners = mesh
        .primitives
        .iter()
        .flat_map(|p| p.corners.iter().copied());
    Aabb::of([given.min, given.max].into_iter().chain(corners)).unwrap_or(given)
}
