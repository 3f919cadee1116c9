//! The first pass over a dump: every top-level key but `objects` as a (small) JSON value,
//! and of each object its id, class and section; the members are skipped. What it reads
//! is what the second pass needs before any member: the schema, every id (pointers may
//! name objects listed later) and every object's class.

use std::fmt;

use rustc_hash::FxHashMap;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

use super::source::{Failure, JsonSeed};
use super::spot::bad;
use super::TOP_KEYS;
use crate::error::PathSegment;
use crate::error::{Error, WriteError};

/// Keys of an object.
pub(crate) const OBJECT_KEYS: &[&str] = &["id", "class", "section", "fields"];

/// What the first pass reads.
#[derive(Debug, Default)]
pub(crate) struct Head {
    /// Every top-level key but `objects`, in the dump's order.
    pub(crate) top: serde_json::Map<String, Json>,
    /// Each object's id, class and section, in list order; `None` without `objects`.
    pub(crate) objects: Option<Vec<ObjectHead>>,
    /// The distinct class names, in order of first use.
    pub(crate) class_names: Vec<String>,
}

/// An object's id, class (an index into [`Head::class_names`]) and section.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ObjectHead {
    pub(crate) id: u64,
    pub(crate) class: u32,
    pub(crate) section: Option<u32>,
}

/// The first pass.
pub(crate) struct SkimSeed<'a> {
    pub(crate) failure: &'a Failure,
}

impl<'de> DeserializeSeed<'de> for SkimSeed<'_> {
    type Value = Head;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Head, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SkimSeed<'_> {
    type Value = Head;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a dump (a table)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
        let mut head = Head::default();
        let mut names: FxHashMap<String, u32> = FxHashMap::default();
        while let Some(k) = map.next_key::<String>()? {
            if !TOP_KEYS.contains(&k.as_str()) {
                return Err(self.failure.raise(bad(format!(
                    "the dump has an unknown key `{k}` (known: {})",
                    TOP_KEYS.join(", ")
                ))));
            }
            if head.top.contains_key(&k) || (k == "objects" && head.objects.is_some()) {
                return Err(self.failure.raise(bad(format!("`{k}` appears twice"))));
            }
            if k == "objects" {
                head.objects = Some(map.next_value_seed(ObjectsSeed {
                    failure: self.failure,
                    names: &mut names,
                    class_names: &mut head.class_names,
                })?);
            } else {
                let v = map.next_value_seed(JsonSeed)?;
                head.top.insert(k, v);
            }
        }
        Ok(head)
    }
}

struct ObjectsSeed<'a> {
    failure: &'a Failure,
    names: &'a mut FxHashMap<String, u32>,
    class_names: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for ObjectsSeed<'_> {
    type Value = Vec<ObjectHead>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ObjectsSeed<'_> {
    type Value = Vec<ObjectHead>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let k = out.len();
            let seed = ObjectSeed {
                failure: self.failure,
                names: &mut *self.names,
                class_names: &mut *self.class_names,
            };
            match seq.next_element_seed(seed) {
                Ok(Some(o)) => out.push(o),
                Ok(None) => return Ok(out),
                Err(e) => {
                    self.failure.context(|| PathSegment::index(k));
                    self.failure.context(|| "objects");
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        // TOML writes an empty list of tables as nothing, and an empty table for null.
        if map.size_hint() == Some(0) {
            return Ok(Vec::new());
        }
        Err(self.failure.raise(bad("`objects` is not a list")))
    }
}

struct ObjectSeed<'a> {
    failure: &'a Failure,
    names: &'a mut FxHashMap<String, u32>,
    class_names: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for ObjectSeed<'_> {
    type Value = ObjectHead;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<ObjectHead, D::Error> {
        d.deserialize_any(self)
    }
}

/// An unsigned integer of at most `bits` bits (ids and sections), or `"0x…"`.
pub(crate) struct UIntSeed<'a> {
    pub(crate) failure: &'a Failure,
    pub(crate) bits: u32,
}

