//! Havok 2023.2 `hknpMeshShape` (Nintendo phive `.bphsh`) as triangles
//! (docs/collision-notes.md §13).
//!
//! The shape is read member by member through the schema into [`MeshShapeData`], a plain
//! model of what the file stores (geometry sections, their 8-bit section trees, primitives,
//! 16-bit vertices, the shape-tag table, the top-level tree over the sections, the primitive
//! mapping), then checked ([`MeshShapeData::check`]) and turned into one [`Mesh`] per
//! geometry section. The encoder ([`crate::collision::hknp::mesh_build`]) builds the same model from faces.
//!
//! The phive container's material and hit-mask arrays are a [`Palette`]; a triangle's
//! [`Triangle::surface`] is its shape tag, the index into that palette.

use crate::graph::{Array, Graph, ObjectId, Value};
use crate::tagfile::phive::{Extra, HitMask, Material};

use crate::collision::access::Rec;
use crate::collision::math::{Aabb, Affine, Vec3};
use crate::collision::{Mesh, Result, ShapeKind, Triangle};

/// Bytes of one `Vertex16_3` in a section's vertex buffer.
pub const VERTEX_BYTES: usize = 6;
/// The shape tag that means "no tag" (the last entry of a shape-tag table).
pub const NO_TAG: u16 = 0xFFFF;
/// The top-level tree's leaf flag (`hkcdSimdTreeNamespace::Node::FlagsEnum.NODE_IS_LEAF`).
pub const NODE_IS_LEAF: u8 = 0x1;
/// Index of the top-level tree's root node (node 0 is an empty sentinel).
pub const TOP_ROOT: usize = 1;

/// One `hknpAabb8TreeNode`: four child boxes in a section's 8-bit grid, lane `k` in byte `k`
/// of each word, and four data bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Aabb8Node {
    /// Lower bounds, `[axis][lane]` (`lx`, `ly`, `lz`).
    pub lo: [[u8; 4]; 3],
    /// Upper bounds, `[axis][lane]` (`hx`, `hy`, `hz`).
    pub hi: [[u8; 4]; 3],
    /// A leaf's primitive indices, or an internal node's child node indices.
    pub data: [u8; 4],
}

impl Aabb8Node {
    /// A node whose four lanes are empty (lower bound above upper bound).
    pub const EMPTY: Aabb8Node = Aabb8Node {
        lo: [[0xFF; 4]; 3],
        hi: [[0; 4]; 3],
        data: [0; 4],
    };

    /// Whether the node is a leaf: `data[2] > data[3]` (§13).
    pub fn is_leaf(&self) -> bool {
        self.data[2] > self.data[3]
    }

    /// Whether lane `k` holds a child (its x bounds are in order).
    pub fn valid(&self, k: usize) -> bool {
        self.lo[0][k] <= self.hi[0][k]
    }
}

/// One `hkcdSimdTreeNamespace::Node` of the top-level tree: four float boxes over sections.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TopNode {
    /// Lower bounds, `[axis][lane]`.
    pub lo: [[f32; 4]; 3],
    /// Upper bounds, `[axis][lane]`.
    pub hi: [[f32; 4]; 3],
    /// A leaf's section indices (`0xFFFFFFFF` empty), or an internal node's children (0 empty).
    pub data: [u32; 4],
    /// `flags` has [`NODE_IS_LEAF`].
    pub leaf: bool,
}

impl TopNode {
    /// Whether lane `k` holds a child.
    pub fn valid(&self, k: usize) -> bool {
        if self.leaf {
            self.data[k] != u32::MAX
        } else {
            self.data[k] != 0
        }
    }

    /// Lane `k`'s box.
    pub fn lane(&self, k: usize) -> Aabb {
        Aabb {
            min: [0, 1, 2].map(|a| self.lo[a][k]),
            max: [0, 1, 2].map(|a| self.hi[a][k]),
        }
    }
}

