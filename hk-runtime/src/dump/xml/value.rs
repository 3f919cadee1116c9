//! The members of an object, read from its `<hkparam>`s as the dump's reader asks for them
//! (serde deserializers over the XML events): a struct's members in the file's order, then
//! the members the file leaves out with their defaults; each value straight from its text
//! or child elements, through the member's shape. Nothing is kept between values but the
//! text of the one being read, and every value is charged to the read's budget before the
//! dump's reader makes it.
//!
//! A value's element holds what its shape says and nothing else: text for a number, name,
//! pointer or string; one `<hkobject>` for a struct; `<hkobject>`s, `<hkcstring>`s or text
//! for an array. Any other element or text there is refused, with its place.

use std::borrow::Cow;
use std::sync::Arc;

use serde::de::{DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserializer as _;

use super::defaults::DefaultDe;
use super::events::{invalid, misplaced, shown, Ev, Located};
use super::leaf::{floats, only_any, DeErr, Lit, Names, Tok, Tokens};
use super::meter::{element, MEMBER};
use super::scan::stray_text;
use super::walk::{Shared, Walk};
use crate::error::PathSegment;
use crate::error::{Error, Limit, ReadError};
use crate::schema::{ClassId, FlatMember, Shape};

/// The attributes an `<hkparam>` takes.
const PARAM_ATTRS: [&str; 3] = ["name", "numelements", "hk:bytes"];

/// The members of a struct or object whose `<hkobject>` start tag was just read.
pub(super) struct StructDe<'w, 's, 'a> {
    pub(super) w: &'w mut Walk<'s, 'a>,
    pub(super) class: ClassId,
    /// How many structs it is inside.
    pub(super) level: usize,
}

impl<'de> serde::Deserializer<'de> for StructDe<'_, '_, '_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        let sh = self.w.sh;
        let at = self.w.last;
        let depth = sh.meter.limits.depth();
        if self.level > depth {
            return Err(sh.fail(Located {
                error: Error::read(ReadError::Limit {
                    limit: Limit::Depth,
                    needed: depth as u64 + 1,
                    max: depth as u64,
                }),
                at,
            }));
        }
        let members = sh
            .schema
            .members(self.class)
            .map_err(|error| sh.fail(Located { error, at }))?;
        let end = self.w.ev.depth() - 1;
        let mut map = StructMap {
            given: vec![false; members.len()],
            members,
            w: self.w,
            class: self.class,
            ended: false,
            next_default: 0,
            hint: 0,
            current: Current::None,
            level: self.level,
        };
        let value = v.visit_map(&mut map).map_err(|e| e.or_at(map.w.last))?;
        if !map.ended {
            map.w.skip_to(end)?;
        }
        Ok(value)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        let end = self.w.ev.depth() - 1;
        self.w.skip_to(end)?;
        v.visit_unit()
    }

    only_any!();
}

/// The member whose value comes next.
enum Current<'a> {
    None,
    /// An `<hkparam>`: its member (none: the class has no such member), name and
    /// attributes.
    Param {
        member: Option<usize>,
        name: Cow<'a, str>,
        at: usize,
        numelements: Option<Cow<'a, str>>,
        bytes: Option<Cow<'a, str>>,
    },
    /// A member the file leaves out.
    Default(usize),
}

struct StructMap<'w, 's, 'a> {
    w: &'w mut Walk<'s, 'a>,
    class: ClassId,
    members: Arc<[FlatMember]>,
    /// Members the file gives.
    given: Vec<bool>,
    /// Whether the `<hkobject>` has ended.
    ended: bool,
    next_default: usize,
    /// The member expected next (files list them in order).
    hint: usize,
    current: Current<'a>,
    level: usize,
}

impl StructMap<'_, '_, '_> {
    fn member(&mut self, name: &str) -> Option<usize> {
        let schema = self.w.sh.schema;
        let is = |m: &FlatMember| schema.member_of(m).name == name;
        let i = match self.members.get(self.hint) {
            Some(m) if is(m) => Some(self.hint),
            _ => self.members.iter().position(is),
        }?;
        self.hint = i + 1;
        Some(i)
    }
}

