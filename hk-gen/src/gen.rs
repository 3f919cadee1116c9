//! `hk gen crate`: a standalone crate of typed classes for one game profile.
//!
//! A profile (`games/*.toml`) names a schema generation, the root classes (their closure is
//! generated), the layout rules and file kinds. The crate copies the closure's schema files,
//! so it builds on its own; its `src/lib.rs` calls `hk_derive::schema!` on them.

use std::path::{Path, PathBuf};

use hk_runtime::Schema;
use serde::Deserialize;

use crate::context::Context;
use crate::embedded::SchemaFiles;
use crate::error::{Error, Result};

/// A game profile.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Profile name (the crate is `hk-game-<name>`).
    pub name: String,
    /// One line about the game and its files.
    pub description: String,
    /// Schema folder name under the schemas root.
    pub generation: String,
    /// `packfile` or `tagfile`.
    pub container: String,
    /// File extensions of the game's Havok files.
    pub file_kinds: Vec<String>,
    /// Classes whose closure is generated.
    pub roots: Vec<String>,
    /// Corpus folders of this profile's files, for tests.
    #[serde(default)]
    pub corpus: Vec<String>,
    /// Why the profile cannot be generated yet, if it cannot.
    pub pending: Option<String>,
    /// Layout rules when they differ from the generation's.
    pub layout: Option<toml::Table>,
}

impl Profile {
    /// The profile's layout rules: its `[layout]` table, else the generation's default.
    ///
    /// # Errors
    /// A `[layout]` key with a wrong value.
    pub fn layout_rules(&self, schema: &Schema) -> Result<hk_runtime::LayoutRules> {
        let mut l = schema.generation.layout;
        let Some(t) = &self.layout else { return Ok(l) };
        for (k, v) in t {
            match (k.as_str(), v) {
                ("pointer_size", toml::Value::Integer(p @ (4 | 8))) => l.pointer_size = *p as u8,
                ("endian", toml::Value::String(e)) if e == "big" => {
                    l.endian = hk_runtime::Endian::Big
                }
                ("endian", toml::Value::String(e)) if e == "little" => {
                    l.endian = hk_runtime::Endian::Little
                }
                ("reuse_padding", toml::Value::Boolean(b)) => l.reuse_padding = *b,
                ("empty_base", toml::Value::Boolean(b)) => l.empty_base = *b,
                _ => {
                    return Err(Error::Profile {
                        name: self.name.clone(),
                        message: format!("bad layout key `{k}` = {v}"),
                    })
                }
            }
        }
        Ok(l)
    }

    /// A profile from its text (`path` names it in errors).
    ///
    /// # Errors
    /// Invalid TOML, with the file, line and column.
    pub fn parse(path: &Path, text: &str) -> Result<Profile> {
        toml::from_str(text).map_err(|e| Error::toml(path, text, &e))
    }
}

/// What `generate` wrote.
#[derive(Debug)]
pub struct Generated {
    /// Crate name.
    pub crate_name: String,
    /// Classes generated.
    pub classes: usize,
    /// Enums generated.
    pub enums: usize,
}

