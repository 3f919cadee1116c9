//! `hk export`, `hk render`, `hk mopp query`, `hk mopp check`: level collision as
//! triangles ([`hk_runtime::collision`]), read through the one front door
//! ([`Context::open`]). The glTF writer ([`gltf`]) and the renderer ([`render`]) live here,
//! not in hk-runtime, so the library takes no drawing or glTF dependency.

pub mod gltf;
pub mod render;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use hk_runtime::collision::{self, check, obj, Aabb, Scene};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::roundtrip::collect;
use crate::Status;

/// The export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Wavefront OBJ.
    Obj,
    /// glTF 2.0, JSON with the buffer inline.
    Gltf,
    /// glTF 2.0, the binary container.
    Glb,
}

impl Format {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Obj => "obj",
            Format::Gltf => "gltf",
            Format::Glb => "glb",
        }
    }
}

/// How `hk export` runs.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The output file (one input file) or folder (several, or a folder).
    pub out: PathBuf,
    /// The format.
    pub format: Format,
    /// Show a progress bar.
    pub progress: bool,
}

/// Reads the collision of the file at `path`.
///
/// # Errors
/// A file that does not open, or whose bodies and shapes do not read.
pub fn scene(ctx: &Context, path: &Path) -> Result<Scene> {
    let doc = ctx.open(path, false)?;
    // A phive shape's material and hit-mask arrays follow its tagfile (§13 of
    // docs/collision-notes.md); other files have none.
    let extras = match &doc.origin {
        hk_runtime::file::Origin::Tagfile { file, .. } => {
            file.phive.as_ref().map(|p| p.extras.as_slice())
        }
        _ => None,
    };
    collision::read_with(&doc.graph, extras.unwrap_or(&[])).map_err(|e| Error::collision(path, e))
}

/// What one file's export wrote.
#[derive(Clone, Debug)]
struct Exported {
    bodies: usize,
    declared: Option<u64>,
    written: obj::Written,
}

/// Exports one file; a file found in a folder that is not a Havok file, or holds no rigid
/// body, is passed over (`None`).
fn export_one(
    ctx: &Context,
    path: &Path,
    to: &Path,
    named: bool,
    format: Format,
) -> Result<Option<Exported>> {
    if !named {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if hk_runtime::file::detect(&bytes).is_none() {
            return Ok(None);
        }
    }
    let s = scene(ctx, path)?;
    if !named && s.bodies.is_empty() {
        return Ok(None);
    }
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let written = match format {
        Format::Obj => {
            let f = std::fs::File::create(to).map_err(|e| Error::io(to, e))?;
            let mut w = BufWriter::new(f);
            writeln!(w, "# hk export of {}", path.display()).map_err(|e| Error::io(to, e))?;
            let written = obj::write(&s, &mut w, 1).map_err(|e| Error::io(to, e))?;
            w.flush().map_err(|e| Error::io(to, e))?;
            written
        }
        Format::Gltf | Format::Glb => {
            let container = if format == Format::Glb {
                gltf::Container::Binary
            } else {
                gltf::Container::Json
            };
            let e = gltf::encode(&s, container).map_err(|m| Error::geometry(path, m))?;
            std::fs::write(to, &e.bytes).map_err(|e| Error::io(to, e))?;
            e.written
        }
    };
    Ok(Some(Exported {
        bodies: s.bodies.len(),
        declared: s
            .meshes()
            .filter_map(|(_, m)| m.declared_triangles)
            .reduce(|a, b| a + b),
        written,
    }))
}

