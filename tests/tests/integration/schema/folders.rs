//! Every shipped schema folder loads and reproduces what it states about itself.

use hk_runtime::schema::report::{self_check, Verdict};

/// serde-hkx's 2010.2 table gives hkColor's ExtendedColors wrong values (BLUE = -65536, the
/// value of RED), so the three classes that hash that enum cannot reproduce the signatures
/// the same table lists; the importer keeps those as notes. Every other one recomputes.
const KNOWN_BAD_2010_2: [&str; 3] = [
    "hkColor",
    "hkMonitorStreamColorTable",
    "hkMonitorStreamColorTableColorPair",
];

#[test]
fn schema_folders_reproduce_their_offsets_sizes_and_signatures() {
    let mut folders: Vec<_> = std::fs::read_dir(hk_tests::schemas())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("generation.toml").is_file())
        .collect();
    folders.sort();
    assert!(folders.len() >= 6, "{folders:?}");
    for dir in folders {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let schema = hk_tests::schema(&name);
        let (layout, sigs) = self_check(&schema);
        let bad_layout: Vec<_> = layout.iter().filter(|r| !r.verdict.ok()).collect();
        assert!(bad_layout.is_empty(), "{name}: {bad_layout:#?}");
        let bad_sigs: Vec<_> = sigs.iter().filter(|r| !r.verdict.ok()).collect();
        assert!(bad_sigs.is_empty(), "{name}: {bad_sigs:#?}");
        let pinned = sigs.iter().filter(|r| r.verdict == Verdict::Pinned).count();
        println!(
            "{name}: {} classes, {} offsets/sizes reproduce, {} signatures ({pinned} pinned)",
            schema.classes().len(),
            layout.len(),
            sigs.len()
        );
    }
}

#[test]
fn serde_hkx_2010_2_table_recomputes_but_for_its_color_enum() {
    let schema = hk_tests::schema("havok-2010.2");
    let (_, sigs) = self_check(&schema);
    let noted: Vec<&str> = schema
        .classes()
        .iter()
        .filter(|c| c.note.as_deref().is_some_and(|n| n.contains("defective")))
        .map(|c| c.name.as_str())
        .collect();
    println!(
        "havok-2010.2: {}/{} signatures the table states recompute",
        sigs.len(),
        sigs.len() + noted.len()
    );
    assert_eq!(noted, KNOWN_BAD_2010_2);
    assert!(sigs.iter().all(|r| r.verdict.ok()));
    assert!(sigs.len() + noted.len() >= 678);
}
