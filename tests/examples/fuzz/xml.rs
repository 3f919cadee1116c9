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

/// Mutated Havok XML read (`xml::from_xml`) and, when it reads, built into a packfile.
pub fn run(corpus: &std::path::Path, rounds: usize) {
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
                Err(_) => super::save_crash(f, bad.as_bytes(), tried),
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
