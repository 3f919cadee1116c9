//! `hkpBvCompressedMeshShape` (Havok 2012.2 to 2014): sections of up to 128 primitives of
//! four byte indices, section (11-11-10) and shared (21-21-22) vertices, per-primitive data
//! runs, and the two levels of static trees (docs/collision-notes.md §11). [`decode`] gives
//! every stored part checked against the others; the shape walk takes its triangles.

use crate::graph::{Array, Graph, ObjectId, Value};

use crate::collision::access::Rec;
use crate::collision::hkp::pack::{self, Node, SectionCodec, Storage};
use crate::collision::math::{Aabb, Vec3};
use crate::collision::shapes::{blank, plain};
use crate::collision::{Mesh, Result, ShapeKind, Triangle};

/// What a primitive's four indices say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimitiveKind {
    /// `DE AD DE AD`: an empty slot.
    Invalid,
    /// `i2 == i3`: the triangle `i0 i1 i2`.
    Triangle,
    /// Four different corners: the triangles `i0 i1 i2` and `i0 i2 i3`.
    Quad,
    /// `i1 == i2 == i3`: a custom (convex) piece; hk gives it no triangles.
    Custom,
}

impl PrimitiveKind {
    /// The kind of a primitive with indices `i`.
    pub fn of(i: [u8; 4]) -> PrimitiveKind {
        if i[2] == i[3] {
            if i[1] == i[2] {
                PrimitiveKind::Custom
            } else {
                PrimitiveKind::Triangle
            }
        } else if i == [0xDE, 0xAD, 0xDE, 0xAD] {
            PrimitiveKind::Invalid
        } else {
            PrimitiveKind::Quad
        }
    }

    /// How many triangles (and shape keys) it gives.
    pub fn triangles(self) -> usize {
        match self {
            PrimitiveKind::Triangle => 1,
            PrimitiveKind::Quad => 2,
            _ => 0,
        }
    }
}

/// One decoded section.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// Its stored box (`domain`).
    pub domain: Aabb,
    /// Its vertex codec (`codecParms`).
    pub codec: SectionCodec,
    /// Its primitives: the first one's index in the mesh, and how many.
    pub primitives: (usize, usize),
    /// Its packed vertices: the first one's index in the mesh, and how many.
    pub packed: (usize, usize),
    /// Its shared-vertex indices: the first one's index in `sharedVerticesIndex`, and how
    /// many.
    pub shared_indices: (usize, usize),
    /// Its data runs: the first one's index in `primitiveDataRuns`, and how many.
    pub runs: (usize, usize),
    /// The page of the shared vertices it names (`0x10000 · page` is added to each index).
    pub page: u32,
    /// The node of the mesh's tree that is this section's leaf (`leafIndex`).
    pub leaf_index: u32,
    /// Its own tree: per primitive of the section (by local index), the leaf box.
    pub leaf_boxes: Vec<Aabb>,
}

/// One decoded primitive.
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    /// Its section.
    pub section: usize,
    /// Its index in the section.
    pub local: usize,
    /// Its four stored indices.
    pub indices: [u8; 4],
    /// What they make it.
    pub kind: PrimitiveKind,
    /// Its corners (four for a quad, three for a triangle; none for the others).
    pub corners: Vec<Vec3>,
    /// Its per-primitive data value (the `value` of the data run over it).
    pub data: u32,
}

/// A decoded compressed mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct BvMesh {
    /// The mesh's box (`tree.domain`), which shared vertices are coded against.
    pub domain: Aabb,
    /// Its sections.
    pub sections: Vec<Section>,
    /// Its primitives, section by section.
    pub primitives: Vec<Primitive>,
    /// The stored packed vertices (`tree.packedVertices`, as stored bits).
    pub packed: Vec<u32>,
    /// The stored shared vertices (`tree.sharedVertices`, as stored bits).
    pub shared: Vec<u64>,
    /// The mesh tree's leaves: per section, the leaf box and the node.
    pub section_boxes: Vec<(usize, Aabb)>,
    /// The stored `numPrimitiveKeys`.
    pub num_primitive_keys: i64,
    /// The stored `maxKeyValue`.
    pub max_key_value: i64,
}

impl BvMesh {
    /// Triangles over every primitive.
    pub fn triangle_count(&self) -> usize {
        self.primitives.iter().map(|p| p.kind.triangles()).sum()
    }

    /// The largest shape key of a triangle (`section << 8 | primitive << 1 | triangle`).
    pub fn max_key(&self) -> Option<u32> {
        self.primitives
            .iter()
            .filter(|p| p.kind.triangles() > 0)
            .map(|p| key(p.section, p.local, p.kind.triangles() - 1))
            .max()
    }
}

