//! `hk bench`: read+decode and write throughput over a set of files, and peak memory.

use crate::out::outln;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use hk_runtime::packfile::read::{read, ReadOptions};
use hk_runtime::packfile::{write::write, Packfile};
use hk_runtime::schema::catalog;
use hk_runtime::Schema;

use super::roundtrip::collect;
use crate::schemas::Roots;

/// Peak resident memory of this process, from `/proc/self/status` (`VmHWM`), in KiB.
fn peak_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Runs `hk bench`: `rounds` passes over the files, single-threaded.
pub fn run(paths: &[PathBuf], rounds: u32, roots: &Roots) -> Result<ExitCode, String> {
    let files = collect(paths);
    let inputs: Vec<(PathBuf, Vec<u8>)> = files
        .iter()
        .filter_map(|f| std::fs::read(f).ok().map(|d| (f.clone(), d)))
        .collect();
    let mut schemas: HashMap<PathBuf, Schema> = HashMap::new();
    let mut plan = Vec::new();
    for (f, data) in &inputs {
        let Ok(pf) = Packfile::parse(data) else {
            continue;
        };
        let Some(dir) = catalog::for_packfile(roots.dir(), &pf.header) else {
            continue;
        };
        if !schemas.contains_key(&dir) {
            schemas.insert(dir.clone(), Schema::load(&dir).map_err(|d| d.to_string())?);
        }
        plan.push((f.as_path(), data.as_slice(), dir));
    }
    let total: usize = plan.iter().map(|p| p.1.len()).sum();
    let (mut t_read, mut t_write) = (Duration::ZERO, Duration::ZERO);
    let mut skipped: Vec<&Path> = Vec::new();
    for _ in 0..rounds.max(1) {
        for (f, data, dir) in &plan {
            let schema = &schemas[dir];
            let t0 = Instant::now();
            let pf = Packfile::parse(data).map_err(|e| e.to_string())?;
            let Ok((graph, _)) = read(&pf, schema, ReadOptions::default()) else {
                skipped.push(f);
                continue;
            };
            let t1 = Instant::now();
            let out = write(&graph, schema).map_err(|e| e.to_string())?;
            t_read += t1 - t0;
            t_write += t1.elapsed();
            std::hint::black_box(out);
        }
    }
    skipped.sort();
    skipped.dedup();
    let mb = total as f64 * f64::from(rounds.max(1)) / 1e6;
    outln!(
        "{} files, {:.1} MB, {} round(s), single thread",
        plan.len(),
        total as f64 / 1e6,
        rounds.max(1)
    );
    outln!("read+decode: {:.1} MB/s", mb / t_read.as_secs_f64());
    outln!("write:       {:.1} MB/s", mb / t_write.as_secs_f64());
    if let Some(k) = peak_kib() {
        outln!("peak memory: {:.1} MiB", k as f64 / 1024.0);
    }
    for s in skipped {
        outln!("skipped (does not read): {}", s.display());
    }
    Ok(ExitCode::SUCCESS)
}
