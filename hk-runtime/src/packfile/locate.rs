//! Naming what owns a file offset: a header, a fixup table, or an object's member.

use super::{Loc, Packfile};
use crate::schema::layout::Layouts;
use crate::schema::Schema;
use crate::types::TypeKind;

/// A readable description of what lives at absolute offset `at` of `pf`, e.g.
/// `__data__ object #3 hkaSkeleton +0x18 bones` or `__data__ local fixups`.
pub fn locate(pf: &Packfile<'_>, schema: &Schema, at: u64) -> String {
    if at < 0x40 {
        return format!("file header +0x{at:X}");
    }
    let first = pf.header.section_headers_offset();
    let size = pf.header.section_header_size();
    if at < first {
        return "predicate block".to_string();
    }
    if at < first + size * u64::from(pf.header.section_count) {
        let i = (at - first) / size;
        return format!("section header {i} +0x{:X}", (at - first) % size);
    }
    for s in &pf.sections {
        if at < u64::from(s.start) || at >= s.abs(s.end) {
            continue;
        }
        let rel = (at - u64::from(s.start)) as u32;
        let table = [
            (s.local_fixups, "object data"),
            (s.global_fixups, "local fixups"),
            (s.virtual_fixups, "global fixups"),
            (s.exports, "virtual fixups"),
            (s.imports, "exports"),
            (s.end, "imports"),
        ];
        let region = table
            .iter()
            .find(|(end, _)| rel < *end)
            .map_or("end", |(_, n)| *n);
        if region != "object data" {
            return format!("{} {region} +0x{:X}", s.tag, rel);
        }
        let mut objs: Vec<(Loc, &str)> =
            pf.objects().filter(|(l, _)| l.section == s.index).collect();
        objs.sort();
        let Some(idx) = objs.iter().rposition(|(l, _)| l.offset <= rel) else {
            return format!("{} +0x{rel:X} before the first object", s.tag);
        };
        let (loc, class) = objs[idx];
        let off = rel - loc.offset;
        let mut layouts = Layouts::new(schema, pf.rules());
        let size = layouts.class(class).map_or(0, |l| l.size);
        let what = if off < size {
            member_at(&mut layouts, class, off).unwrap_or_else(|| "padding".to_string())
        } else {
            "data it owns (arrays, strings) or padding".to_string()
        };
        return format!(
            "{} object at +0x{:X} {class} +0x{off:X}: {what}",
            s.tag, loc.offset
        );
    }
    "past the last section".to_string()
}

fn member_at(layouts: &mut Layouts<'_>, class: &str, off: u32) -> Option<String> {
    let members = layouts.flattened(class).ok()?;
    let (_, m, l) = members
        .iter()
        .find(|(_, _, l)| off >= l.offset && off < l.offset + l.size.max(1))?;
    let inner = off - l.offset;
    if m.ty == TypeKind::Struct && m.array_size == 0 {
        if let Some(c) = &m.class {
            if let Some(rest) = member_at(layouts, c, inner) {
                return Some(format!("{}.{rest}", m.name));
            }
        }
    }
    Some(if inner == 0 {
        m.name.clone()
    } else {
        format!("{}+0x{inner:X}", m.name)
    })
}
