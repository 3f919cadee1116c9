//! Hostile names through the commands that write: `hk schema extract` refuses a class name
//! that would leave its output folder (or an SDK string that would become generated code),
//! with the offset; `hk gen crate` refuses hostile profile and generation names with the
//! file, line and key, and any free text it accepts stays text in `src/lib.rs` (the file
//! parses to the same items as with plain text); and no command writes outside its `-o`
//! target.

use std::path::{Path, PathBuf};

use crate::support::hk;
use hk_tests::hostile::{binary_tagfile, rename, tree};
use hk_tests::{corpus, root, temp_dir};

const SDK: &str = "hk_2014.0.5-r1";

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every path under `dir` that is neither under one of `allowed` nor a folder on the way to
/// one.
fn strays(dir: &Path, allowed: &[PathBuf]) -> Vec<PathBuf> {
    tree(dir)
        .into_iter()
        .filter(|p| {
            !allowed
                .iter()
                .any(|a| p.starts_with(a) || (p.is_dir() && a.starts_with(p)))
        })
        .collect()
}

#[test]
fn schema_extract_refuses_binary_tagfile_names_that_leave_the_folder() {
    let tmp = temp_dir("hostile-extract");
    let input = tmp.join("in");
    std::fs::create_dir_all(tmp.join("abs")).unwrap();
    std::fs::create_dir_all(&input).unwrap();
    let plain = input.join("plain.hkt");
    std::fs::write(&plain, binary_tagfile(SDK, "hkPlain", "value")).unwrap();
    let out = tmp.join("a/b/plain");
    let (code, o, e) = hk(&["schema", "extract", s(&plain), "-o", s(&out)]);
    assert_eq!(code, 0, "{o}{e}");
    assert!(out.join("classes/hkPlain.toml").is_file());
    let absolute = tmp.join("abs/ABS");
    let cases = [
        ("../../escaped_by_hk", "a class name"),
        (s(&absolute), "a class name"),
        ("sub/dir", "a class name"),
    ];
    let mut outs = vec![out, input.clone()];
    for (i, (class, what)) in cases.into_iter().enumerate() {
        let f = input.join(format!("bad{i}.hkt"));
        std::fs::write(&f, binary_tagfile(SDK, class, "value")).unwrap();
        let out = tmp.join(format!("a/b/out{i}"));
        let (code, o, e) = hk(&["schema", "extract", s(&f), "-o", s(&out)]);
        assert_eq!(code, 2, "{class}: {o}{e}");
        assert!(e.contains(what) && e.contains("at 0x"), "{e}");
        // Refused before anything is written.
        assert!(!out.exists(), "{class}: {} written", out.display());
        outs.push(out);
    }
    // The folder an absolute class name pointed into stays empty.
    assert_eq!(strays(&tmp, &outs), [tmp.join("abs")]);
}

#[test]
fn schema_extract_refuses_tagfile_type_names_that_leave_the_folder() {
    let tmp = temp_dir("hostile-tag0");
    let sample = std::fs::read(root().join("samples/nso-2023_box.bphsh")).unwrap();
    let bad = tmp.join("in/box.bphsh");
    std::fs::create_dir_all(tmp.join("in")).unwrap();
    std::fs::write(
        &bad,
        rename(&sample, "hknpShapeProperties", "../../escaped_by_hk"),
    )
    .unwrap();
    let out = tmp.join("a/b/out");
    let (code, o, e) = hk(&["schema", "extract", s(&bad), "-o", s(&out)]);
    assert_eq!(code, 2, "{o}{e}");
    assert!(e.contains("type name") && e.contains("at 0x"), "{e}");
    assert_eq!(strays(&tmp, &[tmp.join("in"), out]), Vec::<PathBuf>::new());
}

#[test]
fn schema_extract_refuses_a_packfile_class_renamed_out_of_the_folder() {
    let Some(corpus) = corpus("schema_extract_refuses_a_packfile_class_renamed_out_of_the_folder")
    else {
        return;
    };
    let file = corpus.join("games/dark-souls-ptde/c2240_ragdoll_with_types.hkx");
    let tmp = temp_dir("hostile-types");
    // The file's dump with the `hkClass` object of hkaSkeleton renamed, built back: a
    // packfile whose `__types__` section describes a class called `../../B`.
    let json = tmp.join("in/types.json");
    std::fs::create_dir_all(tmp.join("in")).unwrap();
    let (code, o, e) = hk(&["dump", s(&file), "-o", s(&json)]);
    assert_eq!(code, 0, "{o}{e}");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let class = v["objects"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|o| o["class"] == "hkClass" && o["fields"]["name"] == "hkaSkeleton")
        .expect("the hkClass of hkaSkeleton");
    class["fields"]["name"] = "../../B".into();
    std::fs::write(&json, serde_json::to_string(&v).unwrap()).unwrap();
    let built = tmp.join("in/types.hkx");
    let (code, o, e) = hk(&["build", s(&json), "-o", s(&built)]);
    assert_eq!(code, 0, "{o}{e}");
    let out = tmp.join("a/b/out");
    let (code, o, e) = hk(&["schema", "extract", s(&built), "-o", s(&out)]);
    assert_eq!(code, 2, "{o}{e}");
    assert!(
        e.contains("class name \"../../B\"") && e.contains("at 0x"),
        "{e}"
    );
    assert!(e.contains("hkClass.name"), "{e}");
    assert_eq!(strays(&tmp, &[tmp.join("in"), out]), Vec::<PathBuf>::new());
}