/// A triangle's shape key: `section << 8 | primitive << 1 | triangle`.
pub fn key(section: usize, local: usize, triangle: usize) -> u32 {
    (section as u32) << 8 | (local as u32) << 1 | triangle as u32
}

/// Stored bits of an integer array (a 32-bit column read as signed, from an old binary
/// tagfile's definitions, keeps its bits).
fn bits32(r: &Rec<'_>, name: &str) -> Result<Vec<u32>> {
    match r.array(name)? {
        Array::U32(v) => Ok(v.clone()),
        Array::I32(v) => Ok(v.iter().map(|&x| x as u32).collect()),
        Array::Values(v) if v.is_empty() => Ok(Vec::new()),
        _ => Err(r.err(name, "expected 32-bit integers")),
    }
}

/// Stored bits of a 64-bit integer array.
fn bits64(r: &Rec<'_>, name: &str) -> Result<Vec<u64>> {
    match r.array(name)? {
        Array::U64(v) => Ok(v.clone()),
        Array::I64(v) => Ok(v.iter().map(|&x| x as u64).collect()),
        Array::Values(v) if v.is_empty() => Ok(Vec::new()),
        _ => Err(r.err(name, "expected 64-bit integers")),
    }
}

/// An unsigned member of at most 32 bits (a signed column's bits kept).
fn word(r: &Rec<'_>, name: &str) -> Result<u32> {
    let v = r.int(name)?;
    u32::try_from(v)
        .or_else(|_| i32::try_from(v).map(|x| x as u32))
        .map_err(|_| r.err(name, format!("{v} does not fit 32 bits")))
}

/// An `hkAabb` member.
pub(crate) fn aabb(r: &Rec<'_>, name: &str) -> Result<Aabb> {
    let b = r.rec(name)?;
    let (min, max) = (b.vec3("min")?, b.vec3("max")?);
    // NaN lanes fail too.
    if (0..3).any(|i| min[i].partial_cmp(&max[i]).is_none_or(|o| o.is_gt())) {
        return Err(r.err(name, format!("min {min:?} is not below max {max:?}")));
    }
    Ok(Aabb { min, max })
}

/// A static tree's nodes (`nodes` of `r`) in `storage`.
pub(crate) fn nodes(r: &Rec<'_>, storage: Storage) -> Result<Vec<Node>> {
    r.recs("nodes")?
        .iter()
        .map(|n| {
            let xyz = match n.get("xyz")? {
                Value::CArray(v) | Value::Array(Array::Values(v)) if v.len() == 3 => {
                    let mut b = [0u8; 3];
                    for (o, x) in b.iter_mut().zip(v) {
                        *o = match x {
                            Value::UInt(u) => u8::try_from(*u).ok(),
                            Value::Int(i) => u8::try_from(*i)
                                .ok()
                                .or(i8::try_from(*i).ok().map(|x| x as u8)),
                            _ => None,
                        }
                        .ok_or_else(|| n.err("xyz", "expected three bytes"))?;
                    }
                    b
                }
                Value::Array(Array::U8(v)) if v.len() == 3 => [v[0], v[1], v[2]],
                v => {
                    return Err(n.err(
                        "xyz",
                        format!("expected three bytes, found {}", v.describe()),
                    ))
                }
            };
            let byte = |name: &str| -> Result<u32> { Ok(word(n, name)? & 0xFFFF) };
            Ok(match storage {
                Storage::Axis4 => storage.node(xyz, byte("data")? & 0xFF, 0),
                _ => storage.node(xyz, byte("hiData")? & 0xFF, byte("loData")?),
            })
        })
        .collect()
}

/// Leaves of a tree, each index once and below `count`: per index, (node, box).
pub(crate) fn leaf_table(
    r: &Rec<'_>,
    member: &str,
    nodes: &[Node],
    domain: &Aabb,
    count: usize,
) -> Result<Vec<(usize, Aabb)>> {
    let leaves = pack::leaves(nodes, domain).map_err(|m| r.err(member, m))?;
    let mut table: Vec<Option<(usize, Aabb)>> = vec![None; count];
    for (node, index, b) in leaves {
        let slot = table
            .get_mut(index as usize)
            .ok_or_else(|| r.err(member, format!("node {node}: leaf {index} of {count}")))?;
        if slot.replace((node, b)).is_some() {
            return Err(r.err(member, format!("node {node}: leaf {index} appears twice")));
        }
    }
    table
        .into_iter()
        .enumerate()
        .map(|(i, t)| t.ok_or_else(|| r.err(member, format!("no leaf holds {i} of {count}"))))
        .collect()
}

