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

mod speedup;
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rounds: 3,
            threads: None,
            json: false,
            follow_symlinks: false,
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
    // Only files whose container hk reads are measured; others (XML, files that are not
    // Havok's) are listed as skipped.
    let mut inputs = Vec::new();
    let mut skipped = Vec::new();
    let walk = crate::walk::walk(paths, opts.follow_symlinks)?;
    walk.warn(o)?;
    for (f, _) in walk.files {
        let bytes = std::fs::read(&f).map_err(|e| Error::io(&f, e))?;
        if file::detect(&bytes).is_some() {
            inputs.push(Input { path: f, bytes });
        } else {
            skipped.push(f);
        }
    }
    // Largest first, so that threads share the work evenly (`pass`).
    inputs.sort_by_key(|i| std::cmp::Reverse(i.bytes.len()));
    if inputs.is_empty() {
        if opts.json {
            // Machine-readable callers (bench/soulstruct.sh) get the same object, with
            // nothing measured.
            let doc = json!({
                "files": 0,
                "bytes": 0,
                "read_mb_s": null,
                "skipped": skipped.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            });
            outln!(o, "{doc}");
            return Ok(Status::Success);
        }
        return Err(Error::usage("no Havok packfiles or tagfiles found"));
    }
    let rounds = opts.rounds.max(1) as usize;
    let pool = match opts.threads {
        Some(n) if n > 1 => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::usage(format!("cannot start {n} threads: {e}")))?,
        ),
        _ => None,
    };
    let threads = opts.threads.unwrap_or(1).max(1);
    // A first read of every file loads the schemas, computes the plans and extracts the
    // classes files describe themselves; it is not timed (`cold` reports it). Each file
    // must read, and should write back byte for byte.
    let cold = Instant::now();
    for i in &inputs {
        let doc = file::open(&i.bytes, ctx.schemas(), ctx.read_options(false))
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
    let cold = cold.elapsed();
    // The typed classes cover the files of their own version whose every object is one
    // of theirs.
    let typed: Vec<&Input> = inputs
        .iter()
        .filter(|i| {
            hk_runtime::packfile::Packfile::parse(&i.bytes)
                .is_ok_and(|pf| pf.header.contents_version() == typed710::CONTENTS_VERSION)
                && typed710::decode_file(&i.bytes).is_ok()
        })
        .collect();
    let all_bytes: usize = inputs.iter().map(|i| i.bytes.len()).sum();
    let typed_bytes: usize = typed.iter().map(|i| i.bytes.len()).sum();
    let packfiles = inputs
        .iter()
        .filter(|i| file::detect(&i.bytes) == Some(Container::Packfile))
        .count();
    let mut figures = vec![
        Figure {
            name: "checksum",
            bytes: all_bytes,
            files: inputs.len(),
            times: Vec::new(),
        },
        Figure {
            name: "read+decode",
            bytes: all_bytes,
            files: inputs.len(),
            times: Vec::new(),
        },
        Figure {
            name: "write",
            bytes: all_bytes,
            files: inputs.len(),
            times: Vec::new(),
        },
        Figure {
            name: "typed checksum",
            bytes: typed_bytes,
            files: typed.len(),
            times: Vec::new(),
        },
        Figure {
            name: "typed decode",
            bytes: typed_bytes,
            files: typed.len(),
            times: Vec::new(),
        },
        Figure {
            name: "typed write",
            bytes: typed_bytes,
            files: typed.len(),
            times: Vec::new(),
        },
        Figure {
            name: "view traversal",
            bytes: typed_bytes,
            files: typed.len(),
            times: Vec::new(),
        },
    ];
    let failed = std::sync::atomic::AtomicUsize::new(0);
    let fail = || {
        failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        0
    };
    let mut sink = 0u64;
    let read = |i: &Input| match file::open(&i.bytes, ctx.schemas(), ctx.read_options(false)) {
        Ok(d) => d.graph.objects.len() as u64,
        Err(_) => fail(),
    };
    // With threads, the read pass and a register-only loop are each timed on one thread
    // and on the pool in every round (`speedup`).
    let mut speedups = pool.as_ref().map(|_| {
        (
            Speedup::calibrate(&inputs, read, &mut sink),
            Speedup::calibrate(&speedup::SPIN_ITEMS, speedup::spin, &mut sink),
        )
    });
    for _ in 0..rounds {
        let p = pool.as_ref();
        let runs: [(usize, (Duration, u64)); 7] = [
            (0, pass(p, &inputs, |i| checksum(&i.bytes))),
            (1, pass(p, &inputs, read)),
            (
                2,
                chunked(
                    p,
                    &inputs,
                    |i| file::open(&i.bytes, ctx.schemas(), ctx.read_options(false)).ok(),
                    |d| file::write(d).map_or_else(|_| fail(), |b| b.len() as u64),
                ),
            ),
            (3, pass(p, &typed, |i| checksum(&i.bytes))),
            (
                4,
                pass(p, &typed, |i| {
                    typed710::decode_file(&i.bytes)
                        .map_or_else(|_| fail(), |t| t.objects.len() as u64)
                }),
            ),
            (
                5,
                chunked(
                    p,
                    &typed,
                    |i| typed710::decode_file(&i.bytes).ok(),
                    |t| t.write().map_or_else(|_| fail(), |b| b.len() as u64),
                ),
            ),
            (
                6,
                pass(p, &typed, |i| {
                    traverse::traverse_file(&i.bytes).unwrap_or_else(|_| fail())
                }),
            ),
        ];
        for (k, (t, s)) in runs {
            figures[k].times.push(t);
            sink = sink.wrapping_add(s);
        }
        if let (Some(p), Some((read_x, spin_x))) = (p, speedups.as_mut()) {
            sink = sink.wrapping_add(read_x.round(p, &inputs, read));
            sink = sink.wrapping_add(spin_x.round(p, &speedup::SPIN_ITEMS, speedup::spin));
        }
    }
    let speedup = speedups.as_ref().and_then(|(r, _)| r.median());
    let best_speedup = speedups.as_ref().and_then(|(r, _)| r.best());
    let copies = speedups.as_ref().map(|(r, _)| r.copies);
    let compute_speedup = speedups.as_ref().and_then(|(_, c)| c.median());
    if failed.into_inner() > 0 {
        return Err(Error::usage(
            "a file failed to read or write during the benchmark (run `hk roundtrip` on it)",
        ));
    }
    let peak = peak_kib();
    let sum = figures[0].median_mb_s();
    let typed_sum = figures[3].median_mb_s();
    let ratio = |f: &Figure| {
        let base = if f.name.starts_with("typed") || f.name == "view traversal" {
            typed_sum
        } else {
            sum
        };
        if base > 0.0 {
            100.0 * f.median_mb_s() / base
        } else {
            0.0
        }
    };
    if opts.json {
        let by = |n: &str| {
            figures
                .iter()
                .find(|f| f.name == n)
                .map(Figure::median_mb_s)
        };
        let doc = json!({
            "files": inputs.len(),
            "packfiles": packfiles,
            "tagfiles": inputs.len() - packfiles,
            "bytes": all_bytes,
            "rounds": rounds,
            "threads": threads,
            "checksum_mb_s": by("checksum"),
            "read_mb_s": by("read+decode"),
            "write_mb_s": by("write"),
            "typed_files": typed.len(),
            "typed_bytes": typed_bytes,
            "typed_checksum_mb_s": by("typed checksum"),
            "typed_mb_s": by("typed decode"),
            "typed_write_mb_s": by("typed write"),
            "view_mb_s": by("view traversal"),
            "read_speedup": speedup,
            "read_speedup_best": best_speedup,
            "read_speedup_copies": copies,
            "compute_speedup": compute_speedup,
            "cold_ms": cold.as_secs_f64() * 1e3,
            "peak_mib": peak.map(|k| k as f64 / 1024.0),
            "skipped": skipped.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| Error::Dump {
            format: "JSON",
            message: e.to_string(),
        })?;
        outln!(o, "{text}");
        return Ok(Status::Success);
    }
    outln!(
        o,
        "{} files ({packfiles} packfiles, {} tagfiles), {:.1} MB; {rounds} rounds, {threads} thread(s); median round (best)",
        inputs.len(),
        inputs.len() - packfiles,
        all_bytes as f64 / 1e6
    );
    for f in &figures {
        if f.name == "typed checksum" {
            outln!(
                o,
                "typed classes (havok-demo-710 profile): {} of the files, {:.1} MB",
                f.files,
                f.bytes as f64 / 1e6
            );
        }
        outln!(
            o,
            "  {:<15} {:>9.0} MB/s ({:>6.0}) {:>6.1}% of checksum",
            f.name,
            f.median_mb_s(),
            f.best_mb_s(),
            ratio(f)
        );
    }
    if let Some(x) = speedup {
        outln!(
            o,
            "read+decode on {threads} threads: {x:.2}x one thread (median of per-round ratios; each round times both back to back, each pass reading the files {} times)",
            copies.unwrap_or(1)
        );
    }
    if let Some(x) = compute_speedup {
        outln!(
            o,
            "register-only loop on {threads} threads: {x:.2}x one thread (the most any work gains from the threads on this machine now; timed the same way)"
        );
    }
    if let Some(x) = best_speedup {
        outln!(
            o,
            "read+decode on {threads} threads, fastest rounds: {x:.2}x (fastest one-thread round over fastest threaded round)"
        );
    }
    outln!(
        o,
        "first read of every file (schemas, plans, own classes): {:.0} ms",
        cold.as_secs_f64() * 1e3
    );
    if let Some(k) = peak {
        outln!(
            o,
            "peak memory: {:.1} MiB ({:.2}x the input)",
            k as f64 / 1024.0,
            (k as f64 * 1024.0) / all_bytes as f64
        );
    }
    if !skipped.is_empty() {
        outln!(
            o,
            "{} file(s) skipped: not a packfile, a TAG0 tagfile or an old binary tagfile (XML, other files)",
            skipped.len()
        );
    }
    std::hint::black_box(sink);
    Ok(Status::Success)
}
