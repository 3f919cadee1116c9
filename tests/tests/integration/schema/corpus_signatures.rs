//! Every signature stored in the Havok 7.1 and 2012.2 demo files recomputes from the
//! hand-written schemas, and the layout engine puts every pointer fixup of their objects on
//! a pointer member, in all 8 layout variants.

use std::collections::BTreeMap;

use hk_runtime::packfile::check;
use hk_runtime::packfile::Packfile;

fn check_folder(folder: &str, schema_name: &str, expected_files: usize) {
    let Some(corpus) = hk_tests::corpus(folder) else {
        return;
    };
    let schema = hk_tests::schema(schema_name);
    let files = hk_tests::files(&corpus.join("packfile").join(folder));
    assert_eq!(files.len(), expected_files, "{folder}: corpus file count");
    let mut per_layout: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    for f in &files {
        let data = hk_tests::read(f);
        let pf = Packfile::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let sigs = check::signatures(&schema, &pf);
        let bad: Vec<_> = sigs.iter().filter(|r| !r.verdict.ok()).collect();
        assert!(bad.is_empty(), "{}: {bad:#?}", f.display());
        let slots = check::pointer_slots(&schema, &pf).unwrap();
        assert!(
            slots.unknown_objects.is_empty(),
            "{}: {:?}",
            f.display(),
            slots.unknown_objects
        );
        assert!(
            slots.strays.is_empty(),
            "{}: fixups on no pointer member: {:?}",
            f.display(),
            slots.strays
        );
        assert_eq!(slots.bodies_ok, slots.bodies, "{}", f.display());
        let e = per_layout.entry(pf.rules().tag()).or_default();
        e.0 += sigs.len();
        e.1 += slots.on_slots;
        e.2 += slots.fixups;
        e.3 += 1;
    }
    for (tag, (sigs, on, fixups, n)) in &per_layout {
        println!("{folder} [{tag}]: {n} files, {sigs} stored signatures recompute, fixups on slots {on}/{fixups}");
    }
    assert_eq!(
        per_layout.len(),
        8,
        "{folder}: all 8 layout variants present"
    );
}

#[test]
fn havoklib_710_signatures_and_pointer_slots() {
    check_folder("havoklib-710", "havok-7.1", 56);
}

#[test]
fn havoklib_2012_2_signatures_and_pointer_slots() {
    check_folder("havoklib-2012_2", "havok-2012.2", 48);
}
