//! `hk collision ...`: checks of every stored tree, and compressed meshes rebuilt by hk's
//! builders against their originals.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use hk_gen::collision::trees;
use hk_gen::{Context, Out, Result, Status};

use super::args::SchemaArg;
use super::{Global, Run};

/// `hk collision ...`.
#[derive(Debug, Subcommand)]
pub enum CollisionCmd {
    /// Check every tree of each file (MOPP codes, compressed-mesh, compound and mesh-shape
    /// trees): every triangle found by its own box, random boxes against brute force. Exits
    /// non-zero when a tree misses a triangle.
    Check(CollisionCheck),
    /// Rebuild each compressed mesh or mesh shape with hk's builder and compare state bytes
    /// and nodes visited per random box with the original.
    Rebuild(CollisionRebuild),
}

impl CollisionCmd {
    /// Runs the subcommand.
    pub(super) fn exec(self, g: &Global, o: &mut Out<'_>) -> Result<Status> {
        match self {
            CollisionCmd::Check(c) => g.exec(c, o),
            CollisionCmd::Rebuild(c) => g.exec(c, o),
        }
    }
}

/// The random boxes a tree check runs (the same through the original and a rebuilt tree).
#[derive(Debug, Args)]
pub struct Boxes {
    /// Random boxes per tree, each compared with brute force.
    #[arg(long, default_value_t = 10_000)]
    pub boxes: usize,
    /// Where the random boxes start (the same number gives the same boxes).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `hk collision check`.
#[derive(Debug, Args)]
pub struct CollisionCheck {
    /// The files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    boxes: Boxes,
    #[command(flatten)]
    schema: SchemaArg,
}

impl Run for CollisionCheck {
    fn schema(&self) -> Option<&Path> {
        self.schema.get()
    }

    fn compendium(&self) -> Option<&Path> {
        self.schema.compendium()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        trees::check_files(ctx, &self.files, self.boxes.boxes, self.boxes.seed, o)
    }
}

/// `hk collision rebuild`.
#[derive(Debug, Args)]
pub struct CollisionRebuild {
    /// The file.
    file: PathBuf,
    #[command(flatten)]
    boxes: Boxes,
    #[command(flatten)]
    schema: SchemaArg,
}

impl Run for CollisionRebuild {
    fn schema(&self) -> Option<&Path> {
        self.schema.get()
    }

    fn compendium(&self) -> Option<&Path> {
        self.schema.compendium()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        trees::rebuild_file(ctx, &self.file, self.boxes.boxes, self.boxes.seed, o)
    }
}
