//! Reading the meshes a user edited (`hk import`): Wavefront OBJ ([`obj`]) and glTF 2.0,
//! `.gltf` or `.glb` ([`gltf_in`]), into [`InputMesh`] objects named as `hk export` names
//! them, with world-space vertices and a surface per triangle ([`surface`]). Polygons are
//! triangulated ([`polygon`]). What the formats and the names mean is in
//! docs/collision.md, "Importing meshes".
//!
//! Refused, with the object and face (OBJ: the line): coordinates that are not finite,
//! corners that name no vertex, faces that twist or have holes, material names that name
//! no surface, two objects of one name, and a file without a single triangle. An object
//! without triangles is kept (the importer decides whether its shape may be empty).

pub mod gltf_in;
pub mod obj;
pub mod polygon;
pub mod surface;

use std::collections::HashMap;
use std::path::Path;

use hk_runtime::collision::input::InputMesh;

use crate::error::{Error, Result};

/// The mesh file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeshFormat {
    /// Wavefront OBJ.
    Obj,
    /// glTF 2.0, JSON or binary.
    Gltf,
}

impl MeshFormat {
    /// The format of `path` by its extension, else by its first bytes.
    pub fn of(path: &Path, bytes: &[u8]) -> MeshFormat {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("obj") => MeshFormat::Obj,
            Some("gltf" | "glb") => MeshFormat::Gltf,
            _ if bytes.starts_with(b"glTF") || bytes.trim_ascii_start().starts_with(b"{") => {
                MeshFormat::Gltf
            }
            _ => MeshFormat::Obj,
        }
    }
}

/// The objects of the mesh file at `path`.
///
/// # Errors
/// A file that cannot be read, or any of the refusals above, naming the file.
pub fn read(path: &Path) -> Result<Vec<InputMesh>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse(path, &bytes)
}

/// The objects of mesh file `bytes`, read from `path` (its name picks the format; its
/// folder holds a `.gltf`'s buffers).
///
/// # Errors
/// As [`read`].
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<InputMesh>> {
    let bad = |m: String| Error::geometry(path, m);
    let objects = match MeshFormat::of(path, bytes) {
        MeshFormat::Obj => {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                bad(format!(
                    "not UTF-8 text at byte {} (an OBJ file is text)",
                    e.valid_up_to()
                ))
            })?;
            obj::read(text).map_err(bad)?
        }
        MeshFormat::Gltf => gltf_in::read(bytes, path).map_err(bad)?,
    };
    check(&objects).map_err(bad)?;
    Ok(objects)
}

/// Names are unique and there is something to import.
fn check(objects: &[InputMesh]) -> std::result::Result<(), String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, o) in objects.iter().enumerate() {
        if let Some(first) = seen.insert(o.name.as_str(), i) {
            return Err(format!(
                "objects {} and {} are both named `{}`: names say which shape a mesh replaces",
                first + 1,
                i + 1,
                o.name
            ));
        }
    }
    if objects.iter().all(|o| o.triangles.is_empty()) {
        return Err("no triangles in the file".to_string());
    }
    Ok(())
}
