//! The schema commands, and those that generate from schemas: crates and samples.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use hk_gen::schema::{self, ImportFormat, Meta, NewOptions};
use hk_gen::{gen, Context, Out, Result, Status};

use super::{Global, Run};

/// `hk schema ...`.
#[derive(Debug, Subcommand)]
pub enum SchemaCmd {
    /// List every class of a schema folder with its signature.
    Signatures(Signatures),
    /// Check schemas against themselves: stated offsets, sizes and signatures.
    Verify(Verify),
    /// Compare a schema with files: stored signatures, stored metadata, pointer slots.
    Check(Check),
    /// For each class whose stored signature the schema does not reproduce: what it
    /// hashes, which class up its parent or struct chain disagrees too, and the nearest
    /// shipped folder that reproduces it. Exit status 0: all agree; 1: some disagree.
    Explain(Explain),
    /// Start a schema folder for a new version from neighbouring ones: the closure of the
    /// roots (parents, member classes, enums), each class from the first folder that has
    /// it, without the stated signatures, sizes and notes, and a generation file with the
    /// new version and the layout of the --roots-of files. Exit status 0 when the folder is
    /// written, warnings or not.
    New(New),
    /// Write into each class file of a folder the signature the files store for it, when
    /// the class's description computes it; list the classes that still disagree. Exit
    /// status 0 when the folder was updated (disagreeing classes are a report), 2 when a
    /// file or the folder cannot be read or written.
    Record(Record),
    /// Write the classes a file describes as a schema folder: a packfile's `__types__`
    /// metadata, or the type tables of one or more tagfiles (merged).
    Extract(Extract),
    /// Print member offsets and size of a class under some layout rules.
    Layout(Layout),
    /// Convert a public reflection dump into a schema folder.
    Import(Import),
}

impl SchemaCmd {
    /// Runs the subcommand.
    pub(super) fn exec(self, g: &Global, o: &mut Out<'_>) -> Result<Status> {
        match self {
            SchemaCmd::Signatures(c) => g.exec(c, o),
            SchemaCmd::Verify(c) => g.exec(c, o),
            SchemaCmd::Check(c) => g.exec(c, o),
            SchemaCmd::Explain(c) => g.exec(c, o),
            SchemaCmd::New(c) => g.exec(c, o),
            SchemaCmd::Record(c) => g.exec(c, o),
            SchemaCmd::Extract(c) => g.exec(c, o),
            SchemaCmd::Layout(c) => g.exec(c, o),
            SchemaCmd::Import(c) => g.exec(c, o),
        }
    }
}

/// `hk schema signatures`.
#[derive(Debug, Args)]
pub struct Signatures {
    /// The schema folder, or a generation name (`havok-7.1`).
    dir: PathBuf,
}

impl Run for Signatures {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        schema::signatures(ctx, &self.dir, o)
    }
}

/// `hk schema verify`.
#[derive(Debug, Args)]
pub struct Verify {
    /// Schema folders or generation names (default: every generation).
    dirs: Vec<PathBuf>,
}

impl Run for Verify {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        schema::verify(ctx, &self.dirs, o)
    }
}

/// `hk schema check`.
#[derive(Debug, Args)]
pub struct Check {
    /// The schema folder or generation name (default: the one matching each file).
    #[arg(long)]
    schema: Option<PathBuf>,
    /// Print only the summary line of each file.
    #[arg(long, short)]
    quiet: bool,
    /// Packfiles or tagfiles to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

impl Run for Check {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        schema::check(ctx, self.schema.as_deref(), self.quiet, &self.files, o)
    }
}

/// `hk schema explain`.
#[derive(Debug, Args)]
pub struct Explain {
    /// The schema folder or generation name (default: the one matching each file).
    #[arg(long)]
    schema: Option<PathBuf>,
    /// Print the struct members' classes inside each hashed description too.
    #[arg(long)]
    full: bool,
    /// Packfiles.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

impl Run for Explain {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        schema::explain(ctx, self.schema.as_deref(), self.full, &self.files, o)
    }
}

