//! The animation mode of the fuzz example (docs/fuzzing.md): every animation of the corpus
//! (each file read once through `file::open`) is decoded again and again with one of its
//! members changed in the graph: a count or size set to an edge value (0, 1, the largest
//! `u32`, a negative number, a random one), a real to NaN, an infinity or a huge value, an
//! offset array's entries moved past the data, a data array's bytes corrupted, cut short
//! or extended. Each mutation is decoded (`anim::animation`, every frame, and samples at
//! random times), under the same checks as the other modes: no panic, peak heap at most
//! 16 times the clip's stored size plus 64 MiB, and no input slower than [`SLOW`].

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hk_runtime::anim::{self, Transform};
use hk_runtime::file::{self, Schemas};
use hk_runtime::graph::{Array, Graph, ObjectId, Value};
use hk_runtime::ReadOptions;
use hk_tests::heap::measure;

/// An input slower than this fails the run.
const SLOW: Duration = Duration::from_secs(10);

/// One clip: its file's graph and the animation object.
struct Clip {
    path: PathBuf,
    graph: Graph,
    id: ObjectId,
    /// The bytes its values hold (for the heap bound).
    size: usize,
}

fn clips(corpus: &std::path::Path, schemas: &Schemas) -> Vec<Clip> {
    let mut out = Vec::new();
    let mut stack = vec![corpus.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(doc) = file::open(&bytes, schemas, ReadOptions::default()) else {
            continue;
        };
        for id in anim::animation_ids(&doc.graph) {
            if anim::animation(&doc.graph, id).is_ok() {
                out.push(Clip {
                    path: path.clone(),
                    graph: doc.graph.clone(),
                    id,
                    size: bytes.len(),
                });
            }
        }
    }
    out
}

/// An edge value for an integer member.
fn edge_int(next: &mut impl FnMut() -> u64) -> i64 {
    match next() % 8 {
        0 => 0,
        1 => 1,
        2 => -1,
        3 => i64::from(u32::MAX),
        4 => i64::from(i32::MAX),
        5 => i64::from(i32::MIN),
        6 => (next() % 4096) as i64,
        _ => (next() % (1 << 20)) as i64,
    }
}

fn edge_real(next: &mut impl FnMut() -> u64) -> f32 {
    [
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        0.0,
        -1.0,
        1e30,
        1e-30,
        f32::MAX,
    ][(next() % 8) as usize]
}

/// Changes one value of `values` (the animation's members); says what it did.
fn mutate(values: &mut [Value], next: &mut impl FnMut() -> u64) -> String {
    let i = (next() % values.len() as u64) as usize;
    let what = match &mut values[i] {
        Value::Int(v) => {
            *v = edge_int(next);
            format!("int {v}")
        }
        Value::UInt(v) => {
            *v = edge_int(next) as u64 & u64::from(u32::MAX);
            format!("uint {v}")
        }
        Value::Real(v) => {
            *v = edge_real(next);
            format!("real {v}")
        }
        Value::Array(Array::U8(b)) => bytes(b, next),
        Value::Array(Array::U32(v)) if !v.is_empty() => {
            let k = (next() % v.len() as u64) as usize;
            v[k] = edge_int(next) as u32;
            format!("u32 entry {k} = {}", v[k])
        }
        Value::Array(Array::U32(v)) => {
            v.push(edge_int(next) as u32);
            "u32 entry added".into()
        }
        Value::Array(Array::Real(v)) if !v.is_empty() => {
            let k = (next() % v.len() as u64) as usize;
            v[k] = edge_real(next);
            format!("real entry {k} = {}", v[k])
        }
        Value::Array(Array::Mat3(v)) if !v.is_empty() => {
            let k = (next() % v.len() as u64) as usize;
            v[k][(next() % 12) as usize] = edge_real(next);
            format!("qstransform {k}")
        }
        Value::Array(Array::Mat3(v)) => {
            v.truncate(v.len().saturating_sub(1));
            "qstransforms cut".into()
        }
        other => format!("untouched {}", other.describe()),
    };
    format!("value {i}: {what}")
}

