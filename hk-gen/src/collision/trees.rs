//! `hk collision check` and `hk collision rebuild`: every stored tree of a file checked
//! against what it indexes, and compressed meshes rebuilt by hk's builders and compared with
//! the original (docs/collision.md, docs/compressed-mesh-encoders.md).

use std::path::Path;
use std::sync::Arc;

use hk_runtime::collision::check::{self, rebuild, TreeCheck};
use hk_runtime::collision::{self as coll, Scene};
use hk_runtime::graph::Graph;
use hk_runtime::schema::Schema;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, Out};
use crate::Status;

/// A file's graph and its collision.
fn open(ctx: &Context, path: &Path) -> Result<(Graph, Scene)> {
    let doc = ctx.open(path)?;
    let extras = match &doc.origin {
        hk_runtime::file::Origin::Tagfile { file, .. } => {
            file.phive.as_ref().map(|p| p.extras.clone())
        }
        _ => None,
    };
    let scene = coll::read_with(&doc.graph, extras.as_deref().unwrap_or(&[]))
        .map_err(|e| Error::collision(path, e))?;
    Ok((doc.graph, scene))
}

/// `hk collision check FILE...`: a line per tree of each file ([`TreeCheck::line`]);
/// [`Status::Failure`] when a tree misses an item.
///
/// # Errors
/// A file that does not read, a tree that does not decode or whose queries reach their
/// cap.
pub fn check_files(
    ctx: &Context,
    files: &[impl AsRef<Path>],
    boxes: usize,
    seed: u64,
    o: &mut Out<'_>,
) -> Result<Status> {
    let mut ok = true;
    for f in files {
        let path = f.as_ref();
        let (graph, scene) = open(ctx, path)?;
        let r =
            check::survey(&graph, &scene, boxes, seed).map_err(|e| Error::collision(path, e))?;
        outln!(o, "{}: {} trees", path.display(), r.trees.len());
        for t in &r.trees {
            let mark = if t.passes() { "ok" } else { "FAILED" };
            outln!(o, "  {mark} {}", t.line());
        }
        ok &= r.passes();
    }
    Ok(Status::from_ok(ok))
}

/// One row of the rebuild table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The shape.
    pub name: String,
    /// State bytes of the original and the rebuilt shape.
    pub bytes: (usize, usize),
    /// The checks of the original and the rebuilt tree over the same boxes.
    pub checks: (TreeCheck, TreeCheck),
}

impl Row {
    /// Rebuilt bytes over original bytes.
    pub fn bytes_ratio(&self) -> f64 {
        self.bytes.1 as f64 / self.bytes.0.max(1) as f64
    }

    /// Rebuilt nodes per box over original nodes per box.
    pub fn nodes_ratio(&self) -> f64 {
        self.checks.1.visited_per_box() / self.checks.0.visited_per_box().max(1e-9)
    }
}

/// The schema folder hk's builder for shape class `kind` writes with.
pub fn builder_schema(kind: &str) -> &'static str {
    match kind {
        "hkpBvCompressedMeshShape" => "havok-2012.2",
        "hknpCompressedMeshShape" => "havok-2016",
        _ => "havok-2023.2",
    }
}

/// Every compressed mesh and mesh shape of `graph` rebuilt by hk's builder (into the schema
/// `schema` gives for its class), compared with the original over `boxes` random boxes from
/// `seed` (over the original's items).
///
/// # Errors
/// A shape that does not decode or rebuild, a tree whose queries reach their cap.
pub fn rebuild_rows(
    graph: &Graph,
    boxes: usize,
    seed: u64,
    schema: &dyn Fn(&str) -> hk_runtime::Result<Arc<Schema>>,
) -> hk_runtime::Result<Vec<Row>> {
    let mut rows = Vec::new();
    let originals = check::subjects(graph)?;
    for (i, _) in graph.objects.iter().enumerate() {
        let id = hk_runtime::graph::ObjectId(i as u32);
        let Some(before) = rebuild::state_bytes(graph, id)? else {
            continue;
        };
        let Some(kind) = rebuild::kind(graph, id) else {
            continue;
        };
        let Some((g2, id2)) = rebuild::rebuild(graph, id, schema(kind)?)? else {
            continue;
        };
        let after = rebuild::state_bytes(&g2, id2)?.unwrap_or(0);
        let name = format!("#{i} {}", graph.class_name(id));
        let Some(orig) = originals.iter().find(|s| s.name == name) else {
            continue;
        };
        let rebuilt = check::subjects(&g2)?;
        let Some(new) = rebuilt.first() else { continue };
        let within = check::union(&orig.items);
        let b = within.map_or(Vec::new(), |w| check::random_boxes(&w, boxes, seed));
        rows.push(Row {
            name,
            bytes: (before, after),
            checks: (
                check::check_subject(orig, &b)?,
                check::check_subject(new, &b)?,
            ),
        });
    }
    Ok(rows)
}

/// `hk collision rebuild FILE`: the comparison table of [`rebuild_rows`].
///
/// # Errors
/// A file that does not read, a shape that does not rebuild.
pub fn rebuild_file(
    ctx: &Context,
    path: &Path,
    boxes: usize,
    seed: u64,
    o: &mut Out<'_>,
) -> Result<Status> {
    let (graph, _) = open(ctx, path)?;
    let schema = |kind: &str| -> hk_runtime::Result<Arc<Schema>> {
        ctx.schemas().load(builder_schema(kind))
    };
    let rows =
        rebuild_rows(&graph, boxes, seed, &schema).map_err(|e| Error::Runtime(e.in_file(path)))?;
    if rows.is_empty() {
        return Err(Error::usage(format!(
            "{}: no compressed mesh or mesh shape",
            path.display()
        )));
    }
    outln!(
        o,
        "| shape | state bytes (original → rebuilt, ratio) | nodes/box (original → rebuilt, ratio) | misses | triangles found |"
    );
    outln!(o, "|---|---|---|---|---|");
    let mut ok = true;
    for r in &rows {
        let (a, b) = &r.checks;
        outln!(
            o,
            "| {} | {} → {} ({:.2}×) | {:.1} → {:.1} ({:.2}×) | {} → {} | {}/{} → {}/{} |",
            r.name,
            r.bytes.0,
            r.bytes.1,
            r.bytes_ratio(),
            a.visited_per_box(),
            b.visited_per_box(),
            r.nodes_ratio(),
            a.misses,
            b.misses,
            a.found,
            a.items,
            b.found,
            b.items
        );
        ok &= b.passes();
    }
    Ok(Status::from_ok(ok))
}
