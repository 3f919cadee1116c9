//! Building an `hknpMeshShape` from faces (docs/collision-notes.md §13): faces are split
//! into geometry sections that fit the 16-bit grid and the 8-bit indices, each section gets
//! quantised `Vertex16_3` vertices and a 4-wide section tree with conservative 8-bit boxes,
//! the sections a top-level tree, and the shape a shape-tag table and a primitive mapping.
//! [`MeshShapeData::write`] puts the result into a graph as an `hknpMeshShape` object.

use std::collections::HashMap;

use crate::graph::{default_value, Array, Floats, Graph, ObjectId, Ptr, Value};
use crate::schema::Shape;

use crate::collision::hknp::mesh_shape::{
    bit_width, pack, unpack, Aabb8Node, Mapping, MeshShapeData, Section, TopNode, NODE_IS_LEAF,
    NO_TAG, TOP_ROOT, VERTEX_BYTES,
};
use crate::collision::math::{Aabb, Vec3};
use crate::collision::{CollisionError, Result};

/// One face to build from: a triangle (3 points) or a planar quad (4), and its shape tag.
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    /// The corners, in winding order.
    pub points: Vec<Vec3>,
    /// Its shape tag (the index into the phive material array; [`NO_TAG`] for none).
    pub tag: u16,
}

/// How [`build`] quantises and splits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildOptions {
    /// The largest error allowed on a vertex coordinate, in metres; the 16-bit grid step is
    /// the power of two at most twice this.
    pub max_error: f32,
    /// Faces per geometry section (at most 63, so a section's vertices fit 8-bit indices).
    pub faces_per_section: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_error: 0.001,
            faces_per_section: 63,
        }
    }
}

fn bad(msg: impl Into<String>) -> Box<CollisionError> {
    CollisionError::shape("hknpMeshShape (building)", "", msg)
}

fn bounds(points: impl IntoIterator<Item = Vec3>) -> Aabb {
    Aabb::of(points).unwrap_or(Aabb {
        min: [0.0; 3],
        max: [0.0; 3],
    })
}

fn centre(f: &Face) -> Vec3 {
    let b = bounds(f.points.iter().copied());
    [0, 1, 2].map(|a| 0.5 * (b.min[a] + b.max[a]))
}

fn longest(b: &Aabb) -> usize {
    let e = [0, 1, 2].map(|a| b.max[a] - b.min[a]);
    if e[0] >= e[1] && e[0] >= e[2] {
        0
    } else if e[1] >= e[2] {
        1
    } else {
        2
    }
}

/// Splits `ids` at the median of the face centres (`centres`, per face) along their
/// longest axis: a selection, linear in the faces, so the whole build is `n log n`.
fn halve(centres: &[Vec3], mut ids: Vec<usize>) -> (Vec<usize>, Vec<usize>) {
    let axis = longest(&bounds(ids.iter().map(|&i| centres[i])));
    let mid = ids.len() / 2;
    ids.select_nth_unstable_by(mid, |&a, &b| {
        centres[a][axis]
            .total_cmp(&centres[b][axis])
            .then(a.cmp(&b))
    });
    let right = ids.split_off(mid);
    (ids, right)
}