impl<'de> DeserializeSeed<'de> for UIntSeed<'_> {
    type Value = u64;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UIntSeed<'_> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an unsigned integer")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
        if self.bits < 64 && v >> self.bits != 0 {
            return Err(self.failure.raise(Error::write(WriteError::Range {
                value: v.to_string(),
                member: format!("uint{}", self.bits),
                range: format!("0 to {}", (1u64 << self.bits) - 1),
            })));
        }
        Ok(v)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(self
                .failure
                .raise(bad(format!("expected an unsigned integer, found {v}")))),
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
        match v
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
        {
            Some(u) => self.visit_u64(u),
            None => Err(self
                .failure
                .raise(bad(format!("expected an unsigned integer, found {v:?}")))),
        }
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u64, E> {
        Err(not_a(self.failure, "unsigned integer", &v))
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<u64, E> {
        Err(not_a(self.failure, "unsigned integer", &v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<u64, E> {
        Err(not_a(self.failure, "unsigned integer", &"null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<u64, A::Error> {
        Err(not_a(self.failure, "unsigned integer", &"a list"))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<u64, A::Error> {
        Err(not_a(self.failure, "unsigned integer", &"a table"))
    }
}

/// A string.
pub(crate) struct StrSeed<'a>(pub(crate) &'a Failure);

impl<'de> DeserializeSeed<'de> for StrSeed<'_> {
    type Value = String;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrSeed<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<String, E> {
        Err(not_a(self.0, "string", &v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<String, E> {
        Err(not_a(self.0, "string", &v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<String, E> {
        Err(not_a(self.0, "string", &v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<String, E> {
        Err(not_a(self.0, "string", &v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<String, E> {
        Err(not_a(self.0, "string", &"null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(not_a(self.0, "string", &"a list"))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(not_a(self.0, "string", &"a table"))
    }
}

/// "expected a string, found 5".
pub(crate) fn not_a<E: serde::de::Error>(
    failure: &Failure,
    what: &str,
    found: &dyn fmt::Display,
) -> E {
    failure.raise(bad(format!("expected a {what}, found {found}")))
}

impl<'de> Visitor<'de> for ObjectSeed<'_> {
    type Value = ObjectHead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object (a table with `id`, `class` and `fields`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ObjectHead, A::Error> {
        let (mut id, mut class, mut section, mut fields) = (None, None, None, false);
        let fail = self.failure;
        while let Some(k) = map.next_key::<String>()? {
            let twice = match k.as_str() {
                "id" => {
                    let v = map.next_value_seed(UIntSeed {
                        failure: fail,
                        bits: 32,
                    });
                    id.replace(in_key(fail, v, "id")?).is_some()
                }
                "class" => {
                    let name = in_key(fail, map.next_value_seed(StrSeed(fail)), "class")?;
                    let n = self.names.len() as u32;
                    let i = *self.names.entry(name.clone()).or_insert(n);
                    if i == n {
                        self.class_names.push(name);
                    }
                    class.replace(i).is_some()
                }
                "section" => {
                    let v = map.next_value_seed(UIntSeed {
                        failure: fail,
                        bits: 32,
                    });
                    section
                        .replace(in_key(fail, v, "section")? as u32)
                        .is_some()
                }
                "fields" => {
                    map.next_value::<IgnoredAny>()?;
                    std::mem::replace(&mut fields, true)
                }
                _ => {
                    return Err(fail.raise(bad(format!(
                        "an object has an unknown key `{k}` (known: {})",
                        OBJECT_KEYS.join(", ")
                    ))))
                }
            };
            if twice {
                return Err(fail.raise(bad(format!("`{k}` appears twice"))));
            }
        }
        let missing = |k: &str| fail.raise(bad(format!("the object has no `{k}`")));
        if !fields {
            return Err(missing("fields"));
        }
        Ok(ObjectHead {
            id: id.ok_or_else(|| missing("id"))?,
            class: class.ok_or_else(|| missing("class"))?,
            section,
        })
    }
}

fn in_key<T, E>(failure: &Failure, r: Result<T, E>, key: &str) -> Result<T, E> {
    r.inspect_err(|_| {
        failure.context(|| PathSegment::field(key));
    })
}
