//! Reading a schema folder: TOML with spans, then validation that collects every error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::de::DeValue;
use toml::Spanned;

use super::diagnostic::{Diagnostic, Diagnostics};
use super::names::{self, NameKind};
use super::spanned::{raw_table, read_text, Cx, FromToml, Node, Source};
use super::{Class, Container, Enum, EnumItem, Generation, Member, Origin, Pinned, Schema};
use crate::rules::{Endian, LayoutRules};
use crate::types::TypeKind;

/// The document of `src` read as `T`, every problem recorded.
fn parse<T: FromToml>(src: &Source<'_>, diags: &mut Diagnostics) -> Option<T> {
    let root = src.parse(diags)?;
    let before = diags.0.len();
    let v = T::read(&root, "", &mut Cx { src, diags });
    v.filter(|_| diags.0.len() == before)
}

/// A 32-bit number written as an integer or as a string (`"0x1A2B3C4D"`).
enum Number {
    Int(i64),
    Text(String),
}

impl Number {
    fn value(&self) -> Option<i64> {
        match self {
            Number::Int(v) => Some(*v),
            Number::Text(t) => {
                let t = t.trim();
                match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => i64::from_str_radix(h, 16).ok(),
                    None => t.parse().ok(),
                }
            }
        }
    }
}

impl FromToml for Number {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        match node.get_ref() {
            DeValue::String(s) => Some(Number::Text(s.to_string())),
            _ => i64::read(node, key, cx).map(Number::Int),
        }
    }
}

raw_table! {
    struct RawLayout {
        req pointer_size: Spanned<u8>,
        req endian: Spanned<String>,
        req reuse_padding: bool,
        req empty_base: bool,
    }
}

raw_table! {
    struct RawGeneration {
        req name: Spanned<String>,
        req container: Spanned<String>,
        req file_version: u32,
        req contents_version: Spanned<String>,
        req layout: RawLayout,
        req member_types: BTreeMap<Spanned<String>, Spanned<u8>>,
        default member_flags: BTreeMap<Spanned<String>, u16>,
        opt packfile: RawPackfile,
        opt tagfile: RawTagfile,
    }
}

raw_table! {
    struct RawTagfile {
        req dedupe_strings: bool,
        req templates_first: bool,
        req string_pad: u8,
        req subsection_tags: [String; 4],
    }
}

raw_table! {
    struct RawPackfile {
        opt string_align: u32,
    }
}

raw_table! {
    struct RawItem {
        req name: Spanned<String>,
        req value: i32,
    }
}

raw_table! {
    struct RawEnum named "enums" {
        req name: Spanned<String>,
        default flags: u32,
        default items: Vec<RawItem>,
    }
}

/// Member flags as bits or as names from the generation's `member_flags`.
enum RawFlags {
    Bits(u16),
    Names(Vec<String>),
}

impl FromToml for RawFlags {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        match node.get_ref() {
            DeValue::Array(_) => Vec::read(node, key, cx).map(RawFlags::Names),
            _ => u16::read(node, key, cx).map(RawFlags::Bits),
        }
    }
}

raw_table! {
    // Keys named `members.NAME.key`, as convert_class and validation name them.
    struct RawMember named "members" {
        req name: Spanned<String>,
        req ty = "type": Spanned<String>,
        opt subtype: Spanned<String>,
        opt element: Spanned<String>,
        opt class: String,
        opt enum_ref = "enum": String,
        default array_size: u16,
        opt flags: Spanned<RawFlags>,
        opt offset: u32,
        default gap_before: u32,
    }
}

raw_table! {
    struct RawPinned {
        req signature: Spanned<Number>,
        req reason: Spanned<String>,
        default doubtful: Vec<String>,
    }
}

raw_table! {
    struct RawClass {
        req name: Spanned<String>,
        opt parent: String,
        default interfaces: u32,
        default version: u32,
        default flags: u32,
        opt signature: Spanned<Number>,
        opt hash: Spanned<Number>,
        opt size: u32,
        opt align: u32,
        default enums: Vec<RawEnum>,
        default members: Vec<RawMember>,
        opt pinned: RawPinned,
        opt note: String,
    }
}

impl Generation {
    /// Reads only the `generation.toml` of the schema folder at `dir`.
    ///
    /// # Errors
    /// Every problem in that file, with its line and key.
    pub fn load(dir: impl AsRef<Path>) -> Result<Generation, Diagnostics> {
        let path = dir.as_ref().join("generation.toml");
        let text = read_text(&path).map_err(|e| {
            Diagnostics(vec![Diagnostic {
                file: path.clone(),
                line: 0,
                column: 0,
                key: String::new(),
                message: format!("cannot read the generation file: {e}"),
            }])
        })?;
        Generation::parse(&path, &text)
    }

