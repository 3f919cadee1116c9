//! Havok XML from strangers (docs/havok-xml.md, "Strict reading"): every document here is
//! built in the test. Text that would change the data on the way in (flags syntax in a plain
//! integer, a hex number that wraps, an unknown `1.#` float, an element inside a value) is
//! refused with its line and column; an element with a hundred thousand attributes is
//! refused at once, not after a quadratic duplicate check.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use hk_runtime::dump::{xml, Built};
use hk_runtime::file::Schemas;
use hk_runtime::graph::Value;
use hk_runtime::Limits;

/// The shipped schema folders, loaded once for every test here.
static SCHEMAS: LazyLock<Schemas> = LazyLock::new(hk_tests::schema_set);

/// A Havok 2010.2 document of one object of `class` whose members are `params`, on lines
/// of their own from line 5.
fn doc(class: &str, params: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"ascii\"?>\n\
         <hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#0001\">\n\
         <hksection name=\"__data__\">\n\
         <hkobject name=\"#0001\" class=\"{class}\">\n\
         {params}\n\
         </hkobject>\n\
         </hksection>\n\
         </hkpackfile>\n"
    )
}

fn read(text: &str) -> hk_runtime::Result<Built> {
    xml::from_xml(text, &SCHEMAS, None, &Limits::default())
}

/// The error `text` is refused with, its line and column, and its message.
fn refused(text: &str) -> (usize, usize, String) {
    let e = match read(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    };
    let (line, column) = e
        .line_column()
        .unwrap_or_else(|| panic!("no line and column: {e}"));
    (line, column, e.to_string())
}

/// Asserts that `text` is refused at `line` with a message holding each of `words`.
fn refused_at(text: &str, line: usize, words: &[&str]) {
    let (l, c, message) = refused(text);
    assert_eq!(l, line, "{message}");
    assert!(c >= 1, "{message}");
    for w in words {
        assert!(message.contains(w), "`{w}` not in: {message}");
    }
}

/// The value of `path` of the first object of `class`.
fn value(built: &Built, class: &str, path: &str) -> Value {
    let g = &built.graph;
    g.get(g.first(class).expect("the object"), path).unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .expect("an array")
        .to_values()
        .iter()
        .map(|x| x.as_i64().expect("an integer"))
        .collect()
}

#[test]
fn integer_members_take_numbers_not_flags_syntax() {
    let p = |t: &str| {
        doc(
            "hkaSkeleton",
            &format!("<hkparam name=\"parentIndices\">{t}</hkparam>"),
        )
    };
    let built = read(&p("-1 0 1 0x7FFF")).unwrap();
    assert_eq!(
        ints(&value(&built, "hkaSkeleton", "parentIndices")),
        [-1, 0, 1, 0x7FFF]
    );
    // `1|2` was read as 3.
    refused_at(&p("-1 1|2 3"), 5, &["1|2", "parentIndices[1]"]);
    // An enum member takes one name: `|` joins the names of flags only.
    let e = |t: &str| {
        doc(
            "hkaAnimationBinding",
            &format!("<hkparam name=\"blendHint\">{t}</hkparam>"),
        )
    };
    assert_eq!(
        value(
            &read(&e("ADDITIVE")).unwrap(),
            "hkaAnimationBinding",
            "blendHint"
        )
        .as_i64(),
        Some(1)
    );
    refused_at(&e("NORMAL|ADDITIVE"), 5, &["NORMAL|ADDITIVE", "blendHint"]);
    refused_at(&e("ADDITIVE2"), 5, &["ADDITIVE2", "BlendHint"]);
}

#[test]
fn hex_numbers_past_their_member_are_refused_not_wrapped() {
    let p = |t: &str| {
        doc(
            "hkaSkeleton",
            &format!("<hkparam name=\"parentIndices\">{t}</hkparam>"),
        )
    };
    // `0xFFFFFFFFFFFFFFFF` was read as -1.
    refused_at(&p("0 0xFFFFFFFFFFFFFFFF"), 5, &["parentIndices[1]"]);
    refused_at(&p("0xFFFF"), 5, &["parentIndices[0]"]);
    refused_at(&p("0x1FFFFFFFFFFFFFFFF"), 5, &["parentIndices[0]"]);
}