/// `hk export FILE... --format obj|gltf|glb -o OUT`: one file per input file, in world
/// space. With one input file `OUT` is the file to write; otherwise a folder that mirrors
/// the inputs.
///
/// # Errors
/// No input, or files that fail (each is reported; the batch ends in [`Error::Batch`]).
pub fn export(
    ctx: &Context,
    paths: &[PathBuf],
    opts: &ExportOptions,
    o: &mut Out<'_>,
) -> Result<Status> {
    let single = paths.len() == 1 && !paths[0].is_dir();
    let mut jobs: Vec<(PathBuf, PathBuf, bool)> = Vec::new();
    for p in paths {
        let root = p.is_dir().then_some(p.as_path());
        for (f, named) in collect(std::slice::from_ref(p)) {
            let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !named && !matches!(ext, "hkx" | "hkt" | "hkw" | "bphsh") {
                continue;
            }
            let to = if single {
                opts.out.clone()
            } else {
                let mut rel = match root {
                    Some(r) => f.strip_prefix(r).unwrap_or(&f).to_path_buf(),
                    None => PathBuf::from(f.file_name().unwrap_or_default()),
                };
                // Several folders: each keeps its own name under OUT.
                if let (Some(r), true) = (root, paths.len() > 1) {
                    rel = PathBuf::from(r.file_name().unwrap_or_default()).join(rel);
                }
                opts.out.join(rel).with_extension(opts.format.extension())
            };
            jobs.push((f, to, named));
        }
    }
    if jobs.is_empty() {
        return Err(Error::usage("no Havok files found"));
    }
    let mut targets: Vec<&PathBuf> = jobs.iter().map(|(_, t, _)| t).collect();
    targets.sort();
    if let Some(w) = targets.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::usage(format!(
            "two inputs would both be written to {}",
            w[0].display()
        )));
    }
    let bar = ProgressBar::new(jobs.len() as u64);
    if opts.progress && !single {
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar.set_draw_target(ProgressDrawTarget::stderr());
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let results: Vec<(PathBuf, PathBuf, Result<Option<Exported>>)> = jobs
        .into_par_iter()
        .map(|(f, to, named)| {
            let r = export_one(ctx, &f, &to, named, opts.format);
            bar.inc(1);
            (f, to, r)
        })
        .collect();
    bar.finish_and_clear();
    let total = results.len();
    let (mut failed, mut passed) = (0, 0);
    let mut sum = obj::Written::default();
    for (f, to, r) in results {
        match r {
            Ok(None) => passed += 1,
            Ok(Some(e)) => {
                sum.objects += e.written.objects;
                sum.vertices += e.written.vertices;
                sum.triangles += e.written.triangles;
                outln!(
                    o,
                    "{}: {} bodies, {} objects, {} vertices, {} triangles{} -> {}",
                    f.display(),
                    e.bodies,
                    e.written.objects,
                    e.written.vertices,
                    e.written.triangles,
                    e.declared
                        .map(|d| format!(" (mesh subparts declare {d})"))
                        .unwrap_or_default(),
                    to.display()
                )
            }
            Err(e) => {
                failed += 1;
                eprintln!("error: {e}");
            }
        }
    }
    if !single {
        outln!(
            o,
            "{} files exported ({} objects, {} vertices, {} triangles); {passed} without rigid bodies or not Havok files passed over",
            total - failed - passed,
            sum.objects,
            sum.vertices,
            sum.triangles
        );
    }
    if failed > 0 {
        return Err(Error::Batch { failed, total });
    }
    Ok(Status::Success)
}

/// `hk render FILE -o OUT.png`: the file's collision drawn from a camera that frames it
/// ([`render::render`]); prints what it drew.
///
/// # Errors
/// A file that does not read, holds no triangle, or a PNG that cannot be written.
pub fn render_file(
    ctx: &Context,
    path: &Path,
    out: &Path,
    opts: &render::RenderOptions,
    o: &mut Out<'_>,
) -> Result<Status> {
    let s = scene(ctx, path)?;
    let pixmap = render::render(&s, opts).map_err(|m| Error::geometry(path, m))?;
    let png = pixmap
        .encode_png()
        .map_err(|e| Error::geometry(path, format!("encoding the PNG: {e}")))?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(out, &png).map_err(|e| Error::io(out, e))?;
    outln!(
        o,
        "{}: {} bodies, {} triangles drawn{} -> {} ({}x{}, {} bytes)",
        path.display(),
        s.bodies.len(),
        s.triangle_count(),
        if opts.wireframe { " as wireframe" } else { "" },
        out.display(),
        opts.width,
        opts.height,
        png.len()
    );
    Ok(Status::Success)
}

/// Parses `minx,miny,minz,maxx,maxy,maxz`.
///
/// # Errors
/// Not six numbers, or a minimum above its maximum.
pub fn parse_aabb(text: &str) -> Result<Aabb> {
    let v: Vec<f32> = text
        .split(',')
        .map(|s| s.trim().parse::<f32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::usage(format!("--aabb {text}: {e}")))?;
    let [a, b, c, d, e, f] = v[..] else {
        return Err(Error::usage(format!(
            "--aabb {text}: expected six numbers minx,miny,minz,maxx,maxy,maxz"
        )));
    };
    if a > d || b > e || c > f {
        return Err(Error::usage(format!(
            "--aabb {text}: a minimum is above its maximum"
        )));
    }
    Ok(Aabb {
        min: [a, b, c],
        max: [d, e, f],
    })
}

