//! Surface names: the material names `hk export` writes (docs/collision.md, "Surface
//! ids"), read back into [`Surface`] values.
//!
//! | name | surface |
//! |---|---|
//! | `surface_N` | id N |
//! | `surface_none` | no id |
//! | `surface_N material=M sub=S tags=0xT layers=0xL sublayers=0xB` | id N and the phive material entry and hit mask it indexes |
//!
//! A `.NNN` suffix after the name's first word (Blender's way of keeping duplicated
//! material names apart, `surface_3.001`) is ignored. Any other name is refused.

use hk_runtime::collision::input::Surface;
use hk_runtime::tagfile::phive::{HitMask, Material};

/// The surface a material name states, or why it states none.
///
/// # Errors
/// A name that is not one of the forms above, with the reason.
pub fn parse(name: &str) -> Result<Surface, String> {
    let mut words = name.split_whitespace();
    let first = words.next().unwrap_or("");
    let head = strip_copy_suffix(first);
    let id = match head.strip_prefix("surface_") {
        Some("none") => None,
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => Some(
            n.parse::<u32>()
                .map_err(|_| format!("material `{name}`: surface id {n} is past 32 bits"))?,
        ),
        _ => {
            return Err(format!(
                "material `{name}` names no surface: name materials `surface_N` (N the \
                 surface id) or `surface_none`, as `hk export` does"
            ))
        }
    };
    let rest: Vec<&str> = words.collect();
    if rest.is_empty() {
        return Ok(Surface { id, phive: None });
    }
    let phive = phive_words(name, &rest)?;
    if id.is_none() {
        return Err(format!(
            "material `{name}`: `surface_none` cannot state a phive material"
        ));
    }
    Ok(Surface {
        id,
        phive: Some(phive),
    })
}

/// `surface_3.001` → `surface_3`: Blender's copy suffix, three or more digits.
fn strip_copy_suffix(word: &str) -> &str {
    match word.rsplit_once('.') {
        Some((head, tail)) if tail.len() >= 3 && tail.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => word,
    }
}

/// The `key=value` words of a phive material name; all five keys, each once.
fn phive_words(name: &str, words: &[&str]) -> Result<(Material, HitMask), String> {
    let mut got: [Option<u64>; 5] = [None; 5];
    const KEYS: [&str; 5] = ["material", "sub", "tags", "layers", "sublayers"];
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("material `{name}`: `{w}` is not key=value"))?;
        let i = KEYS
            .iter()
            .position(|&x| x == k)
            .ok_or_else(|| format!("material `{name}`: unknown key `{k}`"))?;
        if got[i].is_some() {
            return Err(format!("material `{name}`: `{k}` given twice"));
        }
        got[i] = Some(number(v).ok_or_else(|| {
            format!("material `{name}`: `{k}={v}` is not a number (decimal or 0x hex)")
        })?);
    }
    let need = |i: usize| got[i].ok_or_else(|| format!("material `{name}`: `{}` missing", KEYS[i]));
    let small = |i: usize| -> Result<u32, String> {
        u32::try_from(need(i)?)
            .map_err(|_| format!("material `{name}`: `{}` past 32 bits", KEYS[i]))
    };
    Ok((
        Material {
            material: small(0)?,
            sub_material: small(1)?,
            shape_tags: need(2)?,
        },
        HitMask {
            layers: need(3)?,
            sub_layers: need(4)?,
        },
    ))
}

/// A decimal or `0x` hexadecimal number.
fn number(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_names_come_back() {
        assert_eq!(parse("surface_7").unwrap().id, Some(7));
        assert_eq!(parse("surface_none").unwrap().id, None);
        assert_eq!(parse("surface_12.001").unwrap().id, Some(12));
        let s = parse("surface_2 material=7 sub=1 tags=0x4 layers=0x1 sublayers=0x0").unwrap();
        let (m, h) = s.phive.unwrap();
        assert_eq!(
            (s.id, m.material, m.sub_material, m.shape_tags),
            (Some(2), 7, 1, 4)
        );
        assert_eq!((h.layers, h.sub_layers), (1, 0));
    }

    #[test]
    fn other_names_are_refused_with_the_reason() {
        for bad in [
            "Material.001",
            "surface_",
            "surface_x",
            "surface_99999999999",
            "surface_2 material=7",
            "surface_2 material=7 material=7 sub=1 tags=0 layers=0 sublayers=0",
            "surface_2 colour=1",
            "surface_none material=1 sub=1 tags=0 layers=0 sublayers=0",
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(parse("Material.001").unwrap_err().contains("surface_N"));
    }
}
