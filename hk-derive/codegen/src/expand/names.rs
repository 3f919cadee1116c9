//! Rust names for schema names.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "gen", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords no raw identifier can spell (`r#self` is not one): a trailing `_` instead.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

fn clean(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `s` as an identifier, with a trailing `_` when it is a keyword that cannot be one.
fn ident(s: String) -> Ident {
    if NOT_RAW.contains(&s.as_str()) {
        Ident::new(&format!("{s}_"), Span::call_site())
    } else {
        Ident::new(&s, Span::call_site())
    }
}

/// The Rust type name of a class: `hkaSkeleton` → `HkaSkeleton`.
pub fn class_type(name: &str) -> Ident {
    ident(clean(&name.to_upper_camel_case()))
}

/// The view type of a class: `hkaSkeleton` → `HkaSkeletonView`.
pub fn view_type(name: &str) -> Ident {
    Ident::new(
        &format!("{}View", clean(&name.to_upper_camel_case())),
        Span::call_site(),
    )
}

/// The Rust type name of enum `e` declared by `class`: `HkpMotionMotionType`.
pub fn enum_type(class: &str, e: &str) -> Ident {
    Ident::new(
        &clean(&format!(
            "{}{}",
            class.to_upper_camel_case(),
            e.to_upper_camel_case()
        )),
        Span::call_site(),
    )
}

/// A field name: snake case, raw identifier for keywords.
pub fn field(name: &str) -> Ident {
    let s = clean(&name.to_snake_case());
    if KEYWORDS.contains(&s.as_str()) && !NOT_RAW.contains(&s.as_str()) {
        Ident::new_raw(&s, Span::call_site())
    } else {
        ident(s)
    }
}

/// An enum variant: `MOTION_FIXED` → `MotionFixed`.
pub fn variant(name: &str) -> Ident {
    let s = clean(&name.to_lowercase().to_upper_camel_case());
    if s == "Other" {
        Ident::new(&format!("{s}_"), Span::call_site())
    } else {
        ident(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_that_cannot_be_raw_take_an_underscore() {
        assert_eq!(field("self").to_string(), "self_");
        assert_eq!(field("crate").to_string(), "crate_");
        assert_eq!(field("type").to_string(), "r#type");
        assert_eq!(class_type("self").to_string(), "Self_");
        assert_eq!(variant("SELF").to_string(), "Self_");
        assert_eq!(field("2dAng").to_string(), "_2d_ang");
    }
}
