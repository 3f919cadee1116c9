//! Printing that ends quietly when the reader of stdout goes away (`hk info | head`).

use std::io::Write;

/// Prints `text` and a newline; exits 0 if stdout is closed.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{text}").is_err() {
        std::process::exit(0);
    }
}

/// `println!` that exits quietly on a closed stdout.
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::out::print(&format!($($t)*))
    };
}
pub(crate) use outln;
