//! Heavier fuzzing than the test suite runs: seeded byte corruptions of every corpus
//! packfile, read strictly and leniently and written back; reports any panic.
//! `cargo run --release -p hk-tests --example fuzz -- [ROUNDS]`

use hk_runtime::packfile::read::{read, ReadOptions};
use hk_runtime::packfile::write::write;
use hk_runtime::packfile::Packfile;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let Some(corpus) = hk_tests::corpus("fuzz") else {
        return;
    };
    let files = hk_tests::packfiles(&corpus);
    let mut state = 0x1234_5678_9ABC_DEF0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut tried = 0;
    for f in &files {
        let data = hk_tests::read(f);
        let pf = Packfile::parse(&data).unwrap();
        let schema = hk_tests::schema_for(&pf);
        for _ in 0..rounds {
            let mut bad = data.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % bad.len() as u64) as usize;
                bad[at] = next() as u8;
            }
            let r = std::panic::catch_unwind(|| {
                if let Ok(pf) = Packfile::parse(&bad) {
                    for lenient in [false, true] {
                        if let Ok((g, _)) = read(&pf, &schema, ReadOptions { lenient }) {
                            let _ = write(&g, &schema);
                        }
                    }
                }
            });
            tried += 1;
            if r.is_err() {
                let out = std::env::temp_dir().join(format!("hk-fuzz-crash-{tried}.hkx"));
                std::fs::write(&out, &bad).unwrap();
                println!(
                    "PANIC on a corruption of {} (saved as {})",
                    f.display(),
                    out.display()
                );
            }
        }
    }
    println!(
        "{tried} corrupted files tried over {} packfiles",
        files.len()
    );
}
