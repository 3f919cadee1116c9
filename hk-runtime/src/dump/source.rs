//! The texts a dump is read from (JSON text, TOML text, or a JSON value already in memory)
//! behind one interface: run a serde seed over the whole document, and when it fails, say
//! where (line and column). The reader's own errors travel through serde as a message and
//! are kept whole, with their kind and path, in a [`Failure`] slot beside it.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

use super::spot::{Key, Spot};
use crate::error::PathSegment;
use crate::error::{Error, ReadError};
use crate::text::line_column;

/// Where a run stopped, and what the parser said.
#[derive(Debug)]
pub(crate) struct Stop {
    /// The parser's message (for an error of the reader's own, its text).
    pub(crate) message: String,
    /// 1-based line and column, when the source is a text.
    pub(crate) at: Option<(usize, usize)>,
}

/// A dump to read: runs seeds over the whole document.
pub(crate) trait Source {
    /// `JSON` or `TOML`.
    fn format(&self) -> &'static str;

    /// Runs `seed` over the document.
    fn run<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>;

    /// Runs `seed` over the document, which is not needed again unless the run fails (a
    /// source that holds a tree hands it over instead of copying it).
    fn run_last<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>,
    {
        self.run(seed)
    }
}

/// JSON text.
#[derive(Debug)]
pub(crate) struct JsonText<'a>(pub(crate) &'a [u8]);

impl Source for JsonText<'_> {
    fn format(&self) -> &'static str {
        "JSON"
    }

    fn run<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>,
    {
        let mut de = serde_json::Deserializer::from_slice(self.0);
        let r = seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
        r.map_err(|e| {
            let full = e.to_string();
            // serde_json appends " at line L column C"; the location is kept apart.
            let message = full
                .rsplit_once(" at line ")
                .map_or(full.as_str(), |(m, _)| m)
                .to_string();
            Stop {
                message,
                at: (e.line() > 0).then(|| (e.line(), e.column())),
            }
        })
    }
}

/// TOML text, read through the tree its parser builds.
pub(crate) struct TomlText<'a> {
    text: &'a str,
    /// The parsed table, until a last run takes it.
    table: RefCell<Option<toml::Spanned<toml::de::DeTable<'a>>>>,
}

impl fmt::Debug for TomlText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TomlText").finish_non_exhaustive()
    }
}

impl<'a> TomlText<'a> {
    /// Parses `text`.
    ///
    /// # Errors
    /// Text that is not TOML, with its line and column.
    pub(crate) fn parse(text: &'a str) -> Result<Self, Error> {
        match toml::de::DeTable::parse(text) {
            Ok(table) => Ok(TomlText {
                text,
                table: RefCell::new(Some(table)),
            }),
            Err(e) => Err(syntax("TOML", &toml_stop(text, &e))),
        }
    }
}

impl TomlText<'_> {
    /// The text parsed again (after a last run took the table: finding an error's place).
    fn parse_again(&self) -> Result<toml::de::Deserializer<'_>, Stop> {
        toml::de::Deserializer::parse(self.text).map_err(|e| toml_stop(self.text, &e))
    }
}

fn toml_stop(text: &str, e: &toml::de::Error) -> Stop {
    Stop {
        message: e.message().trim_end().to_string(),
        at: e.span().map(|s| line_column(text, s.start)),
    }
}

impl Source for TomlText<'_> {
    fn format(&self) -> &'static str {
        "TOML"
    }

    fn run<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>,
    {
        let de = match &*self.table.borrow() {
            Some(t) => toml::de::Deserializer::from(t.clone()),
            None => self.parse_again()?,
        };
        seed.deserialize(de).map_err(|e| toml_stop(self.text, &e))
    }

    fn run_last<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>,
    {
        let taken = self.table.borrow_mut().take();
        let de = match taken {
            Some(t) => toml::de::Deserializer::from(t),
            None => self.parse_again()?,
        };
        seed.deserialize(de).map_err(|e| toml_stop(self.text, &e))
    }
}

/// A JSON value in memory (no lines and columns).
#[derive(Debug)]
pub(crate) struct JsonTree<'a>(pub(crate) &'a Json);

impl Source for JsonTree<'_> {
    fn format(&self) -> &'static str {
        "JSON"
    }

    fn run<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>,
    {
        seed.deserialize(self.0).map_err(|e| Stop {
            message: e.to_string(),
            at: None,
        })
    }
}

