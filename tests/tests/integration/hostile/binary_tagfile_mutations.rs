//! Mutations of corpus binary tagfiles (docs/binary-tagfile-format.md §8), each placed by
//! the independent walk of `binary_tagfile/walk.rs`: strict reading refuses every one with
//! the offset (and the object and member path); lenient reading records the soft ones and
//! writes them back in Havok's form.

use hk_runtime::file;
use hk_runtime::tagfile::binary;

#[allow(dead_code)]
use crate::tagfile::binary_walk::*;

/// Reads `bad` strictly (it must fail, with `expect` in the message and an offset) and
/// leniently: a soft break is then recorded as a violation and written back in Havok's
/// form, which reads strictly; any other break fails leniently too.
fn refused(bad: &[u8], expect: &str, soft: bool) {
    let e = binary::read(bad, strict()).expect_err("strict read accepted the mutation");
    let text = e.to_string();
    assert!(text.contains(expect), "expected `{expect}` in: {text}");
    assert!(e.offset().is_some(), "no offset: {text}");
    let schemas = hk_tests::schema_set();
    assert!(file::open(bad, &schemas, strict()).is_err());
    match binary::read(bad, lenient()) {
        Ok(r) if soft => {
            assert!(
                r.violations.iter().any(|v| v.message.contains(expect)),
                "{:?}",
                r.violations
            );
            let out = binary::write(&r.graph, &r.file).unwrap();
            binary::read(&out, strict()).unwrap();
        }
        Ok(_) => panic!("lenient read accepted a hard break: {text}"),
        Err(e) if soft => panic!("lenient read refused a soft break: {e}"),
        Err(_) => {}
    }
}

/// Errors inside an object name it and the member.
fn names_path(bad: &[u8], object: &str, member: &str) {
    let e = binary::read(bad, strict()).unwrap_err();
    let path = e.path().join(" > ");
    assert!(
        path.contains(object) && path.contains(member),
        "{path}: {e}"
    );
}

macro_rules! mutation {
    ($name:ident, $file:expr, $expect:expr, $soft:expr, |$data:ident, $w:ident| $make:expr) => {
        #[test]
        fn $name() {
            let Some($data) = corpus_file($file) else {
                return;
            };
            let $w = Walk::new(&$data);
            let bad: Vec<u8> = $make;
            assert_ne!(bad, $data);
            refused(&bad, $expect, $soft);
        }
    };
}

mutation!(bad_magic, HAT, "unknown magic", false, |d, _w| {
    let mut b = d.clone();
    b[0] ^= 0xFF;
    b
});

mutation!(unknown_version, SKELETON, "version 9", false, |d, w| {
    replace(&d, w.find("version", |_| true), &varint(9))
});

mutation!(
    stream_not_starting_with_file_info,
    HAT,
    "not file information",
    false,
    |d, w| { replace(&d, w.find("tag", |_| true), &varint(2)) }
);

mutation!(unknown_tag, HAT, "tag 5", false, |d, w| replace(
    &d,
    w.find("tag", |e| e.value == 4),
    &varint(5)
));

mutation!(
    second_file_info,
    HAT,
    "second file information",
    false,
    |d, w| {
        let at = w.find("tag", |e| e.value == 2).at;
        splice(&d, at, 0, &[varint(1), varint(4)].concat())
    }
);

mutation!(varint_not_shortest, HAT, "shortest form", true, |d, w| {
    replace(&d, w.find("class_version", |e| e.value == 0), &[0x80, 0x00])
});

mutation!(
    varint_past_64_bits,
    HAT,
    "longer than 64 bits",
    false,
    |d, w| {
        let mut long = vec![0xFF; 10];
        long.push(0x01);
        replace(&d, w.find("class_version", |_| true), &long)
    }
);

mutation!(
    string_reference_out_of_range,
    HAT,
    "past the",
    false,
    |d, w| { replace(&d, w.find("class_name", |e| e.value < 0), &varint(-500)) }
);