/// Decodes compressed mesh `id`.
///
/// # Errors
/// A member missing or of the wrong kind, a section whose ranges run past the arrays, an
/// index past its section's vertices, a tree that does not cover its items once: each
/// naming the object and member.
pub fn decode(graph: &Graph, id: ObjectId) -> Result<BvMesh> {
    let graph = &*graph.with_struct_values();
    let r = Rec::object(graph, id)?;
    decode_rec(&r)
}

pub(crate) fn decode_rec(r: &Rec<'_>) -> Result<BvMesh> {
    let t = r.rec("tree")?;
    let domain = aabb(&t, "domain")?;
    let packed = bits32(&t, "packedVertices")?;
    let shared = bits64(&t, "sharedVertices")?;
    let shared_index = crate::collision::access::ints(t.array("sharedVerticesIndex")?)
        .ok_or_else(|| t.err("sharedVerticesIndex", "expected integers"))?;
    let prims = t.recs("primitives")?;
    let runs = t.recs("primitiveDataRuns")?;
    let secs = t.recs("sections")?;
    let mut out = BvMesh {
        domain,
        sections: Vec::with_capacity(secs.len()),
        primitives: Vec::with_capacity(prims.len()),
        packed: packed.clone(),
        shared: shared.clone(),
        section_boxes: Vec::new(),
        num_primitive_keys: t.int("numPrimitiveKeys")?,
        max_key_value: t.int("maxKeyValue")?,
    };
    let tree = nodes(&t, Storage::Axis5)?;
    if !tree.is_empty() {
        out.section_boxes = leaf_table(&t, "nodes", &tree, &domain, secs.len())?;
    }
    let range = |s: &Rec<'_>, m: &str, first: u32, n: u32, len: usize| -> Result<(usize, usize)> {
        let (a, n) = (first as usize, n as usize);
        if a + n > len {
            return Err(s.err(m, format!("{a} + {n} runs past the {len} elements")));
        }
        Ok((a, n))
    };
    for (si, s) in secs.iter().enumerate() {
        let p = word(&s.rec("primitives")?, "data")?;
        let sv = word(&s.rec("sharedVertices")?, "data")?;
        let dr = word(&s.rec("dataRuns")?, "data")?;
        let num_packed = word(s, "numPackedVertices")?;
        let num_shared = word(s, "numSharedIndices")?;
        if sv & 0xFF != num_packed {
            return Err(s.err(
                "sharedVertices",
                format!(
                    "{} packed vertices in the low byte, numPackedVertices {num_packed}",
                    sv & 0xFF
                ),
            ));
        }
        let first_packed = word(s, "firstPackedVertex")?;
        let parms: Vec<f32> = match s.get("codecParms")? {
            Value::CArray(v) => v
                .iter()
                .filter_map(|x| match x {
                    Value::Real(f) => Some(*f),
                    _ => None,
                })
                .collect(),
            v => v.as_floats().map(<[f32]>::to_vec).unwrap_or_default(),
        };
        if parms.len() != 6 {
            return Err(s.err("codecParms", "expected six reals"));
        }
        let section = Section {
            domain: aabb(s, "domain")?,
            codec: SectionCodec {
                offset: [parms[0], parms[1], parms[2]],
                scale: [parms[3], parms[4], parms[5]],
            },
            primitives: range(s, "primitives", p >> 8, p & 0xFF, prims.len())?,
            packed: range(
                s,
                "firstPackedVertex",
                first_packed,
                num_packed,
                packed.len(),
            )?,
            shared_indices: range(s, "sharedVertices", sv >> 8, num_shared, shared_index.len())?,
            runs: range(s, "dataRuns", dr >> 8, dr & 0xFF, runs.len())?,
            page: word(s, "page")?,
            leaf_index: word(s, "leafIndex")?,
            leaf_boxes: Vec::new(),
        };
        let n = section.primitives.1;
        let own = nodes(s, Storage::Axis4)?;
        // A section without a tree (none stored) has no leaf boxes.
        let section_tree = if own.is_empty() {
            Vec::new()
        } else {
            leaf_table(s, "nodes", &own, &section.domain, n)?
        };
        let mut data = vec![0u32; n];
        for (k, run) in runs
            .iter()
            .enumerate()
            .skip(section.runs.0)
            .take(section.runs.1)
        {
            let (at, count) = (word(run, "index")? as usize, word(run, "count")? as usize);
            let cells = data.get_mut(at..at + count).ok_or_else(|| {
                run.err(
                    "index",
                    format!("run {k} covers {at} + {count} of the section's {n} primitives"),
                )
            })?;
            cells.fill(word(run, "value")?);
        }
        for local in 0..n {
            let pr = &prims[section.primitives.0 + local];
            let idx = primitive_indices(pr)?;
            let kind = PrimitiveKind::of(idx);
            let used = match kind {
                PrimitiveKind::Triangle => 3,
                PrimitiveKind::Quad => 4,
                _ => 0,
            };
            let mut corners = Vec::with_capacity(used);
            for &i in &idx[..used] {
                corners.push(vertex(&out, &section, &shared_index, i).map_err(|m| {
                    pr.err("indices", format!("section {si} primitive {local}: {m}"))
                })?);
            }
            out.primitives.push(Primitive {
                section: si,
                local,
                indices: idx,
                kind,
                corners,
                data: data[local],
            });
        }
        out.sections.push(Section {
            leaf_boxes: section_tree.into_iter().map(|(_, b)| b).collect(),
            ..section
        });
    }
    Ok(out)
}

