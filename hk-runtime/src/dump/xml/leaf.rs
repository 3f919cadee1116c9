//! The values in an element's text: words and `( … )` groups, and what a word means for a
//! member of a given shape. Each becomes a [`Lit`], the value as a dump would give it
//! (a number, a string, `null`, a small table), which the dump's reader then checks against
//! the member as it checks a JSON value; so an XML value is refused for what a JSON value
//! would be refused for, and for nothing else.
//!
//! What reads as what is strict (docs/havok-xml.md, "Strict reading"): an integer is a
//! decimal or `0x` number, or an item name of the member's own enum; `|` joins item names
//! and numbers of flags members only; a float is a decimal number within the f32 range,
//! `inf` or `nan`, or one of MSVC's `1.#INF`, `1.#QNAN`, `1.#IND` forms (trailing zeros
//! allowed); a pointer is `null`, an object's name, `import:NAME` or `NAME@PATH`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{IntoDeserializer, Visitor};

use super::events::shown;
use crate::error::{Error, WriteError};
use crate::schema::{Enum, Schema, Shape};

/// `deserialize_any` for every type: a deserializer of the XML reader presents what the
/// member's shape says, whatever the dump's reader asks for.
macro_rules! only_any {
    () => {
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map struct enum identifier
        }
    };
}
pub(super) use only_any;

/// A word or a `( … )` group (its inside).
#[derive(Clone, Copy, Debug)]
pub(super) enum Tok<'t> {
    Word(&'t str),
    Group(&'t str),
}

/// The words and groups of a text from byte `i` on, each with its byte offset in it.
pub(super) struct Tokens<'t> {
    pub(super) text: &'t str,
    pub(super) i: usize,
}

impl<'t> Tokens<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Tokens { text, i: 0 }
    }

    /// The next word or group; a `(` without its `)`, or a `(` inside a group, is an error
    /// (its message and offset).
    pub(super) fn next_tok(&mut self) -> Result<Option<(Tok<'t>, usize)>, (String, usize)> {
        let rest = &self.text[self.i..];
        let Some(skip) = rest.find(|c: char| !c.is_whitespace()) else {
            self.i = self.text.len();
            return Ok(None);
        };
        let at = self.i + skip;
        let rest = &self.text[at..];
        if let Some(inner) = rest.strip_prefix('(') {
            let Some(end) = inner.find([')', '(']) else {
                return Err(("a `(` without its `)`".into(), at));
            };
            if inner.as_bytes()[end] == b'(' {
                return Err(("a `(` inside `( … )`".into(), at + 1 + end));
            }
            self.i = at + 1 + end + 1;
            return Ok(Some((Tok::Group(&inner[..end]), at)));
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '(')
            .unwrap_or(rest.len());
        self.i = at + end;
        Ok(Some((Tok::Word(&rest[..end]), at)))
    }
}

/// A value as a dump gives it, handed to the dump's reader.
#[derive(Clone, Debug)]
pub(super) enum Lit<'t> {
    Unit,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(Cow<'t, str>),
    Map(Vec<(&'static str, Lit<'t>)>),
    Seq(Vec<Lit<'t>>),
}

/// The error of a value handed to the dump's reader (its message; where it is, when the
/// reader of the text knows).
#[derive(Debug)]
pub(super) struct DeErr {
    pub(super) message: String,
    pub(super) at: Option<usize>,
}

impl DeErr {
    /// This error at `at`, unless it already has a place.
    pub(super) fn or_at(mut self, at: usize) -> Self {
        self.at.get_or_insert(at);
        self
    }
}

impl fmt::Display for DeErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeErr {}

impl serde::de::Error for DeErr {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeErr {
            message: msg.to_string(),
            at: None,
        }
    }
}

impl<'de> serde::Deserializer<'de> for Lit<'_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        match self {
            Lit::Unit => v.visit_unit(),
            Lit::Bool(b) => v.visit_bool(b),
            Lit::I64(i) => v.visit_i64(i),
            Lit::U64(u) => v.visit_u64(u),
            Lit::F64(f) => v.visit_f64(f),
            Lit::Str(s) => v.visit_str(&s),
            Lit::Map(m) => v.visit_map(MapDeserializer::new(m.into_iter())),
            Lit::Seq(s) => v.visit_seq(SeqDeserializer::new(s.into_iter())),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de, 't> IntoDeserializer<'de, DeErr> for Lit<'t> {
    type Deserializer = Lit<'t>;

    fn into_deserializer(self) -> Self {
        self
    }
}

