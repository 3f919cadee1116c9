//! glTF 2.0 output of a collision [`Scene`], built with the `gltf` crate's JSON types: one
//! node and mesh per body and shape (named `body/shape`, as the OBJ objects), world-space
//! positions, and one primitive per surface id, each with a material `surface_N`
//! (`surface_none` for triangles without one). `.gltf` is one JSON file with its buffer
//! inline (a base64 data URI); `.glb` is the binary container with the buffer as its BIN
//! chunk. No normals are written: a viewer draws glTF triangles without normals with flat
//! normals, which is how collision is best seen.

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine as _;
use gltf::json::validation::Checked::Valid;
use gltf::json::validation::USize64;
use gltf::json::{self, Index};
use hk_runtime::collision::export::obj::Written;
use hk_runtime::collision::{Mesh, Scene, Vec3};

/// The two containers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// `.gltf`: JSON, the buffer as a data URI.
    Json,
    /// `.glb`: the binary container.
    Binary,
}

/// A scene as glTF bytes, with what they hold.
#[derive(Clone, Debug)]
pub struct Encoded {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Nodes (one per body and shape with triangles), vertices and triangles written.
    pub written: Written,
}

/// Colours for the surface materials, muted and told apart (sRGB-ish, linear factors).
const PALETTE: [[f32; 3]; 8] = [
    [0.60, 0.60, 0.58],
    [0.45, 0.62, 0.45],
    [0.70, 0.55, 0.38],
    [0.42, 0.52, 0.72],
    [0.72, 0.44, 0.44],
    [0.62, 0.48, 0.70],
    [0.40, 0.66, 0.66],
    [0.75, 0.70, 0.40],
];

/// The colour hk gives surface id `s` (glTF materials and `hk render` agree).
pub fn surface_color(s: Option<u32>) -> [f32; 3] {
    match s {
        None => [0.55, 0.55, 0.55],
        Some(s) => PALETTE[s as usize % PALETTE.len()],
    }
}

/// A surface's material name: `surface_N` (`surface_none`), and for a phive shape the
/// material entry and hit mask it indexes (`surface_2 material=7 sub=1 tags=0x4
/// layers=0x1 sublayers=0x0`, docs/collision-notes.md §13).
pub fn material_name(scene: &Scene, surface: Option<u32>) -> String {
    let Some(s) = surface else {
        return "surface_none".to_string();
    };
    let Some(p) = scene.phive.as_ref().and_then(|p| p.resolve(s)) else {
        return format!("surface_{s}");
    };
    format!(
        "surface_{s} material={} sub={} tags=0x{:X} layers=0x{:X} sublayers=0x{:X}",
        p.material.material,
        p.material.sub_material,
        p.material.shape_tags,
        p.hit_mask.layers,
        p.hit_mask.sub_layers
    )
}

/// Builds the buffer and the JSON document of a scene (and of the skeletons and animations
/// [`crate::anim::gltf`] adds).
pub(crate) struct Builder {
    pub(crate) root: json::Root,
    bin: Vec<u8>,
    materials: BTreeMap<Option<u32>, Index<json::Material>>,
    buffer: Index<json::Buffer>,
}

impl Builder {
    /// An empty document that names hk as its generator.
    pub(crate) fn new() -> Builder {
        let mut b = Builder {
            root: json::Root::default(),
            bin: Vec::new(),
            materials: BTreeMap::new(),
            buffer: Index::new(0),
        };
        b.root.asset.generator = Some(format!("hk {}", env!("CARGO_PKG_VERSION")));
        b
    }

    fn view(&mut self, bytes: &[u8], target: json::buffer::Target) -> Index<json::buffer::View> {
        self.view_for(bytes, Some(target))
    }

