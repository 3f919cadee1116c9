//! Wavefront OBJ output: world-space vertices, one object (`o`) per body and shape, and a
//! `usemtl surface_N` line wherever the surface id changes (`surface_none` for triangles
//! without one). For a phive shape a comment line per surface id gives the material entry
//! and hit mask it indexes.

use std::io::{self, Write};

use crate::collision::Scene;

/// What [`write()`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Objects (`o` lines).
    pub objects: usize,
    /// Vertices (`v` lines).
    pub vertices: usize,
    /// Triangles (`f` lines).
    pub triangles: usize,
}

/// Writes `scene` as OBJ text to `w`, vertex numbers continuing from `first_vertex`
/// (1 for a file of its own).
///
/// # Errors
/// What `w` reports.
pub fn write(scene: &Scene, w: &mut impl Write, first_vertex: usize) -> io::Result<Written> {
    let mut n = Written::default();
    let mut base = first_vertex;
    // A phive shape: what each surface id (shape tag) indexes, as comments.
    if let Some(p) = &scene.phive {
        for (i, (m, h)) in p.materials.iter().zip(&p.hit_masks).enumerate() {
            writeln!(
                w,
                "# surface_{i}: material={} sub={} tags=0x{:X} layers=0x{:X} sublayers=0x{:X}",
                m.material, m.sub_material, m.shape_tags, h.layers, h.sub_layers
            )?;
        }
    }
    for (body, mesh) in scene.meshes() {
        n.objects += 1;
        writeln!(w, "o {}/{}", clean(&body.name), clean(&mesh.name))?;
        for p in body.world_vertices(mesh) {
            writeln!(w, "v {} {} {}", p[0], p[1], p[2])?;
        }
        let mut current: Option<Option<u32>> = None;
        for t in &mesh.triangles {
            if current != Some(t.surface) {
                match t.surface {
                    Some(s) => writeln!(w, "usemtl surface_{s}")?,
                    None => writeln!(w, "usemtl surface_none")?,
                }
                current = Some(t.surface);
            }
            let [a, b, c] = t.v.map(|i| i as usize + base);
            writeln!(w, "f {a} {b} {c}")?;
        }
        n.vertices += mesh.vertices.len();
        n.triangles += mesh.triangles.len();
        base += mesh.vertices.len();
    }
    Ok(n)
}

/// A name without whitespace (OBJ names end at the first blank).
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}
