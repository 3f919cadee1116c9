//! `hk gen crate`: a standalone crate of typed classes for one game profile.
//!
//! A profile (`games/*.toml`) names a schema generation, the root classes (their closure is
//! generated), the layout rules and file kinds. The crate copies the closure's schema files,
//! so it builds on its own; its `src/lib.rs` calls `hk_derive::schema!` on them.

use std::path::{Path, PathBuf};

use hk_runtime::schema::names::{self, NameKind};
use hk_runtime::Schema;

use crate::context::Context;
use crate::embedded::SchemaFiles;
use crate::error::{Error, Result};
use crate::gen_files;

pub use crate::profile::Profile;

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

/// Writes the crate for `profile` into `out`, with `schema` (the profile's generation, whose
/// files are `files`) and path dependencies on the hk crates under `hk_root`.
///
/// Every name is checked and every file's text made before anything is written: a profile,
/// generation or class name that breaks its rule writes nothing.
///
/// # Errors
/// A profile field or generation name that breaks its rule, a root class the schema lacks,
/// or a file that cannot be written.
pub fn generate(
    profile: &Profile,
    schema: &Schema,
    files: &SchemaFiles,
    out: &Path,
    hk_root: &Path,
) -> Result<Generated> {
    profile.checked()?;
    let generation = &schema.generation.name;
    names::check(NameKind::Generation, generation).map_err(hk_runtime::Error::schema)?;
    let mut roots: Vec<&str> = profile.roots.iter().map(String::as_str).collect();
    // A packfile writer names the reflection classes in every class-name section.
    if profile.container == "packfile" {
        roots.extend(hk_runtime::packfile::header::REFLECTION_CLASSES);
    }
    let closure = schema.closure(&roots)?;
    let class_files = closure
        .iter()
        .map(|c| {
            let file = names::file_name(&c.name, "toml").map_err(hk_runtime::Error::schema)?;
            let text = files
                .class_text(&c.origin.file)
                .map_or_else(|| c.to_toml(&schema.generation), str::to_string);
            Ok((file, text))
        })
        .collect::<Result<Vec<_>>>()?;
    let layout = profile.layout_rules(schema)?;
    let crate_name = format!("hk-game-{}", profile.name);
    let lib = gen_files::ident(&crate_name.replace('-', "_"))?;
    let mut class_names: Vec<&str> = closure.iter().map(|c| c.name.as_str()).collect();
    class_names.sort();
    let texts = [
        (
            "Cargo.toml",
            gen_files::cargo_toml(profile, &crate_name, hk_root)?,
        ),
        (
            "src/lib.rs",
            gen_files::lib_rs(profile, generation, layout)?,
        ),
        (
            "src/bin/roundtrip.rs",
            gen_files::roundtrip_rs(profile, &lib)?,
        ),
        (
            "README.md",
            gen_files::readme(profile, &crate_name, &lib, generation, &class_names),
        ),
    ];

    let schema_dir = out.join("schema");
    let classes_dir = schema_dir.join("classes");
    std::fs::create_dir_all(&classes_dir).map_err(|e| Error::io(&classes_dir, e))?;
    let bin_dir = out.join("src/bin");
    std::fs::create_dir_all(&bin_dir).map_err(|e| Error::io(&bin_dir, e))?;
    let write = |p: PathBuf, text: &str| std::fs::write(&p, text).map_err(|e| Error::io(&p, e));
    write(schema_dir.join("generation.toml"), &files.generation)?;
    // The checkout's lock file pins the versions hk itself is tested with, so the crate
    // builds offline with what the checkout's build already fetched; cargo drops the
    // entries the crate does not use on its first build.
    let lock = hk_root.join("Cargo.lock");
    if lock.is_file() {
        std::fs::copy(&lock, out.join("Cargo.lock")).map_err(|e| Error::io(&lock, e))?;
    }
    for (file, text) in &class_files {
        write(classes_dir.join(file), text)?;
    }
    for (file, text) in &texts {
        write(out.join(file), text)?;
    }
    let enums: usize = closure.iter().map(|c| c.enums.len()).sum();
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
/// A profile field that breaks its rule (its name becomes a folder under `out`), a schema
/// that does not load, a crate that cannot be written, or cargo not found.
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
        profile.checked()?;
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
                .map_err(|error| Error::Process {
                    program: "cargo".into(),
                    error,
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
            .map_err(|error| Error::Process {
                program: bin.display().to_string(),
                error,
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
