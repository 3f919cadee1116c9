//! `hk anim`: an animation's pose, per bone, at a time or every frame as JSON.

use std::path::{Path, PathBuf};

use clap::Args;
use hk_gen::anim::pose::{print, PoseQuery};
use hk_gen::anim::LoadOptions;
use hk_gen::{Context, Out, Result, Status};

use super::args::SchemaArg;
use super::Run;

/// `hk anim`.
#[derive(Debug, Args)]
pub struct Anim {
    /// The animation file.
    file: PathBuf,
    /// For animation files that hold no skeleton: the file holding it.
    #[arg(long, value_name = "FILE")]
    skeleton: Option<PathBuf>,
    /// The animation (its index among the file's decoded ones, from 0).
    #[arg(long, value_name = "N")]
    animation: Option<usize>,
    /// Only this bone.
    #[arg(long, value_name = "NAME")]
    bone: Option<String>,
    /// The time in seconds, clamped to the animation; sampled by the format's own
    /// interpolation rule.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 0.0,
        conflicts_with = "json"
    )]
    time: f32,
    /// Print every stored frame as JSON instead.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    schema: SchemaArg,
}

impl Run for Anim {
    fn schema(&self) -> Option<&Path> {
        self.schema.get()
    }

    fn compendium(&self) -> Option<&Path> {
        self.schema.compendium()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let q = PoseQuery {
            load: LoadOptions {
                skeleton: self.skeleton.as_deref(),
                skip_undecodable: true,
            },
            animation: self.animation,
            bone: self.bone.as_deref(),
            time: self.time,
        };
        print(ctx, &self.file, &q, self.json, o)
    }
}
