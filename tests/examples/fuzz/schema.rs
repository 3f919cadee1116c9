//! The schema-folder mode of the fuzz example (`schema-folders`, docs/fuzzing.md): the
//! shipped `schemas/*` folders, whole or as the classes a few random ones need, mutated
//! structurally (`schema/mutate.rs`), then loaded from their texts as `Schema::load` does
//! and, when they load, put through what `hk schema verify`, `hk schema signatures` and
//! `hk schema layout` run: every class laid out under the generation's rules, every
//! signature computed, the self-check of stated offsets, sizes and signatures, and nine
//! classes flattened and planned under all eight rules. A refusal's diagnostics are
//! formatted as the command line prints them.
//!
//! Every folder is checked for a panic, for its peak heap ([`MEMORY_PER_BYTE`] times its
//! text plus 64 MiB) and for its time: a watchdog saves a folder that runs past [`TIMEOUT`]
//! and ends the run.
//! Failures are saved under the temp folder as `hk-fuzz-schema-KIND-N/` (a folder
//! `hk schema verify` reads). An abort cannot save its folder: the seed and the number of
//! the folder being run are kept in `hk-fuzz-schema-last.txt`, and a run with the same
//! seed and `HK_FUZZ_SAVE=N` in the environment saves folder N as
//! `hk-fuzz-schema-input-N/` before running it; `HK_FUZZ_REPLAY=DIR` runs one saved folder
//! again and prints its time and peak heap.

mod mutate;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hk_runtime::schema::report::self_check;
use hk_runtime::schema::{signature, ClassId, Layouts};
use hk_runtime::{Endian, LayoutRules, Schema};
use hk_tests::heap::measure;

use mutate::{ClassFile, Folder, Rng};

/// The longest one folder may take before the run is stopped as a hang.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Heap a folder may take per byte of its text (plus 64 MiB). The shipped folders take at
/// most 11 times their text, loaded and checked; toml's spanned parse tree of one file
/// takes up to 38 times the file (measured on mutated folders of 4 to 15 MB), and the
/// loader holds one file's tree at a time.
const MEMORY_PER_BYTE: usize = 48;

/// The shipped schema folders, each class file with the classes it names (its parent and
/// the classes its members hold or point to).
struct Shipped {
    folder: Folder,
    needs: Vec<Vec<usize>>,
}

fn shipped() -> Vec<Shipped> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(hk_tests::schemas())
        .expect("schemas/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("generation.toml").is_file())
        .collect();
    dirs.sort();
    dirs.iter().map(|d| read_folder(d)).collect()
}

fn read_folder(dir: &Path) -> Shipped {
    let generation = std::fs::read_to_string(dir.join("generation.toml")).expect("generation");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("classes"))
        .expect("classes/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let classes: Vec<ClassFile> = files
        .iter()
        .map(|p| ClassFile {
            stem: p.file_stem().unwrap().to_string_lossy().into_owned(),
            text: std::fs::read_to_string(p).expect("class file"),
        })
        .collect();
    let index: std::collections::HashMap<&str, usize> = classes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.stem.as_str(), i))
        .collect();
    let needs = classes
        .iter()
        .map(|c| {
            let doc: toml::Table = c.text.parse().unwrap_or_default();
            let mut named: Vec<&str> = doc
                .get("parent")
                .and_then(|v| v.as_str())
                .into_iter()
                .collect();
            if let Some(toml::Value::Array(ms)) = doc.get("members") {
                named.extend(ms.iter().filter_map(|m| m.get("class")?.as_str()));
            }
            named.iter().filter_map(|n| index.get(n).copied()).collect()
        })
        .collect();
    Shipped {
        folder: Folder {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            generation,
            classes,
        },
        needs,
    }
}

/// The whole folder (one time in eight), or the classes one to twenty random ones need.
fn sample(s: &Shipped, r: &mut Rng) -> Folder {
    if r.chance(8) || s.folder.classes.is_empty() {
        return s.folder.clone();
    }
    let mut keep = vec![false; s.folder.classes.len()];
    let mut todo: Vec<usize> = (0..1 + r.below(20))
        .map(|_| r.below(s.folder.classes.len()))
        .collect();
    while let Some(i) = todo.pop() {
        if !std::mem::replace(&mut keep[i], true) {
            todo.extend(&s.needs[i]);
        }
    }
    Folder {
        classes: s
            .folder
            .classes
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| c.clone())
            .collect(),
        ..s.folder.clone()
    }
}

