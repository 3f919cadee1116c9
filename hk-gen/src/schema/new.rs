//! `hk schema new --from SRC --version V --roots CLASS... -o DIR`: a schema folder for a new
//! version, started from a neighbouring version's classes.
//!
//! It copies the closure of the roots (the roots, their parents, the classes their members
//! hold, point to or take enums from, and so on), drops every signature the copies state
//! (they are the old version's, and `hk schema verify` would take them as checked) and
//! writes a `generation.toml` with the new version. `hk schema explain` then says which
//! copied classes the new version's files disagree with.

use std::path::{Path, PathBuf};

use hk_runtime::file::{self, Container};
use hk_runtime::packfile::header::REFLECTION_CLASSES;
use hk_runtime::packfile::Packfile;
use hk_runtime::schema::{Class, Container as Kind};
use hk_runtime::Schema;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// What `hk schema new` makes.
#[derive(Clone, Debug)]
pub struct NewOptions {
    /// The folder to start from: a generation name under the schemas root, or a path.
    pub from: PathBuf,
    /// The new contents version (`hk_2011.1.0-r1`).
    pub version: String,
    /// The new packfile file version (default: the source's).
    pub file_version: Option<u32>,
    /// The new generation's name (default: the output folder's name).
    pub name: Option<String>,
    /// Root classes.
    pub roots: Vec<String>,
    /// Packfiles whose class-name tables add roots.
    pub roots_of: Vec<PathBuf>,
    /// The folder to write.
    pub out: PathBuf,
}

/// What `hk schema new` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    /// Distinct roots found in the source (with the reflection classes of a packfile
    /// generation).
    pub roots: usize,
    /// Classes written.
    pub classes: usize,
    /// Classes whose stated signature (or pinned one) was dropped.
    pub dropped: usize,
    /// Of those, the pinned ones.
    pub pinned: usize,
    /// Stated sizes, member offsets and notes dropped from the copies.
    pub stated: usize,
    /// Roots the source folder does not have.
    pub missing: Vec<String>,
}

/// `hk schema new`: writes the folder and prints a summary. Roots the source folder lacks
/// are named in a warning and the rest is written: a folder written is a success.
///
/// # Errors
/// The source does not load, a `--roots-of` file is not a packfile, the output folder
/// already holds a schema, or it cannot be written.
pub fn new(ctx: &Context, opts: &NewOptions, o: &mut Out<'_>) -> Result<Status> {
    let src = ctx.schema_arg(&opts.from)?;
    let mut roots: Vec<String> = opts.roots.clone();
    for f in &opts.roots_of {
        roots.extend(class_names(f)?);
    }
    if roots.is_empty() {
        return Err(Error::usage(
            "no roots: give --roots CLASS... or --roots-of FILE...",
        ));
    }
    let made = make(&src.schema, opts, &roots)?;
    let written =
        Schema::load(&opts.out).map_err(|d| Error::schema(opts.out.display().to_string(), d))?;
    let g = &written.generation;
    outln!(
        o,
        "wrote {} classes to {} (the closure of {} roots in {}): generation {}, file version {}, \"{}\", layout {}",
        made.classes,
        opts.out.display(),
        made.roots,
        src.label,
        g.name,
        g.file_version,
        g.contents_version,
        g.layout
    );
    outln!(
        o,
        "dropped the stated signatures of {} classes{}: no class of {} is checked against {} files yet",
        made.dropped,
        if made.pinned > 0 {
            format!(" ({} of them pinned)", made.pinned)
        } else {
            String::new()
        },
        opts.out.display(),
        g.contents_version
    );
    if !made.missing.is_empty() {
        warnln!(
            o,
            "{} roots are not in {}: {}; write their class files by hand (schemas/README.md)",
            made.missing.len(),
            src.label,
            made.missing.join(", ")
        );
    }
    if made.stated > 0 {
        outln!(
            o,
            "dropped {} stated sizes, offsets and notes: they were {}'s",
            made.stated,
            src.label
        );
    }
    outln!(
        o,
        "next: hk schema explain --schema {} FILE... (which classes the files disagree with, and why)",
        opts.out.display()
    );
    Ok(Status::Success)
}

