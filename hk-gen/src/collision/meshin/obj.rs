//! Wavefront OBJ into [`InputMesh`] objects.
//!
//! - `o NAME` starts an object; a file without `o` lines starts one at each `g NAME`.
//!   Faces before any name belong to an object named `mesh`.
//! - `v x y z` (further numbers, a `w` or a colour, are ignored); `vt`, `vn`, `s`,
//!   `mtllib` and `l`/`p` lines are ignored.
//! - `f` corners are `v`, `v/vt`, `v//vn` or `v/vt/vn`, counted from 1, or from the end
//!   when negative; faces of more than 3 corners are triangulated ([`super::polygon`]).
//! - `usemtl NAME` sets the surface of the faces after it ([`super::surface`]); the
//!   comment `# surface_N: material=… sub=… tags=… layers=… sublayers=…` that `hk export`
//!   writes for a phive shape gives surface N its phive material and hit mask.

use std::collections::HashMap;

use hk_runtime::collision::input::{InputMesh, InputTriangle, Surface};
use hk_runtime::collision::Vec3;

use super::{polygon, surface};

/// The objects of OBJ `text`.
///
/// # Errors
/// `line L: …` with the object and face for anything that cannot be read.
pub fn read(text: &str) -> Result<Vec<InputMesh>, String> {
    let mut r = Reader {
        groups_are_objects: !text.lines().any(|l| l.trim_start().starts_with("o ")),
        ..Reader::default()
    };
    for (i, line) in text.lines().enumerate() {
        r.line(line).map_err(|e| format!("line {}: {e}", i + 1))?;
    }
    r.finish()
}

#[derive(Default)]
struct Reader {
    groups_are_objects: bool,
    points: Vec<Vec3>,
    /// The surface `usemtl` set, or why its name names none.
    material: Option<Result<Surface, String>>,
    /// Phive materials stated by comments, by surface id.
    phive: HashMap<u32, Surface>,
    objects: Vec<InputMesh>,
    current: Option<Object>,
}

struct Object {
    mesh: InputMesh,
    /// File vertex number → the object's own.
    local: HashMap<u32, u32>,
    faces: u32,
}

impl Object {
    fn new(name: &str) -> Object {
        Object {
            mesh: InputMesh {
                name: name.to_string(),
                ..InputMesh::default()
            },
            local: HashMap::new(),
            faces: 0,
        }
    }
}

impl Reader {
    fn line(&mut self, line: &str) -> Result<(), String> {
        let line = line.trim();
        let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match key {
            "v" => self.vertex(rest),
            "f" => self.face(rest),
            "o" => self.start(rest),
            "g" if self.groups_are_objects => self.start(rest),
            "usemtl" => {
                self.material = Some(surface::parse(rest));
                Ok(())
            }
            "#" | "" if rest.starts_with("surface_") && rest.contains(':') => self.comment(rest),
            _ => Ok(()),
        }
    }

    fn vertex(&mut self, rest: &str) -> Result<(), String> {
        let mut p = [0f32; 3];
        let mut words = rest.split_whitespace();
        for (axis, c) in p.iter_mut().enumerate() {
            let w = words
                .next()
                .ok_or_else(|| format!("vertex {}: 3 coordinates needed", self.points.len() + 1))?;
            *c = w
                .parse()
                .map_err(|_| format!("vertex {}: `{w}` is not a number", self.points.len() + 1))?;
            if !c.is_finite() {
                return Err(format!(
                    "vertex {}: coordinate {} is {w}, not a finite number",
                    self.points.len() + 1,
                    ["x", "y", "z"][axis]
                ));
            }
        }
        if self.points.len() >= u32::MAX as usize {
            return Err("more than 2^32 vertices".to_string());
        }
        self.points.push(p);
        Ok(())
    }

    fn start(&mut self, name: &str) -> Result<(), String> {
        self.close()?;
        if name.is_empty() {
            return Err("an object without a name".to_string());
        }
        self.current = Some(Object::new(name));
        Ok(())
    }

    /// Ends the current object (one without faces too: `hk export` writes a shape with no
    /// triangles as an empty object, and the importer decides what it means).
    fn close(&mut self) -> Result<(), String> {
        if let Some(o) = self.current.take() {
            self.objects.push(o.mesh);
        }
        Ok(())
    }