/// The `main` of every generated crate's `roundtrip` binary (after its `roundtrip` fn).
const ROUNDTRIP_MAIN: &str = "fn main() -> std::process::ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    let mut ok = 0;
    for f in &files {
        let data = match std::fs::read(f) {
            Ok(d) => d,
            Err(e) => {
                println!(\"{f}: {e}\");
                continue;
            }
        };
        match roundtrip(&data) {
            Ok(out) if out == data => ok += 1,
            Ok(_) => println!(\"{f}: differs\"),
            Err(e) => println!(\"{f}: {e}\"),
        }
    }
    println!(\"{ok}/{} byte-identical through the {PROFILE} types\", files.len());
    if ok == files.len() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
";

fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Writes the crate for `profile` into `out`, with `schema` (the profile's generation, whose
/// files are `files`) and path dependencies on the hk crates under `hk_root`.
///
/// # Errors
/// A root class the schema lacks, or a file that cannot be written.
pub fn generate(
    profile: &Profile,
    schema: &Schema,
    files: &SchemaFiles,
    out: &Path,
    hk_root: &Path,
) -> Result<Generated> {
    let mut roots: Vec<&str> = profile.roots.iter().map(String::as_str).collect();
    // A packfile writer names the reflection classes in every class-name section.
    if profile.container == "packfile" {
        roots.extend(hk_runtime::packfile::header::REFLECTION_CLASSES);
    }
    let closure = schema.closure(&roots)?;
    let schema_dir = out.join("schema");
    let classes_dir = schema_dir.join("classes");
    std::fs::create_dir_all(&classes_dir).map_err(|e| Error::io(&classes_dir, e))?;
    let bin_dir = out.join("src/bin");
    std::fs::create_dir_all(&bin_dir).map_err(|e| Error::io(&bin_dir, e))?;
    let write = |p: PathBuf, text: String| std::fs::write(&p, text).map_err(|e| Error::io(&p, e));
    write(schema_dir.join("generation.toml"), files.generation.clone())?;
    // The checkout's lock file pins the versions hk itself is tested with, so the crate
    // builds offline with what the checkout's build already fetched; cargo drops the
    // entries the crate does not use on its first build.
    let lock = hk_root.join("Cargo.lock");
    if lock.is_file() {
        std::fs::copy(&lock, out.join("Cargo.lock")).map_err(|e| Error::io(&lock, e))?;
    }
    for c in &closure {
        let text = files
            .class_text(&c.origin.file)
            .map_or_else(|| c.to_toml(&schema.generation), str::to_string);
        write(classes_dir.join(format!("{}.toml", c.name)), text)?;
    }
    let layout = profile.layout_rules(schema)?;
    let crate_name = format!("hk-game-{}", profile.name);
    let lib_name = crate_name.replace('-', "_");
    // A published-style requirement (the version of the hk that generated the crate) with
    // the checkout's path for local builds.
    let dep = |name: &str, extra: &str| {
        format!(
            "{name} = {{ version = \"{}\", path = {}{extra} }}",
            env!("CARGO_PKG_VERSION"),
            quote(&hk_root.join(name).display().to_string())
        )
    };
    write(
        out.join("Cargo.toml"),
        format!(
            "# Generated by `hk gen crate --game {}`.\n[package]\nname = {}\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\ndescription = {}\n\n[dependencies]\n{}\n{}\n\n[workspace]\n",
            profile.name,
            quote(&crate_name),
            quote(&profile.description),
            // The codecs it reads with only: a game crate does not compile hk's schema
            // loader or JSON dumps.
            dep(
                "hk-runtime",
                if profile.container == "packfile" {
                    ", default-features = false, features = [\"codecs\"]"
                } else {
                    ", default-features = false, features = [\"tagfile\"]"
                }
            ),
            dep("hk-derive", ""),
        ),
    )?;
    let class_list: Vec<String> = profile
        .roots
        .iter()
        .map(|r| format!("        {},", quote(r)))
        .collect();
    write(
        out.join("src/lib.rs"),
        format!(
            "//! Typed Havok classes for `{}`: {}.\n//!\n//! Generated by `hk gen crate`; the classes come from `schema/` ({}) at compile time.\n\nhk_derive::schema!(\n    path = \"schema\",\n    classes = [\n{}\n    ]\n);\n\n/// The layout rules of this game's files.\npub const LAYOUT: hk_runtime::LayoutRules = hk_runtime::LayoutRules {{\n    pointer_size: {},\n    endian: hk_runtime::Endian::{},\n    reuse_padding: {},\n    empty_base: {},\n}};\n",
            profile.name,
            profile.description,
            schema.generation.name,
            class_list.join("\n"),
            layout.pointer_size,
            if layout.endian == hk_runtime::Endian::Big { "Big" } else { "Little" },
            layout.reuse_padding,
            layout.empty_base,
        ),
    )?;
    let roundtrip = if profile.container == "packfile" {
        // Straight from the bytes into the generated classes and back, through their
        // derived codecs: no graph.
        format!(
            "//! Reads packfiles into the generated classes with their derived codecs (no object\n//! graph), writes them back and reports how many come out byte for byte.\n\nfn roundtrip(data: &[u8]) -> hk_runtime::Result<Vec<u8>> {{\n    {lib_name}::write_file(&{lib_name}::decode_file(data)?)\n}}\n\n{ROUNDTRIP_MAIN}",
        )
    } else {
        // Tagfiles have no derived codec yet: through the runtime's tagfile reader, every
        // object converted to its generated class and back (the checked `TryFrom`s).
        format!(
            "//! Reads tagfiles, takes every object through its generated class and back (the checked\n//! `TryFrom` conversions), writes them again and reports how many come out byte for byte.\n\nuse std::sync::Arc;\n\nuse hk_runtime::graph::{{Graph, Object}};\nuse hk_runtime::typed::GraphObject;\n\nfn roundtrip(data: &[u8]) -> hk_runtime::Result<Vec<u8>> {{\n    // The file's objects decoded over this crate's classes; each goes through its\n    // generated class and back.\n    let tf = hk_runtime::tagfile::TagFile::parse(data)?;\n    let schema = {lib_name}::schema();\n    let graph = hk_runtime::tagfile::data::decode(&tf, data, schema)?;\n    let objects = graph\n        .objects\n        .iter()\n        .map(|o| {{\n            let typed = {lib_name}::AnyObject::try_from(GraphObject {{ schema: graph.schema(), object: o }})?;\n            Object::try_from(&typed)\n        }})\n        .collect::<hk_runtime::Result<Vec<_>>>()?;\n    let typed = Graph::from_objects(Arc::clone(schema), objects, graph.root);\n    let rules = schema.generation.tagfile.clone().ok_or_else(|| {{\n        hk_runtime::Error::schema(\"the generation has no [tagfile] rules\")\n    }})?;\n    hk_runtime::tagfile::write(&typed, &tf, &rules)\n}}\n\n{ROUNDTRIP_MAIN}",
        )
    };
    write(
        out.join("src/bin/roundtrip.rs"),
        roundtrip.replace("{PROFILE}", &profile.name),
    )?;
    let enums: usize = closure.iter().map(|c| c.enums.len()).sum();
    let mut class_names: Vec<&str> = closure.iter().map(|c| c.name.as_str()).collect();
    class_names.sort();
    write(
        out.join("README.md"),
        format!(
            "# {crate_name}\n\n{}.\n\nGenerated by `hk gen crate --game {}` from the `{}` schema ({} container, files: {}).\n{}\n## Use\n\n```rust\nlet bytes = std::fs::read(\"file.hkx\")?;\n// Typed objects straight from the bytes (derived decoders, no object graph):\nlet file = {lib_name}::decode_file(&bytes)?;\n// ... edit file.objects ...\nlet out = {lib_name}::write_file(&file)?; // the same bytes the dynamic writer makes\n// Zero-copy: read members in place, without allocating.\nlet checksum = {lib_name}::traverse_file(&bytes)?;\n```\n\n`cargo run --release --bin roundtrip -- FILES...` takes files through the generated types and back.\n{}\n## Classes ({})\n\n{}\n",
            profile.description,
            profile.name,
            schema.generation.name,
            profile.container,
            profile.file_kinds.join(", "),
            profile.pending.as_ref().map_or(String::new(), |p| format!("\n**Not usable yet:** {p}.\n")),
            if profile.corpus.is_empty() {
                String::new()
            } else {
                format!("\nCorpus folders with this profile's files: {}.\n", profile.corpus.join(", "))
            },
            class_names.len(),
            class_names.iter().map(|c| format!("- `{c}`")).collect::<Vec<_>>().join("\n")
        ),
    )?;
    Ok(Generated {
        crate_name,
        classes: closure.len(),
        enums,
    })
}

/// One profile's line in `hk gen all`'s summary.
#[derive(Debug)]
pub struct Outcome {
    /// Profile name.
    pub profile: String,
    /// What happened.
    pub summary: String,
    /// Whether everything it tried succeeded.
    pub ok: bool,
}

/// Generates every profile of `profiles`, builds each crate offline and runs its typed
/// round trip on the profile's samples (and corpus folders, when `corpus` is given).
///
/// # Errors
/// A schema that does not load, a crate that cannot be written, or cargo not found.
pub fn all(
    profiles: Vec<Profile>,
    ctx: &Context,
    out: &Path,
    hk_root: &Path,
    corpus: Option<&Path>,
) -> Result<Vec<Outcome>> {
    let target = out.join("target");
    let mut outcomes = Vec::new();
    for profile in profiles {
        if !ctx.has_generation(&profile.generation) {
            outcomes.push(Outcome {
                profile: profile.name.clone(),
                summary: format!(
                    "not generated: {}",
                    profile
                        .pending
                        .as_deref()
                        .unwrap_or("its schema folder is missing")
                ),
                ok: profile.pending.is_some(),
            });
            continue;
        }
        let schema = ctx.schemas().load(&profile.generation)?;
        let files = ctx.schema_files(&profile.generation)?;
        let crate_dir = out.join(&profile.name);
        let g = generate(&profile, &schema, &files, &crate_dir, hk_root)?;
        let build =
            std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                .args(["build", "--offline", "--release", "--quiet"])
                .current_dir(&crate_dir)
                .env("CARGO_TARGET_DIR", &target)
                .output()
                .map_err(|source| Error::Process {
                    program: "cargo".into(),
                    source,
                })?;
        if !build.status.success() {
            outcomes.push(Outcome {
                profile: profile.name.clone(),
                summary: format!(
                    "{} does not build:\n{}",
                    g.crate_name,
                    String::from_utf8_lossy(&build.stderr)
                ),
                ok: false,
            });
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(hk_root.join("samples"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| {
                f.file_name().is_some_and(|n| {
                    n.to_string_lossy()
                        .starts_with(&format!("{}_", profile.name))
                })
            })
            .collect();
        if let Some(c) = corpus {
            for folder in &profile.corpus {
                files.extend(
                    std::fs::read_dir(c.join(folder))
                        .into_iter()
                        .flatten()
                        .filter_map(|e| e.ok().map(|e| e.path())),
                );
            }
        }
        files.sort();
        if files.is_empty() {
            // Built, but nothing to read: said, and not a failure (a fresh clone has no
            // corpus, and a new profile may have no sample yet).
            outcomes.push(Outcome {
                profile: profile.name.clone(),
                summary: format!(
                    "{}: {} classes, {} enums; builds; no sample or corpus file to round-trip",
                    g.crate_name, g.classes, g.enums
                ),
                ok: true,
            });
            continue;
        }
        let bin = target.join("release/roundtrip");
        let run = std::process::Command::new(&bin)
            .args(&files)
            .output()
            .map_err(|source| Error::Process {
                program: bin.display().to_string(),
                source,
            })?;
        let last = String::from_utf8_lossy(&run.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .to_string();
        outcomes.push(Outcome {
            profile: profile.name.clone(),
            summary: format!(
                "{}: {} classes, {} enums; {last}",
                g.crate_name, g.classes, g.enums
            ),
            ok: run.status.success(),
        });
    }
    Ok(outcomes)
}
