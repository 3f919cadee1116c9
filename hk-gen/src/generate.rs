//! `hk gen crate` and `hk gen all`: typed crates for game profiles. Generated crates
//! depend on the hk crates by path, so these commands need an hk source checkout:
//! `--hk-path`, or the checkout `hk` was built from while it still exists.

use std::path::{Path, PathBuf};

use crate::context::{load_dir, Context, GamesSource};
use crate::embedded::{self, SchemaFiles};
use crate::error::{Error, Result};
use crate::gen::{self, Profile};
use crate::out::{outln, Out};
use crate::Status;

/// The checkout `hk` was built from, if it is still there.
pub fn build_checkout() -> Option<PathBuf> {
    let dir = PathBuf::from(option_env!("HK_BUILD_CHECKOUT")?);
    is_checkout(&dir).then_some(dir)
}

fn is_checkout(dir: &Path) -> bool {
    dir.join("hk-runtime/Cargo.toml").is_file() && dir.join("hk-derive/Cargo.toml").is_file()
}

/// The hk checkout generated crates depend on: `hk_path`, else [`build_checkout`].
///
/// # Errors
/// `hk_path` is not a checkout, or none is known.
pub fn checkout(hk_path: Option<&Path>) -> Result<PathBuf> {
    match hk_path {
        Some(p) if is_checkout(p) => Ok(p.canonicalize().unwrap_or_else(|_| p.to_path_buf())),
        Some(p) => Err(Error::NoCheckout(format!(
            "--hk-path {}: not an hk checkout (no hk-runtime/Cargo.toml and hk-derive/Cargo.toml there)",
            p.display()
        ))),
        None => build_checkout().ok_or_else(|| {
            Error::NoCheckout(
                "generated crates depend on the hk crates by path: pass --hk-path DIR (an hk checkout); the checkout hk was built from is gone"
                    .into(),
            )
        }),
    }
}

/// Profile `name_or_path`: a `.toml` file, else `NAME.toml` of the context's profiles.
///
/// # Errors
/// No such profile, or it does not parse.
pub fn profile(ctx: &Context, name_or_path: &str) -> Result<Profile> {
    let p = Path::new(name_or_path);
    let (path, text) = if p.extension().is_some_and(|e| e == "toml") {
        (p.to_path_buf(), read(p)?)
    } else {
        let file = format!("{name_or_path}.toml");
        match ctx.games() {
            GamesSource::Dir(d) => (d.join(&file), read(&d.join(&file))?),
            GamesSource::BuiltIn => embedded::games()
                .into_iter()
                .find(|(p, _)| p == Path::new(&file))
                .ok_or_else(|| {
                    let known: Vec<String> = embedded::games()
                        .iter()
                        .filter_map(|(p, _)| Some(p.file_stem()?.to_string_lossy().into_owned()))
                        .collect();
                    Error::usage(format!(
                        "no game profile `{name_or_path}` (built in: {})",
                        known.join(", ")
                    ))
                })?,
        }
    };
    Profile::parse(&path, &text)
}

fn read(p: &Path) -> Result<String> {
    std::fs::read_to_string(p).map_err(|e| Error::io(p, e))
}

/// Every profile of the context, by file name.
///
/// # Errors
/// A profile folder that cannot be listed, or a profile that does not parse.
pub fn profiles(ctx: &Context) -> Result<Vec<Profile>> {
    let texts = match ctx.games() {
        GamesSource::BuiltIn => embedded::games(),
        GamesSource::Dir(d) => {
            let mut paths: Vec<PathBuf> = std::fs::read_dir(d)
                .map_err(|e| Error::io(d, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            paths.sort();
            paths
                .into_iter()
                .map(|p| read(&p).map(|t| (p, t)))
                .collect::<Result<_>>()?
        }
    };
    texts.iter().map(|(p, t)| Profile::parse(p, t)).collect()
}

/// `hk gen crate --game PROFILE --out DIR`: a standalone crate for one profile, from its
/// generation (or the schema folder `schema`).
///
/// # Errors
/// An unknown profile, a missing or pending generation, no checkout, or a file that
/// cannot be written.
pub fn gen_crate(
    ctx: &Context,
    game: &str,
    out: &Path,
    schema: Option<&Path>,
    hk_path: Option<&Path>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let profile = profile(ctx, game)?;
    let hk_root = checkout(hk_path)?;
    let (schema, files, from) = match schema {
        Some(d) if d.is_dir() => (
            std::sync::Arc::new(load_dir(d)?),
            SchemaFiles::from_dir(d)?,
            d.display().to_string(),
        ),
        Some(d) => {
            let name = d.to_string_lossy();
            (
                ctx.schemas().load(&name)?,
                ctx.schema_files(&name)?,
                name.into_owned(),
            )
        }
        None => {
            if !ctx.has_generation(&profile.generation) {
                return Err(match &profile.pending {
                    Some(p) => Error::Profile {
                        name: profile.name.clone(),
                        message: format!("cannot be generated yet: {p}"),
                    },
                    None => Error::Profile {
                        name: profile.name.clone(),
                        message: format!("no schema folder `{}`", profile.generation),
                    },
                });
            }
            (
                ctx.schemas().load(&profile.generation)?,
                ctx.schema_files(&profile.generation)?,
                profile.generation.clone(),
            )
        }
    };
    let g = gen::generate(&profile, &schema, &files, out, &hk_root)?;
    outln!(
        o,
        "{}: {} classes ({} roots and their closure), {} enums, from {from} -> {}",
        g.crate_name,
        g.classes,
        profile.roots.len(),
        g.enums,
        out.display()
    );
    Ok(Status::Success)
}

/// `hk gen all`: every profile generated, built offline and its samples (and corpus
/// files, when `corpus` or the checkout's `../shared/corpus` has a `MANIFEST.tsv`) taken
/// through the generated types. A relative `out` is under the checkout; without one, the
/// crates go to `hk-games` in `$CARGO_TARGET_DIR` when it is set, else in the checkout's
/// `target/`.
///
/// # Errors
/// No checkout, a profile that does not parse, or cargo not found.
pub fn gen_all(
    ctx: &Context,
    out: Option<&Path>,
    hk_path: Option<&Path>,
    corpus: Option<&Path>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let here = checkout(hk_path)?;
    let corpus = corpus
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.join("../shared/corpus"));
    let corpus = corpus.join("MANIFEST.tsv").is_file().then_some(corpus);
    let out = match out {
        Some(out) => here.join(out),
        None => match std::env::var_os("CARGO_TARGET_DIR") {
            Some(t) => here.join(t).join("hk-games"),
            None => here.join("target/hk-games"),
        },
    };
    outln!(
        o,
        "generating the game crates into {} (first build takes a minute)",
        out.display()
    );
    let outcomes = gen::all(profiles(ctx)?, ctx, &out, &here, corpus.as_deref())?;
    for oc in &outcomes {
        outln!(o, "{:<16} {}", oc.profile, oc.summary);
    }
    if corpus.is_none() {
        outln!(o, "(no corpus found: only the bundled samples were read)");
    }
    Ok(Status::from_ok(outcomes.iter().all(|oc| oc.ok)))
}
