//! `hk render`: a collision [`Scene`] drawn as a PNG with `tiny-skia`, from a camera that
//! frames the whole scene.
//!
//! The camera is orthographic and looks down at the scene's centre from a three-quarter view
//! (45° round the vertical axis, 30° above the horizon; +Y is up, as in the games hk reads).
//! The scene's projected box fills the picture less a margin. Shaded: every triangle is
//! filled in its surface colour (the glTF materials' colours) times a flat shade from its
//! face normal against a fixed light, far triangles first (the painter's algorithm; the
//! triangles' centres give the order). Wireframe: every edge, near edges brighter. Both are
//! drawn at twice the size and halved, which smooths the edges without seams.
//!
//! The picture is drawn in horizontal strips, each handed on (to the PNG encoder) before
//! the next is drawn, so a picture of any size takes the buffers of one strip: as many rows
//! as [`STRIP_BYTES`] and the memory limit allow ([`strips`]).

use hk_runtime::collision::{Scene, Vec3};
use tiny_skia::{
    Color, FillRule, FilterQuality, Paint, PathBuilder, Pixmap, PixmapPaint, Stroke, Transform,
};

use super::gltf::surface_color;

/// The largest width or height `hk render` draws.
pub const MAX_SIDE: u32 = 4096;

/// How to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Edges only.
    pub wireframe: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: 800,
            height: 600,
            wireframe: false,
        }
    }
}

/// The background.
const BACKGROUND: [u8; 3] = [0x1e, 0x22, 0x28];

/// The background colour, for tests that count drawn pixels.
pub fn background() -> [u8; 3] {
    BACKGROUND
}

/// Parses `WxH` (each side 1 to [`MAX_SIDE`]).
///
/// # Errors
/// Not two numbers joined by `x`, or a side out of range.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("--size {text}: expected WIDTHxHEIGHT, e.g. 480x320"))?;
    let side = |s: &str| -> Result<u32, String> {
        let n: u32 = s
            .trim()
            .parse()
            .map_err(|e| format!("--size {text}: {s:?}: {e}"))?;
        if n == 0 || n > MAX_SIDE {
            return Err(format!("--size {text}: each side must be 1 to {MAX_SIDE}"));
        }
        Ok(n)
    };
    Ok((side(w)?, side(h)?))
}

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(a: Vec3) -> Option<Vec3> {
    let l = dot(a, a).sqrt();
    (l > 0.0 && l.is_finite()).then(|| [a[0] / l, a[1] / l, a[2] / l])
}

/// The camera: right, up and forward (into the picture) axes.
pub(crate) struct Camera {
    right: Vec3,
    up: Vec3,
    forward: Vec3,
}

impl Camera {
    /// The three-quarter view every `hk render` picture is drawn from.
    pub(crate) fn three_quarter() -> Camera {
        let (az, el) = (45f32.to_radians(), 30f32.to_radians());
        // From the eye towards the scene: down and away.
        let forward = [-el.cos() * az.sin(), -el.sin(), -el.cos() * az.cos()];
        let right = normalize(cross(forward, [0.0, 1.0, 0.0])).unwrap_or([1.0, 0.0, 0.0]);
        let up = cross(right, forward);
        Camera { right, up, forward }
    }

    /// (x right, y up, depth away from the eye).
    pub(crate) fn project(&self, p: Vec3) -> [f32; 3] {
        [dot(p, self.right), dot(p, self.up), dot(p, self.forward)]
    }
}

/// One triangle ready to draw.
struct Flat {
    /// Picture coordinates (pixels of the doubled picture).
    at: [[f32; 2]; 3],
    depth: f32,
    rgb: [u8; 3],
}

/// The triangles of a scene laid out in the doubled picture, farthest first.
struct Laid {
    flats: Vec<Flat>,
    near: f32,
    far: f32,
}

/// What one output row takes while drawn: its two rows at twice the width, and itself.
const ROW_BYTES_PER_PIXEL: u64 = 2 * 2 * 4 + 4;
/// The PNG encoder's own state (deflate window, tables and buffers, two rows at most
/// 4096 pixels wide), counted at an upper bound.
pub const ENCODER_BYTES: u64 = 1 << 20;
/// The most a strip takes when the budget allows more: taller strips save little.
pub const STRIP_BYTES: u64 = 8 << 20;

/// How a picture is drawn: in strips of `rows` output rows, within `bytes` of buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strips {
    /// Output rows per strip (the last may have fewer).
    pub rows: u32,
    /// How many strips.
    pub count: u32,
    /// The buffers the drawing holds at once: the triangles, one strip at twice the size
    /// and at its own size, and the PNG encoder.
    pub bytes: u64,
}

