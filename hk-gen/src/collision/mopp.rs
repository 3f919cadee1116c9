//! `hk mopp rebuild` and `hk mopp bench --build`: hk's MOPP encoder
//! ([`hk_runtime::collision::mopp::build`]) against a file's own codes, and its speed on a
//! synthetic terrain.

use std::path::Path;
use std::time::Instant;

use hk_runtime::collision::mopp::measure::{self, Figures};
use hk_runtime::collision::mopp::{build, check, degenerate};
use hk_runtime::collision::{Aabb, Vec3};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::Status;

/// `hk mopp rebuild FILE`: rebuilds every MOPP code of the file over its own kept
/// triangles and keys, runs `boxes` random boxes (from `seed`) through the original and the
/// rebuilt code, and prints per code the bytes, commands per query, keys per box and
/// misses of both and their ratios. Fails when a rebuilt code misses a triangle.
///
/// # Errors
/// A file that does not read, holds no MOPP code, or whose code fails to run.
pub fn rebuild(
    ctx: &Context,
    path: &Path,
    boxes: usize,
    seed: u64,
    o: &mut Out<'_>,
) -> Result<Status> {
    let s = super::scene(ctx, path)?;
    if s.codes.is_empty() {
        return Err(Error::usage(format!("{}: no MOPP code", path.display())));
    }
    let mut ok = true;
    for (i, code) in s.codes.iter().enumerate() {
        let tris = check::triangles(&s, i);
        let Some(within) = Aabb::of(
            tris.iter()
                .filter(|(_, [a, b, c])| !degenerate(*a, *b, *c))
                .flat_map(|(_, t)| t.iter().copied()),
        ) else {
            continue;
        };
        let qs = measure::random_boxes(&within, boxes, seed);
        let t0 = Instant::now();
        let Some(built) = build::build(&tris) else {
            continue;
        };
        let secs = t0.elapsed().as_secs_f64();
        let run = |c| measure::measure(c, &tris, &qs).map_err(|e| Error::collision(path, e));
        let (a, b) = (run(code)?, run(&built)?);
        outln!(
            o,
            "code {i} (#{}): {} triangles, {} boxes (seed {seed}), rebuilt in {:.1} ms",
            code.object.0,
            tris.len(),
            qs.len(),
            secs * 1e3
        );
        let side = (0..3)
            .map(|a| within.max[a] - within.min[a])
            .fold(0f32, f32::max);
        let share = |scale: f32| f64::from(scale) * f64::from(side) / f64::from(1u32 << 24);
        outln!(
            o,
            "  space: origin {:?}, scale {} (original), {:?}, {} (rebuilt): the largest side {side} × scale = {:.7} and {:.7} × 2^24",
            code.offset,
            code.scale,
            built.offset,
            built.scale,
            share(code.scale),
            share(built.scale)
        );
        table(&a, &b, o)?;
        ok &= b.misses == 0 && b.own_misses == 0 && b.stray == 0;
    }
    Ok(Status::from_ok(ok))
}

/// The figures of an original and a rebuilt code side by side.
fn table(a: &Figures, b: &Figures, o: &mut Out<'_>) -> Result<()> {
    let ratio = |x: f64, y: f64| if x > 0.0 { y / x } else { f64::NAN };
    outln!(
        o,
        "  {:<20} {:>10} {:>10} {:>7}",
        "",
        "original",
        "rebuilt",
        "ratio"
    );
    outln!(
        o,
        "  {:<20} {:>10} {:>10} {:>7.3}",
        "bytes",
        a.bytes,
        b.bytes,
        ratio(a.bytes as f64, b.bytes as f64)
    );
    outln!(
        o,
        "  {:<20} {:>10.2} {:>10.2} {:>7.3}",
        "commands/query",
        a.commands,
        b.commands,
        ratio(a.commands, b.commands)
    );
    outln!(
        o,
        "  {:<20} {:>10.3} {:>10.3} {:>7.3}",
        "keys/box",
        a.keys,
        b.keys,
        ratio(a.keys, b.keys)
    );
    outln!(o, "  {:<20} {:>10} {:>10}", "misses", a.misses, b.misses);
    outln!(
        o,
        "  {:<20} {:>10} {:>10}",
        "own box misses",
        a.own_misses,
        b.own_misses
    );
    outln!(
        o,
        "  {:<20} {:>10} {:>10}",
        "stray terminals",
        a.stray,
        b.stray
    );
    Ok(())
}

/// A terrain of `n` triangles (rounded down to an even count): a square grid of cells of
/// one metre, two triangles a cell, heights from a few waves; keys in grid order.
pub fn terrain(n: usize) -> Vec<(u32, [Vec3; 3])> {
    let side = ((n / 2) as f64).sqrt().ceil().max(1.0) as usize;
    let height = |x: usize, z: usize| {
        let (x, z) = (x as f32, z as f32);
        3.0 * (x * 0.05).sin() + 2.0 * (z * 0.037).cos() + 0.3 * ((x + z) * 0.9).sin()
    };
    let p = |x: usize, z: usize| [x as f32, height(x, z), z as f32];
    let mut out = Vec::with_capacity(n);
    'grid: for z in 0..side {
        for x in 0..side {
            for t in [
                [p(x, z), p(x + 1, z), p(x, z + 1)],
                [p(x + 1, z), p(x + 1, z + 1), p(x, z + 1)],
            ] {
                if out.len() >= n {
                    break 'grid;
                }
                out.push((out.len() as u32, t));
            }
        }
    }
    out
}

/// `hk mopp bench --build N`: builds a code over a terrain of `n` triangles
/// ([`terrain`]) and prints the seconds it took and triangles per second.
///
/// # Errors
/// None today; the signature matches the other commands.
pub fn build_bench(n: usize, o: &mut Out<'_>) -> Result<Status> {
    let tris = terrain(n);
    let t0 = Instant::now();
    let code = build::build(&tris);
    let secs = t0.elapsed().as_secs_f64();
    let bytes = code.as_ref().map_or(0, |c| c.bytes.len());
    outln!(
        o,
        "built a code over {} triangles in {secs:.3} s: {:.0} triangles/s, {bytes} bytes ({:.2} a triangle)",
        tris.len(),
        tris.len() as f64 / secs.max(1e-9),
        bytes as f64 / tris.len().max(1) as f64
    );
    Ok(Status::Success)
}