fn bytes_of(f: &Folder) -> usize {
    f.generation.len() + f.classes.iter().map(|c| c.text.len()).sum::<usize>()
}

/// Every combination of pointer size, byte order, padding reuse and empty base.
fn all_rules() -> Vec<LayoutRules> {
    let mut out = Vec::new();
    for pointer_size in [4, 8] {
        for endian in [Endian::Little, Endian::Big] {
            for reuse_padding in [false, true] {
                for empty_base in [false, true] {
                    out.push(LayoutRules {
                        pointer_size,
                        endian,
                        reuse_padding,
                        empty_base,
                    });
                }
            }
        }
    }
    out
}

/// Loads `f` as `Schema::load` would and runs verify, signatures and layout on it; `true`
/// when it loaded.
fn exercise(f: &Folder) -> bool {
    let root = Path::new(&f.name);
    let classes: Vec<(PathBuf, String)> = f
        .classes
        .iter()
        .map(|c| {
            (
                root.join("classes").join(format!("{}.toml", c.stem)),
                c.text.clone(),
            )
        })
        .collect();
    let generation = root.join("generation.toml");
    let schema = match Schema::parse((&generation, &f.generation), &classes) {
        Ok(s) => s,
        Err(d) => {
            // What the command line prints.
            let _ = d.to_string();
            return false;
        }
    };
    // hk schema verify: the generation's layout and the self-check.
    let mut own = Layouts::new(&schema, schema.generation.layout);
    for c in schema.classes() {
        let _ = own.class(&c.name);
    }
    let _ = self_check(&schema);
    // hk schema signatures.
    for c in schema.classes() {
        let _ = signature::signature(&schema, &c.name).map(|s| s.computed());
    }
    // hk schema layout (one class a run) under every rule, and the plans the readers run,
    // for eight classes spread over the folder and the last one (a mutation's chain ends
    // there).
    let n = schema.classes().len();
    let picked = (0..n).step_by(n.div_ceil(8).max(1)).chain(n.checked_sub(1));
    for i in picked {
        let name = &schema.classes()[i].name;
        for rules in all_rules() {
            let _ = Layouts::new(&schema, rules).flattened(name);
            let _ = schema.plan(ClassId(i as u32), rules);
        }
    }
    true
}

/// Runs one saved folder (`HK_FUZZ_REPLAY=DIR`) as the fuzzer ran it, and prints what it
/// took; `false` on a panic.
fn replay(dir: &Path) -> bool {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let mut classes: Vec<ClassFile> = std::fs::read_dir(dir.join("classes"))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter_map(|p| {
                    let stem = p.file_stem()?.to_str()?.to_string();
                    Some(ClassFile {
                        stem,
                        text: read(&p),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    classes.sort_by(|a, b| a.stem.cmp(&b.stem));
    let f = Folder {
        name: dir.display().to_string(),
        generation: read(&dir.join("generation.toml")),
        classes,
    };
    let (out, took, peak) =
        measure(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exercise(&f))));
    println!(
        "{}: {} classes, {} bytes: {}, {took:?}, peak heap {:.1} MiB",
        f.name,
        f.classes.len(),
        bytes_of(&f),
        match out {
            Ok(true) => "loads",
            Ok(false) => "refused",
            Err(_) => "PANIC",
        },
        peak as f64 / (1 << 20) as f64
    );
    out.is_ok()
}

/// Writes `f` as a folder under the temp folder; gives its path.
fn save(f: &Folder, kind: &str, n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hk-fuzz-schema-{kind}-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("classes")).unwrap();
    std::fs::write(dir.join("generation.toml"), &f.generation).unwrap();
    for c in &f.classes {
        // Stems come from the shipped files or from mutate's identifier-only renames.
        std::fs::write(
            dir.join("classes").join(format!("{}.toml", c.stem)),
            &c.text,
        )
        .unwrap();
    }
    dir
}

/// The folder being run and when it started, for the watchdog.
type Current = Arc<Mutex<Option<(Instant, Arc<Folder>)>>>;

/// Stops the run when one folder takes longer than [`TIMEOUT`], after saving it.
fn watchdog(current: Current) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(200));
        let guard = current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((started, f)) = guard.as_ref() {
            if started.elapsed() > TIMEOUT {
                let dir = save(f, "timeout", 1);
                println!(
                    "TIMEOUT: a mutation of {} ran past {TIMEOUT:?} (saved as {})",
                    f.name,
                    dir.display()
                );
                std::process::exit(1);
            }
        }
    });
}

