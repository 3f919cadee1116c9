//! The thread speed-up of `hk bench --threads N`: the read pass timed on one thread and on
//! N threads back to back in each round, and the same for a register-only loop, which
//! tells how much any work can gain from N threads on this machine at this time.
//!
//! Each timed pass lasts at least [`PASS`]: starting a pass wakes the pool's sleeping
//! threads, which on the 2-core virtual machine of bench/results.md ("Two threads") took 0.21 ms (median),
//! 0.6 ms (p90) and up to 4.5 ms for an empty `broadcast` after 20 ms idle, against 0.03 ms
//! back to back. Over one 9 ms pass of the corpus on two threads that start-up alone is
//! 2-7% or more; over 250 ms it is under 0.3% (median).

use std::time::Duration;

use super::repeated;

/// How long each timed pass lasts at least.
pub(super) const PASS: Duration = Duration::from_millis(250);

/// The most copies of the items one pass runs.
const MAX_COPIES: usize = 1 << 16;

/// Register-only work items for the compute ceiling (`spin` on each).
pub(super) const SPIN_ITEMS: [u64; 64] = {
    let mut s = [0u64; 64];
    let mut i = 0;
    while i < 64 {
        s[i] = i as u64 + 1;
        i += 1;
    }
    s
};

/// A register-only loop: eight independent multiply-rotate chains, no memory traffic. Never
/// inlined, so that the one-thread and the pool passes run the same machine code.
#[inline(never)]
pub(super) fn spin(seed: &u64) -> u64 {
    let steps = std::hint::black_box(20_000u64);
    let mut x = [*seed; 8];
    for i in 0..steps {
        for (k, v) in x.iter_mut().enumerate() {
            *v = v.rotate_left(5).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i + k as u64);
        }
    }
    x.iter().fold(0, |a, b| a ^ b)
}

/// One work's speed-up measurements.
#[derive(Debug, Default)]
pub(super) struct Speedup {
    /// Copies of the items each timed pass runs.
    pub copies: usize,
    /// One thread's time over the pool's, per round.
    ratios: Vec<f64>,
    /// The one-thread passes.
    one: Vec<Duration>,
    /// The pool's passes.
    many: Vec<Duration>,
}

impl Speedup {
    /// Chooses how many copies of `items` make a one-thread pass of `f` last [`PASS`]: from
    /// untimed one-thread passes of doubling copies until one lasts a tenth of that (a
    /// single pass of a few small files is too short to time).
    pub fn calibrate<T: Sync>(items: &[T], f: impl Fn(&T) -> u64 + Sync, sink: &mut u64) -> Self {
        let mut c = 1;
        let copies = loop {
            let (t, s) = repeated(None, items, c, &f);
            *sink = sink.wrapping_add(s);
            if t >= PASS / 10 || c >= MAX_COPIES {
                let scale = PASS.as_secs_f64() / t.as_secs_f64().max(1e-9);
                break ((c as f64 * scale).ceil() as usize).clamp(1, MAX_COPIES);
            }
            c *= 2;
        };
        Speedup {
            copies,
            ..Speedup::default()
        }
    }

    /// Times `f` over the copies on one thread and on `pool` back to back, in turns first
    /// (so that neither always finds the caches the other left).
    pub fn round<T: Sync>(
        &mut self,
        pool: &rayon::ThreadPool,
        items: &[T],
        f: impl Fn(&T) -> u64 + Sync,
    ) -> u64 {
        let one_first = self.ratios.len().is_multiple_of(2);
        let (a, sa) = repeated((!one_first).then_some(pool), items, self.copies, &f);
        let (b, sb) = repeated(one_first.then_some(pool), items, self.copies, &f);
        let (one, many) = if one_first { (a, b) } else { (b, a) };
        self.ratios
            .push(one.as_secs_f64() / many.as_secs_f64().max(1e-9));
        self.one.push(one);
        self.many.push(many);
        sa.wrapping_add(sb)
    }

    /// The median of the rounds' ratios, which a machine whose speed drifts between
    /// rounds moves less than a ratio of two medians.
    pub fn median(&self) -> Option<f64> {
        let mut r = self.ratios.clone();
        r.sort_by(f64::total_cmp);
        r.get(r.len() / 2).copied()
    }

    /// The fastest one-thread pass over the fastest pool pass: what the machine gives when
    /// nothing else takes its cores (a virtual machine whose host takes CPU time away slows
    /// a pass that needs every core more than one that needs one).
    pub fn best(&self) -> Option<f64> {
        let one = self.one.iter().min()?;
        let many = self.many.iter().min()?;
        Some(one.as_secs_f64() / many.as_secs_f64().max(1e-9))
    }
}