/// The strips a `w` × `h` picture of `triangles` triangles is drawn in, within `budget`
/// bytes.
///
/// # Errors
/// Not even one row fits the budget: the message names the size, what is needed and
/// `--max-memory`.
pub fn strips(w: u32, h: u32, triangles: usize, budget: u64) -> Result<Strips, String> {
    let fixed =
        (triangles as u64).saturating_mul(std::mem::size_of::<Flat>() as u64) + ENCODER_BYTES;
    let per_row = ROW_BYTES_PER_PIXEL * u64::from(w);
    let rows = budget.saturating_sub(fixed).min(STRIP_BYTES) / per_row;
    if rows == 0 {
        return Err(format!(
            "size {w}x{h}: drawing {triangles} triangles needs at least {} bytes (the triangles, one row of the picture at twice the size, the PNG encoder), past the memory limit of {budget} bytes; raise it with --max-memory, or draw a smaller picture",
            fixed + per_row
        ));
    }
    let rows = rows.min(u64::from(h)) as u32;
    Ok(Strips {
        rows,
        count: h.div_ceil(rows),
        bytes: fixed + per_row * u64::from(rows),
    })
}

/// The finite triangles of `scene` (world vertices and surface), mesh by mesh.
fn each_triangle(scene: &Scene, mut f: impl FnMut([Vec3; 3], Option<u32>)) {
    for (body, mesh) in scene.meshes() {
        let world = body.world_vertices(mesh);
        for t in &mesh.triangles {
            let p = t.v.map(|i| world.get(i as usize).copied());
            if let [Some(a), Some(b), Some(c)] = p {
                if [a, b, c].iter().flatten().all(|c| c.is_finite()) {
                    f([a, b, c], t.surface);
                }
            }
        }
    }
}

/// How many triangles of `scene` [`render`] draws.
pub fn drawable(scene: &Scene) -> usize {
    let mut n = 0;
    each_triangle(scene, |_, _| n += 1);
    n
}