/// `hk schema new`.
#[derive(Debug, Args)]
pub struct New {
    /// The folders to copy from, in order of preference: generation names (`havok-2010.2`)
    /// or paths. Each class is taken from the first that has it.
    #[arg(long, num_args = 1.., required = true)]
    from: Vec<PathBuf>,
    /// The new version's contents-version string (`hk_2011.1.0-r1`), as `hk info`
    /// shows it.
    #[arg(long)]
    version: String,
    /// The new packfile file version (default: the first --roots-of file's, else the
    /// first source's).
    #[arg(long)]
    file_version: Option<u32>,
    /// The generation name (default: the output folder's name).
    #[arg(long)]
    name: Option<String>,
    /// Root classes.
    #[arg(long, num_args = 1..)]
    roots: Vec<String>,
    /// Packfiles of the new version: their stored classes are roots too, and the first
    /// one's header gives the layout (pointer size, byte order, reuse padding, empty
    /// base) and file version.
    #[arg(long, num_args = 1..)]
    roots_of: Vec<PathBuf>,
    /// Output folder (must not hold a schema yet).
    #[arg(short, long)]
    out: PathBuf,
}

impl Run for New {
    fn folder_output(&self) -> Option<&Path> {
        Some(&self.out)
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let opts = NewOptions {
            from: self.from,
            version: self.version,
            file_version: self.file_version,
            name: self.name,
            roots: self.roots,
            roots_of: self.roots_of,
            out: self.out,
        };
        schema::new(ctx, &opts, o)
    }
}

/// `hk schema record`.
#[derive(Debug, Args)]
pub struct Record {
    /// The schema folder to write into (a path).
    dir: PathBuf,
    /// Packfiles of the folder's version.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

impl Run for Record {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        schema::record(ctx, &self.dir, &self.files, o)
    }
}

/// `hk schema extract`.
#[derive(Debug, Args)]
pub struct Extract {
    /// A packfile with class metadata, or tagfiles of one SDK version.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output folder.
    #[arg(short, long)]
    out: PathBuf,
    /// Generation name written for tagfiles (default: `havok-<sdk version>`).
    #[arg(long)]
    name: Option<String>,
    /// Schema with the reflection classes (default: the one matching the header).
    #[arg(long)]
    reflection: Option<PathBuf>,
}

impl Run for Extract {
    fn folder_output(&self) -> Option<&Path> {
        Some(&self.out)
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let (name, reflection) = (self.name.as_deref(), self.reflection.as_deref());
        schema::extract(ctx, &self.files, &self.out, name, reflection, o)
    }
}

/// `hk schema layout`.
#[derive(Debug, Args)]
pub struct Layout {
    /// The schema folder or generation name.
    dir: PathBuf,
    /// The class.
    class: String,
    /// Layout rules as the demo files name them: pointer size, little endian, reuse
    /// padding, empty base, e.g. `4101` (default: the generation's).
    #[arg(long)]
    rules: Option<String>,
}

impl Run for Layout {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        schema::layout(ctx, &self.dir, &self.class, self.rules.as_deref(), o)
    }
}

/// `hk schema import`.
#[derive(Debug, Args)]
pub struct Import {
    /// The dump: a JSON file (BotW), a folder of JSON files (serde-hkx), or an XML type
    /// dump (HKLib's registry, TagTools' or soulstruct-havok's type listing).
    input: PathBuf,
    /// The dump's format [default: from the input: a folder, a `.json` file, or the XML's
    /// root element].
    #[arg(long, value_enum)]
    format: Option<ImportFormat>,
    /// Output folder.
    #[arg(short, long)]
    out: PathBuf,
    /// Generation name written to generation.toml.
    #[arg(long)]
    name: String,
    /// File version written to generation.toml (packfile generations: JSON dumps).
    #[arg(long)]
    file_version: Option<u32>,
    /// Contents-version string written to generation.toml [XML: default the registry's
    /// `Version`].
    #[arg(long)]
    contents_version: Option<String>,
    /// XML dumps: take the tagfile writer rules (`[tagfile]`) of this generation.
    #[arg(long, value_name = "DIR|NAME")]
    tagfile_like: Option<PathBuf>,
}

