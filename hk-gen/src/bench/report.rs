//! What `hk bench` prints: a line per figure and the speedups, first read, peak memory
//! and skipped files, as text or as one JSON object.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use super::{Figure, Measured};
use crate::error::{Error, Result};
use crate::out::{outln, Out};

/// Everything `hk bench` prints.
pub(super) struct Report<'a> {
    pub(super) files: usize,
    pub(super) packfiles: usize,
    pub(super) rounds: usize,
    pub(super) threads: usize,
    pub(super) measured: Measured,
    /// The first read of every file.
    pub(super) cold: Duration,
    /// Peak resident memory in KiB ([`super::peak_kib`]).
    pub(super) peak: Option<u64>,
    pub(super) skipped: &'a [PathBuf],
}

impl Report<'_> {
    /// The figure of workload `name`.
    fn figure(&self, name: &str) -> &Figure {
        let f = self.measured.figures.iter().find(|f| f.name == name);
        f.expect("every workload has a figure")
    }

    /// The bytes of every file measured.
    fn bytes(&self) -> usize {
        self.figure("checksum").bytes
    }

    /// `f`'s median throughput as a percentage of its files' checksum pass.
    fn ratio(&self, f: &Figure) -> f64 {
        let base = if f.name.starts_with("typed") || f.name == "view traversal" {
            self.figure("typed checksum").median_mb_s()
        } else {
            self.figure("checksum").median_mb_s()
        };
        if base > 0.0 {
            100.0 * f.median_mb_s() / base
        } else {
            0.0
        }
    }

    /// The read speedup's median, its fastest rounds' ratio and its copies per pass, and
    /// the register-only loop's median (all `None` on one thread).
    fn speedups(&self) -> (Option<f64>, Option<f64>, Option<usize>, Option<f64>) {
        match &self.measured.speedups {
            Some((r, c)) => (r.median(), r.best(), Some(r.copies), c.median()),
            None => (None, None, None, None),
        }
    }

    /// Prints the report as one JSON object.
    pub(super) fn json(&self, o: &mut Out<'_>) -> Result<()> {
        let by = |n: &str| self.figure(n).median_mb_s();
        let (speedup, best_speedup, copies, compute_speedup) = self.speedups();
        let typed = self.figure("typed checksum");
        let doc = json!({
            "files": self.files,
            "packfiles": self.packfiles,
            "tagfiles": self.files - self.packfiles,
            "bytes": self.bytes(),
            "rounds": self.rounds,
            "threads": self.threads,
            "checksum_mb_s": by("checksum"),
            "read_mb_s": by("read+decode"),
            "write_mb_s": by("write"),
            "typed_files": typed.files,
            "typed_bytes": typed.bytes,
            "typed_checksum_mb_s": by("typed checksum"),
            "typed_mb_s": by("typed decode"),
            "typed_write_mb_s": by("typed write"),
            "view_mb_s": by("view traversal"),
            "read_speedup": speedup,
            "read_speedup_best": best_speedup,
            "read_speedup_copies": copies,
            "compute_speedup": compute_speedup,
            "cold_ms": self.cold.as_secs_f64() * 1e3,
            "peak_mib": self.peak.map(|k| k as f64 / 1024.0),
            "skipped": self.skipped.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| Error::Dump {
            format: "JSON",
            message: e.to_string(),
        })?;
        outln!(o, "{text}");
        Ok(())
    }

    /// Prints the report as text: a line per figure, then the speedups, the first read,
    /// the peak memory and the files skipped.
    pub(super) fn text(&self, o: &mut Out<'_>) -> Result<()> {
        let (files, packfiles, rounds, threads) =
            (self.files, self.packfiles, self.rounds, self.threads);
        outln!(
            o,
            "{files} files ({packfiles} packfiles, {} tagfiles), {:.1} MB; {rounds} rounds, {threads} thread(s); median round (best)",
            files - packfiles,
            self.bytes() as f64 / 1e6
        );
        for f in &self.measured.figures {
            if f.name == "typed checksum" {
                outln!(
                    o,
                    "typed classes (havok-demo-710 profile): {} of the files, {:.1} MB",
                    f.files,
                    f.bytes as f64 / 1e6
                );
            }
            outln!(
                o,
                "  {:<15} {:>9.0} MB/s ({:>6.0}) {:>6.1}% of checksum",
                f.name,
                f.median_mb_s(),
                f.best_mb_s(),
                self.ratio(f)
            );
        }
        self.text_speedups(o)?;
        self.text_footer(o)
    }

    /// The speedup lines of the text report (with threads only).
    fn text_speedups(&self, o: &mut Out<'_>) -> Result<()> {
        let threads = self.threads;
        let (speedup, best_speedup, copies, compute_speedup) = self.speedups();
        if let Some(x) = speedup {
            outln!(
                o,
                "read+decode on {threads} threads: {x:.2}x one thread (median of per-round ratios; each round times both back to back, each pass reading the files {} times)",
                copies.unwrap_or(1)
            );
        }
        if let Some(x) = compute_speedup {
            outln!(
                o,
                "register-only loop on {threads} threads: {x:.2}x one thread (the most any work gains from the threads on this machine now; timed the same way)"
            );
        }
        if let Some(x) = best_speedup {
            outln!(
                o,
                "read+decode on {threads} threads, fastest rounds: {x:.2}x (fastest one-thread round over fastest threaded round)"
            );
        }
        Ok(())
    }

    /// The last lines of the text report: the first read, the peak memory, the skipped
    /// files.
    fn text_footer(&self, o: &mut Out<'_>) -> Result<()> {
        outln!(
            o,
            "first read of every file (schemas, plans, own classes): {:.0} ms",
            self.cold.as_secs_f64() * 1e3
        );
        if let Some(k) = self.peak {
            outln!(
                o,
                "peak memory: {:.1} MiB ({:.2}x the input)",
                k as f64 / 1024.0,
                (k as f64 * 1024.0) / self.bytes() as f64
            );
        }
        if !self.skipped.is_empty() {
            outln!(
                o,
                "{} file(s) skipped: not a packfile, a TAG0 tagfile or an old binary tagfile (XML, other files)",
                self.skipped.len()
            );
        }
        Ok(())
    }
}
