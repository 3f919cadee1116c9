//! Skeletons and animations as `hk anim` and the glTF export read them
//! ([`hk_gen::anim::load`]): bones with parents and reference pose, and every stored frame
//! of each decoded animation as the local pose of every bone.

use std::path::PathBuf;

use hk_gen::anim::{self, pose, LoadOptions};
use hk_runtime::anim::Transform;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::file::NativeFile;
use crate::to_py;

/// Ten floats per transform: translation (3), rotation x, y, z, w (4), scale (3).
fn push(out: &mut Vec<u8>, t: &Transform) {
    for v in t.translation.iter().chain(&t.rotation).chain(&t.scale) {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// The rig of `file` (with the skeletons of the file at `skeleton`, for animation files
/// that hold none). Animations of formats hk does not decode are listed in `skipped`.
fn load(py: Python<'_>, file: &NativeFile, skeleton: Option<&PathBuf>) -> PyResult<anim::Rig> {
    let opts = LoadOptions {
        skeleton: skeleton.map(PathBuf::as_path),
        skip_undecodable: true,
    };
    let path = file.label();
    py.detach(|| anim::load(&file.ctx, &path, &file.doc, &opts))
        .map_err(|e| to_py(py, e))
}

/// `{"skeletons": [...], "animations": [...], "skipped": [...]}`. A skeleton has `name`,
/// `object`, `bones`, `parents` (-1 for a root) and `reference` (float32 bytes, ten per
/// bone). An animation has `name`, `object`, `class_name`, `duration`, `frame_count`,
/// `skeleton` (its index), `additive`, `tracked` (per bone: a track drives it) and
/// `frames` (float32 bytes, ten per bone per frame: the local pose, reference pose where
/// no track drives the bone).
#[pyfunction]
#[pyo3(signature = (file, skeleton=None))]
fn rig<'py>(
    py: Python<'py>,
    file: &NativeFile,
    skeleton: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let rig = load(py, file, skeleton.as_ref())?;
    let skeletons = PyList::empty(py);
    for s in &rig.skeletons {
        let d = PyDict::new(py);
        d.set_item("name", &s.name)?;
        d.set_item("object", s.object.0)?;
        let names: Vec<&str> = s.bones.iter().map(|b| b.name.as_str()).collect();
        let parents: Vec<i64> = s
            .bones
            .iter()
            .map(|b| b.parent.map_or(-1, |p| p as i64))
            .collect();
        let mut reference = Vec::with_capacity(s.bones.len() * 40);
        for b in &s.bones {
            push(&mut reference, &b.reference);
        }
        d.set_item("bones", names)?;
        d.set_item("parents", parents)?;
        d.set_item("reference", PyBytes::new(py, &reference))?;
        skeletons.append(d)?;
    }
    let clips = PyList::empty(py);
    for c in &rig.clips {
        let bones = rig.skeletons[c.skeleton].bones.len();
        let mut frames = Vec::with_capacity(c.frames.frame_count * bones * 40);
        let mut tracked = vec![false; bones];
        for i in 0..c.frames.frame_count {
            for (b, (t, on)) in pose::bone_pose(&rig, c, c.frames.frame(i))
                .iter()
                .enumerate()
            {
                push(&mut frames, t);
                tracked[b] |= *on;
            }
        }
        let d = PyDict::new(py);
        d.set_item("name", &c.name)?;
        d.set_item("object", c.object.0)?;
        d.set_item("class_name", &c.class)?;
        d.set_item("duration", c.duration)?;
        d.set_item("frame_count", c.frames.frame_count)?;
        d.set_item("skeleton", c.skeleton)?;
        d.set_item("additive", c.additive)?;
        d.set_item("tracked", tracked)?;
        d.set_item("frames", PyBytes::new(py, &frames))?;
        clips.append(d)?;
    }
    let out = PyDict::new(py);
    out.set_item("skeletons", skeletons)?;
    out.set_item("animations", clips)?;
    out.set_item("skipped", &rig.skipped)?;
    out.set_item("stand_ins", &rig.stand_ins)?;
    Ok(out)
}

/// The local pose of every bone of animation `index` at `time` seconds (clamped to the
/// animation), sampled as `hk anim --time` samples: float32 bytes, ten per bone.
#[pyfunction]
#[pyo3(signature = (file, index, time, skeleton=None))]
fn pose_at<'py>(
    py: Python<'py>,
    file: &NativeFile,
    index: usize,
    time: f32,
    skeleton: Option<PathBuf>,
) -> PyResult<Bound<'py, PyBytes>> {
    let rig = load(py, file, skeleton.as_ref())?;
    let clip = rig.clips.get(index).ok_or_else(|| {
        PyIndexError::new_err(format!(
            "animation {index}: the file has {} decoded animations",
            rig.clips.len()
        ))
    })?;
    let time = if time.is_finite() {
        time.clamp(0.0, clip.duration.max(0.0))
    } else {
        0.0
    };
    let path = file.label();
    let p = py
        .detach(|| pose::sample(&file.doc, &path, &rig, clip, time))
        .map_err(|e| to_py(py, e))?;
    let mut out = Vec::with_capacity(p.len() * 40);
    for (t, _) in &p {
        push(&mut out, t);
    }
    Ok(PyBytes::new(py, &out))
}

/// Adds the animation functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rig, m)?)?;
    m.add_function(wrap_pyfunction!(pose_at, m)?)?;
    Ok(())
}