/// An enum and whether it holds flags.
pub(super) type Names<'s> = Option<(&'s Enum, bool)>;

/// What a word or group means for a member: its shape, its enum, the object names.
pub(super) struct Leaf<'s> {
    pub(super) schema: &'s Schema,
    pub(super) names: &'s HashMap<Cow<'s, str>, u32>,
}

/// Words longer than this are no number, name or pointer of a member that is not a string
/// (said without repeating them whole).
const LONGEST_WORD: usize = 256;

fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

impl Leaf<'_> {
    /// The value of `tok` for a member of `shape` (whose enum is `en`).
    pub(super) fn value<'t>(
        &self,
        shape: &Shape,
        en: Names<'_>,
        tok: Tok<'t>,
    ) -> Result<Lit<'t>, Error> {
        let word = match tok {
            Tok::Word(w) => w,
            Tok::Group(inner) => {
                let items: Vec<&str> = inner.split_whitespace().collect();
                return match (shape, items.as_slice()) {
                    (Shape::Variant, [o, c]) => Ok(Lit::Map(vec![
                        ("object", self.pointer(o)?),
                        ("class", self.pointer(c)?),
                    ])),
                    (Shape::Floats(n), _) => floats(*n, &[inner]),
                    _ => Err(bad(format!(
                        "`({})` where a `{}` member takes one value",
                        shown(inner),
                        shape.describe(self.schema)
                    ))),
                };
            }
        };
        if word.len() > LONGEST_WORD {
            return Err(bad(format!(
                "`{}` ({} bytes) is not a value of a `{}` member",
                shown(word),
                word.len(),
                shape.describe(self.schema)
            )));
        }
        match shape {
            Shape::Bool => Ok(match word {
                "true" => Lit::Bool(true),
                "false" => Lit::Bool(false),
                w => number(w).unwrap_or(Lit::Str(Cow::Borrowed(w))),
            }),
            Shape::Int { .. } => int(word, en),
            Shape::ULong => Ok(number(word).unwrap_or(Lit::Str(Cow::Borrowed(word)))),
            Shape::Real => float(word),
            Shape::Half => half(word),
            Shape::Floats(n) => Err(bad(format!(
                "`{}` where a `{}` member takes `(x y z w)` groups",
                shown(word),
                Shape::Floats(*n).describe(self.schema)
            ))),
            Shape::Pointer => self.pointer(word),
            Shape::Variant => Ok(Lit::Map(vec![
                ("object", self.pointer(word)?),
                ("class", Lit::Unit),
            ])),
            // The dump's reader names what the member takes.
            _ => Ok(Lit::Str(Cow::Borrowed(word))),
        }
    }

    /// A pointer: `null`, an object's name, `import:NAME`, or `NAME@PATH` (into an element
    /// of the object's arrays).
    fn pointer<'t>(&self, word: &'t str) -> Result<Lit<'t>, Error> {
        if word == "null" {
            return Ok(Lit::Unit);
        }
        if let Some(&id) = self.names.get(word) {
            return Ok(Lit::U64(u64::from(id)));
        }
        if let Some(name) = word.strip_prefix("import:") {
            return Ok(Lit::Map(vec![("import", Lit::Str(Cow::Borrowed(name)))]));
        }
        if let Some((object, path)) = word.split_once('@') {
            if let Some(&id) = self.names.get(object) {
                return Ok(Lit::Map(vec![
                    ("object", Lit::U64(u64::from(id))),
                    ("path", Lit::Str(Cow::Borrowed(path))),
                ]));
            }
        }
        Err(Error::write(WriteError::BadPointer(format!(
            "`{}` names no object",
            shown(word)
        ))))
    }
}

/// A decimal or `0x` number (as the dump's reader takes numbers: it checks the range).
fn number(w: &str) -> Option<Lit<'static>> {
    if let Some(h) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        return u64::from_str_radix(h, 16).ok().map(Lit::U64);
    }
    let digits = w.strip_prefix('-').unwrap_or(w);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse::<i64>()
        .map(Lit::I64)
        .ok()
        .or_else(|| w.parse::<u64>().ok().map(Lit::U64))
}