impl<'de, 'a> MapAccess<'de> for StructMap<'_, '_, 'a> {
    type Error = DeErr;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeErr> {
        while !self.ended {
            match self.w.next()? {
                Ev::Text(c) if c.is_blank() => {}
                Ev::Text(c) => return Err(self.w.err(stray_text(&c, "an object"))),
                Ev::Start(t) if t.name() == "hkparam" => {
                    let [name, numelements, bytes] =
                        t.attrs(PARAM_ATTRS).map_err(|l| self.w.err(l))?;
                    let name = name
                        .ok_or_else(|| self.w.err(invalid("an <hkparam> without a name", t.at)))?;
                    self.w.last = t.at;
                    let member = self.member(&name);
                    if let Some(i) = member {
                        self.given[i] = true;
                    }
                    let key = seed
                        .deserialize(name.as_ref().into_deserializer())
                        .map_err(|e: DeErr| e.or_at(t.at))?;
                    self.current = Current::Param {
                        member,
                        name,
                        at: t.at,
                        numelements,
                        bytes,
                    };
                    return Ok(Some(key));
                }
                Ev::Start(t) => {
                    return Err(self
                        .w
                        .err(misplaced(t.name(), "an object", "hkparam", t.at)))
                }
                Ev::End | Ev::Eof => self.ended = true,
            }
        }
        while let Some(i) = (self.next_default < self.members.len()).then_some(self.next_default) {
            self.next_default += 1;
            if !self.given[i] {
                self.current = Current::Default(i);
                let name = self.w.sh.schema.member_of(&self.members[i]).name.as_str();
                return seed.deserialize(name.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeErr> {
        let sh = self.w.sh;
        let members = Arc::clone(&self.members);
        let (name, r) = match std::mem::replace(&mut self.current, Current::None) {
            Current::Param {
                member: Some(i),
                name,
                at,
                numelements,
                bytes,
            } => {
                sh.charge(MEMBER, at)?;
                let p = ParamDe {
                    w: &mut *self.w,
                    fm: &members[i],
                    at,
                    numelements,
                    bytes,
                    level: self.level,
                };
                (name, seed.deserialize(p))
            }
            Current::Param {
                member: None,
                name,
                at,
                ..
            } => {
                return Err(sh.fail(invalid(
                    format!(
                        "`{}` has no member `{}`",
                        sh.schema.name_of(self.class),
                        shown(&name)
                    ),
                    at,
                )))
            }
            Current::Default(i) => {
                let at = self.w.last;
                sh.charge(MEMBER, at)?;
                let d = DefaultDe {
                    sh,
                    shape: &members[i].shape,
                    at,
                };
                let name = Cow::Owned(sh.schema.member_of(&members[i]).name.clone());
                (name, seed.deserialize(d))
            }
            Current::None => return Err(serde::de::Error::custom("a value without its member")),
        };
        r.inspect_err(|_| {
            sh.context(|| PathSegment::field(name));
        })
    }
}

/// A struct member's value, from its `<hkparam>` (whose start tag was just read).
struct ParamDe<'w, 's, 'a, 'm> {
    w: &'w mut Walk<'s, 'a>,
    fm: &'m FlatMember,
    at: usize,
    numelements: Option<Cow<'a, str>>,
    bytes: Option<Cow<'a, str>>,
    level: usize,
}

impl<'a> ParamDe<'_, '_, 'a, '_> {
    fn sh(&self) -> &Shared<'a> {
        self.w.sh
    }

    /// An error at the `<hkparam>`.
    fn bad(&self, msg: impl Into<String>) -> DeErr {
        self.w.err(invalid(msg, self.at))
    }

    /// The member's enum, when it has one.
    fn names(&self) -> Names<'a> {
        let schema = self.sh().schema;
        super::enum_of(
            schema,
            schema.name_of(self.fm.owner),
            schema.member_of(self.fm),
        )
    }

    fn describe(&self) -> String {
        self.fm.shape.describe(self.sh().schema)
    }

    /// The text up to the `<hkparam>`'s end tag, where it starts, and whether its bytes
    /// are where the file has them.
    fn gather(&mut self) -> Result<(Cow<'a, str>, usize, bool), DeErr> {
        gather(self.w, self.at)
    }
}

/// The text of the element whose start tag (at `at`) was just read, up to its end tag: an
/// element inside is refused.
fn gather<'a>(w: &mut Walk<'_, 'a>, at: usize) -> Result<(Cow<'a, str>, usize, bool), DeErr> {
    let mut out: Option<(Cow<'a, str>, usize, bool)> = None;
    loop {
        match w.next()? {
            Ev::Text(c) => {
                let start = c.at;
                let (s, exact) = c.text().map_err(|l| w.err(l))?;
                match &mut out {
                    None => out = Some((s, start, exact)),
                    Some((o, _, exact)) => {
                        // The text so far is copied once, then each piece added to it.
                        let copied = if matches!(o, Cow::Borrowed(_)) {
                            o.len()
                        } else {
                            0
                        };
                        w.sh.charge((copied + s.len()) as u64, start)?;
                        o.to_mut().push_str(&s);
                        *exact = false;
                    }
                }
            }
            Ev::Start(t) => {
                return Err(w.err(invalid(
                    format!("<{}> inside a value (a value is text)", shown(t.name())),
                    t.at,
                )))
            }
            Ev::End | Ev::Eof => return Ok(out.unwrap_or((Cow::Borrowed(""), at, false))),
        }
    }
}

/// The position in the file of byte `offset` of a text that starts at `at`.
fn place(at: usize, exact: bool, offset: usize) -> usize {
    if exact {
        at + offset
    } else {
        at
    }
}

/// A string's value: `hk:bytes` (its element then holds no text), null (U+2400), or the
/// text.
fn string_lit<'t>(
    text: Cow<'t, str>,
    bytes: Option<Cow<'t, str>>,
) -> Result<Lit<'t>, &'static str> {
    match bytes {
        Some(_) if !text.is_empty() => Err("a string given by `hk:bytes` holds no text"),
        Some(hex) => Ok(Lit::Map(vec![("bytes", Lit::Str(hex))])),
        None if text == "\u{2400}" => Ok(Lit::Unit),
        None => Ok(Lit::Str(text)),
    }
}

