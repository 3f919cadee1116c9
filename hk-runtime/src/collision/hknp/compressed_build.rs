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

/// Splits primitives, in order, into sections of at most [`SECTION_PRIMITIVES`] primitives
/// and [`SECTION_VERTICES`] vertices.
fn sections(input: &MeshInput) -> Vec<Section> {
    let mut out: Vec<Section> = vec![Section::default()];
    for (k, p) in input.primitives.iter().enumerate() {
        let cur = out.last_mut().expect("one section");
        let new = p
            .iter()
            .enumerate()
            .filter(|&(i, v)| !cur.local.contains_key(v) && !p[..i].contains(v))
            .count();
        if cur.prims.len() == SECTION_PRIMITIVES || cur.vertices.len() + new > SECTION_VERTICES {
            out.push(Section::default());
        }
        let cur = out.last_mut().expect("one section");
        for &v in p {
            if !cur.local.contains_key(&v) {
                cur.local.insert(v, cur.vertices.len());
                cur.vertices.push(v);
            }
        }
        cur.prims.push(k);
    }
    out.retain(|s| !s.prims.is_empty());
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
/// cut into sections; each vertex one section uses packed into a `u32` on that section's
/// grid, each vertex several sections use packed once into a `u64` on the whole mesh's grid
/// (docs/collision-notes.md §3, §12); a data run per stretch of equal material; quads whose
/// corners are coplanar marked in `quadIsFlat`. The mesh tree's and sections' own BVH
/// nodes are not built (left empty; hk's reader does not need them).
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
    let domain = Aabb::of(input.vertices.iter().copied()).unwrap_or(Aabb {
        min: [0.0; 3],
        max: [0.0; 3],
    });
    let shared_grid = Grid::spanning(domain.min, domain.max, SHARED_BITS);
    // Vertices more than one section uses are shared.
    let mut users: HashMap<u32, usize> = HashMap::new();
    for s in &sections {
        for v in &s.vertices {
            *users.entry(*v).or_default() += 1;
        }
    }
    let mut shared_no: HashMap<u32, u64> = HashMap::new();
    let mut shared = Vec::new();
    let (mut packed, mut shared_index, mut prims, mut runs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    fill(g, data, "meshTree.sections", sections.len())?;
    for (si, s) in sections.iter().enumerate() {
        let path = format!("meshTree.sections[{si}]");
        let (own, common): (Vec<u32>, Vec<u32>) = s.vertices.iter().partition(|v| users[v] == 1);
        let own_points: Vec<Vec3> = own.iter().map(|&v| input.vertices[v as usize]).collect();
        let own_box = Aabb::of(own_points.iter().copied()).unwrap_or(Aabb {
            min: domain.min,
            max: domain.min,
        });
        let grid = Grid::spanning(own_box.min, own_box.max, PACKED_BITS);
        let mut local: HashMap<u32, usize> = HashMap::new();
        g.set(
            data,
            &format!("{path}.firstPackedVertex"),
            Value::UInt(packed.len() as u64),
        )?;
        for (i, &v) in own.iter().enumerate() {
            local.insert(v, i);
            packed.push(u64::from(grid.pack32(input.vertices[v as usize])));
        }
        let first_shared = shared_index.len();
        for (j, &v) in common.iter().enumerate() {
            local.insert(v, own.len() + j);
            let no = *shared_no.entry(v).or_insert_with(|| {
                shared.push(shared_grid.pack64(input.vertices[v as usize]));
                (shared.len() - 1) as u64
            });
            if no > u64::from(u16::MAX) {
                return Err(Error::invalid_write("more than 65536 shared vertices"));
            }
            shared_index.push(no);
        }
        let section_box =
            Aabb::of(s.vertices.iter().map(|&v| input.vertices[v as usize])).unwrap_or(own_box);
        set_aabb(g, data, &format!("{path}.domain"), &section_box, [0, 0])?;
        let parms = [grid.origin, grid.step].concat();
        g.set(
            data,
            &format!("{path}.codecParms"),
            Value::CArray(parms.iter().map(|&f| Value::Real(f)).collect()),
        )?;
        g.set(
            data,
            &format!("{path}.numPackedVertices"),
            Value::UInt(own.len() as u64),
        )?;
        g.set(
            data,
            &format!("{path}.numSharedIndices"),
            Value::UInt(common.len() as u64),
        )?;
        g.set(
            data,
            &format!("{path}.sharedVertices.data"),
            run_word(first_shared, common.len(), "shared vertices")?,
        )?;
        g.set(
            data,
            &format!("{path}.primitives.data"),
            run_word(prims.len(), s.prims.len(), "primitives")?,
        )?;
        g.set(data, &format!("{path}.leafIndex"), Value::UInt(si as u64))?;
        let first_run = runs.len();
        for (j, &k) in s.prims.iter().enumerate() {
            let p = input.primitives[k];
            let ix = p.map(|v| local[&v] as u8);
            debug_assert_ne!(ix, EMPTY_PRIMITIVE);
            prims.push(ix);
            let m = input.materials.get(k).copied().unwrap_or(0);
            let open = runs.len() > first_run;
            match runs.last_mut() {
                Some((value, _, count)) if open && *value == m => *count += 1,
                _ => runs.push((m, j, 1usize)),
            }
        }
        g.set(
            data,
            &format!("{path}.dataRuns.data"),
            run_word(first_run, runs.len() - first_run, "data runs")?,
        )?;
    }
    let t = "meshTree";
    set_aabb(g, data, &format!("{t}.domain"), &domain, [0, 0])?;
    set_aabb(g, data, "simdTree.domain", &domain, [0, 0])?;
    g.set(
        data,
        &format!("{t}.packedVertices"),
        uints(packed.iter().copied()),
    )?;
    g.set(
        data,
        &format!("{t}.sharedVertices"),
        uints(shared.iter().copied()),
    )?;
    g.set(
        data,
        &format!("{t}.sharedVerticesIndex"),
        uints(shared_index.iter().copied()),
    )?;
    fill(g, data, &format!("{t}.primitives"), prims.len())?;
    for (k, ix) in prims.iter().enumerate() {
        let v = Value::CArray(ix.iter().map(|&i| Value::UInt(u64::from(i))).collect());
        g.set(data, &format!("{t}.primitives[{k}].indices"), v)?;
    }
    fill(g, data, &format!("{t}.primitiveDataRuns"), runs.len())?;
    for (k, &(value, index, count)) in runs.iter().enumerate() {
        let path = format!("{t}.primitiveDataRuns[{k}]");
        g.set(
            data,
            &format!("{path}.value.data"),
            Value::UInt(u64::from(value)),
        )?;
        g.set(data, &format!("{path}.index"), Value::UInt(index as u64))?;
        g.set(data, &format!("{path}.count"), Value::UInt(count as u64))?;
    }
    let max_key = sections.len().saturating_sub(1) << 8
        | sections
            .last()
            .map_or(0, |s| s.prims.len().saturating_sub(1));
    let bits = (usize::BITS - max_key.leading_zeros()).max(1);
    g.set(
        data,
        &format!("{t}.numPrimitiveKeys"),
        Value::Int(input.primitives.len() as i64),
    )?;
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
    g.set(shape, "numShapeKeyBits", Value::UInt(u64::from(bits)))?;
    let n = input.primitives.len();
    let flat_quads = input
        .primitives
        .iter()
        .enumerate()
        .filter(|(_, p)| p[2] != p[3] && flat(p.map(|v| input.vertices[v as usize])));
    let flat_bits = bit_words(n, flat_quads.map(|(k, _)| k));
    g.set(shape, "quadIsFlat.storage.words", uints(flat_bits))?;
    g.set(shape, "quadIsFlat.storage.numBits", Value::Int(n as i64))?;
    g.set(
        shape,
        "triangleIsInternal.storage.words",
        uints(bit_words(2 * n, std::iter::empty())),
    )?;
    g.set(
        shape,
        "triangleIsInternal.storage.numBits",
        Value::Int(2 * n as i64),
    )?;
    Ok(MeshLayout {
        shape,
        sections: sections.len(),
        packed: packed.len(),
        shared: shared.len(),
        runs: runs.len(),
    })
}
