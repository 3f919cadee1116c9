//! `hk info`, `hk dump`, `hk build` and `hk diff`.

use crate::out::outln;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use hk_runtime::graph::{Graph, Value};
use hk_runtime::packfile::read::{read, ReadOptions};
use hk_runtime::packfile::{write::write, Packfile};
use hk_runtime::schema::catalog;
use hk_runtime::{dump, Schema};

use crate::schemas::{self, Roots};

/// Dump formats.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// TOML.
    Toml,
}

/// A file read into a graph, with the generation schema that decoded it.
pub struct Opened {
    /// The schema folder.
    pub schema_dir: PathBuf,
    /// The graph.
    pub graph: Graph,
    /// Lenient-mode findings.
    pub violations: Vec<hk_runtime::packfile::read::Violation>,
}

/// Reads `file` with the generation schema matching its header.
pub fn open(file: &Path, roots: &Roots, lenient: bool) -> Result<Opened, String> {
    let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if !data.starts_with(&hk_runtime::packfile::header::MAGIC)
        && hk_runtime::tagfile::locate(&data).is_some()
    {
        let tf =
            hk_runtime::tagfile::TagFile::parse(&data).map_err(|e| e.in_file(file).to_string())?;
        let graph =
            hk_runtime::tagfile::graph(&tf, &data).map_err(|e| e.in_file(file).to_string())?;
        let (schema_dir, _) =
            catalog::for_tagfile(roots.dir(), &tf.sdk_version).ok_or_else(|| {
                format!(
                    "{}: no tagfile schema for SDK {}",
                    file.display(),
                    tf.sdk_version
                )
            })?;
        return Ok(Opened {
            schema_dir,
            graph,
            violations: Vec::new(),
        });
    }
    let pf = Packfile::parse(&data).map_err(|e| e.in_file(file).to_string())?;
    let schema_dir = roots.for_packfile(&pf.header).ok_or_else(|| {
        format!(
            "{}: no schema folder matches file version {} ({})",
            file.display(),
            pf.header.file_version,
            pf.header.contents_version()
        )
    })?;
    let schema = schemas::load(&schema_dir)?;
    let (graph, violations) =
        read(&pf, &schema, ReadOptions { lenient }).map_err(|e| e.in_file(file).to_string())?;
    Ok(Opened {
        schema_dir,
        graph,
        violations,
    })
}