/// One `hknpMeshShape::GeometrySection`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Section {
    /// The section tree (`sectionBvh`), root first.
    pub bvh: Vec<Aabb8Node>,
    /// Primitives `[a, b, c, d]`: a triangle has `c == d`.
    pub primitives: Vec<[u8; 4]>,
    /// The `Vertex16_3` vertices of `vertexBuffer`.
    pub vertices: Vec<[u16; 3]>,
    /// `interiorPrimitiveBitField`, kept as stored.
    pub interior: Vec<u8>,
    /// `sectionOffset`, in 16-bit grid steps (stored as `u32`, read as signed).
    pub offset: [i32; 3],
    /// `bitScale8Inv`: one step of the section tree's 8-bit grid.
    pub bit_scale8_inv: [f32; 3],
    /// `bitOffset`: the 8-bit grid's origin in steps.
    pub bit_offset: [i16; 3],
}

impl Section {
    /// Lane `k` of tree node `n` in the shape's space.
    pub fn lane(&self, n: &Aabb8Node, k: usize) -> Aabb {
        let f = |q: u8, a: usize| {
            (f32::from(q) + f32::from(self.bit_offset[a])) * self.bit_scale8_inv[a]
        };
        Aabb {
            min: [0, 1, 2].map(|a| f(n.lo[a][k], a)),
            max: [0, 1, 2].map(|a| f(n.hi[a][k], a)),
        }
    }
}

/// `hknpMeshShapePrimitiveMapping` (hk's reading, §13).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mapping {
    /// `sectionStart`: each section's first primitive among all primitives.
    pub section_start: Vec<u32>,
    /// `bitString`: one entry of `bits_per_entry` bits per primitive, least significant first.
    pub bit_string: Vec<u32>,
    /// `bitsPerEntry`.
    pub bits_per_entry: u32,
    /// `triangleIndexBitMask`.
    pub mask: u32,
}

impl Mapping {
    /// Entry `i` of the bit string (`None` past its end or for a width over 32).
    pub fn entry(&self, i: usize) -> Option<u32> {
        let w = self.bits_per_entry as usize;
        if w == 0 || w > 32 {
            return None;
        }
        let bit = i.checked_mul(w)?;
        let (word, shift) = (bit / 32, bit % 32);
        let lo = u64::from(*self.bit_string.get(word)?);
        let hi = if shift + w > 32 {
            u64::from(*self.bit_string.get(word + 1)?)
        } else {
            0
        };
        let v = ((hi << 32 | lo) >> shift) & ((1u64 << w) - 1);
        Some(v as u32)
    }
}

/// What an `hknpMeshShape` stores, as plain values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshShapeData {
    /// `vertexConversionUtil.bitScale16` (xyz): grid steps per metre.
    pub bit_scale16: [f32; 3],
    /// `vertexConversionUtil.bitScale16Inv` (xyz): metres per grid step.
    pub bit_scale16_inv: [f32; 3],
    /// `numShapeKeyBits`.
    pub num_shape_key_bits: u8,
    /// `shapeTagTable`: `(meshPrimitiveKey, shapeTag)`, ascending keys.
    pub tag_table: Vec<(u32, u16)>,
    /// `topLevelTree.nodes`.
    pub top: Vec<TopNode>,
    /// `geometrySections`.
    pub sections: Vec<Section>,
    /// `primitiveMapping`, when not null.
    pub mapping: Option<Mapping>,
}

/// Bits needed to write `v` (0 for 0).
pub fn bit_width(v: usize) -> u32 {
    usize::BITS - v.leading_zeros()
}

/// A 16-bit vertex of a section with `offset` in the shape's space.
pub fn unpack(v: [u16; 3], offset: [i32; 3], inv: [f32; 3]) -> Vec3 {
    [0, 1, 2].map(|a| (i64::from(v[a]) + i64::from(offset[a])) as f32 * inv[a])
}

/// A point as a 16-bit vertex of a section with `offset` (`None` when it falls outside the
/// section's 16-bit range).
pub fn pack(p: Vec3, offset: [i32; 3], scale: [f32; 3]) -> Option<[u16; 3]> {
    let mut out = [0u16; 3];
    for a in 0..3 {
        let q = (f64::from(p[a]) * f64::from(scale[a])).round() - f64::from(offset[a]);
        if !(0.0..=65535.0).contains(&q) {
            return None;
        }
        out[a] = q as u16;
    }
    Some(out)
}

