//! Throughput of the derived codecs over the havoklib-710 files (the `havok-demo-710`
//! classes): typed decode, typed write, view traversal (with and without parsing the
//! packfile's tables), against the dynamic graph's read and write.
//! `cargo run --release -p hk-tests --example typed_bench -- [ROUNDS]`

use std::time::{Duration, Instant};

use hk_runtime::packfile::Packfile;

mod h710 {
    hk_derive::schema!(
        path = "../schemas/havok-7.1",
        classes = [
            "hkRootLevelContainer",
            "hkaAnimationContainer",
            "hkaAnimationBinding",
            "hkaDefaultAnimatedReferenceFrame",
            "hkaDeltaCompressedAnimation",
            "hkaInterleavedUncompressedAnimation",
            "hkaSkeleton",
            "hkaSplineCompressedAnimation",
            "hkxEnvironment",
            "hkClass",
            "hkClassMember",
            "hkClassEnum",
            "hkClassEnumItem",
        ]
    );
}

/// Runs `f` over all files `rounds` times; the best round's throughput in MB/s and the
/// median's.
fn measure(bytes: usize, rounds: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    let mbs = |d: Duration| bytes as f64 / 1e6 / d.as_secs_f64();
    (mbs(times[0]), mbs(times[times.len() / 2]))
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(30);
    let Some(corpus) = hk_tests::corpus("typed_bench") else {
        return;
    };
    let files = hk_tests::files(&corpus.join("packfile/havoklib-710"));
    let data: Vec<Vec<u8>> = files.iter().map(|f| hk_tests::read(f)).collect();
    let total: usize = data.iter().map(Vec::len).sum();
    println!(
        "{} files, {:.2} MB, {rounds} rounds (best / median MB/s); `-- ROUNDS NAME` runs only what NAME names",
        data.len(),
        total as f64 / 1e6
    );
    let only = std::env::args().nth(2).unwrap_or_default();
    let report = |what: &str, (best, median): (f64, f64)| {
        println!("{what:<42} {best:>9.0} / {median:>9.0}");
    };
    let run = |what: &str| what.contains(only.as_str());

    let typed: Vec<_> = data.iter().map(|d| h710::decode_file(d).unwrap()).collect();
    for (t, d) in typed.iter().zip(&data) {
        assert_eq!(&t.write().unwrap(), d);
    }
    let parsed: Vec<Packfile<'_>> = data.iter().map(|d| Packfile::parse(d).unwrap()).collect();
    let mut sink = 0u64;

    if run("packfile parse (tables only)") {
        report(
            "packfile parse (tables only)",
            measure(total, rounds, || {
                for d in &data {
                    sink =
                        sink.wrapping_add(Packfile::parse(d).unwrap().object_table().len() as u64);
                }
            }),
        );
    }
    if run("typed decode (decode_file)") {
        report(
            "typed decode (decode_file)",
            measure(total, rounds, || {
                for d in &data {
                    sink = sink.wrapping_add(h710::decode_file(d).unwrap().objects.len() as u64);
                }
            }),
        );
    }
    if run("typed write (TypedFile::write)") {
        report(
            "typed write (TypedFile::write)",
            measure(total, rounds, || {
                for t in &typed {
                    sink = sink.wrapping_add(t.write().unwrap().len() as u64);
                }
            }),
        );
    }
    if run("view traversal (traverse_file, with parse)") {
        report(
            "view traversal (traverse_file, with parse)",
            measure(total, rounds, || {
                for d in &data {
                    sink = sink.wrapping_add(h710::traverse_file(d).unwrap());
                }
            }),
        );
    }
    if run("view traversal (parsed packfiles)") {
        report(
            "view traversal (parsed packfiles)",
            measure(total, rounds, || {
                for pf in &parsed {
                    sink = sink.wrapping_add(h710::traverse_packfile(pf).unwrap());
                }
            }),
        );
    }
    let schema = h710::schema();
    let graphs: Vec<_> = parsed
        .iter()
        .map(|pf| hk_runtime::packfile::read::read(pf, schema, Default::default()).unwrap())
        .collect();
    if run("dynamic read (graph, for comparison)") {
        report(
            "dynamic read (graph, for comparison)",
            measure(total, rounds, || {
                for d in &data {
                    let pf = Packfile::parse(d).unwrap();
                    let g =
                        hk_runtime::packfile::read::read(&pf, schema, Default::default()).unwrap();
                    sink = sink.wrapping_add(g.graph.objects.len() as u64);
                }
            }),
        );
    }
    if run("dynamic write (graph, for comparison)") {
        report(
            "dynamic write (graph, for comparison)",
            measure(total, rounds, || {
                for g in &graphs {
                    sink = sink.wrapping_add(
                        hk_runtime::packfile::write::write(&g.graph, &g.info)
                            .unwrap()
                            .len() as u64,
                    );
                }
            }),
        );
    }
    println!("(checksum {sink:x})");
}
