//! The TAG0 section tree of every corpus tagfile (docs/tagfile-format.md §1): sections nest
//! exactly, and a truncated file is an error, never a panic.

use hk_runtime::tagfile::section::{find_tag0, Section};

const FILES: [&str; 6] = hk_tests::TAGFILES;

#[test]
fn section_trees_nest_exactly() {
    let Some(corpus) = hk_tests::corpus("section_trees_nest_exactly") else {
        return;
    };
    for f in FILES {
        let data = hk_tests::read(&corpus.join(f));
        let at = find_tag0(&data).unwrap_or_else(|| panic!("{f}: no TAG0"));
        let root =
            Section::parse(&data, at, data.len() as u64).unwrap_or_else(|e| panic!("{f}: {e}"));
        let tags: Vec<String> = root.children.iter().map(Section::tag_str).collect();
        assert_eq!(tags, ["SDKV", "DATA", "TYPE", "INDX"], "{f}");
        let index: Vec<String> = root
            .child(b"INDX")
            .unwrap()
            .children
            .iter()
            .map(Section::tag_str)
            .collect();
        assert_eq!(index, ["ITEM", "PTCH"], "{f}");
        assert!(root.child(b"TYPE").unwrap().children.len() >= 6, "{f}");
        println!(
            "{f}: TAG0 at 0x{at:X}, {} bytes, {} type subsections",
            root.size,
            root.child(b"TYPE").unwrap().children.len()
        );
    }
}

#[test]
fn truncated_tagfiles_are_errors() {
    let Some(corpus) = hk_tests::corpus("truncated_tagfiles_are_errors") else {
        return;
    };
    for f in &FILES[1..3] {
        let data = hk_tests::read(&corpus.join(f));
        let mut rejected = 0;
        for len in 0..data.len() {
            let cut = &data[..len];
            if find_tag0(cut).is_none_or(|at| Section::parse(cut, at, len as u64).is_err()) {
                rejected += 1;
            }
            assert!(
                hk_runtime::tagfile::TagFile::parse(cut).is_err(),
                "{f}: prefix of {len} bytes parsed"
            );
        }
        // Seeded single-byte corruptions of the type table and index: errors or not, never a
        // panic.
        let tf = hk_runtime::tagfile::TagFile::parse(&data).unwrap();
        let from = tf.root.child(b"TYPE").unwrap().offset as usize;
        let mut state = 0x7A60u64;
        let mut errors = 0;
        for _ in 0..2000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = from + (state >> 33) as usize % (data.len() - from);
            let mut bad = data.clone();
            bad[at] ^= ((state >> 20) as u8) | 1;
            errors += usize::from(hk_runtime::tagfile::TagFile::parse(&bad).is_err());
        }
        println!("{f}: 2000 corruptions of TYPE/INDX, {errors} rejected, none panicked");
        println!("{f}: {rejected}/{} prefixes rejected", data.len());
        assert_eq!(rejected, data.len(), "{f}");
    }
}

/// Type and item counts measured in docs/tagfile-format.md (types exclude the null type).
const COUNTS: [(&str, usize, usize); 6] = [
    ("games/dark-souls-remastered/c2240_a00_3000.hkx", 192, 101),
    ("games/dark-souls-remastered/c2240_ragdoll.hkx", 347, 330),
    ("games/dark-souls-remastered/c2240_skeleton.hkx", 188, 95),
    (
        "games/dark-souls-remastered/map_collision_template.hkx",
        221,
        23,
    ),
    ("games/totk/Armor_225_Head.bphcl", 256, 588),
    ("games/totk/Armor_999_Head.bphcl", 280, 2669),
];

#[test]
fn type_tables_and_indexes_decode() {
    let Some(corpus) = hk_tests::corpus("type_tables_and_indexes_decode") else {
        return;
    };
    for (f, ntypes, nitems) in COUNTS {
        let data = hk_tests::read(&corpus.join(f));
        let tf = hk_runtime::tagfile::TagFile::parse(&data).unwrap_or_else(|e| panic!("{f}: {e}"));
        let bodies = tf.types.body_order.len();
        let items = tf.items.len();
        println!(
            "{f}: SDKV {}, {} types ({bodies} bodies, {} hashes), {items} ITEM entries, {} PTCH groups, root {}",
            tf.sdk_version,
            tf.types.types.len() - 1,
            tf.types.hash_order.len(),
            tf.patches.len(),
            tf.types.full_name(u64::from(tf.items.get(1).map_or(0, |i| i.ty)))
        );
        assert_eq!(tf.types.types.len() - 1, ntypes, "{f}: types");
        assert_eq!(items, nitems + 1, "{f}: ITEM entries (plus the null entry)");
        // Every PTCH offset is a slot inside DATA.
        let data_len = tf.root.child(b"DATA").unwrap().payload().1;
        assert!(
            tf.patches
                .iter()
                .flat_map(|p| &p.offsets)
                .all(|&o| u64::from(o) + 8 <= data_len),
            "{f}"
        );
    }
}