fn primitive_indices(pr: &Rec<'_>) -> Result<[u8; 4]> {
    let bad = || pr.err("indices", "expected four bytes");
    let v = pr.get("indices")?;
    let list: Vec<i64> = match v {
        Value::CArray(v) | Value::Array(Array::Values(v)) => v
            .iter()
            .map(|x| match x {
                Value::UInt(u) => i64::try_from(*u).ok(),
                Value::Int(i) => Some(*i),
                _ => None,
            })
            .collect::<Option<_>>()
            .ok_or_else(bad)?,
        Value::Array(Array::U8(v)) => v.iter().map(|&x| i64::from(x)).collect(),
        _ => return Err(bad()),
    };
    if list.len() != 4 {
        return Err(bad());
    }
    let mut out = [0u8; 4];
    for (o, x) in out.iter_mut().zip(list) {
        // A byte read as signed keeps its bits.
        *o = u8::try_from(x)
            .or_else(|_| i8::try_from(x).map(|b| b as u8))
            .map_err(|_| bad())?;
    }
    Ok(out)
}

/// Vertex `i` of `section`: packed below the section's packed count, shared above.
fn vertex(
    m: &BvMesh,
    s: &Section,
    shared_index: &[u32],
    i: u8,
) -> std::result::Result<Vec3, String> {
    let i = usize::from(i);
    if i < s.packed.1 {
        return Ok(s.codec.decode(m.packed[s.packed.0 + i]));
    }
    let k = i - s.packed.1;
    if k >= s.shared_indices.1 {
        return Err(format!(
            "index {i} is past its {} packed and {} shared vertices",
            s.packed.1, s.shared_indices.1
        ));
    }
    let slot = s.page as usize * 0x10000 + shared_index[s.shared_indices.0 + k] as usize;
    let v = m
        .shared
        .get(slot)
        .ok_or_else(|| format!("index {i} names shared vertex {slot} of {}", m.shared.len()))?;
    Ok(pack::decode_shared(*v, &m.domain))
}

/// The compressed mesh `r` as one [`Mesh`]: every section's packed vertices, then the
/// shared ones; a triangle or quad primitive's triangles keyed
/// `section << 8 | primitive << 1 | triangle`, its data value as the surface id.
pub(crate) fn read(r: &Rec<'_>) -> Result<Mesh> {
    let d = decode_rec(r)?;
    let mut m = blank(r, ShapeKind::BvCompressedMesh);
    let t = r.rec("tree")?;
    let shared_index =
        crate::collision::access::ints(t.array("sharedVerticesIndex")?).unwrap_or_default();
    let mut base = Vec::with_capacity(d.sections.len());
    for s in &d.sections {
        base.push(m.vertices.len() as u32);
        for k in 0..s.packed.1 {
            m.vertices.push(s.codec.decode(d.packed[s.packed.0 + k]));
        }
    }
    let shared_base = m.vertices.len() as u32;
    m.vertices
        .extend(d.shared.iter().map(|&v| pack::decode_shared(v, &d.domain)));
    for p in &d.primitives {
        let s = &d.sections[p.section];
        let at = |i: u8| -> u32 {
            let i = usize::from(i);
            if i < s.packed.1 {
                base[p.section] + i as u32
            } else {
                let k = s.shared_indices.0 + i - s.packed.1;
                shared_base + s.page * 0x10000 + shared_index[k]
            }
        };
        let v = p.indices.map(at);
        let tris: &[[u32; 3]] = match p.kind {
            PrimitiveKind::Triangle => &[[v[0], v[1], v[2]]],
            PrimitiveKind::Quad => &[[v[0], v[1], v[2]], [v[0], v[2], v[3]]],
            _ => &[],
        };
        for (k, tri) in tris.iter().enumerate() {
            m.triangles.push(Triangle {
                surface: Some(p.data),
                ..plain(*tri, key(p.section, p.local, k))
            });
        }
    }
    m.stored_aabb = Some(d.domain);
    m.declared_triangles = u64::try_from(d.num_primitive_keys).ok();
    Ok(m)
}