impl MeshShapeData {
    /// The bit the primitive index starts at in a shape key: `numShapeKeyBits` less the
    /// bits of the section index.
    pub fn section_shift(&self) -> u32 {
        u32::from(self.num_shape_key_bits)
            .saturating_sub(bit_width(self.sections.len().saturating_sub(1)))
    }

    /// The shape key of triangle `sub` (0 or 1) of primitive `p` of section `s`.
    pub fn key(&self, s: usize, p: usize, sub: u32) -> u32 {
        let shift = self.section_shift();
        let hi = if shift >= 32 { 0 } else { (s as u32) << shift };
        hi | (p as u32) << 1 | sub
    }

    /// The shape tag of primitive `p` of section `s`: the last table entry whose key is at
    /// most the primitive's key; `None` without a table or for [`NO_TAG`].
    pub fn tag(&self, s: usize, p: usize) -> Option<u16> {
        let k = self.key(s, p, 0);
        let i = self.tag_table.partition_point(|e| e.0 <= k);
        let tag = self.tag_table.get(i.checked_sub(1)?)?.1;
        (tag != NO_TAG).then_some(tag)
    }

    /// Vertex `i` of section `s` in the shape's space.
    pub fn vertex(&self, s: &Section, v: [u16; 3]) -> Vec3 {
        unpack(v, s.offset, self.bit_scale16_inv)
    }

    /// Triangles over every primitive (a quad is two).
    pub fn triangle_count(&self) -> usize {
        self.sections
            .iter()
            .flat_map(|s| &s.primitives)
            .map(|p| if p[2] == p[3] { 1 } else { 2 })
            .sum()
    }
}

/// The phive material and hit-mask arrays of a `.bphsh` (docs/collision-notes.md §6).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Palette {
    /// The material array.
    pub materials: Vec<Material>,
    /// The layer-hit-mask array.
    pub hit_masks: Vec<HitMask>,
}

/// A triangle's phive surface: its material entry and hit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhiveSurface {
    /// The material entry.
    pub material: Material,
    /// The hit-mask entry.
    pub hit_mask: HitMask,
}

impl Palette {
    /// The palette of a phive shape's sections after the TAG0 (`None` without a material
    /// array).
    pub fn from_extras(extras: &[Extra]) -> Option<Palette> {
        let mut p = Palette::default();
        let mut any = false;
        for e in extras {
            match e {
                Extra::Materials(m) => {
                    p.materials.clone_from(m);
                    any = true;
                }
                Extra::HitMasks(h) => p.hit_masks.clone_from(h),
                Extra::Raw(_) => {}
            }
        }
        any.then_some(p)
    }

    /// Entries usable by a shape tag: the shorter of the two arrays (§6).
    pub fn len(&self) -> usize {
        self.materials.len().min(self.hit_masks.len())
    }

    /// Whether no shape tag resolves.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Surface id `surface` (a shape tag) resolved, `None` past [`Palette::len`].
    pub fn resolve(&self, surface: u32) -> Option<PhiveSurface> {
        let i = surface as usize;
        (i < self.len()).then(|| PhiveSurface {
            material: self.materials[i],
            hit_mask: self.hit_masks[i],
        })
    }
}

fn uint(r: &Rec<'_>, v: &Value, name: &str, max: u64) -> Result<u64> {
    v.as_u64().filter(|&x| x <= max).ok_or_else(|| {
        r.err(
            name,
            format!("expected an integer up to {max}, found {}", v.describe()),
        )
    })
}

fn carray<'g>(r: &Rec<'g>, name: &str, n: usize) -> Result<&'g [Value]> {
    match r.get(name)? {
        Value::CArray(v) if v.len() == n => Ok(v),
        v => Err(r.err(name, format!("expected {n} values, found {}", v.describe()))),
    }
}

