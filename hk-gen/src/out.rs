//! Where commands print: an output stream for results and one for warnings, so the library
//! can print to a terminal or into a buffer (tests).

use std::fmt;
use std::io::Write;

use crate::error::{Error, Result};

/// A command's output: results to `out` (stdout), warnings to `err` (stderr).
pub struct Out<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
}

impl fmt::Debug for Out<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Out")
    }
}

impl<'a> Out<'a> {
    /// Results to `out`, warnings to `err`.
    pub fn new(out: &'a mut dyn Write, err: &'a mut dyn Write) -> Self {
        Out { out, err }
    }

    /// Prints a line of results.
    ///
    /// # Errors
    /// [`Error::Output`] when the stream refuses it (a closed pipe).
    pub fn line(&mut self, args: fmt::Arguments<'_>) -> Result<()> {
        writeln!(self.out, "{args}").map_err(Error::Output)
    }

    /// Prints text as it is (no newline added).
    ///
    /// # Errors
    /// As [`Out::line`].
    pub fn text(&mut self, text: &str) -> Result<()> {
        self.out.write_all(text.as_bytes()).map_err(Error::Output)
    }

    /// The results stream, for output written in pieces (a dump streamed as it is made).
    pub fn results(&mut self) -> &mut dyn Write {
        &mut *self.out
    }

    /// Prints `warning: ...` to the warning stream.
    ///
    /// # Errors
    /// As [`Out::line`].
    pub fn warn(&mut self, args: fmt::Arguments<'_>) -> Result<()> {
        writeln!(self.err, "warning: {args}").map_err(Error::Output)
    }

    /// Prints `error: ...` to the warning stream: an input a command over several inputs
    /// could not read or check (it goes on with the others and ends with exit status 2).
    ///
    /// # Errors
    /// As [`Out::line`].
    pub fn error(&mut self, args: fmt::Arguments<'_>) -> Result<()> {
        writeln!(self.err, "error: {args}").map_err(Error::Output)
    }

    /// Prints a line to the warning stream as it is.
    ///
    /// # Errors
    /// As [`Out::line`].
    pub fn note(&mut self, args: fmt::Arguments<'_>) -> Result<()> {
        writeln!(self.err, "{args}").map_err(Error::Output)
    }

    /// Flushes both streams.
    ///
    /// # Errors
    /// As [`Out::line`].
    pub fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(Error::Output)?;
        self.err.flush().map_err(Error::Output)
    }
}

/// `outln!(o, "...", args)`: a line of results, `?` on failure.
macro_rules! outln {
    ($o:expr, $($t:tt)*) => {
        $o.line(format_args!($($t)*))?
    };
}

/// `warnln!(o, "...", args)`: a `warning:` line on the warning stream, `?` on failure.
macro_rules! warnln {
    ($o:expr, $($t:tt)*) => {
        $o.warn(format_args!($($t)*))?
    };
}

pub(crate) use {outln, warnln};
