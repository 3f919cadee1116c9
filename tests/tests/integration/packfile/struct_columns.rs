//! Arrays of structs whose members are all primitives are read as one typed column per
//! member (`graph::StructColumns`), on a real file: Bloodborne's cloth
//! (`games/bloodborne/c2020_cloth.hkx`, Havok 2014.1), whose `hclMeshMeshDeformOperator`
//! objects hold `triangleVertexPairs` (two `vector4`, a `uint16`, a `real`, with padding).
//!
//! - The array is read as columns of the members' forms, and element by element it equals
//!   the struct values of the same bytes.
//! - A graph whose columns are all made struct values is equal to the read one, and writes
//!   the same bytes.
//! - An edit of one member of one element (`Graph::set` through the path) reads back and is
//!   written back: only the four bytes of that member change.
//! - A value that does not fit its member, put straight into a column (past every setter),
//!   is refused by the writer naming the element and the member.

use hk_runtime::error::{ErrorKind, WriteError};
use hk_runtime::file;
use hk_runtime::graph::{Array, Graph, ObjectId, StructColumns, Value};

const CLOTH: &str = "games/bloodborne/c2020_cloth.hkx";

/// Flattened member index of `name` in object `id`'s class.
fn member_index(g: &Graph, id: ObjectId, name: &str) -> usize {
    let schema = g.schema();
    let ms = schema.members(g.objects[id.0 as usize].class).unwrap();
    ms.iter()
        .position(|m| schema.member_of(m).name == name)
        .unwrap_or_else(|| panic!("no member {name}"))
}

fn columns(v: &Value) -> &StructColumns {
    match v {
        Value::Array(Array::Struct(c)) => c,
        other => panic!("expected struct columns, found {}", other.describe()),
    }
}

#[test]
fn primitive_struct_arrays_are_columns_that_write_back() {
    let Some(corpus) = hk_tests::corpus("struct_columns") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let data = hk_tests::read(&corpus.join(CLOTH));
    let doc = file::open(&data, &schemas, Default::default()).unwrap();
    let g = &doc.graph;
    let op = g.first("hclMeshMeshDeformOperator").unwrap();
    let k = member_index(g, op, "triangleVertexPairs");
    let cols = columns(&g.objects[op.0 as usize].values[k]);
    assert!(cols.len() > 1000, "{} pairs", cols.len());
    let forms: Vec<&str> = cols
        .columns()
        .iter()
        .map(|c| match c {
            Array::Vec4(_) => "vector4",
            Array::U16(_) => "uint16",
            Array::Real(_) => "real",
            _ => "other",
        })
        .collect();
    assert_eq!(forms, ["vector4", "vector4", "uint16", "real"]);

    // Element 7 by path equals the struct read from its bytes by hand: the array's data
    // starts where its pointer points, and each element is 0x30 bytes.
    let Value::Struct(e7) = g.get(op, "triangleVertexPairs[7]").unwrap() else {
        panic!("struct element")
    };
    assert_eq!(e7.len(), 4);
    assert_eq!(
        g.get(op, "triangleVertexPairs[7].triangleIndex").unwrap(),
        e7[2]
    );
    let weight = g.get(op, "triangleVertexPairs[7].weight").unwrap();
    assert_eq!(weight, e7[3]);
    let Value::Real(w) = weight else {
        panic!("real")
    };
    let at = data
        .windows(4)
        .position(|b| b == w.to_le_bytes())
        .expect("the weight's bytes are in the file");
    assert!(at > 0x450, "in the data section");

    // Every struct column made struct values: an equal graph, the same bytes.
    let values = g.with_struct_values().into_owned();
    assert!(matches!(
        &values.objects[op.0 as usize].values[k],
        Value::Array(Array::Values(v)) if v.len() == cols.len()
    ));
    assert_eq!(&values, g);
    let mut doc2 = file::open(&data, &schemas, Default::default()).unwrap();
    doc2.graph = values;
    assert!(
        file::write(&doc2).unwrap() == data,
        "values form writes other bytes"
    );
    assert!(
        file::write(&doc).unwrap() == data,
        "columns write other bytes"
    );
}

