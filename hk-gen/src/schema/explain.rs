//! `hk schema explain [--schema DIR] FILE...`: for each class whose stored signature the
//! schema does not reproduce, what the schema hashes, which class up its parent or struct
//! chain disagrees too, and the nearest shipped folder that reproduces the stored value
//! (with what differs). The work is [`hk_runtime::schema::explain`]; this prints it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hk_runtime::schema::explain::{self, Explanation, Outcome, Reference};
use hk_runtime::schema::signature::{self, DescLine, Part};
use hk_runtime::schema::Container as Kind;
use hk_runtime::Schema;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// Explains every file; [`Status::Failure`] when some stored signature disagrees.
///
/// # Errors
/// A file that cannot be read or is not a packfile, a schema that does not load, or no
/// generation matching a file without `--schema`.
pub fn explain(
    ctx: &Context,
    schema: Option<&Path>,
    full: bool,
    files: &[PathBuf],
    o: &mut Out<'_>,
) -> Result<Status> {
    let given = schema.map(|s| ctx.schema_arg(s)).transpose()?;
    let mut agree = 0;
    // (schema, class, stored value) already explained: files of one version share them.
    let mut seen: HashSet<(String, String, u32)> = HashSet::new();
    let mut hints: HashSet<String> = HashSet::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| Error::io(f, e))?;
        let pf = super::packfile_of(f, &bytes)?;
        let (schema, label) = match &given {
            Some(n) => (Arc::clone(&n.schema), n.label.clone()),
            None => {
                let (s, choice) = ctx.generation_of(&pf)?;
                if !matches!(choice.how(), hk_runtime::file::How::Exact) {
                    warnln!(
                        o,
                        "{}: no schema is of this file's version; explaining against {}",
                        f.display(),
                        choice.describe()
                    );
                }
                let name = hk_runtime::dump::schema_name(&choice).to_string();
                if choice.borrowed().is_empty() {
                    (s, name)
                } else {
                    // Reading borrows what the folder lacks (docs/schema-selection.md);
                    // explaining is about the folder's own classes.
                    outln!(
                        o,
                        "{}: read as {}; explaining against {name}'s own classes",
                        f.display(),
                        choice.describe()
                    );
                    (ctx.schemas().load(&name)?, name)
                }
            }
        };
        let h = &pf.header;
        let cv = h.contents_version();
        // Every shipped packfile folder, nearest to the file's version first.
        let loaded: Vec<(String, Arc<Schema>)> = ctx
            .schemas()
            .catalog()
            .nearest(Kind::Packfile, h.file_version, &cv)
            .into_iter()
            .filter_map(|e| {
                let s = ctx.schemas().load(&e.name).ok()?;
                Some((e.name.clone(), s))
            })
            .collect();
        let refs: Vec<Reference<'_>> = loaded
            .iter()
            .map(|(name, schema)| Reference { name, schema })
            .collect();
        let stored: Vec<(&str, u32)> = pf
            .class_names
            .iter()
            .map(|c| (c.name, c.signature))
            .collect();
        let found = explain::explain(&schema, &stored, &refs);
        if found.is_empty() {
            agree += 1;
            outln!(
                o,
                "{} [{cv}] vs {label}: all {} stored signatures agree",
                f.display(),
                stored.len()
            );
            continue;
        }
        let key = |x: &Explanation| (label.clone(), x.class.clone(), x.stored);
        let (old, new): (Vec<&Explanation>, Vec<&Explanation>) =
            found.iter().partition(|x| seen.contains(&key(x)));
        let names = |v: &[&Explanation]| {
            v.iter()
                .map(|x| x.class.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        outln!(
            o,
            "{} [{cv}] vs {label}: {} of {} stored signatures disagree{}",
            f.display(),
            found.len(),
            stored.len(),
            if old.is_empty() {
                String::new()
            } else {
                format!("; as above: {}", names(&old))
            }
        );
        for x in new {
            seen.insert(key(x));
            print_one(x, &label, full, o)?;
        }
        let lacking: Vec<(&str, u32)> = found
            .iter()
            .filter(|x| matches!(x.outcome, Outcome::Missing))
            .map(|x| (x.class.as_str(), x.stored))
            .collect();
        let from = sources(&lacking, &loaded);
        if !from.is_empty() {
            let hint = format!(
                "next: hk schema new --from {label} {} --version {cv} --roots-of {} -o DIR (a folder with each class from the first of these that has it; then hk schema record DIR {})",
                from.join(" "),
                f.display(),
                f.display()
            );
            if hints.insert(hint.clone()) {
                outln!(o, "{hint}");
            }
        }
    }
    if files.len() > 1 {
        outln!(
            o,
            "{agree} of {} files: every stored signature agrees",
            files.len()
        );
    }
    Ok(Status::from_ok(agree == files.len()))
}

