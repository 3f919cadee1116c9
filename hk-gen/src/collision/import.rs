//! `hk import MESH --into FILE -o OUT`: the meshes a user edited (read by [`meshin`])
//! replace the geometry of FILE's collision ([`hk_runtime::collision::import::into`]); the
//! file is written in its own container and layout, read back strictly and checked
//! ([`verify`]) before OUT is written.

use std::path::{Path, PathBuf};

use hk_runtime::collision::import::{self, IntoOptions, IntoReport};
use hk_runtime::collision::input::InputMesh;
use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self, Aabb, Scene};

use crate::collision::meshin;
use crate::context::Context;
use crate::error::{Error, Result};
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
    let file = match &opts.target {
        Target::Into(file) => file,
        Target::Game(_) | Target::Like(_) => {
            return Err(Error::usage(
                "hk import --game and --like (a new file from meshes) are not available in this build; use --into FILE",
            ))
        }
    };
    let outputs = Outputs::reading([opts.mesh.as_path(), file.as_path()]);
    outputs.check(&opts.out)?;
    let into = IntoOptions {
        allow_missing: opts.allow_missing,
    };
    let (bytes, report) = into_bytes(ctx, file, &meshes, &into)?;
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
    let v = verify(ctx, &bytes, opts.boxes, 1)?;
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
    outputs.write(&opts.out, &bytes)?;
    let trees = if v.codes > 0 {
        format!(
            "{}/{} triangles found by their own box, {} random boxes agree with brute force",
            v.found, v.kept, v.boxes
        )
    } else {
        "no MOPP code; compressed-mesh trees checked by the strict read".to_string()
    };
    outln!(
        o,
        "{} -> {}: {} shapes replaced, {} MOPP codes rebuilt; read back: {trees}, round trip byte for byte",
        file.display(),
        opts.out.display(),
        report.replaced.len(),
        report.codes,
    );
    Ok(Status::Success)
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
    let report = import::into(&mut doc.graph, meshes, opts).map_err(|e| e.in_file(file))?;
    let bytes = hk_runtime::file::write(&doc).map_err(|e| e.in_file(file))?;
    Ok((bytes, report))
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// MOPP codes checked.
    pub codes: usize,
    /// Kept triangles found by a query of their own box, over every tree.
    pub found: usize,
    /// Kept triangles, over every tree.
    pub kept: usize,
    /// Random boxes run.
    pub boxes: usize,
    /// Everything that does not hold; empty when the file passes.
    pub failures: Vec<String>,
}

/// The checks of an imported file, in one place: it reads back strictly, writes back byte
/// for byte, every kept triangle is found by its own box in its tree, and `boxes` random
/// boxes (from `seed`) return every triangle whose box they overlap (brute force).
///
/// # Errors
/// The bytes do not read as a Havok file, or its collision does not read.
pub fn verify(ctx: &Context, bytes: &[u8], boxes: usize, seed: u64) -> Result<Verified> {
    let doc = ctx.open_bytes(bytes)?;
    let mut v = Verified::default();
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
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    v.codes = scene.codes.len();
    for c in 0..scene.codes.len() {
        let r = check::check(&scene, c).map_err(hk_runtime::Error::from)?;
        v.found += r.found;
        v.kept += r.kept;
        if !r.passes() {
            v.failures.push(format!(
                "MOPP code #{}: {}/{} triangles found by their own box, {} stray terminals, {} keys for a far box",
                scene.codes[c].object.0,
                r.found,
                r.kept,
                r.stray.len(),
                r.far
            ));
        }
        random_boxes(&scene, c, boxes, &mut rng, &mut v)?;
    }
    Ok(v)
}

/// `n` random boxes over code `c`'s triangles: every kept triangle whose box a query box
/// overlaps must be among the keys the code returns.
fn random_boxes(scene: &Scene, c: usize, n: usize, rng: &mut Rng, v: &mut Verified) -> Result<()> {
    let code = &scene.codes[c];
    let tris: Vec<check::Indexed> = check::indexed(scene, c)
        .into_iter()
        .filter(|t| !t.degenerate)
        .collect();
    let Some(all) = Aabb::of(tris.iter().flat_map(|t| [t.aabb.min, t.aabb.max])) else {
        return Ok(());
    };
    let size = [0, 1, 2].map(|i| all.max[i] - all.min[i]);
    let mut missed = 0usize;
    for _ in 0..n {
        let centre = [0, 1, 2].map(|i| all.min[i] + rng.unit() * size[i]);
        // Half sizes from a hundredth to a tenth of the scene's extent.
        let half = [0, 1, 2].map(|i| size[i] * (0.005 + 0.045 * rng.unit()));
        let q = Aabb::centered(centre, half);
        let keys = code.query(&q).map_err(hk_runtime::Error::from)?;
        missed += tris
            .iter()
            .filter(|t| t.aabb.overlaps(&q) && keys.binary_search(&t.key).is_err())
            .count();
    }
    v.boxes += n;
    if missed > 0 {
        v.failures.push(format!(
            "MOPP code #{}: {missed} triangles overlapping {n} random boxes were not returned",
            code.object.0
        ));
    }
    Ok(())
}

/// A small xorshift generator: the random boxes are the same on every run.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}
