//! hk's errors as Python exceptions: `hk.Error` and one subclass per concern, each carrying
//! what the library knows of where the error is (`offset`, `line`, `column`, `path`,
//! `file`).

use hk_runtime::ErrorKind;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(hk, Error, PyException, "Every error hk raises.");
create_exception!(
    hk,
    ReadError,
    Error,
    "A file or dump that does not read: `offset` (file bytes) or `line`/`column` (a dump), and `path` (object and member)."
);
create_exception!(
    hk,
    WriteError,
    Error,
    "A value or edit the writers refuse, with its object and member `path`."
);
create_exception!(
    hk,
    SchemaError,
    Error,
    "No schema reads the file, or a schema folder with problems."
);
create_exception!(
    hk,
    CollisionError,
    Error,
    "Collision (bodies, shapes, meshes to import) that does not read or fit."
);
create_exception!(
    hk,
    AnimError,
    Error,
    "A skeleton or animation that does not read or decode."
);
create_exception!(
    hk,
    CheckError,
    Error,
    "A file hk built that fails its checks (`failures` lists them); nothing was written."
);
create_exception!(
    hk,
    FileError,
    Error,
    "The operating system refused to read or write a file."
);
create_exception!(
    hk,
    UsageError,
    Error,
    "An argument hk cannot use (an unknown layout, animation index, bone name)."
);

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    m.add("WriteError", py.get_type::<WriteError>())?;
    m.add("SchemaError", py.get_type::<SchemaError>())?;
    m.add("CollisionError", py.get_type::<CollisionError>())?;
    m.add("AnimError", py.get_type::<AnimError>())?;
    m.add("CheckError", py.get_type::<CheckError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    Ok(())
}

/// The exception for a library error, its message as the command line prints it.
fn of_runtime(py: Python<'_>, e: &hk_runtime::Error) -> PyErr {
    let msg = e.to_string();
    let err = match e.kind() {
        ErrorKind::Read(_) => ReadError::new_err(msg),
        ErrorKind::Write(_) | ErrorKind::Convert(_) => WriteError::new_err(msg),
        ErrorKind::Schema(_) => SchemaError::new_err(msg),
        ErrorKind::Io(_) => FileError::new_err(msg),
        ErrorKind::Collision(_) => CollisionError::new_err(msg),
        ErrorKind::Anim(_) => AnimError::new_err(msg),
        _ => Error::new_err(msg),
    };
    let path = e.path();
    let (line, column) = e.line_column().unzip();
    let file = e.file().map(|f| f.display().to_string());
    let v = err.value(py);
    let set = || -> PyResult<()> {
        v.setattr("offset", e.offset())?;
        v.setattr("line", line)?;
        v.setattr("column", column)?;
        v.setattr("path", (!path.is_empty()).then(|| joined(&path)))?;
        v.setattr("file", file)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The path's steps as one text: `#3 hkaSkeleton.bones[2]`, a blank before each step that
/// does not start with `.` or `[`.
fn joined(steps: &[String]) -> String {
    let mut out = String::new();
    for s in steps {
        if !out.is_empty() && !s.starts_with(['.', '[']) {
            out.push(' ');
        }
        out.push_str(s);
    }
    out
}

/// The exception for an error of the command line's library.
pub(crate) fn to_py(py: Python<'_>, e: hk_gen::Error) -> PyErr {
    let err = match &e {
        hk_gen::Error::Runtime(r) => return of_runtime(py, r),
        hk_gen::Error::Io { .. } | hk_gen::Error::Output(_) => FileError::new_err(e.to_string()),
        hk_gen::Error::Schema { .. } | hk_gen::Error::Profile { .. } => {
            SchemaError::new_err(e.to_string())
        }
        hk_gen::Error::Json { .. } | hk_gen::Error::Toml { .. } | hk_gen::Error::Dump { .. } => {
            ReadError::new_err(e.to_string())
        }
        hk_gen::Error::Geometry { .. } => CollisionError::new_err(e.to_string()),
        _ => UsageError::new_err(e.to_string()),
    };
    let v = err.value(py);
    let set = || -> PyResult<()> {
        for k in ["offset", "line", "column", "path", "file"] {
            v.setattr(k, py.None())?;
        }
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The exception for a library error.
pub(crate) fn rt(py: Python<'_>, e: hk_runtime::Error) -> PyErr {
    of_runtime(py, &e)
}
