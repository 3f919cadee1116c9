//! Heavier fuzzing than the test suite runs (docs/fuzzing.md): seeded mutations of every
//! corpus packfile and tagfile (bare, in phive, wrapped in cm) and of the samples hk wrote,
//! each read strictly and leniently through the packfile reader and through `file::open`
//! (default limits), written back when it reads; tagfiles also parsed, their schema
//! extracted and round-tripped.
//!
//! Two kinds of mutation: `bytes` overwrites 1 to 3 random bytes; `structure` (see
//! `structure.rs`) breaks one thing the file's tables say is there. Every input is checked
//! for a panic, for the heap it took (peak above what was live before, at most 16 times the
//! input plus 64 MiB) and for the time it took; the run ends with a summary.
//!
//! `cargo run --release -p hk-tests --example fuzz -- [ROUNDS]
//!  [all|packfiles|tagfiles|xml|binary-tagfiles|schema-folders|animations] [--mode bytes|structure|both]
//!  [--minutes N] [--seed S]`
//!
//! With `--minutes N` the files are taken round-robin until N minutes have passed (ROUNDS is
//! then ignored); without it each file gets ROUNDS mutations (default 200). `xml` mutates
//! Havok XML text instead (`xml.rs`); `binary-tagfiles` the old binary tagfiles, with
//! insertions, deletions and cuts besides corruptions, and with `--mode structure` changes
//! to their records (`binary.rs`); `schema-folders` the shipped schema folders,
//! structurally (`schema.rs`); `animations` every decodable animation of the corpus with one
//! member changed in its graph (`anim.rs`).

mod anim;
mod binary;
mod schema;
mod structure;
mod xml;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hk_runtime::file::{self, Schemas};
use hk_runtime::packfile::graph::read::{read, ReadOptions};
use hk_runtime::packfile::graph::write::write;
use hk_runtime::packfile::Packfile;
use hk_runtime::schema::TagfileRules;
use hk_runtime::tagfile::cm::{Cm, SurfaceRecord, RETAIL_VERSION};
use hk_runtime::tagfile::{roundtrip, TagFile};
use hk_runtime::Schema;
use hk_tests::heap::measure;

#[global_allocator]
static HEAP: hk_tests::heap::Counting = hk_tests::heap::Counting;

/// Which mutations to make.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bytes,
    Structure,
}

struct Args {
    rounds: usize,
    which: String,
    modes: Vec<Mode>,
    minutes: Option<f64>,
    seed: u64,
}

fn args() -> Args {
    let mut a = Args {
        rounds: 200,
        which: "all".into(),
        modes: vec![Mode::Bytes],
        minutes: None,
        seed: 0x1234_5678_9ABC_DEF0,
    };
    let mut it = std::env::args().skip(1);
    let mut positional = 0;
    while let Some(x) = it.next() {
        let mut value = |name: &str| it.next().unwrap_or_else(|| panic!("{name} needs a value"));
        match x.as_str() {
            "--minutes" => a.minutes = Some(value("--minutes").parse().expect("minutes")),
            "--seed" => a.seed = value("--seed").parse().expect("seed"),
            "--mode" => {
                a.modes = match value("--mode").as_str() {
                    "bytes" => vec![Mode::Bytes],
                    "structure" => vec![Mode::Structure],
                    "both" => vec![Mode::Bytes, Mode::Structure],
                    m => panic!("unknown mode `{m}` (bytes, structure, both)"),
                }
            }
            _ if positional == 0 && x.parse::<usize>().is_ok() => {
                a.rounds = x.parse().unwrap();
                positional += 1;
            }
            "all" | "packfiles" | "tagfiles" | "xml" | "binary-tagfiles" | "schema-folders"
            | "animations" => a.which = x,
            other => panic!("unknown argument `{other}`"),
        }
    }
    a
}

/// One file to mutate.
enum Target {
    Packfile {
        path: PathBuf,
        data: Vec<u8>,
        schema: Arc<Schema>,
    },
    Tagfile {
        path: PathBuf,
        data: Vec<u8>,
        rules: TagfileRules,
    },
}

impl Target {
    fn path(&self) -> &Path {
        match self {
            Target::Packfile { path, .. } | Target::Tagfile { path, .. } => path,
        }
    }
}

/// What the run found.
#[derive(Default)]
struct Tally {
    tried: [usize; 2],
    read: usize,
    panics: usize,
    over_memory: usize,
    /// Largest peak heap of one input, its input size and file.
    worst_peak: (usize, usize, String),
    /// Largest peak per input byte (inputs over 64 KiB).
    worst_ratio: (f64, String),
    slowest: (Duration, String),
}

