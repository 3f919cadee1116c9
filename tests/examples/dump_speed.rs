//! How fast hk dumps and builds back the corpus, in one process (no start-up per file):
//! every packfile and tagfile is read, dumped to JSON text (and TOML), and the text built
//! back into bytes. `cargo run --release -p hk-tests --example dump_speed -- [json|toml]`

use std::time::{Duration, Instant};

use hk_runtime::dump;
use hk_runtime::file::{self, Schemas};

fn main() {
    let Some(corpus) = hk_tests::corpus("dump_speed") else {
        return;
    };
    let schemas = Schemas::from_dir(&hk_tests::schemas()).expect("schema folders");
    let mut files = Vec::new();
    let mut stack = vec![corpus];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("corpus folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let only = std::env::args().nth(1);
    for toml in [false, true] {
        if only
            .as_deref()
            .is_some_and(|o| o != if toml { "toml" } else { "json" })
        {
            continue;
        }
        let (mut input, mut text_bytes, mut n, mut same) = (0usize, 0usize, 0, 0);
        let (mut t_dump, mut t_build) = (Duration::ZERO, Duration::ZERO);
        for f in &files {
            let data = std::fs::read(f).expect("read");
            let Ok(doc) = file::open(&data, &schemas, Default::default()) else {
                continue;
            };
            let t = Instant::now();
            let text = if toml {
                dump::to_toml(&doc).expect("toml").into_bytes()
            } else {
                let mut v = Vec::new();
                dump::write_json(&doc, &mut v).expect("json");
                v
            };
            t_dump += t.elapsed();
            let format = if toml {
                dump::Format::Toml
            } else {
                dump::Format::Json
            };
            let t = Instant::now();
            let (bytes, _) = dump::build_text(&text, format, &schemas).expect("build");
            t_build += t.elapsed();
            n += 1;
            input += data.len();
            text_bytes += text.len();
            same += usize::from(bytes == data);
        }
        let mb = |b: usize, t: Duration| b as f64 / 1e6 / t.as_secs_f64();
        println!(
            "{}: {n} files, {:.1} MB in, {:.1} MB of text; dump {:.2} s ({:.1} MB/s of input, {:.1} MB/s of text); build {:.2} s ({:.1} MB/s of text, {:.1} MB/s of output); {same} byte-identical",
            if toml { "TOML" } else { "JSON" },
            input as f64 / 1e6,
            text_bytes as f64 / 1e6,
            t_dump.as_secs_f64(),
            mb(input, t_dump),
            mb(text_bytes, t_dump),
            t_build.as_secs_f64(),
            mb(text_bytes, t_build),
            mb(input, t_build),
        );
    }
}
