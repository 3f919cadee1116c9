//! glTF 2.0 (`.gltf` and `.glb`) into [`InputMesh`] objects: one object per node that has
//! a mesh, named by the node (else its mesh, else `node N`), its positions placed by the
//! node's transform and its parents'. Triangles, strips and fans are read; every
//! primitive's material name gives its surface ([`super::surface`]), a primitive without
//! a material has none.
//!
//! Buffers come from the GLB's binary chunk, a base64 `data:` URI, or a file named by a
//! relative URI in the `.gltf`'s own folder (no `..`, no absolute path, no scheme). Every
//! accessor's range is checked against its view and buffer before a byte is read.

use std::collections::HashMap;
use std::path::Path;

use base64::Engine as _;
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;
use gltf::Gltf;
use hk_runtime::collision::input::{InputMesh, InputTriangle, Surface};
use hk_runtime::collision::Vec3;

use super::surface;

/// The most nodes a scene may nest.
const MAX_DEPTH: usize = 256;

/// The objects of the glTF or GLB `bytes`, read from `path` (whose folder holds the
/// buffers a `.gltf` names).
///
/// # Errors
/// A document that does not parse or validate, a buffer that cannot be found, an accessor
/// past its data, a primitive that is not triangles, with the node and face.
pub fn read(bytes: &[u8], path: &Path) -> Result<Vec<InputMesh>, String> {
    let doc = Gltf::from_slice(bytes).map_err(|e| format!("not a glTF document: {e}"))?;
    let buffers = doc
        .buffers()
        .map(|b| buffer(&doc, &b, path))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::new();
    for (node, matrix) in placed_nodes(&doc)? {
        if let Some(mesh) = node.mesh() {
            let name = node
                .name()
                .or(mesh.name())
                .map_or_else(|| format!("node {}", node.index()), str::to_string);
            out.push(object(name, &mesh, &matrix, &buffers)?);
        }
    }
    Ok(out)
}

/// The bytes of one buffer.
pub(crate) fn buffer(doc: &Gltf, b: &gltf::Buffer<'_>, path: &Path) -> Result<Vec<u8>, String> {
    let data = match b.source() {
        gltf::buffer::Source::Bin => doc
            .blob
            .clone()
            .ok_or("buffer 0 is the binary chunk, and the file has none")?,
        gltf::buffer::Source::Uri(uri) => {
            uri_bytes(uri, path).map_err(|e| format!("buffer {}: {e}", b.index()))?
        }
    };
    if data.len() < b.length() {
        return Err(format!(
            "buffer {} states {} bytes and holds {}",
            b.index(),
            b.length(),
            data.len()
        ));
    }
    Ok(data)
}

fn uri_bytes(uri: &str, path: &Path) -> Result<Vec<u8>, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, b64) = rest
            .split_once(";base64,")
            .ok_or("a data URI that is not base64")?;
        return base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| format!("bad base64: {e}"));
    }
    let rel = Path::new(uri);
    let plain = rel
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain || uri.contains(':') || uri.contains('%') || uri.contains('\\') {
        return Err(format!(
            "`{uri}` is not a file name beside the document (no folders above it, no \
             absolute path, no scheme)"
        ));
    }
    let file = path.parent().unwrap_or(Path::new(".")).join(rel);
    std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))
}

type Matrix = [[f32; 4]; 4];

/// Every node of the scene with its world matrix, parents before children, each node
/// once.
fn placed_nodes(doc: &Gltf) -> Result<Vec<(gltf::Node<'_>, Matrix)>, String> {
    let roots: Vec<gltf::Node<'_>> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(s) => s.nodes().collect(),
        None => {
            let children: Vec<usize> = doc
                .nodes()
                .flat_map(|n| n.children().map(|c| c.index()))
                .collect();
            doc.nodes()
                .filter(|n| !children.contains(&n.index()))
                .collect()
        }
    };
    let mut seen = vec![false; doc.nodes().len()];
    let mut stack: Vec<(gltf::Node<'_>, Matrix, usize)> = roots
        .into_iter()
        .rev()
        .map(|n| (n, identity(), 0))
        .collect();
    let mut out = Vec::new();
    while let Some((node, parent, depth)) = stack.pop() {
        if std::mem::replace(&mut seen[node.index()], true) {
            return Err(format!(
                "node {} is reached twice: the nodes are not a tree",
                node.index()
            ));
        }
        if depth > MAX_DEPTH {
            return Err(format!("nodes nest deeper than {MAX_DEPTH}"));
        }
        let m = mul(&parent, &node.transform().matrix());
        for c in node.children() {
            stack.push((c, m, depth + 1));
        }
        out.push((node, m));
    }
    Ok(out)
}

fn identity() -> Matrix {
    let mut m = [[0.0; 4]; 4];
    for (i, c) in m.iter_mut().enumerate() {
        c[i] = 1.0;
    }
    m
}

/// `a × b`, column-major.
fn mul(a: &Matrix, b: &Matrix) -> Matrix {
    let mut m = [[0.0; 4]; 4];
    for (c, col) in m.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

fn apply(m: &Matrix, p: Vec3) -> Vec3 {
    let mut out = [0.0; 3];
    for (r, o) in out.iter_mut().enumerate() {
        *o = m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r];
    }
    out
}