impl<'de> serde::Deserializer<'de> for ParamDe<'_, '_, '_, '_> {
    type Error = DeErr;

    fn deserialize_any<V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, DeErr> {
        let shape = &self.fm.shape;
        let array = matches!(shape, Shape::Array(..) | Shape::CArray(..));
        let name = &self.sh().schema.member_of(self.fm).name;
        if self.numelements.is_some() && !array {
            return Err(self.bad(format!(
                "`numelements` is for arrays; `{name}` holds a `{}`",
                self.describe()
            )));
        }
        if self.bytes.is_some() && !matches!(shape, Shape::String) {
            return Err(self.bad(format!(
                "`hk:bytes` is for strings; `{name}` holds a `{}`",
                self.describe()
            )));
        }
        match shape {
            Shape::Struct(c) => self.structure(*c, v),
            Shape::Array(_, e) | Shape::CArray(_, e) => self.array(e, v),
            Shape::Homogeneous => Err(self.bad(format!(
                "hk reads no Havok XML form of `homogeneousarray` members (`{name}`): use a JSON or TOML dump (docs/havok-xml.md)"
            ))),
            Shape::String => {
                let (text, at, _) = self.gather()?;
                self.sh().charge(text.len() as u64, at)?;
                let bytes = self.bytes.take();
                let lit = string_lit(text, bytes).map_err(|m| self.bad(m))?;
                lit.deserialize_any(v).map_err(|e| e.or_at(at))
            }
            _ => self.scalar(v),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeErr> {
        let end = self.w.ev.depth() - 1;
        self.w.skip_to(end)?;
        v.visit_unit()
    }

    only_any!();
}

impl<'a> ParamDe<'_, '_, 'a, '_> {
    /// A struct member: one `<hkobject>`.
    fn structure<'de, V: Visitor<'de>>(self, c: ClassId, v: V) -> Result<V::Value, DeErr> {
        let none = "a struct member holds one <hkobject>; this one holds none";
        loop {
            match self.w.next()? {
                Ev::Text(c) if c.is_blank() => {}
                Ev::Text(c) => return Err(self.w.err(stray_text(&c, "a struct member"))),
                Ev::Start(t) if t.name() == "hkobject" => {
                    t.no_attrs().map_err(|l| self.w.err(l))?;
                    self.w.last = t.at;
                    break;
                }
                Ev::Start(t) => {
                    return Err(self.w.err(misplaced(
                        t.name(),
                        "a struct member",
                        "hkobject",
                        t.at,
                    )))
                }
                Ev::End | Ev::Eof => return Err(self.bad(none)),
            }
        }
        let value = StructDe {
            w: &mut *self.w,
            class: c,
            level: self.level + 1,
        }
        .deserialize_any(v)?;
        loop {
            match self.w.next()? {
                Ev::Text(c) if c.is_blank() => {}
                Ev::Text(c) => return Err(self.w.err(stray_text(&c, "a struct member"))),
                Ev::Start(t) => {
                    return Err(self.w.err(invalid(
                        format!(
                            "<{}> after the <hkobject> of a struct member (it holds one)",
                            shown(t.name())
                        ),
                        t.at,
                    )))
                }
                Ev::End | Ev::Eof => return Ok(value),
            }
        }
    }

    /// An array or C array: its elements, and as many as `numelements` says.
    fn array<'de, V: Visitor<'de>>(mut self, elem: &Shape, v: V) -> Result<V::Value, DeErr> {
        let want =
            match &self.numelements {
                Some(n) => Some(n.parse::<u64>().map_err(|_| {
                    self.bad(format!("numelements=\"{}\" is not a number", shown(n)))
                })?),
                None => None,
            };
        let kind = match elem {
            Shape::Struct(_) => Kind::Objects,
            Shape::String => Kind::Strings,
            Shape::Floats(n) => Kind::Tokens(usize::from(*n).div_ceil(4).max(1)),
            // Written only empty.
            Shape::Array(..) | Shape::CArray(..) | Shape::Void | Shape::Unsupported(_) => {
                Kind::Tokens(0)
            }
            _ => Kind::Tokens(1),
        };
        let text = match kind {
            Kind::Tokens(_) => Some(self.gather()?),
            _ => None,
        };
        let names = self.names();
        let at = self.at;
        let end = self.w.ev.depth() - 1;
        let (text, text_at, exact) = text.unwrap_or((Cow::Borrowed(""), at, false));
        let mut seq = Elements {
            w: &mut *self.w,
            elem,
            names,
            kind,
            text,
            text_at,
            exact,
            pos: 0,
            count: 0,
            done: !matches!(kind, Kind::Objects | Kind::Strings),
            level: self.level,
        };
        let value = v.visit_seq(&mut seq).map_err(|e| e.or_at(seq.w.last))?;
        let count = seq.count;
        if !seq.done {
            seq.w.skip_to(end)?;
        }
        if let Some(n) = want.filter(|n| *n != count as u64) {
            return Err(self.bad(format!("numelements=\"{n}\" but {count} elements")));
        }
        Ok(value)
    }

    /// A number, name, pointer or float tuple: one word, or `( … )` groups for a tuple.
    fn scalar<'de, V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, DeErr> {
        let (text, at, exact) = self.gather()?;
        let shape = &self.fm.shape;
        let mut t = Tokens::new(&text);
        let mut toks = Vec::new();
        while let Some(tok) = t
            .next_tok()
            .map_err(|(m, o)| self.w.err(invalid(m, place(at, exact, o))))?
        {
            // No member holds more than 16 words or groups (a 16-float tuple).
            if toks.len() == 16 {
                return Err(self.w.err(invalid(
                    format!("more values than a `{}` member holds", self.describe()),
                    place(at, exact, tok.1),
                )));
            }
            toks.push(tok);
        }
        let lit = match (shape, toks.as_slice()) {
            (Shape::Void | Shape::Unsupported(_), []) => Ok(Lit::Unit),
            (_, []) => {
                return Err(self.bad(format!(
                    "a `{}` member holds a value; this one is empty",
                    self.describe()
                )))
            }
            (Shape::Floats(n), _) => {
                let groups: Result<Vec<&str>, usize> = toks
                    .iter()
                    .map(|(t, o)| match t {
                        Tok::Group(g) => Ok(*g),
                        Tok::Word(_) => Err(*o),
                    })
                    .collect();
                match groups {
                    Ok(g) => floats(*n, &g),
                    Err(o) => {
                        return Err(self.w.err(invalid(
                            format!("a `{}` member takes `(x y z w)` groups", self.describe()),
                            place(at, exact, o),
                        )))
                    }
                }
            }
            (_, [(tok, _)]) => self.sh().leaf().value(shape, self.names(), *tok),
            (_, [_, (_, o), ..]) => {
                return Err(self.w.err(invalid(
                    format!(
                        "a `{}` member holds one value, not `{}`",
                        self.describe(),
                        shown(text.trim())
                    ),
                    place(at, exact, *o),
                )))
            }
        };
        let o = toks.first().map_or(0, |(_, o)| *o);
        let lit = lit.map_err(|error| {
            self.w.err(Located {
                error,
                at: place(at, exact, o),
            })
        })?;
        lit.deserialize_any(v)
            .map_err(|e| e.or_at(place(at, exact, o)))
    }
}

