//! `hk export`, `hk render`, `hk mopp query`, `hk mopp check`: level collision as
//! triangles ([`hk_runtime::collision`]), read through the one front door
//! ([`Context::open`]). The glTF writer ([`gltf`]) and the renderer ([`render`]) live here,
//! not in hk-runtime, so the library takes no drawing or glTF dependency.

pub mod create;
pub mod gltf;
pub mod import;
pub mod meshin;
pub mod mopp;
pub mod render;
pub mod trees;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use hk_runtime::collision::export::obj;
use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self, Aabb, Scene};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::outputs::Outputs;
use crate::walk::walk;
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
    /// Follow symbolic links found in folders ([`crate::walk`]).
    pub follow_symlinks: bool,
    /// The file holding the skeleton of animation files that hold none.
    pub skeleton: Option<PathBuf>,
    /// Leave out animations whose format hk does not decode, instead of refusing the file.
    pub skip_undecodable: bool,
}

/// Reads the collision of the file at `path`.
///
/// # Errors
/// A file that does not open, or whose bodies and shapes do not read.
pub fn scene(ctx: &Context, path: &Path) -> Result<Scene> {
    scene_of(&ctx.open(path)?, path)
}

/// The collision of `doc`, the file at `path`.
///
/// # Errors
/// Bodies and shapes that do not read.
pub fn scene_of(doc: &hk_runtime::file::Document, path: &Path) -> Result<Scene> {
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
    /// The shapes that give no triangles, `body/shape (N vertices)`.
    empty: Vec<String>,
    /// What a file of skeletons and animations wrote ([`crate::anim`]), in place of the
    /// collision counts.
    rig: Option<String>,
}

/// One file to export: the input, whether it was named (not found in a folder), and the
/// output `rel` below the folder `root`.
#[derive(Clone, Debug)]
struct Job {
    path: PathBuf,
    named: bool,
    root: PathBuf,
    rel: PathBuf,
}

/// Exports one file; a file found in a folder that is not a Havok file, or holds no rigid
/// body, is passed over (`None`).
fn export_one(
    ctx: &Context,
    job: &Job,
    opts: &ExportOptions,
    outputs: &Outputs,
) -> Result<Option<Exported>> {
    let format = opts.format;
    let (path, named) = (job.path.as_path(), job.named);
    let to = &job.root.join(&job.rel);
    if !named {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if hk_runtime::file::detect(&bytes).is_none() {
            return Ok(None);
        }
    }
    let doc = ctx.open(path)?;
    if crate::anim::holds_animation(&doc.graph) {
        let load = crate::anim::LoadOptions {
            skeleton: opts.skeleton.as_deref(),
            skip_undecodable: opts.skip_undecodable,
        };
        return match container(format) {
            Some(c) => {
                let (bytes, summary) = crate::anim::export(ctx, path, &doc, c, &load)?;
                outputs.write_under(&job.root, &job.rel, &bytes)?;
                Ok(Some(Exported {
                    bodies: 0,
                    declared: None,
                    written: obj::Written::default(),
                    empty: Vec::new(),
                    rig: Some(summary),
                }))
            }
            None if named => Err(Error::usage(format!(
                "{}: skeletons and animations export to glTF only (--format gltf|glb)",
                path.display()
            ))),
            None => Ok(None),
        };
    }
    let s = scene_of(&doc, path)?;
    let empty = s.empty_shapes(&doc.graph);
    drop(doc);
    if !named && s.bodies.is_empty() {
        return Ok(None);
    }
    let written = match format {
        Format::Obj => {
            let f = outputs.create_under(&job.root, &job.rel)?;
            let mut w = BufWriter::new(f);
            writeln!(w, "# hk export of {}", path.display()).map_err(|e| Error::io(to, e))?;
            let written = obj::write(&s, &mut w, 1).map_err(|e| Error::io(to, e))?;
            w.into_inner()
                .map_err(|e| Error::io(to, e.into_error()))?
                .finish()?;
            written
        }
        Format::Gltf | Format::Glb => {
            let container = container(format).unwrap_or(gltf::Container::Json);
            let e = gltf::encode(&s, container).map_err(|m| Error::geometry(path, m))?;
            outputs.write_under(&job.root, &job.rel, &e.bytes)?;
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
        empty,
        rig: None,
    }))
}