/// An integer: a number; for an enum member also one of its item names; for a flags
/// member also item names and unsigned numbers joined by `|`.
fn int<'t>(word: &'t str, en: Names<'_>) -> Result<Lit<'t>, Error> {
    if let Some(n) = number(word) {
        return Ok(n);
    }
    let Some((e, flags)) = en else {
        // Not a number: the dump's reader says what the member takes.
        return Ok(Lit::Str(Cow::Borrowed(word)));
    };
    let item = |name: &str| e.items.iter().find(|i| i.name == name).map(|i| i.value);
    if !flags {
        if let Some(v) = item(word) {
            return Ok(Lit::I64(i64::from(v)));
        }
        let why = if word.contains('|') {
            "; `|` joins the names of flags, and this member holds one item"
        } else {
            ""
        };
        return Err(bad(format!(
            "`{}` is not a number or an item of enum `{}`{why}",
            shown(word),
            e.name
        )));
    }
    let mut bits = 0u64;
    for part in word.split('|') {
        let v = match (item(part), number(part)) {
            // A flag's bits (an item value is stored as a signed 32-bit word).
            (Some(v), _) => u64::from(v as u32),
            (None, Some(Lit::U64(u))) => u,
            (None, Some(Lit::I64(i))) if i >= 0 => i as u64,
            _ => {
                return Err(bad(format!(
                    "`{}` in `{}` is not an item of flags `{}` or an unsigned number",
                    shown(part),
                    shown(word),
                    e.name
                )))
            }
        };
        bits |= v;
    }
    Ok(Lit::U64(bits))
}

/// The non-finite value MSVC's `printf` writes as `1.#INF`, `1.#QNAN` or `1.#IND` (with
/// trailing zeros, `-` for a negative sign), or `inf` / `nan`.
fn special(w: &str) -> Option<f32> {
    let (negative, s) = match w.strip_prefix('-') {
        Some(s) => (true, s),
        None => (false, w),
    };
    let f = if let Some(msvc) = s.strip_prefix("1.#") {
        let kind = msvc.trim_end_matches('0');
        match kind {
            "INF" => f32::INFINITY,
            "QNAN" | "IND" => f32::NAN,
            _ => return None,
        }
    } else if s.eq_ignore_ascii_case("inf") {
        f32::INFINITY
    } else if s.eq_ignore_ascii_case("nan") {
        f32::NAN
    } else {
        return None;
    };
    Some(if negative { -f } else { f })
}

/// A float: a finite decimal number, a non-finite one's name ([`special`]), or `f32:0x…` /
/// `f16:0x…` bits.
fn float(w: &str) -> Result<Lit<'_>, Error> {
    for (prefix, digits) in [("f32:", 8), ("f16:", 4)] {
        if let Some(h) = w.strip_prefix(prefix) {
            let hex = h.strip_prefix("0x").unwrap_or("");
            if hex.len() != digits || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(format!(
                    "`{}` is not `{prefix}0x` and {digits} hex digits",
                    shown(w)
                )));
            }
            return Ok(Lit::Str(Cow::Borrowed(w)));
        }
    }
    if let Some(f) = special(w) {
        return Ok(Lit::Str(Cow::Owned(crate::dump::bits_text(f))));
    }
    // Rust's parser also takes `infinity`, and overflows to infinity: neither is written
    // for a finite float.
    let plain = w
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    match w.parse::<f32>() {
        Ok(f) if plain && f.is_finite() => Ok(Lit::F64(f64::from(f))),
        Ok(_) if plain => Err(Error::write(WriteError::Range {
            value: shown(w),
            member: "real".into(),
            range: format!("±{:e} (an f32)", f32::MAX),
        })),
        // The dump's reader names what the member takes.
        _ => Ok(Lit::Str(Cow::Borrowed(w))),
    }
}

/// A float tuple of `n` from `( … )` groups; a group of three (Havok writes the
/// translation and scale of a transform so) takes a zero fourth when the tuple has four or
/// more.
/// A `half` member's value. A decimal with a fixed number of places (the SDK prints six)
/// names the half nearest to it when that half is within half a unit of its last place:
/// halves keep 8 bits of mantissa, so such a decimal names one half, the one it was
/// printed from (docs/havok-xml.md §3). Any other text must be a half exactly.
fn half(w: &str) -> Result<Lit<'_>, Error> {
    let lit = float(w)?;
    let Lit::F64(x) = lit else { return Ok(lit) };
    Ok(Lit::F64(named_half(w, x).map_or(x, f64::from)))
}

