//! An XML text as a dump source: the dump's reader runs its passes over it as over a JSON
//! text. The document reads as a dump whose header (`file`, `capacity_flags`, `root`)
//! comes from `<hkpackfile>` and hk's elements, and whose objects come one by one from the
//! sections, each object's members straight from its `<hkparam>`s (`value.rs`). Each pass
//! reads the text again from its start; the pass that builds the values charges the read's
//! memory budget.

use std::borrow::Cow;

use serde::de::{DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

use super::events::{invalid, shown, Ev, Events, Located};
use super::leaf::{only_any, DeErr};
use super::scan::{self, stray_text, OBJECT_ATTRS};
use super::value::StructDe;
use super::walk::{Shared, Walk};
use crate::dump::source::{Source, Stop};
use crate::dump::DUMP_VERSION;
use crate::text::line_column;

/// An XML text as a dump, with what the first look found.
pub(super) struct XmlSource<'a> {
    pub(super) sh: Shared<'a>,
    /// The schema folder's name.
    pub(super) schema_name: String,
    /// The dump's `file` table.
    pub(super) file: Json,
    /// Each capacity flag, and where its `<hk:capacity>` is.
    pub(super) capacity: Vec<(Json, usize)>,
    /// The root object's position.
    pub(super) root: u64,
    /// Where `<hkpackfile>` is (the place of the header's values).
    pub(super) root_at: usize,
}

impl XmlSource<'_> {
    /// `e` as the stop of a run: the message, and the line and column of its place.
    fn stop(&self, e: DeErr) -> Stop {
        Stop {
            message: e.message,
            at: e.at.map(|at| line_column(self.sh.text, at)),
        }
    }
}

impl Source for XmlSource<'_> {
    fn format(&self) -> &'static str {
        "XML"
    }

    fn run<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>,
    {
        self.sh.clear();
        let mut ev = Events::new(self.sh.text);
        // The first look read this far already.
        let root =
            scan::root(&mut ev, self.sh.text.len()).map_err(|l| self.stop(self.sh.fail(l)))?;
        let mut w = Walk {
            sh: &self.sh,
            ev,
            last: root.at,
        };
        seed.deserialize(Top {
            src: self,
            w: &mut w,
        })
        .map_err(|e| self.stop(e))
    }

    fn run_last<S, T>(&self, seed: S) -> Result<T, Stop>
    where
        S: for<'de> DeserializeSeed<'de, Value = T>,
    {
        self.sh.meter.set_charging(true);
        let r = self.run(seed);
        self.sh.meter.set_charging(false);
        r
    }
}

/// The keys of the dump an XML text reads as, in order.
const KEYS: [&str; 6] = [
    "hk_dump",
    "schema",
    "file",
    "capacity_flags",
    "root",
    "objects",
];

/// The whole document.
struct Top<'de, 'w, 's, 'a> {
    src: &'de XmlSource<'a>,
    w: &'w mut Walk<'s, 'a>,
}

impl<'de> serde::Deserializer<'de> for Top<'de, '_, '_, '_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_map(TopMap {
            src: self.src,
            w: self.w,
            next: 0,
        })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_unit()
    }

    only_any!();
}

struct TopMap<'de, 'w, 's, 'a> {
    src: &'de XmlSource<'a>,
    w: &'w mut Walk<'s, 'a>,
    next: usize,
}

impl<'de> MapAccess<'de> for TopMap<'de, '_, '_, '_> {
    type Error = DeErr;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeErr> {
        let Some(k) = KEYS.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(k.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeErr> {
        let src = self.src;
        let at = src.root_at;
        match KEYS[self.next - 1] {
            "hk_dump" => seed.deserialize(DUMP_VERSION.into_deserializer()),
            "schema" => seed.deserialize(src.schema_name.as_str().into_deserializer()),
            "file" => seed.deserialize(JsonDe(&src.file, at)),
            "capacity_flags" => seed.deserialize(Caps(&src.capacity)),
            "root" => seed.deserialize(src.root.into_deserializer()),
            _ => seed.deserialize(Objects {
                w: &mut *self.w,
                k: 0,
                section: None,
            }),
        }
        .map_err(|e| e.or_at(at))
    }
}

/// A JSON value of the header, placed at the element it comes from.
struct JsonDe<'de>(&'de Json, usize);

impl<'de> serde::Deserializer<'de> for JsonDe<'de> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        self.0.deserialize_any(v).map_err(|e| DeErr {
            message: e.to_string(),
            at: Some(self.1),
        })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_unit()
    }

    only_any!();
}

/// The capacity flags.
struct Caps<'de>(&'de [(Json, usize)]);

impl<'de> serde::Deserializer<'de> for Caps<'de> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_seq(CapsSeq(self.0.iter()))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_unit()
    }

    only_any!();
}

struct CapsSeq<'de>(std::slice::Iter<'de, (Json, usize)>);

