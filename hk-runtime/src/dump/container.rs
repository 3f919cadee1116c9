//! The containers around a tagfile in a dump: id Tech cm surface records and phive
//! sections, out and back in, every field checked against its width and every key known.

use serde_json::{json, Value as Json};

use super::spot::{bad, Checked, Node};
use crate::dump::text::{bits_of, hex_bytes, to_hex};
use crate::error::{Error, WriteError};
use crate::tagfile::cm::{Cm, SurfaceRecord};
use crate::tagfile::phive::{Extra, HitMask, Material, Phive};

/// A cm container's record version and surface records as JSON.
pub fn cm_json(c: &Cm) -> Json {
    let records: Vec<_> = c
        .records
        .iter()
        .map(|r| {
            json!({
                "contents": r.contents, "surface_type": r.surface_type,
                "surface_flags": r.surface_flags, "f3": r.f3,
                "f4": f32_json(r.f4), "f5": f32_json(r.f5), "f6": f32_json(r.f6),
            })
        })
        .collect();
    json!({ "version": c.version, "records": records })
}

/// A float as JSON: a number when finite, else its bits (`"f32:0x7FC00000"`).
fn f32_json(f: f32) -> Json {
    if f.is_finite() {
        json!(f64::from(f))
    } else {
        json!(crate::dump::text::bits_text(f))
    }
}

/// A phive container's header fields and sections as JSON.
pub fn phive_json(p: &Phive) -> Json {
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
            Extra::Raw(b) => json!({ "raw": to_hex(b) }),
        })
        .collect();
    json!({
        "reserved": p.reserved, "file_type": p.file_type, "capacity": p.capacity,
        "sections": sections,
    })
}

/// A float field: a number that fits an `f32`, or `"f32:0x…"` bits.
fn float(n: &Node<'_>) -> Checked<f32> {
    if let Some(f) = n.v.as_str().and_then(bits_of) {
        return Ok(f);
    }
    let x = n.v.as_f64().ok_or_else(|| {
        n.fail(bad(format!(
            "expected a number or \"f32:0x…\" bits, found {}",
            n.v
        )))
    })?;
    let f = x as f32;
    if f.is_infinite() {
        return Err(n.fail(Error::write(WriteError::Range {
            value: x.to_string(),
            member: "real".into(),
            range: format!("±{:e} (an f32)", f32::MAX),
        })));
    }
    Ok(f)
}

/// A cm container's record version and records.
///
/// # Errors
/// A missing or unknown key, or a field wider than its record field.
pub(crate) fn cm_from(v: &Node<'_>) -> Checked<(u32, Vec<SurfaceRecord>)> {
    v.keys(&["version", "records"])?;
    let mut records = Vec::new();
    for r in v.get("records")?.list()? {
        r.keys(&[
            "contents",
            "surface_type",
            "surface_flags",
            "f3",
            "f4",
            "f5",
            "f6",
        ])?;
        let u32_of = |k: &str| -> Checked<u32> { Ok(r.get(k)?.uint(32)? as u32) };
        records.push(SurfaceRecord {
            contents: u32_of("contents")?,
            surface_type: u32_of("surface_type")?,
            surface_flags: u32_of("surface_flags")?,
            f3: u32_of("f3")?,
            f4: float(&r.get("f4")?)?,
            f5: float(&r.get("f5")?)?,
            f6: float(&r.get("f6")?)?,
        });
    }
    Ok((v.get("version")?.uint(32)? as u32, records))
}

/// A phive container.
///
/// # Errors
/// A missing or unknown key, a field wider than its header field, or bad hex in a raw
/// section.
pub(crate) fn phive_from(v: &Node<'_>) -> Checked<Phive> {
    v.keys(&["reserved", "file_type", "capacity", "sections"])?;
    let reserved = v.get("reserved")?;
    let bytes = reserved.list()?;
    let [b0, b1] = &bytes[..] else {
        return Err(reserved.fail(bad(format!(
            "phive `reserved` holds two bytes, found {}",
            bytes.len()
        ))));
    };
    let mut extras = Vec::new();
    for s in v.get("sections")?.list()? {
        s.keys(&["materials", "hit_masks", "raw"])?;
        let n = s.v.as_object().map_or(0, serde_json::Map::len);
        if n != 1 {
            return Err(s.fail(bad(
                "a phive section is one of `materials`, `hit_masks` or `raw`",
            )));
        }
        extras.push(if let Some(ms) = s.opt("materials") {
            let mut out = Vec::new();
            for m in ms.list()? {
                m.keys(&["material", "sub_material", "shape_tags"])?;
                out.push(Material {
                    material: m.get("material")?.uint(32)? as u32,
                    sub_material: m.get("sub_material")?.uint(32)? as u32,
                    shape_tags: m.get("shape_tags")?.uint(64)?,
                });
            }
            Extra::Materials(out)
        } else if let Some(hs) = s.opt("hit_masks") {
            let mut out = Vec::new();
            for h in hs.list()? {
                h.keys(&["layers", "sub_layers"])?;
                out.push(HitMask {
                    layers: h.get("layers")?.uint(64)?,
                    sub_layers: h.get("sub_layers")?.uint(64)?,
                });
            }
            Extra::HitMasks(out)
        } else {
            let raw = s.get("raw")?;
            Extra::Raw(
                hex_bytes(raw.str()?)
                    .ok_or_else(|| raw.fail(bad("bad hex (pairs of hex digits)")))?,
            )
        });
    }
    Ok(Phive {
        reserved: [b0.uint(8)? as u8, b1.uint(8)? as u8],
        file_type: v.get("file_type")?.uint(8)? as u8,
        capacity: v.get("capacity")?.uint(8)? as u8,
        extras,
    })
}