fn targets(which: &str) -> Vec<Target> {
    let Some(corpus) = hk_tests::corpus("fuzz") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let samples = hk_tests::root().join("samples");
    if which != "tagfiles" {
        let mut files = hk_tests::packfiles(&corpus);
        files.extend(hk_tests::packfiles(&samples));
        // One schema per folder, shared by the files it reads.
        let mut loaded: std::collections::HashMap<PathBuf, Arc<Schema>> = Default::default();
        for path in files {
            let data = hk_tests::read(&path);
            let Ok(pf) = Packfile::parse(&data) else {
                continue;
            };
            let dir = hk_runtime::schema::catalog::for_version(
                &hk_tests::schemas(),
                pf.header.file_version,
                &pf.header.contents_version(),
            );
            let Some(dir) = dir else {
                continue;
            };
            let schema = match loaded.get(&dir) {
                Some(s) => Arc::clone(s),
                None => {
                    let Ok(s) = Schema::load(&dir) else {
                        continue;
                    };
                    let s = Arc::new(s);
                    loaded.insert(dir, Arc::clone(&s));
                    s
                }
            };
            out.push(Target::Packfile { path, data, schema });
        }
    }
    if which != "packfiles" {
        // The synthetic samples hk wrote (2016 cm, 2023.2 bphsh), then the corpus tagfiles,
        // each bare or in its container and wrapped in cm.
        let dirs = [
            samples,
            corpus.join("games/dark-souls-remastered"),
            corpus.join("games/totk"),
        ];
        for dir in dirs {
            let mut found: Vec<_> = std::fs::read_dir(&dir)
                .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            found.sort();
            for f in found {
                let data = hk_tests::read(&f);
                if data.starts_with(&hk_runtime::packfile::header::MAGIC) {
                    continue;
                }
                let Ok(tf) = TagFile::parse(&data) else {
                    continue;
                };
                let tag0 = data[tf.offset as usize..(tf.offset + tf.root.size) as usize].to_vec();
                let rules =
                    hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), &tf.sdk_version)
                        .and_then(|(_, g)| g.tagfile)
                        .expect("tagfile rules");
                if tf.cm.is_none() {
                    let cm = Cm::write(&[SurfaceRecord::default(); 2], RETAIL_VERSION, &tag0);
                    out.push(Target::Tagfile {
                        path: f.with_extension("hkshape"),
                        data: cm,
                        rules: rules.clone(),
                    });
                }
                out.push(Target::Tagfile {
                    path: f,
                    data,
                    rules,
                });
            }
        }
    }
    out
}

/// Reads `bad` every way hk reads a file of its kind.
fn exercise(t: &Target, bad: &[u8], schemas: &Schemas) -> bool {
    let mut ok = false;
    match t {
        Target::Packfile { schema, .. } => {
            if let Ok(pf) = Packfile::parse(bad) {
                for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
                    if let Ok(d) = read(&pf, schema, opts) {
                        ok = true;
                        let _ = write(&d.graph, &d.info);
                    }
                }
            }
        }
        Target::Tagfile { rules, .. } => {
            if let Ok(tf) = TagFile::parse(bad) {
                let _ = hk_runtime::tagfile::schema::extract(&[&tf], "fuzz");
                ok |= hk_runtime::tagfile::graph(&tf, bad).is_ok();
                let _ = roundtrip(bad, rules);
            }
        }
    }
    // The front door: detection, schema selection (a packfile's own class metadata where
    // it has some) and the default limits.
    if let Ok(doc) = file::open(bad, schemas, ReadOptions::default()) {
        ok = true;
        let _ = file::write(&doc);
    }
    ok
}