    /// Reads a `generation.toml` from its text (`path` names it in diagnostics).
    ///
    /// # Errors
    /// Every problem in the text, with its line and key.
    pub fn parse(path: &Path, text: &str) -> Result<Generation, Diagnostics> {
        let mut diags = Diagnostics::default();
        let src = Source::new(path, text);
        let g = parse::<RawGeneration>(&src, &mut diags)
            .and_then(|raw| convert_generation(&src, raw, &mut diags));
        match g {
            Some(g) if diags.0.is_empty() => Ok(g),
            _ => Err(diags),
        }
    }
}

impl Schema {
    /// Loads and validates the schema folder at `dir`.
    ///
    /// # Errors
    /// Returns every problem found, each with its file, line and key.
    pub fn load(dir: impl AsRef<Path>) -> Result<Schema, Diagnostics> {
        let dir = dir.as_ref();
        let mut diags = Diagnostics::default();
        let gen_path = dir.join("generation.toml");
        let generation = match read_text(&gen_path) {
            Ok(text) => {
                let src = Source::new(&gen_path, &text);
                parse::<RawGeneration>(&src, &mut diags)
                    .and_then(|raw| convert_generation(&src, raw, &mut diags))
            }
            Err(e) => {
                diags.push(Diagnostic {
                    file: gen_path.clone(),
                    line: 0,
                    column: 0,
                    key: String::new(),
                    message: format!("cannot read the generation file: {e}"),
                });
                None
            }
        };
        let class_dir = dir.join("classes");
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&class_dir) {
            Ok(rd) => rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect(),
            Err(e) => {
                diags.push(Diagnostic {
                    file: class_dir.clone(),
                    line: 0,
                    column: 0,
                    key: String::new(),
                    message: format!("cannot read the classes folder: {e}"),
                });
                Vec::new()
            }
        };
        files.sort();
        let mut texts = Vec::new();
        for path in files {
            match read_text(&path) {
                Ok(t) => texts.push((path, t)),
                Err(e) => diags.push(Diagnostic {
                    file: path.clone(),
                    line: 0,
                    column: 0,
                    key: String::new(),
                    message: format!("cannot read: {e}"),
                }),
            }
        }
        let mut schema = Schema::finish(generation, &texts, diags)?;
        schema.root = Some(dir.to_path_buf());
        Ok(schema)
    }

    /// A schema from texts instead of a folder: `generation.toml`'s text and each class
    /// file's path and text (what generated crates embed).
    ///
    /// # Errors
    /// Every problem found, with the file, line and key.
    pub fn parse(
        generation: (&Path, &str),
        classes: &[(PathBuf, String)],
    ) -> Result<Schema, Diagnostics> {
        let mut diags = Diagnostics::default();
        let src = Source::new(generation.0, generation.1);
        let g = parse::<RawGeneration>(&src, &mut diags)
            .and_then(|raw| convert_generation(&src, raw, &mut diags));
        Schema::finish(g, classes, diags)
    }

    fn finish(
        generation: Option<Generation>,
        texts: &[(PathBuf, String)],
        mut diags: Diagnostics,
    ) -> Result<Schema, Diagnostics> {
        let mut classes = Vec::new();
        for (path, text) in texts {
            let src = Source::new(path, text);
            if let Some(raw) = parse::<RawClass>(&src, &mut diags) {
                if let Some(c) = convert_class(&src, raw, generation.as_ref(), &mut diags) {
                    classes.push(c);
                }
            }
        }
        let Some(generation) = generation else {
            return Err(diags);
        };
        match Schema::new(generation, classes) {
            Ok(s) if diags.0.is_empty() => Ok(s),
            Ok(_) => Err(diags),
            Err(more) => {
                diags.0.extend(more.0);
                Err(diags)
            }
        }
    }
}

