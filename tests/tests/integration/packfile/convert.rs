//! Platform conversion (`hk_runtime::convert`) against the Havok SDK's own files: every demo
//! asset shipped in all eight layouts converts from each layout to each other one into the
//! SDK's file of that layout, byte for byte; and every corpus packfile converted away and
//! back is unchanged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hk_runtime::convert::convert;
use hk_runtime::error::{ErrorKind, WriteError};
use hk_runtime::file::{self, Document, Origin, Schemas};
use hk_runtime::packfile::graph::read::ReadOptions;
use hk_runtime::{Endian, LayoutRules};

fn open(schemas: &Schemas, bytes: &[u8]) -> Document {
    file::open(bytes, schemas, ReadOptions::default()).unwrap()
}

/// The assets of a demo folder: name → layout digits → file (`allosaur[4011].hkx`).
fn assets(dir: &Path) -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let mut out: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for f in hk_tests::files(dir) {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix("].hkx") else {
            continue;
        };
        let Some((asset, tag)) = stem.rsplit_once('[') else {
            continue;
        };
        out.entry(asset.to_string())
            .or_default()
            .insert(tag.to_string(), f);
    }
    out
}

/// Replaces the values of `doc`'s `hkxEnvironment` objects with those of `like`'s: the
/// 5.5 SDK files record the export filter settings of each platform there, so the same
/// asset's files differ in those strings, not only in layout.
fn take_environment(doc: &mut Document, like: &Document) -> bool {
    let class = |d: &Document| d.graph.schema().class_id("hkxEnvironment");
    let (Some(a), Some(b)) = (class(doc), class(like)) else {
        return false;
    };
    let ours: Vec<usize> = (0..doc.graph.objects.len())
        .filter(|&i| doc.graph.objects[i].class == a)
        .collect();
    let theirs: Vec<usize> = (0..like.graph.objects.len())
        .filter(|&i| like.graph.objects[i].class == b)
        .collect();
    if ours.len() != theirs.len() || ours.is_empty() {
        return false;
    }
    for (i, j) in ours.into_iter().zip(theirs) {
        doc.graph.objects[i].values = like.graph.objects[j].values.clone();
    }
    true
}

#[test]
fn every_sdk_layout_converts_into_every_other() {
    let Some(corpus) = hk_tests::corpus("every_sdk_layout_converts_into_every_other") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let mut report = Vec::new();
    let mut total_exact = 0;
    for group in [
        "havoklib-550",
        "havoklib-660",
        "havoklib-710",
        "havoklib-2010_2",
        "havoklib-2012_2",
        "havoklib-2014_1",
    ] {
        let (mut exact, mut with_env, mut pairs) = (0, 0, 0);
        let mut failures = Vec::new();
        for (asset, layouts) in assets(&corpus.join("packfile").join(group)) {
            assert_eq!(layouts.len(), 8, "{group}/{asset}: not in all 8 layouts");
            let files: BTreeMap<&String, Vec<u8>> = layouts
                .iter()
                .map(|(t, f)| (t, hk_tests::read(f)))
                .collect();
            for (from, src) in &files {
                for (to, want) in &files {
                    if from == to {
                        continue;
                    }
                    pairs += 1;
                    let rules = LayoutRules::from_tag(to).unwrap();
                    let mut doc = open(&schemas, src);
                    let got = convert(&mut doc, rules).unwrap();
                    if &got == want {
                        exact += 1;
                        continue;
                    }
                    // Same objects, other environment strings: take the target's.
                    let target = open(&schemas, want);
                    if take_environment(&mut doc, &target)
                        && &convert(&mut doc, rules).unwrap() == want
                    {
                        with_env += 1;
                    } else {
                        failures.push(format!("{asset}[{from}] -> [{to}]"));
                    }
                }
            }
        }
        println!(
            "{group}: {exact}/{pairs} byte-identical, {} with the target's hkxEnvironment",
            exact + with_env
        );
        assert!(failures.is_empty(), "{group}: {failures:?}");
        report.push((group, exact, with_env, pairs));
        total_exact += exact + with_env;
    }
    // Only the 5.5 files record per-platform export settings; every other version's
    // files of one asset are the same objects.
    for (group, _, with_env, _) in &report {
        if *group != "havoklib-550" {
            assert_eq!(*with_env, 0, "{group}");
        }
    }
    assert!(total_exact > 2000, "{report:?}");
}

