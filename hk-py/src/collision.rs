//! Collision: the bodies and shapes of a file as `hk export` reads them (world-space
//! triangles, one object per body and shape, surfaces named as `hk export` names their
//! materials), and meshes put back into a file as `hk import --into` does.

use std::collections::BTreeMap;

use hk_gen::collision::{gltf, import, meshin};
use hk_runtime::collision::import::{export_name, IntoOptions};
use hk_runtime::collision::input::{InputMesh, InputTriangle};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::file::NativeFile;
use crate::to_py;

/// `values` as little-endian bytes, four per value.
fn le_bytes<'py, T: Copy>(
    py: Python<'py>,
    values: &[T],
    f: impl Fn(T) -> [u8; 4],
) -> Bound<'py, PyBytes> {
    let mut out = Vec::with_capacity(values.len() * 4);
    for v in values {
        out.extend_from_slice(&f(*v));
    }
    PyBytes::new(py, &out)
}

/// The collision of a file: `{"bodies": [...], "surfaces": {id: {...}}}`. Each body has
/// `name`, `object`, `motion_type`, `motion_name`, `filter_info`, `transform` (12 floats:
/// three columns and the translation) and `shapes`; each shape `name` (`body/shape` as
/// `hk export` names it), `shape`, `object`, `kind`, `vertices` (world-space float32
/// bytes), `triangles` (uint32 bytes), `surfaces` (uint32 bytes, one per triangle,
/// 0xFFFFFFFF for none).
#[pyfunction]
fn collision<'py>(py: Python<'py>, file: &NativeFile) -> PyResult<Bound<'py, PyDict>> {
    let scene = py
        .detach(|| hk_gen::collision::scene_of(&file.doc, &file.label()))
        .map_err(|e| to_py(py, e))?;
    let bodies = PyList::empty(py);
    let mut surfaces = BTreeMap::new();
    for b in &scene.bodies {
        let shapes = PyList::empty(py);
        for m in &b.meshes {
            let world = b.world_vertices(m);
            let flat: Vec<f32> = world.iter().flatten().copied().collect();
            let tris: Vec<u32> = m.triangles.iter().flat_map(|t| t.v).collect();
            let surf: Vec<u32> = m
                .triangles
                .iter()
                .map(|t| t.surface.unwrap_or(u32::MAX))
                .collect();
            for t in &m.triangles {
                surfaces.entry(t.surface).or_insert(());
            }
            let s = PyDict::new(py);
            s.set_item("name", export_name(b, m))?;
            s.set_item("shape", &m.name)?;
            s.set_item("object", m.object.0)?;
            s.set_item("kind", format!("{:?}", m.kind))?;
            s.set_item("vertices", le_bytes(py, &flat, f32::to_le_bytes))?;
            s.set_item("triangles", le_bytes(py, &tris, u32::to_le_bytes))?;
            s.set_item("surfaces", le_bytes(py, &surf, u32::to_le_bytes))?;
            shapes.append(s)?;
        }
        let d = PyDict::new(py);
        d.set_item("name", &b.name)?;
        d.set_item("object", b.object.0)?;
        d.set_item("motion_type", b.motion_type)?;
        d.set_item("motion_name", &b.motion_name)?;
        d.set_item("filter_info", b.filter_info)?;
        let a = &b.to_world;
        let t: Vec<f32> = a.cols.iter().flatten().chain(a.t.iter()).copied().collect();
        d.set_item("transform", t)?;
        d.set_item("shapes", shapes)?;
        bodies.append(d)?;
    }
    let out = PyDict::new(py);
    out.set_item("bodies", bodies)?;
    out.set_item("surfaces", surface_table(py, &scene, surfaces.keys())?)?;
    Ok(out)
}

/// Each surface id the triangles use (`None` for none): its material name as `hk export`
/// writes it, the colour `hk export` and `hk render` give it, and for a phive file the material entry and hit mask it indexes.
fn surface_table<'py, 'a>(
    py: Python<'py>,
    scene: &hk_runtime::collision::Scene,
    ids: impl Iterator<Item = &'a Option<u32>>,
) -> PyResult<Bound<'py, PyDict>> {
    let table = PyDict::new(py);
    for id in ids {
        let d = PyDict::new(py);
        d.set_item("name", gltf::material_name(scene, *id))?;
        d.set_item("color", gltf::surface_color(*id))?;
        if let Some(p) = id.and_then(|s| scene.phive.as_ref().and_then(|p| p.resolve(s))) {
            d.set_item("material", p.material.material)?;
            d.set_item("sub_material", p.material.sub_material)?;
            d.set_item("shape_tags", p.material.shape_tags)?;
            d.set_item("layers", p.hit_mask.layers)?;
            d.set_item("sub_layers", p.hit_mask.sub_layers)?;
        }
        table.set_item(*id, d)?;
    }
    Ok(table)
}