/// Builds the model of an `hknpMeshShape` holding `faces`.
///
/// # Errors
/// A face that is not 3 or 4 finite points, a face wider than one section's 16-bit range,
/// or options out of range.
pub fn build(faces: &[Face], opts: &BuildOptions) -> Result<MeshShapeData> {
    if !(opts.max_error.is_finite() && opts.max_error > 0.0) {
        return Err(bad(format!("max_error {} is not positive", opts.max_error)));
    }
    if !(1..=63).contains(&opts.faces_per_section) {
        return Err(bad("faces_per_section must be 1 to 63"));
    }
    for (i, f) in faces.iter().enumerate() {
        if !matches!(f.points.len(), 3 | 4) || f.points.iter().flatten().any(|x| !x.is_finite()) {
            return Err(bad(format!("face {i}: expected 3 or 4 finite points")));
        }
    }
    let scale = (2.0 * f64::from(opts.max_error))
        .log2()
        .floor()
        .exp2()
        .recip() as f32;
    let inv = 1.0 / scale;
    let reach = 65000.0 * inv;
    let mut d = MeshShapeData {
        bit_scale16: [scale; 3],
        bit_scale16_inv: [inv; 3],
        ..MeshShapeData::default()
    };
    // Groups of faces: small enough in count and extent (a work list, not recursion).
    let centres: Vec<Vec3> = faces.iter().map(centre).collect();
    let mut groups = Vec::new();
    let mut work = vec![(0..faces.len()).collect::<Vec<_>>()];
    while let Some(ids) = work.pop() {
        if ids.is_empty() {
            continue;
        }
        let b = bounds(ids.iter().flat_map(|&i| faces[i].points.iter().copied()));
        let wide = (0..3).any(|a| b.max[a] - b.min[a] > reach);
        if ids.len() <= opts.faces_per_section && !wide {
            // Faces in input order within a section, whatever the selection left.
            let mut ids = ids;
            ids.sort_unstable();
            groups.push(ids);
        } else if ids.len() == 1 {
            return Err(bad(format!(
                "face {} spans more than {reach} m, one section's 16-bit range",
                ids[0]
            )));
        } else {
            let (l, r) = halve(&centres, ids);
            work.push(r);
            work.push(l);
        }
    }
    let mut order = Vec::new();
    let mut boxes = Vec::new();
    for ids in &groups {
        let (s, prims) = section(faces, ids, scale, inv)?;
        boxes.push(bounds(
            s.vertices
                .iter()
                .map(|&v| unpack(v, s.offset, d.bit_scale16_inv)),
        ));
        order.extend(prims);
        d.sections.push(s);
    }
    let most = d
        .sections
        .iter()
        .map(|s| s.primitives.len())
        .max()
        .unwrap_or(1);
    d.num_shape_key_bits = (bit_width(d.sections.len().saturating_sub(1))
        + bit_width(most.saturating_sub(1))
        + 1) as u8;
    // The shape-tag table: an entry wherever the tag changes, then the end marker.
    let mut at = 0;
    for (si, s) in d.sections.iter().enumerate() {
        for pi in 0..s.primitives.len() {
            let tag = faces[order[at]].tag;
            at += 1;
            if d.tag_table.last().map(|e| e.1) != Some(tag) {
                d.tag_table.push((d.key(si, pi, 0), tag));
            }
        }
    }
    let end = u64::try_from(d.sections.len()).unwrap_or(u64::MAX) << d.section_shift();
    d.tag_table
        .push((u32::try_from(end).unwrap_or(u32::MAX), NO_TAG));
    d.top = top_tree(&boxes);
    // The primitive mapping: per primitive, the index of the face it came from.
    let bits = bit_width(faces.len().saturating_sub(1)).max(1);
    let mut m = Mapping {
        section_start: Vec::new(),
        bit_string: vec![0; (order.len() * bits as usize).div_ceil(32)],
        bits_per_entry: bits,
        mask: if bits == 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        },
    };
    let mut start = 0u32;
    for s in &d.sections {
        m.section_start.push(start);
        start += s.primitives.len() as u32;
    }
    for (i, &f) in order.iter().enumerate() {
        let bit = i * bits as usize;
        let v = (f as u64) << (bit % 32);
        m.bit_string[bit / 32] |= v as u32;
        if let Some(w) = m.bit_string.get_mut(bit / 32 + 1) {
            *w |= (v >> 32) as u32;
        }
    }
    d.mapping = Some(m);
    Ok(d)
}