fn bytes<'g>(r: &Rec<'g>, name: &str) -> Result<std::borrow::Cow<'g, [u8]>> {
    match r.array(name)? {
        Array::U8(b) => Ok(std::borrow::Cow::Borrowed(b)),
        Array::Values(v) => v
            .iter()
            .map(|x| x.as_u64().and_then(|x| u8::try_from(x).ok()))
            .collect::<Option<Vec<u8>>>()
            .map(std::borrow::Cow::Owned)
            .ok_or_else(|| r.err(name, "expected bytes")),
        _ => Err(r.err(name, "expected a byte array")),
    }
}

fn u32s(r: &Rec<'_>, name: &str) -> Result<Vec<u32>> {
    crate::collision::access::ints(r.array(name)?)
        .ok_or_else(|| r.err(name, "expected unsigned integers"))
}

fn lanes8(r: &Rec<'_>, name: &str) -> Result<[u8; 4]> {
    Ok((uint(r, r.get(name)?, name, u64::from(u32::MAX))? as u32).to_le_bytes())
}

fn section(r: &Rec<'_>) -> Result<Section> {
    let mut s = Section::default();
    for n in r.recs("sectionBvh")? {
        let data = carray(&n, "data", 4)?;
        let mut node = Aabb8Node::default();
        for (a, (lo, hi)) in [("lx", "hx"), ("ly", "hy"), ("lz", "hz")]
            .iter()
            .enumerate()
        {
            node.lo[a] = lanes8(&n, lo)?;
            node.hi[a] = lanes8(&n, hi)?;
        }
        for (k, d) in data.iter().enumerate() {
            node.data[k] = uint(&n, d, "data", 0xFF)? as u8;
        }
        s.bvh.push(node);
    }
    for p in r.recs("primitives")? {
        let mut ids = [0u8; 4];
        for (k, m) in ["aId", "bId", "cId", "dId"].iter().enumerate() {
            ids[k] = uint(&p, p.get(m)?, m, 0xFF)? as u8;
        }
        s.primitives.push(ids);
    }
    let vb = bytes(r, "vertexBuffer")?;
    if vb.len() % VERTEX_BYTES != 0 {
        return Err(r.err(
            "vertexBuffer",
            format!(
                "{} bytes is not a whole number of 6-byte Vertex16_3",
                vb.len()
            ),
        ));
    }
    s.vertices = vb
        .chunks_exact(VERTEX_BYTES)
        .map(|c| [0, 2, 4].map(|i| u16::from_le_bytes([c[i], c[i + 1]])))
        .collect();
    s.interior = bytes(r, "interiorPrimitiveBitField")?.into_owned();
    for (a, v) in carray(r, "sectionOffset", 3)?.iter().enumerate() {
        s.offset[a] = uint(r, v, "sectionOffset", u64::from(u32::MAX))? as u32 as i32;
    }
    for (a, v) in carray(r, "bitScale8Inv", 3)?.iter().enumerate() {
        s.bit_scale8_inv[a] = v
            .as_f32()
            .ok_or_else(|| r.err("bitScale8Inv", "expected reals"))?;
    }
    for (a, v) in carray(r, "bitOffset", 3)?.iter().enumerate() {
        s.bit_offset[a] = v
            .as_i64()
            .and_then(|x| i16::try_from(x).ok())
            .ok_or_else(|| r.err("bitOffset", "expected 16-bit integers"))?;
    }
    Ok(s)
}

fn top_node(n: &Rec<'_>) -> Result<TopNode> {
    let mut t = TopNode::default();
    for (a, (lo, hi)) in [("lx", "hx"), ("ly", "hy"), ("lz", "hz")]
        .iter()
        .enumerate()
    {
        let l = n.floats(lo, 4)?;
        let h = n.floats(hi, 4)?;
        t.lo[a].copy_from_slice(&l[..4]);
        t.hi[a].copy_from_slice(&h[..4]);
    }
    for (k, d) in carray(n, "data", 4)?.iter().enumerate() {
        t.data[k] = uint(n, d, "data", u64::from(u32::MAX))? as u32;
    }
    t.leaf = n.int("flags")? & i64::from(NODE_IS_LEAF) != 0;
    Ok(t)
}