/// Writes the folder: the closure of `roots` in `src` without stated signatures, and the new
/// generation file.
///
/// # Errors
/// As [`new`].
pub fn make(src: &Schema, opts: &NewOptions, roots: &[String]) -> Result<Made> {
    let out = &opts.out;
    if out.join("generation.toml").exists() || out.join("classes").exists() {
        return Err(Error::usage(format!(
            "{} already holds a schema folder; give -o a new folder",
            out.display()
        )));
    }
    let mut wanted: Vec<&str> = Vec::new();
    let mut missing = Vec::new();
    for r in roots {
        if src.class(r).is_none() {
            if !missing.contains(r) {
                missing.push(r.clone());
            }
        } else if !wanted.contains(&r.as_str()) {
            wanted.push(r);
        }
    }
    // A packfile writer names the reflection classes in every class-name section.
    for c in REFLECTION_CLASSES {
        if src.generation.container == Kind::Packfile
            && src.class(c).is_some()
            && !wanted.contains(&c)
        {
            wanted.push(c);
        }
    }
    let mut classes: Vec<Class> = src.closure(&wanted)?.into_iter().cloned().collect();
    let (mut dropped, mut pinned) = (0, 0);
    let mut stated = 0;
    for c in &mut classes {
        if c.expected_signature.is_some() || c.pinned.is_some() {
            dropped += 1;
        }
        // Stated sizes, offsets and notes are the neighbour's: `verify` would report its
        // sizes against the new version's layout, and the notes speak of its sources.
        stated += usize::from(c.expected_size.is_some() || c.note.is_some())
            + c.members
                .iter()
                .filter(|m| m.expected_offset.is_some())
                .count();
        c.expected_size = None;
        c.note = None;
        for m in &mut c.members {
            m.expected_offset = None;
        }
        pinned += usize::from(c.pinned.is_some());
        c.expected_signature = None;
        c.pinned = None;
        // A tagfile's type hash is a per-version constant too.
        c.hash = None;
    }
    let mut generation = src.generation.clone();
    generation.name = match &opts.name {
        Some(n) => n.clone(),
        None => out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| Error::usage(format!("-o {}: give a folder name", out.display())))?,
    };
    generation.contents_version = opts.version.clone();
    if let Some(v) = opts.file_version {
        generation.file_version = v;
    }
    let n = classes.len();
    let schema = Schema::new(generation, classes)
        .map_err(|d| Error::schema(out.display().to_string(), d))?;
    schema.to_folder(out)?;
    let gen_path = out.join("generation.toml");
    let text = std::fs::read_to_string(&gen_path).map_err(|e| Error::io(&gen_path, e))?;
    let head = format!(
        "# Made by `hk schema new` from {} ({}): the closure of {} roots, stated signatures\n\
         # dropped. `hk schema explain --schema DIR FILE` compares it with files of this version.\n",
        src.generation.name,
        src.generation.contents_version,
        wanted.len()
    );
    std::fs::write(&gen_path, head + &text).map_err(|e| Error::io(&gen_path, e))?;
    Ok(Made {
        roots: wanted.len(),
        classes: n,
        dropped,
        pinned,
        stated,
        missing,
    })
}

/// The classes a packfile's class-name table names, in file order.
///
/// # Errors
/// The file cannot be read or is not a packfile.
pub fn class_names(path: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    match file::detect(&bytes) {
        Some(Container::Packfile) => {}
        Some(Container::Tagfile | Container::BinaryTagfile) => {
            return Err(Error::usage(format!(
                "{}: a tagfile carries its own types; `hk schema extract` writes them as a folder",
                path.display()
            )))
        }
        None => {
            return Err(
                hk_runtime::Error::read(hk_runtime::error::ReadError::BadMagic)
                    .at(0)
                    .in_file(path)
                    .into(),
            )
        }
    }
    let pf = Packfile::parse(&bytes).map_err(|e| e.in_file(path))?;
    Ok(pf.class_names.iter().map(|c| c.name.to_string()).collect())
}