impl Run for Import {
    fn folder_output(&self) -> Option<&Path> {
        Some(&self.out)
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let format = match self.format {
            Some(f) => f,
            None => ImportFormat::detect(&self.input)?,
        };
        if matches!(format, ImportFormat::Hklib | ImportFormat::Tagtools) {
            let tagfile = match &self.tagfile_like {
                Some(g) => {
                    let named = ctx.schema_arg(g)?;
                    Some(named.schema.generation.tagfile.clone().ok_or_else(|| {
                        hk_gen::Error::usage(format!(
                            "--tagfile-like {}: that generation has no [tagfile] rules",
                            g.display()
                        ))
                    })?)
                }
                None => None,
            };
            let meta = hk_gen::import_xml::XmlMeta {
                name: self.name,
                contents_version: self.contents_version,
                tagfile,
            };
            return schema::import_xml(format, &self.input, &self.out, &meta, o);
        }
        let need = |what: &str| {
            hk_gen::Error::usage(format!("a JSON dump (botw, serde-hkx) needs --{what}"))
        };
        let meta = Meta {
            name: self.name,
            file_version: self.file_version.ok_or_else(|| need("file-version"))?,
            contents_version: self
                .contents_version
                .ok_or_else(|| need("contents-version"))?,
        };
        schema::import(format, &self.input, &self.out, &meta, o)
    }
}

/// `hk gen ...`.
#[derive(Debug, Subcommand)]
pub enum GenCmd {
    /// Every profile: generate its crate, build it offline, take its samples (and corpus
    /// files, when found) through the generated types.
    All(GenAll),
    /// A standalone crate of typed classes for a game profile.
    Crate(GenCrate),
}

impl GenCmd {
    /// Runs the subcommand.
    pub(super) fn exec(self, g: &Global, o: &mut Out<'_>) -> Result<Status> {
        match self {
            GenCmd::All(c) => g.exec(c, o),
            GenCmd::Crate(c) => g.exec(c, o),
        }
    }
}

/// `hk gen all`.
#[derive(Debug, Args)]
pub struct GenAll {
    /// Output folder for the crates and their build (relative: under the checkout;
    /// default: `hk-games` in `$CARGO_TARGET_DIR`, else `target/hk-games` in the checkout).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The hk checkout the crates depend on (default: the one hk was built from).
    #[arg(long)]
    hk_path: Option<PathBuf>,
    /// The corpus (default: ../shared/corpus beside the checkout).
    #[arg(long, env = "HK_CORPUS")]
    corpus: Option<PathBuf>,
}

impl Run for GenAll {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let (out, hk_path) = (self.out.as_deref(), self.hk_path.as_deref());
        gen::gen_all(ctx, out, hk_path, self.corpus.as_deref(), o)
    }
}

/// `hk gen crate`.
#[derive(Debug, Args)]
pub struct GenCrate {
    /// Profile name (built in, or NAME.toml under --games) or path to a profile file.
    #[arg(long)]
    game: String,
    /// Output folder.
    #[arg(long)]
    out: PathBuf,
    /// Schema folder or generation name to use instead of the profile's generation.
    #[arg(long)]
    schema: Option<PathBuf>,
    /// The hk checkout the crate depends on (default: the one hk was built from).
    #[arg(long)]
    hk_path: Option<PathBuf>,
    /// Write the classes' code out as plain Rust (what `hk_derive::schema!` generates,
    /// formatted) instead of the macro call; the crate then depends on hk-runtime alone.
    #[arg(long)]
    expand: bool,
}

impl Run for GenCrate {
    fn folder_output(&self) -> Option<&Path> {
        Some(&self.out)
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let (schema, hk_path) = (self.schema.as_deref(), self.hk_path.as_deref());
        gen::gen_crate(ctx, &self.game, &self.out, schema, hk_path, self.expand, o)
    }
}

/// `hk sample`.
#[derive(Debug, Args)]
pub struct Sample {
    /// Output folder.
    #[arg(long, default_value = "samples")]
    out: PathBuf,
}

impl Run for Sample {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        hk_gen::sample::run(ctx, &self.out, o)
    }
}