/// Reads the `hknpMeshShape` (or subclass) object `id` of `graph` into its plain model,
/// without the checks of [`MeshShapeData::check`].
///
/// # Errors
/// A member that is missing or of the wrong kind, naming the object and member.
pub fn decode(graph: &Graph, id: ObjectId) -> Result<MeshShapeData> {
    decode_rec(&Rec::object(&graph.with_struct_values(), id)?)
}

fn decode_rec(r: &Rec<'_>) -> Result<MeshShapeData> {
    let util = r.rec("vertexConversionUtil")?;
    let mut d = MeshShapeData {
        bit_scale16: util.vec3("bitScale16")?,
        bit_scale16_inv: util.vec3("bitScale16Inv")?,
        num_shape_key_bits: uint(r, r.get("numShapeKeyBits")?, "numShapeKeyBits", 0xFF)? as u8,
        ..MeshShapeData::default()
    };
    for e in r.recs("shapeTagTable")? {
        let key = uint(
            &e,
            e.get("meshPrimitiveKey")?,
            "meshPrimitiveKey",
            u64::from(u32::MAX),
        )?;
        let tag = uint(&e, e.get("shapeTag")?, "shapeTag", 0xFFFF)?;
        d.tag_table.push((key as u32, tag as u16));
    }
    for n in r.rec("topLevelTree")?.recs("nodes")? {
        d.top.push(top_node(&n)?);
    }
    for s in r.recs("geometrySections")? {
        d.sections.push(section(&s)?);
    }
    if let Some(m) = r.ptr("primitiveMapping")? {
        let m = Rec::object(r.graph(), m)?;
        d.mapping = Some(Mapping {
            section_start: u32s(&m, "sectionStart")?,
            bit_string: u32s(&m, "bitString")?,
            bits_per_entry: m.int("bitsPerEntry")? as u32,
            mask: m.int("triangleIndexBitMask")? as u32,
        });
    }
    Ok(d)
}

/// Reads an `hknpMeshShape`: checks it and gives one mesh per geometry section.
pub(crate) fn read(r: &Rec<'_>) -> Result<Vec<Mesh>> {
    let d = decode_rec(r)?;
    d.check(&r.label())?;
    let mut out = Vec::with_capacity(d.sections.len());
    for (si, s) in d.sections.iter().enumerate() {
        let mut m = Mesh {
            name: format!("{}#{}/{si}", r.class_name(), r.id().0),
            object: r.id(),
            kind: ShapeKind::MeshShape,
            to_body: Affine::IDENTITY,
            vertices: s.vertices.iter().map(|&v| d.vertex(s, v)).collect(),
            triangles: Vec::new(),
            stored_aabb: section_box(s),
            declared_triangles: None,
            code: None,
            to_code: Affine::IDENTITY,
        };
        for (pi, p) in s.primitives.iter().enumerate() {
            let surface = d.tag(si, pi).map(u32::from);
            let tris: &[[usize; 3]] = if p[2] == p[3] {
                &[[0, 1, 2]]
            } else {
                &[[0, 1, 2], [0, 2, 3]]
            };
            for (sub, t) in tris.iter().enumerate() {
                m.triangles.push(Triangle {
                    v: t.map(|i| u32::from(p[i])),
                    key: d.key(si, pi, sub as u32),
                    material: None,
                    surface,
                    welding: None,
                });
            }
        }
        out.push(m);
    }
    Ok(out)
}

/// The box of a section's tree root (its valid lanes), when it has one.
fn section_box(s: &Section) -> Option<Aabb> {
    let root = s.bvh.first()?;
    let mut it = (0..4).filter(|&k| root.valid(k)).map(|k| s.lane(root, k));
    let mut b = it.next()?;
    for l in it {
        b.add(l.min);
        b.add(l.max);
    }
    Some(b)
}