/// The glTF container of `format` (`None` for OBJ).
fn container(format: Format) -> Option<gltf::Container> {
    match format {
        Format::Obj => None,
        Format::Gltf => Some(gltf::Container::Json),
        Format::Glb => Some(gltf::Container::Binary),
    }
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
    let walk = walk(paths, opts.follow_symlinks)?;
    walk.warn(o)?;
    let mut jobs: Vec<Job> = Vec::new();
    for (f, named) in walk.files {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !named && !matches!(ext, "hkx" | "hkt" | "hkw" | "bphsh") {
            continue;
        }
        let (root, rel) = if single {
            let out = &opts.out;
            (
                out.parent().unwrap_or(Path::new("")).to_path_buf(),
                PathBuf::from(out.file_name().unwrap_or(out.as_os_str())),
            )
        } else {
            let root = paths.iter().find(|p| p.is_dir() && f.starts_with(p));
            let mut rel = match root {
                Some(r) => f.strip_prefix(r).unwrap_or(&f).to_path_buf(),
                None => PathBuf::from(f.file_name().unwrap_or_default()),
            };
            // Several folders: each keeps its own name under OUT.
            if let (Some(r), true) = (root, paths.len() > 1) {
                rel = PathBuf::from(r.file_name().unwrap_or_default()).join(rel);
            }
            (
                opts.out.clone(),
                rel.with_extension(opts.format.extension()),
            )
        };
        jobs.push(Job {
            path: f,
            named,
            root,
            rel,
        });
    }
    if jobs.is_empty() {
        return Err(Error::usage("no Havok files found"));
    }
    let mut targets: Vec<PathBuf> = jobs.iter().map(|j| j.root.join(&j.rel)).collect();
    targets.sort();
    if let Some(w) = targets.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::usage(format!(
            "two inputs would both be written to {}",
            w[0].display()
        )));
    }
    let outputs = Outputs::reading(jobs.iter().map(|j| &j.path));
    for j in &jobs {
        outputs.check_under(&j.root, &j.rel)?;
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
        .map(|job| {
            let r = export_one(ctx, &job, opts, &outputs);
            bar.inc(1);
            (job.root.join(&job.rel), job.path, r)
        })
        .collect();
    bar.finish_and_clear();
    let total = results.len();
    let (mut failed, mut passed) = (0, 0);
    let mut sum = obj::Written::default();
    for (to, f, r) in results {
        match r {
            Ok(None) => passed += 1,
            Ok(Some(Exported { rig: Some(r), .. })) => {
                outln!(o, "{}: {r} -> {}", f.display(), to.display())
            }
            Ok(Some(e)) => {
                sum.objects += e.written.objects;
                sum.vertices += e.written.vertices;
                sum.triangles += e.written.triangles;
                for shape in &e.empty {
                    warnln!(o, "{}: {shape} gives no triangles", f.display());
                }
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
/// ([`render::render_strips`]), strip by strip into the PNG encoder, so the drawing's
/// buffers stay within the memory limit of reading the file; prints what it drew.
///
/// # Errors
/// A file that does not read, holds no triangle, a picture whose strips do not fit the
/// memory limit, or a PNG that cannot be written (a symbolic link or the input is refused,
/// [`crate::outputs`]).
pub fn render_file(
    ctx: &Context,
    path: &Path,
    out: &Path,
    opts: &render::RenderOptions,
    o: &mut Out<'_>,
) -> Result<Status> {
    let outputs = Outputs::reading([path]);
    outputs.check(out)?;
    let s = scene(ctx, path)?;
    let size = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    let budget = ctx.limits().memory_for(size);
    // Refused before the file is made.
    render::strips(opts.width, opts.height, render::drawable(&s), budget)
        .map_err(|m| Error::geometry(path, m))?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut file = BufWriter::new(outputs.create(out)?);
    let mut encoder = png::Encoder::new(&mut file, opts.width, opts.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| Error::io(out, e.into()))?;
    let mut stream = writer
        .stream_writer()
        .map_err(|e| Error::io(out, e.into()))?;
    let strips = render::render_strips(&s, opts, budget, &mut |strip| {
        // PNG stores straight (not premultiplied) alpha.
        for px in strip.data_mut().chunks_exact_mut(4) {
            if let Some(p) = tiny_skia::PremultipliedColorU8::from_rgba(px[0], px[1], px[2], px[3])
            {
                let c = p.demultiply();
                px.copy_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
            }
        }
        stream
            .write_all(strip.data())
            .map_err(|e| format!("writing the PNG: {e}"))
    })
    .map_err(|m| Error::geometry(path, m))?;
    stream
        .finish()
        .and_then(|()| writer.finish())
        .map_err(|e| Error::io(out, e.into()))?;
    file.into_inner()
        .map_err(|e| Error::io(out, e.into_error()))?
        .finish()?;
    let bytes = std::fs::metadata(out).map_or(0, |m| m.len());
    outln!(
        o,
        "{}: {} bodies, {} triangles drawn{} -> {} ({}x{}{}, {} bytes)",
        path.display(),
        s.bodies.len(),
        s.triangle_count(),
        if opts.wireframe { " as wireframe" } else { "" },
        out.display(),
        opts.width,
        opts.height,
        if strips.count > 1 {
            format!(" in {} strips", strips.count)
        } else {
            String::new()
        },
        bytes
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
        let boxes =
            hk_runtime::collision::math::random_boxes(&within, queries.max(1), 0x5EED + i as u64);
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
