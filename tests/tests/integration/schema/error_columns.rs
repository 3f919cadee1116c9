//! A schema folder with a very large number of problems on one line (what `hk schema
//! verify` and `hk schema signatures` load) is reported in time linear in its text: each
//! problem's line and column come from one index of the text, not from scanning the line
//! again. Every problem keeps its line, its column in characters and its key.

use std::time::Instant;

use hk_runtime::Schema;

/// Bad enum values on one line: `{ name = "V<i>", value = "é<i>" }` each (a string where
/// the value must be an integer, with a two-byte character so that columns in characters
/// and in bytes differ).
fn class_text(items: usize) -> String {
    let mut t = String::from("name = \"Many\"\n\n[[enums]]\nname = \"E\"\nitems = [");
    for i in 0..items {
        t.push_str(&format!("{{ name = \"V{i}\", value = \"é{i}\" }}, "));
    }
    t.push_str("]\n");
    t
}

#[test]
fn a_line_of_many_bad_enum_values_is_reported_in_linear_time() {
    // About 3.4 MB, under the 4 MiB a schema file may hold.
    const ITEMS: usize = 80_000;
    let dir = hk_tests::temp_dir("one-line-of-errors");
    std::fs::copy(
        hk_tests::schemas().join("havok-7.1/generation.toml"),
        dir.join("generation.toml"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("classes")).unwrap();
    let text = class_text(ITEMS);
    std::fs::write(dir.join("classes/Many.toml"), &text).unwrap();
    let t0 = Instant::now();
    let d = Schema::load(&*dir).expect_err("every value is a string");
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{} problems on a line of {} bytes in {secs:.2} s",
        d.0.len(),
        text.len()
    );
    assert_eq!(d.0.len(), ITEMS);
    // The last problem: its line, its column in characters and its key.
    let last = d.0.last().unwrap();
    let line = text.lines().nth(4).unwrap();
    let at = line.rfind("\"é").unwrap();
    assert_eq!(last.line, 5);
    assert_eq!(last.column, line[..at].chars().count() + 1, "{last}");
    assert_eq!(last.key, format!("enums.E.items[{}].value", ITEMS - 1));
    assert!(
        last.message.contains(&format!(
            "expected an integer (i32), found the string \"é{}\"",
            ITEMS - 1
        )),
        "{last}"
    );
    // Scanning the line again for each problem took minutes; the index takes well under
    // a second, so this holds on a loaded machine.
    assert!(secs < 15.0, "{secs:.1} s");
}

#[test]
fn a_schema_file_over_the_limit_is_refused_with_its_size() {
    let dir = hk_tests::schema_folder_71("schema-file-too-large", &[]);
    // Valid TOML, one byte past the limit: a long note.
    let head = "name = \"Big\"\nnote = \"";
    let tail = "\"\n";
    let fill = hk_runtime::schema::MAX_SCHEMA_FILE + 1 - head.len() - tail.len();
    let text = format!("{head}{}{tail}", "x".repeat(fill));
    assert_eq!(text.len(), hk_runtime::schema::MAX_SCHEMA_FILE + 1);
    std::fs::write(dir.join("classes/Big.toml"), &text).unwrap();
    let d = Schema::load(&*dir).expect_err("the file is over the limit");
    assert_eq!(d.0.len(), 1, "{d}");
    let p = &d.0[0];
    assert!(p.file.ends_with("classes/Big.toml"), "{p}");
    assert!(
        p.message
            .contains(&format!("this file is {} bytes", text.len()))
            && p.message.contains("at most 4194304 bytes"),
        "{p}"
    );
    // From texts (what generated crates embed) the same limit holds.
    let classes = vec![(dir.join("classes/Big.toml"), text)];
    let gen = std::fs::read_to_string(dir.join("generation.toml")).unwrap();
    let d = Schema::parse((&dir.join("generation.toml"), &gen), &classes).expect_err("too large");
    assert!(d.0[0].message.contains("at most 4194304 bytes"), "{d}");
    // One byte less loads.
    let mut ok = classes[0].1.clone();
    ok.remove(head.len());
    let classes = vec![(dir.join("classes/Big.toml"), ok)];
    Schema::parse((&dir.join("generation.toml"), &gen), &classes).expect("at the limit");
}
