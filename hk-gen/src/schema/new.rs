//! `hk schema new --from SRC... --version V --roots CLASS... -o DIR`: a schema folder for a
//! new version, started from neighbouring versions' classes.
//!
//! It copies the closure of the roots (the roots, their parents, the classes their members
//! hold, point to or take enums from, and so on), each class from the first source folder
//! that has it, drops every signature the copies state (they are the old version's, and
//! `hk schema verify` would take them as checked) with their stated sizes, offsets and
//! notes, and writes a `generation.toml` with the new version: the first source's member
//! types, and the layout bytes, file version and string boundary of the `--roots-of`
//! files. `hk schema explain` then says which copied classes the new version's files
//! disagree with, and `hk schema record` states the signatures that agree.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hk_runtime::file::{self, Container};
use hk_runtime::packfile::header::REFLECTION_CLASSES;
use hk_runtime::packfile::Packfile;
use hk_runtime::schema::{Class, Container as Kind};
use hk_runtime::{LayoutRules, Schema};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// What `hk schema new` makes.
#[derive(Clone, Debug)]
pub struct NewOptions {
    /// The folders to start from, in order of preference: generation names under the
    /// schemas root, or paths. Each class is taken from the first that has it.
    pub from: Vec<PathBuf>,
    /// The new contents version (`hk_2011.1.0-r1`).
    pub version: String,
    /// The new packfile file version (default: the first `--roots-of` file's, else the
    /// first source's).
    pub file_version: Option<u32>,
    /// The new generation's name (default: the output folder's name).
    pub name: Option<String>,
    /// Root classes.
    pub roots: Vec<String>,
    /// Packfiles whose class-name tables add roots, and whose headers give the layout.
    pub roots_of: Vec<PathBuf>,
    /// The folder to write.
    pub out: PathBuf,
}

/// What `hk schema new` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    /// Distinct roots found in the sources (with the reflection classes of a packfile
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
    /// Roots (or classes they need) that no source folder has.
    pub missing: Vec<String>,
    /// Per source folder, in the order given: its label and the classes taken from it.
    pub taken: Vec<(String, Vec<String>)>,
}

/// What the `--roots-of` files say about the new version: their classes, and the layout
/// and string boundary of the first of them.
#[derive(Clone, Debug, Default)]
pub struct FileFacts {
    /// Class names in file order, every file's.
    pub names: Vec<String>,
    /// The first file, its header's layout bytes and file version.
    pub first: Option<(PathBuf, LayoutRules, u32)>,
    /// Files whose layout bytes differ from the first's.
    pub other_layouts: usize,
    /// Whether some file places a string at an odd offset (a string boundary of 1).
    pub odd_strings: bool,
}

/// How many of the classes taken from a later source folder the summary names.
const SHOWN: usize = 12;

/// One source folder: its label and schema.
pub type Source = (String, Arc<Schema>);

/// `hk schema new`: writes the folder and prints a summary. Roots no source folder has
/// are named in a warning and the rest is written: a folder written is a success (exit
/// status 0), whatever the warnings.
///
/// # Errors
/// A source does not load, a `--roots-of` file is not a packfile, the output folder
/// already holds a schema, or it cannot be written.
pub fn new(ctx: &Context, opts: &NewOptions, o: &mut Out<'_>) -> Result<Status> {
    if opts.from.is_empty() {
        return Err(Error::usage("give --from FOLDER (one or more)"));
    }
    let mut srcs: Vec<Source> = Vec::new();
    for f in &opts.from {
        let n = ctx.schema_arg(f)?;
        srcs.push((n.label, n.schema));
    }
    let mut facts = FileFacts::default();
    for f in &opts.roots_of {
        facts.add(f)?;
    }
    let mut roots: Vec<String> = opts.roots.clone();
    roots.extend(facts.names.iter().cloned());
    if roots.is_empty() {
        return Err(Error::usage(
            "no roots: give --roots CLASS... or --roots-of FILE...",
        ));
    }
    let made = make(&srcs, opts, &roots, &facts)?;
    let written =
        Schema::load(&opts.out).map_err(|d| Error::schema(opts.out.display().to_string(), d))?;
    let g = &written.generation;
    let labels: Vec<&str> = srcs.iter().map(|(l, _)| l.as_str()).collect();
    outln!(
        o,
        "wrote {} classes to {} (the closure of {} roots in {}): generation {}, file version {}, \"{}\", layout {}",
        made.classes,
        opts.out.display(),
        made.roots,
        labels.join(", "),
        g.name,
        g.file_version,
        g.contents_version,
        g.layout
    );
    print_sources(&facts, &made, &labels, g.packfile.string_align, o)?;
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
            "{} roots are not in {}: {}; write their class files by hand (schemas/README.md, \"A class no folder has\")",
            made.missing.len(),
            labels.join(" or "),
            made.missing.join(", ")
        );
    }
    if made.stated > 0 {
        outln!(
            o,
            "dropped {} stated sizes, offsets and notes: they were {}'s",
            made.stated,
            labels.join(" and ")
        );
    }
    outln!(
        o,
        "next: hk schema explain --schema {} FILE... (which classes the files disagree with, and why), then hk schema record {} FILE... (states the signatures that agree)",
        opts.out.display(),
        opts.out.display()
    );
    Ok(Status::Success)
}

