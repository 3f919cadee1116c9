//! The XML text as the events the reader acts on: element starts (each with its byte
//! position and its attributes checked against the ones its element takes), element ends,
//! text, and the end of the file. Comments, processing instructions and the XML
//! declaration are passed over; a DOCTYPE (entity and element declarations) is refused.
//!
//! quick-xml checks that every end tag closes the element open and that attributes are
//! well formed; its duplicate-attribute check compares each attribute with every one
//! before it, so it is off: each element takes a short list of attributes, and one that is
//! not on the list, or one given twice, is refused as soon as it is met.

use std::borrow::Cow;

use quick_xml::events::attributes::Attributes;
use quick_xml::events::Event;
use quick_xml::Reader;

use crate::error::{Error, ReadError, WriteError};

/// An error and the byte position in the text it is about.
#[derive(Debug)]
pub(super) struct Located {
    pub(super) error: Error,
    pub(super) at: usize,
}

/// Result with [`Located`].
pub(super) type Res<T> = std::result::Result<T, Located>;

/// XML that does not parse.
pub(super) fn syntax(message: impl Into<String>, at: usize) -> Located {
    Located {
        error: Error::read(ReadError::Syntax {
            format: "XML",
            message: message.into(),
        }),
        at,
    }
}

/// An element, attribute or value that is not what Havok XML has there.
pub(super) fn invalid(message: impl Into<String>, at: usize) -> Located {
    Located {
        error: Error::write(WriteError::Invalid(message.into())),
        at,
    }
}

/// Element `<found>` (shown shortened) in `within`, where `<expected>` belongs.
pub(super) fn misplaced(
    found: &str,
    within: impl Into<String>,
    expected: &'static str,
    at: usize,
) -> Located {
    Located {
        error: Error::write(WriteError::Element {
            found: shown(found),
            within: within.into(),
            expected,
        }),
        at,
    }
}

/// Text from the file for a message: at most 48 characters, then `…`.
pub(super) fn shown(text: &str) -> String {
    match text.char_indices().nth(48) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A start tag: its text between `<` and `>` and where it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tag<'a> {
    buf: &'a str,
    name_len: usize,
    /// The position of its `<`.
    pub(super) at: usize,
}

impl<'a> Tag<'a> {
    /// The element's name.
    pub(super) fn name(&self) -> &'a str {
        &self.buf[..self.name_len]
    }

    /// The values of the attributes named in `known`, in that order. An attribute that is
    /// not in `known`, or one given twice, is refused.
    pub(super) fn attrs<const N: usize>(&self, known: [&str; N]) -> Res<[Option<Cow<'a, str>>; N]> {
        let mut out: [Option<Cow<'a, str>>; N] = std::array::from_fn(|_| None);
        let mut list = Attributes::new(self.buf, self.name_len);
        list.with_checks(false);
        for a in list {
            let a = a.map_err(|e| syntax(e.to_string(), self.at))?;
            let key = String::from_utf8_lossy(a.key.as_ref());
            let Some(i) = known.iter().position(|k| *k == key) else {
                let takes = if N == 0 {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
                return Err(invalid(
                    format!(
                        "<{}> has no attribute `{}` (it takes {takes})",
                        self.name(),
                        shown(&key)
                    ),
                    self.at,
                ));
            };
            if out[i].is_some() {
                return Err(invalid(
                    format!("<{}> gives `{key}` twice", self.name()),
                    self.at,
                ));
            }
            out[i] = Some(
                a.unescape_value()
                    .map_err(|e| syntax(format!("attribute `{key}`: {e}"), self.at))?,
            );
        }
        Ok(out)
    }

    /// Refuses any attribute (nested `<hkobject>`s take none).
    pub(super) fn no_attrs(&self) -> Res<()> {
        self.attrs([]).map(|_| ())
    }
}

/// Text between tags, or a CDATA section.
#[derive(Debug)]
pub(super) struct Chunk<'a> {
    raw: Cow<'a, [u8]>,
    cdata: bool,
    /// The position of its first byte.
    pub(super) at: usize,
}

