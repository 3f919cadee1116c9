//! The collision commands: meshes and pictures of a level's collision, MOPP queries and
//! id Tech cm shapes.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use hk_gen::anim::{render::When, LoadOptions, PoseOptions};
use hk_gen::collision::{self, render::RenderOptions, ExportOptions};
use hk_gen::{Context, Out, Result, Status};

use super::args::{progress, FollowSymlinks, SchemaArg};
use super::{Global, Run};

/// `hk export`.
#[derive(Debug, Args)]
pub struct Export {
    /// Files or folders.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output format (default: from the output file's extension, .gltf or .glb, else obj).
    #[arg(long, value_enum)]
    format: Option<ExportFormat>,
    /// The output file (one input file) or folder.
    #[arg(short, long)]
    out: PathBuf,
    /// The file holding the skeleton, for animation files that hold none.
    #[arg(long, value_name = "FILE")]
    skeleton: Option<PathBuf>,
    /// Leave out animations whose compression hk does not decode, instead of refusing the
    /// file.
    #[arg(long)]
    skip_undecodable: bool,
    #[command(flatten)]
    schema: SchemaArg,
    #[command(flatten)]
    follow: FollowSymlinks,
}

impl Export {
    /// `--format`, or the one the output file's extension names.
    fn format(&self) -> collision::Format {
        if let Some(f) = self.format {
            return f.into();
        }
        match self.out.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("gltf") => collision::Format::Gltf,
            Some(e) if e.eq_ignore_ascii_case("glb") => collision::Format::Glb,
            _ => collision::Format::Obj,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ExportFormat {
    /// Wavefront OBJ: `o` per body and shape, `usemtl surface_N` per surface id.
    Obj,
    /// glTF 2.0: a node per body and shape, a material per surface id, the buffer inline.
    Gltf,
    /// glTF 2.0 in the binary container (GLB).
    Glb,
}

impl From<ExportFormat> for collision::Format {
    fn from(f: ExportFormat) -> Self {
        match f {
            ExportFormat::Obj => collision::Format::Obj,
            ExportFormat::Gltf => collision::Format::Gltf,
            ExportFormat::Glb => collision::Format::Glb,
        }
    }
}

impl Run for Export {
    fn schema(&self) -> Option<&Path> {
        self.schema.get()
    }

    fn compendium(&self) -> Option<&Path> {
        self.schema.compendium()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let opts = ExportOptions {
            format: self.format(),
            out: self.out,
            progress: progress(),
            follow_symlinks: self.follow.follow_symlinks,
            skeleton: self.skeleton,
            skip_undecodable: self.skip_undecodable,
        };
        collision::export(ctx, &self.paths, &opts, o)
    }
}

/// `hk render`.
#[derive(Debug, Args)]
pub struct Render {
    /// The file.
    file: PathBuf,
    /// The PNG to write.
    #[arg(short, long)]
    out: PathBuf,
    /// Draw the triangles' edges only.
    #[arg(long)]
    wireframe: bool,
    /// The picture's size, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x600", value_name = "WxH")]
    size: String,
    /// For animation files that hold no skeleton: the file holding it.
    #[arg(long, value_name = "FILE")]
    skeleton: Option<PathBuf>,
    /// Pose the skeleton by this animation (its index among the file's, from 0).
    #[arg(long, value_name = "N")]
    animation: Option<usize>,
    /// Pose the skeleton at this stored frame of the animation.
    #[arg(long, value_name = "N", conflicts_with = "time")]
    frame: Option<usize>,
    /// Pose the skeleton at this time of the animation, in seconds.
    #[arg(long, value_name = "SECONDS")]
    time: Option<f32>,
    #[command(flatten)]
    schema: SchemaArg,
}

impl Run for Render {
    fn schema(&self) -> Option<&Path> {
        self.schema.get()
    }

    fn compendium(&self) -> Option<&Path> {
        self.schema.compendium()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let (width, height) =
            collision::render::parse_size(&self.size).map_err(hk_gen::Error::usage)?;
        let opts = RenderOptions {
            width,
            height,
            wireframe: self.wireframe,
        };
        let when = match (self.frame, self.time) {
            (Some(f), _) => When::Frame(f),
            (None, Some(t)) => When::Time(t),
            (None, None) => When::Reference,
        };
        let pose = PoseOptions {
            load: LoadOptions {
                skeleton: self.skeleton.as_deref(),
                skip_undecodable: true,
            },
            animation: self.animation,
            when,
        };
        hk_gen::anim::render_file(ctx, &self.file, &self.out, &opts, &pose, o)
    }
}

/// `hk mopp ...`.
#[derive(Debug, Subcommand)]
pub enum MoppCmd {
    /// Print the shape keys a box query returns, one per line.
    Query(MoppQuery),
    /// Run every kept triangle's own box and print `found X/Y`; check the terminals and a
    /// far box.
    Check(MoppCheck),
    /// Measure query throughput (queries per second) on random boxes, or with `--build N`
    /// the encoder's speed on a synthetic terrain of N triangles.
    Bench(MoppBench),
    /// Rebuild every MOPP code over its own triangles and compare it with the original:
    /// bytes, commands per query, keys per box, misses.
    Rebuild(MoppRebuild),
}

impl MoppCmd {
    /// Runs the subcommand.
    pub(super) fn exec(self, g: &Global, o: &mut Out<'_>) -> Result<Status> {
        match self {
            MoppCmd::Query(c) => g.exec(c, o),
            MoppCmd::Check(c) => g.exec(c, o),
            MoppCmd::Bench(c) => g.exec(c, o),
            MoppCmd::Rebuild(c) => g.exec(c, o),
        }
    }
}

/// `--schema` of the MOPP commands (the same argument, its help in short).
#[derive(Debug, Args)]
pub struct MoppSchema {
    /// Read with this schema instead of the selection rule.
    #[arg(long, value_name = "DIR|NAME")]
    schema: Option<PathBuf>,
}

/// `hk mopp query`.
#[derive(Debug, Args)]
pub struct MoppQuery {
    /// The file.
    file: PathBuf,
    /// The box, in the space of the shape under the MOPP tree.
    #[arg(
        long,
        value_name = "MINX,MINY,MINZ,MAXX,MAXY,MAXZ",
        allow_hyphen_values = true
    )]
    aabb: String,
    #[command(flatten)]
    schema: MoppSchema,
}

