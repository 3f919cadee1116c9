//! `hk convert IN... -o OUT --layout L`: packfiles rewritten for another platform's layout
//! rules, through the object graph ([`hk_runtime::convert`]). A folder is converted into a
//! mirror of its tree (found by [`crate::walk`]), in parallel, with a progress bar on a
//! terminal; `--in-place` replaces each input instead. Outputs follow [`crate::outputs`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use hk_runtime::file::{self, Container};
use hk_runtime::LayoutRules;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::outputs::Outputs;
use crate::walk::walk;
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
    /// The output file (one input file) or folder; `None` with `in_place`.
    pub out: Option<PathBuf>,
    /// Replace each input with its conversion (written beside it, then renamed over it).
    pub in_place: bool,
    /// The target rules.
    pub layout: LayoutRules,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Follow symbolic links found in folders ([`crate::walk`]).
    pub follow_symlinks: bool,
}

/// Converts one file's bytes, read as the context says ([`Context::read_options`]).
///
/// # Errors
/// The file does not read, or does not convert.
pub fn convert_bytes(ctx: &Context, data: &[u8], opts: &Options) -> Result<Vec<u8>> {
    let mut doc = ctx.open_file_or_xml(data)?;
    Ok(hk_runtime::convert::convert(&mut doc, opts.layout)?)
}

/// Where input `f` (found under `root`, or given by name when `root` is `None`) goes
/// under the output folder: its path below `root`, or its name.
fn target(f: &Path, root: Option<&Path>) -> PathBuf {
    match root.and_then(|r| f.strip_prefix(r).ok()) {
        Some(rel) => rel.to_path_buf(),
        None => PathBuf::from(f.file_name().unwrap_or_default()),
    }
}

/// The output folder or file, or the usage error of neither or both.
fn out_of(opts: &Options) -> Result<Option<&Path>> {
    match (&opts.out, opts.in_place) {
        (Some(out), false) => Ok(Some(out)),
        (None, true) => Ok(None),
        _ => Err(Error::usage(
            "give either -o/--out (a file or folder to write) or --in-place (replace the inputs)",
        )),
    }
}

/// The rule for the outputs of a run reading `inputs`.
fn outputs<P: AsRef<Path>>(inputs: impl IntoIterator<Item = P>, opts: &Options) -> Outputs {
    Outputs::reading(inputs)
        .in_place(opts.in_place)
        .hint(", or --in-place to replace the inputs")
}

/// `hk convert`: every input file (folders searched; tagfiles, old binary tagfiles and
/// other files found there are left out, and counted) converted under `opts.out`, or in
/// place. Every output is checked before the first is written ([`crate::outputs`]: none is
/// written through a symbolic link or over an input, unless in place).
///
/// # Errors
/// No input, `-o` and `--in-place` both or neither, a folder that cannot be searched, an
/// output refused or that cannot be written, or files that did not convert (each reported
/// on stderr as it fails).
pub fn run(ctx: &Context, paths: &[PathBuf], opts: &Options, o: &mut Out<'_>) -> Result<Status> {
    let out = out_of(opts)?;
    // One file in, one file out.
    if let [single] = paths {
        if !single.is_dir() {
            let to = out.unwrap_or(single);
            let outputs = outputs([single], opts);
            outputs.check(to)?;
            let data = std::fs::read(single).map_err(|e| Error::io(single, e))?;
            let bytes = convert_bytes(ctx, &data, opts).map_err(|e| e.in_file(single))?;
            outputs.write(to, &bytes)?;
            outln!(
                o,
                "wrote {} ({} bytes, {})",
                to.display(),
                bytes.len(),
                opts.layout
            );
            return Ok(Status::Success);
        }
    }
    let walk = walk(paths, opts.follow_symlinks)?;
    walk.warn(o)?;
    // (input, output folder, path below it)
    let mut jobs: Vec<(PathBuf, PathBuf, PathBuf)> = Vec::new();
    let mut tagfiles = 0;
    let mut binary = 0;
    for (f, named) in walk.files {
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
        let (root, rel) = match out {
            Some(out) => {
                let root = paths.iter().find(|p| p.is_dir() && f.starts_with(p));
                (out.to_path_buf(), target(&f, root.map(PathBuf::as_path)))
            }
            None => (
                f.parent().unwrap_or(Path::new("")).to_path_buf(),
                PathBuf::from(f.file_name().unwrap_or_default()),
            ),
        };
        jobs.push((f, root, rel));
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
    let outputs = outputs(jobs.iter().map(|j| &j.0), opts);
    check_targets(&jobs, &outputs)?;
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
        .filter_map(|(f, root, rel)| {
            let r = (|| {
                let data = std::fs::read(f).map_err(|e| Error::io(f, e))?;
                let bytes = convert_bytes(ctx, &data, opts).map_err(|e| e.in_file(f))?;
                outputs.write_under(root, rel, &bytes)
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
    let place = match out {
        Some(out) => format!("under {}", out.display()),
        None => "in place".to_string(),
    };
    outln!(
        o,
        "converted {done}/{} files to {} ({}) {place}",
        jobs.len(),
        opts.layout.tag(),
        opts.layout
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

/// Refuses, before anything is written, two inputs that go to one output and an output
/// the rule refuses.
fn check_targets(jobs: &[(PathBuf, PathBuf, PathBuf)], outputs: &Outputs) -> Result<()> {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for (_, root, rel) in jobs {
        let to = root.join(rel);
        if !seen.insert(to.clone()) {
            return Err(Error::usage(format!(
                "two inputs would both be written to {}",
                to.display()
            )));
        }
        outputs.check_under(root, rel)?;
    }
    Ok(())
}