/// One section over faces `ids`: the section and the face of each of its primitives.
fn section(faces: &[Face], ids: &[usize], scale: f32, inv: f32) -> Result<(Section, Vec<usize>)> {
    let b = bounds(ids.iter().flat_map(|&i| faces[i].points.iter().copied()));
    let mut s = Section {
        offset: [0, 1, 2].map(|a| (f64::from(b.min[a]) * f64::from(scale)).floor() as i32),
        ..Section::default()
    };
    let mut index: HashMap<[u32; 3], u8> = HashMap::new();
    let mut prims = Vec::new();
    for &i in ids {
        let mut p = [0u8; 4];
        for (k, pt) in faces[i].points.iter().enumerate() {
            let key = pt.map(f32::to_bits);
            p[k] = match index.get(&key) {
                Some(&v) => v,
                None => {
                    let v = u8::try_from(s.vertices.len())
                        .map_err(|_| bad("a section holds more than 256 vertices"))?;
                    let q = pack(*pt, s.offset, [scale; 3])
                        .ok_or_else(|| bad(format!("face {i} is outside its section's range")))?;
                    s.vertices.push(q);
                    index.insert(key, v);
                    v
                }
            };
        }
        if faces[i].points.len() == 3 {
            p[3] = p[2];
        }
        prims.push((p, i));
    }
    // The decoded primitives' boxes, and the 8-bit grid over all of them.
    let decoded: Vec<Aabb> = prims
        .iter()
        .map(|(p, _)| {
            bounds(
                p.iter()
                    .map(|&v| unpack(s.vertices[v as usize], s.offset, [inv; 3])),
            )
        })
        .collect();
    let dom = decoded.iter().fold(decoded[0], |mut a, b| {
        a.add(b.min);
        a.add(b.max);
        a
    });
    for a in 0..3 {
        let (lo, hi) = (f64::from(dom.min[a]), f64::from(dom.max[a]));
        let step = ((hi - lo) / 250.0)
            .max(lo.abs() / 32000.0)
            .max(hi.abs() / 32000.0)
            .max(1e-6) as f32;
        s.bit_scale8_inv[a] = step;
        s.bit_offset[a] = ((lo / f64::from(step)).floor() - 1.0) as i16;
    }
    let mut tree = Tree8 {
        s: &mut s,
        boxes: &decoded,
        order: Vec::new(),
    };
    tree.node((0..prims.len()).collect());
    let order = tree.order;
    s.primitives = order.iter().map(|&k| prims[k].0).collect();
    s.interior = vec![0; s.primitives.len().div_ceil(8)];
    Ok((s, order.iter().map(|&k| prims[k].1).collect()))
}

/// Builds a section tree; leaves number the primitives in the order they are reached.
struct Tree8<'a> {
    s: &'a mut Section,
    boxes: &'a [Aabb],
    order: Vec<usize>,
}

impl Tree8<'_> {
    fn quantise(&self, b: &Aabb) -> ([u8; 3], [u8; 3]) {
        let s = &*self.s;
        let q = |x: f32, a: usize, up: bool| {
            let t = f64::from(x) / f64::from(s.bit_scale8_inv[a]);
            let t = if up { t.ceil() + 1.0 } else { t.floor() - 1.0 };
            (t - f64::from(s.bit_offset[a])).clamp(0.0, 255.0) as u8
        };
        (
            [0, 1, 2].map(|a| q(b.min[a], a, false)),
            [0, 1, 2].map(|a| q(b.max[a], a, true)),
        )
    }

    /// Adds the node over primitives `ids` (its children after it); its index and box.
    fn node(&mut self, mut ids: Vec<usize>) -> (u8, Aabb) {
        let n = self.s.bvh.len();
        self.s.bvh.push(Aabb8Node::EMPTY);
        let all = bounds(
            ids.iter()
                .flat_map(|&i| [self.boxes[i].min, self.boxes[i].max]),
        );
        let mut lanes: Vec<(u8, Aabb)> = Vec::new();
        let leaf = ids.len() <= 4;
        if leaf {
            for &i in &ids {
                lanes.push((self.order.len() as u8, self.boxes[i]));
                self.order.push(i);
            }
        } else {
            let axis = longest(&all);
            let c = |i: usize| self.boxes[i].min[axis] + self.boxes[i].max[axis];
            ids.sort_by(|&a, &b| c(a).total_cmp(&c(b)));
            let per = ids.len().div_ceil(4).max(4);
            for chunk in ids.chunks(per) {
                lanes.push(self.node(chunk.to_vec()));
            }
        }
        let mut node = Aabb8Node::EMPTY;
        for (k, (d, b)) in lanes.iter().enumerate() {
            let (lo, hi) = self.quantise(b);
            for a in 0..3 {
                node.lo[a][k] = lo[a];
                node.hi[a][k] = hi[a];
            }
            node.data[k] = *d;
        }
        // The leaf flag lives in the order of data[2] and data[3] (§13).
        match (leaf, lanes.len()) {
            (true, 4) => swap_lanes(&mut node, 2, 3),
            (true, 3) => node.data[3] = node.data[2] - 1,
            (true, _) => (node.data[2], node.data[3]) = (1, 0),
            (false, 3) => node.data[3] = node.data[2],
            _ => {}
        }
        self.s.bvh[n] = node;
        (n as u8, all)
    }
}

fn swap_lanes(n: &mut Aabb8Node, i: usize, j: usize) {
    for a in 0..3 {
        n.lo[a].swap(i, j);
        n.hi[a].swap(i, j);
    }
    n.data.swap(i, j);
}

