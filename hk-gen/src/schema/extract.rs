//! `hk schema extract FILE... -o DIR`: the classes files describe, as a schema folder: a
//! packfile's own class metadata (`__types__`), the merged type tables of tagfiles of
//! one SDK version, or the merged class definitions of old binary tagfiles.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hk_runtime::file::{self, Container, SchemaChoice};
use hk_runtime::packfile::{metadata, Packfile};
use hk_runtime::tagfile::TagFile;
use hk_runtime::ReadOptions;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// Extracts the schema `files` describe into `out`. `name` names a tagfile generation
/// (default `havok-<sdk>`); `reflection` is the schema whose reflection classes read a
/// packfile's metadata (default: the generation its header matches).
///
/// # Errors
/// A file that does not read or describes no classes, tagfiles of several SDK versions,
/// several packfiles, or a folder that cannot be written.
pub fn extract(
    ctx: &Context,
    files: &[PathBuf],
    out: &Path,
    name: Option<&str>,
    reflection: Option<&Path>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let mut data = Vec::with_capacity(files.len());
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| Error::io(f, e))?;
        let kind = file::detect(&bytes).ok_or_else(|| {
            hk_runtime::Error::read(hk_runtime::error::ReadError::BadMagic)
                .at(0)
                .in_file(f)
        })?;
        data.push((kind, bytes));
    }
    if data.iter().all(|(k, _)| *k == Container::Tagfile) {
        return tagfiles(files, &data, out, name, o);
    }
    if data.iter().all(|(k, _)| *k == Container::BinaryTagfile) {
        return binary_tagfiles(ctx, files, &data, out, name, o);
    }
    let ([file], [(_, bytes)]) = (files, &data[..]) else {
        return Err(Error::usage(
            "packfile extraction takes one file (tagfiles may be merged)",
        ));
    };
    let in_file = |e: hk_runtime::Error| Error::from(e.in_file(file));
    let pf = Packfile::parse(bytes).map_err(in_file)?;
    let none = || {
        Error::usage(format!(
            "{}: the file carries no class metadata (its __types__ section is empty)",
            file.display()
        ))
    };
    let (schema, label) = match reflection {
        Some(r) => {
            let n = ctx.schema_arg(r)?;
            let own = metadata::extract(&pf, &n.schema).map_err(in_file)?;
            (Arc::new(own.ok_or_else(none)?), n.label)
        }
        // The front door's rule reads such a file with its own metadata (leniently: a file
        // of a version without a folder is what extraction is for).
        None => match ctx
            .schemas()
            .select(&pf, &ReadOptions::lenient())
            .map_err(in_file)?
        {
            (own, choice @ SchemaChoice::Metadata { .. }) => {
                if let Some(w) = choice.warning() {
                    warnln!(o, "{}: {w}", file.display());
                }
                (own, choice.name().to_string())
            }
            _ => return Err(none()),
        },
    };
    schema.to_folder(out)?;
    outln!(
        o,
        "{}: wrote {} classes ({} {}, reflection classes from {label}) to {}",
        file.display(),
        schema.classes().len(),
        pf.header.contents_version(),
        pf.rules(),
        out.display()
    );
    Ok(Status::Success)
}

fn binary_tagfiles(
    ctx: &Context,
    files: &[PathBuf],
    data: &[(Container, Vec<u8>)],
    out: &Path,
    name: Option<&str>,
    o: &mut Out<'_>,
) -> Result<Status> {
    use hk_runtime::tagfile::binary;
    let mut read = Vec::with_capacity(files.len());
    for (f, (_, d)) in files.iter().zip(data) {
        read.push(binary::read(d, ctx.read_options()).map_err(|e| e.in_file(f))?);
    }
    let refs: Vec<&binary::BinaryTagfile> = read.iter().map(|r| &r.file).collect();
    let name = name.map_or_else(|| refs[0].schema_name(), str::to_string);
    let depth = ctx.read_options().limits.depth();
    let schema = binary::schema::extract_within(&refs, &name, depth)?;
    schema.to_folder(out)?;
    outln!(
        o,
        "{} binary tagfile(s): wrote {} classes ({name}) to {}",
        files.len(),
        schema.classes().len(),
        out.display()
    );
    Ok(Status::Success)
}

fn tagfiles(
    files: &[PathBuf],
    data: &[(Container, Vec<u8>)],
    out: &Path,
    name: Option<&str>,
    o: &mut Out<'_>,
) -> Result<Status> {
    let mut tfs = Vec::new();
    for (f, (_, d)) in files.iter().zip(data) {
        tfs.push(TagFile::parse(d).map_err(|e| e.in_file(f))?);
    }
    let refs: Vec<&TagFile> = tfs.iter().collect();
    let sdk = tfs[0].sdk_version.clone();
    if let Some(other) = tfs.iter().find(|t| t.sdk_version != sdk) {
        return Err(Error::usage(format!(
            "the tagfiles are of different SDK versions ({sdk} and {})",
            other.sdk_version
        )));
    }
    let name = name.map_or_else(|| format!("havok-{sdk}"), str::to_string);
    let schema = hk_runtime::tagfile::schema::extract(&refs, &name)?;
    schema.to_folder(out)?;
    let gaps = schema
        .classes()
        .iter()
        .filter(|c| c.members.iter().any(|m| m.gap_before > 0))
        .count();
    outln!(
        o,
        "{} tagfile(s) of SDK {sdk}: wrote {} classes ({}; {gaps} with inferred gaps) to {}",
        files.len(),
        schema.classes().len(),
        schema.generation.layout,
        out.display()
    );
    Ok(Status::Success)
}
