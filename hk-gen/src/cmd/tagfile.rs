//! Tagfile sides of `hk info`, `hk dump` and `hk build`: the container (cm surface records,
//! phive sections) in and out of a dump, and a TAG0 written from a dump with a type table
//! from the schema (`tagfile::reflect`).

use std::path::Path;
use std::process::ExitCode;

use hk_runtime::dump;
use hk_runtime::graph::Graph;
use hk_runtime::tagfile::cm::{self, SurfaceRecord};
use hk_runtime::tagfile::phive::{Extra, HitMask, Material, Phive};
use hk_runtime::tagfile::{reflect, Section};
use hk_runtime::Schema;
use serde_json::{json, Value as Json};

use crate::out::outln;

/// `hk info` of a tagfile whose TAG0 starts at `at`: its container, section tree, type
/// table and object count.
pub fn info(file: &Path, data: &[u8], at: u64) -> Result<ExitCode, String> {
    let root =
        Section::parse(data, at, data.len() as u64).map_err(|e| e.in_file(file).to_string())?;
    outln!("{}", file.display());
    if let Some(cm) = cm::Cm::detect(data) {
        outln!(
            "  id Tech cm container: {} surface records of {} bytes (record version {}), blob of {} bytes",
            cm.records.len(),
            cm::stride(cm.version),
            if cm::has_f3(cm.version) { "0x12 or later" } else { "before 0x12" },
            cm.blob_size
        );
        for (i, r) in cm.records.iter().enumerate() {
            outln!(
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
    } else if Phive::detect(data) {
        let (p, _) = Phive::parse(data, root.size).map_err(|e| e.in_file(file).to_string())?;
        outln!(
            "  phive container: file type {}, {} section slots, tagfile at 0x{at:X}",
            p.file_type,
            p.capacity
        );
        for (i, e) in p.extras.iter().enumerate() {
            match e {
                Extra::Materials(ms) => {
                    outln!("    section {}: {} materials", i + 1, ms.len());
                    for m in ms {
                        outln!(
                            "      material {}, sub-material {}, shape tags 0x{:X}",
                            m.material,
                            m.sub_material,
                            m.shape_tags
                        );
                    }
                }
                Extra::HitMasks(hs) => {
                    outln!("    section {}: {} layer hit masks", i + 1, hs.len());
                    for h in hs {
                        outln!(
                            "      layers 0x{:X}, sub-layers 0x{:X}",
                            h.layers,
                            h.sub_layers
                        );
                    }
                }
                Extra::Raw(b) => outln!(
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
        outln!("  {at} bytes of wrapper before the tagfile");
    }
    let end = at + root.size;
    if end < data.len() as u64 {
        outln!("  {} bytes after the tagfile", data.len() as u64 - end);
    }
    if let Some(sdkv) = root.child(b"SDKV") {
        let (o, n) = sdkv.payload();
        outln!(
            "  TAG0 tagfile, SDK version {}",
            String::from_utf8_lossy(&data[o as usize..(o + n) as usize])
        );
    }
    fn show(s: &Section, depth: usize) {
        outln!(
            "  {:indent$}{} at 0x{:X}, {} bytes",
            "",
            s.tag_str(),
            s.offset,
            s.size,
            indent = depth * 2
        );
        for c in &s.children {
            show(c, depth + 1);
        }
    }
    show(&root, 0);
    let tf = hk_runtime::tagfile::TagFile::parse(data).map_err(|e| e.in_file(file).to_string())?;
    outln!(
        "  {} types ({} with bodies, {} hashed), {} items, {} patch groups; root object: {}",
        tf.types.types.len() - 1,
        tf.types.body_order.len(),
        tf.types.hash_order.len(),
        tf.items.len().saturating_sub(1),
        tf.patches.len(),
        tf.types
            .full_name(u64::from(tf.items.get(1).map_or(0, |i| i.ty)))
    );
    match hk_runtime::tagfile::data::objects(&tf, data) {
        Ok((objects, _)) => outln!("  {} objects (`hk dump` lists them)", objects.len()),
        Err(e) => outln!("  objects: {}", e.in_file(file)),
    }
    Ok(ExitCode::SUCCESS)
}

/// A tagfile's objects as a dump, with its SDK version and container (`hk build` writes it
/// back with a type table from the schema).
pub fn dump(file: &Path, data: &[u8]) -> Result<serde_json::Value, String> {
    let tf = hk_runtime::tagfile::TagFile::parse(data).map_err(|e| e.in_file(file).to_string())?;
    let graph = hk_runtime::tagfile::graph(&tf, data).map_err(|e| e.in_file(file).to_string())?;
    let mut doc = dump::to_json(&graph);
    if let Some(m) = doc.as_object_mut() {
        m.insert("container".into(), serde_json::json!("tagfile"));
        m.insert("sdk_version".into(), serde_json::json!(tf.sdk_version));
        if let Some(c) = &tf.cm {
            m.insert("cm".into(), cm_json(c));
        }
        if let Some(p) = &tf.phive {
            m.insert("phive".into(), phive_json(p));
        }
    }
    Ok(doc)
}

fn cm_json(c: &cm::Cm) -> Json {
    let records: Vec<_> = c
        .records
        .iter()
        .map(|r| {
            json!({
                "contents": r.contents, "surface_type": r.surface_type,
                "surface_flags": r.surface_flags, "f3": r.f3,
                "f4": r.f4, "f5": r.f5, "f6": r.f6,
            })
        })
        .collect();
    json!({ "version": c.version, "records": records })
}

fn phive_json(p: &Phive) -> Json {
    let sections: Vec<_> = p
        .extras
        .iter()
        .map(|e| match e {
            Extra::Materials(ms) => json!({ "materials": ms
                .iter()
                .map(|m| json!({
                    "material": m.material, "sub_material": m.sub_material,
                    "shape_tags": m.shape_tags,
                }))
                .collect::<Vec<_>>() }),
            Extra::HitMasks(hs) => json!({ "hit_masks": hs
                .iter()
                .map(|h| json!({ "layers": h.layers, "sub_layers": h.sub_layers }))
                .collect::<Vec<_>>() }),
            Extra::Raw(b) => json!({ "raw": dump::to_hex(b) }),
        })
        .collect();
    json!({
        "reserved": p.reserved, "file_type": p.file_type, "capacity": p.capacity,
        "sections": sections,
    })
}

fn num(v: &Json, key: &str) -> Result<u64, String> {
    v.get(key)
        .and_then(Json::as_u64)
        .ok_or_else(|| format!("container entry has no number `{key}`: {v}"))
}

fn float(v: &Json, key: &str) -> Result<f32, String> {
    v.get(key)
        .and_then(Json::as_f64)
        .map(|f| f as f32)
        .ok_or_else(|| format!("container entry has no number `{key}`: {v}"))
}

fn list<'a>(v: &'a Json, key: &str) -> Result<&'a Vec<Json>, String> {
    v.get(key)
        .and_then(Json::as_array)
        .ok_or_else(|| format!("container entry has no list `{key}`"))
}

fn cm_from(v: &Json) -> Result<(u32, Vec<SurfaceRecord>), String> {
    let records = list(v, "records")?
        .iter()
        .map(|r| {
            Ok(SurfaceRecord {
                contents: num(r, "contents")? as u32,
                surface_type: num(r, "surface_type")? as u32,
                surface_flags: num(r, "surface_flags")? as u32,
                f3: num(r, "f3")? as u32,
                f4: float(r, "f4")?,
                f5: float(r, "f5")?,
                f6: float(r, "f6")?,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok((num(v, "version")? as u32, records))
}

fn phive_from(v: &Json) -> Result<Phive, String> {
    let reserved = list(v, "reserved")?;
    let byte = |i: usize| reserved.get(i).and_then(Json::as_u64).unwrap_or(0) as u8;
    let mut extras = Vec::new();
    for s in list(v, "sections")? {
        extras.push(if let Some(ms) = s.get("materials") {
            Extra::Materials(
                list(&json!({ "m": ms }), "m")?
                    .iter()
                    .map(|m| {
                        Ok(Material {
                            material: num(m, "material")? as u32,
                            sub_material: num(m, "sub_material")? as u32,
                            shape_tags: num(m, "shape_tags")?,
                        })
                    })
                    .collect::<Result<_, String>>()?,
            )
        } else if let Some(hs) = s.get("hit_masks") {
            Extra::HitMasks(
                list(&json!({ "h": hs }), "h")?
                    .iter()
                    .map(|h| {
                        Ok(HitMask {
                            layers: num(h, "layers")?,
                            sub_layers: num(h, "sub_layers")?,
                        })
                    })
                    .collect::<Result<_, String>>()?,
            )
        } else {
            let hex = s.get("raw").and_then(Json::as_str).unwrap_or("");
            Extra::Raw(dump::hex_bytes(hex).ok_or("bad hex in a raw phive section")?)
        });
    }
    Ok(Phive {
        reserved: [byte(0), byte(1)],
        file_type: num(v, "file_type")? as u8,
        capacity: num(v, "capacity")? as u8,
        extras,
    })
}

/// The tagfile a dump describes: `graph` written with a type table `schema` describes for
/// the graph's classes, in `schema`'s table order, inside the dump's container.
///
/// # Errors
/// A schema without `[tagfile]` rules or without a class the graph uses, a value that does
/// not fit its type, or a malformed container entry.
pub fn build(doc: &Json, graph: &Graph, schema: &Schema) -> Result<Vec<u8>, String> {
    let sdk = doc
        .get("sdk_version")
        .and_then(Json::as_str)
        .unwrap_or(&schema.generation.contents_version);
    let tag0 = reflect::write(graph, schema, sdk).map_err(|e| e.to_string())?;
    if let Some(c) = doc.get("cm") {
        let (version, records) = cm_from(c)?;
        return Ok(cm::Cm::write(&records, version, &tag0));
    }
    match doc.get("phive") {
        Some(p) => phive_from(p)?.write(&tag0).map_err(|e| e.to_string()),
        None => Ok(tag0),
    }
}
