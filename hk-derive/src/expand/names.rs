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

/// The Rust type name of a class: `hkaSkeleton` → `HkaSkeleton`.
pub fn class_type(name: &str) -> Ident {
    Ident::new(&clean(&name.to_upper_camel_case()), Span::call_site())
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
    if KEYWORDS.contains(&s.as_str()) {
        Ident::new_raw(&s, Span::call_site())
    } else {
        Ident::new(&s, Span::call_site())
    }
}

/// An enum variant: `MOTION_FIXED` → `MotionFixed`.
pub fn variant(name: &str) -> Ident {
    let s = clean(&name.to_lowercase().to_upper_camel_case());
    if s == "Self" || s == "Other" {
        Ident::new(&format!("{s}_"), Span::call_site())
    } else {
        Ident::new(&s, Span::call_site())
    }
}