impl<'a> Chunk<'a> {
    /// Whether it is only XML blanks (space, tab, line ends).
    pub(super) fn is_blank(&self) -> bool {
        !self.cdata
            && self
                .raw
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// Its text with entities and character references replaced (borrowed from the file
    /// when it has none), and whether each byte of it is where it is in the file (text
    /// without references: a value's place is then exact).
    pub(super) fn text(self) -> Res<(Cow<'a, str>, bool)> {
        let at = self.at;
        let utf8 = |e: std::str::Utf8Error| syntax(e.to_string(), at);
        let s: Cow<'a, str> = match self.raw {
            Cow::Borrowed(b) => Cow::Borrowed(std::str::from_utf8(b).map_err(utf8)?),
            Cow::Owned(v) => Cow::Owned(String::from_utf8(v).map_err(|e| utf8(e.utf8_error()))?),
        };
        if self.cdata {
            return Ok((s, false));
        }
        let bad = |e: quick_xml::escape::EscapeError| syntax(e.to_string(), at);
        Ok(match s {
            Cow::Borrowed(b) => {
                let t = quick_xml::escape::unescape(b).map_err(bad)?;
                let exact = matches!(t, Cow::Borrowed(_));
                (t, exact)
            }
            Cow::Owned(o) => (
                Cow::Owned(quick_xml::escape::unescape(&o).map_err(bad)?.into_owned()),
                false,
            ),
        })
    }

    /// The text as it is in the file (for a message).
    pub(super) fn raw(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.raw)
    }
}

/// What the reader acts on.
#[derive(Debug)]
pub(super) enum Ev<'a> {
    /// A start tag (an empty element gives a start and an end).
    Start(Tag<'a>),
    /// An end tag.
    End,
    /// Text.
    Text(Chunk<'a>),
    /// The end of the file (after the root element closed).
    Eof,
}

/// The events of one pass over the text.
pub(super) struct Events<'a> {
    reader: Reader<&'a [u8]>,
    text: &'a str,
    /// Elements open.
    depth: usize,
}

impl<'a> Events<'a> {
    /// The events of `text` from its start.
    pub(super) fn new(text: &'a str) -> Self {
        let mut reader = Reader::from_str(text);
        let c = reader.config_mut();
        c.expand_empty_elements = true;
        c.check_end_names = true;
        Events {
            reader,
            text,
            depth: 0,
        }
    }

    /// Elements open.
    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    /// The next event.
    pub(super) fn next(&mut self) -> Res<Ev<'a>> {
        loop {
            let at = self.reader.buffer_position() as usize;
            let event = self
                .reader
                .read_event()
                .map_err(|e| syntax(e.to_string(), self.reader.error_position() as usize))?;
            return Ok(match event {
                Event::Start(e) => {
                    self.depth += 1;
                    let name_len = e.name().as_ref().len();
                    let len = e.len();
                    // A start tag of a text read from a `&str` is borrowed from it, and sits
                    // after its `<`.
                    let buf = self
                        .text
                        .get(at + 1..at + 1 + len)
                        .ok_or_else(|| syntax("a start tag the reader cannot place", at))?;
                    Ev::Start(Tag { buf, name_len, at })
                }
                Event::End(_) => {
                    self.depth = self.depth.saturating_sub(1);
                    Ev::End
                }
                Event::Empty(_) => return Err(syntax("an empty element was not expanded", at)),
                Event::Text(t) => {
                    let raw = t.into_inner();
                    if raw.is_empty() {
                        continue;
                    }
                    Ev::Text(Chunk {
                        raw,
                        cdata: false,
                        at,
                    })
                }
                Event::CData(t) => Ev::Text(Chunk {
                    raw: t.into_inner(),
                    cdata: true,
                    at,
                }),
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) => continue,
                Event::DocType(_) => {
                    return Err(invalid(
                        "a DOCTYPE (entity and element declarations) has no place in Havok XML",
                        at,
                    ))
                }
                Event::Eof if self.depth > 0 => {
                    return Err(syntax("the file ends inside an element", at))
                }
                Event::Eof => Ev::Eof,
            });
        }
    }

    /// Reads past everything until `depth` elements are open (the rest of the elements
    /// open inside it), without looking at it.
    pub(super) fn skip_to(&mut self, depth: usize) -> Res<()> {
        while self.depth > depth {
            let at = self.reader.buffer_position() as usize;
            match self
                .reader
                .read_event()
                .map_err(|e| syntax(e.to_string(), self.reader.error_position() as usize))?
            {
                Event::Start(_) => self.depth += 1,
                Event::End(_) => self.depth -= 1,
                Event::DocType(_) => {
                    return Err(invalid("a DOCTYPE has no place in Havok XML", at))
                }
                Event::Eof => return Err(syntax("the file ends inside an element", at)),
                _ => {}
            }
        }
        Ok(())
    }
}