/// Lays `scene` out in a doubled picture of `bw` × `bh` pixels.
fn lay_out(scene: &Scene, cam: &Camera, bw: u32, bh: u32, n: usize) -> Laid {
    let light = normalize([-0.45, 0.8, 0.35]).unwrap_or([0.0, 1.0, 0.0]);
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    each_triangle(scene, |p, _| {
        for v in p {
            let q = cam.project(v);
            for i in 0..2 {
                lo[i] = lo[i].min(q[i]);
                hi[i] = hi[i].max(q[i]);
            }
        }
    });
    // A margin of 5% each side.
    let (ew, eh) = (hi[0] - lo[0], hi[1] - lo[1]);
    let fit = |side: u32, extent: f32| {
        let s = side as f32 * 0.9 / extent;
        if s.is_finite() && s > 0.0 {
            s
        } else {
            f32::INFINITY
        }
    };
    let mut scale = fit(bw, ew).min(fit(bh, eh));
    if !scale.is_finite() {
        // Everything at one point (or on a line seen end on): any scale draws it.
        scale = 1.0;
    }
    let (cx, cy) = ((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0);
    let to_px = |q: [f32; 3]| {
        [
            bw as f32 / 2.0 + (q[0] - cx) * scale,
            bh as f32 / 2.0 - (q[1] - cy) * scale,
        ]
    };
    let mut flats = Vec::with_capacity(n);
    each_triangle(scene, |p, surface| {
        let q = p.map(|v| cam.project(v));
        let shade = normalize(cross(sub(p[1], p[0]), sub(p[2], p[0])))
            .map_or(0.6, |n| 0.25 + 0.75 * dot(n, light).abs());
        let rgb = surface_color(surface).map(|c| (c * shade * 255.0).clamp(0.0, 255.0) as u8);
        flats.push(Flat {
            at: q.map(to_px),
            depth: (q[0][2] + q[1][2] + q[2][2]) / 3.0,
            rgb,
        });
    });
    // Farthest first.
    flats.sort_by(|a, b| b.depth.total_cmp(&a.depth));
    let (near, far) = (
        flats.last().map_or(0.0, |f| f.depth),
        flats.first().map_or(0.0, |f| f.depth),
    );
    Laid { flats, near, far }
}

/// Draws the triangles of `laid` that reach the doubled rows `top..top + strip.height()`
/// into `strip`.
fn draw_strip(laid: &Laid, strip: &mut Pixmap, top: u32, wireframe: bool) {
    let [r, g, b] = BACKGROUND;
    strip.fill(Color::from_rgba8(r, g, b, 255));
    // Edges are stroked 2 pixels wide, and anti-aliased: a margin of 2 rows each side.
    let (lo, hi) = (top as f32 - 2.0, (top + strip.height()) as f32 + 2.0);
    let shift = Transform::from_translate(0.0, -(top as f32));
    let mut paint = Paint {
        anti_alias: wireframe,
        ..Paint::default()
    };
    let stroke = Stroke {
        width: 2.0,
        ..Stroke::default()
    };
    for f in &laid.flats {
        let ys = f.at.map(|p| p[1]);
        if ys.iter().all(|&y| y < lo) || ys.iter().all(|&y| y > hi) {
            continue;
        }
        let mut pb = PathBuilder::new();
        pb.move_to(f.at[0][0], f.at[0][1]);
        pb.line_to(f.at[1][0], f.at[1][1]);
        pb.line_to(f.at[2][0], f.at[2][1]);
        pb.close();
        // A triangle that covers no area (or a point) has no path; nothing to draw.
        let Some(path) = pb.finish() else { continue };
        if wireframe {
            let t = if laid.far > laid.near {
                (laid.far - f.depth) / (laid.far - laid.near)
            } else {
                1.0
            };
            let v = (90.0 + 165.0 * t) as u8;
            paint.set_color_rgba8(v, v, (v as f32 * 0.9 + 25.0) as u8, 255);
            strip.stroke_path(&path, &paint, &stroke, shift, None);
        } else {
            paint.set_color_rgba8(f.rgb[0], f.rgb[1], f.rgb[2], 255);
            strip.fill_path(&path, &paint, FillRule::Winding, shift, None);
        }
    }
}

/// Draws `scene` strip by strip, within `budget` bytes of buffers ([`strips`]), handing
/// each strip of the picture (full width, top to bottom) to `sink`, which may use its
/// pixels as it likes. Triangles with a
/// vertex that is not finite are left out.
///
/// # Errors
/// A scene without a triangle to draw, a size out of range, a budget too small for one
/// row, or what `sink` returns.
pub fn render_strips(
    scene: &Scene,
    opts: &RenderOptions,
    budget: u64,
    sink: &mut dyn FnMut(&mut Pixmap) -> Result<(), String>,
) -> Result<Strips, String> {
    let (w, h) = (opts.width, opts.height);
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(format!("size {w}x{h}: each side must be 1 to {MAX_SIDE}"));
    }
    let n = drawable(scene);
    if n == 0 {
        return Err("no triangles to draw".to_string());
    }
    let plan = strips(w, h, n, budget)?;
    let laid = lay_out(scene, &Camera::three_quarter(), 2 * w, 2 * h, n);
    let mut big = None;
    let mut out = None;
    for k in 0..plan.count {
        let top = k * plan.rows;
        let rows = plan.rows.min(h - top);
        // The last strip may be shorter: its own buffers.
        if out.as_ref().is_none_or(|p: &Pixmap| p.height() != rows) {
            big = Pixmap::new(2 * w, 2 * rows);
            out = Pixmap::new(w, rows);
        }
        let (Some(big), Some(out)) = (big.as_mut(), out.as_mut()) else {
            return Err(format!("cannot allocate a strip of {w}x{rows}"));
        };
        draw_strip(&laid, big, 2 * top, opts.wireframe);
        // Twice the size, halved: each output pixel is the mean of its four.
        out.fill(Color::TRANSPARENT);
        out.draw_pixmap(
            0,
            0,
            big.as_ref(),
            &PixmapPaint {
                quality: FilterQuality::Bilinear,
                ..PixmapPaint::default()
            },
            Transform::from_scale(0.5, 0.5),
            None,
        );
        sink(out)?;
    }
    Ok(plan)
}

