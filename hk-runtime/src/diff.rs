//! Member-by-member differences between two documents (what `hk diff` prints). Members are
//! matched by name, so two files read with different schemas (a file's own metadata against
//! a folder, two versions) compare member for member.

use crate::file::{Document, Origin};
use crate::graph::{Array, Graph, Ptr, Seg, Value};
use crate::packfile::info::PackfileInfo;
use crate::schema::ClassId;

/// The differences found, the first `limit` of them as text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    /// Every difference found.
    pub total: usize,
    /// The first ones, as `#3 hkaSkeleton.bones[2].name: "a" vs "b"`.
    pub lines: Vec<String>,
}

impl Diff {
    fn push(&mut self, limit: usize, line: impl FnOnce() -> String) {
        self.total += 1;
        if self.lines.len() < limit {
            self.lines.push(line());
        }
    }
}

/// The differences between `a` and `b`, keeping the text of the first `limit`.
pub fn diff(a: &Document, b: &Document, limit: usize) -> Diff {
    let mut d = Diff::default();
    match (&a.origin, &b.origin) {
        (Origin::Packfile(x), Origin::Packfile(y)) if x != y => header_facts(x, y, limit, &mut d),
        (Origin::Tagfile { file: x, .. }, Origin::Tagfile { file: y, .. })
            if x.sdk_version != y.sdk_version =>
        {
            d.push(limit, || {
                format!("SDK version {} vs {}", x.sdk_version, y.sdk_version)
            })
        }
        (Origin::BinaryTagfile(x), Origin::BinaryTagfile(y))
            if (x.version, &x.sdk) != (y.version, &y.sdk) =>
        {
            let v = |f: &crate::tagfile::binary::BinaryTagfile| match &f.sdk {
                Some(s) => format!("{} (SDK {s})", f.version),
                None => f.version.to_string(),
            };
            d.push(limit, || {
                format!("binary tagfile version {} vs {}", v(x), v(y))
            })
        }
        _ if a.container() != b.container() => d.push(limit, || {
            format!(
                "{} vs {}",
                container(a.container()),
                container(b.container())
            )
        }),
        _ => {}
    }
    graphs(&a.graph, &b.graph, limit, &mut d);
    d
}

/// A container as a diff names it.
fn container(c: crate::file::Container) -> &'static str {
    match c {
        crate::file::Container::Packfile => "a packfile",
        crate::file::Container::Tagfile => "a tagfile",
        crate::file::Container::BinaryTagfile => "an old binary tagfile",
    }
}

