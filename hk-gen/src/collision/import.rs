//! `hk import MESH --into FILE -o OUT`: the meshes a user edited (read by [`meshin`])
//! replace the geometry of FILE's collision ([`hk_runtime::collision::import::into`]); the
//! file is written in its own container and layout, read back strictly and checked
//! ([`verify`]) before OUT is written.

use std::path::{Path, PathBuf};

use hk_runtime::collision::import::{self, IntoOptions, IntoReport};
use hk_runtime::collision::input::InputMesh;
use hk_runtime::collision::{self, check};

use crate::collision::{create, meshin};
use crate::context::Context;
use crate::error::Result;
use crate::out::{outln, Out};
use crate::outputs::Outputs;
use crate::Status;

/// The random boxes [`verify`] runs by default.
pub const BOXES: usize = 10_000;

/// Meshes past this many triangles get a line on stderr before the trees are built.
const BIG: usize = 100_000;

/// What the meshes go into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// An existing file whose collision geometry they replace.
    Into(PathBuf),
    /// A new file for a game profile.
    Game(String),
    /// A new file laid out like an existing one.
    Like(PathBuf),
}

/// How `hk import` runs.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// The mesh file (OBJ, glTF or GLB).
    pub mesh: PathBuf,
    /// What the meshes go into.
    pub target: Target,
    /// The file to write.
    pub out: PathBuf,
    /// Keep shapes no mesh names, pass over meshes that name no shape.
    pub allow_missing: bool,
    /// Random boxes the check runs against brute force.
    pub boxes: usize,
}

/// `hk import`: reads the meshes, builds the file, checks it and writes it.
///
/// # Errors
/// A mesh file or FILE that does not read, a mesh that does not fit (naming object and
/// face), or an output that cannot be written. A file that fails its checks is not
/// written, and the command ends in [`Status::Failure`].
pub fn import(ctx: &Context, opts: &ImportOptions, o: &mut Out<'_>) -> Result<Status> {
    let meshes = meshin::read(&opts.mesh)?;
    let triangles: usize = meshes.iter().map(|m| m.triangles.len()).sum();
    if triangles > BIG {
        o.note(format_args!(
            "{}: {} objects, {triangles} triangles: building trees",
            opts.mesh.display(),
            meshes.len()
        ))?;
    }
    let (bytes, what) = match &opts.target {
        Target::Into(file) => into_file(ctx, opts, file, &meshes, o)?,
        Target::Game(p) => new_file(ctx, opts, create::Target::Profile(p), &meshes, o)?,
        Target::Like(f) => new_file(ctx, opts, create::Target::Like(f), &meshes, o)?,
    };
    let t = std::time::Instant::now();
    let v = verify(ctx, &bytes, opts.boxes, 1)?;
    let checked = t.elapsed().as_secs_f64();
    for f in &v.failures {
        o.error(format_args!("{}: {f}", opts.out.display()))?;
    }
    if !v.failures.is_empty() {
        o.error(format_args!(
            "{} not written: the imported file fails its checks",
            opts.out.display()
        ))?;
        return Ok(Status::Failure);
    }
    Outputs::reading(inputs(opts)).write(&opts.out, &bytes)?;
    if v.over_memory {
        o.note(format_args!(
            "{}: reading it takes more memory than the default limit (16 times the file plus 64M); read it with --max-memory {}M",
            opts.out.display(),
            (bytes.len() as u64 * 64 + (64 << 20)) >> 20
        ))?;
    }
    outln!(
        o,
        "{what}; read back: {}/{} triangles and instances found by their own box in {} trees, {} random boxes agree with brute force, round trip byte for byte ({checked:.2} s)",
        v.found, v.kept, v.trees, v.boxes
    );
    Ok(Status::Success)
}

/// The files `hk import` reads, which it never writes over.
fn inputs(opts: &ImportOptions) -> Vec<&Path> {
    let mut v = vec![opts.mesh.as_path()];
    match &opts.target {
        Target::Into(f) | Target::Like(f) => v.push(f.as_path()),
        Target::Game(_) => {}
    }
    v
}

/// `--into FILE`: the edited file's bytes and the summary's first words, the replaced
/// shapes reported on stderr.
fn into_file(
    ctx: &Context,
    opts: &ImportOptions,
    file: &Path,
    meshes: &[InputMesh],
    o: &mut Out<'_>,
) -> Result<(Vec<u8>, String)> {
    Outputs::reading(inputs(opts)).check(&opts.out)?;
    let into = IntoOptions {
        allow_missing: opts.allow_missing,
    };
    let start = std::time::Instant::now();
    let (bytes, report) = into_bytes(ctx, file, meshes, &into)?;
    let built = start.elapsed().as_secs_f64();
    for r in &report.replaced {
        o.note(format_args!(
            "replaced {}: {} vertices, {} triangles ({} degenerate, left out of the tree)",
            r.name, r.vertices, r.triangles, r.degenerate
        ))?;
    }
    for n in &report.missing {
        o.note(format_args!("kept {n}: no mesh object names it"))?;
    }
    for n in &report.unmatched {
        o.note(format_args!(
            "passed over mesh object {n}: it names no shape"
        ))?;
    }
    for n in &report.kept {
        o.note(format_args!(
            "kept {n} as stored: hk import rewrites triangle meshes, not primitive or convex shapes"
        ))?;
    }
    let what = format!(
        "{} -> {}: {} shapes replaced, {} MOPP codes rebuilt, in {built:.2} s",
        file.display(),
        opts.out.display(),
        report.replaced.len(),
        report.codes
    );
    Ok((bytes, what))
}