impl Run for MoppQuery {
    fn schema(&self) -> Option<&Path> {
        self.schema.schema.as_deref()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        collision::query(ctx, &self.file, &collision::parse_aabb(&self.aabb)?, o)
    }
}

/// `hk mopp check`.
#[derive(Debug, Args)]
pub struct MoppCheck {
    /// The file.
    file: PathBuf,
    #[command(flatten)]
    schema: MoppSchema,
}

impl Run for MoppCheck {
    fn schema(&self) -> Option<&Path> {
        self.schema.schema.as_deref()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        collision::check(ctx, &self.file, o)
    }
}

/// `hk mopp bench`.
#[derive(Debug, Args)]
pub struct MoppBench {
    /// The file (not with `--build`).
    #[arg(required_unless_present = "build")]
    file: Option<PathBuf>,
    /// Instead of queries, build a code over a synthetic terrain of this many triangles
    /// and print the seconds it took.
    #[arg(long, value_name = "N", conflicts_with = "file")]
    build: Option<usize>,
    /// Queries to run.
    #[arg(long, default_value_t = 100_000)]
    queries: usize,
    #[command(flatten)]
    schema: MoppSchema,
}

impl Run for MoppBench {
    fn schema(&self) -> Option<&Path> {
        self.schema.schema.as_deref()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        match (self.build, self.file) {
            (Some(n), _) => collision::mopp::build_bench(n, o),
            (None, Some(file)) => collision::bench(ctx, &file, self.queries, o),
            (None, None) => Err(hk_gen::Error::usage("a file or --build N")),
        }
    }
}

/// `hk mopp rebuild`.
#[derive(Debug, Args)]
pub struct MoppRebuild {
    /// The file.
    file: PathBuf,
    #[command(flatten)]
    boxes: super::trees::Boxes,
    #[command(flatten)]
    schema: MoppSchema,
}

impl Run for MoppRebuild {
    fn schema(&self) -> Option<&Path> {
        self.schema.schema.as_deref()
    }

    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        collision::mopp::rebuild(ctx, &self.file, self.boxes.boxes, self.boxes.seed, o)
    }
}

/// `hk cm ...`.
#[derive(Debug, Subcommand)]
pub enum CmCmd {
    /// A box hknpConvexPolytopeShape with retail mass, inertia and penetration values.
    Box(CmBox),
}

impl CmCmd {
    /// Runs the subcommand.
    pub(super) fn exec(self, g: &Global, o: &mut Out<'_>) -> Result<Status> {
        match self {
            CmCmd::Box(c) => g.exec(c, o),
        }
    }
}

/// `hk cm box`.
#[derive(Debug, Args)]
pub struct CmBox {
    /// Half extents X,Y,Z: positive finite numbers (id units).
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    half_extents: String,
    /// The `.hkshape` to write.
    #[arg(short, long)]
    out: PathBuf,
}

impl Run for CmBox {
    fn run(self, ctx: &Context, o: &mut Out<'_>) -> Result<Status> {
        let half = hk_gen::cm::parse_half_extents(&self.half_extents)?;
        hk_gen::cm::box_cmd(ctx, half, &self.out, o)
    }
}
