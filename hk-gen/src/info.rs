//! `hk info FILE`: the container (a packfile's header, sections and classes; a tagfile's
//! cm or phive container, section tree and type table; an old binary tagfile's version and
//! class definitions), which schema read the objects and how it was chosen, and how many
//! objects there are.

use std::path::Path;

use hk_runtime::file::{self, Container, Document, Origin};
use hk_runtime::packfile::Packfile;
use hk_runtime::tagfile::phive::Extra;
use hk_runtime::tagfile::{cm, Section, TagFile};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::out::{outln, warnln, Out};
use crate::Status;

/// Prints what file `path` holds, read as the context says ([`Context::read_options`]).
///
/// # Errors
/// A file that cannot be read or is no Havok file; one whose objects do not read is an
/// error after its container facts are printed.
pub fn info(ctx: &Context, path: &Path, o: &mut Out<'_>) -> Result<Status> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let in_file = |e: hk_runtime::Error| Error::from(e.in_file(path));
    let opened = file::open(&bytes, ctx.schemas(), ctx.read_options()).map_err(in_file);
    outln!(o, "{}", path.display());
    match file::detect(&bytes) {
        Some(Container::Packfile) => packfile(&Packfile::parse(&bytes).map_err(in_file)?, o)?,
        Some(Container::Tagfile) => match &opened {
            Ok(Document {
                origin: Origin::Tagfile { file, .. },
                ..
            }) => tagfile(file, &bytes, o)?,
            _ => tagfile(&TagFile::parse(&bytes).map_err(in_file)?, &bytes, o)?,
        },
        // The version and class definitions are read with the objects: shown when they read.
        Some(Container::BinaryTagfile) => {
            if let Ok(doc) = &opened {
                binary_tagfile(doc, o)?;
            }
        }
        None => {}
    }
    let doc = opened?;
    if let (None, Origin::Packfile(p)) = (file::detect(&bytes), &doc.origin) {
        outln!(
            o,
            "  Havok XML: packfile version {} \"{}\", read as laid out {}",
            p.file_version,
            p.contents_version,
            p.layout
        );
    }
    outln!(o, "  schema: {}", doc.schema.describe());
    let borrowed = doc.schema.borrowed();
    if !borrowed.is_empty() {
        outln!(o, "  borrowed classes (folder, stored signature):");
        for b in borrowed {
            let sig = b.signature.map_or_else(
                || "- (a borrowed class needs it)".to_string(),
                |s| format!("0x{s:08X}"),
            );
            outln!(o, "    {:<48} {:<14} {sig}", b.class, b.folder);
        }
    }
    warnings(path, &doc, o)?;
    outln!(
        o,
        "  {} objects, root #{} {} (`hk dump` lists them)",
        doc.graph.objects.len(),
        doc.graph.root.0,
        doc.graph.class_name(doc.graph.root)
    );
    for line in crate::anim::describe(&doc.graph) {
        outln!(o, "  {line}");
    }
    Ok(Status::Success)
}

/// Prints what a read warns about: a schema that fails the selection rule's check (read
/// leniently, or named by `--schema`), and a lenient read's violations.
///
/// # Errors
/// Only when the warning stream fails.
pub fn warnings(path: &Path, doc: &Document, o: &mut Out<'_>) -> Result<()> {
    if let Some(w) = doc.schema.warning() {
        warnln!(o, "{}: {w}", path.display());
    }
    // One line per rule broken, however often (docs/packfile-format.md §9).
    for v in &doc.violations {
        let times = match v.count {
            1 => String::new(),
            n => format!(" ({n} times; the first)"),
        };
        warnln!(
            o,
            "{}: {}{times}: at 0x{:X}: {}: {}",
            path.display(),
            v.rule,
            v.offset,
            v.path,
            v.message
        );
    }
    Ok(())
}

