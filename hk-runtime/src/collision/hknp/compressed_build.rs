//! hk's compressed-mesh encoder (docs/collision-notes.md §12.2): triangles and quads into
//! the sections, packed and shared vertices, primitives and data runs of an
//! `hknpCompressedMeshShape`, through [`Graph::set`] like every hknp builder
//! (`build` re-exports it).

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::graph::{Graph, ObjectId, Value};

use crate::collision::hknp::compressed::EMPTY_PRIMITIVE;
use crate::collision::hknp::packed::{Grid, PACKED_BITS, SHARED_BITS};
use crate::collision::hknp::values::{fill, set_aabb, shape, uints};
use crate::collision::hkp::pack::{self, Node, Storage};
use crate::collision::math::{Aabb, Vec3};

/// The most primitives the encoder puts in one section.
pub const SECTION_PRIMITIVES: usize = 128;
/// The most vertices one section's primitives may use (indices are bytes).
pub const SECTION_VERTICES: usize = 255;

/// Triangles and quads for [`add_compressed_mesh`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshInput {
    /// Vertex positions.
    pub vertices: Vec<Vec3>,
    /// Primitives as four vertex indices: a quad `a, b, c, d`, or a triangle `a, b, c, c`.
    pub primitives: Vec<[u32; 4]>,
    /// A material value per primitive (its data run's value), or empty for 0 everywhere.
    pub materials: Vec<u16>,
}

impl MeshInput {
    /// The triangles the primitives make (two per quad).
    pub fn triangle_count(&self) -> usize {
        self.primitives
            .iter()
            .map(|p| if p[2] == p[3] { 1 } else { 2 })
            .sum()
    }
}

/// What [`add_compressed_mesh`] wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshLayout {
    /// The `hknpCompressedMeshShape`.
    pub shape: ObjectId,
    /// Sections.
    pub sections: usize,
    /// Packed (`u32`) vertices.
    pub packed: usize,
    /// Shared (`u64`) vertices.
    pub shared: usize,
    /// Data runs.
    pub runs: usize,
}

/// One section under construction: its primitives and the input vertices they use.
#[derive(Default)]
struct Section {
    prims: Vec<usize>,
    vertices: Vec<u32>,
    local: HashMap<u32, usize>,
}

fn check_mesh(input: &MeshInput) -> Result<()> {
    let n = input.vertices.len();
    if let Some(i) = input
        .vertices
        .iter()
        .position(|v| v.iter().any(|x| !x.is_finite()))
    {
        return Err(Error::invalid_write(format!(
            "mesh vertex {i} is not finite"
        )));
    }
    for (k, p) in input.primitives.iter().enumerate() {
        if let Some(&bad) = p.iter().find(|&&v| v as usize >= n) {
            return Err(Error::invalid_write(format!(
                "mesh primitive {k} names vertex {bad} of {n}"
            )));
        }
        if p[0] == p[1] || p[1] == p[2] || p[0] == p[2] {
            return Err(Error::invalid_write(format!(
                "mesh primitive {k} {p:?} repeats a corner (only a triangle's last index may repeat)"
            )));
        }
    }
    if !input.materials.is_empty() && input.materials.len() != input.primitives.len() {
        return Err(Error::invalid_write(format!(
            "{} materials for {} primitives",
            input.materials.len(),
            input.primitives.len()
        )));
    }
    Ok(())
}

