//! A counting global allocator for the tests and the fuzz example that bound memory.
//!
//! A test binary installs it with
//! `#[global_allocator] static HEAP: hk_tests::heap::Counting = hk_tests::heap::Counting;`
//! and then reads the live bytes, the peak of live bytes and the largest single request.
//! The counters are process-wide: tests that measure take [`measuring`] so that they run
//! one at a time.

// A counting global allocator needs `unsafe impl GlobalAlloc`; nothing else here is unsafe.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Counts live heap bytes, their peak and the largest single request, then hands every call
/// to the system allocator unchanged.
#[derive(Debug)]
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
    LARGEST.fetch_max(n, Ordering::Relaxed);
}

// SAFETY: every call goes to the system allocator unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Both blocks are live while the bytes move.
        grew(new_size);
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        p
    }
}

/// Heap bytes live now.
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Runs `f`, returning its result, how long it took and the most heap it held at once
/// beyond what was live before.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Duration, usize) {
    let base = live();
    PEAK.store(base, Ordering::Relaxed);
    let started = Instant::now();
    let out = f();
    let took = started.elapsed();
    (out, took, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

/// Forgets the largest single allocation so far; [`largest`] then tells the largest since.
pub fn reset_largest() {
    LARGEST.store(0, Ordering::Relaxed);
}

/// The largest single allocation (or reallocation's new size) since [`reset_largest`].
pub fn largest() -> usize {
    LARGEST.load(Ordering::Relaxed)
}

/// Held while a test measures, so the tests of one binary measure one at a time.
pub fn measuring() -> MutexGuard<'static, ()> {
    static MEASURING: Mutex<()> = Mutex::new(());
    MEASURING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
