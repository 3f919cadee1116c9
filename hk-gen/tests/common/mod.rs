//! Helpers shared by the `hk` binary's tests.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The corpus, or `None` after saying so; under `CI=true` a missing corpus fails.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("HK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus"));
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "corpus missing at {} under CI=true",
        dir.display()
    );
    // Straight to the process's stderr: the harness captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: corpus not found at {}",
        dir.display()
    );
    None
}
