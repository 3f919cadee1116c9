//! Layout and signature rules on small schemas built in code (no corpus needed).

use crate::member;
use hk_runtime::schema::layout::Layouts;
use hk_runtime::schema::signature;
use hk_runtime::schema::{Class, Container, Enum, EnumItem, Generation, Member};
use hk_runtime::types::TypeKind;
use hk_runtime::{Endian, LayoutRules, Schema};

fn generation(rules: LayoutRules) -> Generation {
    Generation {
        name: "test".into(),
        container: Container::Packfile,
        file_version: 7,
        contents_version: "test".into(),
        layout: rules,
        member_types: TypeKind::ALL
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, i as u8))
            .collect(),
        member_flags: vec![("align_16".into(), 256), ("serialize_ignored".into(), 1024)],
        packfile: Default::default(),
        tagfile: None,
    }
}

fn class(name: &str, parent: Option<&str>, interfaces: u32, members: Vec<Member>) -> Class {
    let mut c = Class::new(name);
    c.parent = parent.map(Into::into);
    c.interfaces = interfaces;
    c.members = members;
    c
}

/// hkBaseObject (one interface), hkReferencedObject (two u16), hkpCollisionFilter-like
/// (four interfaces on an 8-byte parent), docs/layout-and-signatures.md §3 rule 2: members
/// start at 4 and 24.
fn base_classes() -> Vec<Class> {
    vec![
        class("hkBaseObject", None, 1, vec![]),
        class(
            "hkReferencedObject",
            Some("hkBaseObject"),
            0,
            vec![
                member("memSizeAndFlags", TypeKind::UInt16),
                member("referenceCount", TypeKind::Int16),
            ],
        ),
        class(
            "Filter",
            Some("hkReferencedObject"),
            4,
            vec![member("type", TypeKind::UInt32)],
        ),
        class(
            "Tail",
            Some("hkReferencedObject"),
            0,
            vec![member("b", TypeKind::UInt8)],
        ),
        class(
            "Derived",
            Some("Tail"),
            0,
            vec![member("c", TypeKind::UInt8)],
        ),
    ]
}

fn rules(ptr: u8, reuse: bool) -> LayoutRules {
    LayoutRules {
        pointer_size: ptr,
        endian: Endian::Little,
        reuse_padding: reuse,
        empty_base: true,
    }
}

#[test]
fn interfaces_take_one_pointer_slot_each() {
    let s = Schema::new(generation(rules(4, true)), base_classes()).unwrap();
    let mut l = Layouts::new(&s, rules(4, true));
    assert_eq!(l.class("hkBaseObject").unwrap().size, 4);
    assert_eq!(l.class("hkReferencedObject").unwrap().members[0].offset, 4);
    assert_eq!(l.class("hkReferencedObject").unwrap().size, 8);
    assert_eq!(l.class("Filter").unwrap().members[0].offset, 24);
    let mut l8 = Layouts::new(&s, rules(8, true));
    assert_eq!(l8.class("hkBaseObject").unwrap().size, 8);
    assert_eq!(l8.class("hkReferencedObject").unwrap().size, 16);
    assert_eq!(l8.class("Filter").unwrap().members[0].offset, 16 + 4 * 8);
}

#[test]
fn reuse_padding_decides_where_a_derived_class_starts() {
    let s = Schema::new(generation(rules(4, true)), base_classes()).unwrap();
    // Tail: 8 bytes of parent + one byte = data end 9, size 12.
    let mut reuse = Layouts::new(&s, rules(4, true));
    assert_eq!(reuse.class("Tail").unwrap().size, 12);
    assert_eq!(reuse.class("Derived").unwrap().members[0].offset, 9);
    let mut padded = Layouts::new(&s, rules(4, false));
    assert_eq!(padded.class("Derived").unwrap().members[0].offset, 12);
    assert_eq!(padded.class("Derived").unwrap().size, 16);
}

