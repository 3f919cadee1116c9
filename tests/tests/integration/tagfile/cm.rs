//! id Tech's cm container (docs/collision-notes.md §5) around real tagfiles: hk wraps each
//! corpus tagfile's TAG0 in surface records with its own cm writer, then reads the result back,
//! round-trips it through the graph byte for byte and rejects container mutations of the kinds
//! §5 lists. (No retail cm file is in the corpus; the TAG0 inside is a corpus file's.)

use hk_runtime::tagfile::cm::{Cm, SurfaceRecord, RETAIL_VERSION};
use hk_runtime::tagfile::{roundtrip, TagFile};

const FILES: [&str; 6] = hk_tests::TAGFILES;

fn records() -> Vec<SurfaceRecord> {
    let trigger = SurfaceRecord {
        contents: 1 << 14,
        surface_flags: 0,
        ..SurfaceRecord::default()
    };
    let water = SurfaceRecord {
        surface_type: 7,
        f3: 0,
        ..SurfaceRecord::default()
    };
    vec![SurfaceRecord::default(), trigger, water]
}

/// Each corpus tagfile's TAG0, wrapped by hk in a cm of `version`.
fn wrapped(corpus: &std::path::Path, version: u32) -> Vec<(&'static str, Vec<u8>)> {
    FILES
        .iter()
        .map(|f| {
            let data = hk_tests::read(&corpus.join(f));
            let tf = TagFile::parse(&data).unwrap();
            let tag0 = &data[tf.offset as usize..(tf.offset + tf.root.size) as usize];
            (*f, Cm::write(&records(), version, tag0))
        })
        .collect()
}

fn rules(tf: &TagFile) -> hk_runtime::schema::TagfileRules {
    let (_, generation) =
        hk_runtime::schema::catalog::for_tagfile(&hk_tests::schemas(), &tf.sdk_version)
            .expect("a tagfile generation");
    generation.tagfile.expect("[tagfile] rules")
}

#[test]
fn cm_containers_read_back_and_round_trip_byte_identical() {
    let Some(corpus) = hk_tests::corpus("cm_containers_read_back") else {
        return;
    };
    let mut ok = 0;
    for version in [RETAIL_VERSION, 0x11] {
        for (f, cm) in wrapped(&corpus, version) {
            let tf = TagFile::parse(&cm).unwrap_or_else(|e| panic!("{f}: {e}"));
            let c = tf.cm.as_ref().expect("a cm container");
            assert_eq!(c.records, records(), "{f}");
            assert_eq!(c.version >= 0x12, version >= 0x12, "{f}: record stride");
            assert_eq!(c.blob_at, 4 + 3 * if version >= 0x12 { 28 } else { 24 } + 4);
            let out = roundtrip(&cm, &rules(&tf)).unwrap_or_else(|e| panic!("{f}: {e}"));
            assert!(out == cm, "{f}: cm round trip differs");
            ok += 1;
        }
    }
    println!("cm round trip: {ok}/12 byte-identical (6 tagfiles × 2 record versions)");
    assert_eq!(ok, 12);
}

fn set_u32(d: &mut [u8], at: usize, f: &dyn Fn(u32) -> u32) {
    let v = u32::from_le_bytes(d[at..at + 4].try_into().unwrap());
    d[at..at + 4].copy_from_slice(&f(v).to_le_bytes());
}

/// Container mutations (docs/collision-notes.md §5): each must be rejected, with an offset.
#[test]
fn cm_mutations_are_all_rejected() {
    let Some(corpus) = hk_tests::corpus("cm_mutations_are_all_rejected") else {
        return;
    };
    let mut rejected = 0;
    let mut total = 0;
    for (f, cm) in wrapped(&corpus, RETAIL_VERSION) {
        let size_at = 4 + 3 * 28;
        type Mutation = (&'static str, Box<dyn Fn(&[u8]) -> Vec<u8>>);

        let mutations: Vec<Mutation> = vec![
            (
                "record count +1",
                Box::new(|d: &[u8]| {
                    let mut d = d.to_vec();
                    set_u32(&mut d, 0, &|v| v + 1);
                    d
                }),
            ),
            (
                "record count -1",
                Box::new(|d: &[u8]| {
                    let mut d = d.to_vec();
                    set_u32(&mut d, 0, &|v| v - 1);
                    d
                }),
            ),
            (
                "blob_size +4",
                Box::new(move |d: &[u8]| {
                    let mut d = d.to_vec();
                    set_u32(&mut d, size_at, &|v| v + 4);
                    d
                }),
            ),
            (
                "blob_size -4",
                Box::new(move |d: &[u8]| {
                    let mut d = d.to_vec();
                    set_u32(&mut d, size_at, &|v| v - 4);
                    d
                }),
            ),
            ("end -1", Box::new(|d: &[u8]| d[..d.len() - 1].to_vec())),
            ("end -16", Box::new(|d: &[u8]| d[..d.len() - 16].to_vec())),
            ("end +8", Box::new(|d: &[u8]| [d, &[0u8; 8][..]].concat())),
            (
                "a record inserted, count unchanged",
                Box::new(move |d: &[u8]| [&d[..size_at], &d[4..32], &d[size_at..]].concat()),
            ),
        ];
        for (name, m) in &mutations {
            let bad = m(&cm);
            total += 1;
            match TagFile::parse(&bad) {
                Err(e) => {
                    assert!(e.offset().is_some(), "{f} / {name}: no offset in `{e}`");
                    rejected += 1;
                }
                Ok(tf) => panic!(
                    "{f} / {name}: accepted (cm {:?})",
                    tf.cm.map(|c| c.records.len())
                ),
            }
        }
    }
    // Read with the other record stride (28 ↔ 24 bytes), an explicit version is refused.
    for (version, other) in [(RETAIL_VERSION, 0x11), (0x11, RETAIL_VERSION)] {
        for (f, cm) in wrapped(&corpus, version) {
            total += 1;
            match Cm::parse(&cm, other) {
                Err(e) => {
                    assert!(e.offset().is_some(), "{f}: no offset in `{e}`");
                    rejected += 1;
                }
                Ok(_) => panic!("{f}: a version 0x{version:X} cm read as 0x{other:X}"),
            }
        }
    }
    println!(
        "cm mutations: {rejected}/{total} rejected (8 classes × 6 tagfiles, and 2 strides × 6)"
    );
    assert_eq!(rejected, total);
}

#[test]
fn every_prefix_of_a_cm_is_an_error_not_a_panic() {
    let Some(corpus) = hk_tests::corpus("every_prefix_of_a_cm") else {
        return;
    };
    let (_, cm) = wrapped(&corpus, RETAIL_VERSION).swap_remove(1);
    for n in 0..cm.len() {
        assert!(TagFile::parse(&cm[..n]).is_err(), "prefix {n} accepted");
        assert!(
            Cm::parse(&cm[..n], RETAIL_VERSION).is_err(),
            "prefix {n} accepted"
        );
    }
    println!("every prefix of a {}-byte cm rejected", cm.len());
}