/// What an array's elements are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `<hkobject>`s.
    Objects,
    /// `<hkcstring>`s.
    Strings,
    /// Words, or this many `( … )` groups each (float tuples); none for elements Havok
    /// XML has no form for (an array of them is empty).
    Tokens(usize),
}

/// An array's elements.
struct Elements<'w, 's, 'a, 'e> {
    w: &'w mut Walk<'s, 'a>,
    elem: &'e Shape,
    names: Names<'e>,
    kind: Kind,
    /// The text of an array of words or groups, where it starts, whether it is exact.
    text: Cow<'a, str>,
    text_at: usize,
    exact: bool,
    /// How far into the text.
    pos: usize,
    count: usize,
    /// Whether the `<hkparam>`'s end tag was read.
    done: bool,
    level: usize,
}

impl<'de> SeqAccess<'de> for Elements<'_, '_, '_, '_> {
    type Error = DeErr;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeErr> {
        let i = self.count;
        let r = match self.kind {
            Kind::Tokens(per) => self.token(per, seed),
            _ => self.child(seed),
        };
        match r {
            Ok(Some(v)) => {
                self.count += 1;
                Ok(Some(v))
            }
            Ok(None) => Ok(None),
            Err(e) => {
                self.w.sh.context(|| PathSegment::index(i));
                Err(e)
            }
        }
    }
}

