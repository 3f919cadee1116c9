//! `hk bench PATH...`: how fast hk reads and writes a set of files, against the memory
//! limit of the same machine, in one run over the same bytes.
//!
//! Every round measures, interleaved so that a noisy machine slows them alike:
//! - **checksum**: a wrapping `u64` sum over every file's bytes (the memory pass every
//!   reader is bounded by);
//! - **read+decode**: `file::open` (detect the container, choose the schema, parse, decode
//!   every object into the graph), the graph dropped afterwards;
//! - **write**: `file::write` of the decoded documents (placement, fixups, headers);
//! - for the files the built-in typed classes cover (the `havok-demo-710` profile's
//!   classes of Havok 7.1): **typed decode** (derived decoders into typed structs, no
//!   graph), **typed write**, and **view traversal** (every member of every object read
//!   through zero-copy views).
//!
//! Figures are the median round's throughput; each is also given as a share of the
//! checksum pass. `--threads N` spreads the files of each pass over N threads, and also
//! times the read pass on one thread against N threads, each pass reading the file set
//! enough times to last a quarter of a second (so that waking the threads is not part of
//! the figure).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hk_runtime::file::{self, Container};
use rayon::prelude::*;
use serde_json::json;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::typed710;
use crate::Status;

mod anim;
mod report;
mod speedup;
use report::Report;
use speedup::Speedup;
mod traverse;

/// How `hk bench` runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Passes over the files.
    pub rounds: u32,
    /// Worker threads (`None`: one).
    pub threads: Option<usize>,
    /// Print the results as JSON.
    pub json: bool,
    /// Follow symbolic links found in folders ([`crate::walk`]).
    pub follow_symlinks: bool,
    /// Measure animation decoding instead (bone-frames per second, one thread).
    pub anim: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rounds: 3,
            threads: None,
            json: false,
            follow_symlinks: false,
            anim: false,
        }
    }
}

/// Peak resident memory of this process, from `/proc/self/status` (`VmHWM`), in KiB.
pub fn peak_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// One measured workload.
#[derive(Clone, Debug)]
pub struct Figure {
    /// What was measured.
    pub name: &'static str,
    /// Bytes processed per round.
    pub bytes: usize,
    /// Files processed per round.
    pub files: usize,
    /// Each round's time.
    pub times: Vec<Duration>,
}

impl Figure {
    /// MB/s of the median round.
    pub fn median_mb_s(&self) -> f64 {
        let mut t = self.times.clone();
        t.sort();
        match t.get(t.len() / 2) {
            Some(d) if !d.is_zero() => self.bytes as f64 / 1e6 / d.as_secs_f64(),
            _ => 0.0,
        }
    }

    /// MB/s of the fastest round.
    pub fn best_mb_s(&self) -> f64 {
        match self.times.iter().min() {
            Some(d) if !d.is_zero() => self.bytes as f64 / 1e6 / d.as_secs_f64(),
            _ => 0.0,
        }
    }
}

/// The files of one run, read into memory.
struct Input {
    path: PathBuf,
    bytes: Vec<u8>,
}

/// The checksum pass over one file: a wrapping sum of its 8-byte words.
fn checksum(b: &[u8]) -> u64 {
    let (words, rest) = b.as_chunks::<8>();
    let mut s = words
        .iter()
        .fold(0u64, |a, w| a.wrapping_add(u64::from_le_bytes(*w)));
    for &x in rest {
        s = s.wrapping_add(u64::from(x));
    }
    s
}

/// Runs `f` over `items` on the pool (or inline), returning the elapsed time.
fn pass<T: Sync>(
    pool: Option<&rayon::ThreadPool>,
    items: &[T],
    f: impl Fn(&T) -> u64 + Sync,
) -> (Duration, u64) {
    repeated(pool, items, 1, f)
}

