//! Every stored tree of a file as a [`Tree`] with the triangles (or instances) it indexes:
//! the two levels of an `hkpBvCompressedMeshShape` (docs/collision-notes.md §11.3), the
//! instance tree of an `hkpStaticCompoundShape` (§11.4) and of an `hknpCompoundShape`
//! (§12.3), the top-level and section trees of an `hknpMeshShape` (§13), and the trees of
//! an `hknpCompressedMeshShape`, read as the 2012 ones (§12.2).

use crate::graph::{Graph, ObjectId};

use super::tree::{Lane, Link, Node, Tree};
use crate::collision::access::Rec;
use crate::collision::hknp::mesh_shape::{self, TOP_ROOT};
use crate::collision::hknp::triangles;
use crate::collision::hkp::bvmesh::{self, PrimitiveKind};
use crate::collision::hkp::compound;
use crate::collision::hkp::pack::{self, Storage};
use crate::collision::math::{Aabb, Affine, Vec3};
use crate::collision::shapes::{Place, Walker};
use crate::collision::{CollisionError, Result};

/// One thing a tree indexes: its key and its box in the tree's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item {
    /// Its shape key (a triangle's, or an instance index).
    pub key: u32,
    /// Its box.
    pub aabb: Aabb,
}

/// One stored tree to check.
#[derive(Clone, Debug, PartialEq)]
pub struct Subject {
    /// The shape's class and object (`hkpBvCompressedMeshShape#3`).
    pub name: String,
    /// What the tree is over (`triangles`, `instances`).
    pub items_are: &'static str,
    /// The tree (`None` when the shape stores none hk reads).
    pub tree: Option<Tree>,
    /// What it indexes.
    pub items: Vec<Item>,
}

/// The classes with trees, most specific first.
const KINDS: &[&str] = &[
    "hkpBvCompressedMeshShape",
    "hkpStaticCompoundShape",
    "hknpCompressedMeshShape",
    "hknpCompoundShape",
    "hknpMeshShape",
];

/// Every stored tree of `graph` (MOPP codes aside), in object order.
///
/// # Errors
/// A shape that does not decode, or a tree whose nodes are linked back, twice or never.
pub fn subjects(graph: &Graph) -> Result<Vec<Subject>> {
    let graph = &*graph.with_struct_values();
    let mut out = Vec::new();
    for i in 0..graph.objects.len() {
        let id = ObjectId(i as u32);
        let Ok(r) = Rec::object(graph, id) else {
            continue;
        };
        let name = r.label();
        let s = match r.kind_among(KINDS) {
            Some("hkpBvCompressedMeshShape") => bv_mesh(&r)?,
            Some("hkpStaticCompoundShape") => static_compound(graph, &r)?,
            Some("hknpCompoundShape") => hknp_compound(graph, &r)?,
            Some("hknpMeshShape") => mesh_shape(&r)?,
            Some("hknpCompressedMeshShape") => hknp_compressed(graph, &r)?,
            _ => continue,
        };
        if let Some(t) = &s.tree {
            t.validate(&name)?;
        }
        out.push(Subject { name, ..s });
    }
    Ok(out)
}

/// Leaves of a static tree added under node `holder`: `(node, lane, index)` each.
type Leaves = Vec<(usize, usize, u32)>;

/// Adds static tree `nodes` (root box coded against `domain`) under node `holder` of `t`:
/// each internal stored node becomes a node of two lanes, each leaf a lane of keys left
/// empty for the caller (listed in the result).
fn add_static(t: &mut Tree, holder: usize, nodes: &[pack::Node], domain: &Aabb) -> Result<Leaves> {
    let mut leaves = Vec::new();
    if nodes.is_empty() {
        return Ok(leaves);
    }
    t.stored += nodes.len();
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![(0usize, *domain, holder)];
    let err = |m: String| CollisionError::shape("static tree", "nodes", m);
    while let Some((i, parent, at)) = stack.pop() {
        let n = nodes
            .get(i)
            .ok_or_else(|| err(format!("a child at node {i} of {}", nodes.len())))?;
        if std::mem::replace(&mut seen[i], true) {
            return Err(err(format!("node {i} is reached twice")));
        }
        let b = pack::child_box(&parent, n.xyz);
        let lane = t.nodes[at].lanes.len();
        if n.internal {
            let right = i
                .checked_add(2 * n.index as usize)
                .filter(|&r| r > i + 1)
                .ok_or_else(|| err(format!("node {i}: internal over no leaves")))?;
            let flat = t.nodes.len();
            t.nodes.push(Node::default());
            t.nodes[at].lanes.push(Lane {
                aabb: b,
                to: Link::Node(flat as u32),
            });
            stack.push((right, b, flat));
            stack.push((i + 1, b, flat));
        } else {
            t.nodes[at].lanes.push(Lane {
                aabb: b,
                to: Link::Keys(Vec::new()),
            });
            leaves.push((at, lane, n.index));
        }
    }
    Ok(leaves)
}