/// Splits primitives into sections of at most [`SECTION_PRIMITIVES`] primitives naming at
/// most [`SECTION_VERTICES`] vertices: halving a group at the median of its primitives'
/// box centres along their widest axis until it fits, so a section is a compact piece of
/// the mesh whatever the input order.
fn sections(input: &MeshInput) -> Vec<Section> {
    let boxes: Vec<Aabb> = input
        .primitives
        .iter()
        .map(|p| {
            Aabb::of(p.map(|v| input.vertices[v as usize])).unwrap_or(Aabb {
                min: [0.0; 3],
                max: [0.0; 3],
            })
        })
        .collect();
    let mut out = Vec::new();
    let mut work = vec![(0..input.primitives.len() as u32).collect::<Vec<u32>>()];
    while let Some(items) = work.pop() {
        if items.is_empty() {
            continue;
        }
        let mut s = Section::default();
        for &k in &items {
            for &v in &input.primitives[k as usize] {
                if !s.local.contains_key(&v) {
                    s.local.insert(v, s.vertices.len());
                    s.vertices.push(v);
                }
            }
        }
        let fits = items.len() <= SECTION_PRIMITIVES && s.vertices.len() <= SECTION_VERTICES;
        if fits || items.len() == 1 {
            s.prims = items.iter().map(|&k| k as usize).collect();
            out.push(s);
            continue;
        }
        let (a, b) = pack::split(&items, &boxes);
        work.push(b);
        work.push(a);
    }
    out
}

/// Whether the quad's four corners lie in one plane (relative tolerance 10⁻⁶).
fn flat(p: [Vec3; 4]) -> bool {
    let sub = |a: Vec3, b: Vec3| [0, 1, 2].map(|i| f64::from(a[i]) - f64::from(b[i]));
    let (u, v, w) = (sub(p[1], p[0]), sub(p[2], p[0]), sub(p[3], p[0]));
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let d = n[0] * w[0] + n[1] * w[1] + n[2] * w[2];
    let scale = [u, v, w].iter().flatten().fold(0f64, |m, x| m.max(x.abs()));
    d.abs() <= 1e-6 * scale.powi(3).max(f64::MIN_POSITIVE)
}

/// A bit field of `bits` with the given bits set.
fn bit_words(bits: usize, set: impl Iterator<Item = usize>) -> Vec<u64> {
    let mut w = vec![0u64; bits.div_ceil(32)];
    for b in set {
        w[b / 32] |= 1 << (b % 32);
    }
    w
}

/// `offset << 8 | count` for a section's `data` words.
fn run_word(offset: usize, count: usize, what: &str) -> Result<Value> {
    if offset >= 1 << 24 || count > 0xFF {
        return Err(Error::invalid_write(format!(
            "{what}: offset {offset} and count {count} do not fit a section's data word"
        )));
    }
    Ok(Value::UInt((offset << 8 | count) as u64))
}

/// Adds an `hknpCompressedMeshShape` (and its data object) holding `input`: the primitives
/// split into compact sections; each vertex one section uses packed into a `u32` on that section's
/// grid, each vertex several sections use packed once into a `u64` on the whole mesh's grid
/// (docs/collision-notes.md §3, §12); a data run per stretch of equal material; quads whose
/// corners are coplanar marked in `quadIsFlat`; the static trees of §11.3 over each
/// section's primitives and over the sections, coded against the decoded vertices.
///
/// # Errors
/// An index past the vertices, a repeated corner, a non-finite vertex, or a mesh too large
/// for the section words.
pub fn add_compressed_mesh(g: &mut Graph, input: &MeshInput) -> Result<MeshLayout> {
    check_mesh(input)?;
    let sections = sections(input);
    let shape = shape(
        g,
        "hknpCompressedMeshShape",
        "COMPRESSED_MESH",
        "COMPOSITE",
        &["IS_COMPOSITE_SHAPE"],
    )?;
    let data = g.add_object("hknpCompressedMeshShapeData")?;
    g.set(shape, "data", Value::object(data))?;
    let mut enc = Encoder::new(data, input, &sections);
    fill(g, data, "meshTree.sections", sections.len())?;
    for (si, s) in sections.iter().enumerate() {
        enc.section(g, si, s)?;
    }
    enc.write_tree(g)?;
    let bits = set_key_bits(g, data, input, &sections)?;
    g.set(shape, "numShapeKeyBits", Value::UInt(u64::from(bits)))?;
    set_quad_bits(g, shape, input)?;
    Ok(MeshLayout {
        shape,
        sections: sections.len(),
        packed: enc.packed.len(),
        shared: enc.shared.len(),
        runs: enc.runs.len(),
    })
}

