//! The `hk` command line: the arguments of every command ([`Cli`]) and how each runs.
//!
//! Each command's arguments are a struct that implements [`Run`]: what it reads files
//! with (`--schema`, `--lenient`) and the one library call it makes. [`Cli::run`] builds
//! the [`Context`] from the global options and the command's, then runs the command.
//! Arguments several commands share are declared once ([`args`]) and flattened where each
//! command lists them, so every command's help keeps its order.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use hk_gen::{Context, Options, Out, Result, Status};
use hk_runtime::limits::{Limits, ReadOptions};

mod anim;
mod args;
mod collision;
mod files;
mod import;
mod schema;
mod trees;

/// Reads, writes, checks and generates code for Havok physics files.
#[derive(Debug, Parser)]
#[command(name = "hk", version, about)]
pub struct Cli {
    /// Folder of schema folders to use instead of the ones built into hk.
    #[arg(long, global = true, env = "HK_SCHEMAS")]
    schemas: Option<PathBuf>,
    /// Folder of game profiles to use instead of the ones built into hk.
    #[arg(long, global = true, env = "HK_GAMES")]
    games: Option<PathBuf>,
    #[command(flatten)]
    limits: Limits,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Schema folders: signatures, checks against files, extraction, import.
    #[command(subcommand)]
    Schema(schema::SchemaCmd),
    /// Read files into the object graph and write them back; report byte identity.
    Roundtrip(files::Roundtrip),
    /// Rewrite packfiles for another platform's layout (pointer size, byte order, padding
    /// rules), through the object graph. A folder converts into a mirror of its tree.
    Convert(files::Convert),
    /// Show a file's container, the schema that reads it and how it was chosen.
    Info(files::Info),
    /// Print a file's object graph with class and member names.
    Dump(files::Dump),
    /// Turn a dump back into a binary file.
    Build(files::Build),
    /// Generate code.
    #[command(subcommand)]
    Gen(schema::GenCmd),
    /// Write the small sample files hk makes itself from schemas.
    Sample(schema::Sample),
    /// Measure read+decode and write throughput and peak memory.
    Bench(files::Bench),
    /// Write a file's level collision as world-space meshes (bodies, shapes, surface ids),
    /// or its skeletons, animations and ragdolls as glTF.
    Export(collision::Export),
    /// Put edited meshes (OBJ, glTF, GLB) into a file's collision, or make a new file; with
    /// --skeleton, write a glTF animation as a Havok animation.
    Import(import::Import),
    /// Print an animation's pose per bone (translation, rotation, scale) at a time, or
    /// every stored frame as JSON.
    Anim(anim::Anim),
    /// Draw a file's level collision, or a skeleton's pose, as a PNG (a three-quarter view).
    Render(collision::Render),
    /// Run MOPP codes: box queries, a check of every triangle, a throughput measurement.
    #[command(subcommand)]
    Mopp(collision::MoppCmd),
    /// Write id Tech cm collision (Havok 2016 hknp shapes).
    #[command(subcommand)]
    Cm(collision::CmCmd),
    /// Check every collision tree of a file; compare hk's compressed-mesh builders with an
    /// original.
    #[command(subcommand)]
    Collision(trees::CollisionCmd),
    /// Compare two files member by member.
    Diff(files::Diff),
}

/// One command's arguments: how it reads files and what it runs.
trait Run {
    /// The schema `--schema` names, for the commands that read files with one.
    fn schema(&self) -> Option<&Path> {
        None
    }

    /// The type compendium `--compendium` names, for the commands that read files.
    fn compendium(&self) -> Option<&Path> {
        None
    }

    /// How the command reads files (`--lenient`); the limits are the global options.
    fn read(&self) -> ReadOptions {
        ReadOptions::default()
    }

    /// The folder the command writes whole through the schema writer, when given: it may
    /// not be, or hold, a symbolic link.
    fn folder_output(&self) -> Option<&Path> {
        None
    }

    /// Runs the command with `ctx`.
    ///
    /// # Errors
    /// As the library function it calls.
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status>;
}

/// The global options, which every command runs with.
struct Global {
    schemas: Option<PathBuf>,
    games: Option<PathBuf>,
    limits: Limits,
}

impl Global {
    /// Builds the context of `cmd` and runs it.
    fn exec(&self, cmd: impl Run, o: &mut Out<'_>) -> Result<Status> {
        let ctx = Context::new(&Options {
            schemas: self.schemas.clone(),
            games: self.games.clone(),
            schema: cmd.schema().map(Path::to_path_buf),
            read: cmd.read().with_limits(self.limits),
            compendium: cmd.compendium().map(Path::to_path_buf),
        })?;
        if let Some(dir) = cmd.folder_output() {
            hk_gen::outputs::Outputs::new().check_folder(dir)?;
        }
        cmd.run(&ctx, o)
    }
}

impl Cli {
    /// Runs the command the arguments name.
    ///
    /// # Errors
    /// A context that cannot be built (schema folders, `--schema`), or the command's error.
    pub fn run(self, o: &mut Out<'_>) -> Result<Status> {
        let g = Global {
            schemas: self.schemas,
            games: self.games,
            limits: self.limits,
        };
        match self.command {
            Command::Schema(c) => c.exec(&g, o),
            Command::Roundtrip(c) => g.exec(c, o),
            Command::Convert(c) => g.exec(c, o),
            Command::Info(c) => g.exec(c, o),
            Command::Dump(c) => g.exec(c, o),
            Command::Build(c) => g.exec(c, o),
            Command::Gen(c) => c.exec(&g, o),
            Command::Sample(c) => g.exec(c, o),
            Command::Bench(c) => g.exec(c, o),
            Command::Export(c) => g.exec(c, o),
            Command::Import(c) => g.exec(c, o),
            Command::Anim(c) => g.exec(c, o),
            Command::Render(c) => g.exec(c, o),
            Command::Mopp(c) => c.exec(&g, o),
            Command::Cm(c) => c.exec(&g, o),
            Command::Collision(c) => c.exec(&g, o),
            Command::Diff(c) => g.exec(c, o),
        }
    }
}
