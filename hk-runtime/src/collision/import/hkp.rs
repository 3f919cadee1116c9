//! Extended and storage mesh subparts under a MOPP (Havok 5.5 to 2015,
//! docs/collision-notes.md §9): each matched subpart's storage gets the new vertices,
//! indices and material indices in the widths and strides the subpart states; then the
//! shape's box and kept-triangle count, and every MOPP code above a rewritten subpart, are
//! rebuilt from the file as it now reads (docs/mopp.md §4 and §6).

use std::collections::{BTreeMap, BTreeSet};

use crate::collision::access::{ints, objects, Rec};
use crate::collision::hkp::mesh::{index_array, subpart_transform, width_of};
use crate::collision::import::{err, IntoReport, Job};
use crate::collision::math::{Aabb, Vec3};
use crate::collision::mopp::{self, degenerate};
use crate::collision::{self, ShapeKind};
use crate::graph::{Graph, ObjectId, Ptr, Value};
use crate::schema::Shape;
use crate::Result;

/// Rewrites the extended-mesh jobs of `jobs` in `graph`, then the boxes and MOPP codes
/// above them.
pub(super) fn apply(graph: &mut Graph, jobs: &[Job<'_>], report: &mut IntoReport) -> Result<()> {
    let before = graph.with_struct_values().into_owned();
    let mut shapes: BTreeSet<ObjectId> = BTreeSet::new();
    let mut codes: BTreeSet<ObjectId> = BTreeSet::new();
    let old = collision::read(&before)?;
    for j in jobs
        .iter()
        .filter(|j| j.mesh.kind == ShapeKind::ExtendedMesh)
    {
        let sub = subpart_of(&j.mesh.name).ok_or_else(|| err(&j.name, "no subpart number"))?;
        let plan = plan(&before, j, sub)?;
        write(graph, &plan)?;
        shapes.insert(j.mesh.object);
        if let Some(c) = j.mesh.code {
            codes.insert(old.codes[c].object);
        }
        report
            .replaced
            .push(j.replaced(|p| j.mesh.to_code.apply(p)));
    }
    for s in shapes {
        shape_totals(graph, s)?;
    }
    let now = collision::read(graph)?;
    for c in codes {
        rebuild_code(graph, &now, c)?;
        report.codes += 1;
    }
    Ok(())
}

/// The subpart number of an extended mesh's name (`Class#id/N`).
fn subpart_of(name: &str) -> Option<usize> {
    name.rsplit('/').next()?.parse().ok()
}

/// A subpart's material index array, its values, and the records to append (their
/// filter words).
type Materials = (&'static str, Vec<i64>, Vec<u32>);

/// Everything one subpart's rewrite writes.
struct Plan {
    shape: ObjectId,
    storage: ObjectId,
    sub: usize,
    vertices: Vec<Vec3>,
    /// The index array and its values.
    index_name: &'static str,
    indices: Vec<i64>,
    materials: Option<Materials>,
    /// The game's per-vertex data to resize: object, member, new values.
    vertex_data: Option<(ObjectId, Vec<i64>)>,
    triangles: usize,
    clear_welding: bool,
}

/// Reads what subpart `sub` of `j`'s shape stores and plans its rewrite.
fn plan(g: &Graph, j: &Job<'_>, sub: usize) -> Result<Plan> {
    let shape = Rec::object(g, j.mesh.object)?;
    let sp = shape
        .recs("trianglesSubparts")?
        .into_iter()
        .nth(sub)
        .ok_or_else(|| err(&j.name, format!("the shape has no subpart {sub}")))?;
    let storage = objects(shape.array("meshstorage")?)
        .get(sub)
        .copied()
        .flatten()
        .ok_or_else(|| err(&j.name, "the subpart has no storage object"))?;
    let st = Rec::object(g, storage)?;
    let width = index_width(&sp, &st);
    let stride = usize::try_from(sp.int("indexStriding")?).unwrap_or(0) / width;
    if stride < 3 {
        return Err(sp
            .err("indexStriding", "less than three indices a triangle")
            .into());
    }
    let n = j.vertices.len();
    let most = 1usize << (8 * width.min(4)).min(32);
    if n > most {
        return Err(err(
            &j.name,
            format!("{n} vertices: the subpart's {}-bit indices address at most {most}; split the object", 8 * width),
        )
        .into());
    }
    let bits = shape.int("numBitsForSubpartIndex")?;
    let max_tris = 1u64 << (32 - bits.clamp(1, 31));
    let tris = &j.input.triangles;
    if tris.len() as u64 > max_tris {
        return Err(err(
            &j.name,
            format!(
                "{} triangles: a subpart's shape keys hold at most {max_tris}",
                tris.len()
            ),
        )
        .into());
    }
    let flip = sp.int("flipAlternateTriangles").unwrap_or(0) != 0;
    let mut indices = Vec::with_capacity(tris.len() * stride);
    for (k, t) in tris.iter().enumerate() {
        let mut v = t.v;
        if flip && k % 2 == 1 {
            v.swap(1, 2);
        }
        indices.extend(v.iter().map(|&i| i64::from(i)));
        indices.extend(std::iter::repeat_n(0, stride - 3));
    }
    let total: i64 = shape
        .recs("trianglesSubparts")?
        .iter()
        .map(|s| s.int("numTriangleShapes").unwrap_or(0))
        .sum();
    let welding = shape
        .opt("weldingInfo")
        .and_then(Value::as_array)
        .map_or(0, |a| a.len());
    Ok(Plan {
        shape: j.mesh.object,
        storage,
        sub,
        vertices: j.vertices.clone(),
        index_name: index_array(width),
        indices,
        materials: materials(&shape, &sp, &st, j, sub)?,
        vertex_data: vertex_data(&shape, sub, n)?,
        triangles: tris.len(),
        clear_welding: welding > 0 && welding as i64 == total,
    })
}

/// The index width of a subpart: the one its `stridingType` item names, else that of the
/// storage's one filled index array (docs/collision-notes.md §9.1).
fn index_width(sp: &Rec<'_>, st: &Rec<'_>) -> usize {
    if let Some(w) = sp.enum_item("stridingType").and_then(width_of) {
        return w;
    }
    [1, 2, 4]
        .into_iter()
        .find(|&w| {
            st.opt(index_array(w))
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
        })
        .unwrap_or(2)
}

/// The per-triangle material indices: into the storage's material records when it has
/// them (a surface id without a record gets a copy of the first with the id in its filter
/// word), else every triangle must carry the subpart's own surface id (the game's
/// per-subpart material, §9.3), or none when the subpart has none.
fn materials(
    shape: &Rec<'_>,
    sp: &Rec<'_>,
    st: &Rec<'_>,
    j: &Job<'_>,
    sub: usize,
) -> Result<Option<Materials>> {
    let words: Vec<u32> = match st.opt("materials").and_then(Value::as_array) {
        Some(a) if !a.is_empty() => st
            .recs("materials")?
            .iter()
            .map(|m| m.int("filterInfo").map(|w| w as u32))
            .collect::<collision::Result<_>>()?,
        _ => Vec::new(),
    };
    if !words.is_empty() {
        let name = match sp.enum_item("materialIndexStridingType").and_then(width_of) {
            Some(1) => "materialIndices",
            Some(_) => "materialIndices16",
            None if st
                .opt("materialIndices")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty()) =>
            {
                "materialIndices"
            }
            None => "materialIndices16",
        };
        let width = if name == "materialIndices" { 1 } else { 2 };
        let stride = sp
            .int("materialIndexStriding")
            .ok()
            .and_then(|s| usize::try_from(s).ok())
            .map_or(1, |s| (s / width).max(1));
        let mut added: Vec<u32> = Vec::new();
        let mut out = Vec::with_capacity(j.input.triangles.len() * stride);
        for t in &j.input.triangles {
            let Some(id) = t.surface.id else {
                return Err(err(&j.name, format!("face {}: surface_none, but every triangle of this subpart has a material record", t.face)).into());
            };
            if id > 0x3F {
                return Err(err(
                    &j.name,
                    format!(
                        "face {}: surface_{id}: a material record's filter word holds ids 0 to 63",
                        t.face
                    ),
                )
                .into());
            }
            let k = match words
                .iter()
                .chain(&added)
                .position(|&w| (w >> 3) & 0x3F == id)
            {
                Some(k) => k,
                None => {
                    added.push((words[0] & !(0x3F << 3)) | (id << 3));
                    words.len() + added.len() - 1
                }
            };
            if k >= 1 << (8 * width) {
                return Err(err(
                    &j.name,
                    format!(
                        "face {}: more material records than {}-bit indices address",
                        t.face,
                        8 * width
                    ),
                )
                .into());
            }
            out.push(k as i64);
            out.extend(std::iter::repeat_n(0, stride - 1));
        }
        return Ok(Some((name, out, added)));
    }
    let own = match shape.opt("materialArray") {
        Some(_) => match objects(shape.array("materialArray")?)
            .get(sub)
            .copied()
            .flatten()
        {
            Some(p) => Rec::object(shape.graph(), p)?
                .int("materialNameData")
                .ok()
                .map(|v| v as u32),
            None => None,
        },
        None => None,
    };
    if let Some(t) = j
        .input
        .triangles
        .iter()
        .find(|t| t.surface.id.is_some() && t.surface.id != own)
    {
        let id = t.surface.id.unwrap_or_default();
        let holds = match own {
            Some(o) => format!("one surface id for the whole subpart (surface_{o})"),
            None => "no surface ids for this subpart".to_string(),
        };
        return Err(err(
            &j.name,
            format!("face {}: surface_{id}: the file stores {holds}", t.face),
        )
        .into());
    }
    Ok(None)
}

/// The game's per-vertex bytes of subpart `sub` (`materialArray[sub].vertexDataBuffer`,
/// `vertexDataStride` a vertex), resized to `n` vertices: the stored ones kept, new ones
/// given the value most vertices hold.
fn vertex_data(shape: &Rec<'_>, sub: usize, n: usize) -> Result<Option<(ObjectId, Vec<i64>)>> {
    if shape.opt("materialArray").is_none() {
        return Ok(None);
    }
    let Some(p) = objects(shape.array("materialArray")?)
        .get(sub)
        .copied()
        .flatten()
    else {
        return Ok(None);
    };
    let r = Rec::object(shape.graph(), p)?;
    let (Some(buf), Ok(stride)) = (
        r.opt("vertexDataBuffer").and_then(Value::as_array),
        r.int("vertexDataStride"),
    ) else {
        return Ok(None);
    };
    let stride = usize::try_from(stride).unwrap_or(0);
    let old = ints(buf).unwrap_or_default();
    if stride == 0 || old.len() == n * stride {
        return Ok(None);
    }
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    old.iter().for_each(|&b| *counts.entry(b).or_default() += 1);
    let common = counts.iter().max_by_key(|(_, &c)| c).map_or(0, |(&b, _)| b);
    let mut v: Vec<i64> = old.iter().map(|&b| i64::from(b)).collect();
    v.resize(n * stride, i64::from(common));
    Ok(Some((p, v)))
}

/// Writes `p` into `g`.
fn write(g: &mut Graph, p: &Plan) -> Result<()> {
    let verts = p
        .vertices
        .iter()
        .map(|v| Value::floats(&[v[0], v[1], v[2], 0.0]));
    g.set(p.storage, "vertices", Value::list(verts.collect()))?;
    set_ints(g, p.storage, p.index_name, &p.indices)?;
    let sp = format!("trianglesSubparts[{}]", p.sub);
    num(
        g,
        p.shape,
        &format!("{sp}.numTriangleShapes"),
        p.triangles as i64,
    )?;
    num(
        g,
        p.shape,
        &format!("{sp}.numVertices"),
        p.vertices.len() as i64,
    )?;
    if let Some((name, idx, added)) = &p.materials {
        set_ints(g, p.storage, name, idx)?;
        if !added.is_empty() {
            let a = g.get(p.storage, "materials")?;
            let mut records = a.as_array().map(|a| a.to_values()).unwrap_or_default();
            let first = records.first().cloned();
            for _ in added {
                records.extend(first.clone());
            }
            let had = records.len() - added.len();
            g.set(p.storage, "materials", Value::list(records))?;
            for (k, w) in added.iter().enumerate() {
                num(
                    g,
                    p.storage,
                    &format!("materials[{}].filterInfo", had + k),
                    i64::from(*w),
                )?;
            }
            num(
                g,
                p.shape,
                &format!("{sp}.numMaterials"),
                (had + added.len()) as i64,
            )?;
        }
    }
    if let Some((obj, bytes)) = &p.vertex_data {
        set_ints(g, *obj, "vertexDataBuffer", bytes)?;
    }
    if p.clear_welding {
        g.set(p.shape, "weldingInfo", Value::list(Vec::new()))?;
    }
    Ok(())
}

/// The shape's box over every subpart's vertices (in the shape's space), its count of
/// triangles the degenerate rule keeps, and its embedded copy of subpart 0.
fn shape_totals(g: &mut Graph, id: ObjectId) -> Result<()> {
    let view = g.with_struct_values().into_owned();
    let shape = Rec::object(&view, id)?;
    let subs = shape.recs("trianglesSubparts")?;
    let meshes = collision::hkp::mesh::extended(&shape)?;
    let mut aabb: Option<Aabb> = None;
    let mut kept = 0i64;
    for (sp, m) in subs.iter().zip(&meshes) {
        let tf = subpart_transform(sp)?;
        let p: Vec<Vec3> = m.vertices.iter().map(|&v| tf.apply(v)).collect();
        for &v in &p {
            match &mut aabb {
                Some(b) => b.add(v),
                None => aabb = Aabb::of([v]),
            }
        }
        kept += m
            .triangles
            .iter()
            .filter(|t| {
                let [a, b, c] = t.v.map(|k| p[k as usize]);
                !degenerate(a, b, c)
            })
            .count() as i64;
    }
    if let Some(b) = aabb {
        let c = [0, 1, 2].map(|i| (b.min[i] + b.max[i]) / 2.0);
        let h = [0, 1, 2].map(|i| (b.max[i] - b.min[i]) / 2.0);
        g.set(id, "aabbCenter", Value::floats(&[c[0], c[1], c[2], 0.0]))?;
        g.set(
            id,
            "aabbHalfExtents",
            Value::floats(&[h[0], h[1], h[2], 0.0]),
        )?;
    }
    if shape.opt("cachedNumChildShapes").is_some() {
        num(g, id, "cachedNumChildShapes", kept)?;
    }
    if shape.opt("embeddedTrianglesSubpart").is_some() {
        let e = shape.rec("embeddedTrianglesSubpart")?;
        for name in ["numTriangleShapes", "numVertices", "numMaterials"] {
            // Only a copy of subpart 0 (a stored embedded subpart of its own is kept).
            if e.opt(name).is_some() {
                let now = g.get(id, &format!("trianglesSubparts[0].{name}"))?;
                g.set(id, &format!("embeddedTrianglesSubpart.{name}"), now)?;
            }
        }
    }
    Ok(())
}

/// Rebuilds `hkpMoppCode` object `code` over the triangles of `scene` under it, and the
/// copies of its `info` the trees above it hold (`codeInfoCopy`, when it equals the old
/// one).
fn rebuild_code(g: &mut Graph, scene: &collision::Scene, code: ObjectId) -> Result<()> {
    let Some(ci) = scene.codes.iter().position(|c| c.object == code) else {
        return Ok(());
    };
    let old = &scene.codes[ci];
    let mut tris = Vec::new();
    for (_, m) in scene.meshes().filter(|(_, m)| m.code == Some(ci)) {
        let p: Vec<Vec3> = m.vertices.iter().map(|&v| m.to_code.apply(v)).collect();
        tris.extend(
            m.triangles
                .iter()
                .map(|t| (t.key, t.v.map(|k| p[k as usize]))),
        );
    }
    let built = mopp::build::build(&tris).ok_or_else(|| {
        err(
            &format!("#{} hkpMoppCode", code.0),
            "every triangle under this MOPP code is degenerate: a code needs one usable triangle",
        )
    })?;
    let o = built.offset;
    let info = [o[0], o[1], o[2], built.scale];
    g.set(code, "info.offset", Value::floats(&info))?;
    let bytes: Vec<i64> = built.bytes.iter().map(|&b| i64::from(b)).collect();
    set_ints(g, code, "data", &bytes)?;
    let old_info = [old.offset[0], old.offset[1], old.offset[2], old.scale];
    let trees: Vec<ObjectId> = (0..g.objects.len() as u32)
        .map(ObjectId)
        .filter(
            |&t| matches!(g.get(t, "code"), Ok(Value::Pointer(Some(Ptr::Object(o)))) if o == code),
        )
        .collect();
    for t in trees {
        let copy = g.get(t, "codeInfoCopy").ok();
        if copy.as_ref().and_then(Value::as_floats) == Some(&old_info[..]) {
            g.set(t, "codeInfoCopy", Value::floats(&info))?;
        }
    }
    Ok(())
}

/// Sets the integer array at `path` to `v`, each element signed or not as the member's
/// elements are.
fn set_ints(g: &mut Graph, id: ObjectId, path: &str, v: &[i64]) -> Result<()> {
    let (_, shape) = g.resolve(g.object(id).class, path)?;
    let signed =
        matches!(shape, Shape::Array(_, ref e) if matches!(**e, Shape::Int { signed: true, .. }));
    let values = v
        .iter()
        .map(|&x| {
            if signed {
                Value::Int(x)
            } else {
                Value::UInt(x as u64)
            }
        })
        .collect();
    g.set(id, path, Value::list(values))
}

/// Sets the integer member at `path`, signed or not as it is.
fn num(g: &mut Graph, id: ObjectId, path: &str, v: i64) -> Result<()> {
    let (_, shape) = g.resolve(g.object(id).class, path)?;
    let value = if matches!(shape, Shape::Int { signed: true, .. }) {
        Value::Int(v)
    } else {
        Value::UInt(v as u64)
    };
    g.set(id, path, value)
}
