//! `check::check` works within one cap for the whole check (docs/mopp.md §5): a hostile
//! code whose every query runs a long chain of commands is refused with an error that
//! names the cap, the code and how far the check got, in time linear in the input, never a
//! partial report. The level is built by hk's collision builder and written as a packfile;
//! only the code bytes are replaced.

use std::sync::Arc;
use std::time::Instant;

use hk_runtime::collision::hkp::level_build::{build, BodyDesc, Placement, ShapeDesc, TriMesh};
use hk_runtime::collision::mopp::check;
use hk_runtime::collision::{self, CollisionError};
use hk_runtime::file::{self, Schemas};
use hk_runtime::graph::{Array, Value};
use hk_runtime::packfile::PackfileInfo;
use hk_runtime::ReadOptions;

/// A ground grid of `n × n` quads (two triangles each) one unit apart.
fn grid(n: u16) -> TriMesh {
    let mut vertices = Vec::new();
    for z in 0..=n {
        for x in 0..=n {
            vertices.push([
                f32::from(x),
                f32::from((x * 7 + z * 3) % 5) * 0.1,
                f32::from(z),
            ]);
        }
    }
    let at = |x: u16, z: u16| z * (n + 1) + x;
    let mut triangles = Vec::new();
    for z in 0..n {
        for x in 0..n {
            triangles.push([at(x, z), at(x, z + 1), at(x + 1, z)]);
            triangles.push([at(x + 1, z), at(x, z + 1), at(x + 1, z + 1)]);
        }
    }
    let surfaces = vec![0; triangles.len()];
    TriMesh {
        vertices,
        triangles,
        surfaces,
    }
}

/// A 7.1 packfile of one fixed body whose MOPP mesh is a grid of `n × n` quads, with the
/// code replaced by `code` when given.
fn level(n: u16, code: Option<Vec<u8>>) -> (Vec<u8>, Schemas) {
    let schemas = hk_tests::schema_set();
    let schema = schemas.load("havok-7.1").unwrap();
    let body = BodyDesc {
        name: "ground".into(),
        at: Placement::IDENTITY,
        motion: "MOTION_FIXED".into(),
        filter_info: 0,
        shape: ShapeDesc::MoppMesh(grid(n)),
    };
    let mut g = build(Arc::clone(&schema), &[body]).unwrap();
    if let Some(code) = code {
        let id = g.find("hkpMoppCode").next().expect("a MOPP code object");
        g.set(id, "data", Value::Array(Array::U8(code))).unwrap();
    }
    let gen = &schema.generation;
    let bytes =
        hk_runtime::packfile::graph::write::write(&g, &PackfileInfo::new(gen, gen.layout)).unwrap();
    (bytes, schemas)
}

fn scene(bytes: &[u8], schemas: &Schemas) -> collision::Scene {
    let doc = file::open(bytes, schemas, ReadOptions::default()).unwrap();
    collision::read(&doc.graph).unwrap()
}

/// `pairs` commands `09 00` (add 0 to the terminal offset), then terminal key 0: a code
/// every query must run from end to end.
fn chain(pairs: usize) -> Vec<u8> {
    let mut c = [0x09u8, 0x00].repeat(pairs);
    c.push(0x30);
    c
}

#[test]
fn a_chain_every_query_runs_is_refused_at_the_checks_cap() {
    // 7,200 triangles against a 3 MB code: 1.5 million commands a query, 10.8·10⁹ for the
    // check without a cap on the whole of it (half a minute).
    let (bytes, schemas) = level(60, Some(chain(1_500_000)));
    let s = scene(&bytes, &schemas);
    let code = &s.codes[0];
    let triangles = check::indexed(&s, 0).len();
    assert_eq!(triangles, 7_200);
    let cap = check::cap(code, triangles);
    let t0 = Instant::now();
    let e = check::check(&s, 0).expect_err("the cap stops the check");
    let secs = t0.elapsed().as_secs_f64();
    let text = e.to_string();
    println!("{text} ({secs:.2} s)");
    let CollisionError::Mopp { message, .. } = &*e else {
        panic!("not a MOPP error: {e}")
    };
    // The cap, the code and how far the check got.
    assert!(
        message.contains(&format!("cap of {cap} commands")),
        "{text}"
    );
    assert!(
        message.contains(&format!("code #{} (3000001 bytes)", code.object.0)),
        "{text}"
    );
    // 1,500,001 commands a query: the check stops in the query after the last whole one,
    // having found the one triangle the chain's terminal names.
    let done = cap / 1_500_001;
    assert!(
        message.contains(&format!(
            "in the query of triangle {} of 7200, with 1 of the {done} kept triangles before it found",
            done + 1
        )),
        "{text}"
    );
    // Linear in the input: at most 128 commands a code byte and a triangle.
    assert!(cap <= 128 * (code.bytes.len() + triangles) + 4096, "{cap}");
    // The check without the cap ran for half a minute; the cap stops it in about a second,
    // and within this bound on a loaded machine.
    assert!(secs < 10.0, "{secs:.1} s");
}

#[test]
fn the_built_code_passes_well_inside_the_cap() {
    let (bytes, schemas) = level(40, None);
    let s = scene(&bytes, &schemas);
    let r = check::check(&s, 0).unwrap();
    assert!(r.passes(), "{r:?}");
    assert_eq!((r.found, r.kept), (3_200, 3_200));
    let cap = check::cap(&s.codes[0], 3_200);
    // The work counted is what the queries ran: about 120 commands a triangle, well
    // inside the cap.
    assert!(
        r.commands > 3_200 && r.commands < cap / 8,
        "{r:?}, cap {cap}"
    );
}