/// The differences between two graphs' objects.
pub fn graphs(ga: &Graph, gb: &Graph, limit: usize, d: &mut Diff) {
    if ga.objects.len() != gb.objects.len() {
        d.push(limit, || {
            format!("{} objects vs {}", ga.objects.len(), gb.objects.len())
        });
    }
    if ga.root != gb.root {
        d.push(limit, || format!("root #{} vs #{}", ga.root.0, gb.root.0));
    }
    for (i, (oa, ob)) in ga.objects.iter().zip(&gb.objects).enumerate() {
        let (ca, cb) = (ga.schema().name_of(oa.class), gb.schema().name_of(ob.class));
        if ca != cb {
            d.push(limit, || format!("#{i}: class {ca} vs {cb}"));
            continue;
        }
        members(
            ga,
            gb,
            oa.class,
            ob.class,
            &oa.values,
            &ob.values,
            &format!("#{i} {ca}"),
            limit,
            d,
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn members(
    ga: &Graph,
    gb: &Graph,
    ca: ClassId,
    cb: ClassId,
    va: &[Value],
    vb: &[Value],
    path: &str,
    limit: usize,
    d: &mut Diff,
) {
    let (sa, sb) = (ga.schema(), gb.schema());
    let (Ok(ma), Ok(mb)) = (sa.members(ca), sb.members(cb)) else {
        return;
    };
    for (fa, x) in ma.iter().zip(va) {
        let name = &sa.member_of(fa).name;
        let here = format!("{path}.{name}");
        match mb.iter().position(|m| &sb.member_of(m).name == name) {
            None => d.push(limit, || format!("{here}: only in the first")),
            Some(j) => {
                let (inner_a, inner_b) = (struct_class(&fa.shape), struct_class(&mb[j].shape));
                value(ga, gb, inner_a, inner_b, x, &vb[j], &here, limit, d);
            }
        }
    }
    for fb in mb.iter() {
        let name = &sb.member_of(fb).name;
        if !ma.iter().any(|m| &sa.member_of(m).name == name) {
            d.push(limit, || format!("{path}.{name}: only in the second"));
        }
    }
}

/// The header facts that differ between two packfiles, one line each, named as the dump
/// names them.
fn header_facts(x: &PackfileInfo, y: &PackfileInfo, limit: usize, d: &mut Diff) {
    let mut fact = |name: &str, a: String, b: String| {
        if a != b {
            d.push(limit, || format!("file.{name}: {a} vs {b}"));
        }
    };
    fact(
        "file_version",
        x.file_version.to_string(),
        y.file_version.to_string(),
    );
    fact(
        "contents_version",
        format!("{:?}", x.contents_version),
        format!("{:?}", y.contents_version),
    );
    fact("layout", x.layout.tag(), y.layout.tag());
    fact("user_tag", x.user_tag.to_string(), y.user_tag.to_string());
    fact("flags", x.flags.to_string(), y.flags.to_string());
    fact("sections", x.sections.join(","), y.sections.join(","));
    fact(
        "class_names_section",
        x.class_names_section.to_string(),
        y.class_names_section.to_string(),
    );
    fact(
        "contents_section",
        x.contents_section.to_string(),
        y.contents_section.to_string(),
    );
    fn rest(i: &PackfileInfo) -> impl PartialEq + '_ {
        (
            &i.predicates,
            &i.class_names,
            &i.exports,
            &i.object_sections,
            &i.capacity_flags,
        )
    }
    if rest(x) != rest(y) {
        d.push(limit, || {
            "file: predicates, class-name order, exports, object sections or capacity flags differ"
                .into()
        });
    }
}

/// The struct class a member (or its elements) holds.
fn struct_class(shape: &crate::schema::Shape) -> Option<ClassId> {
    use crate::schema::Shape;
    match shape {
        Shape::Struct(c) => Some(*c),
        Shape::Array(_, e) | Shape::CArray(_, e) => struct_class(e),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
fn value(
    ga: &Graph,
    gb: &Graph,
    ca: Option<ClassId>,
    cb: Option<ClassId>,
    a: &Value,
    b: &Value,
    path: &str,
    limit: usize,
    d: &mut Diff,
) {
    match (a, b) {
        (Value::Struct(xa), Value::Struct(xb)) => match (ca, cb) {
            (Some(ca), Some(cb)) => members(ga, gb, ca, cb, xa, xb, path, limit, d),
            _ if xa != xb => d.push(limit, || format!("{path}: structs differ")),
            _ => {}
        },
        (Value::CArray(xa), Value::CArray(xb))
        | (Value::Array(Array::Values(xa)), Value::Array(Array::Values(xb))) => {
            if xa.len() != xb.len() {
                d.push(limit, || {
                    format!("{path}: {} elements vs {}", xa.len(), xb.len())
                });
            }
            for (i, (x, y)) in xa.iter().zip(xb).enumerate() {
                value(ga, gb, ca, cb, x, y, &format!("{path}[{i}]"), limit, d);
            }
        }
        (Value::Array(xa), Value::Array(xb)) => {
            if xa.len() != xb.len() {
                d.push(limit, || {
                    format!("{path}: {} elements vs {}", xa.len(), xb.len())
                });
            }
            if xa.column() == xb.column() && xa == xb {
                return;
            }
            for i in 0..xa.len().min(xb.len()) {
                let (x, y) = (xa.get(i), xb.get(i));
                match (&x, &y) {
                    _ if x == y => {}
                    // Elements of struct columns: member by member, as struct values are.
                    (Some(sx @ Value::Struct(_)), Some(sy @ Value::Struct(_))) => {
                        value(ga, gb, ca, cb, sx, sy, &format!("{path}[{i}]"), limit, d)
                    }
                    _ => d.push(limit, || {
                        format!("{path}[{i}]: {} vs {}", text(x.as_ref()), text(y.as_ref()))
                    }),
                }
            }
        }
        _ if a != b => d.push(limit, || {
            format!("{path}: {} vs {}", text(Some(a)), text(Some(b)))
        }),
        _ => {}
    }
}

/// A value as the dump writes it, shortened to 80 characters: numbers, `[0.5, 0.5]`,
/// `#3` for a pointer, `"name"` for a string, `null`, and a count for containers.
fn text(v: Option<&Value>) -> String {
    let s = match v {
        None => "nothing".to_string(),
        Some(v) => value_text(v),
    };
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(80).collect();
        format!("{cut}…")
    } else {
        s
    }
}

fn ptr_text(p: Option<&Ptr>) -> String {
    match p {
        None => "null".into(),
        Some(Ptr::Object(id)) => format!("#{}", id.0),
        Some(Ptr::Into { object, path }) => {
            let mut s = format!("#{}", object.0);
            for seg in path.iter() {
                match seg {
                    Seg::Member(m) => s.push_str(&format!(".{m}")),
                    Seg::Index(i) => s.push_str(&format!("[{i}]")),
                }
            }
            s
        }
        Some(Ptr::Import(name)) => format!("import {name:?}"),
    }
}

fn value_text(v: &Value) -> String {
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    match v {
        Value::None => "none".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Real(f) => format!("{f:?}"),
        Value::Half(h) => format!("{:?}", f32::from_bits(u32::from(*h) << 16)),
        Value::Floats(f) => list(f.iter().map(|x| format!("{x:?}")).collect()),
        Value::Pointer(p) => ptr_text(p.as_ref()),
        Value::String(None) => "null".into(),
        Value::String(Some(s)) => format!("{s:?}"),
        Value::Bytes(b) => format!("{} bytes (not UTF-8)", b.len()),
        Value::Array(a) => format!("{} elements", a.len()),
        Value::Struct(m) => format!("a struct of {} members", m.len()),
        Value::CArray(e) => list(e.iter().map(value_text).collect()),
        Value::Variant(v) => format!(
            "{} (class {})",
            ptr_text(v.object.as_ref()),
            ptr_text(v.class.as_ref())
        ),
        Value::Homogeneous(h) => format!(
            "{} elements (class {})",
            h.items.len(),
            ptr_text(h.class.as_ref())
        ),
    }
}
