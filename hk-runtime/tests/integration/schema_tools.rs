//! The tools for adding a version, on small schemas built in code (no corpus needed):
//! readable signature descriptions, explanations of disagreeing stored signatures, the
//! nearest-version order of a catalog, and generation files written back.

use std::path::PathBuf;

use crate::member;
use hk_runtime::schema::catalog::Catalog;
use hk_runtime::schema::explain::{self, Outcome, Reference};
use hk_runtime::schema::signature::{self, Part, Via};
use hk_runtime::schema::{
    Class, Container, Enum, EnumItem, Generation, Member, Pinned, TagfileRules,
};
use hk_runtime::types::TypeKind;
use hk_runtime::{Endian, LayoutRules, Schema};

fn generation() -> Generation {
    Generation {
        name: "test".into(),
        container: Container::Packfile,
        file_version: 8,
        contents_version: "hk_2010.2.0-r1".into(),
        layout: LayoutRules {
            pointer_size: 4,
            endian: Endian::Little,
            reuse_padding: false,
            empty_base: true,
        },
        member_types: TypeKind::ALL
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, i as u8))
            .collect(),
        member_flags: vec![("serialize_ignored".into(), 1024)],
        packfile: Default::default(),
        tagfile: None,
    }
}

fn class(name: &str, parent: Option<&str>, members: Vec<Member>) -> Class {
    let mut c = Class::new(name);
    c.parent = parent.map(Into::into);
    c.members = members;
    c
}

/// Body < Entity < Base; Entity holds a Motion struct, whose `type` member takes Motion's
/// MotionType enum; Other stands alone. `keyframed` names MotionType's item 4.
fn classes(keyframed: &str) -> Vec<Class> {
    let mut ty = member("type", TypeKind::Enum);
    ty.subtype = TypeKind::UInt8;
    ty.enum_ref = Some("MotionType".into());
    let mut motion = class("Motion", None, vec![ty, member("mass", TypeKind::Real)]);
    motion.enums.push(Enum {
        name: "MotionType".into(),
        flags: 0,
        items: vec![
            EnumItem {
                name: "MOTION_INVALID".into(),
                value: 0,
            },
            EnumItem {
                name: keyframed.into(),
                value: 4,
            },
        ],
    });
    let mut m = member("motion", TypeKind::Struct);
    m.class = Some("Motion".into());
    vec![
        class("Base", None, vec![member("refs", TypeKind::Int16)]),
        class("Entity", Some("Base"), vec![m]),
        class(
            "Body",
            Some("Entity"),
            vec![member("name", TypeKind::CString)],
        ),
        motion,
        class("Other", None, vec![member("x", TypeKind::Real)]),
    ]
}

fn schema(keyframed: &str) -> Schema {
    Schema::new(generation(), classes(keyframed)).unwrap()
}

#[test]
fn described_lines_cover_the_hashed_bytes_in_order() {
    let s = schema("MOTION_KEYFRAMED");
    let d = signature::describe(&s, "Body").unwrap();
    let bytes = signature::description(&s, "Body").unwrap();
    assert_eq!(d.bytes, bytes.len());
    assert_eq!(d.lines.iter().map(|l| l.bytes).sum::<usize>(), bytes.len());
    assert_eq!(d.crc, signature::compute(&s, "Body").unwrap());
    assert_eq!(d.crc, crc32fast_hash(&bytes));
    // The class first, then its parent, whose struct member brings Motion in, then Base.
    let names: Vec<(&str, &Via)> = d.includes.iter().map(|(c, v)| (c.as_str(), v)).collect();
    assert_eq!(
        names,
        vec![
            ("Entity", &Via::Parent { of: "Body".into() }),
            (
                "Motion",
                &Via::Member {
                    owner: "Entity".into(),
                    member: "motion".into()
                }
            ),
            (
                "Base",
                &Via::Parent {
                    of: "Entity".into()
                }
            ),
        ]
    );
    // Motion's member `type` is inside Entity.motion: one level deeper; its enum's items
    // are hashed with it.
    let ty: Vec<_> = d
        .lines
        .iter()
        .filter(|l| l.class == "Motion" && l.part == Part::Member("type".into()))
        .collect();
    assert_eq!(ty.len(), 2, "{ty:#?}");
    assert!(ty.iter().all(|l| l.depth == 1));
    assert!(
        ty[0].text.contains("MOTION_KEYFRAMED = 4"),
        "{}",
        ty[0].text
    );
    assert!(ty[1].text.contains("[enum rewrite]"), "{}", ty[1].text);
    // The enum line stands for the enum's name, each item's name and value, and the count.
    let want = "MotionType".len() + "MOTION_INVALID".len() + 4 + "MOTION_KEYFRAMED".len() + 4 + 4;
    assert_eq!(ty[0].bytes, want);
}