/// The arrays of a compressed mesh's tree as its sections are encoded.
struct Encoder<'a> {
    data: ObjectId,
    input: &'a MeshInput,
    domain: Aabb,
    shared_grid: Grid,
    /// Per input vertex: how many sections use it (more than one: shared).
    users: HashMap<u32, usize>,
    /// Per shared input vertex: its number in `shared`.
    shared_no: HashMap<u32, u64>,
    shared: Vec<u64>,
    packed: Vec<u64>,
    shared_index: Vec<u64>,
    prims: Vec<[u8; 4]>,
    /// (value, first primitive in its section, count).
    runs: Vec<(u16, usize, usize)>,
    /// Per section, the box of its decoded vertices (the mesh tree's leaves).
    section_boxes: Vec<Aabb>,
}

impl<'a> Encoder<'a> {
    fn new(data: ObjectId, input: &'a MeshInput, sections: &[Section]) -> Self {
        let domain = Aabb::of(input.vertices.iter().copied()).unwrap_or(Aabb {
            min: [0.0; 3],
            max: [0.0; 3],
        });
        let mut users: HashMap<u32, usize> = HashMap::new();
        for s in sections {
            for v in &s.vertices {
                *users.entry(*v).or_default() += 1;
            }
        }
        Encoder {
            data,
            input,
            domain,
            shared_grid: Grid::spanning(domain.min, domain.max, SHARED_BITS),
            users,
            shared_no: HashMap::new(),
            shared: Vec::new(),
            packed: Vec::new(),
            shared_index: Vec::new(),
            prims: Vec::new(),
            runs: Vec::new(),
            section_boxes: Vec::new(),
        }
    }

    /// Encodes section `si`: its vertices, its fields, its primitives and data runs.
    fn section(&mut self, g: &mut Graph, si: usize, s: &Section) -> Result<()> {
        let path = format!("meshTree.sections[{si}]");
        let at = |field: &str| format!("{path}.{field}");
        let data = self.data;
        let (own, common): (Vec<u32>, Vec<u32>) =
            s.vertices.iter().partition(|v| self.users[v] == 1);
        let own_points: Vec<Vec3> = own.iter().map(|&v| self.vertex(v)).collect();
        let own_box = Aabb::of(own_points.iter().copied()).unwrap_or(Aabb {
            min: self.domain.min,
            max: self.domain.min,
        });
        let grid = Grid::spanning(own_box.min, own_box.max, PACKED_BITS);
        let first_packed = Value::UInt(self.packed.len() as u64);
        g.set(data, &at("firstPackedVertex"), first_packed)?;
        let first_shared = self.shared_index.len();
        let local = self.section_vertices(&own, &common, &grid)?;
        let decoded = |v: u32| -> Vec3 {
            match self.shared_no.get(&v) {
                Some(&no) if self.users[&v] > 1 => {
                    self.shared_grid.unpack64(self.shared[no as usize])
                }
                _ => grid.unpack32(grid.pack32(self.vertex(v))),
            }
        };
        let prim_boxes: Vec<Aabb> = s
            .prims
            .iter()
            .map(|&k| Aabb::of(self.input.primitives[k].map(decoded)).unwrap_or(own_box))
            .collect();
        let section_box =
            Aabb::of(prim_boxes.iter().flat_map(|b| [b.min, b.max])).unwrap_or(own_box);
        set_aabb(g, data, &at("domain"), &section_box, [0, 0])?;
        let tree = pack::build_tree(&prim_boxes, &section_box, Storage::Axis4);
        set_nodes(g, data, &at("nodes"), &tree, Storage::Axis4)?;
        self.section_boxes.push(section_box);
        let parms = [grid.origin, grid.step].concat();
        let parms = Value::CArray(parms.iter().map(|&f| Value::Real(f)).collect());
        let shared_word = run_word(first_shared, common.len(), "shared vertices")?;
        let prims_word = run_word(self.prims.len(), s.prims.len(), "primitives")?;
        for (field, value) in [
            ("codecParms", parms),
            ("numPackedVertices", Value::UInt(own.len() as u64)),
            ("numSharedIndices", Value::UInt(common.len() as u64)),
            ("sharedVertices.data", shared_word),
            ("primitives.data", prims_word),
        ] {
            g.set(data, &at(field), value)?;
        }
        let first_run = self.runs.len();
        self.section_primitives(s, &local);
        let runs = run_word(first_run, self.runs.len() - first_run, "data runs")?;
        g.set(data, &at("dataRuns.data"), runs)
    }

