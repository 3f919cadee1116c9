//! hk-runtime's modules form layers that only import downward (docs/design.md), and the
//! import graph between its files has no cycle.
//!
//! Every `crate::…` and `super::…` path in a source file is an edge from that file to the
//! file the path names (each further `super` one module up). A `mod x;` declaration, and a
//! `mod.rs` reaching its own children through `x::…`, are not imports: a folder's `mod.rs`
//! is its front (docs/design.md, "Layers"). The test fails on an edge into a higher layer,
//! and on any strongly connected group of more than one file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Layer of a module path's first segment.
fn layer(top: &str) -> Option<u8> {
    Some(match top {
        "bytes" | "rules" | "error" | "limits" | "text" | "types" => 1,
        "schema" => 2,
        "graph" => 3,
        "packfile" | "tagfile" => 4,
        "file" | "dump" | "diff" | "convert" | "typed" | "collision" | "anim" => 5,
        "lib" => 6,
        _ => return None,
    })
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file: `packfile/read.rs` -> `["packfile", "read"]`,
/// `packfile/mod.rs` -> `["packfile"]`, `lib.rs` -> `["lib"]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// The longest prefix of `path` that names a module file of `files`.
fn resolve(path: &[String], files: &BTreeMap<Vec<String>, PathBuf>) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| files.contains_key(p))
}

/// Module paths a file imports (`crate::a::b`, `super::c`), skipping comments.
fn imports(text: &str, me: &[String], is_mod_rs: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (i, _) in code
            .match_indices("crate::")
            .chain(code.match_indices("super::"))
        {
            // The start of a path only (not the second `super` of `super::super::x`, nor
            // `my_crate::`).
            if code[..i]
                .chars()
                .last()
                .is_some_and(|c| c == ':' || c == '_' || c.is_alphanumeric())
            {
                continue;
            }
            let rest = &code[i..];
            let mut segs: Vec<String> = rest
                .split("::")
                .map(|s| {
                    s.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .collect();
            let base: Vec<String> = if segs[0] == "crate" {
                Vec::new()
            } else {
                // `super` from `a/b.rs` is `a`; from `a/mod.rs` (module `a`) it is the root.
                let mut m = me.to_vec();
                if !is_mod_rs || !m.is_empty() {
                    m.pop();
                }
                m
            };
            segs.remove(0);
            // Each further `super` goes one module up.
            let mut base = base;
            while segs.first().is_some_and(|s| s == "super") {
                segs.remove(0);
                base.pop();
            }
            let mut full = base;
            full.extend(segs.into_iter().take_while(|s| !s.is_empty()));
            out.push(full);
        }
    }
    out
}

#[test]
fn runtime_layers_import_downward_without_cycles() {
    let src = hk_tests::root().join("hk-runtime/src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    let files: BTreeMap<Vec<String>, PathBuf> = paths
        .iter()
        .map(|p| (module_of(&src, p), p.clone()))
        .map(|(m, p)| {
            if m.is_empty() {
                (vec!["lib".into()], p)
            } else {
                (m, p)
            }
        })
        .collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut upward = Vec::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let is_mod = path.file_name().is_some_and(|n| n == "mod.rs");
        let me: &[String] = if module[0] == "lib" { &[] } else { module };
        for imp in imports(&text, me, is_mod) {
            if imp.is_empty() {
                continue;
            }
            let Some(target) = resolve(&imp, &files) else {
                continue;
            };
            if &target == module {
                continue;
            }
            let (from, to) = (layer(&module[0]), layer(&target[0]));
            assert!(
                from.is_some(),
                "{}: a module no layer lists",
                path.display()
            );
            if from < to {
                upward.push(format!(
                    "{} (layer {}) imports {} (layer {})",
                    module.join("/"),
                    from.unwrap_or(0),
                    target.join("::"),
                    to.unwrap_or(0)
                ));
            }
            edges.entry(module.clone()).or_default().insert(target);
        }
    }
    assert!(
        upward.is_empty(),
        "imports into a higher layer:\n{}",
        upward.join("\n")
    );
    // Strongly connected components (Tarjan); any with more than one file is a cycle.
    let nodes: Vec<&Vec<String>> = files.keys().collect();
    let index_of: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(*n)
                .into_iter()
                .flatten()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let cycles = tarjan(&adj)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            c.iter()
                .map(|&i| nodes[i].join("/"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect::<Vec<_>>();
    assert!(
        cycles.is_empty(),
        "import cycles between files:\n{}",
        cycles.join("\n")
    );
    println!(
        "{} files, {} import edges, no upward import, no cycle",
        files.len(),
        edges.values().map(BTreeSet::len).sum::<usize>()
    );
}

fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct S<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut S<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in &s.adj[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on[w] => s.low[v] = s.low[v].min(i),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut c = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(c);
        }
    }
    let n = adj.len();
    let mut s = S {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn each_super_goes_one_module_up() {
    let me: Vec<String> = ["tagfile", "data", "checks"].map(String::from).to_vec();
    let got = imports(
        "use super::super::parse::TagFile;\nuse super::Decoder; // super::ignored\n",
        &me,
        false,
    );
    let want: Vec<Vec<String>> = vec![
        ["tagfile", "parse", "TagFile"].map(String::from).to_vec(),
        ["tagfile", "data", "Decoder"].map(String::from).to_vec(),
    ];
    assert_eq!(got, want);
    // From a mod.rs (module `tagfile::data`), `super` is `tagfile`.
    let got = imports("use super::index::Item;", &me[..2], true);
    assert_eq!(
        got,
        vec![["tagfile", "index", "Item"].map(String::from).to_vec()]
    );
}
