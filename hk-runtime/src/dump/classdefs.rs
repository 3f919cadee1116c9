//! An old binary tagfile's own class definitions in its dump (`classes`,
//! docs/dump-format.md), in the order the file declares them, with what else its writer
//! needs: the predicate block and the bytes after the end tag
//! (docs/binary-tagfile-format.md §2, §4).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as Json};

use super::spot::{bad, Checked, Node};
use crate::dump::text::{hex_bytes, to_hex};
use crate::tagfile::binary::defs::Base;
use crate::tagfile::binary::{BinaryTagfile, ClassDef, MemberDef, Predicates, TypeCode};

/// The basic types by the name a dump gives them.
const BASES: [(Base, &str); 11] = [
    (Base::Void, "void"),
    (Base::Byte, "byte"),
    (Base::Int, "int"),
    (Base::Real, "real"),
    (Base::Vec4, "vec4"),
    (Base::Vec8, "vec8"),
    (Base::Vec12, "vec12"),
    (Base::Vec16, "vec16"),
    (Base::Object, "object"),
    (Base::Struct, "struct"),
    (Base::CString, "string"),
];

/// A type code as text: the basic type, `[]` for an array, `[n]` for a tuple of n.
fn code_text(t: &TypeCode) -> String {
    let base = BASES.iter().find(|b| b.0 == t.base).map_or("void", |b| b.1);
    if t.array {
        format!("{base}[]")
    } else if t.tuple > 0 {
        format!("{base}[{}]", t.tuple)
    } else {
        base.to_string()
    }
}

/// The type code `text` names.
fn code_of(text: &str) -> Option<TypeCode> {
    let (base, rest) = match text.find('[') {
        Some(i) => (&text[..i], Some(text[i + 1..].strip_suffix(']')?)),
        None => (text, None),
    };
    let base = BASES.iter().find(|b| b.1 == base)?.0;
    let (array, tuple) = match rest {
        None => (false, 0),
        Some("") => (true, 0),
        Some(n) => (false, n.parse::<u32>().ok().filter(|&n| n > 0)?),
    };
    Some(TypeCode { base, array, tuple })
}

/// The file's class definitions as a JSON list: id (1-based, in declaration order), name,
/// version, parent id (0 for none) and members (name, type code, class, and the integer
/// width the file declares for the member's arrays, tuples or struct columns).
pub fn classes_json(file: &BinaryTagfile) -> Json {
    let defs = file.classes.iter().enumerate().map(|(d, c)| {
        let members: Vec<_> = c
            .members
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let mut o = Map::new();
                o.insert("name".into(), json!(m.name));
                o.insert("type".into(), json!(code_text(&m.ty)));
                if let Some(c) = &m.class {
                    o.insert("class".into(), json!(c));
                }
                if let Some(w) = file.int_widths.get(&(d, k)) {
                    o.insert("int_width".into(), json!(w));
                }
                Json::Object(o)
            })
            .collect();
        json!({"id": d + 1, "name": c.name, "version": c.version, "parent": c.parent, "members": members})
    });
    Json::Array(defs.collect())
}

/// The predicate block as JSON.
pub fn predicates_json(p: &Predicates) -> Json {
    json!({"max": p.max, "verified": p.verified})
}

