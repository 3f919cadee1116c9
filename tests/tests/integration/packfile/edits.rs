//! Edited documents write valid files: change a float, resize arrays, drop an object, in a
//! Havok 7.1 big-endian file and a 2012.2 file, all through the checked graph API
//! (`Graph::get`/`set`, `Document::remove_object`) and `file::write`. Each result reads back
//! as edited, and writing it again gives the same bytes.

use hk_runtime::file::{self, Document, Schemas};
use hk_runtime::graph::{Array, Graph, ObjectId, Ptr, Seg, Value};

fn open(data: &[u8], schemas: &Schemas) -> Document {
    file::open(data, schemas, Default::default()).unwrap()
}

fn array(g: &Graph, id: ObjectId, path: &str) -> Array {
    match g.get(id, path).unwrap() {
        Value::Array(a) => a,
        other => panic!("{path}: {other:?}"),
    }
}

/// Whether named variant `v` (an `hkRootLevelContainerNamedVariant` struct) names nothing;
/// `variant` is its index among the struct's members.
fn names_nothing(v: &Value, variant: usize) -> bool {
    match v {
        Value::Struct(fs) => match &fs[variant] {
            Value::Pointer(None) => true,
            Value::Variant(v) => v.object.is_none(),
            _ => false,
        },
        other => panic!("named variant {other:?}"),
    }
}

fn edit_and_check(file: &str) {
    let Some(corpus) = hk_tests::corpus("edits") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let data = hk_tests::read(&corpus.join(file));
    let mut doc = open(&data, &schemas);
    let g = &mut doc.graph;
    let original_objects = g.objects.len();

    // 1. Change a float: the first reference-pose translation x of the skeleton.
    let sk = g.first("hkaSkeleton").expect("an hkaSkeleton");
    let Value::Floats(mut t) = g.get(sk, "referencePose[0]").unwrap() else {
        panic!("qstransform")
    };
    assert_eq!(t.len(), 12);
    assert_ne!(t[0], 12.5);
    t[0] = 12.5;
    g.set(sk, "referencePose[0]", Value::Floats(t)).unwrap();
    // 2. Resize arrays: drop the last bone (and its parent index and pose), grow the float
    //    slots by one name.
    let bones_before = array(g, sk, "bones").len();
    for member in ["bones", "parentIndices", "referencePose"] {
        let mut items = array(g, sk, member);
        assert_eq!(items.len(), bones_before, "{member}");
        items.truncate(bones_before - 1);
        g.set(sk, member, Value::Array(items)).unwrap();
    }
    let mut slots = array(g, sk, "floatSlots").to_values();
    let slots_before = slots.len();
    slots.push(Value::String(Some("addedByHk".into())));
    g.set(sk, "floatSlots", Value::Array(Array::Values(slots)))
        .unwrap();
    let bones_after = array(g, sk, "bones").len();
    assert_eq!(bones_after, bones_before - 1);
    // 3. Drop an object: the environment the root container names second.
    let env = g.first("hkxEnvironment").expect("an hkxEnvironment");
    let root = g.root;
    let (segs, _) = g
        .resolve(g.object(root).class, "namedVariants[0].variant")
        .unwrap();
    let Some(&Seg::Member(variant)) = segs.last() else {
        panic!("{segs:?}")
    };
    let variant = usize::from(variant);
    doc.remove_object(env).unwrap();
    let g = &mut doc.graph;
    let variants = array(g, root, "namedVariants").to_values();
    assert_eq!(
        variants
            .iter()
            .filter(|v| names_nothing(v, variant))
            .count(),
        1,
        "{file}: removing the environment nulls the one variant that named it"
    );
    let kept: Vec<Value> = variants
        .into_iter()
        .filter(|v| !names_nothing(v, variant))
        .collect();
    assert_eq!(kept.len(), 1, "{file}: the environment's variant is gone");
    g.set(root, "namedVariants", Value::Array(Array::Values(kept)))
        .unwrap();

    let bytes = file::write(&doc).unwrap();
    assert_ne!(bytes, data);
    let back = file::open(&bytes, &schemas, Default::default())
        .unwrap_or_else(|e| panic!("{file}: edited file does not read back: {e}"));
    let b = &back.graph;
    assert_eq!(b.objects.len(), original_objects - 1, "{file}");
    assert_eq!(b.first("hkxEnvironment"), None, "{file}");
    assert_eq!(array(b, b.root, "namedVariants").len(), 1, "{file}");
    let sk2 = b.first("hkaSkeleton").unwrap();
    for member in ["bones", "parentIndices", "referencePose"] {
        assert_eq!(array(b, sk2, member).len(), bones_after, "{file}: {member}");
    }
    assert!(
        matches!(b.get(sk2, "referencePose[0]").unwrap(), Value::Floats(t) if t[0] == 12.5),
        "{file}: the float edit"
    );
    let slots = array(b, sk2, "floatSlots");
    assert_eq!(slots.len(), slots_before + 1, "{file}");
    assert_eq!(
        slots.get(slots_before),
        Some(Value::String(Some("addedByHk".into()))),
        "{file}"
    );
    // The container still points at the skeleton.
    let ac = b.first("hkaAnimationContainer").unwrap();
    assert_eq!(
        b.get(ac, "skeletons[0]").unwrap(),
        Value::Pointer(Some(Ptr::Object(sk2)))
    );
    // Byte-stable: the document read back writes the same bytes.
    assert_eq!(
        file::write(&back).unwrap(),
        bytes,
        "{file}: second write differs"
    );
    println!(
        "{file}: edited ({} -> {} bytes), reads back as edited, second write identical",
        data.len(),
        bytes.len()
    );
}

#[test]
fn edits_in_a_havok_7_1_big_endian_file() {
    edit_and_check("packfile/havoklib-710/allosaur[4011].hkx");
}

#[test]
fn edits_in_a_havok_2012_2_file() {
    edit_and_check("packfile/havoklib-2012_2/allosaur[8101].hkx");
}
