//! The names a schema accepts. Class, member and enum names come from files written by
//! strangers (a packfile's `__types__`, a tagfile's type table, a binary tagfile's class
//! definitions) and become file names (`classes/<Name>.toml`), TOML keys and Rust
//! identifiers; generation names become folder names and text in generated crates. Each
//! is checked against a small grammar where it is read (so the error has the file offset)
//! and again by [`Schema::new`](super::Schema::new) and before a name becomes a path.
//!
//! - a class name is C identifiers joined by `::`, each optionally followed by template
//!   arguments in `<...>` (type names, integers, `, ` between them):
//!   `hkRootLevelContainer::NamedVariant`, `hkHandle<hkUint32, 2147483647>`;
//! - a member, enum, enum item or member flag name is ASCII letters, digits and `_`, with
//!   at least one letter or digit (`2dAng` is a member of 2014's constraint atoms);
//! - a generation name is ASCII letters, digits, `_`, `.` and `-`, starting with a letter
//!   or digit (`havok-7.1`, `binary-tagfile-hk_2014.0.5-r1`);
//! - a contents version is printable ASCII without control characters; an SDK string that
//!   becomes part of a generation name (a binary tagfile's, a packfile's contents version
//!   when its metadata is extracted) takes the generation name's characters.

use std::path::{Component, Path};

use super::diagnostic::{Diagnostic, Diagnostics};
use super::Schema;

/// The longest class name accepted, in bytes (the longest full type name a tagfile's type
/// table may give, `tagfile::types::MAX_NAME`).
pub const MAX_CLASS_NAME: usize = 512;

/// The longest member, enum, enum item or generation name accepted, in bytes.
pub const MAX_NAME: usize = 256;

/// How deep template arguments may nest in a class name.
const MAX_TEMPLATE_DEPTH: usize = 16;

/// What a name names, for its rule and its messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// A class (C identifiers joined by `::`, with template arguments).
    Class,
    /// A class member.
    Member,
    /// An enum a class declares.
    Enum,
    /// An item of an enum.
    EnumItem,
    /// A member flag of a generation (`[member_flags]`).
    Flag,
    /// A schema generation (a folder name).
    Generation,
    /// A contents version (`Havok-7.1.0-r1`).
    Version,
    /// A type name of a tagfile's type table before its template arguments (`hkArray`,
    /// `T*`, `T[N]`, `unsigned int`, `const char*`): the records among them become classes.
    TypeName,
    /// An SDK string or contents version that becomes part of a generation name
    /// (`binary-tagfile-hk_2014.0.5-r1`, `extracted-Havok-5.5.0-r1`).
    Sdk,
}

impl NameKind {
    /// How messages name the kind.
    pub const fn what(self) -> &'static str {
        match self {
            NameKind::Class => "class name",
            NameKind::Member => "member name",
            NameKind::Enum => "enum name",
            NameKind::EnumItem => "enum item name",
            NameKind::Flag => "member flag name",
            NameKind::Generation => "generation name",
            NameKind::Version => "contents version",
            NameKind::Sdk => "SDK string",
            NameKind::TypeName => "type name",
        }
    }

    /// The rule, as messages state it.
    pub const fn rule(self) -> &'static str {
        match self {
            NameKind::Class => {
                "C identifiers joined by `::`, each optionally with template arguments in `<...>`"
            }
            NameKind::Member | NameKind::Enum | NameKind::EnumItem | NameKind::Flag => {
                "ASCII letters, digits and `_`, with a letter or digit"
            }
            NameKind::Generation => {
                "ASCII letters, digits, `_`, `.` and `-`, starting with a letter or digit"
            }
            NameKind::Version => "printable ASCII",
            NameKind::Sdk => "ASCII letters, digits, `_`, `.` and `-`",
            NameKind::TypeName => {
                "ASCII letters, digits, `_`, `:`, `*`, `&`, `[`, `]`, `<`, `>`, `,`, `-` and single spaces, starting with a letter or `_`"
            }
        }
    }
}