/// Runs `f` over `copies` copies of `items` back to back in one timed pass, on the pool
/// (or inline), returning the elapsed time.
fn repeated<T: Sync>(
    pool: Option<&rayon::ThreadPool>,
    items: &[T],
    copies: usize,
    f: impl Fn(&T) -> u64 + Sync,
) -> (Duration, u64) {
    let n = items.len();
    let total = n.saturating_mul(copies);
    let item = |k: usize| {
        if k < total {
            items.get(k % n.max(1))
        } else {
            None
        }
    };
    let t = Instant::now();
    let sum = match pool {
        // Each worker takes the next item from one shared counter: with the items largest
        // first (see `run`), no worker is left alone with a large file at the end.
        Some(p) => {
            let next = AtomicUsize::new(0);
            p.broadcast(|_| {
                let mut s = 0u64;
                while let Some(x) = item(next.fetch_add(1, Ordering::Relaxed)) {
                    s = s.wrapping_add(f(x));
                }
                s
            })
            .into_iter()
            .fold(0, u64::wrapping_add)
        }
        None => (0..total)
            .filter_map(item)
            .map(&f)
            .fold(0, u64::wrapping_add),
    };
    (t.elapsed(), sum)
}

/// Input bytes decoded at a time for the write passes: the documents of one chunk are held,
/// not those of every file, so memory stays a small multiple of the input.
const CHUNK: usize = 4 << 20;

/// Times `f` over what `prepare` makes of each item, a chunk of items at a time (the
/// preparing is not timed).
fn chunked<I: Sync + AsRef<Input>, D: Send + Sync>(
    pool: Option<&rayon::ThreadPool>,
    items: &[I],
    prepare: impl Fn(&I) -> Option<D> + Sync,
    f: impl Fn(&D) -> u64 + Sync,
) -> (Duration, u64) {
    let mut total = Duration::ZERO;
    let mut sum = 0u64;
    let mut start = 0;
    while start < items.len() {
        let mut end = start;
        let mut bytes = 0;
        while end < items.len() && (end == start || bytes < CHUNK) {
            bytes += items[end].as_ref().bytes.len();
            end += 1;
        }
        let prepared: Vec<D> = match pool {
            Some(p) => p.install(|| items[start..end].par_iter().filter_map(&prepare).collect()),
            None => items[start..end].iter().filter_map(&prepare).collect(),
        };
        let (t, s) = pass(pool, &prepared, &f);
        total += t;
        sum = sum.wrapping_add(s);
        start = end;
    }
    (total, sum)
}

impl AsRef<Input> for Input {
    fn as_ref(&self) -> &Input {
        self
    }
}

/// Runs `hk bench` over the Havok files under `paths`.
///
/// # Errors
/// No Havok file under `paths`, a file that cannot be read, or one that hk cannot read or
/// write (benchmarks measure files hk handles; `hk roundtrip` says why one fails).
pub fn run(ctx: &Context, paths: &[PathBuf], opts: &Options, o: &mut Out<'_>) -> Result<Status> {
    let (inputs, skipped) = load(paths, opts.follow_symlinks, o)?;
    if inputs.is_empty() {
        return nothing_to_measure(&skipped, opts.json, o);
    }
    let rounds = opts.rounds.max(1) as usize;
    if opts.anim {
        return anim::run(ctx, &inputs, rounds, opts.json, o);
    }
    let pool = pool(opts.threads)?;
    let cold = first_read(ctx, &inputs, o)?;
    let typed = typed(&inputs);
    let passes = Passes {
        ctx,
        inputs: &inputs,
        typed: &typed,
        failed: AtomicUsize::new(0),
    };
    let measured = passes.measure(pool.as_ref(), rounds);
    if passes.failed.into_inner() > 0 {
        return Err(Error::usage(
            "a file failed to read or write during the benchmark (run `hk roundtrip` on it)",
        ));
    }
    let report = Report {
        files: inputs.len(),
        packfiles: inputs
            .iter()
            .filter(|i| file::detect(&i.bytes) == Some(Container::Packfile))
            .count(),
        rounds,
        threads: opts.threads.unwrap_or(1).max(1),
        measured,
        cold,
        peak: peak_kib(),
        skipped: &skipped,
    };
    if opts.json {
        report.json(o)?;
    } else {
        report.text(o)?;
    }
    Ok(Status::Success)
}