/// On stderr: where the layout came from and, with several source folders, the classes
/// taken from each.
fn print_sources(
    facts: &FileFacts,
    made: &Made,
    labels: &[&str],
    string_align: u32,
    o: &mut Out<'_>,
) -> Result<()> {
    match &facts.first {
        Some((file, _, _)) => o.note(format_args!(
            "layout, file version and string boundary ({}) from {}{}",
            string_align,
            file.display(),
            if facts.other_layouts > 0 {
                format!(
                    " ({} other --roots-of files have other layouts; files of any layout read with this folder)",
                    facts.other_layouts
                )
            } else {
                String::new()
            }
        ))?,
        None => o.note(format_args!(
            "layout and string boundary are {}'s: give --roots-of FILE to take them from a file of the new version",
            labels[0]
        ))?,
    }
    if labels.len() > 1 {
        for (label, taken) in &made.taken {
            o.note(format_args!("{} classes from {label}", taken.len()))?;
        }
        for (label, taken) in made.taken.iter().skip(1).filter(|t| !t.1.is_empty()) {
            let more = taken.len().saturating_sub(SHOWN);
            o.note(format_args!(
                "  from {label}: {}{}",
                taken[..taken.len().min(SHOWN)].join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ))?;
        }
    }
    Ok(())
}

