//! Havok 2016 hknp collision from the command line (docs/collision.md): `hk cm box` writes a
//! cm file the strict reader, `hk schema check` and `hk roundtrip` accept; the three
//! synthetic cm samples (box, compressed-mesh terrain, compound) export to OBJ, glTF and GLB
//! (validated by the `gltf` crate) with the triangle counts put in and the compound's
//! instances in world space, and render to PNGs that are not blank.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support;
use crate::support::hk;
use hk_tests::{root, temp_dir};

/// World positions and triangle count of a glTF or GLB, read with the `gltf` crate (which
/// validates the document).
fn read_gltf(path: &Path) -> (Vec<[f32; 3]>, usize) {
    let (doc, buffers) = support::gltf_read(path);
    let (mut positions, mut triangles) = (Vec::new(), 0);
    for mesh in doc.meshes() {
        for p in mesh.primitives() {
            assert_eq!(p.mode(), gltf::mesh::Mode::Triangles);
            let r = p.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let pos: Vec<[f32; 3]> = r.read_positions().expect("positions").collect();
            let idx: Vec<u32> = r.read_indices().expect("indices").into_u32().collect();
            assert_eq!(idx.len() % 3, 0);
            assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
            triangles += idx.len() / 3;
            positions.extend(pos);
        }
    }
    (positions, triangles)
}

/// Exports `file` three ways; the OBJ's vertices (world space) and the triangle count,
/// checked to agree across the three.
fn export(file: &Path, dir: &Path, triangles: usize) -> BTreeSet<[i64; 3]> {
    let f = file.to_str().unwrap();
    let stem = file.file_stem().unwrap().to_str().unwrap();
    let obj = dir.join(format!("{stem}.obj"));
    let (code, out, err) = hk(&["export", f, "-o", obj.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("{triangles} triangles")), "{out}");
    let text = std::fs::read_to_string(&obj).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("f ")).count(),
        triangles
    );
    let key = |p: [f32; 3]| p.map(|x| (x * 1000.0).round() as i64);
    let vertices: BTreeSet<[i64; 3]> = text
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            key([v[0], v[1], v[2]])
        })
        .collect();
    for format in ["gltf", "glb"] {
        let out = dir.join(format!("{stem}.{format}"));
        let (code, _, err) = hk(&["export", f, "--format", format, "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let (pos, n) = read_gltf(&out);
        assert_eq!(n, triangles, "{}", out.display());
        let set: BTreeSet<[i64; 3]> = pos.into_iter().map(key).collect();
        assert_eq!(set, vertices, "{}: glTF and OBJ positions", out.display());
    }
    vertices
}

fn render(file: &Path, dir: &Path) {
    let png = dir.join(format!(
        "{}.png",
        file.file_stem().unwrap().to_str().unwrap()
    ));
    let (_, drawn) = support::render_drawn(file, &png, (160, 120));
    assert!(
        drawn > 160 * 120 / 20,
        "{}: {drawn} pixels drawn",
        png.display()
    );
}

#[test]
fn cm_box_writes_a_file_hk_reads_strictly() {
    let dir = temp_dir("hknp-cm-box");
    let file = dir.join("box.hkshape");
    let f = file.to_str().unwrap();
    let (code, out, err) = hk(&["cm", "box", "--half-extents", "0.5,1,1.5", "-o", f]);
    assert_eq!(code, 0, "{err}");
    // 1.02 × 2.02 × 3.02 with the convex radius; 1000 × that.
    assert!(
        out.contains("volume 6.2224") && out.contains("mass 6222.4"),
        "{out}"
    );
    let (code, out, err) = hk(&["schema", "check", f]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ok"), "{out}");
    let (code, out, err) = hk(&["info", f]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("root object: hknpConvexPolytopeShape")
            && out.contains("contents 0x1, surface type 1, flags 0x40"),
        "{out}"
    );
    let (code, out, err) = hk(&["roundtrip", f]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1/1 byte-identical"), "{out}");
    let corners = export(&file, &dir, 12);
    let want: BTreeSet<[i64; 3]> = (0..8)
        .map(|i| {
            [500, 1000, 1500]
                .iter()
                .enumerate()
                .map(|(a, &h)| if i >> a & 1 == 1 { h } else { -h })
                .collect::<Vec<i64>>()
                .try_into()
                .unwrap()
        })
        .collect();
    assert_eq!(corners, want);
    render(&file, &dir);
}

#[test]
fn cm_box_refuses_bad_half_extents() {
    let dir = temp_dir("hknp-cm-bad");
    let out = dir.join("x.hkshape");
    for (arg, says) in [
        ("0,1,1", "positive finite"),
        ("1,-2,1", "positive finite"),
        ("nan,1,1", "positive finite"),
        ("inf,1,1", "positive finite"),
        ("1,2", "X,Y,Z"),
        ("1,two,3", "`two` is not a number"),
    ] {
        let (code, _, err) = hk(&[
            "cm",
            "box",
            "--half-extents",
            arg,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{arg}");
        assert!(
            err.contains("--half-extents") && err.contains(says),
            "{arg}: {err}"
        );
        assert!(!out.exists(), "{arg}: wrote a file");
    }
}

/// The synthetic level: the three cm samples export with the triangles put in (box 12,
/// terrain 288, compound 2 × 12) and the compound's boxes where its instances put them.
#[test]
fn cm_samples_export_and_render() {
    let dir = temp_dir("hknp-samples");
    let sample = |s: &str| root().join("samples").join(s);
    export(&sample("doom-2016_box.hkshape"), &dir, 12);
    // A 12 × 12 terrain: 11 rows of quads and one row of two triangles a cell.
    let terrain = export(&sample("doom-2016_mesh.hkshape"), &dir, 12 * 12 * 2);
    assert_eq!(terrain.len(), 13 * 13, "one vertex per grid point");
    let v = export(&sample("doom-2016_compound.hkshape"), &dir, 24);
    // Box half extents 32, 32, 64. Instance 0 at x = -40; instance 2 scaled 2 in x, turned a
    // quarter around x (y to z, z to -y), at x = 120; element 1 is free.
    let box_at = |x: [i64; 2], y: [i64; 2], z: [i64; 2]| {
        let mut s = BTreeSet::new();
        for a in x {
            for b in y {
                for c in z {
                    s.insert([a * 1000, b * 1000, c * 1000]);
                }
            }
        }
        s
    };
    let mut want = box_at([-72, -8], [-32, 32], [-64, 64]);
    want.extend(box_at([56, 184], [-64, 64], [-32, 32]));
    assert_eq!(v, want);
    for s in [
        "doom-2016_box.hkshape",
        "doom-2016_mesh.hkshape",
        "doom-2016_compound.hkshape",
    ] {
        render(&sample(s), &dir);
    }
}