mutation!(class_name_null, HAT, "null string", false, |d, w| replace(
    &d,
    w.find("class_name", |_| true),
    &varint(-1)
));

mutation!(class_defined_twice, HAT, "defined twice", false, |d, w| {
    let second = w
        .evs
        .iter()
        .filter(|e| e.kind == "class_name")
        .nth(1)
        .unwrap();
    let first = w.index_of(&w.classes[0].0);
    splice(
        &d,
        second.at,
        second.len + second.value.max(0) as usize,
        &varint(-first),
    )
});

mutation!(
    parent_out_of_range,
    HAT,
    "parent class number 7",
    false,
    |d, w| { replace(&d, w.find("parent", |_| true), &varint(7)) }
);

mutation!(
    unknown_member_type_code,
    HAT,
    "type code 0xB is unknown",
    false,
    |d, w| { replace(&d, w.find("type_code", |_| true), &varint(0x0B)) }
);

mutation!(
    array_and_tuple_type_code,
    HAT,
    "is unknown",
    false,
    |d, w| { replace(&d, w.find("type_code", |_| true), &varint(0x39)) }
);

mutation!(
    tuple_count_zero,
    CHARACTER,
    "tuple count 0",
    false,
    |d, w| { replace(&d, w.find("tuple_count", |_| true), &varint(0)) }
);

mutation!(
    struct_member_without_class,
    HAT,
    "names no class",
    false,
    |d, w| {
        let e = w.find("member_class", |_| true);
        splice(&d, e.at, e.len + e.value.max(0) as usize, &varint(-1))
    }
);

mutation!(
    member_declared_twice,
    HAT,
    "declared twice",
    false,
    |d, w| {
        // The second member of hkRootLevelContainerNamedVariant (`className`) named `name`.
        let second = w
            .evs
            .iter()
            .filter(|e| e.kind == "member_name")
            .nth(2)
            .copied()
            .unwrap();
        let name = w.index_of("name");
        splice(
            &d,
            second.at,
            second.len + second.value as usize,
            &varint(-name),
        )
    }
);

mutation!(
    object_of_unknown_class,
    HAT,
    "class number 40",
    false,
    |d, w| { replace(&d, w.find("object_class", |_| true), &varint(40)) }
);

mutation!(
    reference_to_unknown_object,
    HAT,
    "reference to object #98",
    false,
    |d, w| { replace(&d, w.find("ref", |e| e.value > 0), &varint(99)) }
);

mutation!(negative_reference, HAT, "is negative", false, |d, w| {
    replace(&d, w.find("ref", |e| e.value > 0), &varint(-2))
});

mutation!(count_past_the_end, HAT, "do not fit", false, |d, w| {
    // animationFilenames: strings, at least a byte each.
    let e = w
        .evs
        .iter()
        .filter(|e| e.kind == "array_count")
        .nth(1)
        .copied()
        .unwrap();
    replace(&d, e, &varint(1 << 20))
});

mutation!(
    struct_array_past_the_memory_budget,
    HAT,
    "max-memory",
    false,
    |d, w| {
        // namedVariants: struct elements may take no bytes, so the memory budget refuses it.
        replace(&d, w.find("array_count", |_| true), &varint(1 << 20))
    }
);

mutation!(negative_count, HAT, "is negative", false, |d, w| replace(
    &d,
    w.find("array_count", |_| true),
    &varint(-1)
));

mutation!(
    bitfield_padding_set,
    HAT,
    "past the last member",
    true,
    |d, w| {
        let e = w.find("bitfield", |_| true);
        let mut b = d.clone();
        b[e.at] |= 0x80;
        b
    }
);

mutation!(void_member_present, HAT, "void member", false, |d, w| {
    // The second object (hkbProjectData) starts with two void members.
    let e = w
        .evs
        .iter()
        .filter(|e| e.kind == "bitfield")
        .nth(2)
        .copied()
        .unwrap();
    let mut b = d.clone();
    b[e.at] |= 0x01;
    b
});