/// Checks `name` as a `kind` name.
///
/// # Errors
/// Why it is not one: the name (escaped), the rule, and the first byte that breaks it.
pub fn check(kind: NameKind, name: &str) -> Result<(), String> {
    let found = match kind {
        NameKind::Class => class(name),
        NameKind::Member | NameKind::Enum | NameKind::EnumItem | NameKind::Flag => word(name),
        NameKind::Generation => generation(name),
        NameKind::Version => version(name),
        NameKind::Sdk => sdk(name),
        NameKind::TypeName => type_name(name),
    };
    found.map_err(|why| {
        format!(
            "{} {:?} is refused ({}): {why}",
            kind.what(),
            shown(name),
            kind.rule()
        )
    })
}

/// At most the first 80 characters of `name` (for messages).
fn shown(name: &str) -> String {
    match name.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &name[..i]),
        None => name.to_string(),
    }
}

/// The first byte that breaks a rule, described.
fn at(name: &str, i: usize, what: &str) -> String {
    match name.get(i..).and_then(|s| s.chars().next()) {
        Some(c) => format!("{c:?} at byte {i} {what}"),
        None => format!("it ends {what}"),
    }
}

fn too_long(name: &str, max: usize) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty".into());
    }
    if name.len() > max {
        return Err(format!("{} bytes, more than {max}", name.len()));
    }
    Ok(())
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn word(name: &str) -> Result<(), String> {
    too_long(name, MAX_NAME)?;
    if let Some(i) = name.bytes().position(|b| !is_ident(b)) {
        return Err(at(name, i, "is not a letter, digit or `_`"));
    }
    if !name.bytes().any(|b| b.is_ascii_alphanumeric()) {
        return Err("it has no letter or digit".into());
    }
    Ok(())
}

fn generation(name: &str) -> Result<(), String> {
    too_long(name, MAX_NAME)?;
    if !name.as_bytes()[0].is_ascii_alphanumeric() {
        return Err(at(name, 0, "does not start with a letter or digit"));
    }
    let ok = |b: u8| is_ident(b) || b == b'.' || b == b'-';
    match name.bytes().position(|b| !ok(b)) {
        Some(i) => Err(at(name, i, "is not a letter, digit, `_`, `.` or `-`")),
        None => Ok(()),
    }
}

fn type_name(name: &str) -> Result<(), String> {
    too_long(name, MAX_CLASS_NAME)?;
    if !is_ident_start(name.as_bytes()[0]) {
        return Err(at(name, 0, "does not start with a letter or `_`"));
    }
    let ok = |b: u8| is_ident(b) || b":*&[]<>,- ".contains(&b);
    if let Some(i) = name.bytes().position(|b| !ok(b)) {
        return Err(at(name, i, "is not allowed in a type name"));
    }
    match name.find("  ") {
        Some(i) => Err(at(name, i + 1, "follows a space")),
        None if name.ends_with(' ') => Err(at(name, name.len() - 1, "ends the name")),
        None => Ok(()),
    }
}

fn sdk(name: &str) -> Result<(), String> {
    if name.len() > MAX_NAME {
        return Err(format!("{} bytes, more than {MAX_NAME}", name.len()));
    }
    let ok = |b: u8| is_ident(b) || b == b'.' || b == b'-';
    match name.bytes().position(|b| !ok(b)) {
        Some(i) => Err(at(name, i, "is not a letter, digit, `_`, `.` or `-`")),
        None => Ok(()),
    }
}

fn version(name: &str) -> Result<(), String> {
    if name.len() > MAX_NAME {
        return Err(format!("{} bytes, more than {MAX_NAME}", name.len()));
    }
    match name.bytes().position(|b| !(b' '..=b'~').contains(&b)) {
        Some(i) => Err(at(name, i, "is not printable ASCII")),
        None => Ok(()),
    }
}