#[test]
fn edits_of_struct_column_elements_are_written_and_checked() {
    let Some(corpus) = hk_tests::corpus("struct_columns") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    let data = hk_tests::read(&corpus.join(CLOTH));

    // One member of one element, through the checked setter.
    let mut doc = file::open(&data, &schemas, Default::default()).unwrap();
    let op = doc.graph.first("hclMeshMeshDeformOperator").unwrap();
    let old = doc.graph.get(op, "triangleVertexPairs[11].weight").unwrap();
    assert_ne!(old, Value::Real(0.125));
    doc.graph
        .set(op, "triangleVertexPairs[11].weight", Value::Real(0.125))
        .unwrap();
    assert_eq!(
        doc.graph.get(op, "triangleVertexPairs[11].weight").unwrap(),
        Value::Real(0.125)
    );
    let out = file::write(&doc).unwrap();
    assert_eq!(out.len(), data.len());
    let changed: Vec<usize> = (0..data.len()).filter(|&i| out[i] != data[i]).collect();
    assert!(!changed.is_empty() && changed.len() <= 4, "{changed:?}");
    assert!(changed.last().unwrap() - changed[0] < 4);
    let back = file::open(&out, &schemas, Default::default()).unwrap();
    assert_eq!(
        back.graph
            .get(op, "triangleVertexPairs[11].weight")
            .unwrap(),
        Value::Real(0.125)
    );

    // The setter refuses a value that does not fit the member.
    let err = doc
        .graph
        .set(
            op,
            "triangleVertexPairs[2].triangleIndex",
            Value::UInt(70_000),
        )
        .unwrap_err();
    assert!(err.to_string().contains("triangleIndex"), "{err}");

    // Past every setter: a 32-bit column holding 70000 for the `uint16` member.
    let mut doc = file::open(&data, &schemas, Default::default()).unwrap();
    let k = member_index(&doc.graph, op, "triangleVertexPairs");
    let slot = &mut doc.graph.objects[op.0 as usize].values[k];
    let mut cols: Vec<Array> = columns(slot).columns().to_vec();
    let Array::U16(idx) = &cols[2] else {
        panic!("uint16 column")
    };
    let mut wide: Vec<u32> = idx.iter().map(|&x| u32::from(x)).collect();
    wide[5] = 70_000;
    cols[2] = Array::U32(wide);
    *slot = Value::Array(Array::Struct(StructColumns::new(cols).unwrap()));
    let err = file::write(&doc).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Write(WriteError::Range { .. })),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("[5]") && text.contains("triangleIndex") && text.contains("70000"),
        "{text}"
    );

    // Columns of different lengths are not struct columns.
    let a = Array::U16(vec![1, 2]);
    let b = Array::Real(vec![1.0]);
    assert!(StructColumns::new(vec![a.clone(), b]).is_none());
    assert!(StructColumns::new(vec![a.clone(), Array::Values(vec![])]).is_none());
    assert!(StructColumns::new(Vec::new()).is_none());
    assert_eq!(StructColumns::new(vec![a]).map(|c| c.len()), Some(2));
}

/// Arrays of struct columns in `v`.
fn count_columns(v: &Value) -> usize {
    match v {
        Value::Array(Array::Struct(_)) => 1,
        Value::Struct(vs) | Value::CArray(vs) | Value::Array(Array::Values(vs)) => {
            vs.iter().map(count_columns).sum()
        }
        _ => 0,
    }
}

/// TAG0 tagfiles read arrays of primitive records as columns too (when each member's type
/// stores exactly its column), and write them back byte for byte: Dark Souls Remastered's
/// ragdoll and Tears of the Kingdom's cloth.
#[test]
fn tagfile_records_are_columns_that_write_back() {
    let Some(corpus) = hk_tests::corpus("struct_columns") else {
        return;
    };
    let schemas = hk_tests::schema_set();
    for (name, at_least) in [
        ("games/dark-souls-remastered/c2240_ragdoll.hkx", 1),
        ("games/totk/Armor_999_Head.bphcl", 1),
    ] {
        let data = hk_tests::read(&corpus.join(name));
        let doc = file::open(&data, &schemas, Default::default()).unwrap();
        let n: usize = doc
            .graph
            .objects
            .iter()
            .flat_map(|o| o.values.iter())
            .map(count_columns)
            .sum();
        assert!(n >= at_least, "{name}: {n} struct column arrays");
        let values = doc.graph.with_struct_values().into_owned();
        assert_eq!(&values, &doc.graph, "{name}");
        assert!(file::write(&doc).unwrap() == data, "{name}: other bytes");
        println!("{name}: {n} arrays of struct columns, written back byte for byte");
    }
}