mutation!(
    member_present_with_zero,
    HAT,
    "present with the integer 0",
    true,
    |d, w| { replace(&d, w.find("int", |e| e.value != 0), &varint(0)) }
);

mutation!(vector_width_5, NAVMESH, "vector width 5", false, |d, w| {
    replace(&d, w.find("vec_width", |_| true), &varint(5))
});

mutation!(
    integer_too_wide_for_its_array,
    NAVMESH,
    "does not fit the 4-byte",
    false,
    |d, w| {
        let width = w.find("int_width", |e| e.value == 4);
        replace(
            &d,
            w.find("int_item", |e| e.at > width.at),
            &varint(1 << 40),
        )
    }
);

mutation!(integer_width_6, NAVMESH, "integer width 6", true, |d, w| {
    // An array whose member has no other integer arrays, so that lenient reading's
    // 8-byte reading of it does not meet a 4-byte one.
    let e = w
        .evs
        .iter()
        .rfind(|e| e.kind == "int_width")
        .copied()
        .unwrap();
    replace(&d, e, &varint(6))
});

mutation!(
    truncated_before_the_end_tag,
    HAT,
    "truncated",
    false,
    |d, _w| d[..d.len() - 1].to_vec()
);

mutation!(
    string_written_out_twice,
    HAT,
    "written out again",
    true,
    |d, w| {
        // The last string reference, so that no later reference shifts.
        let e = *w
            .evs
            .iter()
            .rfind(|e| e.kind == "value_string" && e.value < 0)
            .unwrap();
        let s = w.strings[(-e.value) as usize].clone().unwrap();
        replace(&d, e, &[varint(s.len() as i64), s].concat())
    }
);

mutation!(no_objects, HAT, "before any object", false, |d, w| {
    let first = w.find("tag", |e| e.value == 4);
    [&d[..first.at], &varint(7)[..]].concat()
});

mutation!(string_holds_nul, HAT, "NUL", false, |d, w| {
    let e = w.find("value_string", |e| e.value > 1);
    let mut b = d.clone();
    b[e.at + e.len] = 0;
    b
});

mutation!(
    string_length_past_the_end,
    HAT,
    "truncated",
    false,
    |d, w| replace(
        &d,
        w.find("value_string", |e| e.value > 0),
        &varint(100_000)
    )
);

mutation!(
    class_defined_after_an_object,
    HAT,
    "defined after an object",
    true,
    |d, w| {
        let end = w.find("tag", |e| e.value == 7);
        let name = b"hkZz";
        let record = [
            varint(2),
            varint(name.len() as i64),
            name.to_vec(),
            varint(0),
            varint(0),
            varint(0),
        ]
        .concat();
        splice(&d, end.at, 0, &record)
    }
);

mutation!(struct_class_undefined, HAT, "not defined", false, |d, w| {
    // namedVariants' struct class becomes the string `namedVariants`; the class keeps its
    // name, now written out where its definition references it (so the table stays).
    let e = w.find("member_class", |_| true);
    let own = w
        .evs
        .iter()
        .filter(|e| e.kind == "class_name")
        .nth(1)
        .copied()
        .unwrap();
    let text = &d[e.at + e.len..e.at + e.len + e.value as usize];
    let named = replace(
        &d,
        own,
        &[varint(text.len() as i64), text.to_vec()].concat(),
    );
    let name = w.index_of("namedVariants");
    splice(&named, e.at, e.len + e.value as usize, &varint(-name))
});

#[test]
fn errors_name_the_object_and_member() {
    let Some(d) = corpus_file(HAT) else {
        return;
    };
    let w = Walk::new(&d);
    let bad = replace(&d, w.find("ref", |e| e.value > 0), &varint(99));
    names_path(&bad, "object #0 hkRootLevelContainer", "variant");
    let bad = replace(&d, w.find("int", |e| e.value != 0), &varint(0));
    names_path(&bad, "object #1 hkbProjectData", "defaultEventMode");
}