/// Runs `rounds` mutations per shipped folder, or mutations until `minutes` pass when
/// given; prints the counts and any panic or folder over the heap bound; `false` when
/// there was one.
pub fn run(rounds: usize, minutes: Option<f64>, seed: u64) -> bool {
    if let Ok(dir) = std::env::var("HK_FUZZ_REPLAY") {
        return replay(Path::new(&dir));
    }
    let shipped = shipped();
    let mut r = Rng(Box::new(hk_tests::xorshift(seed)));
    let started = Instant::now();
    let deadline = minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let current: Current = Arc::new(Mutex::new(None));
    let last = std::env::temp_dir().join("hk-fuzz-schema-last.txt");
    let save_at: Option<usize> = std::env::var("HK_FUZZ_SAVE")
        .ok()
        .and_then(|v| v.parse().ok());
    watchdog(Arc::clone(&current));
    let (mut tried, mut loaded, mut panics, mut over_memory) = (0usize, 0usize, 0usize, 0usize);
    let mut slowest = (Duration::ZERO, String::new(), None);
    let mut worst = (0usize, String::new());
    println!(
        "{} schema folders ({} classes); {}",
        shipped.len(),
        shipped
            .iter()
            .map(|s| s.folder.classes.len())
            .sum::<usize>(),
        match minutes {
            Some(m) => format!("{m} minutes"),
            None => format!("{rounds} rounds per folder"),
        }
    );
    // The shipped folders as they are: what loading and checking a sound folder takes.
    for s in &shipped {
        let size = bytes_of(&s.folder);
        let (ok, took, peak) = measure(|| exercise(&s.folder));
        println!(
            "  {}: {} classes, {size} bytes, loads {ok}, {took:?}, peak heap {:.1} MiB ({:.1}x)",
            s.folder.name,
            s.folder.classes.len(),
            peak as f64 / (1 << 20) as f64,
            peak as f64 / size as f64
        );
    }
    let mut round = 0;
    'outer: loop {
        if deadline.is_none() && round >= rounds {
            break;
        }
        for s in &shipped {
            if deadline.is_some_and(|d| started.elapsed() >= d) {
                break 'outer;
            }
            let mut f = sample(s, &mut r);
            mutate::mutate(&mut f, &mut r);
            let f = Arc::new(f);
            let size = bytes_of(&f);
            tried += 1;
            let _ = std::fs::write(&last, format!("seed {seed} folder {tried}\n"));
            if save_at == Some(tried) {
                let dir = save(&f, "input", tried);
                println!("folder {tried} saved as {}", dir.display());
            }
            *current.lock().unwrap() = Some((Instant::now(), Arc::clone(&f)));
            let (out, took, peak) =
                measure(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exercise(&f))));
            *current.lock().unwrap() = None;
            let label = format!("{} ({} classes, {size} bytes)", f.name, f.classes.len());
            match out {
                Ok(ok) => loaded += usize::from(ok),
                Err(_) => {
                    panics += 1;
                    let dir = save(&f, "crash", panics);
                    println!(
                        "PANIC on a mutation of {label} (saved as {})",
                        dir.display()
                    );
                }
            }
            if peak > MEMORY_PER_BYTE * size + (64 << 20) {
                over_memory += 1;
                let dir = save(&f, "memory", over_memory);
                println!(
                    "MEMORY: {peak} bytes for {label} (saved as {})",
                    dir.display()
                );
            }
            if took > slowest.0 {
                slowest = (took, label.clone(), Some(Arc::clone(&f)));
            }
            if peak > worst.0 {
                worst = (peak, label);
            }
        }
        round += 1;
    }
    println!(
        "{tried} mutated schema folders in {:.1} min: {} refused, {loaded} loaded (verify, \
         signatures, layout); {panics} panics, {over_memory} over {MEMORY_PER_BYTE}x + 64 MiB \
         of heap",
        started.elapsed().as_secs_f64() / 60.0,
        tried - loaded - panics,
    );
    let kept = slowest
        .2
        .map(|f| format!(", saved as {}", save(&f, "slowest", 1).display()))
        .unwrap_or_default();
    println!(
        "slowest folder: {:?} ({}{kept}); largest peak heap: {:.1} MiB ({})",
        slowest.0,
        slowest.1,
        worst.0 as f64 / (1 << 20) as f64,
        worst.1
    );
    panics == 0 && over_memory == 0
}
