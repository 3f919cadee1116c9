//! `hk schema check [--schema DIR] FILE...`: a schema against files. Packfiles: the
//! signatures stored in `__classnames__`, the offsets and sizes of the file's own
//! `__types__` metadata, and whether every pointer fixup lands on a pointer member.
//! Tagfiles: every record's size, member offsets and member flags in the type table. Old
//! binary tagfiles state no sizes or offsets: each is an error naming it, and the others
//! are still checked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hk_runtime::file::{self, Container, How, SchemaChoice};
use hk_runtime::packfile::check::{pointer_slots, signatures, Report};
use hk_runtime::packfile::{metadata, Packfile};
use hk_runtime::schema::report::{stored_layout, LayoutRow, Verdict};
use hk_runtime::tagfile::TagFile;
use hk_runtime::Schema;

use super::{hex, row_path};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// Checks `files` against `schema` (default: the generation each file's version matches);
/// prints a table per file. A file that cannot be read or checked is an error on the
/// error stream, and the others are still checked: [`Status::Error`] then, else
/// [`Status::Failure`] on any mismatch.
///
/// # Errors
/// A schema that does not load, or output that cannot be written.
pub fn check(
    ctx: &Context,
    schema: Option<&Path>,
    quiet: bool,
    files: &[PathBuf],
    o: &mut Out<'_>,
) -> Result<Status> {
    let given = schema.map(|s| ctx.schema_arg(s)).transpose()?;
    let (mut failed, mut errors) = (0, 0);
    let mut all_tagfiles = true;
    for f in files {
        let given = given
            .as_ref()
            .map(|n| (Arc::clone(&n.schema), n.label.clone()));
        let outcome = std::fs::read(f)
            .map_err(|e| Error::io(f, e))
            .and_then(|bytes| {
                let kind = file::detect(&bytes);
                all_tagfiles &= kind == Some(Container::Tagfile);
                match kind {
                    Some(Container::Packfile) => packfile(ctx, given, quiet, f, &bytes, o),
                    Some(Container::Tagfile) => tagfile(ctx, given, quiet, f, &bytes, o),
                    // Nothing to check: an error, as for any input that cannot be checked.
                    Some(Container::BinaryTagfile) => Err(Error::usage(format!(
                        "{}: an old binary tagfile states no sizes or offsets to check (`hk schema extract` writes its classes)",
                        f.display()
                    ))),
                    None => Err(
                        hk_runtime::Error::read(hk_runtime::error::ReadError::BadMagic)
                            .at(0)
                            .in_file(f)
                            .into(),
                    ),
                }
            });
        match outcome {
            Ok(ok) => failed += usize::from(!ok),
            Err(e @ Error::Output(_)) => return Err(e),
            Err(e) => {
                errors += 1;
                o.error(format_args!("{}", in_file(e, f)))?;
            }
        }
    }
    let what = if all_tagfiles { "tagfiles" } else { "files" };
    if files.len() > 1 {
        outln!(
            o,
            "{}/{} {what} agree with their schema{}",
            files.len() - failed - errors,
            files.len(),
            if errors > 0 {
                format!(" ({errors} could not be checked)")
            } else {
                String::new()
            }
        );
    }
    Ok(Status::of(errors, failed))
}

/// `e` naming `file`, when it does not already.
fn in_file(e: Error, file: &Path) -> Error {
    match e {
        Error::Runtime(r) => Error::Runtime(r.in_file(file)),
        e => e,
    }
}

/// The schema given, or the generation `choose` picks; a fallback is a warning.
fn schema_for(
    given: Option<(Arc<Schema>, String)>,
    file: &Path,
    choose: impl FnOnce() -> Result<(Arc<Schema>, SchemaChoice)>,
    o: &mut Out<'_>,
) -> Result<(Arc<Schema>, String)> {
    if let Some(g) = given {
        return Ok(g);
    }
    let (schema, choice) = choose()?;
    match choice.how() {
        How::Exact => {}
        _ if choice.warning().is_some() => warnln!(
            o,
            "{}: no schema folder passes for this file's version; checking against {}",
            file.display(),
            choice.describe()
        ),
        _ => o.note(format_args!(
            "{}: checking against {}",
            file.display(),
            choice.describe()
        ))?,
    }
    Ok((schema, hk_runtime::dump::schema_name(&choice).to_string()))
}

/// Every check of one packfile against `schema`.
///
/// # Errors
/// Malformed class metadata or array headers.
pub fn check_packfile(schema: &Schema, pf: &Packfile<'_>) -> Result<Report> {
    let mut report = Report {
        signatures: signatures(schema, pf),
        ..Report::default()
    };
    if let Some(described) = metadata::extract(pf, schema)? {
        report.layout = stored_layout(schema, &described);
    }
    report.slots = pointer_slots(schema, pf)?;
    Ok(report)
}

fn packfile(
    ctx: &Context,
    given: Option<(Arc<Schema>, String)>,
    quiet: bool,
    file: &Path,
    bytes: &[u8],
    o: &mut Out<'_>,
) -> Result<bool> {
    let pf = Packfile::parse(bytes).map_err(|e| e.in_file(file))?;
    let (schema, label) = schema_for(given, file, || ctx.generation_of(&pf), o)?;
    let report = check_packfile(&schema, &pf).map_err(|e| in_file(e, file))?;
    print_report(file, &label, &pf, &report, quiet, o)?;
    Ok(report.ok())
}

