//! `hk import`: meshes a user edited, put into a Havok file's collision.

use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args};
use hk_gen::collision::import::{self, ImportOptions, Target};
use hk_gen::{Context, Out, Result, Status};

use super::args::SchemaArg;
use super::Run;

/// `hk import MESH (--into FILE | --game PROFILE | --like FILE) -o OUT`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["into", "game", "like"])))]
pub struct Import {
    /// The mesh file: OBJ, glTF or GLB, objects named `body/shape` as `hk export` writes
    /// them.
    mesh: PathBuf,
    /// Replace the collision geometry of this file, keeping everything else.
    #[arg(long, value_name = "FILE")]
    into: Option<PathBuf>,
    /// Make a new file for this game profile.
    #[arg(long, value_name = "PROFILE")]
    game: Option<String>,
    /// Make a new file laid out like this one.
    #[arg(long, value_name = "FILE")]
    like: Option<PathBuf>,
    /// The file to write.
    #[arg(short, long)]
    out: PathBuf,
    /// Keep shapes no mesh object names, and pass over mesh objects that name no shape.
    #[arg(long)]
    allow_missing: bool,
    /// Random boxes the check of the written file runs against brute force.
    #[arg(long, default_value_t = import::BOXES, value_name = "N")]
    boxes: usize,
    #[command(flatten)]
    schema: SchemaArg,
}

impl Run for Import {
    fn schema(&self) -> Option<&Path> {
        self.schema.get()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let target = match (self.into, self.game, self.like) {
            (Some(f), _, _) => Target::Into(f),
            (_, Some(g), _) => Target::Game(g),
            (_, _, Some(f)) => Target::Like(f),
            _ => {
                return Err(hk_gen::Error::usage(
                    "hk import needs one of --into FILE, --game PROFILE, --like FILE",
                ))
            }
        };
        let opts = ImportOptions {
            mesh: self.mesh,
            target,
            out: self.out,
            allow_missing: self.allow_missing,
            boxes: self.boxes,
        };
        import::import(ctx, &opts, o)
    }
}