/// Four-byte little-endian values of `bytes`, refusing a length that is no multiple of 12
/// (three per vertex or triangle).
fn triples<T>(
    what: &str,
    name: &str,
    bytes: &[u8],
    f: impl Fn([u8; 4]) -> T,
) -> PyResult<Vec<[T; 3]>> {
    if !bytes.len().is_multiple_of(12) {
        return Err(PyValueError::new_err(format!(
            "mesh {name}: {what} hold {} bytes, not a whole number of triples of 4-byte values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(12)
        .map(|c| {
            let v = |i: usize| f([c[i], c[i + 1], c[i + 2], c[i + 3]]);
            [v(0), v(4), v(8)]
        })
        .collect())
}

/// One mesh from Python: name, world-space vertices (float32 bytes), triangles (uint32
/// bytes), material names and the material of each triangle (uint32 bytes).
type PyMesh = (String, Vec<u8>, Vec<u8>, Vec<String>, Vec<u8>);

/// The meshes as `hk import` reads them from a mesh file: surfaces from material names.
fn input_meshes(meshes: Vec<PyMesh>) -> PyResult<Vec<InputMesh>> {
    let mut out = Vec::with_capacity(meshes.len());
    for (name, verts, tris, materials, index) in meshes {
        let vertices = triples("vertices", &name, &verts, f32::from_le_bytes)?;
        let corners = triples("triangles", &name, &tris, u32::from_le_bytes)?;
        let surfaces = materials
            .iter()
            .map(|m| meshin::surface::parse(m))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PyValueError::new_err(format!("mesh {name}: {e}")))?;
        let which: Vec<u32> = index
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut triangles = Vec::with_capacity(corners.len());
        for (i, v) in corners.into_iter().enumerate() {
            let m = which.get(i).copied().unwrap_or(0) as usize;
            let surface = *surfaces.get(m).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "mesh {name}: triangle {i} uses material {m}, but the mesh has {} materials",
                    surfaces.len()
                ))
            })?;
            if let Some(&bad) = v.iter().find(|&&k| k as usize >= vertices.len()) {
                return Err(PyValueError::new_err(format!(
                    "mesh {name}: triangle {i} names vertex {bad}, but the mesh has {} vertices",
                    vertices.len()
                )));
            }
            triangles.push(InputTriangle {
                v,
                surface,
                face: i as u32 + 1,
            });
        }
        out.push(InputMesh {
            name,
            vertices,
            triangles,
        });
    }
    Ok(out)
}

/// The file at `path` with its collision geometry replaced by `meshes`, as `hk import
/// MESH --into FILE` builds and checks it. Returns `(bytes, report, checks)`; the Python
/// half raises `CheckError` when the checks fail.
#[pyfunction]
#[pyo3(signature = (path, meshes, allow_missing=false, boxes=import::BOXES, schema=None))]
fn import_collision<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    meshes: Vec<PyMesh>,
    allow_missing: bool,
    boxes: usize,
    schema: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let ctx = crate::context(py, schema, false)?;
    let meshes = input_meshes(meshes)?;
    let opts = IntoOptions { allow_missing };
    let done = py.detach(|| -> hk_gen::Result<_> {
        let (bytes, report) = import::into_bytes(&ctx, &path, &meshes, &opts)?;
        let v = import::verify(&ctx, &bytes, boxes, 1)?;
        Ok((bytes, report, v))
    });
    let (bytes, report, v) = done.map_err(|e| to_py(py, e))?;
    let r = PyDict::new(py);
    let replaced = PyList::empty(py);
    for x in &report.replaced {
        let d = PyDict::new(py);
        d.set_item("name", &x.name)?;
        d.set_item("vertices", x.vertices)?;
        d.set_item("triangles", x.triangles)?;
        d.set_item("degenerate", x.degenerate)?;
        replaced.append(d)?;
    }
    r.set_item("replaced", replaced)?;
    r.set_item("missing", &report.missing)?;
    r.set_item("unmatched", &report.unmatched)?;
    r.set_item("kept", &report.kept)?;
    r.set_item("codes", report.codes)?;
    let c = PyDict::new(py);
    c.set_item("trees", v.trees)?;
    c.set_item("found", v.found)?;
    c.set_item("kept", v.kept)?;
    c.set_item("boxes", v.boxes)?;
    c.set_item("failures", &v.failures)?;
    c.set_item("over_memory", v.over_memory)?;
    Ok((PyBytes::new(py, &bytes), r, c))
}

/// Adds the collision functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(collision, m)?)?;
    m.add_function(wrap_pyfunction!(import_collision, m)?)?;
    Ok(())
}
