//! `hk import`: meshes a user edited, put into a Havok file's collision; or, with
//! `--skeleton`, a glTF animation written as a Havok animation.

use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args};
use hk_gen::collision::import::{self, ImportOptions, Target};
use hk_gen::motion::{self, MotionOptions};
use hk_gen::{Context, Out, Result, Status};
use hk_runtime::anim::spline_encode::Tolerance;
use hk_runtime::anim::write::Compression;

use super::args::SchemaArg;
use super::Run;

/// `hk import MESH (--into FILE | --game PROFILE | --like FILE) -o OUT`, or
/// `hk import MOTION --skeleton FILE (--into FILE | --game PROFILE) -o OUT`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["into", "game", "like"])))]
pub struct Import {
    /// The mesh file: OBJ, glTF or GLB, objects named `body/shape` as `hk export` writes
    /// them; or, with --skeleton, a glTF or GLB animation of nodes named as the bones.
    mesh: PathBuf,
    /// The file holding the skeleton a motion animates: MESH is then a motion.
    #[arg(long, value_name = "FILE")]
    skeleton: Option<PathBuf>,
    /// Compress the motion: `spline` (within --tolerance); uncompressed without.
    #[arg(long, value_name = "KIND", value_parser = ["spline"], requires = "skeleton")]
    compress: Option<String>,
    /// The spline tolerance: translation in the skeleton's units, rotation in degrees,
    /// optionally scale.
    #[arg(
        long,
        value_name = "POS,ROT[,SCALE]",
        default_value = "0.001,0.1,0.001"
    )]
    tolerance: String,
    /// Frames per second of the motion [default: the rate of its keyframe times].
    #[arg(long, value_name = "N", requires = "skeleton")]
    fps: Option<f32>,
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

    fn compendium(&self) -> Option<&Path> {
        self.schema.compendium()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        if let Some(skeleton) = self.skeleton.clone() {
            return self.motion(ctx, skeleton, o);
        }
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

impl Import {
    /// The motion import: `--into` or `--game`, uncompressed or spline compressed.
    fn motion(self, ctx: &Context, skeleton: PathBuf, o: &mut Out<'_>) -> Result<Status> {
        let target = match (self.into, self.game, self.like) {
            (Some(f), _, _) => motion::Target::Into(f),
            (_, Some(g), _) => motion::Target::Game(g),
            _ => {
                return Err(hk_gen::Error::usage(
                    "hk import of a motion needs --into FILE or --game PROFILE",
                ))
            }
        };
        let compression = match self.compress.as_deref() {
            Some(_) => Compression::Spline(tolerance(&self.tolerance)?),
            None => Compression::Uncompressed,
        };
        let opts = MotionOptions {
            input: self.mesh,
            skeleton,
            target,
            out: self.out,
            compression,
            fps: self.fps,
        };
        motion::import(ctx, &opts, o)
    }
}

/// `POS,ROT[,SCALE]` as a tolerance (scale 0.001 when not given).
fn tolerance(text: &str) -> Result<Tolerance> {
    let v: Vec<f32> = text
        .split(',')
        .map(|x| x.trim().parse::<f32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            hk_gen::Error::usage(format!("--tolerance {text}: expected POS,ROT[,SCALE]"))
        })?;
    match v.as_slice() {
        [p, r] | [p, r, _] if v.iter().all(|x| x.is_finite() && *x > 0.0) => Ok(Tolerance {
            position: *p,
            rotation_deg: *r,
            scale: v.get(2).copied().unwrap_or(0.001),
        }),
        _ => Err(hk_gen::Error::usage(format!(
            "--tolerance {text}: expected two or three positive numbers"
        ))),
    }
}