/// A byte-array change: corrupted bytes, a cut, or bytes added.
fn bytes(b: &mut Vec<u8>, next: &mut impl FnMut() -> u64) -> String {
    match next() % 4 {
        0 if !b.is_empty() => {
            let n = (next() % b.len() as u64) as usize;
            b.truncate(n);
            format!("data cut to {n}")
        }
        1 => {
            let n = 1 + (next() % 64) as usize;
            b.extend((0..n).map(|_| next() as u8));
            format!("{n} data bytes added")
        }
        _ if !b.is_empty() => {
            for _ in 0..1 + next() % 4 {
                let k = (next() % b.len() as u64) as usize;
                b[k] = next() as u8;
            }
            "data bytes corrupted".into()
        }
        _ => "empty data".into(),
    }
}

/// Decodes the clip every way: each frame, and samples at random times.
fn exercise(g: &Graph, id: ObjectId, next: &mut impl FnMut() -> u64) -> bool {
    let Ok(a) = anim::animation(g, id) else {
        return false;
    };
    let d = &a.decoder;
    let Ok(frames) = d.frames() else {
        return false;
    };
    let mut out = vec![Transform::IDENTITY; frames.transform_tracks];
    let mut floats = vec![0.0; frames.float_tracks];
    for _ in 0..8 {
        let t = d.duration() * (next() % 1000) as f32 / 900.0;
        if d.sample(t, &mut out, &mut floats).is_err() {
            return false;
        }
    }
    true
}

/// Runs the mode; false when something failed.
pub fn run(corpus: &std::path::Path, rounds: usize, minutes: Option<f64>, seed: u64) -> bool {
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let clips = clips(corpus, &schemas);
    println!("{} clips decode before mutation", clips.len());
    if clips.is_empty() {
        return false;
    }
    let mut next = hk_tests::xorshift(seed);
    let started = Instant::now();
    let deadline = minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let (mut tried, mut decoded, mut panics, mut over, mut slow) = (0usize, 0usize, 0, 0, 0);
    let mut worst = (0usize, String::new());
    let mut slowest = (Duration::ZERO, String::new());
    let mut round = 0;
    'outer: loop {
        if deadline.is_none() && round == rounds {
            break;
        }
        for c in &clips {
            if deadline.is_some_and(|d| started.elapsed() >= d) {
                break 'outer;
            }
            let mut g = c.graph.clone();
            let what = mutate(&mut g.objects[c.id.0 as usize].values, &mut next);
            let label = format!("{} #{} ({what})", c.path.display(), c.id.0);
            tried += 1;
            let (r, took, peak) = measure(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    exercise(&g, c.id, &mut next)
                }))
            });
            match r {
                Ok(true) => decoded += 1,
                Ok(false) => {}
                Err(_) => {
                    panics += 1;
                    println!("PANIC: {label}");
                }
            }
            if peak > 16 * c.size + (64 << 20) {
                over += 1;
                println!("MEMORY: {peak} bytes for {label}");
            }
            if took > SLOW {
                slow += 1;
                println!("SLOW: {took:?} for {label}");
            }
            if peak > worst.0 {
                worst = (peak, label.clone());
            }
            if took > slowest.0 {
                slowest = (took, label);
            }
        }
        round += 1;
    }
    println!(
        "{tried} mutated clips in {:.1} min ({round} rounds over {} clips): {decoded} decoded, {} refused",
        started.elapsed().as_secs_f64() / 60.0,
        clips.len(),
        tried - decoded - panics
    );
    println!("panics: {panics}; over 16x + 64 MiB of heap: {over}; slower than {SLOW:?}: {slow}");
    println!(
        "largest peak heap: {:.1} MiB ({}); slowest: {:?} ({})",
        worst.0 as f64 / (1 << 20) as f64,
        worst.1,
        slowest.0,
        slowest.1
    );
    panics == 0 && over == 0 && slow == 0
}
