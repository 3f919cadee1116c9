//! `hk schema ...`: signatures, checks, extraction and import of schema folders.

use crate::out::outln;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use hk_runtime::check::{self, Report, Verdict};
use hk_runtime::layout::Layouts;
use hk_runtime::packfile::Packfile;
use hk_runtime::signature;
use hk_runtime::{Endian, LayoutRules, Schema};

use crate::schemas::{self, Roots};

/// `hk schema` subcommands.
#[derive(Debug, Subcommand)]
pub enum SchemaCmd {
    /// List every class of a schema folder with its signature.
    Signatures {
        /// The schema folder.
        dir: PathBuf,
    },
    /// Check a schema folder against itself: stated offsets, sizes and signatures.
    Verify {
        /// Schema folders (default: every folder under the schemas root).
        dirs: Vec<PathBuf>,
    },
    /// Compare a schema with files: stored signatures, stored metadata, pointer slots.
    Check {
        /// The schema folder (default: the one matching each file's header).
        #[arg(long)]
        schema: Option<PathBuf>,
        /// Print only the summary line of each file.
        #[arg(long, short)]
        quiet: bool,
        /// Packfiles to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Write the classes a file describes as a schema folder: a packfile's `__types__`
    /// metadata, or the type tables of one or more tagfiles (merged).
    Extract {
        /// A packfile with class metadata, or tagfiles of one SDK version.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output folder.
        #[arg(short, long)]
        out: PathBuf,
        /// Generation name written for tagfiles (default: `havok-<sdk version>`).
        #[arg(long)]
        name: Option<String>,
        /// Schema folder with the reflection classes (default: the one matching the header).
        #[arg(long)]
        reflection: Option<PathBuf>,
    },
    /// Print member offsets and size of a class under some layout rules.
    Layout {
        /// The schema folder.
        dir: PathBuf,
        /// The class.
        class: String,
        /// Layout rules as the demo files name them: pointer size, little endian, reuse
        /// padding, empty base, e.g. `4101` (default: the generation's).
        #[arg(long)]
        rules: Option<String>,
    },
    /// Convert a public reflection dump into a schema folder.
    Import {
        /// The dump's format.
        #[arg(value_enum)]
        format: ImportFormat,
        /// The dump (a JSON file, or a folder of JSON files for serde-hkx).
        input: PathBuf,
        /// Output folder.
        #[arg(short, long)]
        out: PathBuf,
        /// Generation name written to generation.toml.
        #[arg(long)]
        name: String,
        /// File version written to generation.toml.
        #[arg(long)]
        file_version: u32,
        /// Contents-version string written to generation.toml.
        #[arg(long)]
        contents_version: String,
    },
}

/// Formats `hk schema import` reads.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ImportFormat {
    /// `reflection_data.json` of a runtime class-table dump (BotW 2014.2).
    Botw,
    /// A folder of per-class JSON files with x86 / x86_64 offsets (serde-hkx 2010.2).
    SerdeHkx,
}

