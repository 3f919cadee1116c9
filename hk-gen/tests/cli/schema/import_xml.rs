//! `hk schema import` of the public XML type dumps (HKLib's 2018.1 registry, TagTools'
//! 2016.1 database, soulstruct-havok's 2010, 2014 and 2015 listings), and `--compendium`
//! on the commands that open files. The dumps are found like the corpus (`HK_REFERENCE`,
//! SKIPPED without them, required under `CI=true`); the compendium pair is written by hk.

use std::path::Path;

use crate::support::hk;
use hk_tests::{reference, root, temp_dir};

/// `hk schema import DUMP -o DIR ...` (format detected): exit code, stdout, stderr.
fn import(dump: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "schema",
        "import",
        dump.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--name",
        "imported",
    ];
    args.extend_from_slice(extra);
    hk(&args)
}

/// The number before `what` in `text` (`4788 types`).
fn count(text: &str, what: &str) -> usize {
    let at = text
        .find(what)
        .unwrap_or_else(|| panic!("no `{what}` in {text}"));
    text[..at]
        .trim_end()
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count before `{what}` in {text}"))
}

#[test]
fn the_hklib_registry_imports_as_the_shipped_2018_1_folder() {
    let Some(refs) = reference("the_hklib_registry_imports_as_the_shipped_2018_1_folder") else {
        return;
    };
    let dir = temp_dir("import-hklib");
    let out = dir.join("havok-2018.1");
    let dump = refs.join("hklib-2018.1/HavokTypeRegistry20180100.xml");
    let (code, stdout, stderr) = hk(&[
        "schema",
        "import",
        dump.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--name",
        "havok-2018.1",
        "--tagfile-like",
        "havok-2016",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(count(&stdout, "types in the dump"), 4788, "{stdout}");
    let classes = count(&stdout, "of them records");
    assert!(classes > 2000, "{stdout}");
    // Hashes are kept as data; the packfile signature reproduces none of them.
    assert!(
        count(&stdout, "classes keep the dump's type hash") + 10 > classes,
        "{stdout}"
    );
    assert!(stdout.contains("equals it for 0"), "{stdout}");
    assert!(stdout.contains("layout reproduces"), "{stdout}");
    // The command writes exactly the shipped folder.
    let shipped = root().join("schemas/havok-2018.1");
    for f in [
        "generation.toml",
        "classes/hkRootLevelContainer.toml",
        "classes/hkaSkeleton.toml",
    ] {
        assert_eq!(
            std::fs::read_to_string(out.join(f)).unwrap(),
            std::fs::read_to_string(shipped.join(f)).unwrap(),
            "{f}"
        );
    }
    let n = |d: &Path| std::fs::read_dir(d.join("classes")).unwrap().count();
    assert_eq!(n(&out), n(&shipped));
    let (code, stdout, stderr) = hk(&["schema", "verify", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

#[test]
fn the_tagtools_and_soulstruct_listings_import_with_their_layouts() {
    let Some(refs) = reference("the_tagtools_and_soulstruct_listings_import_with_their_layouts")
    else {
        return;
    };
    let dir = temp_dir("import-types");
    for (file, sdk, pointer) in [
        ("tagtools-2016.1/TypeDatabase.xml", "20160100", 8),
        ("soulstruct-types/Types2010.xml", "20100100", 4),
        ("soulstruct-types/Types2014.xml", "20140100", 8),
        ("soulstruct-types/Types2015.xml", "20150100", 8),
    ] {
        let out = dir.join(sdk);
        let (code, stdout, stderr) = import(
            &refs.join(file),
            &out,
            &["--format", "tagtools", "--contents-version", sdk],
        );
        assert_eq!(code, 0, "{file}: {stdout}{stderr}");
        assert!(count(&stdout, "of them records") > 10, "{file}: {stdout}");
        let g = std::fs::read_to_string(out.join("generation.toml")).unwrap();
        assert!(
            g.contains(&format!("pointer_size = {pointer}")),
            "{file}: {g}"
        );
        assert!(
            g.contains(&format!("contents_version = \"{sdk}\"")),
            "{file}: {g}"
        );
        // Auto-detection picks the same dialect.
        let (code, again, _) = import(
            &refs.join(file),
            &dir.join("again"),
            &["--contents-version", sdk],
        );
        assert_eq!(
            (code, again.lines().next()),
            (0, stdout.lines().next()),
            "{file}"
        );
    }
}

#[test]
fn a_broken_dump_is_refused_with_line_column_and_type() {
    let dir = temp_dir("import-broken");
    let bad = dir.join("bad.xml");
    std::fs::write(
        &bad,
        "<types>\n  <type id=\"1\" name=\"hkThing\" flags=\"41\" subTypeFlags=\"7\" byteSize=\"8\" alignment=\"8\">\n    <member name=\"x\" flags=\"32\" offset=\"zero\" type=\"2\" />\n  </type>\n</types>\n",
    )
    .unwrap();
    let (code, out, err) = import(&bad, &dir.join("out"), &["--contents-version", "20160100"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("line 3, column 5 (type hkThing)") && err.contains("`offset=\"zero\"`"),
        "{err}"
    );
    std::fs::write(
        &bad,
        "<types>\n  <type id=\"1\" name=\"A\" parent=\"9\" />\n</types>\n",
    )
    .unwrap();
    let (code, _, err) = import(&bad, &dir.join("out"), &["--contents-version", "20160100"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("line 2, column 3 (type A): the parent names type id 9"),
        "{err}"
    );
    std::fs::write(&bad, "<classes/>").unwrap();
    let (code, _, err) = import(&bad, &dir.join("out"), &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("neither <HavokTypeRegistry>"), "{err}");
}

/// A 2018.1 file hk builds from a dump, split by hk's writers into a compendium (id
/// `0xE1DE`) and a data file naming it; written into `dir`.
fn compendium_pair(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, Vec<u8>) {
    use hk_runtime::tagfile;
    let dump = r#"{"hk_dump": 1, "schema": "havok-2018.1", "container": "tagfile",
      "sdk_version": "20180100", "root": 0, "objects": [
      {"id": 0, "class": "hkRootLevelContainer", "fields": {"namedVariants": [
        {"name": "Skeleton", "className": "hkaSkeleton", "variant": 1}]}},
      {"id": 1, "class": "hkaSkeleton", "fields": {"propertyBag": null,
        "memSizeAndFlags": 0, "refCount": 0, "name": "Root", "parentIndices": [-1],
        "bones": [{"name": "Root", "lockTranslation": false}], "referencePose": [],
        "referenceFloats": [], "floatSlots": [], "localFrames": [], "partitions": []}}]}"#;
    let schemas = hk_runtime::file::Schemas::from_dir(&root().join("schemas")).unwrap();
    let (whole, _) =
        hk_runtime::dump::build_text(dump.as_bytes(), hk_runtime::dump::Format::Json, &schemas)
            .unwrap();
    let (tf, graph) = tagfile::read(&whole).unwrap();
    let rules = hk_tests::schema("havok-2018.1").generation.tagfile.unwrap();
    let c = dir.join("types.compendium");
    let d = dir.join("skeleton.hkx");
    std::fs::write(
        &c,
        tagfile::compendium::write(&[0xE1DE], &tf.types, &rules).unwrap(),
    )
    .unwrap();
    let data =
        tagfile::write::write_referencing(&graph, &tf.types, &tf.sdk_version, &rules, 0xE1DE)
            .unwrap();
    std::fs::write(&d, &data).unwrap();
    (c, d, data)
}

#[test]
fn compendium_files_open_with_compendium_and_are_refused_without() {
    let dir = temp_dir("compendium-cli");
    let (c, d, data) = compendium_pair(&dir);
    let (c, d) = (c.to_str().unwrap(), d.to_str().unwrap());
    let back = dir.join("back.hkx");
    let (code, out, err) = hk(&[
        "roundtrip",
        d,
        "--compendium",
        c,
        "-o",
        back.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1/1 byte-identical"), "{out}");
    assert_eq!(std::fs::read(&back).unwrap(), data);
    let (code, out, err) = hk(&["dump", d, "--compendium", c]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\"hkaSkeleton\"") && out.contains("\"Root\""),
        "{out}"
    );
    // Without it, or with a file that is not one: errors naming what to do.
    let (code, _, err) = hk(&["info", d]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("TCRF id 0x000000000000E1DE") && err.contains("--compendium FILE"),
        "{err}"
    );
    let (code, _, err) = hk(&["roundtrip", d, "--compendium", d]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a type compendium"), "{err}");
}
