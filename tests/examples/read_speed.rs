//! How fast `file::open` reads each corpus file, slowest first: the files to profile when
//! the whole-corpus read figure of `hk bench` moves. Uses mimalloc, as the `hk` binary does.
//! `cargo run --profile profiling -p hk-tests --example read_speed -- [PATH] [ROUNDS]`
//! (PATH a file or folder, default the corpus; then `perf record` the same command).

use std::path::PathBuf;
use std::time::Instant;

use hk_runtime::file::{self, Schemas};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = match args.next() {
        Some(p) => PathBuf::from(p),
        None => match hk_tests::corpus("read_speed") {
            Some(c) => c,
            None => return,
        },
    };
    let rounds: usize = args
        .next()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10)
        .max(1);
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let mut paths = Vec::new();
    let mut stack = vec![path];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            let entries = std::fs::read_dir(&p).expect("a readable folder");
            stack.extend(entries.flatten().map(|e| e.path()));
        } else {
            paths.push(p);
        }
    }
    let files: Vec<(PathBuf, Vec<u8>)> = paths
        .into_iter()
        .map(|p| {
            let b = hk_tests::read(&p);
            (p, b)
        })
        .filter(|(_, b)| file::open(b, &schemas, Default::default()).is_ok())
        .collect();
    let mut times = Vec::new();
    for (p, b) in &files {
        let t = Instant::now();
        for _ in 0..rounds {
            std::hint::black_box(file::open(b, &schemas, Default::default()).ok());
        }
        times.push((t.elapsed().as_secs_f64() / rounds as f64, b.len(), p));
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f64 = times.iter().map(|t| t.0).sum();
    let bytes: usize = times.iter().map(|t| t.1).sum();
    for (t, n, p) in times.iter().take(20) {
        println!(
            "{:8.3} ms {:5.1}% {:9} B {:6.0} MB/s  {}",
            t * 1e3,
            100.0 * t / total,
            n,
            *n as f64 / 1e6 / t,
            p.display()
        );
    }
    println!(
        "{} files, {:.1} MB, {:.0} MB/s over all ({rounds} rounds each)",
        files.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / total
    );
}