/// A tree whose root node (index 0) is an empty holder of `wide` lanes.
fn rooted(wide: bool) -> Tree {
    Tree {
        nodes: vec![Node {
            lanes: Vec::new(),
            wide,
        }],
        stored: 0,
    }
}

fn set_link(t: &mut Tree, (node, lane, _): (usize, usize, u32), to: Link) {
    t.nodes[node].lanes[lane].to = to;
}

fn tri_item(key: u32, corners: [Vec3; 3]) -> Option<Item> {
    Aabb::of(corners).map(|aabb| Item { key, aabb })
}

/// The two levels of static trees of a compressed mesh (docs/collision-notes.md §11.3):
/// `t`'s mesh tree (`Codec3Axis5`, against `domain`) over its sections, each leaf leading to
/// the section's own tree (`Codec3Axis4`, against its `domain`) over its primitives, whose
/// leaves hold `keys(section, primitive)`. A tree without nodes at either level reaches
/// everything below it.
fn two_level(
    t: &Rec<'_>,
    domain: &Aabb,
    counts: &[usize],
    keys: &dyn Fn(usize, usize) -> Vec<u32>,
) -> Result<Tree> {
    let secs = t.recs("sections")?;
    let mut tree = rooted(false);
    let mesh_nodes = bvmesh::nodes(t, Storage::Axis5)?;
    let mesh_leaves = add_static(&mut tree, 0, &mesh_nodes, domain)?;
    let mut links = Vec::with_capacity(secs.len());
    for (si, s) in secs.iter().enumerate() {
        let n = counts.get(si).copied().unwrap_or(0);
        let own = bvmesh::nodes(s, Storage::Axis4)?;
        if own.is_empty() {
            links.push(Link::Keys((0..n).flat_map(|p| keys(si, p)).collect()));
            continue;
        }
        let holder = tree.nodes.len();
        tree.nodes.push(Node::default());
        for leaf in add_static(&mut tree, holder, &own, &bvmesh::aabb(s, "domain")?)? {
            if leaf.2 as usize >= n {
                return Err(s.err("nodes", format!("a leaf names primitive {} of {n}", leaf.2)));
            }
            set_link(&mut tree, leaf, Link::Keys(keys(si, leaf.2 as usize)));
        }
        links.push(Link::Node(holder as u32));
    }
    if mesh_nodes.is_empty() {
        for l in links {
            tree.nodes[0].lanes.push(Lane {
                aabb: EVERYWHERE,
                to: l,
            });
        }
        return Ok(tree);
    }
    for leaf in mesh_leaves {
        let l = links.get(leaf.2 as usize).cloned().ok_or_else(|| {
            t.err(
                "nodes",
                format!("a leaf names section {} of {}", leaf.2, secs.len()),
            )
        })?;
        set_link(&mut tree, leaf, l);
    }
    Ok(tree)
}

/// An `hkpBvCompressedMeshShape`: keys `section << 8 | primitive << 1 | triangle`.
fn bv_mesh(r: &Rec<'_>) -> Result<Subject> {
    let d = bvmesh::decode_rec(r)?;
    let mut items = Vec::new();
    let mut kinds: Vec<Vec<PrimitiveKind>> = vec![Vec::new(); d.sections.len()];
    for p in &d.primitives {
        kinds[p.section].push(p.kind);
        let (c, k) = (&p.corners, |t| bvmesh::key(p.section, p.local, t));
        match p.kind {
            PrimitiveKind::Triangle => items.extend(tri_item(k(0), [c[0], c[1], c[2]])),
            PrimitiveKind::Quad => {
                items.extend(tri_item(k(0), [c[0], c[1], c[2]]));
                items.extend(tri_item(k(1), [c[0], c[2], c[3]]));
            }
            _ => {}
        }
    }
    let counts: Vec<usize> = d.sections.iter().map(|s| s.primitives.1).collect();
    let keys = |s: usize, p: usize| -> Vec<u32> {
        let n = kinds[s].get(p).map_or(0, |k| k.triangles());
        (0..n).map(|t| bvmesh::key(s, p, t)).collect()
    };
    let tree = two_level(&r.rec("tree")?, &d.domain, &counts, &keys)?;
    Ok(Subject {
        name: String::new(),
        items_are: "triangles",
        tree: Some(tree),
        items,
    })
}