fn convert_generation(
    src: &Source<'_>,
    raw: RawGeneration,
    diags: &mut Diagnostics,
) -> Option<Generation> {
    let before = diags.0.len();
    for (kind, text, key) in [
        (NameKind::Generation, &raw.name, "name"),
        (NameKind::Version, &raw.contents_version, "contents_version"),
    ] {
        if let Err(message) = names::check(kind, text.get_ref()) {
            diags.push(src.diag(Some(text.span()), key, message));
        }
    }
    let container = match raw.container.get_ref().as_str() {
        "packfile" => Container::Packfile,
        "tagfile" => Container::Tagfile,
        other => {
            diags.push(src.diag(
                Some(raw.container.span()),
                "container",
                format!("unknown container `{other}` (expected packfile or tagfile)"),
            ));
            Container::Packfile
        }
    };
    let endian = match raw.layout.endian.get_ref().as_str() {
        "little" => Endian::Little,
        "big" => Endian::Big,
        other => {
            diags.push(src.diag(
                Some(raw.layout.endian.span()),
                "layout.endian",
                format!("unknown byte order `{other}` (expected little or big)"),
            ));
            Endian::Little
        }
    };
    let ps = *raw.layout.pointer_size.get_ref();
    if ps != 4 && ps != 8 {
        diags.push(src.diag(
            Some(raw.layout.pointer_size.span()),
            "layout.pointer_size",
            format!("pointer size {ps} (expected 4 or 8)"),
        ));
    }
    let mut member_types = Vec::new();
    for (name, num) in raw.member_types {
        match TypeKind::from_name(name.get_ref()) {
            Some(k) => {
                if let Some((other, _)) = member_types.iter().find(|(_, n)| n == num.get_ref()) {
                    diags.push(src.diag(
                        Some(num.span()),
                        &format!("member_types.{}", name.get_ref()),
                        format!("number {} is also `{other}`", num.get_ref()),
                    ));
                }
                member_types.push((k, *num.get_ref()));
            }
            None => diags.push(src.diag(
                Some(name.span()),
                &format!("member_types.{}", name.get_ref()),
                format!("unknown member type `{}`", name.get_ref()),
            )),
        }
    }
    member_types.sort_by_key(|(_, n)| *n);
    for flag in raw.member_flags.keys() {
        if let Err(message) = names::check(NameKind::Flag, flag.get_ref()) {
            let key = format!("member_flags.{}", flag.get_ref().escape_debug());
            diags.push(src.diag(Some(flag.span()), &key, message));
        }
    }
    let generation = Generation {
        name: raw.name.into_inner(),
        container,
        file_version: raw.file_version,
        contents_version: raw.contents_version.into_inner(),
        layout: LayoutRules {
            pointer_size: ps,
            endian,
            reuse_padding: raw.layout.reuse_padding,
            empty_base: raw.layout.empty_base,
        },
        member_types,
        member_flags: raw
            .member_flags
            .into_iter()
            .map(|(k, v)| (k.into_inner(), v))
            .collect(),
        packfile: super::PackfileRules {
            string_align: raw.packfile.and_then(|p| p.string_align).unwrap_or(2),
        },
        tagfile: match raw.tagfile {
            None => None,
            Some(t) => {
                let mut tags = [[0u8; 4]; 4];
                for (slot, text) in tags.iter_mut().zip(&t.subsection_tags) {
                    match <[u8; 4]>::try_from(text.as_bytes()) {
                        Ok(b) => *slot = b,
                        Err(_) => diags.push(src.diag(
                            None,
                            "tagfile.subsection_tags",
                            format!("`{text}` is not a 4-character tag"),
                        )),
                    }
                }
                Some(super::TagfileRules {
                    dedupe_strings: t.dedupe_strings,
                    templates_first: t.templates_first,
                    string_pad: t.string_pad,
                    tags,
                })
            }
        },
    };
    (diags.0.len() == before).then_some(generation)
}

fn parse_type(
    src: &Source<'_>,
    s: &Spanned<String>,
    key: &str,
    diags: &mut Diagnostics,
) -> TypeKind {
    TypeKind::from_name(s.get_ref()).unwrap_or_else(|| {
        diags.push(src.diag(
            Some(s.span()),
            key,
            format!("unknown type `{}`", s.get_ref()),
        ));
        TypeKind::Void
    })
}

/// The class's, members', enums' and items' names checked against their rules
/// ([`names::check`]), each refusal at the name's line and column.
fn names_of(src: &Source<'_>, raw: &RawClass, diags: &mut Diagnostics) {
    let mut check = |kind, name: &Spanned<String>, key: String| {
        if let Err(m) = names::check(kind, name.get_ref()) {
            diags.push(src.diag(Some(name.span()), &key, m));
        }
    };
    check(NameKind::Class, &raw.name, "name".into());
    for (i, m) in raw.members.iter().enumerate() {
        check(NameKind::Member, &m.name, format!("members[{i}].name"));
    }
    for (i, e) in raw.enums.iter().enumerate() {
        check(NameKind::Enum, &e.name, format!("enums[{i}].name"));
        for (k, item) in e.items.iter().enumerate() {
            check(
                NameKind::EnumItem,
                &item.name,
                format!("enums[{i}].items[{k}].name"),
            );
        }
    }
}

