//! `hk schema record DIR FILE...`: states, in each class file of the folder DIR, the
//! signature the files store for that class, when DIR's description of the class computes
//! it; lists the classes whose description still computes another value.
//!
//! Only `signature = "0x…"` of an existing `DIR/classes/<Class>.toml` is written; the rest
//! of the file (comments, order, layout) is kept as it is (`toml_edit`). Class names come
//! from DIR's own files, and each is checked as a plain file name before it names one
//! (as `hk schema extract` and every schema writer do). Nothing is written unless every
//! file reads.
//!
//! Exit status: 0 when the folder was updated, whether or not some classes still disagree
//! (those are a report: `hk schema explain` says why); 2 when a file or the folder cannot
//! be read or written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hk_runtime::packfile::check::signatures;
use hk_runtime::schema::names;
use hk_runtime::schema::report::Verdict;
use hk_runtime::Schema;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// A stored signature and the first file that stores it.
#[derive(Clone, Debug)]
struct Stored {
    value: u32,
    file: PathBuf,
    verdict: Verdict,
    computed: Option<u32>,
}

/// What `hk schema record` found, class by class.
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    /// Classes whose signature was written: `(class, value, replaced a different one)`.
    pub written: Vec<(String, u32, bool)>,
    /// Classes that already stated the stored value.
    pub already: usize,
    /// Classes DIR pins to the stored value while its description computes another.
    pub pinned: Vec<String>,
    /// Classes whose description computes another value: `(class, stored, computed)`.
    pub disagree: Vec<(String, u32, Option<u32>)>,
    /// Classes the files store that DIR has no file for.
    pub absent: Vec<String>,
    /// Classes the files store with different values: `(class, [(value, file)])`.
    pub conflicts: Vec<(String, Vec<(u32, PathBuf)>)>,
}

/// `hk schema record DIR FILE...`: writes the signatures and prints what it did.
///
/// # Errors
/// DIR is not a schema folder or does not load, a file cannot be read or is not a
/// packfile, a class file cannot be edited or written, or the folder no longer loads
/// afterwards.
pub fn record(ctx: &Context, dir: &Path, files: &[PathBuf], o: &mut Out<'_>) -> Result<Status> {
    if !dir.join("generation.toml").is_file() {
        return Err(Error::usage(format!(
            "{}: not a schema folder (no generation.toml); `hk schema record` writes into the folder given as a path (a built-in generation is not written: copy its folder first)",
            dir.display()
        )));
    }
    let schema = ctx.schema_arg(dir)?.schema;
    let r = compare(&schema, files)?;
    for (class, value, _) in &r.written {
        write_signature(dir, class, *value)?;
    }
    // The edited folder must still load, and verify must now check what was written.
    Schema::load(dir).map_err(|d| Error::schema(dir.display().to_string(), d))?;
    report(dir, files, &r, o)?;
    Ok(Status::Success)
}

/// The stored signatures of `files` against `schema`: what to write and what disagrees.
///
/// # Errors
/// A file that cannot be read or is not a packfile.
fn compare(schema: &Schema, files: &[PathBuf]) -> Result<Recorded> {
    let mut stored: BTreeMap<String, Vec<Stored>> = BTreeMap::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| Error::io(f, e))?;
        let pf = super::packfile_of(f, &bytes)?;
        for row in signatures(schema, &pf) {
            let seen = stored.entry(row.class).or_default();
            if !seen.iter().any(|s| s.value == row.stored) {
                seen.push(Stored {
                    value: row.stored,
                    file: f.clone(),
                    verdict: row.verdict,
                    computed: row.computed,
                });
            }
        }
    }
    let mut r = Recorded::default();
    for (class, values) in stored {
        let [s] = &values[..] else {
            r.conflicts.push((
                class,
                values.into_iter().map(|s| (s.value, s.file)).collect(),
            ));
            continue;
        };
        match s.verdict {
            Verdict::Match => {
                let stated = schema.class(&class).and_then(|c| c.expected_signature);
                if stated == Some(s.value) {
                    r.already += 1;
                } else {
                    r.written.push((class, s.value, stated.is_some()));
                }
            }
            Verdict::Pinned => r.pinned.push(class),
            Verdict::Mismatch => r.disagree.push((class, s.value, s.computed)),
            Verdict::Missing => r.absent.push(class),
        }
    }
    Ok(r)
}

/// Sets `signature` in `dir/classes/<class>.toml`, keeping the rest of the file.
///
/// # Errors
/// A class name that makes no plain file name, a class file that is not a regular file
/// (a symbolic link is not followed out of the folder), or one that cannot be read,
/// parsed or written.
fn write_signature(dir: &Path, class: &str, value: u32) -> Result<()> {
    let name = names::file_name(class, "toml")
        .map_err(|m| Error::from(hk_runtime::Error::schema(m).in_file(dir.join("classes"))))?;
    let path = dir.join("classes").join(name);
    let meta = std::fs::symlink_metadata(&path).map_err(|e| Error::io(&path, e))?;
    if !meta.file_type().is_file() {
        return Err(Error::usage(format!(
            "{}: not a regular file; `hk schema record` writes only the class files of the folder",
            path.display()
        )));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::usage(format!("{}: {e}", path.display())))?;
    doc["signature"] = toml_edit::value(format!("0x{value:08X}"));
    std::fs::write(&path, doc.to_string()).map_err(|e| Error::io(&path, e))
}

fn report(dir: &Path, files: &[PathBuf], r: &Recorded, o: &mut Out<'_>) -> Result<()> {
    let replaced = r.written.iter().filter(|w| w.2).count();
    outln!(
        o,
        "{}: recorded {} stored signatures{}; {} already stated; {} disagree",
        dir.display(),
        r.written.len(),
        if replaced > 0 {
            format!(" ({replaced} replacing another stated value)")
        } else {
            String::new()
        },
        r.already,
        r.disagree.len() + r.conflicts.len()
    );
    for (class, value, was) in &r.written {
        outln!(
            o,
            "  {class}: signature = \"0x{value:08X}\"{}",
            if *was { " (replaced)" } else { "" }
        );
    }
    if !r.pinned.is_empty() {
        outln!(
            o,
            "pinned to the stored value, description computes another (left as they are): {}",
            r.pinned.join(", ")
        );
    }
    if !r.disagree.is_empty() {
        outln!(
            o,
            "{} classes still disagree (stored, computed); nothing was written for them:",
            r.disagree.len()
        );
        for (class, stored, computed) in &r.disagree {
            outln!(
                o,
                "  {class}: stored 0x{stored:08X}, {} computes {}",
                dir.display(),
                computed.map_or("nothing (its description is broken)".to_string(), |v| {
                    format!("0x{v:08X}")
                })
            );
        }
    }
    for (class, values) in &r.conflicts {
        let list: Vec<String> = values
            .iter()
            .map(|(v, f)| format!("0x{v:08X} in {}", f.display()))
            .collect();
        warnln!(
            o,
            "{class} is stored with different signatures ({}): files of different versions? nothing was written for it",
            list.join(", ")
        );
    }
    if !r.absent.is_empty() {
        outln!(
            o,
            "{} classes the files store are not in {}: {}",
            r.absent.len(),
            dir.display(),
            r.absent.join(", ")
        );
    }
    if !r.disagree.is_empty() || !r.absent.is_empty() {
        let shown: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        outln!(
            o,
            "next: hk schema explain --schema {} {} (why each disagrees; schemas/README.md, \"Adding a version when files carry only signatures\"), edit those class files, and run hk schema record again",
            dir.display(),
            shown.join(" ")
        );
    }
    Ok(())
}