/// Shipped folders that compute the stored signatures of `lacking` (classes the explained
/// folder does not have): first the folder that computes the most of them, then the one that
/// computes the most of those left, until none computes any.
fn sources<'a>(lacking: &[(&str, u32)], folders: &'a [(String, Arc<Schema>)]) -> Vec<&'a str> {
    let computes = |s: &Schema, class: &str, stored: u32| {
        s.class(class).is_some()
            && signature::signature(s, class).is_ok_and(|v| v.computed() == stored)
    };
    let mut left: Vec<(&str, u32)> = lacking.to_vec();
    let mut picked = Vec::new();
    while !left.is_empty() {
        let best = folders
            .iter()
            .filter(|(name, _)| !picked.contains(&name.as_str()))
            .map(|(name, s)| {
                let n = left.iter().filter(|(c, v)| computes(s, c, *v)).count();
                (n, name.as_str(), s)
            })
            .filter(|(n, ..)| *n > 0)
            // The first of equals: folders come nearest to the file's version first.
            .fold(
                None,
                |acc: Option<(usize, &str, &Arc<Schema>)>, x| match acc {
                    Some(a) if a.0 >= x.0 => Some(a),
                    _ => Some(x),
                },
            );
        let Some((_, name, s)) = best else { break };
        left.retain(|(c, v)| !computes(s, c, *v));
        picked.push(name);
    }
    picked
}