/// The top-level tree over the sections' boxes: node 0 an empty sentinel, the root at 1.
fn top_tree(boxes: &[Aabb]) -> Vec<TopNode> {
    let empty = |leaf: bool| TopNode {
        lo: [[f32::MAX; 4]; 3],
        hi: [[-f32::MAX; 4]; 3],
        data: [if leaf { u32::MAX } else { 0 }; 4],
        leaf,
    };
    let mut nodes = vec![empty(false)];
    if boxes.is_empty() {
        return nodes;
    }
    // Work list of (node index, sections under it); children are appended after parents.
    let mut work = vec![(TOP_ROOT, (0..boxes.len()).collect::<Vec<_>>())];
    nodes.push(empty(false));
    while let Some((n, ids)) = work.pop() {
        let leaf = ids.len() <= 4;
        let mut node = empty(leaf);
        let groups: Vec<Vec<usize>> = if leaf {
            ids.iter().map(|&i| vec![i]).collect()
        } else {
            ids.chunks(ids.len().div_ceil(4).max(4))
                .map(<[usize]>::to_vec)
                .collect()
        };
        for (k, g) in groups.into_iter().enumerate() {
            let b = bounds(g.iter().flat_map(|&i| [boxes[i].min, boxes[i].max]));
            for a in 0..3 {
                node.lo[a][k] = b.min[a];
                node.hi[a][k] = b.max[a];
            }
            if leaf {
                node.data[k] = g[0] as u32;
            } else {
                node.data[k] = nodes.len() as u32;
                nodes.push(empty(false));
                work.push((nodes.len() - 1, g));
            }
        }
        nodes[n] = node;
    }
    nodes
}

/// Writes values into one object by member path, naming the path on failure.
struct Writer<'g> {
    g: &'g mut Graph,
    id: ObjectId,
}

impl Writer<'_> {
    fn set(&mut self, path: &str, v: Value) -> Result<()> {
        self.g.set(self.id, path, v).map_err(|e| {
            CollisionError::shape(
                format!("#{} {}", self.id.0, self.g.class_name(self.id)),
                path,
                e.to_string(),
            )
        })
    }

    fn fill(&mut self, path: &str, n: usize) -> Result<()> {
        let class = self.g.object(self.id).class;
        let elem = match self.g.resolve(class, path) {
            Ok((_, Shape::Array(_, e))) => *e,
            _ => return Err(bad(format!("`{path}` is not an array in the schema"))),
        };
        let zero = default_value(self.g.schema(), &elem).map_err(|e| bad(e.to_string()))?;
        self.set(path, Value::Array(Array::Values(vec![zero; n])))
    }
}

fn uints<T: Into<u64> + Copy>(v: &[T]) -> Value {
    Value::CArray(v.iter().map(|&x| Value::UInt(x.into())).collect())
}

fn vec4(v: [f32; 4]) -> Result<Value> {
    Floats::new(&v)
        .map(Value::Floats)
        .ok_or_else(|| bad("a vector4 of four floats"))
}

