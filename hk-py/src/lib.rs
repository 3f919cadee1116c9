//! `hk._hk`, the native half of the `hk` Python package (docs/python.md): every function
//! here calls the hk library (hk-runtime and the command line's library, hk-gen) the way
//! the `hk` command does, and the pure-Python half (`hk-py/python/hk`) shapes the results
//! into Python objects.
//!
//! Buffers cross as `bytes` of little-endian `float32` or `uint32` values, which the Python
//! half views as `memoryview`s without a copy.

mod anim;
mod collision;
mod errors;
mod file;

use std::sync::{Arc, OnceLock};

use hk_gen::{Context, Options};
use pyo3::prelude::*;

pub(crate) use errors::to_py;

/// The context of every call without a `schema` argument: the built-in schemas, read as
/// the command line reads without options. Made once.
fn built_in(py: Python<'_>) -> PyResult<Arc<Context>> {
    static CTX: OnceLock<Arc<Context>> = OnceLock::new();
    if let Some(c) = CTX.get() {
        return Ok(c.clone());
    }
    let c = Arc::new(Context::built_in().map_err(|e| to_py(py, e))?);
    Ok(CTX.get_or_init(|| c).clone())
}

/// The context for a call: the built-in one, or one whose schema is `schema` (a schema
/// folder or a generation name, as `--schema`), reading leniently when asked.
pub(crate) fn context(
    py: Python<'_>,
    schema: Option<&str>,
    lenient: bool,
) -> PyResult<Arc<Context>> {
    if schema.is_none() && !lenient {
        return built_in(py);
    }
    let mut opts = Options {
        schema: schema.map(Into::into),
        ..Options::default()
    };
    opts.read = opts.read.with_lenient(lenient);
    Ok(Arc::new(Context::new(&opts).map_err(|e| to_py(py, e))?))
}

/// The native module.
#[pymodule]
fn _hk(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    file::register(m)?;
    collision::register(m)?;
    anim::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
