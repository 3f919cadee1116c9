//! Signatures take time linear in the schema (docs/layout-and-signatures.md §4): each
//! class's own description is hashed once and the rest is combining CRCs, so a long parent
//! chain or struct members that hold the same classes many times over (what `hk schema
//! signatures` and `hk schema verify` compute for every class) stay fast; a description past
//! `MAX_DESCRIPTION` is refused. Every value equals the CRC of the description written out
//! whole, for every class of every shipped schema.

use std::path::PathBuf;
use std::time::Instant;

use hk_runtime::schema::signature::{self, MAX_DESCRIPTION};
use hk_runtime::Schema;
use hk_tests::schema_folder_71 as folder;

#[test]
fn every_shipped_signature_is_the_crc_of_its_whole_description() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(hk_tests::schemas())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("generation.toml").is_file())
        .collect();
    dirs.sort();
    let mut n = 0;
    for d in &dirs {
        // First to last (kept parents reused), and last to first on a fresh schema.
        let (s, back) = (Schema::load(d).unwrap(), Schema::load(d).unwrap());
        let names: Vec<&str> = s.classes().iter().map(|c| c.name.as_str()).collect();
        let forward: Vec<_> = names
            .iter()
            .map(|c| signature::compute(&s, c).ok())
            .collect();
        let mut backward: Vec<_> = names
            .iter()
            .rev()
            .map(|c| signature::compute(&back, c).ok())
            .collect();
        backward.reverse();
        for (i, c) in names.iter().enumerate() {
            let whole = signature::describe(&s, c).map(|d| d.crc).ok();
            assert_eq!(forward[i], whole, "{} {c}", d.display());
            assert_eq!(backward[i], whole, "{} {c}", d.display());
            n += 1;
        }
    }
    assert!(n > 2_500, "{n}");
}

/// `levels` classes `F0` … where each holds the next by value twice; the last holds an
/// `int32`.
fn doubling(levels: usize) -> Vec<(String, String)> {
    (0..levels)
        .map(|i| {
            let mut t = format!("name = \"F{i}\"\n");
            if i + 1 < levels {
                for k in 0..2 {
                    t += &format!(
                        "\n[[members]]\nname = \"m{k}\"\ntype = \"struct\"\nclass = \"F{}\"\n",
                        i + 1
                    );
                }
            } else {
                t += "\n[[members]]\nname = \"x\"\ntype = \"int32\"\n";
            }
            (format!("F{i}"), t)
        })
        .collect()
}

#[test]
fn members_that_double_each_level_are_hashed_once_and_refused_past_the_bound() {
    // F0's description holds 2^33 copies of F33's: written out, it never ended (4 GB of
    // memory in a minute).
    let dir = folder("doubling", &doubling(34));
    let s = Schema::load(&*dir).unwrap();
    let t0 = Instant::now();
    let sigs: Vec<_> = s
        .classes()
        .iter()
        .map(|c| (c.name.clone(), signature::compute(&s, &c.name)))
        .collect();
    let secs = t0.elapsed().as_secs_f64();
    let refused: Vec<&str> = sigs
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(n, _)| n.as_str())
        .collect();
    println!("{} of 34 refused in {secs:.3} s", refused.len());
    // Each level doubles the description (about 46 bytes a copy): the levels nearest the top
    // pass 4 MiB, with an error that says so.
    assert!((14..=20).contains(&refused.len()), "{refused:?}");
    let e = signature::compute(&s, "F0").unwrap_err().to_string();
    assert!(
        e.contains(&format!("runs past {MAX_DESCRIPTION} bytes")),
        "{e}"
    );
    assert!(e.starts_with("F0 > m0 > F1"), "{e}");
    // Written out whole: refused at the same bound; where short, the same CRC.
    assert!(signature::describe(&s, "F0").is_err());
    for i in 24..34 {
        let name = format!("F{i}");
        let mine = signature::compute(&s, &name).unwrap();
        assert_eq!(mine, signature::describe(&s, &name).unwrap().crc, "{name}");
    }
    assert!(secs < 5.0, "{secs:.1} s");
}

#[test]
fn a_long_parent_chain_is_hashed_in_linear_time() {
    // 20,000 classes, each the parent of the next, each with one member: hashing each
    // class's whole chain again is 2·10⁸ class descriptions.
    const N: usize = 20_000;
    let classes: Vec<(String, String)> = (0..N)
        .map(|i| {
            let mut t = format!("name = \"C{i}\"\n");
            if i > 0 {
                t += &format!("parent = \"C{}\"\n", i - 1);
            }
            t += &format!("\n[[members]]\nname = \"m{i}\"\ntype = \"int32\"\n");
            (format!("C{i}"), t)
        })
        .collect();
    let dir = folder("chain", &classes);
    let s = Schema::load(&*dir).unwrap();
    let t0 = Instant::now();
    let sigs: Vec<u32> = (0..N)
        .rev()
        .map(|i| signature::signature(&s, &format!("C{i}")).unwrap().value)
        .collect();
    let secs = t0.elapsed().as_secs_f64();
    println!("{N} signatures in {secs:.2} s");
    for i in [0, 1, 777, N - 1] {
        let whole = signature::describe(&s, &format!("C{i}")).unwrap();
        assert_eq!(sigs[N - 1 - i], whole.crc, "C{i}");
    }
    assert!(secs < 5.0, "{secs:.1} s");
}

#[test]
fn a_long_chain_under_a_class_without_a_signature_fails_in_linear_time() {
    // 20,000 classes under F0 of the doubling folder, whose description is past the bound:
    // each fails with F0's error, found once.
    const N: usize = 20_000;
    let mut classes = doubling(34);
    classes.extend((0..N).map(|i| {
        let parent = if i == 0 {
            "F0".to_string()
        } else {
            format!("C{}", i - 1)
        };
        (
            format!("C{i}"),
            format!("name = \"C{i}\"\nparent = \"{parent}\"\n"),
        )
    }));
    let dir = folder("failing-chain", &classes);
    let s = Schema::load(&*dir).unwrap();
    let t0 = Instant::now();
    let failed = s
        .classes()
        .iter()
        .filter(|c| signature::signature(&s, &c.name).is_err())
        .count();
    let secs = t0.elapsed().as_secs_f64();
    println!("{failed} failed in {secs:.2} s");
    assert!(failed > N, "{failed}");
    let e = signature::compute(&s, "C19999").unwrap_err().to_string();
    assert!(
        e.contains(&format!("runs past {MAX_DESCRIPTION} bytes")),
        "{e}"
    );
    assert!(secs < 5.0, "{secs:.1} s");
}