/// One node's mesh as an object.
fn object(
    name: String,
    mesh: &gltf::Mesh<'_>,
    matrix: &Matrix,
    buffers: &[Vec<u8>],
) -> Result<InputMesh, String> {
    let mut o = InputMesh {
        name,
        ..InputMesh::default()
    };
    // Primitives that share a position accessor share its vertices.
    let mut first_vertex: HashMap<usize, u32> = HashMap::new();
    for p in mesh.primitives() {
        let at = |what: String| format!("object `{}` primitive {}: {what}", o.name, p.index());
        let pos = p
            .get(&gltf::Semantic::Positions)
            .ok_or_else(|| at("no POSITION".into()))?;
        let base = match first_vertex.get(&pos.index()) {
            Some(&b) => b,
            None => {
                let b = o.vertices.len() as u32;
                for (i, v) in positions(&pos, buffers)
                    .map_err(at)?
                    .into_iter()
                    .enumerate()
                {
                    let w = apply(matrix, v);
                    if !w.iter().all(|c| c.is_finite()) {
                        return Err(at(format!("vertex {i} is not finite ({w:?})")));
                    }
                    o.vertices.push(w);
                }
                first_vertex.insert(pos.index(), b);
                b
            }
        };
        let count = pos.count();
        let idx = match p.indices() {
            Some(a) => indices(&a, buffers).map_err(at)?,
            None => (0..count as u32).collect(),
        };
        let surface = match p.material().index() {
            None => Surface::default(),
            Some(i) => {
                let n = p
                    .material()
                    .name()
                    .ok_or_else(|| at(format!("material {i} has no name")))?;
                surface::parse(n).map_err(at)?
            }
        };
        for v in triangles(p.mode(), &idx).map_err(at)? {
            let face = o.triangles.len() as u32 + 1;
            if let Some(bad) = v.iter().find(|&&i| i as usize >= count) {
                return Err(format!(
                    "object `{}` face {face}: index {bad} past the {count} positions",
                    o.name
                ));
            }
            o.triangles.push(InputTriangle {
                v: v.map(|i| i + base),
                surface,
                face,
            });
        }
    }
    Ok(o)
}

/// The corners of `mode`'s triangles over `idx`.
fn triangles(mode: Mode, idx: &[u32]) -> Result<Vec<[u32; 3]>, String> {
    let n = idx.len();
    Ok(match mode {
        Mode::Triangles if n.is_multiple_of(3) => {
            idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
        }
        Mode::Triangles => return Err(format!("{n} indices is not a whole number of triangles")),
        Mode::TriangleStrip => (0..n.saturating_sub(2))
            .map(|i| match i % 2 {
                0 => [idx[i], idx[i + 1], idx[i + 2]],
                _ => [idx[i + 1], idx[i], idx[i + 2]],
            })
            .collect(),
        Mode::TriangleFan => (1..n.saturating_sub(1))
            .map(|i| [idx[0], idx[i], idx[i + 1]])
            .collect(),
        other => return Err(format!("mode {other:?} draws no triangles")),
    })
}

/// The bytes of element `i` of `a`, each element `size` bytes, after every range check.
fn elements<'b>(
    a: &gltf::Accessor<'_>,
    size: usize,
    buffers: &'b [Vec<u8>],
) -> Result<Vec<&'b [u8]>, String> {
    if a.sparse().is_some() {
        return Err(format!(
            "accessor {} is sparse, which import does not read",
            a.index()
        ));
    }
    let view = a
        .view()
        .ok_or_else(|| format!("accessor {} has no buffer view", a.index()))?;
    let buf = &buffers[view.buffer().index()];
    let stride = view.stride().unwrap_or(size);
    let bad = || format!("accessor {} runs past its buffer view", a.index());
    if stride < size {
        return Err(format!(
            "accessor {}: stride {stride} under its {size}-byte element",
            a.index()
        ));
    }
    let view_end = view.offset().checked_add(view.length()).ok_or_else(bad)?;
    let view_bytes = buf.get(view.offset()..view_end).ok_or_else(bad)?;
    let count = a.count();
    if count == 0 {
        return Ok(Vec::new());
    }
    let end = (count - 1)
        .checked_mul(stride)
        .and_then(|x| x.checked_add(a.offset()))
        .and_then(|x| x.checked_add(size))
        .ok_or_else(bad)?;
    if end > view_bytes.len() {
        return Err(bad());
    }
    Ok((0..count)
        .map(|i| &view_bytes[a.offset() + i * stride..][..size])
        .collect())
}

fn positions(a: &gltf::Accessor<'_>, buffers: &[Vec<u8>]) -> Result<Vec<Vec3>, String> {
    if a.data_type() != DataType::F32 || a.dimensions() != Dimensions::Vec3 || a.normalized() {
        return Err(format!(
            "POSITION accessor {} is not VEC3 of floats",
            a.index()
        ));
    }
    Ok(elements(a, 12, buffers)?
        .into_iter()
        .map(|e| {
            std::array::from_fn(|k| {
                f32::from_le_bytes(e[4 * k..4 * k + 4].try_into().unwrap_or_default())
            })
        })
        .collect())
}

fn indices(a: &gltf::Accessor<'_>, buffers: &[Vec<u8>]) -> Result<Vec<u32>, String> {
    let size = match (a.data_type(), a.dimensions()) {
        (DataType::U8, Dimensions::Scalar) => 1,
        (DataType::U16, Dimensions::Scalar) => 2,
        (DataType::U32, Dimensions::Scalar) => 4,
        _ => {
            return Err(format!(
                "index accessor {} is not unsigned scalars",
                a.index()
            ))
        }
    };
    Ok(elements(a, size, buffers)?
        .into_iter()
        .map(|e| e.iter().rev().fold(0u32, |v, &b| v << 8 | u32::from(b)))
        .collect())
}