/// The Havok files under `paths`, read into memory largest first (so that threads share
/// the work evenly, see [`repeated`]), and the files skipped: only files whose container
/// hk reads are measured; others (XML, files that are not Havok's) are listed.
fn load(
    paths: &[PathBuf],
    follow_symlinks: bool,
    o: &mut Out<'_>,
) -> Result<(Vec<Input>, Vec<PathBuf>)> {
    let mut inputs = Vec::new();
    let mut skipped = Vec::new();
    let walk = crate::walk::walk(paths, follow_symlinks)?;
    walk.warn(o)?;
    for (f, _) in walk.files {
        let bytes = std::fs::read(&f).map_err(|e| Error::io(&f, e))?;
        if file::detect(&bytes).is_some() {
            inputs.push(Input { path: f, bytes });
        } else {
            skipped.push(f);
        }
    }
    inputs.sort_by_key(|i| std::cmp::Reverse(i.bytes.len()));
    Ok((inputs, skipped))
}

/// The outcome when no file is measured: an error, or with `json` the same object as a
/// run's with nothing measured (for machine-readable callers such as bench/soulstruct.sh).
fn nothing_to_measure(skipped: &[PathBuf], json: bool, o: &mut Out<'_>) -> Result<Status> {
    if !json {
        return Err(Error::usage("no Havok packfiles or tagfiles found"));
    }
    let doc = json!({
        "files": 0,
        "bytes": 0,
        "read_mb_s": null,
        "skipped": skipped.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
    outln!(o, "{doc}");
    Ok(Status::Success)
}

/// The worker pool of `--threads N` (none for one thread).
fn pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>> {
    match threads {
        Some(n) if n > 1 => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(Some)
            .map_err(|e| Error::usage(format!("cannot start {n} threads: {e}"))),
        _ => Ok(None),
    }
}

/// A first read of every file, which loads the schemas, computes the plans and extracts
/// the classes files describe themselves; it is not part of the figures (the report gives
/// its time). Each file must read, and should write back byte for byte.
fn first_read(ctx: &Context, inputs: &[Input], o: &mut Out<'_>) -> Result<Duration> {
    let cold = Instant::now();
    for i in inputs {
        let doc = file::open(&i.bytes, ctx.schemas(), ctx.read_options())
            .map_err(|e| e.in_file(&i.path))?;
        if let Some(w) = doc.schema.warning() {
            o.warn(format_args!("{}: {w}", i.path.display()))?;
        }
        let out = file::write(&doc).map_err(|e| e.in_file(&i.path))?;
        if out != i.bytes {
            o.warn(format_args!(
                "{}: does not write back byte for byte; its write figure still counts",
                i.path.display()
            ))?;
        }
    }
    Ok(cold.elapsed())
}

/// The files the typed classes cover: those of their own version whose every object is
/// one of theirs.
fn typed(inputs: &[Input]) -> Vec<&Input> {
    inputs
        .iter()
        .filter(|i| {
            hk_runtime::packfile::Packfile::parse(&i.bytes)
                .is_ok_and(|pf| pf.header.contents_version() == typed710::CONTENTS_VERSION)
                && typed710::decode_file(&i.bytes).is_ok()
        })
        .collect()
}

/// The workloads of every round over the files, and the count of files that failed in one.
struct Passes<'a> {
    ctx: &'a Context,
    inputs: &'a [Input],
    typed: &'a [&'a Input],
    failed: AtomicUsize,
}

