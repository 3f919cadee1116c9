//! Printing that ends quietly when the reader of stdout goes away (`hk dump | head`).

use std::io::Write;

/// Prints `text` and a newline; exits 0 if stdout is closed.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{text}").is_err() {
        std::process::exit(0);
    }
}
