//! The binary tagfile mode of the fuzz example: seeded mutations of the 11 corpus binary
//! tagfiles (docs/binary-tagfile-format.md), read strictly and leniently, written back,
//! and opened through `file::open`. Besides byte corruptions the stream, having no offsets,
//! takes insertions, deletions and truncations. What a lenient read accepts must write
//! back in a form a strict read accepts; a breach is reported like a panic, and so is an
//! input whose peak heap passes 16 times its size plus 64 MiB.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hk_runtime::file::{self, Schemas};
use hk_runtime::packfile::read::ReadOptions;
use hk_runtime::tagfile::binary;
use hk_tests::heap::measure;

/// Corpus folders holding binary tagfiles.
const DIRS: [&str; 2] = ["games/ffxiv-and-xat-tests", "games/project-anarchy-sample"];

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

/// One mutation of `data`: bytes overwritten, bytes inserted or removed, or a cut.
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

/// Runs `rounds` mutations per file, or mutations until `minutes` pass when given;
/// prints the executions and any panic, breach or input over the heap bound; `false` when
/// there was one.
pub fn run(rounds: usize, minutes: Option<f64>, seed: u64) -> bool {
    let Some(corpus) = hk_tests::corpus("fuzz binary-tagfiles") else {
        return true;
    };
    let files = inputs(&corpus);
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let mut next = hk_tests::xorshift(seed);
    let started = Instant::now();
    let deadline = minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let (mut execs, mut read_ok, mut panics, mut breaches) = (0u64, 0u64, 0u64, 0u64);
    let (mut over_memory, mut worst_peak, mut slowest) = (0u64, 0usize, Duration::ZERO);
    let mut round = 0;
    'outer: loop {
        if deadline.is_none() && round >= rounds {
            break;
        }
        for (f, data) in &files {
            if deadline.is_some_and(|d| started.elapsed() >= d) {
                break 'outer;
            }
            let bad = mutate(data, &mut next);
            execs += 1;
            let (r, took, peak) = measure(|| {
                std::panic::catch_unwind(|| {
                    let mut ok = false;
                    let mut breach = None;
                    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
                        if let Ok(r) = binary::read(&bad, opts) {
                            ok = true;
                            match binary::write(&r.graph, &r.file) {
                                Ok(out) => {
                                    if let Err(e) = binary::read(&out, ReadOptions::strict()) {
                                        breach = Some(format!("written back, then refused: {e}"));
                                    }
                                }
                                Err(e) => breach = Some(format!("read, then not written: {e}")),
                            }
                        }
                    }
                    // The front door: detection, the file's own class definitions, the default
                    // limits, the writer and the streamed dump.
                    if let Ok(doc) = file::open(&bad, &schemas, ReadOptions::default()) {
                        let _ = file::write(&doc);
                        let _ = hk_runtime::dump::write_json(&doc, std::io::sink());
                    }
                    (ok, breach)
                })
            });
            slowest = slowest.max(took);
            worst_peak = worst_peak.max(peak);
            if peak > 16 * bad.len() + (64 << 20) {
                over_memory += 1;
                save(f, &bad, &format!("hk-fuzz-memory-bt-{execs}.hkt"), "MEMORY");
            }
            match r {
                Ok((ok, breach)) => {
                    read_ok += u64::from(ok);
                    if let Some(why) = breach {
                        breaches += 1;
                        save(f, &bad, &format!("hk-fuzz-breach-bt-{execs}.hkt"), &why);
                    }
                }
                Err(_) => {
                    panics += 1;
                    save(f, &bad, &format!("hk-fuzz-crash-bt-{execs}.hkt"), "PANIC");
                }
            }
        }
        round += 1;
    }
    println!(
        "{execs} mutated binary tagfiles tried over {} files in {:.1} min: {read_ok} read, \
         {panics} panics, {breaches} breaches, {over_memory} over 16x + 64 MiB of heap; \
         largest peak heap {:.2} MiB, slowest input {slowest:?}",
        files.len(),
        started.elapsed().as_secs_f64() / 60.0,
        worst_peak as f64 / (1 << 20) as f64
    );
    panics == 0 && breaches == 0 && over_memory == 0
}

fn save(f: &Path, bad: &[u8], name: &str, why: &str) {
    let out = std::env::temp_dir().join(name);
    std::fs::write(&out, bad).unwrap();
    println!(
        "{why} on a mutation of {} (saved as {})",
        f.display(),
        out.display()
    );
}
