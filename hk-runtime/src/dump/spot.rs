//! Where in a dump a value is: the keys and list indices from the top (`file.layout`,
//! `capacity_flags[2].path`). An error found after the text was read names its spot, and
//! the reader finds the spot's line and column with one more pass over the text
//! (`source::locate`). Also the checked reading of the small parts of a dump (header,
//! containers) kept as JSON values.

use serde_json::Value as Json;

use crate::error::{Error, WriteError};

/// One step into a dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// A table's key.
    Name(String),
    /// A list's element.
    Index(usize),
}

/// A value's place in a dump, from the top.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spot(pub(crate) Vec<Key>);

impl Spot {
    /// The spot of key `name` of this table.
    pub(crate) fn key(&self, name: &str) -> Spot {
        let mut s = self.clone();
        s.0.push(Key::Name(name.to_string()));
        s
    }

    /// The spot of element `i` of this list.
    pub(crate) fn index(&self, i: usize) -> Spot {
        let mut s = self.clone();
        s.0.push(Key::Index(i));
        s
    }

    /// In the dump's own syntax: `file.layout.pointer_size`, `capacity_flags[2].path`.
    pub(crate) fn text(&self) -> String {
        let mut s = String::new();
        for k in &self.0 {
            match k {
                Key::Name(n) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(n);
                }
                Key::Index(i) => s.push_str(&format!("[{i}]")),
            }
        }
        s
    }
}

/// A dump error and, when known, the spot of the value it is about.
#[derive(Debug)]
pub(crate) struct Fail {
    /// The error.
    pub(crate) error: Error,
    /// Where the value is.
    pub(crate) spot: Option<Spot>,
}

impl From<Error> for Fail {
    fn from(error: Error) -> Self {
        Fail { error, spot: None }
    }
}

/// Result of a dump check.
pub(crate) type Checked<T> = Result<T, Fail>;

/// A [`WriteError::Invalid`].
pub(crate) fn bad(msg: impl Into<String>) -> Error {
    Error::write(WriteError::Invalid(msg.into()))
}

/// Whether `v` is JSON null or the empty table TOML writes for it.
pub(crate) fn is_null(v: &Json) -> bool {
    v.is_null() || v.as_object().is_some_and(serde_json::Map::is_empty)
}

/// An unsigned integer of a dump: a number, or `"0x…"` (TOML holds no integer past
/// `i64::MAX`).
pub(crate) fn as_uint(v: &Json) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_str()?
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
    })
}

/// A value of a dump's small parts (header, containers) with its spot.
#[derive(Clone, Debug)]
pub(crate) struct Node<'a> {
    /// The value.
    pub(crate) v: &'a Json,
    /// Where it is.
    pub(crate) spot: Spot,
}

impl<'a> Node<'a> {
    /// The top of a dump's small parts.
    pub(crate) fn top(v: &'a Json) -> Node<'a> {
        Node {
            v,
            spot: Spot::default(),
        }
    }

    /// `e` about this value: its path in dump syntax, and its spot.
    pub(crate) fn fail(&self, e: Error) -> Fail {
        let text = self.spot.text();
        Fail {
            error: if text.is_empty() { e } else { e.in_(text) },
            spot: Some(self.spot.clone()),
        }
    }

    /// Checks that entry `index` (from 0) of a list of `what`s has `"id": index + 1`: the
    /// ids of a dump's type and class lists number the list from 1.
    pub(crate) fn numbered(&self, index: usize, what: &str) -> Checked<()> {
        let id = self.get("id")?;
        if id.uint(64)? != index as u64 + 1 {
            return Err(id.fail(bad(format!(
                "the {what} listed {} has id {}: ids number the list from 1",
                index + 1,
                id.v
            ))));
        }
        Ok(())
    }

    /// Key `key`, which must be there (and not null).
    pub(crate) fn get(&self, key: &str) -> Checked<Node<'a>> {
        self.opt(key).ok_or_else(|| {
            let what = if self.spot.0.is_empty() {
                "the dump".to_string()
            } else {
                format!("`{}`", self.spot.text())
            };
            self.fail(bad(format!("{what} has no `{key}`")))
        })
    }

    /// Key `key`, when there and not null.
    pub(crate) fn opt(&self, key: &str) -> Option<Node<'a>> {
        self.v.get(key).filter(|v| !is_null(v)).map(|v| Node {
            v,
            spot: self.spot.key(key),
        })
    }

    /// Refuses a table with a key outside `keys` (a misspelled field would otherwise be
    /// ignored), or a value that is not a table.
    pub(crate) fn keys(&self, keys: &[&str]) -> Checked<()> {
        let Some(m) = self.v.as_object() else {
            return Err(self.fail(bad(format!("expected a table, found {}", self.v))));
        };
        match m.keys().find(|k| !keys.contains(&k.as_str())) {
            Some(k) => Err(Node {
                v: &m[k],
                spot: self.spot.key(k),
            }
            .fail(bad(format!(
                "unknown key `{k}` (known: {})",
                keys.join(", ")
            )))),
            None => Ok(()),
        }
    }

    /// An unsigned integer of `bits` bits.
    pub(crate) fn uint(&self, bits: u32) -> Checked<u64> {
        let n = as_uint(self.v).ok_or_else(|| {
            self.fail(bad(format!(
                "expected an unsigned integer, found {}",
                self.v
            )))
        })?;
        if bits < 64 && n >> bits != 0 {
            return Err(self.fail(Error::write(WriteError::Range {
                value: n.to_string(),
                member: format!("uint{bits}"),
                range: format!("0 to {}", (1u64 << bits) - 1),
            })));
        }
        Ok(n)
    }

    /// A string.
    pub(crate) fn str(&self) -> Checked<&'a str> {
        self.v
            .as_str()
            .ok_or_else(|| self.fail(bad(format!("expected a string, found {}", self.v))))
    }

    /// `true` or `false`.
    pub(crate) fn bool(&self) -> Checked<bool> {
        self.v
            .as_bool()
            .ok_or_else(|| self.fail(bad(format!("expected true or false, found {}", self.v))))
    }

    /// The elements of a list.
    pub(crate) fn list(&self) -> Checked<Vec<Node<'a>>> {
        let items = self
            .v
            .as_array()
            .ok_or_else(|| self.fail(bad(format!("expected a list, found {}", self.v))))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| Node {
                v,
                spot: self.spot.index(i),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spots_print_in_dump_syntax() {
        let s = Spot::default().key("capacity_flags").index(2).key("path");
        assert_eq!(s.text(), "capacity_flags[2].path");
        let doc = serde_json::json!({"file": {"layout": {"pointer_size": 256}}});
        let n = Node::top(&doc)
            .get("file")
            .and_then(|f| f.get("layout"))
            .and_then(|l| l.get("pointer_size"))
            .unwrap();
        let e = n.uint(8).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "file.layout.pointer_size: 256 does not fit a `uint8` member (0 to 255)"
        );
        assert_eq!(e.spot.unwrap().text(), "file.layout.pointer_size");
    }
}
