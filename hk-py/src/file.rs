//! Files: `open` (the one front door, as `hk info` and `hk dump` read), the JSON dump,
//! writing back, building from a dump (`hk build`) and converting (`hk convert`).

use std::path::PathBuf;
use std::sync::Arc;

use hk_gen::Context;
use hk_runtime::file::{self, Container, Document, Origin};
use hk_runtime::schema::Shape;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::errors::rt;
use crate::{context, to_py};

/// A Havok file read into hk's object graph, and the bytes it was read from.
#[pyclass(module = "hk._hk", name = "NativeFile", frozen)]
#[derive(Debug)]
pub(crate) struct NativeFile {
    pub(crate) doc: Document,
    pub(crate) bytes: Vec<u8>,
    pub(crate) path: Option<PathBuf>,
    pub(crate) ctx: Arc<Context>,
}

impl NativeFile {
    /// The path errors name: the file's, else `<bytes>`.
    pub(crate) fn label(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(|| PathBuf::from("<bytes>"))
    }
}

/// The bytes and path of `source`: `bytes`-like data as is, else a path (`str` or
/// `os.PathLike`) read from disk.
fn source(py: Python<'_>, src: &Bound<'_, PyAny>) -> PyResult<(Vec<u8>, Option<PathBuf>)> {
    if let Ok(b) = src.cast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), None));
    }
    if src.is_instance_of::<PyString>() || src.hasattr("__fspath__")? {
        let path: PathBuf = src.extract()?;
        let bytes = py
            .detach(|| std::fs::read(&path))
            .map_err(|e| to_py(py, hk_gen::Error::io(&path, e)))?;
        return Ok((bytes, Some(path)));
    }
    if let Ok(v) = src.call_method0("tobytes") {
        return Ok((v.cast::<PyBytes>()?.as_bytes().to_vec(), None));
    }
    Err(PyTypeError::new_err(
        "open() takes a path (str or os.PathLike) or the file's bytes",
    ))
}

/// Reads a Havok file (any container, or Havok XML).
#[pyfunction]
#[pyo3(signature = (source, schema=None, lenient=false))]
fn open(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    schema: Option<&str>,
    lenient: bool,
) -> PyResult<NativeFile> {
    let (bytes, path) = self::source(py, source)?;
    let ctx = context(py, schema, lenient)?;
    let doc = py.detach(|| {
        let d = ctx.open_file_or_xml(&bytes);
        match &path {
            Some(p) => d.map_err(|e| e.in_file(p)),
            None => d,
        }
    });
    let doc = doc.map_err(|e| to_py(py, e))?;
    Ok(NativeFile {
        doc,
        bytes,
        path,
        ctx,
    })
}

/// A shape as the Python half reads values: `"ptr"`, `"variant"`, `("struct", class)`,
/// `("array", inner)`, or `"value"` for anything else.
fn shape_of<'py>(py: Python<'py>, doc: &Document, s: &Shape) -> PyResult<Bound<'py, PyAny>> {
    Ok(match s {
        Shape::Pointer => "ptr".into_pyobject(py)?.into_any(),
        Shape::Variant => "variant".into_pyobject(py)?.into_any(),
        Shape::Struct(c) => ("struct", doc.graph.schema().name_of(*c))
            .into_pyobject(py)?
            .into_any(),
        Shape::Array(_, inner) | Shape::CArray(_, inner) => ("array", shape_of(py, doc, inner)?)
            .into_pyobject(py)?
            .into_any(),
        _ => "value".into_pyobject(py)?.into_any(),
    })
}

