//! Writes the legitimate big file of the memory tests (`hk_tests::int16_packfile`): a Havok
//! 7.1 skeleton whose `parentIndices` array holds N int16 values (default 5,242,880: 10
//! MiB), to measure `hk dump` and `hk build` against it.
//! `cargo run --release -p hk-tests --example int16_file -- OUT.hkx [N]`

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: int16_file OUT.hkx [N]");
        std::process::exit(2);
    };
    let n = args.next().and_then(|a| a.parse().ok()).unwrap_or(5 << 20);
    let bytes = hk_tests::int16_packfile(n);
    if let Err(e) = std::fs::write(&out, &bytes) {
        eprintln!("error: {out}: {e}");
        std::process::exit(2);
    }
    println!("{out}: {} bytes, {n} int16 values", bytes.len());
}