    /// A view of `bytes` appended to the buffer, for vertex data (`target`) or for data
    /// that is no vertex attribute (animation samples, inverse bind matrices: `None`).
    pub(crate) fn view_for(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> Index<json::buffer::View> {
        // Every element here is four bytes, so every view starts four-aligned.
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: self.buffer,
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            extensions: None,
            extras: Default::default(),
            name: None,
            target: target.map(Valid),
        })
    }

    pub(crate) fn accessor(
        &mut self,
        view: Index<json::buffer::View>,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        bounds: Option<(Vec3, Vec3)>,
    ) -> Index<json::Accessor> {
        let bounds = bounds.map(|(lo, hi)| (lo.to_vec(), hi.to_vec()));
        self.accessor_within(view, count, component, type_, bounds)
    }

    /// An accessor with bounds of any length (`min`/`max` are required of animation
    /// inputs, which are scalars).
    pub(crate) fn accessor_within(
        &mut self,
        view: Index<json::buffer::View>,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> Index<json::Accessor> {
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min: bounds.as_ref().map(|(lo, _)| json::Value::from(lo.clone())),
            max: bounds.map(|(_, hi)| json::Value::from(hi)),
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    fn material(&mut self, surface: Option<u32>, scene: &Scene) -> Index<json::Material> {
        if let Some(&m) = self.materials.get(&surface) {
            return m;
        }
        let [r, g, b] = surface_color(surface);
        let m = self.root.push(json::Material {
            name: Some(material_name(scene, surface)),
            double_sided: true,
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor([r, g, b, 1.0]),
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(1.0),
                ..Default::default()
            },
            ..Default::default()
        });
        self.materials.insert(surface, m);
        m
    }
}

/// Encodes `scene` as glTF. Returns a message when a vertex is not finite (glTF needs exact
/// bounds) or the buffer passes the 4 GiB a GLB can hold.
///
/// # Errors
/// The message says which body and shape.
pub fn encode(scene: &Scene, container: Container) -> Result<Encoded, String> {
    let mut b = Builder::new();
    let mut nodes = Vec::new();
    let mut written = Written::default();
    for (body, mesh) in scene.meshes() {
        if mesh.triangles.is_empty() || mesh.vertices.is_empty() {
            continue;
        }
        let name = format!("{}/{}", body.name, mesh.name);
        let world = body.world_vertices(mesh);
        nodes.push(b.mesh_node(&name, &world, mesh, scene)?);
        written.objects += 1;
        written.vertices += world.len();
        written.triangles += mesh.triangles.len();
    }
    b.finish_buffer(container)?;
    // A scene lists at least one node (glTF 2.0, `scene.nodes`); a file without triangles
    // has no scene at all, which glTF allows.
    if !nodes.is_empty() {
        let scene_index = b.root.push(json::Scene {
            extensions: None,
            extras: Default::default(),
            name: Some("collision".to_string()),
            nodes,
        });
        b.root.scene = Some(scene_index);
    }
    let bytes = b.bytes(container)?;
    Ok(Encoded { bytes, written })
}

