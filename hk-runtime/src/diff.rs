//! Member-by-member differences between two documents (what `hk diff` prints). Members are
//! matched by name, so two files read with different schemas (a file's own metadata against
//! a folder, two versions) compare member for member.

use crate::file::{Document, Origin};
use crate::graph::{Array, Graph, Value};
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
        (Origin::Packfile(x), Origin::Packfile(y)) if x != y => {
            d.push(limit, || format!("file facts differ: {x:?} vs {y:?}"))
        }
        (Origin::Tagfile { file: x, .. }, Origin::Tagfile { file: y, .. })
            if x.sdk_version != y.sdk_version =>
        {
            d.push(limit, || {
                format!("SDK version {} vs {}", x.sdk_version, y.sdk_version)
            })
        }
        (Origin::Packfile(_), Origin::Tagfile { .. })
        | (Origin::Tagfile { .. }, Origin::Packfile(_)) => {
            d.push(limit, || "a packfile vs a tagfile".to_string())
        }
        _ => {}
    }
    graphs(&a.graph, &b.graph, limit, &mut d);
    d
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
                if x != y {
                    d.push(limit, || {
                        format!("{path}[{i}]: {} vs {}", text(x.as_ref()), text(y.as_ref()))
                    });
                }
            }
        }
        _ if a != b => d.push(limit, || {
            format!("{path}: {} vs {}", text(Some(a)), text(Some(b)))
        }),
        _ => {}
    }
}

fn text(v: Option<&Value>) -> String {
    let s = format!("{v:?}");
    let s = s
        .strip_prefix("Some(")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(&s);
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(80).collect();
        format!("{cut}…")
    } else {
        s.to_string()
    }
}