/// A profile file generating class `root` of a tagfile generation, with `name`,
/// `description` and `generation` as given (TOML-escaped).
fn profile(dir: &Path, name: &str, description: &str, generation: &str, root: &str) -> PathBuf {
    let text = format!(
        "name = {}\ndescription = {}\ngeneration = {}\ncontainer = \"tagfile\"\nfile_kinds = [\"hkt\"]\nroots = [{}]\n",
        toml::Value::from(name),
        toml::Value::from(description),
        toml::Value::from(generation),
        toml::Value::from(root),
    );
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("profile.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// The items of a generated `src/lib.rs`, with the literal doc attributes left out (the
/// text they hold may differ); the file's own inner attributes must all be literal docs.
fn items(lib: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(lib).unwrap();
    let file = syn::parse_file(&text)
        .unwrap_or_else(|e| panic!("{}: does not parse: {e}\n{text}", lib.display()));
    let literal_doc = |a: &syn::Attribute| {
        a.path().is_ident("doc")
            && matches!(&a.meta, syn::Meta::NameValue(nv)
                if matches!(&nv.value, syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Str(_))))
    };
    let odd: Vec<String> = file
        .attrs
        .iter()
        .filter(|a| !literal_doc(a))
        .map(|a| quote::quote!(#a).to_string())
        .collect();
    assert!(
        odd.is_empty(),
        "{}: inner attributes {odd:?}",
        lib.display()
    );
    file.items
        .into_iter()
        .map(|mut item| {
            if let syn::Item::Const(c) = &mut item {
                c.attrs.retain(|a| !literal_doc(a));
            }
            quote::quote!(#item).to_string()
        })
        .collect()
}

#[test]
fn gen_crate_keeps_hostile_names_out_of_the_generated_code() {
    let tmp = temp_dir("hostile-gen");
    let hk_path = root();
    // A schema from a binary tagfile: one class, hkPlain.
    let extracted = tmp.join("in/schema");
    let plain_file = tmp.join("in/plain.hkt");
    std::fs::create_dir_all(tmp.join("in")).unwrap();
    std::fs::write(&plain_file, binary_tagfile(SDK, "hkPlain", "value")).unwrap();
    let (code, o, e) = hk(&["schema", "extract", s(&plain_file), "-o", s(&extracted)]);
    assert_eq!(code, 0, "{o}{e}");
    let gen = |profile: &Path, schema: &Path, out: &Path| {
        hk(&[
            "gen",
            "crate",
            "--game",
            s(profile),
            "--out",
            s(out),
            "--schema",
            s(schema),
            "--hk-path",
            s(&hk_path),
        ])
    };
    let plain = profile(&tmp.join("in/p0"), "plain", "A game", "g", "hkPlain");
    let out0 = tmp.join("out/plain");
    let (code, o, e) = gen(&plain, &extracted, &out0);
    assert_eq!(code, 0, "{o}{e}");
    let want = items(&out0.join("src/lib.rs"));
    assert!(want.iter().any(|i| i.contains("schema !")), "{want:?}");

    // An SDK string that would become the generation name: refused where it is read, or
    // kept out of the code.
    let sdk_file = tmp.join("in/sdk.hkt");
    std::fs::write(
        &sdk_file,
        binary_tagfile("x\n#[used] static EVIL: u8 = 0;", "hkPlain", "value"),
    )
    .unwrap();
    let sdk_schema = tmp.join("in/sdk-schema");
    let (code, _, e) = hk(&["schema", "extract", s(&sdk_file), "-o", s(&sdk_schema)]);
    let mut outs = vec![tmp.join("in"), out0];
    if code == 0 {
        let out = tmp.join("out/sdk");
        let (code, o, e) = gen(&plain, &sdk_schema, &out);
        if code == 0 {
            assert_eq!(items(&out.join("src/lib.rs")), want, "{o}{e}");
        }
        outs.push(out);
    } else {
        assert!(e.contains("SDK string") && e.contains("at 0x"), "{e}");
    }

    // Hostile profile fields and generation names: each refused with the file, line and
    // key and nothing written, or generated with the same items as the plain profile.
    let evil = "x\n#![doc = include_str!(\"/etc/hostname\")]";
    let injected = "x\n#[used] static EVIL: u8 = 0;";
    struct Case<'a> {
        key: &'a str,
        name: &'a str,
        description: &'a str,
        generation: &'a str,
        root: &'a str,
        /// The schema folder's own generation name, when not the extracted one.
        schema_generation: Option<&'a str>,
    }
    let case = |key| Case {
        key,
        name: "plain",
        description: "A game",
        generation: "g",
        root: "hkPlain",
        schema_generation: None,
    };
    let cases = [
        Case {
            name: injected,
            ..case("name")
        },
        Case {
            name: "../../escaped",
            ..case("name")
        },
        Case {
            description: evil,
            ..case("description")
        },
        Case {
            description: "*/ \"); } fn evil() { (\" \\ <b>&amp;</b>",
            ..case("description")
        },
        Case {
            root: "hkPlain\n#[used]",
            ..case("roots")
        },
        Case {
            generation: "../../escaped",
            ..case("generation")
        },
        Case {
            schema_generation: Some(injected),
            ..case("name")
        },
    ];
    for (i, c) in cases.iter().enumerate() {
        let dir = tmp.join(format!("in/p{}", i + 1));
        let p = profile(&dir, c.name, c.description, c.generation, c.root);
        let out = tmp.join(format!("out/{i}"));
        let schema = match c.schema_generation {
            Some(name) => {
                let d = dir.join("schema");
                copy_dir(&extracted, &d);
                let g = std::fs::read_to_string(d.join("generation.toml")).unwrap();
                let first = g.lines().next().unwrap().to_string();
                let name = toml::Value::from(name);
                std::fs::write(
                    d.join("generation.toml"),
                    g.replacen(&first, &format!("name = {name}"), 1),
                )
                .unwrap();
                d
            }
            None => extracted.clone(),
        };
        let (code, o, e) = gen(&p, &schema, &out);
        let key = c.key;
        if code == 0 {
            assert_eq!(items(&out.join("src/lib.rs")), want, "{key}: {o}{e}");
        } else {
            assert_eq!(code, 2, "{key}: {o}{e}");
            assert!(e.contains(&format!("`{key}")), "{key}: {e}");
            assert!(e.contains(".toml:"), "{key}: no file and line: {e}");
            assert!(!out.exists(), "{key}: {} written", out.display());
        }
        outs.push(out);
    }
    assert_eq!(strays(&tmp, &outs), Vec::<PathBuf>::new());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn no_command_writes_outside_its_output() {
    let tmp = temp_dir("hostile-tree");
    let input = tmp.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(tmp.join("abs")).unwrap();
    let mut outs = vec![input.clone()];
    let mut run = |args: &[&str], flag: &str, out: PathBuf| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend([flag, s(&out)]);
        let (code, o, e) = hk(&all);
        assert!((0..=2).contains(&code), "{all:?}: {o}{e}");
        outs.push(out);
    };
    // Binary tagfiles with class names that point elsewhere (inside the scratch folder).
    let absolute = tmp.join("abs/ABS");
    let mut hostile = Vec::new();
    for (i, class) in ["../../escaped_by_hk", "../../../../escaped_2", s(&absolute)]
        .into_iter()
        .enumerate()
    {
        let f = input.join(format!("bad{i}.hkt"));
        std::fs::write(&f, binary_tagfile(SDK, class, "value")).unwrap();
        hostile.push(f);
    }
    // A tagfile whose record type is named so.
    let sample = std::fs::read(root().join("samples/nso-2023_box.bphsh")).unwrap();
    let tag0 = input.join("box.bphsh");
    std::fs::write(
        &tag0,
        rename(&sample, "hknpShapeProperties", "../../escaped_by_hk"),
    )
    .unwrap();
    hostile.push(tag0);
    // A packfile naming such a class in its class-name table.
    let box_file = root().join("samples/shred_box.hkx");
    let shred = std::fs::read(&box_file).unwrap();
    let pf = input.join("shred.hkx");
    std::fs::write(&pf, rename(&shred, "hkpBoxShape", "../../hkpBo")).unwrap();
    hostile.push(pf);
    // A dump whose object is of such a class.
    let dump = input.join("box.json");
    let (code, o, e) = hk(&["dump", s(&box_file), "-o", s(&dump)]);
    assert_eq!(code, 0, "{o}{e}");
    let text = std::fs::read_to_string(&dump).unwrap();
    std::fs::write(
        &dump,
        text.replace("\"hkpBoxShape\"", "\"../../hkpBoxShape\""),
    )
    .unwrap();

    for (i, f) in hostile.iter().enumerate() {
        let f = s(f);
        let o = |what: &str| tmp.join(format!("o/{what}{i}/deep/out"));
        run(&["schema", "extract", f], "-o", o("extract"));
        run(&["convert", f, "--layout", "win64"], "-o", o("convert"));
        run(&["export", f], "-o", o("export"));
        run(&["dump", f], "-o", o("dump"));
    }
    run(&["export", s(&input)], "-o", tmp.join("o/export-all/out"));
    run(&["build", s(&dump)], "-o", tmp.join("o/build/deep/out.hkx"));
    let hk_path = root();
    run(
        &["gen", "crate", "--game", "shred", "--hk-path", s(&hk_path)],
        "--out",
        tmp.join("o/gen/deep/out"),
    );
    // The folder an absolute class name pointed into stays empty.
    assert_eq!(strays(&tmp, &outs), [tmp.join("abs")]);
}
