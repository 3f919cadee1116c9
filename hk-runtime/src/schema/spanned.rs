//! TOML sources with spans, and reading their spanned tables into the loader's raw shapes.
//!
//! toml's parser reads the text into a tree where every key and value keeps its byte span.
//! The loader walks that tree rather than deriving `serde::Deserialize`: every wrong type,
//! missing key and unknown key in a file becomes a [`Diagnostic`] with its line, column and
//! dotted key, all of them rather than the first, and serde stays out of the proc-macro's
//! build (docs/design.md, "Cargo features").

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::diagnostic::{Diagnostic, Diagnostics};
use crate::text::LineIndex;

/// The largest schema file (a class file or `generation.toml`) hk reads: 4 MiB. The
/// largest shipped file is 9 KB; parsing holds about 32 bytes of tree per byte of text,
/// so a bound per file keeps a downloaded folder from taking memory without limit
/// (schemas/README.md, "Limits").
pub const MAX_SCHEMA_FILE: usize = 4 << 20;

/// One node of a parsed TOML document.
pub(super) type Node<'i> = Spanned<DeValue<'i>>;

/// A TOML source file with a line index for spans.
pub(super) struct Source<'a> {
    pub(super) path: &'a Path,
    text: &'a str,
    /// Where each line starts and how wide its characters are, made on first use: a class
    /// of many members asks for a line per member, and a line of many bad values for a
    /// column per value; counting from the start (or the line's start) each time is
    /// quadratic.
    index: OnceCell<LineIndex>,
}

impl<'a> Source<'a> {
    pub(super) fn new(path: &'a Path, text: &'a str) -> Self {
        Source {
            path,
            text,
            index: OnceCell::new(),
        }
    }

    fn index(&self) -> &LineIndex {
        self.index.get_or_init(|| LineIndex::new(self.text))
    }

    pub(super) fn diag(
        &self,
        span: Option<Range<usize>>,
        key: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        let (line, column) = span.map_or((0, 0), |r| self.index().line_column(self.text, r.start));
        Diagnostic {
            file: self.path.to_path_buf(),
            line,
            column,
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// The 1-based line where `span` starts.
    pub(super) fn line(&self, span: &Range<usize>) -> usize {
        self.index().line(span.start)
    }

    /// The document's root table, or the parser's first error (with the key its line
    /// assigns, when it names none).
    pub(super) fn parse(&self, diags: &mut Diagnostics) -> Option<Node<'a>> {
        if self.text.len() > MAX_SCHEMA_FILE {
            diags.push(self.diag(None, "", too_large(self.text.len() as u64)));
            return None;
        }
        match DeTable::parse(self.text) {
            Ok(t) => {
                let span = t.span();
                Some(Spanned::new(span, DeValue::Table(t.into_inner())))
            }
            Err(e) => {
                let mut d = self.diag(e.span(), "", e.message().trim().to_string());
                d.key = key_at(self.text, d.line).unwrap_or_default();
                diags.push(d);
                None
            }
        }
    }
}

/// The message for a schema file over [`MAX_SCHEMA_FILE`].
pub(super) fn too_large(len: u64) -> String {
    format!(
        "this file is {len} bytes; a schema file is at most {MAX_SCHEMA_FILE} bytes \
         (schemas/README.md, \"Limits\")"
    )
}

/// Reads a schema file as text, refusing one over [`MAX_SCHEMA_FILE`] before reading
/// more than that.
pub(super) fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut text = String::new();
    f.take(MAX_SCHEMA_FILE as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() > MAX_SCHEMA_FILE {
        let len = std::fs::metadata(path).map_or(text.len() as u64, |m| m.len());
        return Err(too_large(len));
    }
    Ok(text)
}

/// The dotted key a TOML text assigns on 1-based line `line` (`layout.endian`), for
/// problems the parser reports with a line but no key.
pub(crate) fn key_at(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    for (i, l) in text.lines().enumerate().take(line) {
        let l = l.trim();
        if let Some(t) = l.strip_prefix('[') {
            table = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        } else if i + 1 == line {
            let key = l.split_once('=')?.0.trim().trim_matches('"');
            if key.is_empty() || key.starts_with('#') {
                return None;
            }
            return Some(if table.is_empty() {
                key.to_string()
            } else {
                format!("{table}.{key}")
            });
        }
    }
    None
}

/// The walk's context: the source and every problem found so far.
pub(super) struct Cx<'a> {
    pub(super) src: &'a Source<'a>,
    pub(super) diags: &'a mut Diagnostics,
}

