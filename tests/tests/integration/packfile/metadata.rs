//! The three corpus files that carry their own class metadata: every stored signature
//! recomputes from the extracted metadata, and every stored offset and size from the layout
//! rules. Expected counts are those of docs/layout-and-signatures.md (the table at the top).

use hk_runtime::packfile::{check, metadata, Packfile};
use hk_runtime::schema::report::{stored_layout, Verdict};

struct Case {
    file: &'static str,
    classes: usize,
    signatures: usize,
    offsets: usize,
}

const CASES: [Case; 3] = [
    Case {
        file: "games/demons-souls-ps3/skeleton_with_types.hkx",
        classes: 35,
        signatures: 39,
        offsets: 126,
    },
    Case {
        file: "games/dark-souls-ptde/c2240_ragdoll_with_types.hkx",
        classes: 87,
        signatures: 16,
        offsets: 376,
    },
    Case {
        file: "games/bloodborne/c2020_ragdoll_with_types.hkx",
        classes: 86,
        signatures: 14,
        offsets: 373,
    },
];

#[test]
fn extracted_metadata_recomputes_signatures_offsets_and_sizes() {
    let Some(corpus) = hk_tests::corpus("extracted_metadata_recomputes") else {
        return;
    };
    for case in CASES {
        let data = hk_tests::read(&corpus.join(case.file));
        let pf = Packfile::parse(&data).expect(case.file);
        let reflection = hk_tests::schema_for(&pf);
        let described = metadata::extract(&pf, &reflection)
            .expect(case.file)
            .expect("the file carries metadata");

        let sigs = check::signatures(&described, &pf);
        let sig_ok = sigs.iter().filter(|r| r.verdict == Verdict::Match).count();
        let layout = stored_layout(&described, &described);
        let sizes: Vec<_> = layout.iter().filter(|r| r.member.is_none()).collect();
        let offsets: Vec<_> = layout.iter().filter(|r| r.member.is_some()).collect();
        let size_ok = sizes.iter().filter(|r| r.verdict == Verdict::Match).count();
        let off_ok = offsets
            .iter()
            .filter(|r| r.verdict == Verdict::Match)
            .count();
        println!(
            "{}: signatures {sig_ok}/{}, offsets {off_ok}/{}, sizes {size_ok}/{}",
            case.file,
            sigs.len(),
            offsets.len(),
            sizes.len()
        );
        assert_eq!(
            (sig_ok, sigs.len()),
            (case.signatures, case.signatures),
            "{}: {sigs:#?}",
            case.file
        );
        assert_eq!(
            (off_ok, offsets.len()),
            (case.offsets, case.offsets),
            "{}",
            case.file
        );
        assert_eq!(
            (size_ok, sizes.len()),
            (case.classes, case.classes),
            "{}",
            case.file
        );

        // The same schema written as a folder and loaded back checks the same way.
        let dir = hk_tests::temp_dir(&case.file.replace('/', "_"));
        described.to_folder(&dir).expect("write schema folder");
        let reloaded = hk_runtime::Schema::load(&dir).unwrap_or_else(|d| panic!("{d}"));
        let again = check::signatures(&reloaded, &pf);
        assert!(
            again.iter().all(|r| r.verdict == Verdict::Match),
            "{again:#?}"
        );
        let slots = check::pointer_slots(&reloaded, &pf).expect("walk");
        assert_eq!(
            slots.on_slots, slots.fixups,
            "{}: {:?}",
            case.file, slots.strays
        );
        assert!(slots.fixups > 0);
    }
}

#[test]
fn a_wrong_layout_rule_is_caught() {
    // Bloodborne's file has reuse padding on; laying it out with the padded parent size must
    // break offsets (docs/layout-and-signatures.md §3 and §6: 344/373), so the check above
    // can fail.
    let Some(corpus) = hk_tests::corpus("a_wrong_layout_rule_is_caught") else {
        return;
    };
    let data = hk_tests::read(&corpus.join(CASES[2].file));
    let pf = Packfile::parse(&data).unwrap();
    let described = metadata::extract(&pf, &hk_tests::schema_for(&pf))
        .unwrap()
        .unwrap();
    let mut rules = described.generation.layout;
    rules.reuse_padding = false;
    let mut layouts = hk_runtime::schema::layout::Layouts::new(&described, rules);
    let mut ok = 0;
    let mut total = 0;
    for c in described.classes() {
        let Some(l) = layouts.class(&c.name).ok().cloned() else {
            continue;
        };
        for (m, ml) in c.members.iter().zip(&l.members) {
            if let Some(o) = m.expected_offset {
                total += 1;
                ok += usize::from(o == ml.offset);
            }
        }
    }
    println!("padded-size rule: {ok}/{total} offsets");
    assert!(ok < total);
}
