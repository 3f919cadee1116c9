//! Type tables written from a schema (`tagfile::reflect`), the inverse of extraction: each
//! corpus tagfile's schema is extracted, a fresh type table is written from that schema
//! alone, and the file's object graph is written with it. The DATA that comes out must be
//! the original DATA byte for byte, and reading the new file must give the same objects.

use hk_runtime::tagfile::{self, reflect, schema, TagFile};

fn data_section(bytes: &[u8]) -> Vec<u8> {
    let tf = TagFile::parse(bytes).expect("parse");
    let d = tf.root.child(b"DATA").expect("DATA");
    let (o, n) = d.payload();
    bytes[o as usize..(o + n) as usize].to_vec()
}

#[test]
fn a_table_written_from_the_extracted_schema_reproduces_data_and_objects() {
    let Some(corpus) = hk_tests::corpus("a_table_written_from_the_extracted_schema") else {
        return;
    };
    let mut same = 0;
    let mut failed = Vec::new();
    for f in hk_tests::TAGFILES {
        let r = std::panic::catch_unwind(|| one(&corpus, f));
        match r {
            Ok(()) => same += 1,
            Err(_) => failed.push(f),
        }
    }
    println!(
        "{same}/{} corpus tagfiles: DATA byte-identical and objects equal with a type table written from the extracted schema",
        hk_tests::TAGFILES.len()
    );
    assert!(failed.is_empty(), "failed: {failed:?}");
}

fn one(corpus: &std::path::Path, f: &str) {
    {
        let data = hk_tests::read(&corpus.join(f));
        let tf = TagFile::parse(&data).expect(f);
        let graph = tagfile::graph(&tf, &data).expect(f);
        let s = schema::extract(&[&tf], "x").expect(f);
        let refs: Vec<&str> = {
            let names = graph.schema();
            let mut v: Vec<&str> = graph
                .objects
                .iter()
                .map(|o| names.name_of(o.class))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let table = reflect::table(&s, &refs).expect(f);
        // The fresh table is not the file's: no typedef chain of the original survives
        // extraction, and it describes only what the schema holds.
        assert_ne!(
            table, *tf.types,
            "{f}: the table must be rebuilt, not copied"
        );
        let rules = hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), &tf.sdk_version)
            .and_then(|(_, g)| g.tagfile)
            .expect("tagfile rules");
        let out = tagfile::write::write(&graph, &table, &tf.sdk_version, &rules).expect(f);
        let original = data_section(&data);
        assert_eq!(
            data_section(&out),
            original,
            "{f}: DATA written with the schema's table differs"
        );
        let back = TagFile::parse(&out).expect(f);
        let again = tagfile::graph(&back, &out).expect(f);
        // The same objects: classes by name (the new table numbers them otherwise), values
        // in the same flattened member order.
        assert!(again == graph, "{f}: objects differ");
        again.check().expect(f);
        // The items sit where they sat, with the same counts and kinds.
        let shape = |t: &TagFile| -> Vec<(u8, u32, u32)> {
            t.items
                .iter()
                .map(|i| (i.flags, i.offset, i.count))
                .collect()
        };
        assert_eq!(shape(&back), shape(&tf), "{f}: items differ");
    }
}