    fn vertex(&self, v: u32) -> Vec3 {
        self.input.vertices[v as usize]
    }

    /// Packs a section's own vertices on `grid` and numbers the shared ones it uses;
    /// gives each input vertex's index in the section.
    fn section_vertices(
        &mut self,
        own: &[u32],
        common: &[u32],
        grid: &Grid,
    ) -> Result<HashMap<u32, usize>> {
        let mut local: HashMap<u32, usize> = HashMap::new();
        for (i, &v) in own.iter().enumerate() {
            local.insert(v, i);
            self.packed.push(u64::from(grid.pack32(self.vertex(v))));
        }
        for (j, &v) in common.iter().enumerate() {
            local.insert(v, own.len() + j);
            let point = self.vertex(v);
            let (shared, grid) = (&mut self.shared, &self.shared_grid);
            let no = *self.shared_no.entry(v).or_insert_with(|| {
                shared.push(grid.pack64(point));
                (shared.len() - 1) as u64
            });
            if no > u64::from(u16::MAX) {
                return Err(Error::invalid_write("more than 65536 shared vertices"));
            }
            self.shared_index.push(no);
        }
        Ok(local)
    }

    /// A section's primitives as local indices, and its data runs of equal materials.
    fn section_primitives(&mut self, s: &Section, local: &HashMap<u32, usize>) {
        let first_run = self.runs.len();
        for (j, &k) in s.prims.iter().enumerate() {
            let p = self.input.primitives[k];
            let ix = p.map(|v| local[&v] as u8);
            debug_assert_ne!(ix, EMPTY_PRIMITIVE);
            self.prims.push(ix);
            let m = self.input.materials.get(k).copied().unwrap_or(0);
            let open = self.runs.len() > first_run;
            match self.runs.last_mut() {
                Some((value, _, count)) if open && *value == m => *count += 1,
                _ => self.runs.push((m, j, 1usize)),
            }
        }
    }

    /// The tree's domain, its nodes over the sections (each section's `leafIndex` its
    /// leaf), and its vertex, primitive and data-run arrays.
    fn write_tree(&self, g: &mut Graph) -> Result<()> {
        let (data, t) = (self.data, "meshTree");
        set_aabb(g, data, &format!("{t}.domain"), &self.domain, [0, 0])?;
        let tree = pack::build_tree(&self.section_boxes, &self.domain, Storage::Axis5);
        set_nodes(g, data, &format!("{t}.nodes"), &tree, Storage::Axis5)?;
        let leaves = pack::leaves(&tree, &self.domain).map_err(Error::invalid_write)?;
        for (node, section, _) in leaves {
            let path = format!("{t}.sections[{section}].leafIndex");
            g.set(data, &path, Value::UInt(node as u64))?;
        }
        set_aabb(g, data, "simdTree.domain", &self.domain, [0, 0])?;
        for (field, values) in [
            ("packedVertices", &self.packed),
            ("sharedVertices", &self.shared),
            ("sharedVerticesIndex", &self.shared_index),
        ] {
            g.set(data, &format!("{t}.{field}"), uints(values.iter().copied()))?;
        }
        fill(g, data, &format!("{t}.primitives"), self.prims.len())?;
        for (k, ix) in self.prims.iter().enumerate() {
            let v = Value::CArray(ix.iter().map(|&i| Value::UInt(u64::from(i))).collect());
            g.set(data, &format!("{t}.primitives[{k}].indices"), v)?;
        }
        fill(g, data, &format!("{t}.primitiveDataRuns"), self.runs.len())?;
        for (k, &(value, index, count)) in self.runs.iter().enumerate() {
            let path = format!("{t}.primitiveDataRuns[{k}]");
            let value = Value::UInt(u64::from(value));
            g.set(data, &format!("{path}.value.data"), value)?;
            g.set(data, &format!("{path}.index"), Value::UInt(index as u64))?;
            g.set(data, &format!("{path}.count"), Value::UInt(count as u64))?;
        }
        Ok(())
    }
}

