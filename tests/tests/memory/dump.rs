//! `hk dump` and `hk build` of a legitimate big file take a small multiple of their input
//! (a 10 MB int16 array, the largest legitimate input of its kind): the JSON is written straight from the graph and read straight into it, without a tree of
//! JSON values. A counting allocator measures the peak of live heap bytes while each runs.

use std::io::Write;

use hk_runtime::dump::{self, Format};
use hk_runtime::file;
use hk_tests::heap::{live, measure, measuring};

/// The peak of live heap bytes while `f` runs (this file's only test, so no other thread
/// allocates meanwhile).
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = live();
    let (out, _, peak) = measure(f);
    (out, base + peak)
}

/// Counts what is written, keeping none of it (as `hk dump` streams to a file).
struct Sink(usize);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_10_mib_int16_array_dumps_and_builds_in_4x_its_input() {
    let _one = measuring();
    let schemas = hk_tests::schema_set();
    // The schema is loaded and its plans made before measuring (every command does that
    // whatever the file's size).
    let warm = hk_tests::int16_packfile(16);
    dump::write_json(
        &file::open(&warm, &schemas, Default::default()).unwrap(),
        Sink(0),
    )
    .unwrap();

    let input = hk_tests::int16_packfile(5 << 20);
    assert!(input.len() > 10 << 20);
    let base = live();
    let (written, peak) = peak_of(|| {
        let doc = file::open(&input, &schemas, Default::default()).unwrap();
        let mut sink = std::io::BufWriter::with_capacity(1 << 16, Sink(0));
        dump::write_json(&doc, &mut sink).unwrap();
        sink.into_inner().map_err(|_| "flush").unwrap().0
    });
    // The input is live throughout: it counts.
    let dump_peak = peak - base + input.len();
    println!(
        "dump: {} input bytes, {written} bytes of JSON, peak {dump_peak} bytes ({:.2}x the input)",
        input.len(),
        dump_peak as f64 / input.len() as f64
    );
    assert!(
        dump_peak <= 4 * input.len(),
        "dump peak {dump_peak} for {} input bytes",
        input.len()
    );

    let mut text = Vec::with_capacity(written);
    dump::write_json(
        &file::open(&input, &schemas, Default::default()).unwrap(),
        &mut text,
    )
    .unwrap();
    drop(input);
    let base = live();
    let (bytes, peak) = peak_of(|| {
        let (bytes, _) = dump::build_text(&text, Format::Json, &schemas).unwrap();
        bytes.len()
    });
    let build_peak = peak - base + text.len();
    println!(
        "build: {} bytes of JSON, {bytes} bytes written, peak {build_peak} bytes ({:.2}x the input)",
        text.len(),
        build_peak as f64 / text.len() as f64
    );
    assert!(
        build_peak <= 4 * text.len(),
        "build peak {build_peak} for {} input bytes",
        text.len()
    );
}
