//! Edited graphs write valid files: change a float, resize an array, drop an object, in a
//! Havok 7.1 big-endian file and a 2012.2 file. Each result reads back as edited, and
//! writing it again gives the same bytes.

use hk_runtime::graph::{Graph, ObjectId, Ptr, Value};
use hk_runtime::packfile::write::write;
use hk_runtime::Schema;

fn find(g: &Graph, class: &str) -> ObjectId {
    ObjectId(
        g.objects
            .iter()
            .position(|o| o.class == class)
            .unwrap_or_else(|| panic!("no {class}")) as u32,
    )
}

fn edit_and_check(file: &str) {
    let Some(corpus) = hk_tests::corpus("edits") else {
        return;
    };
    let data = hk_tests::read(&corpus.join(file));
    let (mut g, schema): (Graph, Schema) = hk_tests::graph_of(&data).unwrap();
    let original_objects = g.objects.len();

    // 1. Change a float: the first reference-pose translation x of the skeleton.
    let sk = find(&g, "hkaSkeleton");
    let Some(Value::Array(pose)) = g.objects[sk.0 as usize].get_mut("referencePose") else {
        panic!("pose")
    };
    let Value::Floats(t) = &mut pose[0] else {
        panic!("qstransform")
    };
    t[0] = 12.5;
    // 2. Resize arrays: drop the last bone (and its parent index and pose), grow the float
    //    slots by one name.
    let obj = &mut g.objects[sk.0 as usize];
    for member in ["bones", "parentIndices", "referencePose"] {
        let Some(Value::Array(items)) = obj.get_mut(member) else {
            panic!("{member}")
        };
        items.pop();
    }
    let Some(Value::Array(slots)) = obj.get_mut("floatSlots") else {
        panic!("floatSlots")
    };
    slots.push(Value::String(Some("addedByHk".into())));
    let bones_after = match obj.get("bones") {
        Some(Value::Array(b)) => b.len(),
        _ => 0,
    };
    // 3. Drop an object: the environment the root container names second.
    let env = find(&g, "hkxEnvironment");
    g.remove_object(env).unwrap();
    let root = g.root;
    let Some(Value::Array(variants)) = g.objects[root.0 as usize].get_mut("namedVariants") else {
        panic!("variants")
    };
    variants.retain(|v| match v {
        Value::Struct(fs) => !fs.iter().any(|f| {
            matches!(
                &f.value,
                Value::Pointer(None) | Value::Variant { object: None, .. }
            ) && f.name == "variant"
        }),
        _ => true,
    });
    assert_eq!(
        variants.len(),
        1,
        "{file}: the environment's variant is gone"
    );

    let bytes = write(&g, &schema).unwrap();
    assert_ne!(bytes, data);
    let (back, _) = hk_tests::graph_of(&bytes)
        .unwrap_or_else(|e| panic!("{file}: edited file does not read back: {e}"));
    assert_eq!(back.objects.len(), original_objects - 1, "{file}");
    assert!(
        !back.objects.iter().any(|o| o.class == "hkxEnvironment"),
        "{file}"
    );
    let sk2 = find(&back, "hkaSkeleton");
    let o = back.object(sk2);
    let Some(Value::Array(pose)) = o.get("referencePose") else {
        panic!()
    };
    assert_eq!(pose.len(), bones_after);
    assert!(
        matches!(&pose[0], Value::Floats(t) if t[0] == 12.5),
        "{file}: the float edit"
    );
    let Some(Value::Array(slots)) = o.get("floatSlots") else {
        panic!()
    };
    assert!(
        matches!(slots.last(), Some(Value::String(Some(s))) if s == "addedByHk"),
        "{file}"
    );
    // The container still points at the skeleton.
    let ac = find(&back, "hkaAnimationContainer");
    let Some(Value::Array(sks)) = back.object(ac).get("skeletons") else {
        panic!()
    };
    assert_eq!(sks[0], Value::Pointer(Some(Ptr::Object(sk2))));
    // Byte-stable: the graph read back writes the same bytes.
    assert_eq!(
        write(&back, &schema).unwrap(),
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