/// `hk mopp query FILE --aabb ...`: the shape keys the file's MOPP code returns for a box
/// (in the space of the shape under the MOPP tree), one per line. A file with several
/// codes prints a `# code N (#object)` line before each code's keys.
///
/// # Errors
/// A file that does not read, holds no MOPP code, or whose code fails to run.
pub fn query(ctx: &Context, path: &Path, aabb: &Aabb, o: &mut Out<'_>) -> Result<Status> {
    let s = scene(ctx, path)?;
    if s.codes.is_empty() {
        return Err(Error::usage(format!("{}: no MOPP code", path.display())));
    }
    for (i, c) in s.codes.iter().enumerate() {
        if s.codes.len() > 1 {
            outln!(o, "# code {i} (#{})", c.object.0);
        }
        for k in c.query(aabb).map_err(|e| Error::collision(path, e))? {
            outln!(o, "{k}");
        }
    }
    Ok(Status::Success)
}

/// `hk mopp check FILE`: runs every kept triangle's own box through its MOPP code and
/// prints `found X/Y` and the commands run against the check's cap, then the terminal and
/// far-box checks.
///
/// # Errors
/// A file that does not read, holds no MOPP code, or whose code fails to run or reaches the
/// cap ([`check::cap`]).
pub fn check(ctx: &Context, path: &Path, o: &mut Out<'_>) -> Result<Status> {
    let s = scene(ctx, path)?;
    if s.codes.is_empty() {
        return Err(Error::usage(format!("{}: no MOPP code", path.display())));
    }
    let mut ok = true;
    for i in 0..s.codes.len() {
        let t0 = Instant::now();
        let r = check::check(&s, i).map_err(|e| Error::collision(path, e))?;
        outln!(
            o,
            "code {i} (#{}, {} bytes): found {}/{} ({} degenerate triangles left out) in {:.1} ms, {} commands (cap {})",
            s.codes[i].object.0,
            s.codes[i].bytes.len(),
            r.found,
            r.kept,
            r.degenerate,
            t0.elapsed().as_secs_f64() * 1e3,
            r.commands,
            check::cap(&s.codes[i], r.kept + r.degenerate)
        );
        outln!(
            o,
            "  terminals: {} keys, {} naming no kept triangle; a box 1 km away: {} keys",
            r.terminals,
            r.stray.len(),
            r.far
        );
        if !r.missed.is_empty() {
            outln!(o, "  missed: {:?}", r.missed);
        }
        if !r.stray.is_empty() {
            outln!(o, "  stray: {:?}", &r.stray[..r.stray.len().min(100)]);
        }
        ok &= r.passes();
    }
    Ok(Status::from_ok(ok))
}

/// A xorshift generator: reproducible boxes without a dependency.
fn xorshift(mut state: u64) -> impl FnMut() -> f32 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Random boxes over `within`: each axis of a box spans up to `size` of the box's extent.
pub fn random_boxes(within: &Aabb, n: usize, size: f32, seed: u64) -> Vec<Aabb> {
    let mut r = xorshift(seed.max(1));
    (0..n)
        .map(|_| {
            let mut b = Aabb {
                min: [0.0; 3],
                max: [0.0; 3],
            };
            for i in 0..3 {
                let ext = within.max[i] - within.min[i];
                let lo = within.min[i] + r() * ext;
                b.min[i] = lo;
                b.max[i] = lo + r() * size * ext;
            }
            b
        })
        .collect()
}

/// `hk mopp bench FILE`: runs `queries` random boxes (up to a tenth of the mesh's extent
/// on each axis) through each MOPP code and prints queries per second.
///
/// # Errors
/// A file that does not read, holds no MOPP code, or whose code fails to run.
pub fn bench(ctx: &Context, path: &Path, queries: usize, o: &mut Out<'_>) -> Result<Status> {
    let s = scene(ctx, path)?;
    if s.codes.is_empty() {
        return Err(Error::usage(format!("{}: no MOPP code", path.display())));
    }
    for (i, c) in s.codes.iter().enumerate() {
        let tris = check::indexed(&s, i);
        let Some(within) = Aabb::of(tris.iter().flat_map(|t| [t.aabb.min, t.aabb.max])) else {
            continue;
        };
        let boxes = random_boxes(&within, queries.max(1), 0.1, 0x5EED + i as u64);
        let t0 = Instant::now();
        let mut keys = 0usize;
        for b in &boxes {
            keys += c.query(b).map_err(|e| Error::collision(path, e))?.len();
        }
        let secs = t0.elapsed().as_secs_f64();
        outln!(
            o,
            "code {i} (#{}, {} bytes): {} queries in {:.3} s: {:.0} queries/s, {:.1} keys a query",
            c.object.0,
            c.bytes.len(),
            boxes.len(),
            secs,
            boxes.len() as f64 / secs.max(1e-9),
            keys as f64 / boxes.len() as f64
        );
    }
    Ok(Status::Success)
}
