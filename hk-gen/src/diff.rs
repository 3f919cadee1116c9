//! `hk diff A B`: member-by-member differences between two files' objects.

use std::path::Path;

use crate::context::Context;
use crate::error::Result;
use crate::out::{outln, warnln, Out};
use crate::Status;

/// How many differences `hk diff` prints before it only counts.
pub const SHOWN: usize = 200;

/// Prints the differences between the files at `a` and `b` (read leniently, so files
/// that break an invariant still compare); [`Status::Failure`] when there are any.
///
/// # Errors
/// A file that does not read.
pub fn diff(ctx: &Context, a: &Path, b: &Path, o: &mut Out<'_>) -> Result<Status> {
    let read = ctx.read_options().with_lenient(true);
    let da = ctx.open_with(a, read)?;
    let db = ctx.open_with(b, read)?;
    for (path, doc) in [(a, &da), (b, &db)] {
        if let Some(w) = doc.schema.warning() {
            warnln!(o, "{}: {w}", path.display());
        }
    }
    let d = hk_runtime::diff::diff(&da, &db, SHOWN);
    for l in &d.lines {
        outln!(o, "{l}");
    }
    if d.total > d.lines.len() {
        outln!(o, "... and {} more", d.total - d.lines.len());
    }
    outln!(o, "{} difference(s)", d.total);
    Ok(Status::from_ok(d.total == 0))
}