/// Runs one `hk schema` subcommand.
pub fn run(cmd: SchemaCmd, roots: &Roots) -> Result<ExitCode, String> {
    match cmd {
        SchemaCmd::Signatures { dir } => signatures(&dir),
        SchemaCmd::Verify { dirs } => {
            let dirs = if dirs.is_empty() {
                roots.folders()
            } else {
                dirs
            };
            verify(&dirs)
        }
        SchemaCmd::Check {
            schema,
            quiet,
            files,
        } => {
            let data = read_all(&files)?;
            if data
                .iter()
                .all(|d| hk_runtime::tagfile::locate(d).is_some())
            {
                return check_tagfiles(schema.as_deref(), quiet, &files, &data, roots);
            }
            check_files(schema.as_deref(), quiet, &files, roots)
        }
        SchemaCmd::Extract {
            files,
            out,
            name,
            reflection,
        } => {
            let data = read_all(&files)?;
            if data
                .iter()
                .all(|d| hk_runtime::tagfile::locate(d).is_some())
            {
                return extract_tagfiles(&files, &data, &out, name);
            }
            let [file] = &files[..] else {
                return Err("packfile extraction takes one file (tagfiles may be merged)".into());
            };
            extract(file, &out, reflection.as_deref(), roots)
        }
        SchemaCmd::Layout { dir, class, rules } => layout(&dir, &class, rules.as_deref()),
        SchemaCmd::Import {
            format,
            input,
            out,
            name,
            file_version,
            contents_version,
        } => {
            let meta = crate::import::Meta {
                name,
                file_version,
                contents_version,
            };
            let schema = match format {
                ImportFormat::Botw => crate::import::botw(&input, &meta)?,
                ImportFormat::SerdeHkx => crate::import::serde_hkx(&input, &meta)?,
            };
            schema.to_folder(&out).map_err(|e| e.to_string())?;
            let mut layouts = Layouts::new(&schema, schema.generation.layout);
            let (mut ok, mut total) = (0, 0);
            for c in schema.classes() {
                let l = layouts.class(&c.name).map_err(|e| e.to_string())?.clone();
                if let Some(s) = c.expected_size {
                    total += 1;
                    ok += usize::from(s == l.size);
                }
                for (m, ml) in c.members.iter().zip(&l.members) {
                    if let Some(o) = m.expected_offset {
                        total += 1;
                        ok += usize::from(o == ml.offset);
                    }
                }
            }
            outln!(
                "wrote {} classes to {}; layout reproduces {ok}/{total} stated offsets and sizes",
                schema.classes().len(),
                out.display()
            );
            Ok(if ok == total {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

fn signatures(dir: &Path) -> Result<ExitCode, String> {
    let schema = schemas::load(dir)?;
    let mut bad = 0;
    for c in schema.classes() {
        let s = signature::signature(&schema, &c.name).map_err(|e| e.to_string())?;
        let mut line = format!("{} 0x{:08X}", c.name, s.value);
        if s.is_pinned() {
            line.push_str(&format!(" pinned (computed 0x{:08X})", s.computed()));
        }
        if let Some(exp) = c.expected_signature {
            if exp != s.value {
                bad += 1;
                line.push_str(&format!(" MISMATCH (schema states 0x{exp:08X})"));
            }
        }
        outln!("{line}");
    }
    if bad > 0 {
        eprintln!("{bad} class(es) do not reproduce the signature their schema states");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn verify(dirs: &[PathBuf]) -> Result<ExitCode, String> {
    let mut bad_total = 0;
    for dir in dirs {
        let schema = schemas::load(dir)?;
        let (layout, sigs) = check::self_check(&schema);
        let bad_layout: Vec<_> = layout.iter().filter(|r| !r.verdict.ok()).collect();
        let bad_sigs: Vec<_> = sigs.iter().filter(|r| !r.verdict.ok()).collect();
        let pinned = sigs.iter().filter(|r| r.verdict == Verdict::Pinned).count();
        outln!(
            "{}: {} classes; offsets and sizes {}/{}; signatures {}/{} ({pinned} pinned)",
            dir.display(),
            schema.classes().len(),
            layout.len() - bad_layout.len(),
            layout.len(),
            sigs.len() - bad_sigs.len(),
            sigs.len()
        );
        for r in &bad_layout {
            outln!(
                "  {}: states 0x{:X}, layout gives {}",
                row_path(r),
                r.stored,
                r.computed.map_or("-".to_string(), |v| format!("0x{v:X}"))
            );
        }
        for r in &bad_sigs {
            outln!(
                "  {}: states 0x{:08X}, computes {}",
                r.class,
                r.stored,
                r.computed.map_or("-".to_string(), |v| format!("0x{v:08X}"))
            );
        }
        bad_total += bad_layout.len() + bad_sigs.len();
    }
    Ok(if bad_total == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn parse_rules(tag: &str) -> Result<LayoutRules, String> {
    let b = tag.as_bytes();
    if b.len() != 4
        || !matches!(b[0], b'4' | b'8')
        || b[1..].iter().any(|c| !matches!(c, b'0' | b'1'))
    {
        return Err(format!("rules `{tag}`: expected four digits like 4101 (pointer size, little endian, reuse padding, empty base)"));
    }
    Ok(LayoutRules {
        pointer_size: b[0] - b'0',
        endian: if b[1] == b'1' {
            Endian::Little
        } else {
            Endian::Big
        },
        reuse_padding: b[2] == b'1',
        empty_base: b[3] == b'1',
    })
}

fn layout(dir: &Path, class: &str, rules: Option<&str>) -> Result<ExitCode, String> {
    let schema = schemas::load(dir)?;
    let rules = match rules {
        Some(t) => parse_rules(t)?,
        None => schema.generation.layout,
    };
    let mut layouts = Layouts::new(&schema, rules);
    let size = layouts.class(class).map_err(|e| e.to_string())?.size;
    outln!("{class} ({rules}): size 0x{size:X}");
    for &(owner, m, l) in layouts.flattened(class).map_err(|e| e.to_string())?.iter() {
        outln!(
            "  0x{:04X} {:>5} {}.{} : {}",
            l.offset,
            l.size,
            owner.name,
            m.name,
            m.ty
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn schema_for(
    file: &Path,
    given: Option<&Path>,
    pf: &Packfile<'_>,
    roots: &Roots,
) -> Result<PathBuf, String> {
    match given {
        Some(p) => Ok(p.to_path_buf()),
        None => roots.for_packfile(&pf.header).ok_or_else(|| {
            format!(
                "{}: no schema folder matches file version {} ({}); pass --schema",
                file.display(),
                pf.header.file_version,
                pf.header.contents_version()
            )
        }),
    }
}

fn extract(
    file: &Path,
    out: &Path,
    reflection: Option<&Path>,
    roots: &Roots,
) -> Result<ExitCode, String> {
    let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let pf = Packfile::parse(&data).map_err(|e| e.in_file(file).to_string())?;
    let dir = schema_for(file, reflection, &pf, roots)?;
    let refl = schemas::load(&dir)?;
    let schema = hk_runtime::metadata::extract(&pf, &refl)
        .map_err(|e| e.in_file(file).to_string())?
        .ok_or_else(|| {
            format!(
                "{}: the file carries no class metadata (its __types__ section is empty)",
                file.display()
            )
        })?;
    schema.to_folder(out).map_err(|e| e.to_string())?;
    outln!(
        "{}: wrote {} classes ({} {}, reflection classes from {}) to {}",
        file.display(),
        schema.classes().len(),
        pf.header.contents_version(),
        pf.rules(),
        dir.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn read_all(files: &[PathBuf]) -> Result<Vec<Vec<u8>>, String> {
    files
        .iter()
        .map(|f| std::fs::read(f).map_err(|e| format!("{}: {e}", f.display())))
        .collect()
}

fn extract_tagfiles(
    files: &[PathBuf],
    data: &[Vec<u8>],
    out: &Path,
    name: Option<String>,
) -> Result<ExitCode, String> {
    use hk_runtime::tagfile::TagFile;
    let mut tfs = Vec::new();
    for (f, d) in files.iter().zip(data) {
        tfs.push(TagFile::parse(d).map_err(|e| e.in_file(f).to_string())?);
    }
    let refs: Vec<&TagFile> = tfs.iter().collect();
    let sdk = tfs[0].sdk_version.clone();
    if let Some(other) = tfs.iter().find(|t| t.sdk_version != sdk) {
        return Err(format!(
            "the tagfiles are of different SDK versions ({sdk} and {})",
            other.sdk_version
        ));
    }
    let name = name.unwrap_or_else(|| format!("havok-{sdk}"));
    let schema = hk_runtime::tagfile::schema::extract(&refs, &name).map_err(|e| e.to_string())?;
    schema.to_folder(out).map_err(|e| e.to_string())?;
    let gaps = schema
        .classes()
        .iter()
        .filter(|c| c.members.iter().any(|m| m.gap_before > 0))
        .count();
    outln!(
        "{} tagfile(s) of SDK {sdk}: wrote {} classes ({}; {gaps} with inferred gaps) to {}",
        files.len(),
        schema.classes().len(),
        schema.generation.layout,
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Checks tagfiles' type tables against a schema (given, or the tagfile generation whose
/// contents version is the file's SDK version): sizes, member offsets and flags.
fn check_tagfiles(
    given: Option<&Path>,
    quiet: bool,
    files: &[PathBuf],
    data: &[Vec<u8>],
    roots: &Roots,
) -> Result<ExitCode, String> {
    let mut failed = 0;
    let mut cache: Vec<(PathBuf, Schema)> = Vec::new();
    for (f, d) in files.iter().zip(data) {
        let tf = match hk_runtime::tagfile::TagFile::parse(d) {
            Ok(tf) => tf,
            Err(e) => {
                eprintln!("{}", e.in_file(f));
                failed += 1;
                continue;
            }
        };
        let schema_dir = match given {
            Some(p) => p.to_path_buf(),
            None => hk_runtime::schema::catalog::for_tagfile(roots.dir(), &tf.sdk_version)
                .filter(|(_, g)| g.contents_version == tf.sdk_version)
                .map(|(p, _)| p)
                .ok_or_else(|| {
                    format!(
                        "{}: no tagfile schema folder is of SDK {}; pass --schema",
                        f.display(),
                        tf.sdk_version
                    )
                })?,
        };
        let schema = cached(&mut cache, &schema_dir)?;
        let schema_dir = schema_dir.as_path();
        let rows = hk_runtime::tagfile::schema::check(schema, &tf);
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
        let bad: Vec<_> = rows
            .iter()
            .filter(|r| r.verdict != Verdict::Match)
            .collect();
        outln!(
            "{} [tagfile {}] vs {}: sizes {}, member offsets {}, member flags {} → {}",
            f.display(),
            tf.sdk_version,
            schema_dir.display(),
            pick(None),
            pick(Some(false)),
            pick(Some(true)),
            if bad.is_empty() { "ok" } else { "MISMATCH" }
        );
        if !quiet {
            for r in &bad {
                outln!(
                    "  {}: stored 0x{:X}, computed {}",
                    row_path(r),
                    r.stored,
                    r.computed.map_or("-".to_string(), |v| format!("0x{v:X}"))
                );
            }
        }
        if !bad.is_empty() {
            failed += 1;
        }
    }
    Ok(summary(files.len(), failed, "tagfiles"))
}

/// Runs every check of one file.
pub fn check_one(schema: &Schema, pf: &Packfile<'_>) -> Result<Report, String> {
    let mut report = Report {
        signatures: check::signatures(schema, pf),
        ..Report::default()
    };
    if let Some(described) = hk_runtime::metadata::extract(pf, schema).map_err(|e| e.to_string())? {
        report.layout = check::stored_layout(schema, &described);
    }
    report.slots = check::pointer_slots(schema, pf).map_err(|e| e.to_string())?;
    Ok(report)
}

fn check_files(
    given: Option<&Path>,
    quiet: bool,
    files: &[PathBuf],
    roots: &Roots,
) -> Result<ExitCode, String> {
    let mut failed = 0;
    let mut cache: Vec<(PathBuf, Schema)> = Vec::new();
    for file in files {
        let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let pf = match Packfile::parse(&data) {
            Ok(pf) => pf,
            Err(e) => {
                eprintln!("{}", e.in_file(file));
                failed += 1;
                continue;
            }
        };
        let dir = schema_for(file, given, &pf, roots)?;
        let schema = cached(&mut cache, &dir)?;
        let report = check_one(schema, &pf).map_err(|e| format!("{}: {e}", file.display()))?;
        print_report(file, &dir, &pf, &report, quiet);
        if !report.ok() {
            failed += 1;
        }
    }
    Ok(summary(files.len(), failed, "files"))
}

/// The schema of folder `dir`, loaded once per command.
fn cached<'c>(cache: &'c mut Vec<(PathBuf, Schema)>, dir: &Path) -> Result<&'c Schema, String> {
    if let Some(i) = cache.iter().position(|(d, _)| d == dir) {
        return Ok(&cache[i].1);
    }
    cache.push((dir.to_path_buf(), schemas::load(dir)?));
    Ok(&cache.last().expect("just pushed").1)
}

/// Prints `N/M <what> agree with their schema` for several files; the exit status.
fn summary(n: usize, failed: usize, what: &str) -> ExitCode {
    if n > 1 {
        outln!("{}/{n} {what} agree with their schema", n - failed);
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `Class` or `Class.member` of a layout row.
fn row_path(r: &check::LayoutRow) -> String {
    match &r.member {
        Some(m) => format!("{}.{m}", r.class),
        None => r.class.clone(),
    }
}

fn count<T>(rows: &[T], ok: impl Fn(&T) -> bool) -> (usize, usize) {
    (rows.iter().filter(|r| ok(r)).count(), rows.len())
}

fn print_report(file: &Path, dir: &Path, pf: &Packfile<'_>, r: &Report, quiet: bool) {
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
        "{} [{} {}] vs {}: signatures {sig_ok}/{sig_n}{}; metadata sizes {size_ok}/{size_n}, offsets {off_ok}/{off_n}; pointer fixups on slots {}/{}, bodies {}/{} → {}",
        file.display(),
        pf.header.contents_version(),
        pf.rules(),
        dir.display(),
        if pinned > 0 { format!(" ({pinned} pinned)") } else { String::new() },
        s.on_slots,
        s.fixups,
        s.bodies_ok,
        s.bodies,
        if r.ok() { "ok" } else { "MISMATCH" }
    );
    if quiet {
        return;
    }
    outln!(
        "  {:<48} {:>10} {:>10} {:>10}  verdict",
        "class",
        "stored",
        "computed",
        "pinned"
    );
    for row in &r.signatures {
        let hex = |v: Option<u32>| v.map_or("-".to_string(), |v| format!("0x{v:08X}"));
        outln!(
            "  {:<48} 0x{:08X} {:>10} {:>10}  {}",
            row.class,
            row.stored,
            hex(row.computed),
            hex(row.pinned),
            row.verdict.label()
        );
    }
    let bad: Vec<_> = r.layout.iter().filter(|x| !x.verdict.ok()).collect();
    if !r.layout.is_empty() {
        outln!(
            "  metadata: {} rows, {} disagree",
            r.layout.len(),
            bad.len()
        );
        for row in bad {
            outln!(
                "    {}: stored 0x{:X}, computed {}  {}",
                row_path(row),
                row.stored,
                row.computed.map_or("-".to_string(), |v| format!("0x{v:X}")),
                row.verdict.label()
            );
        }
    }
    for (off, owner) in s.strays.iter().take(20) {
        outln!("  fixup at __data__+0x{off:X} (object {owner}) is on no pointer member");
    }
    if !s.unknown_objects.is_empty() {
        let mut u = s.unknown_objects.clone();
        u.sort();
        u.dedup();
        outln!("  objects of classes the schema lacks: {}", u.join(", "));
    }
}
