//! The read limits on the command line: global flags of every command that reads a file,
//! an error naming the limit and the offset, a hint naming the flag, exit status 2.

use crate::support::hk;
use hk_tests::corpus;

#[test]
fn limits_are_global_flags_and_name_themselves_when_reached() {
    let Some(corpus) = corpus("limits_are_global_flags_and_name_themselves_when_reached") else {
        return;
    };
    let packfile = corpus.join("packfile/havoklib-710/animref[4011].hkx");
    let tagfile = corpus.join("games/dark-souls-remastered/c2240_skeleton.hkx");
    let (p, t) = (packfile.to_str().unwrap(), tagfile.to_str().unwrap());
    // Within the defaults both read.
    for f in [p, t] {
        let (code, _, err) = hk(&["dump", f]);
        assert_eq!(code, 0, "{err}");
    }
    let cases: [(&[&str], &str, &str); 5] = [
        (&["--max-memory", "4K", "info", p], p, "max-memory"),
        (&["dump", "--max-objects", "2", t], t, "max-objects"),
        (&["roundtrip", p, "--max-depth", "1"], p, "max-depth"),
        (&["--max-expansion", "3", "dump", p], p, "max-expansion"),
        (&["--max-memory", "64K", "dump", t], t, "max-memory"),
    ];
    for (args, file, limit) in cases {
        let (code, out, err) = hk(args);
        let text = format!("{out}{err}");
        assert_ne!(code, 0, "{args:?}: {text}");
        assert!(
            text.contains(&format!("read limit {limit} reached")),
            "{text}"
        );
        assert!(text.contains(file) && text.contains("at 0x"), "{text}");
        if code == 2 {
            assert!(err.contains(&format!("--{limit}")), "{args:?}: {err}");
        }
    }
    // Sizes are checked when the command line is read.
    let (code, _, err) = hk(&["--max-memory", "lots", "info", p]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lots"), "{err}");
    let (code, _, err) = hk(&["--max-depth", "1000", "info", p]);
    assert_eq!(code, 2, "{err}");
}
