//! The `xml` mode of the fuzzer: seeded text mutations of the SDK's Havok XML files and of
//! the XML hk writes for a sample of corpus packfiles, each read and built into a packfile.

use hk_runtime::file::{self, Schemas};
use hk_runtime::packfile::read::ReadOptions;

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

/// Mutated Havok XML read (`xml::build_xml`) and, when it reads, built into a packfile:
/// `rounds` mutations per input, or with `minutes` the inputs round-robin until the time is
/// up. Each is checked for a panic and for the heap it took (as the binary modes: at most
/// 16 times the input plus 64 MiB). Returns whether the run was clean.
pub fn run(corpus: &std::path::Path, rounds: usize, minutes: Option<f64>, seed: u64) -> bool {
    use hk_runtime::dump::xml;
    use std::time::{Duration, Instant};
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
    let sdk = inputs.len();
    // hk's own XML (with its namespace) for every twentieth corpus packfile.
    for f in hk_tests::packfiles(corpus).iter().step_by(20) {
        if let Ok(doc) = file::open(&hk_tests::read(f), &schemas, ReadOptions::default()) {
            if let Ok(t) = xml::to_xml(&doc) {
                inputs.push((f.clone(), t));
            }
        }
    }
    println!(
        "{} inputs: {sdk} SDK XML files, {} written by hk; {}",
        inputs.len(),
        inputs.len() - sdk,
        minutes.map_or(format!("{rounds} mutations each"), |m| format!(
            "round-robin for {m} minute(s)"
        ))
    );
    let mut next = hk_tests::xorshift(seed);
    let (mut tried, mut read_ok, mut panics, mut over) = (0usize, 0usize, 0usize, 0usize);
    let (mut slowest, mut largest_peak) = (Duration::ZERO, 0usize);
    let start = Instant::now();
    let deadline = minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let mut last_report = 0u64;
    'outer: for pass in 0.. {
        for (f, text) in &inputs {
            let per_input = if deadline.is_some() { 1 } else { rounds };
            for _ in 0..per_input {
                let bad = mutate_text(text, &mut next);
                let (r, took, peak) = hk_tests::heap::measure(|| {
                    std::panic::catch_unwind(|| {
                        xml::build_xml(&bad, &schemas, None, &Default::default()).is_ok()
                    })
                });
                tried += 1;
                slowest = slowest.max(took);
                largest_peak = largest_peak.max(peak);
                match r {
                    Ok(true) => read_ok += 1,
                    Ok(false) => {}
                    Err(_) => {
                        panics += 1;
                        super::save_crash(f, bad.as_bytes(), tried);
                    }
                }
                if peak > 16 * bad.len() + (64 << 20) {
                    over += 1;
                    println!(
                        "MEMORY: {peak} bytes for a {}-byte mutation of {}",
                        bad.len(),
                        f.display()
                    );
                }
            }
            // Progress, so a run stopped early still says how far it got.
            let secs = start.elapsed().as_secs();
            if secs >= last_report + 30 || deadline.is_none() {
                last_report = secs;
                println!("  {tried} tried, {secs} s, pass {pass}: {}", f.display());
            }
            if deadline.is_some_and(|d| start.elapsed() >= d) {
                break 'outer;
            }
        }
        if deadline.is_none() {
            break;
        }
    }
    println!(
        "{tried} mutated XML files tried over {} inputs ({read_ok} still built) in {:.1} s; \
         {panics} panic(s), {over} over the memory bound; slowest input {:.1} ms, largest \
         peak heap {:.1} MiB",
        inputs.len(),
        start.elapsed().as_secs_f64(),
        slowest.as_secs_f64() * 1e3,
        largest_peak as f64 / (1 << 20) as f64
    );
    panics == 0 && over == 0
}
