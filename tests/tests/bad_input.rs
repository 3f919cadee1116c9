//! Bad input never panics and never allocates more than the input justifies: every prefix
//! of three corpus files, and seeded random single-byte corruptions of them.

// A counting global allocator needs `unsafe impl GlobalAlloc`; nothing else here is unsafe.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use hk_runtime::packfile::read::{read, ReadOptions};
use hk_runtime::packfile::write::write;
use hk_runtime::packfile::Packfile;
use hk_runtime::Schema;

/// Records the largest single allocation.
struct Tracking;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

const FILES: [&str; 3] = [
    "packfile/havoklib-710/animref[4011].hkx",
    "games/demons-souls-ps3/skeleton_with_types.hkx",
    "packfile/havoklib-2012_2/allosaur[8101].hkx",
];

/// Parses and decodes `data`, writing it back if it reads; returns whether it read.
fn attempt(data: &[u8], schema: &Schema, lenient: bool) -> bool {
    let Ok(pf) = Packfile::parse(data) else {
        return false;
    };
    match read(&pf, schema, ReadOptions { lenient }) {
        Ok((g, _)) => {
            let _ = write(&g, schema);
            true
        }
        Err(e) => {
            // Every error names where it happened.
            assert!(
                e.offset.is_some() || !e.path.is_empty(),
                "error without a place: {e}"
            );
            false
        }
    }
}

/// Splitmix64: a seeded generator, so failures reproduce.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn truncations_and_corruptions_error_without_panicking() {
    let Some(corpus) = hk_tests::corpus("truncations_and_corruptions") else {
        return;
    };
    for file in FILES {
        let data = hk_tests::read(&corpus.join(file));
        let pf = Packfile::parse(&data).unwrap();
        let schema = hk_tests::schema_for(&pf);
        // Allow the decoded graph's per-value overhead on top of the input itself.
        let budget = 64 * data.len() + (1 << 20);
        LARGEST.store(0, Ordering::Relaxed);
        let mut read_ok = 0;
        for len in 0..data.len() {
            if attempt(&data[..len], &schema, false) || attempt(&data[..len], &schema, true) {
                read_ok += 1;
            }
        }
        assert_eq!(read_ok, 0, "{file}: a truncated file read without error");
        let mut state = 0x5EED_0000 + data.len() as u64;
        let mut strict_errors = 0;
        let trials = 3000;
        for _ in 0..trials {
            let mut bad = data.clone();
            let at = (next(&mut state) % data.len() as u64) as usize;
            let mut byte = next(&mut state) as u8;
            if byte == bad[at] {
                byte ^= 0xFF;
            }
            bad[at] = byte;
            if !attempt(&bad, &schema, false) {
                strict_errors += 1;
            }
            attempt(&bad, &schema, true);
        }
        let largest = LARGEST.load(Ordering::Relaxed);
        println!(
            "{file}: {} prefixes all rejected; {trials} corruptions, {strict_errors} rejected in strict mode, none panicked; largest allocation {largest} bytes for a {}-byte input",
            data.len(),
            data.len()
        );
        assert!(
            largest <= budget,
            "{file}: allocation of {largest} bytes for {} input bytes",
            data.len()
        );
    }
}