fn convert_class(
    src: &Source<'_>,
    raw: RawClass,
    generation: Option<&Generation>,
    diags: &mut Diagnostics,
) -> Option<Class> {
    let before = diags.0.len();
    names_of(src, &raw, diags);
    let name = raw.name.get_ref().clone();
    let stem = src.path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if stem != name {
        diags.push(src.diag(
            Some(raw.name.span()),
            "name",
            format!("class `{name}` is in a file named `{stem}.toml`; the file stem must be the class name"),
        ));
    }
    let number = |n: &Spanned<Number>, key: &str, diags: &mut Diagnostics| -> Option<u32> {
        match n.get_ref().value().and_then(|v| u32::try_from(v).ok()) {
            Some(v) => Some(v),
            None => {
                diags.push(src.diag(
                    Some(n.span()),
                    key,
                    "expected a 32-bit number such as \"0x1A2B3C4D\"",
                ));
                None
            }
        }
    };
    let expected_signature = raw
        .signature
        .as_ref()
        .and_then(|s| number(s, "signature", diags));
    let hash = raw.hash.as_ref().and_then(|s| number(s, "hash", diags));
    let pinned = raw.pinned.and_then(|p| {
        if p.reason.get_ref().trim().is_empty() {
            diags.push(src.diag(
                Some(p.reason.span()),
                "pinned.reason",
                "a pinned signature must say why",
            ));
        }
        number(&p.signature, "pinned.signature", diags).map(|signature| Pinned {
            signature,
            reason: p.reason.into_inner(),
            doubtful: p.doubtful,
        })
    });
    let mut members = Vec::new();
    for m in raw.members {
        let mname = m.name.get_ref().clone();
        let key = |k: &str| format!("members.{mname}.{k}");
        let ty = parse_type(src, &m.ty, &key("type"), diags);
        let subtype = m.subtype.as_ref().map_or(TypeKind::Void, |s| {
            parse_type(src, s, &key("subtype"), diags)
        });
        let element = m.element.as_ref().map_or(TypeKind::Void, |s| {
            parse_type(src, s, &key("element"), diags)
        });
        for (kind, span) in [(Some(ty), m.ty.span())]
            .into_iter()
            .chain(m.subtype.as_ref().map(|s| (Some(subtype), s.span())))
        {
            if let (Some(kind), Some(g)) = (kind, generation) {
                if kind != TypeKind::Void && g.type_number(kind).is_none() {
                    diags.push(src.diag(
                        Some(span),
                        &key("type"),
                        format!(
                            "type `{kind}` is not a member type of {}{}",
                            g.name,
                            kin_hint(kind, g)
                        ),
                    ));
                }
            }
        }
        let flags = match &m.flags {
            None => 0,
            Some(f) => match f.get_ref() {
                RawFlags::Bits(b) => *b,
                RawFlags::Names(names) => {
                    let mut bits = 0u16;
                    for n in names {
                        match generation.and_then(|g| g.member_flags.iter().find(|(k, _)| k == n)) {
                            Some((_, v)) => bits |= v,
                            None if generation.is_none() => {}
                            None => diags.push(src.diag(
                                Some(f.span()),
                                &key("flags"),
                                format!("unknown member flag `{n}`"),
                            )),
                        }
                    }
                    bits
                }
            },
        };
        members.push(Member {
            name: mname,
            ty,
            subtype,
            element,
            class: m.class,
            enum_ref: m.enum_ref,
            array_size: m.array_size,
            flags,
            expected_offset: m.offset,
            gap_before: m.gap_before,
            line: src.line(&m.name.span()),
        });
    }
    let enums = raw
        .enums
        .into_iter()
        .map(|e| Enum {
            name: e.name.into_inner(),
            flags: e.flags,
            items: e
                .items
                .into_iter()
                .map(|i| EnumItem {
                    name: i.name.into_inner(),
                    value: i.value,
                })
                .collect(),
        })
        .collect();
    let class = Class {
        name,
        parent: raw.parent,
        interfaces: raw.interfaces,
        version: raw.version,
        flags: raw.flags,
        enums,
        members,
        expected_size: raw.size,
        align: raw.align,
        expected_signature,
        pinned,
        hash,
        note: raw.note,
        origin: Origin {
            file: src.path.to_path_buf(),
            line: src.line(&raw.name.span()),
        },
    };
    (diags.0.len() == before).then_some(class)
}

/// What generation `g` has of the kind of `kind` (`; of the same kind it has `cstring``),
/// or nothing.
fn kin_hint(kind: TypeKind, g: &Generation) -> String {
    let has: Vec<String> = kind
        .kin()
        .iter()
        .filter(|&&k| k != kind && g.type_number(k).is_some())
        .map(|k| format!("`{k}`"))
        .collect();
    if has.is_empty() {
        String::new()
    } else {
        format!("; of the same kind it has {}", has.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_of_the_wrong_type_names_its_key() {
        let t = "name = \"x\"\ncontainer = \"packfile\"\nfile_version = \"9\"\n";
        let d = Generation::parse(Path::new("g/generation.toml"), t).unwrap_err();
        let d = &d.0[0];
        assert_eq!((d.line, d.key.as_str()), (3, "file_version"), "{d}");
    }
}