/// Sets the static tree nodes at `path` (`Codec3Axis4` or `5` records, by member name).
fn set_nodes(
    g: &mut Graph,
    id: ObjectId,
    path: &str,
    nodes: &[Node],
    storage: Storage,
) -> Result<()> {
    fill(g, id, path, nodes.len())?;
    for (k, n) in nodes.iter().enumerate() {
        let at = format!("{path}[{k}]");
        let xyz = Value::CArray(n.xyz.iter().map(|&b| Value::UInt(u64::from(b))).collect());
        g.set(id, &format!("{at}.xyz"), xyz)?;
        let (hi, lo) = storage.data(n);
        if storage == Storage::Axis4 {
            g.set(id, &format!("{at}.data"), Value::UInt(u64::from(hi)))?;
        } else {
            g.set(id, &format!("{at}.hiData"), Value::UInt(u64::from(hi)))?;
            g.set(id, &format!("{at}.loData"), Value::UInt(u64::from(lo)))?;
        }
    }
    Ok(())
}

/// The tree's key count, bits per key and largest key (section << 8 | primitive); gives
/// the bits per key.
fn set_key_bits(
    g: &mut Graph,
    data: ObjectId,
    input: &MeshInput,
    sections: &[Section],
) -> Result<u32> {
    let t = "meshTree";
    let max_key = sections.len().saturating_sub(1) << 8
        | sections
            .last()
            .map_or(0, |s| s.prims.len().saturating_sub(1));
    let bits = (usize::BITS - max_key.leading_zeros()).max(1);
    let keys = Value::Int(input.primitives.len() as i64);
    g.set(data, &format!("{t}.numPrimitiveKeys"), keys)?;
    g.set(
        data,
        &format!("{t}.bitsPerKey"),
        Value::Int(i64::from(bits)),
    )?;
    g.set(
        data,
        &format!("{t}.maxKeyValue"),
        Value::UInt(max_key as u64),
    )?;
    Ok(bits)
}

/// The shape's bit sets: which quads are flat, and (none) which triangles are internal.
fn set_quad_bits(g: &mut Graph, shape: ObjectId, input: &MeshInput) -> Result<()> {
    let n = input.primitives.len();
    let flat_quads = input
        .primitives
        .iter()
        .enumerate()
        .filter(|(_, p)| p[2] != p[3] && flat(p.map(|v| input.vertices[v as usize])));
    let flat_bits = bit_words(n, flat_quads.map(|(k, _)| k));
    g.set(shape, "quadIsFlat.storage.words", uints(flat_bits))?;
    g.set(shape, "quadIsFlat.storage.numBits", Value::Int(n as i64))?;
    let internal = uints(bit_words(2 * n, std::iter::empty()));
    g.set(shape, "triangleIsInternal.storage.words", internal)?;
    g.set(
        shape,
        "triangleIsInternal.storage.numBits",
        Value::Int(2 * n as i64),
    )
}