/// A class name: `segment ("::" segment)*`, a segment an identifier with optional template
/// arguments. Inside `<...>` an argument is a type name (words, `::`, `*`, `&`, single
/// spaces between words) or an integer (`-` before digits); arguments are separated by `,`
/// and an optional space.
fn class(name: &str) -> Result<(), String> {
    too_long(name, MAX_CLASS_NAME)?;
    let b = name.as_bytes();
    if !is_ident_start(b[0]) {
        return Err(at(name, 0, "does not start a C identifier"));
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let prev = if i > 0 { b[i - 1] } else { 0 };
        let next = b.get(i + 1).copied().unwrap_or(0);
        match c {
            _ if is_ident(c) => {}
            b':' => {
                // Exactly `::`, after a name and before an identifier.
                let after = b.get(i + 2).copied().unwrap_or(0);
                if next != b':' || !(is_ident(prev) || prev == b'>') || !is_ident_start(after) {
                    return Err(at(name, i, "is not `::` between two names"));
                }
                i += 1;
            }
            b'<' => {
                if !is_ident(prev) {
                    return Err(at(name, i, "does not follow a template name"));
                }
                depth += 1;
                if depth > MAX_TEMPLATE_DEPTH {
                    return Err(at(name, i, "nests template arguments too deep"));
                }
            }
            b'>' => {
                if depth == 0 || matches!(prev, b'<' | b',' | b' ' | b'-') {
                    return Err(at(name, i, "does not close template arguments"));
                }
                depth -= 1;
            }
            b',' if depth > 0 && !matches!(prev, b'<' | b',' | b' ' | b'-') => {}
            b' ' if depth > 0 && !matches!(prev, b'<' | b' ' | b'-') && next != b'>' => {}
            b'*' | b'&' if depth > 0 && (is_ident(prev) || matches!(prev, b'>' | b'*' | b' ')) => {}
            b'-' if depth > 0 && matches!(prev, b'<' | b',' | b' ') && next.is_ascii_digit() => {}
            _ if depth == 0 => {
                return Err(at(name, i, "is not part of a C identifier, `::` or `<`"));
            }
            _ => return Err(at(name, i, "is not allowed in template arguments")),
        }
        i += 1;
    }
    if depth > 0 {
        return Err(at(name, b.len(), "inside template arguments"));
    }
    Ok(())
}

/// The file name `<name>.<ext>` of a class file, after checking that `name` is a class name
/// and that the file name is one plain path component (no folder, no root, no drive).
///
/// # Errors
/// Why `name` cannot name a file.
pub fn file_name(name: &str, ext: &str) -> Result<String, String> {
    check(NameKind::Class, name)?;
    let file = format!("{name}.{ext}");
    let mut parts = Path::new(&file).components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(n)), None) if n == file.as_str() => Ok(file),
        _ => Err(format!(
            "class name {:?} does not make a plain file name",
            shown(name)
        )),
    }
}

