//! `hk cm box`: writes an id Tech cm `.hkshape` holding one box `hknpConvexPolytopeShape`
//! built by `hk_runtime::collision::hknp::build` (mass properties and penetration depth by
//! the retail box rules of docs/collision-notes.md §12), through the tagfile and cm writers
//! and the `havok-2016` schema.

use std::path::Path;

use hk_runtime::collision::hknp;
use hk_runtime::collision::hknp::build::CONVEX_RADIUS;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::outputs::Outputs;
use crate::Status;

/// The schema folder the cm writer uses.
pub const SCHEMA: &str = "havok-2016";

/// Parses `X,Y,Z` half extents: three positive finite numbers whose box has a finite
/// volume, mass and inertia.
///
/// # Errors
/// A usage error saying what is wrong.
pub fn parse_half_extents(text: &str) -> Result<[f32; 3]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(Error::usage(format!(
            "--half-extents `{text}`: expected X,Y,Z (three numbers)"
        )));
    }
    let mut h = [0f32; 3];
    for (i, p) in parts.iter().enumerate() {
        h[i] = p
            .parse()
            .map_err(|_| Error::usage(format!("--half-extents `{text}`: `{p}` is not a number")))?;
    }
    hknp::build::check_half_extents(h)
        .map_err(|e| Error::usage(format!("--half-extents `{text}`: {e}")))?;
    Ok(h)
}

/// `hk cm box --half-extents X,Y,Z -o FILE`.
///
/// # Errors
/// Bad half extents, a schema without the hknp classes, or a file that cannot be written
/// (a symbolic link is refused, [`crate::outputs`]).
pub fn box_cmd(ctx: &Context, half: [f32; 3], out: &Path, o: &mut Out<'_>) -> Result<Status> {
    hknp::build::check_half_extents(half).map_err(|e| Error::usage(e.to_string()))?;
    let outputs = Outputs::new();
    outputs.check(out)?;
    let schema = ctx.schemas().load(SCHEMA)?;
    let bytes = hknp::build::box_file(schema, half)?;
    outputs.write(out, &bytes)?;
    let m = hknp::build::box_mass(half, CONVEX_RADIUS);
    outln!(
        o,
        "{} ({} bytes): cm box hknpConvexPolytopeShape, half extents {} {} {}, convex radius {CONVEX_RADIUS}",
        out.display(),
        bytes.len(),
        half[0],
        half[1],
        half[2]
    );
    outln!(
        o,
        "volume {} mass {} inertia {} {} {} maxAllowedPenetration {}",
        m.volume,
        m.mass,
        m.inertia[0],
        m.inertia[1],
        m.inertia[2],
        hknp::build::unhalf16(m.penetration)
    );
    Ok(Status::Success)
}