/// `--game PROFILE` or `--like FILE`: a new file ([`create::create`]), its fix-ups
/// reported on stderr.
fn new_file(
    ctx: &Context,
    opts: &ImportOptions,
    target: create::Target<'_>,
    meshes: &[InputMesh],
    o: &mut Out<'_>,
) -> Result<(Vec<u8>, String)> {
    Outputs::reading(inputs(opts)).check(&opts.out)?;
    let c = create::create(ctx, target, meshes)?;
    for n in &c.notes {
        o.note(format_args!("{n}"))?;
    }
    let triangles: usize = meshes.iter().map(|m| m.triangles.len()).sum();
    let what = format!(
        "{} -> {}: a new file of {} objects, {triangles} triangles, built in {:.2} s, its triangles checked in {:.2} s",
        opts.mesh.display(),
        opts.out.display(),
        meshes.len(),
        c.built.as_secs_f64(),
        c.checked.as_secs_f64()
    );
    Ok((c.bytes, what))
}

/// FILE with its collision geometry replaced by `meshes`, written as FILE's kind of file,
/// and what was replaced.
///
/// # Errors
/// FILE does not read, the meshes do not fit ([`import::into`]), or the writer refuses.
pub fn into_bytes(
    ctx: &Context,
    file: &Path,
    meshes: &[InputMesh],
    opts: &IntoOptions,
) -> Result<(Vec<u8>, IntoReport)> {
    let mut doc = ctx.open(file)?;
    // A phive file's material and hit-mask arrays follow its TAG0; a rebuilt mesh shape
    // may append to them.
    let extras = match &mut doc.origin {
        hk_runtime::file::Origin::Tagfile { file, .. } => {
            file.phive.as_mut().map(|p| &mut p.extras)
        }
        _ => None,
    };
    let report =
        import::into_with(&mut doc.graph, extras, meshes, opts).map_err(|e| e.in_file(file))?;
    let bytes = hk_runtime::file::write(&doc).map_err(|e| e.in_file(file))?;
    Ok((bytes, report))
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Trees checked (MOPP codes, compressed-mesh, compound and mesh-shape trees).
    pub trees: usize,
    /// Items (kept triangles, instances) found by a query of their own box, over every tree.
    pub found: usize,
    /// Items, over every tree.
    pub kept: usize,
    /// Random boxes run, over every tree.
    pub boxes: usize,
    /// Everything that does not hold; empty when the file passes.
    pub failures: Vec<String>,
    /// Whether reading the file back takes more memory than the default read limit (a
    /// later read needs `--max-memory`).
    pub over_memory: bool,
}

/// The checks of an imported file, in one place: it reads back strictly, writes back byte
/// for byte, and every tree passes [`check::survey`]: each kept triangle (or instance) is
/// found by its own box, and `boxes` random boxes (from `seed`) return every item whose box
/// they overlap (brute force).
///
/// # Errors
/// The bytes do not read as a Havok file, or its collision does not read.
pub fn verify(ctx: &Context, bytes: &[u8], boxes: usize, seed: u64) -> Result<Verified> {
    let (doc, raised) = ctx.open_written(bytes)?;
    let mut v = Verified {
        over_memory: raised,
        ..Verified::default()
    };
    if hk_runtime::file::write(&doc)? != bytes {
        v.failures
            .push("it does not write back byte for byte".to_string());
    }
    let extras = match &doc.origin {
        hk_runtime::file::Origin::Tagfile { file, .. } => {
            file.phive.as_ref().map(|p| p.extras.as_slice())
        }
        _ => None,
    };
    let scene =
        collision::read_with(&doc.graph, extras.unwrap_or(&[])).map_err(hk_runtime::Error::from)?;
    let report = check::survey(&doc.graph, &scene, boxes, seed).map_err(hk_runtime::Error::from)?;
    for t in report.trees.iter().filter(|t| t.has_tree) {
        v.trees += 1;
        v.found += t.found;
        v.kept += t.items;
        v.boxes += t.boxes;
        if !t.passes() {
            v.failures.push(t.line());
        }
    }
    Ok(v)
}
