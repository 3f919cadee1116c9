//! Schemas from tagfile type tables (`hk schema extract` on a TAG0 file), and the shipped
//! tagfile schemas checked against every corpus tagfile's own type table.

use hk_runtime::schema::report::{LayoutRow, Verdict};
use hk_runtime::tagfile::{schema, TagFile};
use hk_runtime::Schema;

const DSR: [&str; 4] = [
    "games/dark-souls-remastered/c2240_a00_3000.hkx",
    "games/dark-souls-remastered/c2240_ragdoll.hkx",
    "games/dark-souls-remastered/c2240_skeleton.hkx",
    "games/dark-souls-remastered/map_collision_template.hkx",
];
const TOTK: [&str; 2] = [
    "games/totk/Armor_225_Head.bphcl",
    "games/totk/Armor_999_Head.bphcl",
];

/// (matched, total) of sizes, member offsets and member flags.
fn tally(rows: &[LayoutRow]) -> [(usize, usize); 3] {
    let mut out = [(0, 0); 3];
    for r in rows {
        let k = match r.member.as_deref() {
            None => 0,
            Some(m) if m.ends_with("#flags") => 2,
            Some(_) => 1,
        };
        out[k].1 += 1;
        if r.verdict == Verdict::Match {
            out[k].0 += 1;
        }
    }
    out
}

/// Classes whose layout needed an inferred gap or an interface count other than stated.
fn inferred(s: &Schema) -> usize {
    s.classes()
        .iter()
        .filter(|c| c.members.iter().any(|m| m.gap_before > 0))
        .count()
}

#[test]
fn each_file_extracts_a_schema_that_reproduces_its_type_table() {
    let Some(corpus) = hk_tests::corpus("each_file_extracts_a_schema") else {
        return;
    };
    for f in DSR.iter().chain(&TOTK) {
        let data = hk_tests::read(&corpus.join(f));
        let tf = TagFile::parse(&data).unwrap();
        let s = schema::extract(&[&tf], "extracted").unwrap_or_else(|e| panic!("{f}: {e}"));
        // Written as a folder and loaded back, like `hk schema extract`.
        let dir = hk_tests::temp_dir(&f.replace('/', "_"));
        s.to_folder(&dir).unwrap();
        let back = Schema::load(&dir).unwrap_or_else(|d| panic!("{f}:\n{d}"));
        let rows = schema::check(&back, &tf);
        let [(s_ok, s_n), (o_ok, o_n), (f_ok, f_n)] = tally(&rows);
        println!(
            "{f}: {} classes ({} with inferred gaps); sizes {s_ok}/{s_n}, offsets {o_ok}/{o_n}, flags {f_ok}/{f_n}",
            back.classes().len(),
            inferred(&back)
        );
        let bad: Vec<_> = rows
            .iter()
            .filter(|r| r.verdict != Verdict::Match)
            .take(10)
            .collect();
        assert!(bad.is_empty(), "{f}: {bad:#?}");
        assert!(s_n > 30 && o_n > 100, "{f}: too few rows");
    }
}

/// Tagfile SDKs lay bases out without reusing their tail padding: over the union of each
/// generation's files, the plain rule explains every offset with (almost) no inferred gap.
#[test]
fn tail_padding_is_not_reused() {
    let Some(corpus) = hk_tests::corpus("tail_padding_is_not_reused") else {
        return;
    };
    for set in [&DSR[..], &TOTK[..]] {
        let data: Vec<Vec<u8>> = set
            .iter()
            .map(|f| hk_tests::read(&corpus.join(f)))
            .collect();
        let tfs: Vec<TagFile> = data.iter().map(|d| TagFile::parse(d).unwrap()).collect();
        let refs: Vec<&TagFile> = tfs.iter().collect();
        let mut gaps = Vec::new();
        for reuse in [false, true] {
            let rules = hk_runtime::LayoutRules {
                reuse_padding: reuse,
                ..schema::RULES
            };
            let s = schema::extract_with(&refs, "x", rules).unwrap();
            println!(
                "{} files like {}: reuse_padding={reuse}: {} classes, {} with inferred gaps",
                set.len(),
                set[0],
                s.classes().len(),
                inferred(&s)
            );
            gaps.push(inferred(&s));
        }
        // The one gap under the plain rule is hkpModifierConstraintAtom's 16-aligned first
        // member, which type tables do not record as aligned.
        assert!(gaps[0] <= 1 && gaps[0] <= gaps[1], "{gaps:?}");
    }
}

/// The shipped tagfile schemas (extracted once, committed) against every corpus tagfile;
/// and against the other generation's files, where they must not agree.
#[test]
fn shipped_tagfile_schemas_agree_with_every_corpus_tagfile() {
    let Some(corpus) = hk_tests::corpus("shipped_tagfile_schemas_agree") else {
        return;
    };
    for (gen, set, other) in [
        ("havok-2015.1", &DSR[..], &TOTK[..]),
        ("havok-2022.1", &TOTK[..], &DSR[..]),
    ] {
        let s = hk_tests::schema(gen);
        for f in set {
            let tf_data = hk_tests::read(&corpus.join(f));
            let tf = TagFile::parse(&tf_data).unwrap();
            let rows = schema::check(&s, &tf);
            let [(s_ok, s_n), (o_ok, o_n), (f_ok, f_n)] = tally(&rows);
            println!("{f} vs {gen}: sizes {s_ok}/{s_n}, offsets {o_ok}/{o_n}, flags {f_ok}/{f_n}");
            let bad: Vec<_> = rows
                .iter()
                .filter(|r| r.verdict != Verdict::Match)
                .take(10)
                .collect();
            assert!(bad.is_empty(), "{f} vs {gen}: {bad:#?}");
        }
        for f in other {
            let tf_data = hk_tests::read(&corpus.join(f));
            let tf = TagFile::parse(&tf_data).unwrap();
            let rows = schema::check(&s, &tf);
            let bad = rows.iter().filter(|r| r.verdict != Verdict::Match).count();
            println!("{f} vs {gen}: {bad}/{} rows disagree", rows.len());
            assert!(bad > 0, "{f} should not agree with {gen}");
        }
    }
}