/// The closure of `wanted`, each class taken from the first source that has it (its
/// parent, member classes and enum owners looked up again the same way): `(source index,
/// class)`, and the names no source has.
fn gather<'a>(srcs: &'a [Source], wanted: &[&str]) -> (Vec<(usize, &'a Class)>, Vec<String>) {
    let mut seen: HashSet<String> = HashSet::new();
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    let mut todo: Vec<String> = wanted.iter().rev().map(|s| s.to_string()).collect();
    while let Some(n) = todo.pop() {
        if !seen.insert(n.clone()) {
            continue;
        }
        let Some((i, c)) = srcs
            .iter()
            .enumerate()
            .find_map(|(i, (_, s))| s.class(&n).map(|c| (i, c)))
        else {
            missing.push(n);
            continue;
        };
        found.push((i, c));
        todo.extend(c.parent.clone());
        for m in &c.members {
            todo.extend(m.class.clone());
            if let Some((ec, _)) = m
                .enum_ref
                .as_deref()
                .and_then(|r| srcs[i].1.resolve_enum(&c.name, r))
            {
                todo.push(ec.name.clone());
            }
        }
    }
    found.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    (found, missing)
}

/// A copy of `c` without what is the neighbour's own: stated signature, pin, type hash,
/// stated size, member offsets and note. Returns `(stated signature or pin dropped, pinned,
/// sizes/offsets/notes dropped)`.
fn strip(c: &mut Class) -> (bool, bool, usize) {
    let dropped = c.expected_signature.is_some() || c.pinned.is_some();
    let pinned = c.pinned.is_some();
    // Stated sizes, offsets and notes are the neighbour's: `verify` would report its
    // sizes against the new version's layout, and the notes speak of its sources.
    let stated = usize::from(c.expected_size.is_some() || c.note.is_some())
        + c.members
            .iter()
            .filter(|m| m.expected_offset.is_some())
            .count();
    c.expected_size = None;
    c.note = None;
    for m in &mut c.members {
        m.expected_offset = None;
    }
    c.expected_signature = None;
    c.pinned = None;
    // A tagfile's type hash is a per-version constant too.
    c.hash = None;
    (dropped, pinned, stated)
}

/// Writes the folder: the closure of `roots` over `srcs` without stated signatures, and
/// the new generation file (the first source's, with the layout and string boundary of
/// the `--roots-of` files when given).
///
/// # Errors
/// As [`new`].
pub fn make(
    srcs: &[Source],
    opts: &NewOptions,
    roots: &[String],
    facts: &FileFacts,
) -> Result<Made> {
    let out = &opts.out;
    if out.join("generation.toml").exists() || out.join("classes").exists() {
        return Err(Error::usage(format!(
            "{} already holds a schema folder; give -o a new folder",
            out.display()
        )));
    }
    let first = &srcs[0].1;
    let mut wanted: Vec<&str> = Vec::new();
    for r in roots {
        if !wanted.contains(&r.as_str()) {
            wanted.push(r);
        }
    }
    // A packfile writer names the reflection classes in every class-name section.
    if first.generation.container == Kind::Packfile {
        for c in REFLECTION_CLASSES {
            if !wanted.contains(&c) && srcs.iter().any(|(_, s)| s.class(c).is_some()) {
                wanted.push(c);
            }
        }
    }
    let (found, missing) = gather(srcs, &wanted);
    let mut taken: Vec<(String, Vec<String>)> =
        srcs.iter().map(|(l, _)| (l.clone(), Vec::new())).collect();
    let (mut dropped, mut pinned, mut stated) = (0, 0, 0);
    let mut classes: Vec<Class> = Vec::with_capacity(found.len());
    for (i, c) in found {
        let mut c = c.clone();
        let (d, p, s) = strip(&mut c);
        dropped += usize::from(d);
        pinned += usize::from(p);
        stated += s;
        taken[i].1.push(c.name.clone());
        classes.push(c);
    }
    let mut generation = first.generation.clone();
    generation.name = match &opts.name {
        Some(n) => n.clone(),
        None => out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| Error::usage(format!("-o {}: give a folder name", out.display())))?,
    };
    generation.contents_version = opts.version.clone();
    if let Some((_, layout, file_version)) = &facts.first {
        generation.layout = *layout;
        generation.file_version = *file_version;
        // docs/packfile-format.md §8 rule 4: a boundary of 1 shows as a string at an odd
        // offset; where none is, 2 writes the same bytes.
        generation.packfile.string_align = if facts.odd_strings { 1 } else { 2 };
    }
    if let Some(v) = opts.file_version {
        generation.file_version = v;
    }
    let n = classes.len();
    let schema = Schema::new(generation, classes)
        .map_err(|d| Error::schema(out.display().to_string(), d))?;
    schema.to_folder(out)?;
    let gen_path = out.join("generation.toml");
    let text = std::fs::read_to_string(&gen_path).map_err(|e| Error::io(&gen_path, e))?;
    let names: Vec<String> = srcs
        .iter()
        .map(|(_, s)| format!("{} ({})", s.generation.name, s.generation.contents_version))
        .collect();
    let layout_from = match &facts.first {
        Some((f, ..)) => format!(
            "layout and string boundary from {}",
            f.file_name().unwrap_or_default().to_string_lossy()
        ),
        None => format!("layout of {}", first.generation.name),
    };
    let head = format!(
        "# Made by `hk schema new` from {}: the closure of {} roots, stated signatures\n\
         # dropped; {layout_from}. `hk schema explain --schema DIR FILE` compares it with files\n\
         # of this version, `hk schema record DIR FILE` states the signatures that agree.\n",
        names.join(", "),
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
        taken,
    })
}

impl FileFacts {
    /// Adds a `--roots-of` file: its class names, and its layout bytes when it is the
    /// first.
    ///
    /// # Errors
    /// The file cannot be read or is not a packfile.
    pub fn add(&mut self, path: &Path) -> Result<()> {
        let bytes = read_packfile(path)?;
        let pf = Packfile::parse(&bytes).map_err(|e| e.in_file(path))?;
        self.names
            .extend(pf.class_names.iter().map(|c| c.name.to_string()));
        match &self.first {
            None => {
                self.first = Some((path.to_path_buf(), pf.rules(), pf.header.file_version));
            }
            Some((_, l, _)) if *l != pf.rules() => self.other_layouts += 1,
            Some(_) => {}
        }
        // Arrays and objects start on 16-byte boundaries (docs/packfile-format.md §8), so a
        // pointer to an odd offset points to a string.
        self.odd_strings |= pf.pointers().iter().any(|(_, to)| to.offset % 2 == 1);
        Ok(())
    }
}

/// The bytes of `path`, when it is a packfile.
fn read_packfile(path: &Path) -> Result<Vec<u8>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    match file::detect(&bytes) {
        Some(Container::Packfile) => Ok(bytes),
        Some(Container::Tagfile | Container::BinaryTagfile) => Err(Error::usage(format!(
            "{}: a tagfile carries its own types; `hk schema extract` writes them as a folder",
            path.display()
        ))),
        None => Err(
            hk_runtime::Error::read(hk_runtime::error::ReadError::BadMagic)
                .at(0)
                .in_file(path)
                .into(),
        ),
    }
}