fn main() {
    let a = args();
    if a.which == "xml" {
        if let Some(corpus) = hk_tests::corpus("fuzz") {
            if !xml::run(&corpus, a.rounds, a.minutes, a.seed) {
                std::process::exit(1);
            }
        }
        return;
    }
    if a.which == "binary-tagfiles" {
        let on = |m| a.modes.contains(&m);
        if !binary::run(
            a.rounds,
            a.minutes,
            a.seed,
            on(Mode::Bytes),
            on(Mode::Structure),
        ) {
            std::process::exit(1);
        }
        return;
    }
    if a.which == "animations" {
        if let Some(corpus) = hk_tests::corpus("fuzz") {
            if !anim::run(&corpus, a.rounds, a.minutes, a.seed) {
                std::process::exit(1);
            }
        }
        return;
    }
    if a.which == "schema-folders" {
        if !schema::run(a.rounds, a.minutes, a.seed) {
            std::process::exit(1);
        }
        return;
    }
    let targets = targets(&a.which);
    if targets.is_empty() {
        return;
    }
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let mut next = hk_tests::xorshift(a.seed);
    let mut tally = Tally::default();
    let started = Instant::now();
    let deadline = a.minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let largest = targets
        .iter()
        .map(|t| match t {
            Target::Packfile { data, .. } | Target::Tagfile { data, .. } => data.len(),
        })
        .max()
        .unwrap_or(0);
    println!(
        "{} files ({} packfiles), largest {largest} bytes; modes: {}; {}",
        targets.len(),
        targets
            .iter()
            .filter(|t| matches!(t, Target::Packfile { .. }))
            .count(),
        a.modes
            .iter()
            .map(|m| if *m == Mode::Bytes {
                "bytes"
            } else {
                "structure"
            })
            .collect::<Vec<_>>()
            .join(", "),
        match a.minutes {
            Some(m) => format!("{m} minutes"),
            None => format!("{} rounds per file and mode", a.rounds),
        }
    );
    let mut round = 0usize;
    'outer: loop {
        if deadline.is_none() && round == a.rounds {
            break;
        }
        for t in &targets {
            for &mode in &a.modes {
                if deadline.is_some_and(|d| started.elapsed() >= d) {
                    break 'outer;
                }
                let data = match t {
                    Target::Packfile { data, .. } | Target::Tagfile { data, .. } => data,
                };
                let bad = match (mode, t) {
                    (Mode::Bytes, _) => hk_tests::corrupt(data, &mut next),
                    (Mode::Structure, Target::Packfile { .. }) => {
                        structure::packfile(data, &mut structure::Rng(&mut next))
                    }
                    (Mode::Structure, Target::Tagfile { rules, .. }) => {
                        structure::tagfile(data, rules, &mut structure::Rng(&mut next))
                    }
                };
                tally.tried[usize::from(mode == Mode::Structure)] += 1;
                let (r, took, peak) = measure(|| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        exercise(t, &bad, &schemas)
                    }))
                });
                let name = t.path().display().to_string();
                match r {
                    Ok(true) => tally.read += 1,
                    Ok(false) => {}
                    Err(_) => {
                        tally.panics += 1;
                        save_crash(t.path(), &bad, tally.panics);
                    }
                }
                if peak > 16 * bad.len() + (64 << 20) {
                    tally.over_memory += 1;
                    let out = std::env::temp_dir()
                        .join(format!("hk-fuzz-memory-{}.bin", tally.over_memory));
                    let _ = std::fs::write(&out, &bad);
                    println!(
                        "MEMORY: {peak} bytes for a {}-byte mutation of {name} (saved as {})",
                        bad.len(),
                        out.display()
                    );
                }
                if peak > tally.worst_peak.0 {
                    tally.worst_peak = (peak, bad.len(), name.clone());
                }
                if bad.len() > 1 << 16 {
                    let ratio = peak as f64 / bad.len() as f64;
                    if ratio > tally.worst_ratio.0 {
                        tally.worst_ratio = (ratio, name.clone());
                    }
                }
                if took > tally.slowest.0 {
                    tally.slowest = (took, name);
                }
            }
        }
        round += 1;
    }
    let elapsed = started.elapsed();
    println!(
        "{} byte corruptions and {} structural mutations in {:.1} min ({} rounds over {} files); \
         {} read without error",
        tally.tried[0],
        tally.tried[1],
        elapsed.as_secs_f64() / 60.0,
        round,
        targets.len(),
        tally.read
    );
    println!(
        "panics: {}; inputs over 16x + 64 MiB of heap: {}",
        tally.panics, tally.over_memory
    );
    println!(
        "largest peak heap of one input: {:.1} MiB ({} bytes of {}); largest per input byte \
         (inputs over 64 KiB): {:.1}x ({}); slowest input: {:?} ({})",
        tally.worst_peak.0 as f64 / (1 << 20) as f64,
        tally.worst_peak.1,
        tally.worst_peak.2,
        tally.worst_ratio.0,
        tally.worst_ratio.1,
        tally.slowest.0,
        tally.slowest.1
    );
    if tally.panics > 0 || tally.over_memory > 0 {
        std::process::exit(1);
    }
}

/// Keeps a mutation that panicked, for a regression test.
fn save_crash(f: &Path, bad: &[u8], n: usize) {
    let out = std::env::temp_dir().join(format!("hk-fuzz-crash-{n}.bin"));
    std::fs::write(&out, bad).unwrap();
    println!(
        "PANIC on a mutation of {} (saved as {})",
        f.display(),
        out.display()
    );
}