/// `hk info FILE`.
pub fn info(file: &Path, roots: &Roots) -> Result<ExitCode, String> {
    let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if !data.starts_with(&hk_runtime::packfile::header::MAGIC) {
        if let Some(at) = hk_runtime::tagfile::locate(&data) {
            return super::tagfile::info(file, &data, at);
        }
    }
    let pf = Packfile::parse(&data).map_err(|e| e.in_file(file).to_string())?;
    let h = &pf.header;
    outln!("{}", file.display());
    outln!(
        "  packfile version {} \"{}\", {}",
        h.file_version,
        h.contents_version(),
        h.layout
    );
    outln!(
        "  user tag {}, root at section {} +0x{:X}",
        h.user_tag,
        h.contents_section,
        h.contents_offset
    );
    for s in &pf.sections {
        let local = s.global_fixups - s.local_fixups;
        let global = s.virtual_fixups - s.global_fixups;
        outln!(
            "  section {} {:<15} at 0x{:06X}: {} data bytes, fixup tables {} / {} / {} bytes",
            s.index,
            s.tag,
            s.start,
            s.local_fixups,
            local,
            global,
            s.exports - s.virtual_fixups
        );
    }
    let mut counts: Vec<(String, usize)> = Vec::new();
    for (_, c) in pf.objects() {
        match counts.iter_mut().find(|(n, _)| n == c) {
            Some(e) => e.1 += 1,
            None => counts.push((c.to_string(), 1)),
        }
    }
    outln!("  classes (stored signature, objects):");
    for cn in &pf.class_names {
        let n = counts
            .iter()
            .find(|(c, _)| *c == cn.name)
            .map_or(0, |c| c.1);
        outln!("    {:<48} 0x{:08X} {n}", cn.name, cn.signature);
    }
    if let Some(dir) = roots.for_packfile(h) {
        outln!("  schema: {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `hk dump FILE`.
pub fn dump_cmd(
    file: &Path,
    format: Format,
    out: Option<&Path>,
    lenient: bool,
    roots: &Roots,
) -> Result<ExitCode, String> {
    let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if !data.starts_with(&hk_runtime::packfile::header::MAGIC)
        && hk_runtime::tagfile::locate(&data).is_some()
    {
        let doc = super::tagfile::dump(file, &data)?;
        return emit(&doc, format, out);
    }
    let o = open(file, roots, lenient)?;
    for v in &o.violations {
        eprintln!(
            "warning: {}: at 0x{:X}: {}: {}",
            file.display(),
            v.offset,
            v.path,
            v.message
        );
    }
    let mut doc = dump::to_json(&o.graph);
    if let Some(m) = doc.as_object_mut() {
        let name = o
            .schema_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        m.insert("schema".into(), serde_json::Value::String(name));
    }
    emit(&doc, format, out)
}

fn emit(doc: &serde_json::Value, format: Format, out: Option<&Path>) -> Result<ExitCode, String> {
    let text = match format {
        Format::Json => serde_json::to_string_pretty(doc).map_err(|e| e.to_string())?,
        Format::Toml => {
            toml::to_string_pretty(&dump::json_to_toml(doc)).map_err(|e| e.to_string())?
        }
    };
    match out {
        Some(p) => std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?,
        None => crate::out::print(&text),
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads a dump (JSON or TOML, by extension, else by content).
pub fn load_dump(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let is_toml =
        path.extension().is_some_and(|e| e == "toml") || !text.trim_start().starts_with('{');
    if is_toml {
        let t: toml::Value =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(dump::toml_to_json(&t))
    } else {
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The schema a dump names, else the one matching its versions.
pub fn dump_schema(doc: &serde_json::Value, roots: &Roots) -> Result<Schema, String> {
    let named = doc
        .get("schema")
        .and_then(|v| v.as_str())
        .map(|n| roots.dir().join(n))
        .filter(|p| p.is_dir());
    let file = doc.get("file").ok_or("not an hk dump: no `file`")?;
    let tagfile_sdk = (doc.get("container").and_then(|c| c.as_str()) == Some("tagfile"))
        .then(|| doc.get("sdk_version").and_then(|v| v.as_str()))
        .flatten();
    let dir = named
        .or_else(|| catalog::for_tagfile(roots.dir(), tagfile_sdk?).map(|(p, _)| p))
        .or_else(|| {
            catalog::for_version(
                roots.dir(),
                file.get("file_version")?.as_u64()? as u32,
                file.get("contents_version")?.as_str()?,
            )
        })
        .ok_or("no schema folder matches the dump")?;
    schemas::load(&dir)
}

/// `hk build DUMP -o FILE`.
pub fn build(dump_path: &Path, out: &Path, roots: &Roots) -> Result<ExitCode, String> {
    let doc = load_dump(dump_path)?;
    let schema = dump_schema(&doc, roots)?;
    let graph = dump::from_json(&doc, &schema).map_err(|e| e.in_file(dump_path).to_string())?;
    let bytes = if doc.get("container").and_then(|c| c.as_str()) == Some("tagfile") {
        super::tagfile::build(&doc, &graph, &schema)
            .map_err(|e| format!("{}: {e}", dump_path.display()))?
    } else {
        write(&graph, &schema).map_err(|e| e.to_string())?
    };
    std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    outln!(
        "wrote {} ({} bytes, {} objects)",
        out.display(),
        bytes.len(),
        graph.objects.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `hk diff A B`: member-by-member differences between two files' graphs.
pub fn diff(a: &Path, b: &Path, roots: &Roots) -> Result<ExitCode, String> {
    let ga = open(a, roots, true)?.graph;
    let gb = open(b, roots, true)?.graph;
    let mut lines = Vec::new();
    if ga.info != gb.info {
        lines.push(format!("file info differs: {:?} vs {:?}", ga.info, gb.info));
    }
    if ga.objects.len() != gb.objects.len() {
        lines.push(format!(
            "{} objects vs {}",
            ga.objects.len(),
            gb.objects.len()
        ));
    }
    for (i, (oa, ob)) in ga.objects.iter().zip(&gb.objects).enumerate() {
        if oa.class != ob.class {
            lines.push(format!("#{i}: class {} vs {}", oa.class, ob.class));
            continue;
        }
        for (fa, fb) in oa.fields.iter().zip(&ob.fields) {
            diff_value(
                &format!("#{i} {}.{}", oa.class, fa.name),
                &fa.value,
                &fb.value,
                &mut lines,
            );
        }
    }
    for l in lines.iter().take(200) {
        outln!("{l}");
    }
    if lines.len() > 200 {
        outln!("... and {} more", lines.len() - 200);
    }
    outln!("{} difference(s)", lines.len());
    Ok(if lines.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn diff_value(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Struct(fa), Value::Struct(fb)) => {
            for (x, y) in fa.iter().zip(fb) {
                diff_value(&format!("{path}.{}", x.name), &x.value, &y.value, out);
            }
        }
        (Value::Array(xa) | Value::CArray(xa), Value::Array(xb) | Value::CArray(xb)) => {
            if xa.len() != xb.len() {
                out.push(format!("{path}: {} elements vs {}", xa.len(), xb.len()));
            }
            for (i, (x, y)) in xa.iter().zip(xb).enumerate() {
                diff_value(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ if a != b => out.push(format!("{path}: {} vs {}", dump_text(a), dump_text(b))),
        _ => {}
    }
}

fn dump_text(v: &Value) -> String {
    let s = format!("{v:?}");
    if s.len() > 80 {
        format!("{}…", &s[..80])
    } else {
        s
    }
}