impl Builder {
    /// A node named `name` with a mesh of `mesh`'s triangles over `vertices` (one per
    /// vertex of `mesh`, in the node's space).
    pub(crate) fn mesh_node(
        &mut self,
        name: &str,
        vertices: &[Vec3],
        mesh: &Mesh,
        scene: &Scene,
    ) -> Result<Index<json::Node>, String> {
        let positions = self.positions(name, vertices)?;
        let primitives = self.primitives(mesh, positions, scene);
        let m = self.root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(name.to_string()),
            primitives,
            weights: None,
        });
        Ok(self.root.push(json::Node {
            mesh: Some(m),
            name: Some(name.to_string()),
            ..Default::default()
        }))
    }

    /// The document's bytes in `container` (after [`Builder::finish_buffer`]).
    pub(crate) fn bytes(&self, container: Container) -> Result<Vec<u8>, String> {
        match container {
            Container::Json => {
                json::serialize::to_vec_pretty(&self.root).map_err(|e| e.to_string())
            }
            Container::Binary => self.glb(),
        }
    }

    /// The world-space positions of one mesh as an accessor with their exact bounds.
    fn positions(
        &mut self,
        name: &str,
        world: &[[f32; 3]],
    ) -> Result<Index<json::Accessor>, String> {
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let mut bytes = Vec::with_capacity(world.len() * 12);
        for p in world {
            if !p.iter().all(|c| c.is_finite()) {
                return Err(format!("{name}: a vertex is not finite ({p:?})"));
            }
            for i in 0..3 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
                bytes.extend_from_slice(&p[i].to_le_bytes());
            }
        }
        let view = self.view(&bytes, json::buffer::Target::ArrayBuffer);
        Ok(self.accessor(
            view,
            world.len(),
            json::accessor::ComponentType::F32,
            json::accessor::Type::Vec3,
            Some((lo, hi)),
        ))
    }

    /// One primitive per surface id of `mesh`, in the order the ids first appear.
    fn primitives(
        &mut self,
        mesh: &Mesh,
        positions: Index<json::Accessor>,
        scene: &Scene,
    ) -> Vec<json::mesh::Primitive> {
        let mut groups: Vec<(Option<u32>, Vec<u8>)> = Vec::new();
        for t in &mesh.triangles {
            let at = match groups.iter().position(|(s, _)| *s == t.surface) {
                Some(i) => i,
                None => {
                    groups.push((t.surface, Vec::new()));
                    groups.len() - 1
                }
            };
            for v in t.v {
                groups[at].1.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut primitives = Vec::new();
        for (surface, idx) in groups {
            let view = self.view(&idx, json::buffer::Target::ElementArrayBuffer);
            let indices = self.accessor(
                view,
                idx.len() / 4,
                json::accessor::ComponentType::U32,
                json::accessor::Type::Scalar,
                None,
            );
            let material = self.material(surface, scene);
            primitives.push(json::mesh::Primitive {
                attributes: BTreeMap::from([(Valid(json::mesh::Semantic::Positions), positions)]),
                extensions: None,
                extras: Default::default(),
                indices: Some(indices),
                material: Some(material),
                mode: Valid(json::mesh::Mode::Triangles),
                targets: None,
            });
        }
        primitives
    }

    /// The one buffer, embedded as base64 in a `.gltf` or left for the GLB's binary chunk;
    /// none for a scene without triangles (a buffer must not be empty).
    pub(crate) fn finish_buffer(&mut self, container: Container) -> Result<(), String> {
        if self.bin.len() > u32::MAX as usize - 1024 {
            return Err(format!(
                "{} bytes of geometry: more than a glTF buffer can hold",
                self.bin.len()
            ));
        }
        if self.bin.is_empty() {
            return Ok(());
        }
        let uri = match container {
            Container::Json => Some(format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&self.bin)
            )),
            Container::Binary => None,
        };
        let buffer = self.root.push(json::Buffer {
            byte_length: USize64::from(self.bin.len()),
            extensions: None,
            extras: Default::default(),
            name: None,
            uri,
        });
        debug_assert_eq!(buffer, self.buffer);
        Ok(())
    }

    /// The document as a GLB: header, JSON chunk and (when there is geometry) binary chunk.
    fn glb(&self) -> Result<Vec<u8>, String> {
        let text = json::serialize::to_vec(&self.root).map_err(|e| e.to_string())?;
        let pad = |n: usize| n.div_ceil(4) * 4;
        let bin = if self.bin.is_empty() {
            0
        } else {
            8 + pad(self.bin.len())
        };
        let length = 12 + 8 + pad(text.len()) + bin;
        let glb = gltf::binary::Glb {
            header: gltf::binary::Header {
                magic: *b"glTF",
                version: 2,
                length: u32::try_from(length).map_err(|_| "the GLB passes 4 GiB")?,
            },
            json: Cow::Owned(text),
            bin: (!self.bin.is_empty()).then_some(Cow::Borrowed(&self.bin[..])),
        };
        glb.to_vec().map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::render::tests::scene;

    #[test]
    fn an_empty_scene_is_a_valid_document_without_a_buffer() {
        for c in [Container::Json, Container::Binary] {
            let e = encode(&Scene::default(), c).unwrap();
            assert_eq!(e.written, Written::default());
            let g = ::gltf::Gltf::from_slice(&e.bytes).unwrap();
            assert_eq!((g.buffers().count(), g.nodes().count()), (0, 0));
            assert!(g.default_scene().is_none());
            // A mesh with vertices and no triangles writes no node either.
            let e = encode(&scene(vec![[1.0; 3]], vec![]), c).unwrap();
            assert_eq!(e.written.objects, 0);
            assert!(::gltf::Gltf::from_slice(&e.bytes).is_ok());
        }
    }

    #[test]
    fn a_vertex_that_is_not_finite_is_an_error_naming_the_shape() {
        let s = scene(
            vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, f32::INFINITY, 0.0]],
            vec![[0, 1, 2]],
        );
        let e = encode(&s, Container::Binary).unwrap_err();
        assert!(e.starts_with("b/m: a vertex is not finite"), "{e}");
    }
}