/// The layout that differs from `l` in every digit.
fn opposite(l: LayoutRules) -> LayoutRules {
    LayoutRules {
        pointer_size: if l.pointer_size == 4 { 8 } else { 4 },
        endian: if l.endian == Endian::Big {
            Endian::Little
        } else {
            Endian::Big
        },
        reuse_padding: !l.reuse_padding,
        empty_base: !l.empty_base,
    }
}

#[test]
fn every_corpus_packfile_converts_away_and_back() {
    let Some(corpus) = hk_tests::corpus("every_corpus_packfile_converts_away_and_back") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let (mut all_digits, mut endian_only, mut n) = (0, 0, 0);
    let mut refused = BTreeMap::new();
    for f in hk_tests::packfiles(&corpus) {
        let bytes = hk_tests::read(&f);
        let mut doc = open(&schemas, &bytes);
        let Origin::Packfile(info) = &doc.origin else {
            panic!("{}: not a packfile", f.display())
        };
        let home = info.layout;
        n += 1;
        let away = match convert(&mut doc, opposite(home)) {
            Ok(b) => {
                all_digits += 1;
                b
            }
            Err(e) => {
                // Refused by name: a class the schema knows under the file's rules only.
                let ErrorKind::Write(WriteError::LayoutUnknown { class, .. }) = e.kind() else {
                    panic!("{}: {e}", f.display())
                };
                *refused.entry(class.clone()).or_insert(0) += 1;
                endian_only += 1;
                let mut swapped = home;
                swapped.endian = opposite(home).endian;
                convert(&mut doc, swapped).unwrap()
            }
        };
        let mut there = open(&schemas, &away);
        let back = convert(&mut there, home).unwrap();
        assert!(back == bytes, "{}: A -> B -> A differs", f.display());
    }
    println!(
        "{n} packfiles: {all_digits} away to the opposite layout and back, {endian_only} (classes laid out for their own rules only: {refused:?}) to the opposite byte order and back; all byte-identical"
    );
    assert_eq!(all_digits + endian_only, n);
    assert!(n >= 332, "{n}");
}

#[test]
fn tagfiles_and_fixed_layout_classes_are_refused_by_name() {
    let Some(corpus) = hk_tests::corpus("tagfiles_and_fixed_layout_classes_are_refused_by_name")
    else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let tag = hk_tests::read(&corpus.join(hk_tests::TAGFILES[0]));
    let e = convert(&mut open(&schemas, &tag), LayoutRules::BE32).unwrap_err();
    assert!(e.to_string().contains("only packfiles convert"), "{e}");
    // The Demon's Souls map collision's rigid body is laid out from the file's offsets.
    let map = hk_tests::read(&corpus.join("games/demons-souls-ps3/map_collision_h0004b0.hkx"));
    let e = convert(
        &mut open(&schemas, &map),
        LayoutRules::from_tag("8101").unwrap(),
    )
    .unwrap_err();
    let ErrorKind::Write(WriteError::LayoutUnknown { class, target, .. }) = e.kind() else {
        panic!("{e}")
    };
    assert!(!class.is_empty() && target.contains("ptr=8"), "{e}");
    assert!(e.to_string().contains("pinned"), "{e}");
    // A file with its own class metadata converts its byte order only.
    let typed = hk_tests::read(&corpus.join("games/dark-souls-ptde/c2240_ragdoll_with_types.hkx"));
    let mut doc = open(&schemas, &typed);
    let e = convert(&mut doc, LayoutRules::from_tag("8101").unwrap()).unwrap_err();
    assert!(e.to_string().contains("`__types__`"), "{e}");
    let swapped = convert(&mut doc, LayoutRules::from_tag("4001").unwrap()).unwrap();
    assert_eq!(
        convert(
            &mut open(&schemas, &swapped),
            LayoutRules::from_tag("4101").unwrap()
        )
        .unwrap(),
        typed
    );
}