fn crc32fast_hash(b: &[u8]) -> u32 {
    // CRC-32 (IEEE), bit by bit: independent of the crate the code under test uses.
    let mut crc = !0u32;
    for &byte in b {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn explain_names_the_renamed_item_and_the_root_cause() {
    let good = schema("MOTION_KEYFRAMED");
    let bad = schema("MOTION_KEYFRAMED_X");
    let sig = |c: &str| signature::compute(&good, c).unwrap();
    let stored = [
        ("Body", sig("Body")),
        ("Motion", sig("Motion")),
        ("Other", sig("Other")),
        ("Gone", 0x1234_5678),
    ];
    let refs = [Reference {
        name: "good",
        schema: &good,
    }];
    let found = explain::explain(&bad, &stored, &refs);
    let names: Vec<&str> = found.iter().map(|x| x.class.as_str()).collect();
    assert_eq!(names, ["Body", "Motion", "Gone"]);

    let body = &found[0];
    assert_eq!(body.stored, sig("Body"));
    assert_eq!(
        body.computed(),
        Some(signature::compute(&bad, "Body").unwrap())
    );
    let Outcome::Differs {
        also_disagree,
        root_causes,
        unstored,
        ..
    } = &body.outcome
    else {
        panic!("{:?}", body.outcome)
    };
    // Motion's signature is stored (and disagrees); Entity's and Base's are not.
    assert_eq!(unstored, &["Entity".to_string(), "Base".to_string()]);
    assert_eq!(also_disagree.len(), 1);
    assert_eq!(also_disagree[0].0, "Motion");
    assert_eq!(root_causes, &["Motion".to_string()]);
    let near = body.nearest.as_ref().expect("the good schema computes it");
    assert_eq!(near.folder, "good");
    assert!(!near.pinned);
    let places: Vec<String> = near.differences.iter().map(|d| d.place()).collect();
    assert_eq!(places, ["Motion enum MotionType", "Motion.type"]);
    assert_eq!(
        near.differences[0].brief(),
        (
            "… MOTION_KEYFRAMED_X …".to_string(),
            "… MOTION_KEYFRAMED …".to_string()
        )
    );

    let Outcome::Differs { also_disagree, .. } = &found[1].outcome else {
        panic!()
    };
    assert!(also_disagree.is_empty());
    assert_eq!(found[2].outcome, Outcome::Missing);
    assert!(found[2].nearest.is_none());

    // No reference: nothing near. A reference that pins the value: near, but pinned.
    assert!(explain::explain(&bad, &stored[..1], &[])[0]
        .nearest
        .is_none());
    let mut pinned = classes("MOTION_KEYFRAMED_Y");
    for c in &mut pinned {
        if c.name == "Body" {
            c.pinned = Some(Pinned {
                signature: sig("Body"),
                reason: "test".into(),
                doubtful: vec![],
            });
        }
    }
    let pinned = Schema::new(generation(), pinned).unwrap();
    let x = explain::explain(
        &bad,
        &stored[..1],
        &[Reference {
            name: "pins",
            schema: &pinned,
        }],
    );
    let near = x[0].nearest.as_ref().unwrap();
    assert!(near.pinned && near.differences.is_empty());
    // The schema that pins the value agrees with the file.
    assert!(explain::explain(&pinned, &stored[..1], &[]).is_empty());
}

#[test]
fn added_and_removed_members_are_named_and_counts_stay_quiet() {
    let good = schema("MOTION_KEYFRAMED");
    let mut cs = classes("MOTION_KEYFRAMED");
    cs[2].members.push(member("extra", TypeKind::Int32));
    let more = Schema::new(generation(), cs).unwrap();
    let here = signature::describe(&more, "Body").unwrap();
    let there = signature::describe(&good, "Body").unwrap();
    let d = explain::differences(&here, &there);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].place(), "Body.extra");
    assert!(d[0].there.is_none());
}

fn gen_text(name: &str, fv: u32, cv: &str, container: &str) -> String {
    format!(
        "name = \"{name}\"\ncontainer = \"{container}\"\nfile_version = {fv}\ncontents_version = \"{cv}\"\n\
         [layout]\npointer_size = 4\nendian = \"little\"\nreuse_padding = false\nempty_base = true\n\
         [member_types]\nvoid = 0\n"
    )
}

#[test]
fn catalog_orders_folders_by_distance_from_a_version() {
    let folders = [
        ("havok-5.5", 5, "Havok-5.5.0-r1", "packfile"),
        ("havok-7.1", 7, "Havok-7.1.0-r1", "packfile"),
        ("havok-2010.1", 7, "hk_2010.1.0-r1", "packfile"),
        ("havok-2010.2", 8, "hk_2010.2.0-r1", "packfile"),
        ("havok-2012.2", 9, "hk_2012.2.0-r1", "packfile"),
        ("havok-2015.1", 0, "20150100", "tagfile"),
    ];
    let c = Catalog::from_texts(
        folders
            .iter()
            .map(|(n, fv, cv, k)| (n.to_string(), gen_text(n, *fv, cv, k), Vec::new()))
            .collect(),
    )
    .unwrap();
    let names = |fv, cv| -> Vec<String> {
        c.nearest(Container::Packfile, fv, cv)
            .iter()
            .map(|e| e.name.clone())
            .collect()
    };
    // hk_2011.1 with file version 8: after 2010.2, before 2012.2.
    assert_eq!(
        names(8, "hk_2011.1.0-r1"),
        [
            "havok-2010.2",
            "havok-2012.2",
            "havok-2010.1",
            "havok-7.1",
            "havok-5.5"
        ]
    );
    // An equal version comes first; then the nearest older, the nearest newer.
    assert_eq!(
        names(7, "hk_2010.1.0-r1"),
        [
            "havok-2010.1",
            "havok-7.1",
            "havok-2010.2",
            "havok-5.5",
            "havok-2012.2"
        ]
    );
}

#[test]
fn generation_files_written_back_read_the_same() {
    let mut g = generation();
    let path = PathBuf::from("g/generation.toml");
    assert_eq!(Generation::parse(&path, &g.to_toml()).unwrap(), g);
    g.container = Container::Tagfile;
    g.tagfile = Some(TagfileRules {
        dedupe_strings: true,
        templates_first: false,
        string_pad: 255,
        tags: [*b"TST1", *b"TNA1", *b"FST1", *b"TBDY"],
    });
    assert_eq!(Generation::parse(&path, &g.to_toml()).unwrap(), g);
}