fn packfile(pf: &Packfile<'_>, o: &mut Out<'_>) -> Result<()> {
    let h = &pf.header;
    outln!(
        o,
        "  packfile version {} \"{}\", {}",
        h.file_version,
        h.contents_version(),
        h.layout
    );
    outln!(
        o,
        "  user tag {}, root at section {} +0x{:X}",
        h.user_tag,
        h.contents_section,
        h.contents_offset
    );
    for s in &pf.sections {
        let local = s.global_fixups - s.local_fixups;
        let global = s.virtual_fixups - s.global_fixups;
        outln!(
            o,
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
    let mut counts = vec![0usize; pf.class_names.len()];
    for &(_, name) in pf.object_table() {
        counts[name as usize] += 1;
    }
    outln!(o, "  classes (stored signature, objects):");
    for (cn, n) in pf.class_names.iter().zip(counts) {
        outln!(o, "    {:<48} 0x{:08X} {n}", cn.name, cn.signature);
    }
    if !pf.exports.is_empty() || !pf.imports.is_empty() {
        outln!(
            o,
            "  {} exports, {} imports",
            pf.exports.len(),
            pf.imports.len()
        );
    }
    Ok(())
}

fn tagfile(tf: &TagFile, bytes: &[u8], o: &mut Out<'_>) -> Result<()> {
    let at = tf.offset;
    if let Some(c) = &tf.cm {
        outln!(
            o,
            "  id Tech cm container: {} surface records of {} bytes (record version {}), blob of {} bytes",
            c.records.len(),
            cm::stride(c.version),
            if cm::has_f3(c.version) { "0x12 or later" } else { "before 0x12" },
            c.blob_size
        );
        for (i, r) in c.records.iter().enumerate() {
            outln!(
                o,
                "    [{i}] contents 0x{:X}, surface type {}, flags 0x{:X}, f3 {}, f4..f6 {} {} {}",
                r.contents,
                r.surface_type,
                r.surface_flags,
                r.f3,
                r.f4,
                r.f5,
                r.f6
            );
        }
    } else if let Some(p) = &tf.phive {
        outln!(
            o,
            "  phive container: file type {}, {} section slots, tagfile at 0x{at:X}",
            p.file_type,
            p.capacity
        );
        for (i, e) in p.extras.iter().enumerate() {
            match e {
                Extra::Materials(ms) => {
                    outln!(o, "    section {}: {} materials", i + 1, ms.len());
                    for m in ms {
                        outln!(
                            o,
                            "      material {}, sub-material {}, shape tags 0x{:X}",
                            m.material,
                            m.sub_material,
                            m.shape_tags
                        );
                    }
                }
                Extra::HitMasks(hs) => {
                    outln!(o, "    section {}: {} layer hit masks", i + 1, hs.len());
                    for h in hs {
                        outln!(
                            o,
                            "      layers 0x{:X}, sub-layers 0x{:X}",
                            h.layers,
                            h.sub_layers
                        );
                    }
                }
                Extra::Raw(b) => outln!(
                    o,
                    "    section {}: {} bytes{}",
                    i + 1,
                    b.len(),
                    if b.starts_with(b"AAMP") {
                        " (AAMP parameter archive)"
                    } else {
                        ""
                    }
                ),
            }
        }
    } else if at > 0 {
        outln!(o, "  {at} bytes of wrapper before the tagfile");
    }
    let end = at + tf.root.size;
    if end < bytes.len() as u64 {
        outln!(o, "  {} bytes after the tagfile", bytes.len() as u64 - end);
    }
    outln!(o, "  TAG0 tagfile, SDK version {}", tf.sdk_version);
    sections(&tf.root, 0, o)?;
    outln!(
        o,
        "  {} types ({} with bodies, {} hashed), {} items, {} patch groups; root object: {}",
        tf.types.types.len().saturating_sub(1),
        tf.types.body_order.len(),
        tf.types.hash_order.len(),
        tf.items.len().saturating_sub(1),
        tf.patches.len(),
        tf.types
            .full_name(u64::from(tf.items.get(1).map_or(0, |i| i.ty)))
    );
    Ok(())
}

fn binary_tagfile(doc: &Document, o: &mut Out<'_>) -> Result<()> {
    let Origin::BinaryTagfile(f) = &doc.origin else {
        return Ok(());
    };
    outln!(
        o,
        "  binary tagfile version {}{}",
        f.version,
        f.sdk
            .as_ref()
            .map_or_else(String::new, |s| format!(", SDK {s}"))
    );
    if let Some(p) = &f.predicates {
        outln!(o, "  predicates: max {}, listed {:?}", p.max, p.verified);
    }
    let g = &doc.graph;
    // Objects per class, counted in one pass (not a scan of the objects per class).
    let mut per_class = vec![0usize; g.schema().classes().len()];
    for obj in &g.objects {
        if let Some(n) = per_class.get_mut(obj.class.0 as usize) {
            *n += 1;
        }
    }
    outln!(o, "  classes (version, parent, members, objects):");
    for (i, c) in f.classes.iter().enumerate() {
        let objects = g
            .schema()
            .class_id(&c.name)
            .and_then(|id| per_class.get(id.0 as usize))
            .copied()
            .unwrap_or(0);
        let parent = match c.parent {
            0 => "-",
            p => f.classes[p as usize - 1].name.as_str(),
        };
        outln!(
            o,
            "    {:<3} {:<44} v{:<3} {:<28} {:>3} {objects}",
            i + 1,
            c.name,
            c.version,
            parent,
            c.members.len()
        );
    }
    outln!(
        o,
        "  {} strings remembered; {} bytes after the end tag",
        f.strings,
        f.trailing.len()
    );
    Ok(())
}

fn sections(s: &Section, depth: usize, o: &mut Out<'_>) -> Result<()> {
    outln!(
        o,
        "  {:indent$}{} at 0x{:X}, {} bytes",
        "",
        s.tag_str(),
        s.offset,
        s.size,
        indent = depth * 2
    );
    for c in &s.children {
        sections(c, depth + 1, o)?;
    }
    Ok(())
}