/// What the rounds measured: each workload's times, and with threads the speedups.
struct Measured {
    figures: Vec<Figure>,
    /// The read pass on the threads against one thread, and a register-only loop the same
    /// way ([`Speedup`]).
    speedups: Option<(Speedup, Speedup)>,
}

impl Passes<'_> {
    /// Records a failed read or write.
    fn fail(&self) -> u64 {
        self.failed.fetch_add(1, Ordering::Relaxed);
        0
    }

    /// The read+decode workload on one file.
    fn read(&self, i: &Input) -> u64 {
        match file::open(&i.bytes, self.ctx.schemas(), self.ctx.read_options()) {
            Ok(d) => d.graph.objects.len() as u64,
            Err(_) => self.fail(),
        }
    }

    /// The figures, each with no time yet: every file for the first three workloads, the
    /// typed files for the others.
    fn figures(&self) -> Vec<Figure> {
        let all_bytes: usize = self.inputs.iter().map(|i| i.bytes.len()).sum();
        let typed_bytes: usize = self.typed.iter().map(|i| i.bytes.len()).sum();
        let figure = |name, typed: bool| Figure {
            name,
            bytes: if typed { typed_bytes } else { all_bytes },
            files: if typed {
                self.typed.len()
            } else {
                self.inputs.len()
            },
            times: Vec::new(),
        };
        vec![
            figure("checksum", false),
            figure("read+decode", false),
            figure("write", false),
            figure("typed checksum", true),
            figure("typed decode", true),
            figure("typed write", true),
            figure("view traversal", true),
        ]
    }

    /// Runs `rounds` rounds, each workload once per round (interleaved, so that a noisy
    /// machine slows them alike); with a pool, each round also times the read pass and a
    /// register-only loop on one thread and on the pool.
    fn measure(&self, pool: Option<&rayon::ThreadPool>, rounds: usize) -> Measured {
        let mut figures = self.figures();
        let mut sink = 0u64;
        let read = |i: &Input| self.read(i);
        let mut speedups = pool.map(|_| {
            (
                Speedup::calibrate(self.inputs, read, &mut sink),
                Speedup::calibrate(&speedup::SPIN_ITEMS, speedup::spin, &mut sink),
            )
        });
        for _ in 0..rounds {
            for (k, (t, s)) in self.round(pool).into_iter().enumerate() {
                figures[k].times.push(t);
                sink = sink.wrapping_add(s);
            }
            if let (Some(p), Some((read_x, spin_x))) = (pool, speedups.as_mut()) {
                sink = sink.wrapping_add(read_x.round(p, self.inputs, read));
                sink = sink.wrapping_add(spin_x.round(p, &speedup::SPIN_ITEMS, speedup::spin));
            }
        }
        std::hint::black_box(sink);
        Measured { figures, speedups }
    }

    /// One round: each workload's time and checksum, in the order of [`Passes::figures`].
    fn round(&self, p: Option<&rayon::ThreadPool>) -> [(Duration, u64); 7] {
        let (inputs, typed) = (self.inputs, self.typed);
        [
            pass(p, inputs, |i| checksum(&i.bytes)),
            pass(p, inputs, |i| self.read(i)),
            chunked(
                p,
                inputs,
                |i| file::open(&i.bytes, self.ctx.schemas(), self.ctx.read_options()).ok(),
                |d| file::write(d).map_or_else(|_| self.fail(), |b| b.len() as u64),
            ),
            pass(p, typed, |i| checksum(&i.bytes)),
            pass(p, typed, |i| {
                typed710::decode_file(&i.bytes)
                    .map_or_else(|_| self.fail(), |t| t.objects.len() as u64)
            }),
            chunked(
                p,
                typed,
                |i| typed710::decode_file(&i.bytes).ok(),
                |t| t.write().map_or_else(|_| self.fail(), |b| b.len() as u64),
            ),
            pass(p, typed, |i| {
                traverse::traverse_file(&i.bytes).unwrap_or_else(|_| self.fail())
            }),
        ]
    }
}