impl Elements<'_, '_, '_, '_> {
    /// The next element of an array of words or groups.
    fn token<'de, T: DeserializeSeed<'de>>(
        &mut self,
        per: usize,
        seed: T,
    ) -> Result<Option<T::Value>, DeErr> {
        let sh = self.w.sh;
        let (at, exact) = (self.text_at, self.exact);
        let mut t = Tokens {
            text: &self.text,
            i: self.pos,
        };
        let fail = |(m, o): (String, usize)| sh.fail(invalid(m, place(at, exact, o)));
        let Some((first, o)) = t.next_tok().map_err(fail)? else {
            return Ok(None);
        };
        let here = place(at, exact, o);
        if per == 0 {
            return Err(sh.fail(invalid(
                format!(
                    "Havok XML has no form for an element of `{}`",
                    self.elem.describe(sh.schema)
                ),
                here,
            )));
        }
        sh.charge(element(self.elem), here)?;
        let lit = match (self.elem, first) {
            (Shape::Floats(n), Tok::Group(g)) => {
                let mut groups = vec![g];
                while groups.len() < per {
                    match t.next_tok().map_err(fail)? {
                        Some((Tok::Group(g), _)) => groups.push(g),
                        Some((Tok::Word(_), o)) => {
                            return Err(sh.fail(invalid(
                                "a float tuple is `( … )` groups",
                                place(at, exact, o),
                            )))
                        }
                        None => break,
                    }
                }
                floats(*n, &groups)
            }
            _ => sh.leaf().value(self.elem, self.names, first),
        };
        self.pos = t.i;
        let lit = lit.map_err(|error| sh.fail(Located { error, at: here }))?;
        self.w.last = here;
        seed.deserialize(lit).map(Some).map_err(|e| e.or_at(here))
    }

    /// The next `<hkobject>` or `<hkcstring>` element.
    fn child<'de, T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, DeErr> {
        let (want, what) = match self.kind {
            Kind::Objects => ("hkobject", "structs"),
            _ => ("hkcstring", "strings"),
        };
        loop {
            if self.done {
                return Ok(None);
            }
            match self.w.next()? {
                Ev::Text(c) if c.is_blank() => {}
                Ev::Text(c) => {
                    return Err(self.w.err(stray_text(&c, &format!("an array of {what}"))))
                }
                Ev::Start(t) if t.name() == want => {
                    self.w.last = t.at;
                    self.w.sh.charge(element(self.elem), t.at)?;
                    if let Shape::Struct(c) = self.elem {
                        t.no_attrs().map_err(|l| self.w.err(l))?;
                        let s = StructDe {
                            w: &mut *self.w,
                            class: *c,
                            level: self.level + 1,
                        };
                        return seed.deserialize(s).map(Some);
                    }
                    let [bytes] = t.attrs(["hk:bytes"]).map_err(|l| self.w.err(l))?;
                    let (text, at, _) = gather(self.w, t.at)?;
                    self.w.sh.charge(text.len() as u64, at)?;
                    let lit = string_lit(text, bytes).map_err(|m| self.w.err(invalid(m, t.at)))?;
                    return seed.deserialize(lit).map(Some).map_err(|e| e.or_at(at));
                }
                Ev::Start(t) => {
                    return Err(self.w.err(misplaced(
                        t.name(),
                        format!("an array of {what}"),
                        want,
                        t.at,
                    )))
                }
                Ev::End | Ev::Eof => self.done = true,
            }
        }
    }
}