impl MeshShapeData {
    /// Adds this shape to `graph` as an `hknpMeshShape` (and its
    /// `hknpMeshShapePrimitiveMapping`); returns the shape's id. Type 8, composite
    /// dispatch and flags as docs/collision-notes.md §7 and §13 give them.
    ///
    /// # Errors
    /// A schema without these classes or members, or a value its member refuses.
    pub fn write(&self, graph: &mut Graph) -> Result<ObjectId> {
        let add = |g: &mut Graph, c: &str| g.add_object(c).map_err(|e| bad(e.to_string()));
        let id = add(graph, "hknpMeshShape")?;
        let mapping = match &self.mapping {
            Some(_) => Some(add(graph, "hknpMeshShapePrimitiveMapping")?),
            None => None,
        };
        let mut w = Writer { g: graph, id };
        w.set("type", Value::UInt(8))?;
        w.set("dispatchType", Value::UInt(2))?;
        w.set("flags", Value::UInt(0x4))?;
        w.set(
            "numShapeKeyBits",
            Value::UInt(u64::from(self.num_shape_key_bits)),
        )?;
        w.set("shapeTagCodecInfo", Value::UInt(u64::from(u32::MAX)))?;
        let [x, y, z] = self.bit_scale16;
        w.set("vertexConversionUtil.bitScale16", vec4([x, y, z, 0.0])?)?;
        let [x, y, z] = self.bit_scale16_inv;
        w.set("vertexConversionUtil.bitScale16Inv", vec4([x, y, z, 0.0])?)?;
        w.fill("shapeTagTable", self.tag_table.len())?;
        for (i, (k, t)) in self.tag_table.iter().enumerate() {
            w.set(
                &format!("shapeTagTable[{i}].meshPrimitiveKey"),
                Value::UInt(u64::from(*k)),
            )?;
            w.set(
                &format!("shapeTagTable[{i}].shapeTag"),
                Value::UInt(u64::from(*t)),
            )?;
        }
        w.fill("topLevelTree.nodes", self.top.len())?;
        for (i, n) in self.top.iter().enumerate() {
            let at = format!("topLevelTree.nodes[{i}]");
            for (a, (lo, hi)) in [("lx", "hx"), ("ly", "hy"), ("lz", "hz")]
                .iter()
                .enumerate()
            {
                w.set(&format!("{at}.{lo}"), vec4(n.lo[a])?)?;
                w.set(&format!("{at}.{hi}"), vec4(n.hi[a])?)?;
            }
            w.set(&format!("{at}.data"), uints(&n.data))?;
            let flags = if n.leaf { NODE_IS_LEAF } else { 0 };
            w.set(&format!("{at}.flags"), Value::UInt(u64::from(flags)))?;
        }
        w.set("topLevelTree.isCompact", Value::Bool(1))?;
        w.fill("geometrySections", self.sections.len())?;
        for (si, s) in self.sections.iter().enumerate() {
            write_section(&mut w, &format!("geometrySections[{si}]"), s)?;
        }
        if let (Some(m), Some(mid)) = (&self.mapping, mapping) {
            w.set("primitiveMapping", Value::Pointer(Some(Ptr::Object(mid))))?;
            let mut w = Writer { g: w.g, id: mid };
            w.set(
                "sectionStart",
                Value::list(
                    m.section_start
                        .iter()
                        .map(|&x| Value::UInt(x.into()))
                        .collect(),
                ),
            )?;
            w.set(
                "bitString",
                Value::list(
                    m.bit_string
                        .iter()
                        .map(|&x| Value::UInt(x.into()))
                        .collect(),
                ),
            )?;
            w.set("bitsPerEntry", Value::UInt(m.bits_per_entry.into()))?;
            w.set("triangleIndexBitMask", Value::UInt(m.mask.into()))?;
        }
        Ok(id)
    }
}

fn write_section(w: &mut Writer<'_>, at: &str, s: &Section) -> Result<()> {
    w.fill(&format!("{at}.sectionBvh"), s.bvh.len())?;
    for (i, n) in s.bvh.iter().enumerate() {
        let node = format!("{at}.sectionBvh[{i}]");
        for (a, (lo, hi)) in [("lx", "hx"), ("ly", "hy"), ("lz", "hz")]
            .iter()
            .enumerate()
        {
            w.set(
                &format!("{node}.{lo}"),
                Value::UInt(u32::from_le_bytes(n.lo[a]).into()),
            )?;
            w.set(
                &format!("{node}.{hi}"),
                Value::UInt(u32::from_le_bytes(n.hi[a]).into()),
            )?;
        }
        w.set(&format!("{node}.data"), uints(&n.data))?;
    }
    w.fill(&format!("{at}.primitives"), s.primitives.len())?;
    for (i, p) in s.primitives.iter().enumerate() {
        for (k, m) in ["aId", "bId", "cId", "dId"].iter().enumerate() {
            w.set(
                &format!("{at}.primitives[{i}].{m}"),
                Value::UInt(p[k].into()),
            )?;
        }
    }
    let mut vb = Vec::with_capacity(s.vertices.len() * VERTEX_BYTES);
    for v in &s.vertices {
        for c in v {
            vb.extend(c.to_le_bytes().map(|b| Value::UInt(b.into())));
        }
    }
    w.set(&format!("{at}.vertexBuffer"), Value::list(vb))?;
    let bits = s.interior.iter().map(|&b| Value::UInt(b.into())).collect();
    w.set(
        &format!("{at}.interiorPrimitiveBitField"),
        Value::list(bits),
    )?;
    let off = s.offset.map(|o| o as u32);
    w.set(&format!("{at}.sectionOffset"), uints(&off))?;
    let inv = s.bit_scale8_inv.iter().map(|&f| Value::Real(f)).collect();
    w.set(&format!("{at}.bitScale8Inv"), Value::CArray(inv))?;
    let bo = s.bit_offset.iter().map(|&o| Value::Int(o.into())).collect();
    w.set(&format!("{at}.bitOffset"), Value::CArray(bo))
}