#[test]
fn every_data_byte_is_typed() {
    let Some(corpus) = hk_tests::corpus("every_data_byte_is_typed") else {
        return;
    };
    for (f, _, _) in COUNTS {
        let data = hk_tests::read(&corpus.join(f));
        let (tf, graph) = hk_runtime::tagfile::read(&data).unwrap_or_else(|e| panic!("{f}: {e}"));
        let n_obj = tf
            .items
            .iter()
            .filter(|i| i.flags == hk_runtime::tagfile::data::ITEM_OBJECT)
            .count();
        assert_eq!(graph.objects.len(), n_obj, "{f}");
        assert_eq!(graph.class_name(graph.root), "hkRootLevelContainer", "{f}");
        println!(
            "{f}: {} objects decoded, every DATA byte a leaf, a slot or zero",
            graph.objects.len()
        );
    }
}

/// The graph a tagfile reads into is over the schema extracted from its own type table, and
/// every value has the form its member's shape gives (`Graph::check`): arrays in their
/// typed columns, SIMD tuples as float tuples, structs in flattened member order.
#[test]
fn read_graphs_pass_the_graph_check() {
    let Some(corpus) = hk_tests::corpus("read_graphs_pass_the_graph_check") else {
        return;
    };
    use hk_runtime::graph::{Array, Value};
    for (f, _, _) in COUNTS {
        let data = hk_tests::read(&corpus.join(f));
        let (tf, graph) = hk_runtime::tagfile::read(&data).unwrap();
        graph.check().unwrap_or_else(|e| panic!("{f}: {e}"));
        // Every record type of the table is a class of the graph's schema.
        let records = (1..tf.types.types.len() as u64)
            .filter(|&t| {
                tf.types.kind_of(t) == 7
                    && tf.types.types[t as usize]
                        .body
                        .as_ref()
                        .is_some_and(|b| b.members.is_some())
            })
            .count();
        assert_eq!(graph.schema().classes().len(), records, "{f}");
        // Typed columns, by kind, over every array of every object.
        let mut columns = std::collections::BTreeMap::<String, usize>::new();
        fn walk(v: &Value, out: &mut std::collections::BTreeMap<String, usize>) {
            match v {
                Value::Array(a) => {
                    let name = format!("{:?}", a.column());
                    *out.entry(name).or_default() += 1;
                    if let Array::Values(vs) = a {
                        vs.iter().for_each(|x| walk(x, out));
                    }
                }
                Value::Struct(vs) | Value::CArray(vs) => vs.iter().for_each(|x| walk(x, out)),
                _ => {}
            }
        }
        for o in &graph.objects {
            o.values.iter().for_each(|v| walk(v, &mut columns));
        }
        println!(
            "{f}: {} objects over {} classes pass Graph::check; arrays by column {columns:?}",
            graph.objects.len(),
            graph.schema().classes().len()
        );
    }
}

/// A type table written back in its own order is the file's TYPE section byte for byte.
#[test]
fn type_tables_encode_back_byte_identical() {
    let Some(corpus) = hk_tests::corpus("type_tables_encode_back") else {
        return;
    };
    for (f, _, _) in COUNTS {
        let data = hk_tests::read(&corpus.join(f));
        let tf = hk_runtime::tagfile::TagFile::parse(&data).unwrap();
        let (_, generation) =
            hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), &tf.sdk_version)
                .unwrap();
        let rules = generation.tagfile.unwrap();
        let sec = tf.root.child(b"TYPE").unwrap();
        let original = &data[sec.offset as usize..(sec.offset + sec.size) as usize];
        let out = hk_runtime::tagfile::write::encode_table(&tf.types, &rules).unwrap();
        assert!(out == original, "{f}: TYPE section differs");
    }
}

#[test]
fn tagfiles_round_trip_through_the_graph() {
    let Some(corpus) = hk_tests::corpus("tagfiles_round_trip_through_the_graph") else {
        return;
    };
    let mut ok = 0;
    let mut report = Vec::new();
    for (f, _, _) in COUNTS {
        let data = hk_tests::read(&corpus.join(f));
        let tf = hk_runtime::tagfile::TagFile::parse(&data).unwrap();
        let (_, generation) =
            hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), &tf.sdk_version)
                .expect("a tagfile generation");
        match hk_runtime::tagfile::roundtrip(&data, &generation.tagfile.expect("[tagfile] rules")) {
            Ok(out) if out == data => ok += 1,
            Ok(out) => {
                let at = data
                    .iter()
                    .zip(&out)
                    .position(|(a, b)| a != b)
                    .unwrap_or(data.len().min(out.len()));
                report.push(format!(
                    "{f}: differs at 0x{at:X} ({} vs {} bytes)",
                    data.len(),
                    out.len()
                ));
            }
            Err(e) => report.push(format!("{f}: {e}")),
        }
    }
    println!(
        "tagfiles through the graph: {ok}/{} byte-identical",
        COUNTS.len()
    );
    assert!(report.is_empty(), "{}", report.join("\n"));
}