/// The container facts of a binary tagfile's dump: version, SDK string, predicate block,
/// class definitions and trailing bytes.
///
/// # Errors
/// A missing, unknown or mistyped key, an id out of place, a parent not declared before,
/// an unknown type code, or an integer width other than 4 or 8.
pub(crate) fn binary_from(top: &Node<'_>) -> Checked<BinaryTagfile> {
    let version = top.get("tagfile_version")?;
    let v = version.uint(32)? as u32;
    let Some(rules) = crate::tagfile::binary::defs::rules(v) else {
        return Err(version.fail(bad(format!(
            "binary tagfile version {v} (hk writes 3, 4 and 5)"
        ))));
    };
    let sdk = top
        .opt("sdk_version")
        .map(|s| s.str().map(String::from))
        .transpose()?;
    if sdk.is_some() != rules.sdk_string {
        return Err(top.fail(bad(format!(
            "a version {v} binary tagfile {} an `sdk_version`",
            if rules.sdk_string { "has" } else { "has no" }
        ))));
    }
    let predicates = match top.opt("predicates") {
        Some(p) => {
            p.keys(&["max", "verified"])?;
            let verified = p.get("verified")?.list()?;
            Some(Predicates {
                max: p.get("max")?.uint(16)? as u16,
                verified: verified
                    .iter()
                    .map(|x| Ok(x.uint(16)? as u16))
                    .collect::<Checked<_>>()?,
            })
        }
        None => None,
    };
    if predicates.is_some() != rules.predicates {
        return Err(top.fail(bad(format!(
            "a version {v} binary tagfile {} `predicates`",
            if rules.predicates { "has" } else { "has no" }
        ))));
    }
    let trailing = match top.opt("trailing") {
        Some(t) => {
            hex_bytes(t.str()?).ok_or_else(|| t.fail(bad("bad hex (pairs of hex digits)")))?
        }
        None => Vec::new(),
    };
    let (classes, int_widths) = classes_from(&top.get("classes")?)?;
    Ok(BinaryTagfile {
        version: v,
        sdk,
        predicates,
        classes,
        int_widths,
        strings: 0,
        trailing,
    })
}

/// The trailing bytes as a dump gives them (hex), when there are any.
pub fn trailing_json(file: &BinaryTagfile) -> Option<Json> {
    (!file.trailing.is_empty()).then(|| json!(to_hex(&file.trailing)))
}

type Widths = BTreeMap<(usize, usize), u8>;

fn classes_from(list: &Node<'_>) -> Checked<(Vec<ClassDef>, Widths)> {
    let mut classes = Vec::new();
    let mut widths = BTreeMap::new();
    for (d, c) in list.list()?.iter().enumerate() {
        c.keys(&["id", "name", "version", "parent", "members"])?;
        c.numbered(d, "class")?;
        let parent = c.get("parent")?;
        let p = parent.uint(32)? as u32;
        if p as usize > d {
            return Err(parent.fail(bad(format!(
                "parent {p} is not a class declared before this one"
            ))));
        }
        let ver = c.get("version")?;
        let version = ver
            .v
            .as_i64()
            .and_then(|x| i32::try_from(x).ok())
            .ok_or_else(|| ver.fail(bad(format!("{} is not a 32-bit integer", ver.v))))?;
        let mut members = Vec::new();
        for (k, m) in c.get("members")?.list()?.iter().enumerate() {
            m.keys(&["name", "type", "class", "int_width"])?;
            let t = m.get("type")?;
            let ty = code_of(t.str()?).ok_or_else(|| {
                t.fail(bad(format!(
                    "type {}: a basic type ({}) with `[]` for an array or `[n]` for a tuple",
                    t.v,
                    BASES.map(|b| b.1).join(", ")
                )))
            })?;
            if let Some(w) = m.opt("int_width") {
                let n = w.uint(8)? as u8;
                if n != 4 && n != 8 {
                    return Err(w.fail(bad(format!("integer width {n} (4 or 8)"))));
                }
                widths.insert((d, k), n);
            }
            members.push(MemberDef {
                name: m.get("name")?.str()?.to_string(),
                ty,
                class: m
                    .opt("class")
                    .map(|x| x.str().map(String::from))
                    .transpose()?,
            });
        }
        classes.push(ClassDef {
            name: c.get("name")?.str()?.to_string(),
            version,
            parent: p,
            members,
        });
    }
    Ok((classes, widths))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_codes_read_back_from_their_text() {
        for base in BASES.map(|b| b.0) {
            for (array, tuple) in [(false, 0), (true, 0), (false, 4)] {
                let t = TypeCode { base, array, tuple };
                assert_eq!(code_of(&code_text(&t)), Some(t));
            }
        }
        assert_eq!(code_of("int[0]"), None);
        assert_eq!(code_of("float"), None);
        assert_eq!(code_of("int[3"), None);
    }
}