/// An `hknpCompressedMeshShape`: the trees of its `data`'s `meshTree`, keys
/// `section << 8 | primitive` (docs/collision-notes.md §12.2); no tree when neither level
/// stores nodes.
fn hknp_compressed(graph: &Graph, r: &Rec<'_>) -> Result<Subject> {
    let items = own_items(graph, r.id())?;
    let data = r
        .ptr("data")?
        .ok_or_else(|| r.err("data", "a compressed mesh without data"))?;
    let t = Rec::object(r.graph(), data)?.rec("meshTree")?;
    let mut counts = Vec::new();
    let mut stored = t.recs("nodes")?.len();
    for s in t.recs("sections")? {
        counts.push((s.rec("primitives")?.int("data")? & 0xFF) as usize);
        stored += s.recs("nodes")?.len();
    }
    let keys = |s: usize, p: usize| vec![(s as u32) << 8 | p as u32];
    let tree = if stored == 0 {
        None
    } else {
        Some(two_level(&t, &bvmesh::aabb(&t, "domain")?, &counts, &keys)?)
    };
    Ok(Subject {
        name: String::new(),
        items_are: "triangles",
        tree,
        items,
    })
}

/// A box every query overlaps.
const EVERYWHERE: Aabb = Aabb {
    min: [f32::MIN; 3],
    max: [f32::MAX; 3],
};

/// The triangles of shape `id` in its own space, keyed as the walk keys them.
fn own_items(graph: &Graph, id: ObjectId) -> Result<Vec<Item>> {
    let mut w = Walker::new(graph);
    let mut meshes = Vec::new();
    w.walk(id, Place::BODY, 1, &mut meshes)?;
    Ok(meshes
        .iter()
        .flat_map(|m| {
            m.triangles
                .iter()
                .filter_map(|t| tri_item(t.key, t.v.map(|v| m.vertices[v as usize])))
        })
        .collect())
}

/// The box of the triangles of shape `id` placed by `place` (its child walk).
fn placed_box(graph: &Graph, id: ObjectId, place: Affine) -> Result<Option<Aabb>> {
    let mut w = Walker::new(graph);
    let mut meshes = Vec::new();
    let at = Place {
        to_body: place,
        code: None,
        to_code: place,
    };
    w.walk(id, at, 1, &mut meshes)?;
    let pts = meshes.iter().flat_map(|m| {
        m.triangles
            .iter()
            .flat_map(|t| t.v)
            .map(|v| m.to_body.apply(m.vertices[v as usize]))
    });
    Ok(Aabb::of(pts))
}

/// An `hkpStaticCompoundShape`: its tree over instances, keyed by instance index.
fn static_compound(graph: &Graph, r: &Rec<'_>) -> Result<Subject> {
    let c = compound::decode_rec(r)?;
    let t = r.rec("tree")?;
    let nodes = bvmesh::nodes(&t, Storage::Axis6)?;
    let mut tree = rooted(false);
    for leaf in add_static(&mut tree, 0, &nodes, &c.domain)? {
        set_link(&mut tree, leaf, Link::Keys(vec![leaf.2]));
    }
    let mut items = Vec::new();
    for (i, inst) in c.instances.iter().enumerate() {
        let Some(s) = inst.shape else { continue };
        if let Some(aabb) = placed_box(graph, s, inst.transform)? {
            items.push(Item {
                key: i as u32,
                aabb,
            });
        }
    }
    Ok(Subject {
        name: String::new(),
        items_are: "instances",
        tree: (!nodes.is_empty()).then_some(tree),
        items,
    })
}

/// An `hknpCompoundShape`: its `hkcdDynamicTree` (float boxes; links in the w lanes,
/// docs/collision-notes.md §12.3), keyed by instance index.
fn hknp_compound(graph: &Graph, r: &Rec<'_>) -> Result<Subject> {
    let instances = triangles::compound(r)?;
    let bt = r.rec("boundingVolumeData")?.rec("aabbTree")?;
    let stored = bt.recs("nodes")?;
    let root = bt.int("root")? as usize;
    let mut items = Vec::new();
    for inst in &instances {
        if let Some(aabb) = placed_box(graph, inst.shape, inst.to_parent)? {
            items.push(Item {
                key: inst.index as u32,
                aabb,
            });
        }
    }
    let mut subject = Subject {
        name: String::new(),
        items_are: "instances",
        tree: None,
        items,
    };
    if stored.is_empty() || root == 0 {
        return Ok(subject);
    }
    let node = |k: usize| -> Result<(Aabb, u32, u32)> {
        let n = stored
            .get(k)
            .filter(|_| k != 0)
            .ok_or_else(|| bt.err("nodes", format!("a link to node {k} of {}", stored.len())))?;
        let b = n.rec("aabb")?;
        let (lo, hi) = (b.floats("min", 4)?, b.floats("max", 4)?);
        let w = hi[3].to_bits();
        let aabb = Aabb {
            min: [lo[0], lo[1], lo[2]],
            max: [hi[0], hi[1], hi[2]],
        };
        Ok((aabb, w & 0xFFFF, w >> 16))
    };
    let mut tree = rooted(false);
    tree.stored = stored.len() - 1;
    // (stored node, holder); the compound reader has checked every node is reached once.
    let mut stack = vec![(root, 0usize)];
    while let Some((k, at)) = stack.pop() {
        let (aabb, a, b) = node(k)?;
        if b == 0 {
            tree.nodes[at].lanes.push(Lane {
                aabb,
                to: Link::Keys(vec![a]),
            });
            continue;
        }
        let flat = tree.nodes.len();
        tree.nodes.push(Node::default());
        tree.nodes[at].lanes.push(Lane {
            aabb,
            to: Link::Node(flat as u32),
        });
        stack.push((b as usize, flat));
        stack.push((a as usize, flat));
    }
    subject.tree = Some(tree);
    Ok(subject)
}

