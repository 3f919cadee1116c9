//! `hk roundtrip`: read files into the object graph, write them back, compare bytes.

use crate::out::outln;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hk_runtime::packfile::read::{read, ReadOptions};
use hk_runtime::packfile::{locate::locate, write::write, Packfile};
use hk_runtime::schema::catalog;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::schemas::Roots;

/// The outcome for one file.
#[derive(Debug)]
pub enum Outcome {
    /// Written back byte for byte.
    Identical,
    /// Written back, but different.
    Differs {
        /// First differing offset.
        offset: usize,
        /// What owns that offset in the input.
        owner: String,
        /// Input and output lengths.
        lengths: (usize, usize),
    },
    /// Could not be read or written.
    Failed(String),
}

/// Collects the packfiles under `paths` (files, or folders searched recursively).
pub fn collect(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            while let Some(d) = stack.pop() {
                let Ok(rd) = std::fs::read_dir(&d) else {
                    continue;
                };
                for e in rd.flatten() {
                    let q = e.path();
                    if q.is_dir() {
                        stack.push(q);
                    } else if is_havok(&q) {
                        out.push(q);
                    }
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out
}

fn is_havok(p: &Path) -> bool {
    let Ok(mut f) = std::fs::File::open(p) else {
        return false;
    };
    let mut head = [0u8; 0x40];
    let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
    let head = &head[..n];
    head.starts_with(&hk_runtime::packfile::header::MAGIC)
        || hk_runtime::tagfile::section::find_tag0(head).is_some()
        // id Tech cm payloads start with their surface records (seed 004 §2).
        || p.extension().is_some_and(|e| e == "hkshape" || e == "cm")
}

/// Round-trips one file's bytes.
pub fn roundtrip_bytes(data: &[u8], roots: &Roots, lenient: bool) -> (Outcome, Option<Vec<u8>>) {
    if !data.starts_with(&hk_runtime::packfile::header::MAGIC)
        && hk_runtime::tagfile::locate(data).is_some()
    {
        let rules = hk_runtime::tagfile::TagFile::parse(data)
            .map_err(|e| e.to_string())
            .and_then(|tf| {
                catalog::for_tagfile(roots.dir(), &tf.sdk_version)
                    .and_then(|(_, g)| g.tagfile)
                    .ok_or_else(|| format!("no tagfile generation matches SDK {}", tf.sdk_version))
            });
        let rules = match rules {
            Ok(r) => r,
            Err(e) => return (Outcome::Failed(e), None),
        };
        return match hk_runtime::tagfile::roundtrip(data, &rules) {
            Ok(out) if out == data => (Outcome::Identical, Some(out)),
            Ok(out) => {
                let offset = data
                    .iter()
                    .zip(&out)
                    .position(|(a, b)| a != b)
                    .unwrap_or(data.len().min(out.len()));
                let owner = "tagfile".to_string();
                (
                    Outcome::Differs {
                        offset,
                        owner,
                        lengths: (data.len(), out.len()),
                    },
                    Some(out),
                )
            }
            Err(e) => (Outcome::Failed(e.to_string()), None),
        };
    }
    let pf = match Packfile::parse(data) {
        Ok(pf) => pf,
        Err(e) => return (Outcome::Failed(e.to_string()), None),
    };
    let schema = match catalog::packfile_schema(roots.dir(), &pf) {
        Ok(s) => s,
        Err(e) => return (Outcome::Failed(e.to_string()), None),
    };
    let graph = match read(&pf, &schema, ReadOptions { lenient }) {
        Ok((g, _)) => g,
        Err(e) => return (Outcome::Failed(format!("read: {e}")), None),
    };
    let out = match write(&graph, &schema) {
        Ok(o) => o,
        Err(e) => return (Outcome::Failed(format!("write: {e}")), None),
    };
    if out == data {
        return (Outcome::Identical, Some(out));
    }
    let offset = data
        .iter()
        .zip(&out)
        .position(|(a, b)| a != b)
        .unwrap_or(data.len().min(out.len()));
    let owner = locate(&pf, &schema, offset as u64);
    (
        Outcome::Differs {
            offset,
            owner,
            lengths: (data.len(), out.len()),
        },
        Some(out),
    )
}

/// Runs `hk roundtrip`.
pub fn run(
    paths: &[PathBuf],
    out: Option<&Path>,
    lenient: bool,
    roots: &Roots,
) -> Result<ExitCode, String> {
    let files = collect(paths);
    if files.is_empty() {
        return Err("no Havok packfiles or tagfiles found".into());
    }
    if out.is_some() && files.len() != 1 {
        return Err("-o needs exactly one input file".into());
    }
    let bar = ProgressBar::new(files.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").map_err(|e| e.to_string())?,
    );
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let results: Vec<(PathBuf, Outcome, Option<Vec<u8>>)> = files
        .par_iter()
        .map(|f| {
            let r = match std::fs::read(f) {
                Ok(data) => roundtrip_bytes(&data, roots, lenient),
                Err(e) => (Outcome::Failed(e.to_string()), None),
            };
            bar.inc(1);
            (f.clone(), r.0, r.1)
        })
        .collect();
    bar.finish_and_clear();
    let mut identical = 0;
    for (f, outcome, bytes) in &results {
        match outcome {
            Outcome::Identical => identical += 1,
            Outcome::Differs {
                offset,
                owner,
                lengths,
            } => outln!(
                "{}: differs at 0x{offset:X} ({owner}); {} bytes in, {} out",
                f.display(),
                lengths.0,
                lengths.1
            ),
            Outcome::Failed(e) => outln!("{}: {e}", f.display()),
        }
        if let (Some(o), Some(b)) = (out, bytes) {
            std::fs::write(o, b).map_err(|e| format!("{}: {e}", o.display()))?;
        }
    }
    outln!("{identical}/{} byte-identical", results.len());
    Ok(if identical == results.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