/// The half (as an f32) a fixed-point decimal `w` of value `x` was printed from, if any.
pub(super) fn named_half(w: &str, x: f64) -> Option<f32> {
    let places = w.split_once('.').map(|(_, f)| f.len())?;
    if w.contains(['e', 'E']) || places > 9 {
        return None;
    }
    let top = (x as f32).to_bits() >> 16;
    let tolerance = 0.5 * 10f64.powi(-(places as i32)) * (1.0 + 1e-9);
    [top, top.checked_add(1)?]
        .into_iter()
        .map(|h| f32::from_bits(h << 16))
        .filter(|h| h.is_finite() && (f64::from(*h) - x).abs() <= tolerance)
        .min_by(|a, b| {
            (f64::from(*a) - x)
                .abs()
                .total_cmp(&(f64::from(*b) - x).abs())
        })
}

pub(super) fn floats<'t>(n: u8, groups: &[&'t str]) -> Result<Lit<'t>, Error> {
    let mut out = Vec::with_capacity(usize::from(n));
    for g in groups {
        let items: Vec<&str> = g.split_whitespace().collect();
        if out.len() + items.len() > usize::from(n) {
            return Err(bad(format!(
                "more than {n} floats where a {n}-float tuple is"
            )));
        }
        let three = items.len() == 3;
        for x in items {
            out.push(float(x)?);
        }
        if three && n >= 4 {
            out.push(Lit::F64(0.0));
        }
    }
    Ok(Lit::Seq(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut t = Tokens::new(text);
        let mut out = Vec::new();
        while let Some((tok, at)) = t.next_tok().unwrap() {
            out.push(match tok {
                Tok::Word(w) => format!("{w}@{at}"),
                Tok::Group(g) => format!("({g})@{at}"),
            });
        }
        out
    }

    #[test]
    fn words_and_groups_with_their_offsets() {
        assert_eq!(
            words(" 1 -2\n(3 4)(5) x(6)"),
            ["1@1", "-2@3", "(3 4)@6", "(5)@11", "x@15", "(6)@16"]
        );
        assert!(Tokens::new("(1 2").next_tok().is_err());
        assert!(Tokens::new("(1 (2))").next_tok().is_err());
    }

    #[test]
    fn numbers_are_decimal_or_hex() {
        assert!(matches!(number("-5"), Some(Lit::I64(-5))));
        assert!(matches!(
            number("18446744073709551615"),
            Some(Lit::U64(u64::MAX))
        ));
        assert!(matches!(
            number("0xFFFFFFFFFFFFFFFF"),
            Some(Lit::U64(u64::MAX))
        ));
        for w in [
            "",
            "-",
            "0x",
            "0x+1",
            "+1",
            "1|2",
            "1.0",
            "-0x1",
            "0x1FFFFFFFFFFFFFFFF",
        ] {
            assert!(number(w).is_none(), "{w}");
        }
    }

    #[test]
    fn only_msvc_and_named_forms_are_non_finite() {
        let bits = |w: &str| special(w).map(f32::to_bits);
        assert_eq!(bits("1.#INF00"), Some(0x7F80_0000));
        assert_eq!(bits("-1.#INF"), Some(0xFF80_0000));
        assert_eq!(bits("-1.#IND00"), Some(0xFFC0_0000));
        assert_eq!(bits("1.#QNAN0"), Some(0x7FC0_0000));
        assert_eq!(bits("NaN"), Some(0x7FC0_0000));
        for w in [
            "1.#", "1.#FOO", "1.#INFX", "1.#QNAN1", "1.#SNAN", "2.#INF", "infinity",
        ] {
            assert_eq!(special(w), None, "{w}");
        }
        assert!(float("1e39").is_err());
        assert!(matches!(float("infinity"), Ok(Lit::Str(_))));
        assert!(float("f32:0x+0000000").is_err());
        assert!(matches!(float("f16:0x7E00"), Ok(Lit::Str(_))));
        assert!(matches!(float("0.5"), Ok(Lit::F64(f)) if f == 0.5));
    }
}