/// An `hknpMeshShape`: the top-level tree over sections, each leaf lane leading to the
/// section's 4-wide tree over its primitives (docs/collision-notes.md §13).
fn mesh_shape(r: &Rec<'_>) -> Result<Subject> {
    let d = mesh_shape::decode(r.graph(), r.id())?;
    d.check(&r.label())?;
    let mut tree = rooted(true);
    let mut items = Vec::new();
    // Top-level leaves: (node, lane, section).
    let mut top_leaves = Vec::new();
    if d.top.len() > TOP_ROOT {
        tree.stored += d.top.len() - TOP_ROOT;
        let mut stack = vec![(TOP_ROOT, 0usize)];
        tree.nodes[0].lanes.push(Lane {
            aabb: EVERYWHERE,
            to: Link::Node(1),
        });
        tree.nodes.push(Node {
            lanes: Vec::new(),
            wide: true,
        });
        stack[0].1 = 1;
        while let Some((n, at)) = stack.pop() {
            let node = &d.top[n];
            for k in (0..4).filter(|&k| node.valid(k)) {
                let lane = tree.nodes[at].lanes.len();
                let mut to = Link::Keys(Vec::new());
                if node.leaf {
                    top_leaves.push((at, lane, node.data[k]));
                } else {
                    to = Link::Node(tree.nodes.len() as u32);
                    tree.nodes.push(Node {
                        lanes: Vec::new(),
                        wide: true,
                    });
                    stack.push((node.data[k] as usize, tree.nodes.len() - 1));
                }
                tree.nodes[at].lanes.push(Lane {
                    aabb: node.lane(k),
                    to,
                });
            }
        }
        // The root's holder lane is not a stored node.
        tree.nodes[0].wide = true;
    }
    let mut section_links = Vec::with_capacity(d.sections.len());
    for (si, s) in d.sections.iter().enumerate() {
        let keys = |p: usize| -> Vec<u32> {
            let q = s.primitives[p];
            let n = if q[2] == q[3] { 1 } else { 2 };
            (0..n).map(|sub| d.key(si, p, sub)).collect()
        };
        for (pi, q) in s.primitives.iter().enumerate() {
            let c = q.map(|v| d.vertex(s, s.vertices[usize::from(v)]));
            let k = keys(pi);
            items.extend(tri_item(k[0], [c[0], c[1], c[2]]));
            if let Some(&k1) = k.get(1) {
                items.extend(tri_item(k1, [c[0], c[2], c[3]]));
            }
        }
        if s.bvh.is_empty() {
            section_links.push(Link::Keys(Vec::new()));
            continue;
        }
        tree.stored += s.bvh.len();
        let base = tree.nodes.len();
        // The checker has walked the tree: every child after its parent, each node once.
        for n in &s.bvh {
            let mut node = Node {
                lanes: Vec::new(),
                wide: true,
            };
            for k in (0..4).filter(|&k| n.valid(k)) {
                let d8 = usize::from(n.data[k]);
                let to = if n.is_leaf() {
                    Link::Keys(keys(d8))
                } else {
                    Link::Node((base + d8) as u32)
                };
                node.lanes.push(Lane {
                    aabb: s.lane(n, k),
                    to,
                });
            }
            tree.nodes.push(node);
        }
        section_links.push(Link::Node(base as u32));
    }
    if top_leaves.is_empty() {
        for l in section_links {
            tree.nodes[0].lanes.push(Lane {
                aabb: EVERYWHERE,
                to: l,
            });
        }
    } else {
        for leaf in top_leaves {
            let l = section_links
                .get(leaf.2 as usize)
                .cloned()
                .unwrap_or(Link::Keys(vec![]));
            set_link(&mut tree, leaf, l);
        }
    }
    Ok(Subject {
        name: String::new(),
        items_are: "triangles",
        tree: Some(tree),
        items,
    })
}