impl Cx<'_> {
    pub(super) fn error(&mut self, span: Range<usize>, key: &str, message: impl Into<String>) {
        let d = self.src.diag(Some(span), key, message);
        self.diags.push(d);
    }

    /// "expected `what`, found the string \"9\"" at `node`.
    fn wrong(&mut self, node: &Node<'_>, key: &str, what: &str) {
        let found = match node.get_ref() {
            DeValue::String(s) => format!("the string {s:?}"),
            DeValue::Integer(_) => match integer(node) {
                Some(v) => format!("the integer {v}"),
                None => "an integer".to_string(),
            },
            DeValue::Float(f) => format!("the float {}", f.as_str()),
            DeValue::Boolean(b) => format!("`{b}`"),
            DeValue::Datetime(_) => "a date".to_string(),
            DeValue::Array(_) => "an array".to_string(),
            DeValue::Table(_) => "a table".to_string(),
        };
        self.error(node.span(), key, format!("expected {what}, found {found}"));
    }
}

/// A value read from one TOML node; a problem is recorded in the context and gives `None`.
pub(super) trait FromToml: Sized {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self>;
}

impl FromToml for String {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        match node.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            _ => {
                cx.wrong(node, key, "a string");
                None
            }
        }
    }
}

impl FromToml for bool {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        match node.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            _ => {
                cx.wrong(node, key, "true or false");
                None
            }
        }
    }
}

/// The integer at `node`, if it is one and fits an `i128`.
fn integer(node: &Node<'_>) -> Option<i128> {
    match node.get_ref() {
        DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix()).ok(),
        _ => None,
    }
}

macro_rules! from_toml_int {
    ($($t:ty),*) => {$(
        impl FromToml for $t {
            fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
                let what = concat!("an integer (", stringify!($t), ")");
                match integer(node) {
                    Some(v) => match <$t>::try_from(v) {
                        Ok(v) => Some(v),
                        Err(_) => {
                            cx.error(
                                node.span(),
                                key,
                                format!(
                                    "{v} does not fit a {} ({} to {})",
                                    stringify!($t),
                                    <$t>::MIN,
                                    <$t>::MAX
                                ),
                            );
                            None
                        }
                    },
                    None => {
                        cx.wrong(node, key, what);
                        None
                    }
                }
            }
        }
    )*};
}

from_toml_int!(u8, u16, u32, i32, i64);

impl<T: FromToml> FromToml for Spanned<T> {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        T::read(node, key, cx).map(|v| Spanned::new(node.span(), v))
    }
}