#[pymethods]
impl NativeFile {
    /// The file's facts: container, schema, objects, root, size, warnings.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let container = match self.doc.container() {
            Container::Packfile => "packfile",
            Container::Tagfile => "tagfile",
            Container::BinaryTagfile => "binary tagfile",
        };
        d.set_item("container", container)?;
        d.set_item("schema", self.doc.schema.name())?;
        d.set_item("schema_choice", self.doc.schema.describe())?;
        d.set_item("objects", self.doc.graph.objects.len())?;
        d.set_item("root", self.doc.graph.root.0)?;
        d.set_item("bytes", self.bytes.len())?;
        d.set_item("path", self.path.as_ref().map(|p| p.display().to_string()))?;
        let mut warnings: Vec<String> = self.doc.schema.warning().into_iter().collect();
        warnings.extend(
            self.doc
                .violations
                .iter()
                .map(|v| format!("at 0x{:X}: {}: {}", v.offset, v.path, v.message)),
        );
        d.set_item("warnings", warnings)?;
        match &self.doc.origin {
            Origin::Packfile(info) => {
                d.set_item("file_version", info.file_version)?;
                d.set_item("contents_version", &info.contents_version)?;
                d.set_item("layout", info.layout.tag())?;
            }
            Origin::Tagfile { file, .. } => {
                d.set_item("sdk_version", &file.sdk_version)?;
            }
            Origin::BinaryTagfile(_) => {}
        }
        Ok(d)
    }

    /// The class name of every object, in id order.
    fn class_names(&self) -> Vec<String> {
        let g = &self.doc.graph;
        g.objects
            .iter()
            .map(|o| g.schema().name_of(o.class).to_string())
            .collect()
    }

    /// The members of class `name` in flattened order, each `(name, shape)`.
    fn members<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        let g = &self.doc.graph;
        let schema = g.schema();
        let list = PyList::empty(py);
        let Some(c) = schema.class_id(name) else {
            return Ok(list);
        };
        let flat = g.members(c).map_err(|e| rt(py, e))?;
        for (i, m) in flat.iter().enumerate() {
            let n = g.member_name(c, i).unwrap_or_default();
            list.append(PyTuple::new(
                py,
                [
                    n.into_pyobject(py)?.into_any(),
                    shape_of(py, &self.doc, &m.shape)?,
                ],
            )?)?;
        }
        Ok(list)
    }

    /// The JSON document `hk dump` writes.
    fn dump(&self, py: Python<'_>) -> PyResult<String> {
        let mut out = Vec::with_capacity(self.bytes.len() * 4);
        hk_runtime::dump::write_json(&self.doc, &mut out)
            .map_err(|e| to_py(py, hk_gen::Error::Output(e)))?;
        String::from_utf8(out).map_err(|e| to_py(py, hk_gen::Error::usage(e.to_string())))
    }

    /// The file written back from the graph, as the kind of file it was read from.
    fn write<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| file::write(&self.doc));
        let bytes = bytes.map_err(|e| rt(py, e.in_file(self.label())))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The bytes the file was read from.
    fn source_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.bytes)
    }
}

/// The file a dump (the JSON text `hk dump` writes, edited or not) describes, checked as
/// `hk build` checks it. Returns the bytes.
#[pyfunction]
#[pyo3(signature = (text, schema=None))]
fn build<'py>(py: Python<'py>, text: &str, schema: Option<&str>) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = context(py, schema, false)?;
    let built = py.detach(|| {
        let built = hk_runtime::dump::read(
            text.as_bytes(),
            hk_runtime::dump::Format::Json,
            ctx.schemas(),
        )?;
        hk_runtime::dump::write_built(&built)
    });
    Ok(PyBytes::new(py, &built.map_err(|e| rt(py, e))?))
}

/// A file's bytes converted to `layout` (four digits such as `8101`, or a preset such as
/// `win64`), as `hk convert` converts.
#[pyfunction]
#[pyo3(signature = (data, layout, schema=None))]
fn convert<'py>(
    py: Python<'py>,
    data: &[u8],
    layout: &str,
    schema: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = context(py, schema, false)?;
    let rules = hk_gen::convert::layout(layout).map_err(|e| to_py(py, e))?;
    let out = py.detach(|| -> hk_gen::Result<Vec<u8>> {
        let mut doc = ctx.open_file_or_xml(data)?;
        Ok(hk_runtime::convert::convert(&mut doc, rules)?)
    });
    Ok(PyBytes::new(py, &out.map_err(|e| to_py(py, e))?))
}

/// Adds the file functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeFile>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    Ok(())
}
