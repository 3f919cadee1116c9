//! The first look at an XML text: the `<hkpackfile>` element and its attributes, then every
//! object's name and class (pointers may name objects further on) and hk's own elements
//! (class-name order, exports, capacity flags), without reading any member. Every object is
//! charged to the read's budget and counted against `max_objects` as it is met.

use std::borrow::Cow;
use std::collections::HashMap;

use super::events::{invalid, misplaced, shown, Chunk, Ev, Events, Located, Res, Tag};
use super::meter::{Meter, ENTRY, OBJECT};
use crate::schema::Schema;

/// The attributes `<hkpackfile>` takes: Havok's, then hk's.
const ROOT_ATTRS: [&str; 11] = [
    "classversion",
    "contentsversion",
    "toplevelobject",
    "xmlns:hk",
    "hk:layout",
    "hk:usertag",
    "hk:flags",
    "hk:sections",
    "hk:classnamessection",
    "hk:contentssection",
    "hk:predicates",
];

/// The attributes an object takes (Havok 5.5 writes the class's signature, which the
/// reader does not need: the schema has it).
pub(super) const OBJECT_ATTRS: [&str; 3] = ["name", "class", "signature"];

/// The attributes a section takes.
pub(super) const SECTION_ATTRS: [&str; 2] = ["name", "hk:index"];

/// The `<hkpackfile>` element.
#[derive(Debug)]
pub(super) struct Root<'a> {
    /// Where its start tag is.
    pub(super) at: usize,
    attrs: [Option<Cow<'a, str>>; ROOT_ATTRS.len()],
}

impl Root<'_> {
    /// The attribute `key` (one of [`ROOT_ATTRS`]).
    pub(super) fn get(&self, key: &str) -> Option<&str> {
        let i = ROOT_ATTRS.iter().position(|k| *k == key)?;
        self.attrs[i].as_deref()
    }
}

/// Reads up to and with the start tag of `<hkpackfile>`.
pub(super) fn root<'a>(ev: &mut Events<'a>, len: usize) -> Res<Root<'a>> {
    loop {
        match ev.next()? {
            Ev::Text(c) if c.is_blank() => {}
            Ev::Text(c) => {
                return Err(invalid(
                    format!("text `{}` before <hkpackfile>", shown(&c.raw())),
                    c.at,
                ))
            }
            Ev::Start(t) if t.name() == "hkpackfile" => {
                return Ok(Root {
                    at: t.at,
                    attrs: t.attrs(ROOT_ATTRS)?,
                })
            }
            Ev::Start(t) => {
                return Err(invalid(
                    format!("<{}> is not <hkpackfile>", shown(t.name())),
                    t.at,
                ))
            }
            Ev::End | Ev::Eof => return Err(invalid("expected one <hkpackfile> element", len)),
        }
    }
}

/// A reference from one of hk's elements to an object, by name.
#[derive(Debug)]
pub(super) struct Named<'a> {
    pub(super) object: Cow<'a, str>,
    pub(super) at: usize,
}

/// What the first look found.
#[derive(Debug, Default)]
pub(super) struct Scan<'a> {
    /// Each object's position in document order, by name.
    pub(super) names: HashMap<Cow<'a, str>, u32>,
    /// How many objects there are.
    pub(super) objects: u32,
    /// The section names (`hk:sections`, else Havok's three).
    pub(super) sections: Vec<String>,
    /// `<hk:classnames>`.
    pub(super) class_names: Option<Vec<String>>,
    /// `<hk:export object name>`: the object and the export's name.
    pub(super) exports: Vec<(Named<'a>, Cow<'a, str>)>,
    /// `<hk:capacity object path flags>`: the object, the path and the flags.
    pub(super) capacity: Vec<(Named<'a>, Cow<'a, str>, Cow<'a, str>)>,
}

/// The index of the section a `<hksection>` names: `hk:index`, else the first section of
/// its name (`__data__` when it has none).
pub(super) fn section_index(t: &Tag<'_>, sections: &[String]) -> Res<u32> {
    let [name, index] = t.attrs(SECTION_ATTRS)?;
    let name = name.as_deref().unwrap_or("__data__");
    match index {
        Some(i) => i
            .parse()
            .map_err(|_| invalid(format!("hk:index `{}` is not a number", shown(&i)), t.at)),
        None => sections
            .iter()
            .position(|n| n == name)
            .map(|p| p as u32)
            .ok_or_else(|| {
                invalid(
                    format!("no section `{}` in the file's sections", shown(name)),
                    t.at,
                )
            }),
    }
}