/// Every element is read (and every problem recorded) even after one fails; an element's
/// key is `key[i]`.
impl<T: FromToml> FromToml for Vec<T> {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        let DeValue::Array(items) = node.get_ref() else {
            cx.wrong(node, key, "an array");
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match T::read(item, &format!("{key}[{i}]"), cx) {
                Some(v) => out.push(v),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

impl<const N: usize> FromToml for [String; N] {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        let items = Vec::<String>::read(node, key, cx)?;
        let len = items.len();
        items.try_into().ok().or_else(|| {
            cx.error(
                node.span(),
                key,
                format!("expected an array of {N} strings, found {len}"),
            );
            None
        })
    }
}

/// A table whose keys are names: each key (with its span) and its value, sorted by key.
impl<V: FromToml> FromToml for BTreeMap<Spanned<String>, V> {
    fn read(node: &Node<'_>, key: &str, cx: &mut Cx<'_>) -> Option<Self> {
        let DeValue::Table(table) = node.get_ref() else {
            cx.wrong(node, key, "a table");
            return None;
        };
        let mut out = BTreeMap::new();
        let mut ok = true;
        for (k, v) in table.iter() {
            match V::read(v, &format!("{key}.{}", k.get_ref()), cx) {
                Some(v) => {
                    out.insert(Spanned::new(k.span(), k.get_ref().to_string()), v);
                }
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

/// The keys of one TOML table. Unknown keys are reported when it is opened; each read
/// names its key under the table's dotted prefix.
pub(super) struct Fields<'a, 'i> {
    table: &'a DeTable<'i>,
    span: Range<usize>,
    prefix: String,
}

impl<'a, 'i> Fields<'a, 'i> {
    /// The table at `node` (named `prefix`, empty for the document), reporting each key
    /// that is not in `known`; `None` (reported) when `node` is not a table.
    pub(super) fn open(
        node: &'a Node<'i>,
        prefix: &str,
        known: &[&str],
        cx: &mut Cx<'_>,
    ) -> Option<Self> {
        let DeValue::Table(table) = node.get_ref() else {
            cx.wrong(node, prefix, "a table");
            return None;
        };
        let fields = Fields {
            table,
            span: node.span(),
            prefix: prefix.to_string(),
        };
        for (k, _) in table.iter() {
            if !known.contains(&k.get_ref().as_ref()) {
                cx.error(
                    k.span(),
                    &fields.key(k.get_ref()),
                    format!(
                        "unknown key `{}` (known: {})",
                        k.get_ref(),
                        known.join(", ")
                    ),
                );
            }
        }
        Some(fields)
    }

    /// As [`Fields::open`], naming the table's keys under `list.NAME` (`members.radius`)
    /// when it has a string `name`, the key validation uses for the same item.
    pub(super) fn open_named(
        node: &'a Node<'i>,
        key: &str,
        list: &str,
        known: &[&str],
        cx: &mut Cx<'_>,
    ) -> Option<Self> {
        let mut f = Fields::open(node, key, known, cx)?;
        if let Some(DeValue::String(name)) = f.node("name").map(Spanned::get_ref) {
            f.prefix = format!("{list}.{name}");
        }
        Some(f)
    }

    /// `k` under this table's prefix.
    pub(super) fn key(&self, k: &str) -> String {
        if self.prefix.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.prefix)
        }
    }

    /// The node of key `k`, if present.
    pub(super) fn node(&self, k: &str) -> Option<&'a Node<'i>> {
        self.table.get(k)
    }

    /// Key `k`, or `None` when it is absent or (reported) wrong.
    pub(super) fn opt<T: FromToml>(&self, k: &str, cx: &mut Cx<'_>) -> Option<T> {
        T::read(self.node(k)?, &self.key(k), cx)
    }

    /// Key `k`, reported when absent.
    pub(super) fn req<T: FromToml>(&self, k: &str, cx: &mut Cx<'_>) -> Option<T> {
        match self.node(k) {
            Some(n) => T::read(n, &self.key(k), cx),
            None => {
                cx.error(
                    self.span.clone(),
                    &self.key(k),
                    format!("missing key `{k}`"),
                );
                None
            }
        }
    }

    /// Key `k`, or the default when it is absent (or, reported, wrong).
    pub(super) fn or_default<T: FromToml + Default>(&self, k: &str, cx: &mut Cx<'_>) -> T {
        self.opt(k, cx).unwrap_or_default()
    }
}

/// Declares a raw shape read from one TOML table: its fields, each `req` (a missing key is
/// reported), `opt` (an `Option`) or `default` (the type's default when absent), with the
/// TOML key when it is not the field's name; `named "list"` names the table's keys under
/// `list.NAME`. Every field is read, and every problem reported, before the shape is made.
macro_rules! raw_table {
    (@ty req $t:ty) => { $t };
    (@ty opt $t:ty) => { Option<$t> };
    (@ty default $t:ty) => { $t };
    (@key $field:ident) => { stringify!($field) };
    (@key $field:ident $key:literal) => { $key };
    (@read req $f:ident $cx:ident $key:expr) => { $f.req($key, $cx) };
    (@read opt $f:ident $cx:ident $key:expr) => { $f.opt($key, $cx) };
    (@read default $f:ident $cx:ident $key:expr) => { $f.or_default($key, $cx) };
    (@take req $v:ident) => { $v? };
    (@take opt $v:ident) => { $v };
    (@take default $v:ident) => { $v };
    (@open $node:ident $key:ident $cx:ident $known:expr) => {
        $crate::schema::spanned::Fields::open($node, $key, $known, $cx)
    };
    (@open $node:ident $key:ident $cx:ident $known:expr, $list:literal) => {
        $crate::schema::spanned::Fields::open_named($node, $key, $list, $known, $cx)
    };
    (
        $(#[$meta:meta])*
        struct $name:ident $(named $list:literal)? {
            $($mode:ident $field:ident $(= $tkey:literal)? : $t:ty,)*
        }
    ) => {
        $(#[$meta])*
        struct $name {
            $($field: raw_table!(@ty $mode $t),)*
        }

        impl $crate::schema::spanned::FromToml for $name {
            fn read(
                node: &$crate::schema::spanned::Node<'_>,
                key: &str,
                cx: &mut $crate::schema::spanned::Cx<'_>,
            ) -> Option<Self> {
                let known = [$(raw_table!(@key $field $($tkey)?)),*];
                let f = raw_table!(@open node key cx &known $(, $list)?)?;
                $(let $field = raw_table!(@read $mode f cx raw_table!(@key $field $($tkey)?));)*
                Some($name {
                    $($field: raw_table!(@take $mode $field),)*
                })
            }
        }
    };
}
pub(super) use raw_table;

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: FromToml>(text: &str) -> (Option<T>, Diagnostics) {
        let src = Source::new(Path::new("t.toml"), text);
        let mut diags = Diagnostics::default();
        let root = src.parse(&mut diags).expect("parses");
        let mut cx = Cx {
            src: &src,
            diags: &mut diags,
        };
        let f = Fields::open(&root, "", &["v"], &mut cx).expect("a table");
        let v = f.req::<T>("v", &mut cx);
        (v, diags)
    }

    #[test]
    fn keys_of_lines() {
        let t = "name = \"x\"\nfile_version = \"seven\"\n\n[layout]\nendian = \"middle\"\n";
        assert_eq!(key_at(t, 2).as_deref(), Some("file_version"));
        assert_eq!(key_at(t, 5).as_deref(), Some("layout.endian"));
        assert_eq!(key_at(t, 3), None);
        assert_eq!(key_at(t, 4), None);
    }

    #[test]
    fn integers_are_range_checked_in_every_radix() {
        assert_eq!(read::<u8>("v = 0xFF").0, Some(255));
        let (v, d) = read::<u8>("v = 256");
        assert_eq!(v, None);
        assert!(d.0[0].message.contains("256 does not fit a u8"), "{d}");
        assert_eq!((d.0[0].line, d.0[0].column), (1, 5));
        let (v, d) = read::<u16>("\n\nv = -1");
        assert_eq!(v, None);
        assert_eq!((d.0[0].line, d.0[0].key.as_str()), (3, "v"), "{d}");
        assert_eq!(read::<i32>("v = -0").0, Some(0));
    }

    #[test]
    fn wrong_types_missing_and_unknown_keys_are_all_reported() {
        let (v, d) = read::<u32>("v = \"9\"");
        assert_eq!(v, None);
        assert!(
            d.0[0]
                .message
                .contains("expected an integer (u32), found the string \"9\""),
            "{d}"
        );
        let (v, d) = read::<String>("w = 1\nx = 2");
        assert_eq!(v, None);
        let text = d.to_string();
        assert!(
            text.contains("t.toml:1:1: `w`: unknown key `w` (known: v)"),
            "{text}"
        );
        assert!(text.contains("t.toml:2:1: `x`: unknown key `x`"), "{text}");
        assert!(text.contains("missing key `v`"), "{text}");
        assert_eq!(d.0.len(), 3, "{text}");
    }

    #[test]
    fn every_bad_element_of_an_array_is_reported() {
        let (v, d) = read::<Vec<u8>>("v = [1, 300, \"x\", 4]");
        assert_eq!(v, None);
        assert_eq!(d.0.len(), 2, "{d}");
        assert_eq!(d.0[0].key, "v[1]");
        assert_eq!(d.0[1].key, "v[2]");
        let (v, d) = read::<[String; 2]>("v = [\"a\"]");
        assert_eq!(v, None);
        assert!(
            d.0[0].message.contains("array of 2 strings, found 1"),
            "{d}"
        );
    }

    #[test]
    fn columns_count_characters() {
        let (_, d) = read::<u8>("v = \"é\"\nw = 1");
        assert_eq!((d.0[0].line, d.0[0].column), (2, 1), "{d}");
        let (_, d) = read::<Vec<u8>>("v = [\"é\", 300]");
        assert_eq!((d.0[1].line, d.0[1].column), (1, 11), "{d}");
    }
}