/// Every name of `schema` checked: the generation's name, contents version and member flag
/// names, and each
/// class's name, member names, enum names and enum item names, reported at the class's
/// file and line with the key that holds the name.
pub(crate) fn validate(schema: &Schema, diags: &mut Diagnostics) {
    let g = &schema.generation;
    for (kind, text, key) in [
        (NameKind::Generation, &g.name, "name"),
        (NameKind::Version, &g.contents_version, "contents_version"),
    ] {
        if let Err(message) = check(kind, text) {
            diags.push(Diagnostic {
                file: "generation.toml".into(),
                line: 0,
                column: 0,
                key: key.into(),
                message,
            });
        }
    }
    for (flag, _) in &g.member_flags {
        if let Err(message) = check(NameKind::Flag, flag) {
            diags.push(Diagnostic {
                file: "generation.toml".into(),
                line: 0,
                column: 0,
                key: "member_flags".into(),
                message,
            });
        }
    }
    for c in schema.classes() {
        let mut bad = |line: usize, key: String, message: String| {
            diags.push(Diagnostic {
                file: c.origin.file.clone(),
                line: if line > 0 { line } else { c.origin.line },
                column: 0,
                key,
                message,
            });
        };
        if let Err(m) = check(NameKind::Class, &c.name) {
            bad(0, "name".into(), m);
        }
        for (i, m) in c.members.iter().enumerate() {
            if let Err(e) = check(NameKind::Member, &m.name) {
                bad(m.line, format!("members[{i}].name"), e);
            }
        }
        for (i, e) in c.enums.iter().enumerate() {
            if let Err(m) = check(NameKind::Enum, &e.name) {
                bad(0, format!("enums[{i}].name"), m);
            }
            for (k, item) in e.items.iter().enumerate() {
                if let Err(m) = check(NameKind::EnumItem, &item.name) {
                    bad(0, format!("enums[{i}].items[{k}].name"), m);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_of_the_schemas_and_files_pass() {
        for n in [
            "hkRootLevelContainer",
            "hkRootLevelContainer::NamedVariant",
            "hkHandle<hkUint32, 2147483647>",
            "hkBitFieldBase<hkBitFieldStorage<hkArray<unsigned int, hkBuiltinContainerAllocator<0, 0>>>>",
            "hkcdSimdTreeNamespace::hkcdSimdTree<hkcdSimdTreeNamespace::RelArrayStorage<hkcdSimdTreeNamespace::Node>>",
            "hkRefPtr<const hkaSkeleton>",
            "hkFreeList<T*, -1>",
            "_x",
        ] {
            assert_eq!(check(NameKind::Class, n), Ok(()), "{n}");
        }
    }

    #[test]
    fn class_names_that_leave_a_folder_or_break_a_line_fail() {
        for n in [
            "",
            "../../escaped_by_hk",
            "/tmp/x/ABS",
            "a/b",
            "a\\b",
            "C:x",
            "a:::b",
            "a::",
            "::a",
            "a.b",
            "a\nb",
            "a\0b",
            " a",
            "a ",
            "a b",
            "a<b",
            "a>b",
            "a<>",
            "a<b,>",
            "a<b  c>",
            "a<../b>",
            "1abc",
            "é",
        ] {
            assert!(check(NameKind::Class, n).is_err(), "{n:?} passes");
        }
        assert!(check(NameKind::Class, &"a".repeat(MAX_CLASS_NAME + 1)).is_err());
        let deep = format!("{}x{}", "a<".repeat(17), ">".repeat(17));
        assert!(check(NameKind::Class, &deep).is_err());
    }

    #[test]
    fn member_generation_and_version_rules() {
        for n in ["2dAng", "m_x", "TYPE_MAX"] {
            assert_eq!(check(NameKind::Member, n), Ok(()));
        }
        for n in ["", "_", "a-b", "a b", "a\n", "self.x"] {
            assert!(check(NameKind::Member, n).is_err(), "{n:?} passes");
        }
        for n in [
            "havok-7.1",
            "binary-tagfile-hk_2014.0.5-r1",
            "havok-20150100",
        ] {
            assert_eq!(check(NameKind::Generation, n), Ok(()));
        }
        for n in ["", ".", "..", "-x", "a/b", "a\n#[used]", "a b"] {
            assert!(check(NameKind::Generation, n).is_err(), "{n:?} passes");
        }
        assert_eq!(check(NameKind::Version, "Havok-7.1.0-r1"), Ok(()));
        assert_eq!(check(NameKind::Version, ""), Ok(()));
        assert!(check(NameKind::Version, "a\nb").is_err());
    }

    #[test]
    fn tagfile_type_names() {
        for n in [
            "hkArray",
            "T*",
            "T[N]",
            "unsigned int",
            "const char*",
            "hkUint8",
        ] {
            assert_eq!(check(NameKind::TypeName, n), Ok(()), "{n}");
        }
        for n in ["", "../x", "a/b", "*x", "a  b", "a ", "a\nb", "a.b"] {
            assert!(check(NameKind::TypeName, n).is_err(), "{n:?} passes");
        }
    }

    #[test]
    fn a_refusal_names_the_name_escaped_and_the_byte() {
        let e = check(NameKind::Class, "../../x\n").unwrap_err();
        assert!(e.starts_with("class name \"../../x\\n\" is refused"), "{e}");
        assert!(e.contains("'.' at byte 0"), "{e}");
    }

    #[test]
    fn file_names_are_one_plain_component() {
        assert_eq!(
            file_name("hkHandle<hkUint32, 1>", "toml").as_deref(),
            Ok("hkHandle<hkUint32, 1>.toml")
        );
        assert!(file_name("../x", "toml").is_err());
        assert!(file_name("/x", "toml").is_err());
    }
}
