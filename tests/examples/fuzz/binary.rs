//! The binary tagfile mode of the fuzz example: seeded mutations of the 11 corpus binary
//! tagfiles (docs/binary-tagfile-format.md), read strictly and leniently, written back,
//! and opened through `file::open`. Two kinds of mutation: `bytes` corrupts, inserts or
//! deletes a few bytes or cuts the stream (which has no offsets to break, so shifting it
//! is structural too); `structure` (`binary/structure.rs`) walks the stream and changes
//! what its records say, or adds records that stress one rule. What a lenient read accepts
//! must write back in a form a strict read accepts; a breach is reported like a panic, and
//! so is a read (or write) whose peak heap passes 16 times its input plus 64 MiB, or an
//! input that takes longer than [`SLOW`].

#[allow(dead_code)]
#[path = "../../tests/integration/tagfile/binary_walk.rs"]
mod walk;

mod rewrite;
mod structure;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hk_runtime::error::{ErrorKind, ReadError};
use hk_runtime::file::{self, Schemas};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::tagfile::binary;
use hk_tests::heap::measure;

/// Corpus folders holding binary tagfiles.
const DIRS: [&str; 2] = ["games/ffxiv-and-xat-tests", "games/project-anarchy-sample"];

/// An input that takes longer than this (all its reads and writes) fails the run.
const SLOW: Duration = Duration::from_secs(10);

fn inputs(corpus: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for d in DIRS {
        let Ok(rd) = std::fs::read_dir(corpus.join(d)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        found.sort();
        for f in found {
            let data = hk_tests::read(&f);
            if binary::is_binary_tagfile(&data) {
                out.push((f, data));
            }
        }
    }
    out
}

/// One byte-level mutation of `data`: bytes overwritten, bytes inserted or removed, or a
/// cut.
fn mutate(data: &[u8], next: &mut impl FnMut() -> u64) -> Vec<u8> {
    let mut b = data.to_vec();
    let at = |n: u64, len: usize| (n % (len as u64 + 1)) as usize;
    match next() % 5 {
        0 | 1 => b = hk_tests::corrupt(data, next),
        2 => {
            let i = at(next(), b.len());
            let n = 1 + next() % 4;
            for _ in 0..n {
                b.insert(i, next() as u8);
            }
        }
        3 => {
            let i = at(next(), b.len().saturating_sub(1));
            let n = (1 + next() % 4) as usize;
            b.drain(i..(i + n).min(b.len()));
        }
        _ => b.truncate(at(next(), b.len())),
    }
    b
}

/// The heap one step of an input may take: 16 times the bytes it reads plus 64 MiB.
fn bound(input: usize) -> usize {
    16 * input + (64 << 20)
}

/// What exercising one input found.
#[derive(Default)]
struct Outcome {
    /// A strict or lenient read accepted it.
    read: bool,
    breach: Option<String>,
    /// What a read accepted was written back, and the strict read of that met a read limit
    /// (its budget follows its own size, and values it states cost what zero values
    /// filled in did not).
    limited: bool,
    /// The largest share of its bound one step's peak heap took, and that peak.
    ratio: f64,
    peak: usize,
}

impl Outcome {
    /// Runs one step that reads (or writes) `input` bytes, measuring its peak heap.
    fn step<T>(&mut self, input: usize, f: impl FnOnce() -> T) -> T {
        let (out, _, peak) = measure(f);
        let ratio = peak as f64 / bound(input) as f64;
        if ratio > self.ratio {
            self.ratio = ratio;
        }
        self.peak = self.peak.max(peak);
        out
    }
}

/// Reads `bad` strictly and leniently (each written back and read again strictly), then
/// through the front door (with a schema cache of its own), its writer and the dump.
fn exercise(bad: &[u8], catalog: &hk_runtime::schema::catalog::Catalog) -> Outcome {
    let mut o = Outcome::default();
    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
        let Ok(r) = o.step(bad.len(), || binary::read(bad, opts)) else {
            continue;
        };
        o.read = true;
        let written = o.step(bad.len(), || binary::write(&r.graph, &r.file));
        drop(r);
        match written {
            Ok(out) => {
                let again = o.step(out.len(), || {
                    binary::read(&out, ReadOptions::strict()).err()
                });
                match again.as_ref().map(hk_runtime::Error::kind) {
                    None => {}
                    Some(ErrorKind::Read(ReadError::Limit { .. })) => o.limited = true,
                    Some(_) => {
                        let e = again.expect("an error");
                        o.breach = Some(format!("written back, then refused: {e}"));
                    }
                }
            }
            Err(e) => o.breach = Some(format!("read, then not written: {e}")),
        }
    }
    // The front door: detection, the file's own class definitions, the default limits, the
    // writer and the streamed dump.
    let schemas = Schemas::new(catalog.clone());
    if let Ok(doc) = o.step(bad.len(), || {
        file::open(bad, &schemas, ReadOptions::default())
    }) {
        o.step(bad.len(), || {
            let _ = file::write(&doc);
            let _ = hk_runtime::dump::write_json(&doc, std::io::sink());
        });
    }
    o
}