/// A syntax error of a dump.
pub(crate) fn syntax(format: &'static str, stop: &Stop) -> Error {
    let e = Error::read(ReadError::Syntax {
        format,
        message: stop.message.clone(),
    });
    match stop.at {
        Some((l, c)) => e.at_line(l, c),
        None => e,
    }
}

/// The slot where a reader keeps its own error while serde unwinds with its message.
#[derive(Debug, Default)]
pub(crate) struct Failure(RefCell<Option<Error>>);

impl Failure {
    /// Keeps `e` and returns the serde error that carries its message.
    pub(crate) fn raise<E: serde::de::Error>(&self, e: Error) -> E {
        let msg = e.to_string();
        *self.0.borrow_mut() = Some(e);
        E::custom(msg)
    }

    /// Prepends a path element to the kept error (while unwinding through a member or an
    /// element).
    pub(crate) fn context<S: Into<PathSegment>>(&self, element: impl FnOnce() -> S) {
        let mut slot = self.0.borrow_mut();
        if let Some(e) = slot.take() {
            *slot = Some(e.in_(element()));
        }
    }

    /// The error a run that stopped at `stop` ends with: the kept one, at the stop's line
    /// and column, else a syntax error.
    pub(crate) fn finish(&self, format: &'static str, stop: &Stop) -> Error {
        match self.0.borrow_mut().take() {
            Some(e) => match stop.at {
                Some((l, c)) => e.at_line(l, c),
                None => e,
            },
            None => syntax(format, stop),
        }
    }
}

/// The line and column of the value at `spot`: one pass over the document that follows
/// the spot's keys and stops at its value.
pub(crate) fn locate<S: Source>(src: &S, spot: &Spot) -> Option<(usize, usize)> {
    src.run(Follow(&spot.0)).err().and_then(|s| s.at)
}

/// Follows keys into the document; at the last one, fails (the parser then says where).
struct Follow<'k>(&'k [Key]);

impl<'de> DeserializeSeed<'de> for Follow<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Follow<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Key::Name(want), rest)) = self.0.split_first() else {
            return Err(A::Error::custom("here"));
        };
        while let Some(k) = map.next_key::<String>()? {
            if &k == want {
                return map.next_value_seed(Follow(rest));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Key::Index(want), rest)) = self.0.split_first() else {
            return Err(A::Error::custom("here"));
        };
        for _ in 0..*want {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Follow(rest)).map(|_| ())
    }
    // Every other value is a leaf: the default methods fail there, where the parser is.
}

/// A JSON value from any dump source; a non-finite float (TOML's `nan`, `inf`) becomes the
/// `"f32:0x…"` bits string a dump writes for one.
pub(crate) struct JsonSeed;

impl<'de> DeserializeSeed<'de> for JsonSeed {
    type Value = Json;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for JsonSeed {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(serde_json::Number::from_f64(v).map_or_else(
            || Json::String(crate::dump::text::bits_text(v as f32)),
            Json::Number,
        ))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(JsonSeed)? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(JsonSeed)?;
            out.insert(k, v);
        }
        Ok(Json::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spots_are_found_in_json_and_toml() {
        let json = b"{\n  \"a\": 1,\n  \"file\": {\n    \"layout\": [10, 20,\n 30]\n  }\n}";
        let spot = Spot::default().key("file").key("layout").index(2);
        // JSON: where the parser stopped, within the value (`30` is at columns 2 and 3);
        // TOML: where the value starts.
        let (l, c) = locate(&JsonText(json), &spot).unwrap();
        assert!(l == 5 && (2..=3).contains(&c), "{l}:{c}");
        let text = "a = 1\n[file]\nlayout = [10, 20,\n  30]\n";
        let toml = TomlText::parse(text).unwrap();
        assert_eq!(locate(&toml, &spot), Some((4, 3)));
        assert_eq!(
            locate(&JsonText(json), &Spot::default().key("missing")),
            None
        );
    }

    #[test]
    fn line_columns_count_characters() {
        let t = "a = 1\nbé = x\n";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 6), (2, 1));
        assert_eq!(line_column(t, 9), (2, 3));
        assert_eq!(line_column(t, 1000).0, 3);
    }
}
