//! The containers around a tagfile in a dump: id Tech cm surface records and phive
//! sections, out and back in, every field checked against its width.

use serde_json::{json, Value as Json};

use super::value::{hex_bytes, to_hex};
use crate::error::{Error, Result, WriteError};
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
                "f4": r.f4, "f5": r.f5, "f6": r.f6,
            })
        })
        .collect();
    json!({ "version": c.version, "records": records })
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

fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

fn num(v: &Json, key: &str, bits: u32) -> Result<u64> {
    let n = v
        .get(key)
        .and_then(Json::as_u64)
        .ok_or_else(|| bad(format!("container entry has no number `{key}`: {v}")))?;
    if bits < 64 && n >> bits != 0 {
        return Err(Error::write(WriteError::Range {
            value: n.to_string(),
            member: key.to_string(),
            range: format!("0 to {}", (1u64 << bits) - 1),
        }));
    }
    Ok(n)
}

fn float(v: &Json, key: &str) -> Result<f32> {
    let j = v
        .get(key)
        .ok_or_else(|| bad(format!("container entry has no number `{key}`: {v}")))?;
    super::value::json_f32(j).map_err(|e| e.in_(key.to_string()))
}

fn list<'a>(v: &'a Json, key: &str) -> Result<&'a Vec<Json>> {
    v.get(key)
        .and_then(Json::as_array)
        .ok_or_else(|| bad(format!("container entry has no list `{key}`")))
}

/// A cm container's record version and records from JSON.
///
/// # Errors
/// A missing field or one wider than its record field.
pub fn cm_from(v: &Json) -> Result<(u32, Vec<SurfaceRecord>)> {
    let records = list(v, "records")?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Ok(SurfaceRecord {
                contents: num(r, "contents", 32)? as u32,
                surface_type: num(r, "surface_type", 32)? as u32,
                surface_flags: num(r, "surface_flags", 32)? as u32,
                f3: num(r, "f3", 32)? as u32,
                f4: float(r, "f4")?,
                f5: float(r, "f5")?,
                f6: float(r, "f6")?,
            })
            .map_err(|e: Error| e.in_(format!("cm.records[{i}]")))
        })
        .collect::<Result<_>>()?;
    Ok((num(v, "version", 32)? as u32, records))
}

/// A phive container from JSON.
///
/// # Errors
/// A missing field, one wider than its header field, or bad hex in a raw section.
pub fn phive_from(v: &Json) -> Result<Phive> {
    let reserved = list(v, "reserved")?;
    if reserved.len() != 2 {
        return Err(bad("phive `reserved` holds two bytes"));
    }
    let byte = |i: usize| -> Result<u8> {
        reserved[i]
            .as_u64()
            .and_then(|b| u8::try_from(b).ok())
            .ok_or_else(|| bad(format!("phive reserved[{i}] is not a byte")))
    };
    let mut extras = Vec::new();
    for s in list(v, "sections")? {
        extras.push(if s.get("materials").is_some() {
            Extra::Materials(
                list(s, "materials")?
                    .iter()
                    .map(|m| {
                        Ok(Material {
                            material: num(m, "material", 32)? as u32,
                            sub_material: num(m, "sub_material", 32)? as u32,
                            shape_tags: num(m, "shape_tags", 64)?,
                        })
                    })
                    .collect::<Result<_>>()?,
            )
        } else if s.get("hit_masks").is_some() {
            Extra::HitMasks(
                list(s, "hit_masks")?
                    .iter()
                    .map(|h| {
                        Ok(HitMask {
                            layers: num(h, "layers", 64)?,
                            sub_layers: num(h, "sub_layers", 64)?,
                        })
                    })
                    .collect::<Result<_>>()?,
            )
        } else {
            let hex = s.get("raw").and_then(Json::as_str).unwrap_or("");
            Extra::Raw(hex_bytes(hex).ok_or_else(|| bad("bad hex in a raw phive section"))?)
        });
    }
    Ok(Phive {
        reserved: [byte(0)?, byte(1)?],
        file_type: num(v, "file_type", 8)? as u8,
        capacity: num(v, "capacity", 8)? as u8,
        extras,
    })
}