    fn comment(&mut self, rest: &str) -> Result<(), String> {
        let (head, tail) = rest.split_once(':').unwrap_or((rest, ""));
        let s = surface::parse(&format!("{head} {}", tail.trim()))?;
        if let Some(id) = s.id {
            self.phive.insert(id, s);
        }
        Ok(())
    }

    fn face(&mut self, rest: &str) -> Result<(), String> {
        let o = self.current.get_or_insert_with(|| Object::new("mesh"));
        o.faces += 1;
        let at = |o: &Object| format!("object `{}` face {}", o.mesh.name, o.faces);
        let surface = match &self.material {
            None => Surface::default(),
            Some(Ok(s)) => *s,
            Some(Err(e)) => return Err(format!("{}: {e}", at(o))),
        };
        let surface = match surface.id {
            Some(id) if surface.phive.is_none() => self.phive.get(&id).copied().unwrap_or(surface),
            _ => surface,
        };
        let mut corners = Vec::new();
        for w in rest.split_whitespace() {
            if corners.len() > polygon::MAX_CORNERS {
                break;
            }
            let v = corner(w, self.points.len()).map_err(|e| format!("{}: {e}", at(o)))?;
            let next = o.mesh.vertices.len() as u32;
            let local = *o.local.entry(v).or_insert(next);
            if local == next {
                o.mesh.vertices.push(self.points[v as usize]);
            }
            corners.push(local);
        }
        let tris = polygon::triangulate(&o.mesh.vertices, &corners)
            .map_err(|e| format!("{}: {e}", at(o)))?;
        let face = o.faces;
        o.mesh
            .triangles
            .extend(tris.into_iter().map(|v| InputTriangle { v, surface, face }));
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<InputMesh>, String> {
        self.close()?;
        Ok(self.objects)
    }
}

/// The file vertex (from 0) a face corner names, of `count` so far.
fn corner(word: &str, count: usize) -> Result<u32, String> {
    let first = word.split('/').next().unwrap_or("");
    let n: i64 = first
        .parse()
        .map_err(|_| format!("corner `{word}` is not a vertex number"))?;
    let index = match n {
        0 => None,
        n if n > 0 => Some(n - 1),
        n => (count as i64).checked_add(n),
    };
    match index {
        Some(i) if i >= 0 && (i as usize) < count => Ok(i as u32),
        _ => Err(format!(
            "corner `{word}` names vertex {n}, and {count} vertices come before it"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_surfaces_and_polygons_come_back() {
        let text = "# surface_2: material=7 sub=1 tags=0x4 layers=0x1 sublayers=0x0\n\
                    o a/b\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nusemtl surface_2\nf 1 2 3 4\n\
                    o c\nv 5 5 5\nusemtl surface_none\nf -4/1 -3//2 -1/3/4\n";
        let m = read(text).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].name.as_str(), m[0].triangles.len()), ("a/b", 2));
        let s = m[0].triangles[1].surface;
        assert_eq!(s.id, Some(2));
        assert_eq!(s.phive.unwrap().0.material, 7);
        assert_eq!(m[0].triangles[1].face, 1);
        // The second object holds only the three vertices it uses, in first-use order.
        assert_eq!(
            m[1].vertices,
            vec![[1., 0., 0.], [1., 1., 0.], [5., 5., 5.]]
        );
        assert_eq!(m[1].triangles[0].v, [0, 1, 2]);
        assert_eq!(m[1].triangles[0].surface.id, None);
    }

    #[test]
    fn bad_lines_name_the_line_object_and_face() {
        let cases = [
            ("v 0 nan 0\n", "line 1: vertex 1: coordinate y"),
            (
                "v 0 0 0\nv 1 0 0\no x\nf 1 2 3\n",
                "line 4: object `x` face 1: corner `3`",
            ),
            ("v 0 0 0\nf 1 2\n", "line 2: object `mesh` face 1"),
            ("o\n", "line 1: an object without a name"),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl Material\nf 1 2 3\n",
                "line 5: object `mesh` face 1: material `Material`",
            ),
            ("v 1e39 0 0\n", "not a finite number"),
            ("v 0 0 0\nf 0 1 1\n", "names vertex 0"),
        ];
        for (text, want) in cases {
            let e = read(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