/// Reads the rest of the file after `<hkpackfile>`'s start tag: objects, sections and hk's
/// elements, and that nothing follows the root.
pub(super) fn body<'a>(
    ev: &mut Events<'a>,
    root: &Root<'_>,
    schema: &Schema,
    meter: &Meter,
) -> Res<Scan<'a>> {
    let mut scan = Scan {
        sections: match root.get("hk:sections") {
            Some(s) => {
                meter.charge(s.len() as u64 * 2, root.at)?;
                s.split(' ').map(String::from).collect()
            }
            None => super::DEFAULT_SECTIONS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        },
        ..Scan::default()
    };
    loop {
        match ev.next()? {
            Ev::Text(c) if c.is_blank() => {}
            Ev::Text(c) => return Err(stray_text(&c, "<hkpackfile>")),
            Ev::Start(t) => match t.name() {
                "hksection" => {
                    section_index(&t, &scan.sections)?;
                    objects(ev, &mut scan, schema, meter)?;
                }
                "hk:classnames" => {
                    t.no_attrs()?;
                    if scan.class_names.is_some() {
                        return Err(invalid("a second <hk:classnames>", t.at));
                    }
                    scan.class_names = Some(class_names(ev, meter)?);
                }
                "hk:export" => {
                    let [object, name] = t.attrs(["object", "name"])?;
                    let (object, name) = (need(object, &t, "object")?, need(name, &t, "name")?);
                    meter.charge(2 * (OBJECT + name.len() as u64), t.at)?;
                    scan.exports.push((named(object, &t), name));
                    empty(ev)?;
                }
                "hk:capacity" => {
                    let [object, path, flags] = t.attrs(["object", "path", "flags"])?;
                    let object = need(object, &t, "object")?;
                    let (path, flags) = (need(path, &t, "path")?, need(flags, &t, "flags")?);
                    meter.charge(2 * (OBJECT + path.len() as u64), t.at)?;
                    scan.capacity.push((named(object, &t), path, flags));
                    empty(ev)?;
                }
                other => return Err(invalid(format!("<{}> in <hkpackfile>", shown(other)), t.at)),
            },
            Ev::End => break,
            Ev::Eof => return Err(invalid("the file ends inside <hkpackfile>", 0)),
        }
    }
    // Only blanks, comments and processing instructions after the root.
    loop {
        match ev.next()? {
            Ev::Text(c) if c.is_blank() => {}
            Ev::Text(c) => return Err(stray_text(&c, "the file after </hkpackfile>")),
            Ev::Start(t) => {
                return Err(invalid(
                    format!(
                        "<{}> after </hkpackfile> (a file holds one root)",
                        shown(t.name())
                    ),
                    t.at,
                ))
            }
            Ev::End => return Err(invalid("an end tag closes nothing", 0)),
            Ev::Eof => return Ok(scan),
        }
    }
}

fn named<'a>(object: Cow<'a, str>, t: &Tag<'_>) -> Named<'a> {
    Named { object, at: t.at }
}

fn need<'a>(v: Option<Cow<'a, str>>, t: &Tag<'_>, key: &str) -> Res<Cow<'a, str>> {
    v.ok_or_else(|| invalid(format!("<{}> has no `{key}`", t.name()), t.at))
}

/// The error of text where only elements belong, at its first character that is not a
/// blank.
pub(super) fn stray_text(c: &Chunk<'_>, place: &str) -> Located {
    let raw = c.raw();
    let blanks = raw.len() - raw.trim_start().len();
    invalid(
        format!(
            "text `{}` in {place}, where only elements belong",
            shown(raw.trim())
        ),
        c.at + blanks,
    )
}

/// The end of an element that holds nothing (blanks aside).
fn empty(ev: &mut Events<'_>) -> Res<()> {
    loop {
        match ev.next()? {
            Ev::Text(c) if c.is_blank() => {}
            Ev::Text(c) => return Err(stray_text(&c, "an element of hk's")),
            Ev::Start(t) => {
                return Err(invalid(
                    format!("<{}> in an element that holds nothing", shown(t.name())),
                    t.at,
                ))
            }
            Ev::End | Ev::Eof => return Ok(()),
        }
    }
}

/// The objects of a section: each named once, of a class the schema has.
fn objects<'a>(
    ev: &mut Events<'a>,
    scan: &mut Scan<'a>,
    schema: &Schema,
    meter: &Meter,
) -> Res<()> {
    let inside = ev.depth();
    loop {
        match ev.next()? {
            Ev::Text(c) if c.is_blank() => {}
            Ev::Text(c) => return Err(stray_text(&c, "a section")),
            Ev::Start(t) if t.name() == "hkobject" => {
                let [name, class, _] = t.attrs(OBJECT_ATTRS)?;
                let name = name.ok_or_else(|| invalid("an <hkobject> without a name", t.at))?;
                let class = class.ok_or_else(|| invalid("an <hkobject> without a class", t.at))?;
                if schema.class_id(&class).is_none() {
                    return Err(Located {
                        error: crate::error::Error::missing_class(shown(&class)),
                        at: t.at,
                    });
                }
                meter.charge(OBJECT + ENTRY + name.len() as u64, t.at)?;
                let n = scan.objects;
                let max = meter.limits.max_objects;
                if u64::from(n) >= max {
                    return Err(Located {
                        error: crate::error::Error::read(crate::error::ReadError::Limit {
                            limit: crate::error::Limit::Objects,
                            needed: u64::from(n) + 1,
                            max,
                        }),
                        at: t.at,
                    });
                }
                if scan.names.contains_key(&name) {
                    return Err(invalid(
                        format!("two objects are named `{}`", shown(&name)),
                        t.at,
                    ));
                }
                scan.names.insert(name, n);
                scan.objects = n + 1;
                ev.skip_to(inside)?;
            }
            Ev::Start(t) => return Err(misplaced(t.name(), "a section", "hkobject", t.at)),
            Ev::End | Ev::Eof => return Ok(()),
        }
    }
}

/// The names of `<hk:classnames>`.
fn class_names(ev: &mut Events<'_>, meter: &Meter) -> Res<Vec<String>> {
    let mut out = Vec::new();
    loop {
        match ev.next()? {
            Ev::Text(c) if c.is_blank() => {}
            Ev::Text(c) => return Err(stray_text(&c, "<hk:classnames>")),
            Ev::Start(t) if t.name() == "hk:class" => {
                let [name] = t.attrs(["name"])?;
                let name = need(name, &t, "name")?;
                // The list, and its copy in the dump's header.
                meter.charge(2 * (ENTRY + name.len() as u64), t.at)?;
                out.push(name.into_owned());
                empty(ev)?;
            }
            Ev::Start(t) => return Err(misplaced(t.name(), "<hk:classnames>", "hk:class", t.at)),
            Ev::End | Ev::Eof => return Ok(out),
        }
    }
}