/// Draws `scene` as one picture in memory ([`render_strips`] with the buffers the strips
/// need, and the picture).
///
/// # Errors
/// A scene without a triangle to draw, or a size out of range.
pub fn render(scene: &Scene, opts: &RenderOptions) -> Result<Pixmap, String> {
    let (w, h) = (opts.width.min(MAX_SIDE), opts.height.min(MAX_SIDE));
    let mut whole = Pixmap::new(w.max(1), h.max(1)).ok_or("cannot allocate the picture")?;
    let mut at = 0;
    render_strips(scene, opts, u64::MAX, &mut |strip| {
        let data = strip.data();
        whole.data_mut()[at..at + data.len()].copy_from_slice(data);
        at += data.len();
        Ok(())
    })?;
    Ok(whole)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use hk_runtime::collision::{Affine, Body, Mesh, ShapeKind, Triangle};
    use hk_runtime::graph::ObjectId;

    /// One body, one mesh, no surface ids.
    pub(crate) fn scene(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Scene {
        let mesh = Mesh {
            name: "m".into(),
            object: ObjectId(0),
            kind: ShapeKind::SimpleMesh,
            to_body: Affine::IDENTITY,
            vertices,
            triangles: triangles
                .into_iter()
                .map(|v| Triangle {
                    v,
                    key: 0,
                    material: None,
                    surface: None,
                    welding: None,
                })
                .collect(),
            stored_aabb: None,
            declared_triangles: None,
            code: None,
            to_code: Affine::IDENTITY,
        };
        Scene {
            bodies: vec![Body {
                name: "b".into(),
                object: ObjectId(0),
                to_world: Affine::IDENTITY,
                motion_type: 0,
                motion_name: None,
                filter_info: 0,
                free: false,
                meshes: vec![mesh],
            }],
            ..Scene::default()
        }
    }

    fn drawn(p: &Pixmap) -> usize {
        let [r, g, b] = BACKGROUND;
        p.pixels()
            .iter()
            .filter(|c| (c.red(), c.green(), c.blue()) != (r, g, b))
            .count()
    }

    #[test]
    fn nothing_to_draw_is_an_error() {
        let e = render(&Scene::default(), &RenderOptions::default()).unwrap_err();
        assert!(e.contains("no triangles"), "{e}");
        let e = render(&scene(vec![[0.0; 3]], vec![]), &RenderOptions::default()).unwrap_err();
        assert!(e.contains("no triangles"), "{e}");
        // Vertices that are not finite are left out, so nothing is left.
        let nan = scene(vec![[f32::NAN; 3]; 3], vec![[0, 1, 2]]);
        assert!(render(&nan, &RenderOptions::default()).is_err());
    }

    #[test]
    fn a_scene_at_one_point_gives_a_picture_of_the_size() {
        let opts = RenderOptions {
            width: 31,
            height: 17,
            wireframe: false,
        };
        let p = render(&scene(vec![[5.0, 5.0, 5.0]; 3], vec![[0, 1, 2]]), &opts).unwrap();
        assert_eq!((p.width(), p.height()), (31, 17));
        let wire = RenderOptions {
            wireframe: true,
            ..opts
        };
        let p = render(&scene(vec![[5.0, 5.0, 5.0]; 3], vec![[0, 1, 2]]), &wire).unwrap();
        assert_eq!((p.width(), p.height()), (31, 17));
        // A line seen from the side: a segment, no area, no panic.
        let line = scene(
            vec![[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
            vec![[0, 1, 2]],
        );
        assert!(render(&line, &opts).is_ok());
    }

    #[test]
    fn a_floor_fills_the_middle_of_the_picture() {
        // A 10 x 10 square floor of two triangles.
        let floor = scene(
            vec![
                [0.0, 0.0, 0.0],
                [10.0, 0.0, 0.0],
                [10.0, 0.0, 10.0],
                [0.0, 0.0, 10.0],
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        );
        let opts = RenderOptions {
            width: 100,
            height: 100,
            wireframe: false,
        };
        let p = render(&floor, &opts).unwrap();
        let c = p.pixel(50, 50).unwrap();
        assert_ne!((c.red(), c.green(), c.blue()), (0x1e, 0x22, 0x28));
        // The corners stay background (the margin).
        let c = p.pixel(0, 0).unwrap();
        assert_eq!((c.red(), c.green(), c.blue()), (0x1e, 0x22, 0x28));
        // A seen-from-above diamond: about half the 90% box, far more than the edges alone.
        let shaded = drawn(&p);
        assert!(shaded > 100 * 100 / 5, "{shaded}");
        let wire = render(
            &floor,
            &RenderOptions {
                wireframe: true,
                ..opts
            },
        )
        .unwrap();
        assert!(drawn(&wire) < shaded / 2, "{} vs {shaded}", drawn(&wire));
        for s in ["", "480", "0x10", "10x99999", "axb"] {
            assert!(parse_size(s).is_err(), "{s}");
        }
        assert_eq!(parse_size("480x320"), Ok((480, 320)));
    }
}
