//! `hk convert IN... -o OUT --layout L`: packfiles rewritten for another platform's layout
//! rules, through the object graph ([`hk_runtime::convert`]). A folder is converted into a
//! mirror of its tree, in parallel, with a progress bar on a terminal.

use std::path::{Path, PathBuf};

use hk_runtime::file::{self, Container};
use hk_runtime::LayoutRules;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::roundtrip::collect;
use crate::Status;

/// The platforms `--layout` knows by name: `(name, layout digits, evidence)`. The digits
/// are pointer size, little endian, reuse padding, empty base, as in the `[4011]` names of
/// the Havok demo files (docs/packfile-format.md §2.2).
pub const PRESETS: &[(&str, &str, &str)] = &[
    ("ps3", "4011", "Demon's Souls (PS3) files"),
    ("xbox360", "4001", "the SDK's big-endian files without reuse padding (MSVC rules); no Xbox 360 game file checked"),
    ("wiiu", "4001", "BotW (Wii U) files"),
    ("win32", "4101", "Dark Souls (PC) files"),
    ("win64", "8101", "Dark Souls 3 (PC) files"),
    ("ps4", "8111", "Bloodborne (PS4) files"),
    ("switch", "8111", "clang rules, as on PS4; no Switch packfile checked"),
];

/// The rules `--layout` names: four digits or a preset.
///
/// # Errors
/// Neither.
pub fn layout(arg: &str) -> Result<LayoutRules> {
    let tag = PRESETS
        .iter()
        .find(|p| p.0.eq_ignore_ascii_case(arg))
        .map_or(arg, |p| p.1);
    LayoutRules::from_tag(tag).ok_or_else(|| {
        let names: Vec<String> = PRESETS.iter().map(|p| format!("{} ({})", p.0, p.1)).collect();
        Error::usage(format!(
            "--layout {arg}: not four layout digits (pointer size 4 or 8, then little endian, reuse padding, empty base as 0/1, e.g. 4011) nor a platform: {}",
            names.join(", ")
        ))
    })
}

/// How `hk convert` runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The output file (one input file) or folder.
    pub out: PathBuf,
    /// The target rules.
    pub layout: LayoutRules,
    /// Read files that break the format's invariants.
    pub lenient: bool,
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

/// Converts one file's bytes.
///
/// # Errors
/// The file does not read, or does not convert.
pub fn convert_bytes(ctx: &Context, data: &[u8], opts: &Options) -> Result<Vec<u8>> {
    let mut doc = ctx.open_file_or_xml(data, opts.lenient)?;
    Ok(hk_runtime::convert::convert(&mut doc, opts.layout)?)
}

/// Where input `f` (found under `root`, or given by name when `root` is `None`) goes.
fn target(f: &Path, root: Option<&Path>, out: &Path) -> PathBuf {
    match root.and_then(|r| f.strip_prefix(r).ok()) {
        Some(rel) => out.join(rel),
        None => out.join(f.file_name().unwrap_or_default()),
    }
}

/// `hk convert`: every input file (folders searched; tagfiles, old binary tagfiles and
/// other files found there are left out, and counted) converted under `opts.out`.
///
/// # Errors
/// No input, an output that cannot be written, or files that did not convert (each
/// reported on stderr as it fails).
pub fn run(ctx: &Context, paths: &[PathBuf], opts: &Options, o: &mut Out<'_>) -> Result<Status> {
    // One file in, one file out.
    if let [single] = paths {
        if !single.is_dir() {
            let data = std::fs::read(single).map_err(|e| Error::io(single, e))?;
            let bytes = convert_bytes(ctx, &data, opts).map_err(|e| e.in_file(single))?;
            std::fs::write(&opts.out, &bytes).map_err(|e| Error::io(&opts.out, e))?;
            outln!(
                o,
                "wrote {} ({} bytes, {})",
                opts.out.display(),
                bytes.len(),
                opts.layout
            );
            return Ok(Status::Success);
        }
    }
    let mut jobs: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut tagfiles = 0;
    let mut binary = 0;
    for p in paths {
        let root = p.is_dir().then_some(p.as_path());
        for (f, named) in collect(std::slice::from_ref(p)) {
            if !named {
                // Found in a folder: packfiles only (tagfiles have one layout, old binary
                // tagfiles none; other files are not Havok's).
                match std::fs::read(&f).ok().as_deref().and_then(file::detect) {
                    Some(Container::Packfile) => {}
                    Some(Container::Tagfile) => {
                        tagfiles += 1;
                        continue;
                    }
                    Some(Container::BinaryTagfile) => {
                        binary += 1;
                        continue;
                    }
                    None => continue,
                }
            }
            let to = target(&f, root, &opts.out);
            jobs.push((f, to));
        }
    }
    if tagfiles > 0 {
        outln!(
            o,
            "left out {tagfiles} tagfile(s): tagfiles have one layout on every platform"
        );
    }
    if binary > 0 {
        outln!(
            o,
            "left out {binary} old binary tagfile(s): they store values, not a platform layout"
        );
    }
    if jobs.is_empty() {
        return Err(Error::usage("no Havok files found"));
    }
    let bar = ProgressBar::new(jobs.len() as u64);
    if opts.progress {
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar.set_draw_target(ProgressDrawTarget::stderr());
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let failures: Vec<Error> = jobs
        .par_iter()
        .filter_map(|(f, to)| {
            let r = (|| {
                let data = std::fs::read(f).map_err(|e| Error::io(f, e))?;
                let bytes = convert_bytes(ctx, &data, opts).map_err(|e| e.in_file(f))?;
                if let Some(dir) = to.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                }
                std::fs::write(to, &bytes).map_err(|e| Error::io(to, e))
            })();
            bar.inc(1);
            if let Err(e) = &r {
                bar.suspend(|| eprintln!("error: {e}"));
            }
            r.err()
        })
        .collect();
    bar.finish_and_clear();
    let done = jobs.len() - failures.len();
    outln!(
        o,
        "converted {done}/{} files to {} ({}) under {}",
        jobs.len(),
        opts.layout.tag(),
        opts.layout,
        opts.out.display()
    );
    if failures.is_empty() {
        Ok(Status::Success)
    } else {
        Err(Error::Batch {
            failed: failures.len(),
            total: jobs.len(),
        })
    }
}