fn tagfile(
    ctx: &Context,
    given: Option<(Arc<Schema>, String)>,
    quiet: bool,
    file: &Path,
    bytes: &[u8],
    o: &mut Out<'_>,
) -> Result<bool> {
    let tf = TagFile::parse(bytes).map_err(|e| e.in_file(file))?;
    let (schema, label) = schema_for(
        given,
        file,
        || {
            ctx.tagfile_generation(&tf.sdk_version)
                .map_err(|e| match e {
                    Error::Runtime(r) => Error::Runtime(r.in_file(file)),
                    e => e,
                })
        },
        o,
    )?;
    let rows = hk_runtime::tagfile::schema::check(&schema, &tf);
    let pick = |flags: Option<bool>| {
        let sel: Vec<_> = rows
            .iter()
            .filter(|r| match (flags, r.member.as_deref()) {
                (None, m) => m.is_none(),
                (Some(fl), Some(m)) => m.ends_with("#flags") == fl,
                (Some(_), None) => false,
            })
            .collect();
        let ok = sel.iter().filter(|r| r.verdict == Verdict::Match).count();
        format!("{ok}/{}", sel.len())
    };
    let bad: Vec<&LayoutRow> = rows
        .iter()
        .filter(|r| r.verdict != Verdict::Match)
        .collect();
    outln!(
        o,
        "{} [tagfile {}] vs {label}: sizes {}, member offsets {}, member flags {} → {}",
        file.display(),
        tf.sdk_version,
        pick(None),
        pick(Some(false)),
        pick(Some(true)),
        if bad.is_empty() { "ok" } else { "MISMATCH" }
    );
    if !quiet {
        for r in &bad {
            outln!(
                o,
                "  {}: stored 0x{:X}, computed {}",
                row_path(r),
                r.stored,
                hex(r.computed)
            );
        }
    }
    Ok(bad.is_empty())
}

fn count<T>(rows: &[T], ok: impl Fn(&T) -> bool) -> (usize, usize) {
    (rows.iter().filter(|r| ok(r)).count(), rows.len())
}

fn print_report(
    file: &Path,
    label: &str,
    pf: &Packfile<'_>,
    r: &Report,
    quiet: bool,
    o: &mut Out<'_>,
) -> Result<()> {
    let (sig_ok, sig_n) = count(&r.signatures, |x| x.verdict.ok());
    let pinned = r
        .signatures
        .iter()
        .filter(|x| x.verdict == Verdict::Pinned)
        .count();
    let sizes: Vec<_> = r.layout.iter().filter(|x| x.member.is_none()).collect();
    let offs: Vec<_> = r.layout.iter().filter(|x| x.member.is_some()).collect();
    let (size_ok, size_n) = count(&sizes, |x| x.verdict.ok());
    let (off_ok, off_n) = count(&offs, |x| x.verdict.ok());
    let s = &r.slots;
    outln!(
        o,
        "{} [{} {}] vs {label}: signatures {sig_ok}/{sig_n}{}; metadata sizes {size_ok}/{size_n}, offsets {off_ok}/{off_n}; pointer fixups on slots {}/{}, object sizes {}/{} → {}",
        file.display(),
        pf.header.contents_version(),
        pf.rules(),
        if pinned > 0 { format!(" ({pinned} pinned)") } else { String::new() },
        s.on_slots,
        s.fixups,
        s.bodies_ok,
        s.bodies,
        if r.ok() { "ok" } else { "MISMATCH" }
    );
    if quiet {
        return Ok(());
    }
    outln!(
        o,
        "  {:<48} {:>10} {:>10} {:>10}  verdict",
        "class",
        "stored",
        "computed",
        "pinned"
    );
    for row in &r.signatures {
        let hex8 = |v: Option<u32>| v.map_or("-".to_string(), |v| format!("0x{v:08X}"));
        outln!(
            o,
            "  {:<48} 0x{:08X} {:>10} {:>10}  {}",
            row.class,
            row.stored,
            hex8(row.computed),
            hex8(row.pinned),
            row.verdict.label()
        );
    }
    let bad: Vec<_> = r.layout.iter().filter(|x| !x.verdict.ok()).collect();
    if !r.layout.is_empty() {
        outln!(
            o,
            "  metadata: {} rows, {} disagree",
            r.layout.len(),
            bad.len()
        );
        for row in bad {
            outln!(
                o,
                "    {}: stored 0x{:X}, computed {}  {}",
                row_path(row),
                row.stored,
                hex(row.computed),
                row.verdict.label()
            );
        }
    }
    if s.bodies > 0 {
        outln!(
            o,
            "  object sizes: {} of the {} objects that own arrays or strings end, at their class's computed size padded to 16, where that data starts",
            s.bodies_ok,
            s.bodies
        );
    }
    for m in s.body_misses.iter().take(20) {
        outln!(
            o,
            "    {} at __data__+0x{:X}: computed size 0x{:X} ends at +0x{:X} (padded to 16), its data starts at +0x{:X}",
            m.class,
            m.offset,
            m.size,
            m.body_end,
            m.data_start
        );
    }
    for (off, owner) in s.strays.iter().take(20) {
        outln!(
            o,
            "  fixup at __data__+0x{off:X} (object {owner}) is on no pointer member"
        );
    }
    if !s.unknown_objects.is_empty() {
        let mut u = s.unknown_objects.clone();
        u.sort();
        u.dedup();
        outln!(o, "  objects of classes the schema lacks: {}", u.join(", "));
    }
    Ok(())
}