fn print_one(x: &Explanation, label: &str, full: bool, o: &mut Out<'_>) -> Result<()> {
    let stored = format!("0x{:08X}", x.stored);
    match &x.outcome {
        Outcome::Missing => outln!(o, "{}: stored {stored}, not in {label}", x.class),
        Outcome::Broken(why) => {
            outln!(
                o,
                "{}: stored {stored}; {label} cannot describe it: {why}",
                x.class
            )
        }
        Outcome::Differs {
            description,
            also_disagree,
            root_causes,
            unstored,
        } => {
            outln!(
                o,
                "{}: stored {stored}, {label} computes 0x{:08X} (a description of {} bytes over {} class{})",
                x.class,
                description.crc,
                description.bytes,
                description.includes.len() + 1,
                if description.includes.is_empty() { "" } else { "es" }
            );
            if also_disagree.is_empty() {
                if unstored.is_empty() {
                    outln!(
                        o,
                        "  no class it includes can be the cause: the difference is in {}'s own lines below",
                        x.class
                    );
                } else {
                    outln!(
                        o,
                        "  no class it includes disagrees in the file: look at {}'s own lines, or at the {} included classes the file stores no signature for:",
                        x.class,
                        unstored.len()
                    );
                    outln!(o, "    {}", unstored.join(", "));
                }
            } else {
                let list: Vec<String> = also_disagree
                    .iter()
                    .map(|(c, via)| format!("{c} ({via})"))
                    .collect();
                outln!(
                    o,
                    "  it includes classes that disagree too: {}",
                    list.join(", ")
                );
                outln!(o, "  root cause: {}", root_causes.join(", "));
            }
        }
    }
    match &x.nearest {
        None if matches!(x.outcome, Outcome::Missing) => {
            outln!(o, "  no shipped folder computes {stored} for {}", x.class);
            outln!(
                o,
                "  next: write classes/{}.toml (schemas/README.md, \"A class no folder has\"): from a file of this version that describes its classes (`hk schema extract FILE -o DIR`), from a public reflection dump (`hk schema import DUMP -o DIR [--format {}]`), or by hand; then `hk schema explain` and `hk schema record`",
                x.class,
                import_formats()
            );
        }
        None => {
            outln!(o, "  no shipped folder computes {stored} for {}", x.class);
            outln!(
                o,
                "  next: edit classes/{}.toml until `hk schema explain` agrees, then `hk schema record` states it (schemas/README.md, \"Adding a version when files carry only signatures\"; a class no folder has: \"A class no folder has\"), or convert a public reflection dump of this version with `hk schema import DUMP -o DIR [--format {}]` and copy the class from it",
                x.class,
                import_formats()
            );
        }
        Some(n) if n.pinned => outln!(
            o,
            "  nearest shipped folder with {stored}: {} (pinned there: its description is not known exactly)",
            n.folder
        ),
        Some(n) if matches!(x.outcome, Outcome::Differs { .. }) => {
            outln!(
                o,
                "  nearest shipped folder that computes {stored}: {}; {} difference(s):",
                n.folder,
                n.differences.len()
            );
            for d in &n.differences {
                let (here, there) = d.brief();
                outln!(
                    o,
                    "    {}: here `{here}`, {} `{there}`",
                    d.place(),
                    n.folder
                );
            }
        }
        Some(n) => outln!(
            o,
            "  nearest shipped folder that computes {stored}: {} (copy its classes/{}.toml)",
            n.folder,
            x.class
        ),
    }
    if let Outcome::Differs { description, .. } = &x.outcome {
        outln!(
            o,
            "  hashed description{}:",
            if full {
                ""
            } else {
                " (struct members' classes folded; --full shows them)"
            }
        );
        print_lines(&description.lines, full, o)?;
    }
    Ok(())
}

/// The formats `hk schema import` takes, as its command line spells them (`botw|serde-hkx|...`).
fn import_formats() -> String {
    use clap::ValueEnum as _;
    let names: Vec<String> = super::ImportFormat::value_variants()
        .iter()
        .filter_map(|f| f.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
    names.join("|")
}

/// The description's lines, indented; without `full`, each run of struct members' classes
/// is one line.
fn print_lines(lines: &[DescLine], full: bool, o: &mut Out<'_>) -> Result<()> {
    let mut i = 0;
    // Enum texts printed as declarations: a member using one says so instead of repeating it.
    let mut enums: HashSet<&str> = HashSet::new();
    while i < lines.len() {
        let l = &lines[i];
        if full || l.depth == 0 {
            let text = l.text.trim_start();
            if matches!(l.part, Part::Enum(_)) {
                enums.insert(text);
            }
            let repeat = match (&l.part, text.split_once(": ")) {
                (Part::Member(_), Some((name, e))) if !full && enums.contains(e) => {
                    let ename = e.split(' ').nth(1).unwrap_or("");
                    Some(format!("{name}: enum {ename} {{…}} (as declared above)"))
                }
                _ => None,
            };
            match repeat {
                Some(r) => outln!(o, "    {:pad$}{r}", "", pad = l.text.len() - text.len()),
                None => outln!(o, "    {l}"),
            }
            i += 1;
            continue;
        }
        let end = lines[i..]
            .iter()
            .position(|x| x.depth == 0)
            .map_or(lines.len(), |e| i + e);
        let classes = lines[i..end]
            .iter()
            .filter(|x| x.part == Part::Interfaces)
            .count();
        let bytes: usize = lines[i..end].iter().map(|x| x.bytes).sum();
        outln!(
            o,
            "      [struct {}{}: {} lines, {bytes} bytes]",
            l.class,
            if classes > 1 {
                format!(" and {} more classes", classes - 1)
            } else {
                String::new()
            },
            end - i
        );
        i = end;
    }
    Ok(())
}