#[test]
fn only_the_msvc_forms_of_infinity_and_nan_read_as_non_finite() {
    let p = |t: &str| {
        doc(
            "hkaSkeleton",
            &format!("<hkparam name=\"referenceFloats\">{t}</hkparam>"),
        )
    };
    let built = read(&p("1.#INF00 -1.#INF -1.#IND00 1.#QNAN0 -1.#QNAN 0.5")).unwrap();
    let bits: Vec<u32> = value(&built, "hkaSkeleton", "referenceFloats")
        .as_array()
        .unwrap()
        .to_values()
        .iter()
        .map(|v| match v {
            Value::Real(f) => f.to_bits(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        bits,
        [
            0x7F80_0000,
            0xFF80_0000,
            0xFFC0_0000,
            0x7FC0_0000,
            0xFFC0_0000,
            0x3F00_0000
        ]
    );
    // Anything else starting `1.#` was read as NaN.
    for t in [
        "1.#FOO",
        "1.#",
        "1.#INFINITE",
        "1.#QNAN7",
        "1.#SNAN0",
        "2.#INF",
    ] {
        refused_at(&p(&format!("0.0 {t}")), 5, &[t, "referenceFloats[1]"]);
    }
    // A finite text past the f32 range is refused, not made infinite.
    refused_at(&p("1e39"), 5, &["1e39"]);
    refused_at(&p("-1e400"), 5, &["1e400"]);
}

#[test]
fn elements_inside_values_are_refused() {
    // An include inside a string member turned the name into "".
    let text = doc(
        "hkaSkeleton",
        "<hkparam name=\"name\"><xi:include href=\"/etc/passwd\"/></hkparam>",
    );
    refused_at(&text, 5, &["xi:include", "name"]);
    let text = doc("hkaSkeleton", "<hkparam name=\"name\">bone<b/>s</hkparam>");
    refused_at(&text, 5, &["<b>"]);
    // Empty elements among numbers were dropped.
    let text = doc(
        "hkaSkeleton",
        "<hkparam name=\"parentIndices\" numelements=\"2\">0<a/><a/>1</hkparam>",
    );
    refused_at(&text, 5, &["<a>", "parentIndices"]);
    // A struct member holds one <hkobject>: a second was dropped.
    let q = |objects: &str| {
        doc(
            "hkaDeltaCompressedAnimation",
            &format!("<hkparam name=\"qFormat\">{objects}</hkparam>"),
        )
    };
    let one = "<hkobject><hkparam name=\"numD\">7</hkparam></hkobject>";
    let built = read(&q(one)).unwrap();
    assert_eq!(
        value(&built, "hkaDeltaCompressedAnimation", "qFormat.numD").as_i64(),
        Some(7)
    );
    refused_at(&q(&format!("{one}{one}")), 5, &["hkobject", "qFormat"]);
    refused_at(&q(""), 5, &["qFormat"]);
    let text = doc(
        "hkaSkeleton",
        "<hkparam name=\"bones\" numelements=\"1\"><hkobject><hkparam name=\"name\">a</hkparam>\
         </hkobject><hkcstring>b</hkcstring></hkparam>",
    );
    refused_at(&text, 5, &["hkcstring", "bones"]);
    // Text between members was ignored.
    let text = doc("hkaSkeleton", "junk<hkparam name=\"name\">a</hkparam>");
    refused_at(&text, 5, &["junk"]);
}

#[test]
fn flags_join_item_names_and_numbers_of_their_own_enum() {
    let p = |t: &str| {
        doc(
            "hkClassMember",
            &format!("<hkparam name=\"flags\">{t}</hkparam>"),
        )
    };
    let flags = |t: &str| {
        value(
            &read(&p(t)).unwrap_or_else(|e| panic!("{t}: {e}")),
            "hkClassMember",
            "flags",
        )
        .as_i64()
    };
    assert_eq!(flags("ALIGN_8|NOT_OWNED"), Some(128 | 512));
    assert_eq!(flags("SERIALIZE_IGNORED"), Some(1024));
    // hk writes bits no item names last, in hex.
    assert_eq!(flags("ALIGN_8|0x1"), Some(129));
    assert_eq!(flags("0x201"), Some(0x201));
    refused_at(&p("ALIGN_8|NOPE"), 5, &["NOPE", "FlagValues"]);
    refused_at(&p("ALIGN_8||NOT_OWNED"), 5, &["flags"]);
    refused_at(&p("ALIGN_8|"), 5, &["flags"]);
    // Another enum's item is not a flag of this one.
    refused_at(&p("ALIGN_8|TYPE_BOOL"), 5, &["TYPE_BOOL"]);
    // The member's enum (`type`) is not flags.
    let t = |t: &str| {
        doc(
            "hkClassMember",
            &format!("<hkparam name=\"type\">{t}</hkparam>"),
        )
    };
    refused_at(&t("TYPE_INT8|TYPE_BOOL"), 5, &["TYPE_INT8|TYPE_BOOL"]);
}

#[test]
fn a_doctype_is_refused() {
    let text = doc("hkaSkeleton", "<hkparam name=\"name\">a</hkparam>").replacen(
        "<hkpackfile",
        "<!DOCTYPE hkpackfile [<!ENTITY big \"aaaaaaaa\">]>\n<hkpackfile",
        1,
    );
    refused_at(&text, 2, &["DOCTYPE"]);
    // An entity the reader does not know.
    let text = doc("hkaSkeleton", "<hkparam name=\"name\">&big;</hkparam>");
    refused_at(&text, 5, &["big"]);
}

#[test]
fn unknown_and_repeated_attributes_are_refused() {
    let text = doc(
        "hkaSkeleton",
        "<hkparam name=\"name\" extra=\"1\">a</hkparam>",
    );
    refused_at(&text, 5, &["extra"]);
    let text = doc(
        "hkaSkeleton",
        "<hkparam name=\"name\" name=\"parentIndices\">a</hkparam>",
    );
    refused_at(&text, 5, &["name"]);
    // `numelements` belongs to arrays, `hk:bytes` to strings.
    let text = doc(
        "hkaSkeleton",
        "<hkparam name=\"name\" numelements=\"1\">a</hkparam>",
    );
    refused_at(&text, 5, &["numelements"]);
}

#[test]
fn a_hundred_thousand_attributes_are_refused_at_once() {
    // quick-xml's own duplicate check compares each attribute with every one before it:
    // 100,000 attributes took 30 s, 600,000 more than a minute.
    let attrs: String = (0..100_000).map(|i| format!(" a{i}=\"\"")).collect();
    let text = doc("hkaSkeleton", "").replacen(
        "class=\"hkaSkeleton\"",
        &format!("class=\"hkaSkeleton\"{attrs}"),
        1,
    );
    let started = Instant::now();
    let (line, _, message) = refused(&text);
    let took = started.elapsed();
    assert_eq!(line, 4, "{message}");
    assert!(message.contains("a0"), "{message}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    // Repeats of one known attribute stop at the second.
    let names: String = (0..100_000).map(|_| " signature=\"0x1\"").collect();
    let text = doc("hkaSkeleton", "").replacen(
        "class=\"hkaSkeleton\"",
        &format!("class=\"hkaSkeleton\"{names}"),
        1,
    );
    let started = Instant::now();
    let (line, _, message) = refused(&text);
    assert_eq!(line, 4, "{message}");
    assert!(message.contains("signature"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn the_read_limits_on_objects_and_nesting_hold() {
    use hk_runtime::error::{ErrorKind, Limit, ReadError};
    let limit_of = |e: &hk_runtime::Error| match e.kind() {
        ErrorKind::Read(ReadError::Limit { limit, .. }) => Some(*limit),
        _ => None,
    };
    // A struct in a struct in an object: two levels.
    let text = doc(
        "hkpRigidBody",
        "<hkparam name=\"collidable\"><hkobject><hkparam name=\"broadPhaseHandle\"><hkobject>\
         <hkparam name=\"type\">1</hkparam></hkobject></hkparam></hkobject></hkparam>",
    );
    let built = read(&text).unwrap();
    assert_eq!(
        value(&built, "hkpRigidBody", "collidable.broadPhaseHandle.type").as_i64(),
        Some(1)
    );
    let shallow = Limits::default().with_max_depth(1);
    let e = xml::from_xml(&text, &SCHEMAS, None, &shallow).unwrap_err();
    assert_eq!(limit_of(&e), Some(Limit::Depth), "{e}");
    assert_eq!(e.line_column().map(|(l, _)| l), Some(5), "{e}");
    // Two objects where one is allowed: refused at the second.
    let two = doc("hkaSkeleton", "").replace(
        "</hksection>",
        "<hkobject name=\"#0002\" class=\"hkaSkeleton\"></hkobject>\n</hksection>",
    );
    assert!(read(&two).is_ok());
    let one = Limits::default().with_max_objects(1);
    let e = xml::from_xml(&two, &SCHEMAS, None, &one).unwrap_err();
    assert_eq!(limit_of(&e), Some(Limit::Objects), "{e}");
    assert_eq!(e.line_column().map(|(l, _)| l), Some(7), "{e}");
}

#[test]
fn pointers_name_objects_and_elements_that_exist() {
    let p = |t: &str| {
        doc(
            "hkaSkeleton",
            &format!(
                "<hkparam name=\"bones\" numelements=\"1\"><hkobject/></hkparam>\n\
                 <hkparam name=\"localFrames\" numelements=\"1\"><hkobject>\
                 <hkparam name=\"localFrame\">{t}</hkparam></hkobject></hkparam>"
            ),
        )
    };
    for ok in ["null", "#0001", "import:elsewhere", "#0001@bones[0]"] {
        assert!(read(&p(ok)).is_ok(), "{ok}: {:?}", read(&p(ok)).err());
    }
    refused_at(&p("#9999"), 6, &["#9999", "localFrames[0].localFrame"]);
    refused_at(&p("#0001@bones[5]"), 6, &["bones[5]"]);
    refused_at(&p("#0001 #0001"), 6, &["localFrame"]);
}
