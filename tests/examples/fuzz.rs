//! Heavier fuzzing than the test suite runs: seeded byte corruptions of every corpus
//! packfile (read strictly and leniently and written back, and opened and written through
//! `file::open`) and of every corpus tagfile, bare and wrapped in a cm container (parsed,
//! decoded and round-tripped); reports any panic.
//! In `xml` mode (or `all`), seeded text mutations of the SDK's Havok XML files and of XML hk
//! writes for a sample of corpus packfiles are read and built.
//! `cargo run --release -p hk-tests --example fuzz -- [ROUNDS] [all|packfiles|tagfiles|xml]`

use hk_runtime::file::{self, Schemas};
use hk_runtime::packfile::read::{read, ReadOptions};
use hk_runtime::packfile::write::write;
use hk_runtime::packfile::Packfile;
use hk_runtime::tagfile::cm::{Cm, SurfaceRecord, RETAIL_VERSION};
use hk_runtime::tagfile::{roundtrip, TagFile};

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let which = std::env::args().nth(2).unwrap_or_else(|| "all".into());
    let Some(corpus) = hk_tests::corpus("fuzz") else {
        return;
    };
    if which == "xml" || which == "all" {
        fuzz_xml(&corpus, rounds);
        if which == "xml" {
            return;
        }
    }
    let files = if which == "tagfiles" {
        Vec::new()
    } else {
        hk_tests::packfiles(&corpus)
    };
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let mut next = hk_tests::xorshift(0x1234_5678_9ABC_DEF0);
    let mut tried = 0;
    for f in &files {
        let data = hk_tests::read(f);
        let pf = Packfile::parse(&data).unwrap();
        let schema = std::sync::Arc::new(hk_tests::schema_for(&pf));
        for _ in 0..rounds {
            let bad = hk_tests::corrupt(&data, &mut next);
            let r = std::panic::catch_unwind(|| {
                if let Ok(pf) = Packfile::parse(&bad) {
                    for lenient in [false, true] {
                        if let Ok(d) = read(&pf, &schema, ReadOptions { lenient }) {
                            let _ = write(&d.graph, &d.info);
                        }
                    }
                }
                // The front door: schema selection from the corrupted header, and the
                // file's own class metadata where it has some.
                if let Ok(doc) = file::open(&bad, &schemas, ReadOptions::default()) {
                    let _ = file::write(&doc);
                }
            });
            tried += 1;
            if r.is_err() {
                save_crash(f, &bad, &format!("hk-fuzz-crash-{tried}.hkx"));
            }
        }
    }
    println!(
        "{tried} corrupted files tried over {} packfiles",
        files.len()
    );
    let mut tagfiles = Vec::new();
    let dirs: &[&str] = if which == "packfiles" {
        &[]
    } else {
        &["games/dark-souls-remastered", "games/totk"]
    };
    // The synthetic samples hk wrote (2016 cm, 2023.2 bphsh), then the corpus tagfiles.
    let samples = hk_tests::root().join("samples");
    let roots: Vec<std::path::PathBuf> = std::iter::once(samples)
        .filter(|_| which != "packfiles")
        .chain(dirs.iter().map(|d| corpus.join(d)))
        .collect();
    for dir in roots {
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
            tagfiles.push((f.clone(), data.clone(), rules.clone()));
            if tf.cm.is_none() {
                let cm = Cm::write(&[SurfaceRecord::default(); 2], RETAIL_VERSION, &tag0);
                tagfiles.push((f.with_extension("hkshape"), cm, rules));
            }
        }
    }
    let mut tried = 0;
    for (f, data, rules) in &tagfiles {
        for _ in 0..rounds {
            let bad = hk_tests::corrupt(data, &mut next);
            let r = std::panic::catch_unwind(|| {
                if let Ok(tf) = TagFile::parse(&bad) {
                    let _ = hk_runtime::tagfile::schema::extract(&[&tf], "fuzz");
                    let _ = hk_runtime::tagfile::graph(&tf, &bad);
                    let _ = roundtrip(&bad, rules);
                }
            });
            tried += 1;
            if r.is_err() {
                save_crash(f, &bad, &format!("hk-fuzz-crash-tag-{tried}.bin"));
            }
        }
    }
    println!(
        "{tried} corrupted files tried over {} tagfiles (bare or in phive, and in cm)",
        tagfiles.len()
    );
}

/// Keeps a corruption that panicked, for a regression test.
fn save_crash(f: &std::path::Path, bad: &[u8], name: &str) {
    let out = std::env::temp_dir().join(name);
    std::fs::write(&out, bad).unwrap();
    println!(
        "PANIC on a corruption of {} (saved as {})",
        f.display(),
        out.display()
    );
}

/// `text` with one to three mutations: a byte overwritten by a character that means
/// something to the reader, a span deleted, or a span repeated.
fn mutate_text(text: &str, next: &mut impl FnMut() -> u64) -> String {
    const MEANINGFUL: &[u8] = b"<>/&;\"'#()|-+.0123456789xe \t\nhk:=?!";
    let mut b = text.as_bytes().to_vec();
    for _ in 0..1 + next() % 3 {
        if b.is_empty() {
            break;
        }
        let at = (next() % b.len() as u64) as usize;
        let len = (1 + next() % 64) as usize;
        let end = (at + len).min(b.len());
        match next() % 4 {
            0 | 1 => b[at] = MEANINGFUL[(next() % MEANINGFUL.len() as u64) as usize],
            2 => {
                b.drain(at..end);
            }
            _ => {
                let span = b[at..end].to_vec();
                b.splice(at..at, span);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Mutated Havok XML read (`xml::from_xml`) and, when it reads, built into a packfile.
fn fuzz_xml(corpus: &std::path::Path, rounds: usize) {
    use hk_runtime::dump::xml;
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let dir = corpus.join("packfile/havoklib-xml");
    let mut inputs: Vec<(std::path::PathBuf, String)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap();
            (p, t)
        })
        .collect();
    inputs.sort();
    // hk's own XML (with its namespace) for every twentieth corpus packfile.
    for f in hk_tests::packfiles(corpus).iter().step_by(20) {
        if let Ok(doc) = file::open(&hk_tests::read(f), &schemas, ReadOptions::default()) {
            if let Ok(t) = xml::to_xml(&doc) {
                inputs.push((f.clone(), t));
            }
        }
    }
    let mut next = hk_tests::xorshift(0x0F0F_1234_5678_9ABC);
    let (mut tried, mut read_ok) = (0usize, 0usize);
    let start = std::time::Instant::now();
    for (f, text) in &inputs {
        for _ in 0..rounds {
            let bad = mutate_text(text, &mut next);
            let r = std::panic::catch_unwind(|| xml::build_xml(&bad, &schemas, None).is_ok());
            tried += 1;
            match r {
                Ok(true) => read_ok += 1,
                Ok(false) => {}
                Err(_) => save_crash(f, bad.as_bytes(), &format!("hk-fuzz-crash-xml-{tried}.xml")),
            }
        }
        // Progress, so a run stopped early still says how far it got.
        println!(
            "  {tried} tried, {:.0} s: {}",
            start.elapsed().as_secs_f64(),
            f.display()
        );
    }
    println!(
        "{tried} mutated XML files tried over {} inputs ({read_ok} still built) in {:.1} s",
        inputs.len(),
        start.elapsed().as_secs_f64()
    );
}