#[test]
fn sizes_alignment_flags_and_c_arrays() {
    let mut m16 = member("aligned", TypeKind::Real);
    m16.flags = 256;
    let mut arr = member("three", TypeKind::Int16);
    arr.array_size = 3;
    let mut e = member("kind", TypeKind::Enum);
    e.subtype = TypeKind::UInt8;
    let c = class(
        "Mix",
        None,
        0,
        vec![
            member("flag", TypeKind::Bool),
            m16,
            arr,
            e,
            member("array", TypeKind::Array),
            member("v", TypeKind::Vector4),
            member("h", TypeKind::Half),
            member("m", TypeKind::Matrix4),
        ],
    );
    let s = Schema::new(generation(rules(4, true)), vec![c]).unwrap();
    let mut l = Layouts::new(&s, rules(4, true));
    let offs: Vec<u32> = l
        .class("Mix")
        .unwrap()
        .members
        .iter()
        .map(|m| m.offset)
        .collect();
    // bool 0; align_16 real 16; 3 × i16 at 20..26; u8 enum 26; array (12, align 4) 28;
    // vector4 48; half 64; matrix4 (align 16) 80; size 144.
    assert_eq!(offs, vec![0, 16, 20, 26, 28, 48, 64, 80]);
    assert_eq!(l.class("Mix").unwrap().size, 144);
    let mut l8 = Layouts::new(&s, rules(8, true));
    // With 8-byte pointers the array is 16 bytes aligned to 8.
    assert_eq!(l8.class("Mix").unwrap().members[4].offset, 32);
}

#[test]
fn signature_description_matches_the_worked_example() {
    let mut e = member("mode", TypeKind::Enum);
    e.subtype = TypeKind::UInt8;
    e.enum_ref = Some("Mode".into());
    let mut ignored = member("cache", TypeKind::Array);
    ignored.subtype = TypeKind::UInt32;
    ignored.flags = 1024;
    let mut c = class("Thing", None, 1, vec![e, ignored]);
    c.enums.push(Enum {
        name: "Mode".into(),
        flags: 0,
        items: vec![
            EnumItem {
                name: "A".into(),
                value: 0,
            },
            EnumItem {
                name: "B".into(),
                value: 7,
            },
        ],
    });
    let s = Schema::new(generation(rules(4, true)), vec![c]).unwrap();
    let num = |k: TypeKind| TypeKind::ALL.iter().position(|x| *x == k).unwrap() as u16;
    // Built by hand from docs/layout-and-signatures.md §4.1-4.3 (the worked example).
    let mut want = Vec::new();
    want.extend(1i32.to_le_bytes()); // interfaces
    want.extend(b"Mode");
    want.extend(b"A");
    want.extend(0i32.to_le_bytes());
    want.extend(b"B");
    want.extend(7i32.to_le_bytes());
    want.extend(2i32.to_le_bytes()); // items
    want.extend(1i32.to_le_bytes()); // enums
                                     // Member 1: its enum again, then name, enum with sub-type void and 8 toggled in flags.
    want.extend(b"Mode");
    want.extend(b"A");
    want.extend(0i32.to_le_bytes());
    want.extend(b"B");
    want.extend(7i32.to_le_bytes());
    want.extend(2i32.to_le_bytes());
    want.extend(b"mode");
    for v in [num(TypeKind::Enum), 0, 0, 8] {
        want.extend(v.to_le_bytes());
    }
    // Member 2: ignored array of u32 -> zero, sub-type array, extra u16 uint32, flags 0.
    want.extend(b"cache");
    for v in [
        num(TypeKind::Zero),
        num(TypeKind::Array),
        num(TypeKind::UInt32),
        0,
        0,
    ] {
        want.extend(v.to_le_bytes());
    }
    want.extend(2i32.to_le_bytes()); // members
    assert_eq!(signature::description(&s, "Thing").unwrap(), want);
    assert_eq!(
        signature::compute(&s, "Thing").unwrap(),
        crc32fast::hash(&want)
    );
}
