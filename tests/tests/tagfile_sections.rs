//! The TAG0 section tree of every corpus tagfile (seed 004): sections nest exactly, and a
//! truncated file is an error, never a panic.

use hk_runtime::tagfile::section::{find_tag0, Section};

const FILES: [&str; 6] = [
    "games/dark-souls-remastered/c2240_ragdoll.hkx",
    "games/dark-souls-remastered/c2240_skeleton.hkx",
    "games/dark-souls-remastered/c2240_a00_3000.hkx",
    "games/dark-souls-remastered/map_collision_template.hkx",
    "games/totk/Armor_225_Head.bphcl",
    "games/totk/Armor_999_Head.bphcl",
];

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
        }
        println!("{f}: {rejected}/{} prefixes rejected", data.len());
        assert_eq!(rejected, data.len(), "{f}");
    }
}