impl<'de> SeqAccess<'de> for CapsSeq<'de> {
    type Error = DeErr;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeErr> {
        match self.0.next() {
            Some((j, at)) => seed.deserialize(JsonDe(j, *at)).map(Some),
            None => Ok(None),
        }
    }
}

/// The objects of every section, in document order.
struct Objects<'w, 's, 'a> {
    w: &'w mut Walk<'s, 'a>,
    /// Objects read so far.
    k: u32,
    /// The section open.
    section: Option<u32>,
}

impl<'de> serde::Deserializer<'de> for Objects<'_, '_, '_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, DeErr> {
        v.visit_seq(&mut self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_unit()
    }

    only_any!();
}

impl<'de> SeqAccess<'de> for &mut Objects<'_, '_, '_> {
    type Error = DeErr;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeErr> {
        loop {
            let inside = self.w.ev.depth();
            match (self.w.next()?, self.section) {
                (Ev::Text(c), _) if c.is_blank() => {}
                (Ev::Text(c), _) => return Err(self.w.err(stray_text(&c, "a section"))),
                (Ev::Start(t), None) if t.name() == "hksection" => {
                    let sections = &self.w.sh.scan.sections;
                    self.section =
                        Some(scan::section_index(&t, sections).map_err(|l| self.w.err(l))?);
                }
                (Ev::Start(t), None) if t.name().starts_with("hk:") => self.w.skip_to(inside)?,
                (Ev::Start(t), Some(section)) if t.name() == "hkobject" => {
                    let [name, class, _] = t.attrs(OBJECT_ATTRS).map_err(|l| self.w.err(l))?;
                    let (name, class) = (name.unwrap_or_default(), class.unwrap_or_default());
                    self.w.last = t.at;
                    let k = self.k;
                    self.k += 1;
                    let o = Object {
                        w: &mut *self.w,
                        k,
                        class: &class,
                        section,
                        at: t.at,
                    };
                    return match seed.deserialize(o) {
                        Ok(v) => {
                            self.w.skip_to(inside)?;
                            Ok(Some(v))
                        }
                        Err(e) => {
                            let label = format!("{} {}", shown(&name), shown(&class));
                            if !self.w.sh.context(|| label.clone()) {
                                *self.w.sh.left.borrow_mut() = Some((k, label));
                            }
                            Err(e)
                        }
                    };
                }
                (Ev::Start(t), _) => {
                    return Err(self.w.err(invalid(
                        format!("<{}> where an object or section is", shown(t.name())),
                        t.at,
                    )))
                }
                (Ev::End, Some(_)) => self.section = None,
                (Ev::End | Ev::Eof, _) => return Ok(None),
            }
        }
    }
}

/// An object: its position as its id, its class and section, and its members.
struct Object<'w, 's, 'a, 'c> {
    w: &'w mut Walk<'s, 'a>,
    k: u32,
    class: &'c Cow<'a, str>,
    section: u32,
    at: usize,
}

impl<'de> serde::Deserializer<'de> for Object<'_, '_, '_, '_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        let at = self.at;
        v.visit_map(ObjectMap { o: self, next: 0 })
            .map_err(|e| e.or_at(at))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        v.visit_unit()
    }

    only_any!();
}

const OBJECT_KEYS: [&str; 4] = ["id", "class", "section", "fields"];

struct ObjectMap<'w, 's, 'a, 'c> {
    o: Object<'w, 's, 'a, 'c>,
    next: usize,
}

impl<'de> MapAccess<'de> for ObjectMap<'_, '_, '_, '_> {
    type Error = DeErr;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeErr> {
        let Some(k) = OBJECT_KEYS.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(k.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeErr> {
        let o = &mut self.o;
        match OBJECT_KEYS[self.next - 1] {
            "id" => seed.deserialize(u64::from(o.k).into_deserializer()),
            "class" => seed.deserialize(o.class.as_ref().into_deserializer()),
            "section" => seed.deserialize(u64::from(o.section).into_deserializer()),
            _ => seed.deserialize(Fields {
                w: &mut *o.w,
                class: o.class,
                at: o.at,
            }),
        }
        .map_err(|e| e.or_at(o.at))
    }
}

/// An object's members.
struct Fields<'w, 's, 'a, 'c> {
    w: &'w mut Walk<'s, 'a>,
    class: &'c str,
    at: usize,
}

impl<'de> serde::Deserializer<'de> for Fields<'_, '_, '_, '_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        let sh = self.w.sh;
        let class = sh
            .schema
            .require(self.class)
            .map_err(|error| sh.fail(Located { error, at: self.at }))?;
        StructDe {
            w: self.w,
            class,
            level: 0,
        }
        .deserialize_any(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        let end = self.w.ev.depth() - 1;
        self.w.skip_to(end)?;
        v.visit_unit()
    }

    only_any!();
}