/// The run's counts.
#[derive(Default)]
struct Tally {
    tried: u64,
    accepted: u64,
    panics: u64,
    breaches: u64,
    limited: u64,
    over_memory: u64,
    slow: u64,
    /// Largest peak heap of one step.
    worst_peak: usize,
    /// Largest share of its bound one step's peak took: the ratio, the file, the mutation.
    worst_ratio: (f64, String),
    slowest: (Duration, String),
}

/// Runs `rounds` mutations per file and mode, or mutations until `minutes` pass when given
/// (files taken round-robin); prints the counts and any panic, breach, slow input or input
/// over the heap bound; `false` when there was one.
pub fn run(rounds: usize, minutes: Option<f64>, seed: u64, bytes: bool, structured: bool) -> bool {
    let Some(corpus) = hk_tests::corpus("fuzz binary-tagfiles") else {
        return true;
    };
    let files = inputs(&corpus);
    let catalog = Schemas::from_dir(&hk_tests::schemas())
        .expect("schema folders")
        .catalog()
        .clone();
    let mut next = hk_tests::xorshift(seed);
    let started = Instant::now();
    let deadline = minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let modes: Vec<bool> = [(bytes, false), (structured, true)]
        .into_iter()
        .filter_map(|(on, s)| on.then_some(s))
        .collect();
    let mut t = Tally::default();
    let mut round = 0;
    'outer: loop {
        if deadline.is_none() && round >= rounds {
            break;
        }
        for (f, data) in &files {
            for &structure in &modes {
                if deadline.is_some_and(|d| started.elapsed() >= d) {
                    break 'outer;
                }
                let (bad, what) = if structure {
                    structure::mutate(data, &mut structure::Rng(&mut next))
                } else {
                    (mutate(data, &mut next), "bytes".to_string())
                };
                t.tried += 1;
                let name = f.file_name().unwrap_or_default().to_string_lossy();
                let label = format!("{what} of {name} ({} bytes)", bad.len());
                let began = Instant::now();
                let r = std::panic::catch_unwind(|| exercise(&bad, &catalog));
                let took = began.elapsed();
                if took > t.slowest.0 {
                    t.slowest = (took, label.clone());
                }
                if took > SLOW {
                    t.slow += 1;
                    save(
                        &bad,
                        &format!("hk-fuzz-slow-bt-{}.hkt", t.tried),
                        "SLOW",
                        &label,
                    );
                }
                let Ok(o) = r else {
                    t.panics += 1;
                    save(
                        &bad,
                        &format!("hk-fuzz-crash-bt-{}.hkt", t.tried),
                        "PANIC",
                        &label,
                    );
                    continue;
                };
                t.accepted += u64::from(o.read);
                t.limited += u64::from(o.limited);
                t.worst_peak = t.worst_peak.max(o.peak);
                if o.ratio > t.worst_ratio.0 {
                    t.worst_ratio = (o.ratio, label.clone());
                }
                if o.ratio > 1.0 {
                    t.over_memory += 1;
                    let file = format!("hk-fuzz-memory-bt-{}.hkt", t.tried);
                    save(&bad, &file, "MEMORY", &label);
                }
                if let Some(why) = o.breach {
                    t.breaches += 1;
                    save(
                        &bad,
                        &format!("hk-fuzz-breach-bt-{}.hkt", t.tried),
                        &why,
                        &label,
                    );
                }
            }
        }
        round += 1;
    }
    println!(
        "binary tagfiles ({}) over {} files in {:.1} min: {} inputs tried, {} refused, {} \
         accepted ({} written back past a read limit); {} panics, {} breaches, {} over 16x + \
         64 MiB of heap, {} slower than {SLOW:?}",
        [(bytes, "bytes"), (structured, "structure")]
            .iter()
            .filter_map(|(on, m)| on.then_some(*m))
            .collect::<Vec<_>>()
            .join(" and "),
        files.len(),
        started.elapsed().as_secs_f64() / 60.0,
        t.tried,
        t.tried - t.accepted,
        t.accepted,
        t.limited,
        t.panics,
        t.breaches,
        t.over_memory,
        t.slow,
    );
    println!(
        "heap live at the end: {:.1} MiB; largest peak heap of one read or write: {:.2} MiB; worst memory ratio (peak over \
         16x + 64 MiB): {:.3} ({}); slowest input: {:?} ({})",
        hk_tests::heap::live() as f64 / (1 << 20) as f64,
        t.worst_peak as f64 / (1 << 20) as f64,
        t.worst_ratio.0,
        t.worst_ratio.1,
        t.slowest.0,
        t.slowest.1
    );
    t.panics == 0 && t.breaches == 0 && t.over_memory == 0 && t.slow == 0
}

fn save(bad: &[u8], name: &str, why: &str, label: &str) {
    let out = std::env::temp_dir().join(name);
    std::fs::write(&out, bad).unwrap();
    println!("{why}: {label} (saved as {})", out.display());
}
