//! `hk gen crate`: a standalone crate of typed classes for one game profile.
//!
//! A profile (`games/*.toml`) names a schema generation, the root classes (their closure is
//! generated), the layout rules and file kinds. The crate copies the closure's schema files,
//! so it builds on its own; its `src/lib.rs` calls `hk_derive::schema!` on them.

use std::path::{Path, PathBuf};

use hk_runtime::Schema;
use serde::Deserialize;

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
    pub fn layout_rules(&self, schema: &Schema) -> Result<hk_runtime::LayoutRules, String> {
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
                _ => return Err(format!("profile {}: bad layout key `{k}` = {v}", self.name)),
            }
        }
        Ok(l)
    }

    /// Loads `games/<name>.toml` (or a path to a profile file).
    ///
    /// # Errors
    /// Unreadable or invalid TOML, with the file and line.
    pub fn load(games: &Path, name_or_path: &str) -> Result<Profile, String> {
        let p = Path::new(name_or_path);
        let path = if p.extension().is_some_and(|e| e == "toml") {
            p.to_path_buf()
        } else {
            games.join(format!("{name_or_path}.toml"))
        };
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
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

fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Writes the crate for `profile` into `out`, with `schema` (the profile's generation) and
/// path dependencies on the hk crates under `hk_root`.
///
/// # Errors
/// A root class the schema lacks, or a file that cannot be written.
pub fn generate(
    profile: &Profile,
    schema: &Schema,
    out: &Path,
    hk_root: &Path,
) -> Result<Generated, String> {
    let mut roots: Vec<&str> = profile.roots.iter().map(String::as_str).collect();
    // A packfile writer names the reflection classes in every class-name section.
    if profile.container == "packfile" {
        roots.extend(hk_runtime::metadata::REFLECTION_CLASSES);
    }
    let closure = schema.closure(&roots).map_err(|e| e.to_string())?;
    let schema_dir = out.join("schema");
    let classes_dir = schema_dir.join("classes");
    std::fs::create_dir_all(&classes_dir).map_err(|e| format!("{}: {e}", classes_dir.display()))?;
    std::fs::create_dir_all(out.join("src/bin")).map_err(|e| e.to_string())?;
    let write = |p: PathBuf, text: String| {
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    };
    let root_dir = schema
        .root
        .as_ref()
        .ok_or("the schema was not loaded from a folder")?;
    write(
        schema_dir.join("generation.toml"),
        std::fs::read_to_string(root_dir.join("generation.toml")).map_err(|e| e.to_string())?,
    )?;
    for c in &closure {
        let text = std::fs::read_to_string(&c.origin.file)
            .unwrap_or_else(|_| c.to_toml(&schema.generation));
        write(classes_dir.join(format!("{}.toml", c.name)), text)?;
    }
    let layout = profile.layout_rules(schema)?;
    let crate_name = format!("hk-game-{}", profile.name);
    let lib_name = crate_name.replace('-', "_");
    let dep = |name: &str| {
        format!(
            "{name} = {{ path = {} }}",
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
            dep("hk-runtime"),
            dep("hk-derive"),
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
    write(
        out.join("src/bin/roundtrip.rs"),
        format!(
            "//! Reads files, takes every object through its generated class and back, writes them\n//! again and reports how many come out byte for byte.\n\nfn main() -> std::process::ExitCode {{\n    let files: Vec<String> = std::env::args().skip(1).collect();\n    let mut ok = 0;\n    for f in &files {{\n        let data = match std::fs::read(f) {{\n            Ok(d) => d,\n            Err(e) => {{\n                println!(\"{{f}}: {{e}}\");\n                continue;\n            }}\n        }};\n        match {lib_name}::typed_roundtrip(&data) {{\n            Ok(out) if out == data => ok += 1,\n            Ok(_) => println!(\"{{f}}: differs\"),\n            Err(e) => println!(\"{{f}}: {{e}}\"),\n        }}\n    }}\n    println!(\"{{ok}}/{{}} byte-identical through the {} types\", files.len());\n    if ok == files.len() {{ std::process::ExitCode::SUCCESS }} else {{ std::process::ExitCode::FAILURE }}\n}}\n",
            profile.name
        ),
    )?;
    let enums: usize = closure.iter().map(|c| c.enums.len()).sum();
    let mut class_names: Vec<&str> = closure.iter().map(|c| c.name.as_str()).collect();
    class_names.sort();
    write(
        out.join("README.md"),
        format!(
            "# {crate_name}\n\n{}.\n\nGenerated by `hk gen crate --game {}` from the `{}` schema ({} container, files: {}).\n{}\n## Use\n\n```rust\nlet bytes = std::fs::read(\"file.hkx\")?;\nlet (graph, origin, objects) = {lib_name}::read(&bytes)?;\n```\n\n`cargo run --bin roundtrip -- FILES...` takes files through the generated types and back.\n{}\n## Classes ({})\n\n{}\n",
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

/// Generates every profile under `games`, builds each crate offline and runs its typed
/// round trip on the profile's samples (and corpus folders, when `corpus` is given).
pub fn all(
    games: &Path,
    schemas_root: &Path,
    out: &Path,
    hk_root: &Path,
    corpus: Option<&Path>,
) -> Result<Vec<Outcome>, String> {
    let mut profiles: Vec<PathBuf> = std::fs::read_dir(games)
        .map_err(|e| format!("{}: {e}", games.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    profiles.sort();
    let target = out.join("target");
    let mut outcomes = Vec::new();
    for p in profiles {
        let profile = Profile::load(games, &p.to_string_lossy())?;
        let dir = schemas_root.join(&profile.generation);
        if !dir.join("generation.toml").is_file() {
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
        let schema = Schema::load(&dir).map_err(|d| d.to_string())?;
        let crate_dir = out.join(&profile.name);
        let g = generate(&profile, &schema, &crate_dir, hk_root)?;
        let build =
            std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                .args(["build", "--offline", "--release", "--quiet"])
                .current_dir(&crate_dir)
                .env("CARGO_TARGET_DIR", &target)
                .output()
                .map_err(|e| format!("cannot run cargo: {e}"))?;
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
        let bin = target.join("release/roundtrip");
        let run = std::process::Command::new(&bin)
            .args(&files)
            .output()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
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
            ok: run.status.success() && !files.is_empty(),
        });
    }
    Ok(outcomes)
}
