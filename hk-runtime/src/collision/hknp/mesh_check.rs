//! The checks an `hknpMeshShape` passes before hk turns it into triangles
//! (docs/collision-notes.md §13): shape keys that fit, vertex indices inside their section,
//! an ascending shape-tag table, both trees walked once each (every child index past its
//! parent, so a hostile tree cannot loop), every primitive inside its leaf box and every
//! section inside its top-level leaf box, and a primitive mapping that counts what is there.

use crate::collision::hknp::mesh_shape::{bit_width, MeshShapeData, Section, TOP_ROOT};
use crate::collision::math::{Aabb, Vec3};
use crate::collision::{CollisionError, Result};

/// Slack for a point against a decoded box: a few float roundings at its magnitude.
fn inside(b: &Aabb, p: Vec3) -> bool {
    let m = p.iter().fold(1.0f32, |m, x| m.max(x.abs()));
    b.contains(p, 1e-6 * m)
}

impl MeshShapeData {
    /// Checks the model (see the module text). `object` names the shape in errors.
    ///
    /// # Errors
    /// The first inconsistency, naming the member path (`geometrySections[1].primitives[4].cId`).
    pub fn check(&self, object: &str) -> Result<()> {
        let err = |member: String, msg: String| {
            CollisionError::shape(object, format!("hknpMeshShape.{member}"), msg)
        };
        for a in 0..3 {
            let inv = self.bit_scale16_inv[a];
            if !(inv.is_finite() && inv > 0.0) {
                return Err(err(
                    "vertexConversionUtil.bitScale16Inv".into(),
                    format!("lane {a} is {inv}, not a positive step"),
                ));
            }
        }
        let most = self.sections.iter().map(|s| s.primitives.len()).max();
        let need = 1 + bit_width(most.unwrap_or(1).saturating_sub(1));
        let shift = self.section_shift();
        if self.num_shape_key_bits > 32 || shift < need {
            return Err(err(
                "numShapeKeyBits".into(),
                format!(
                    "{} bits leave {shift} for a primitive and its triangle; {} sections of up to {} primitives need {need}",
                    self.num_shape_key_bits,
                    self.sections.len(),
                    most.unwrap_or(0)
                ),
            ));
        }
        if let Some(i) = self.tag_table.windows(2).position(|w| w[0].0 >= w[1].0) {
            return Err(err(
                format!("shapeTagTable[{}].meshPrimitiveKey", i + 1),
                "keys are not strictly ascending".into(),
            ));
        }
        for (si, s) in self.sections.iter().enumerate() {
            self.check_section(si, s, &err)?;
        }
        self.check_top(&err)?;
        self.check_mapping(&err)
    }

    fn check_section(
        &self,
        si: usize,
        s: &Section,
        err: &dyn Fn(String, String) -> Box<CollisionError>,
    ) -> Result<()> {
        let at = |m: &str| format!("geometrySections[{si}].{m}");
        let (np, nv) = (s.primitives.len(), s.vertices.len());
        for (pi, p) in s.primitives.iter().enumerate() {
            for (k, name) in ["aId", "bId", "cId", "dId"].iter().enumerate() {
                if usize::from(p[k]) >= nv {
                    return Err(err(
                        at(&format!("primitives[{pi}].{name}")),
                        format!("vertex {} of a section with {nv} vertices", p[k]),
                    ));
                }
            }
        }
        for a in 0..3 {
            let v = s.bit_scale8_inv[a];
            if !(v.is_finite() && v > 0.0) {
                return Err(err(
                    at("bitScale8Inv"),
                    format!("lane {a} is {v}, not a positive step"),
                ));
            }
        }
        if np == 0 {
            return Ok(());
        }
        if s.bvh.is_empty() {
            return Err(err(
                at("sectionBvh"),
                format!("no tree over {np} primitives"),
            ));
        }
        let mut seen = vec![false; s.bvh.len()];
        let mut reached = vec![false; np];
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n], true) {
                return Err(err(
                    at(&format!("sectionBvh[{n}]")),
                    "node reached twice".into(),
                ));
            }
            let node = &s.bvh[n];
            for k in (0..4).filter(|&k| node.valid(k)) {
                let d = usize::from(node.data[k]);
                let member = at(&format!("sectionBvh[{n}].data[{k}]"));
                if node.is_leaf() {
                    let Some(p) = s.primitives.get(d) else {
                        return Err(err(member, format!("primitive {d} of {np}")));
                    };
                    if std::mem::replace(&mut reached[d], true) {
                        return Err(err(member, format!("primitive {d} is in two leaves")));
                    }
                    let lane = s.lane(node, k);
                    for &v in p {
                        let q = self.vertex(s, s.vertices[usize::from(v)]);
                        if !inside(&lane, q) {
                            return Err(err(
                                member,
                                format!(
                                    "primitive {d} vertex {v} at {q:?} lies outside its leaf box {lane:?}"
                                ),
                            ));
                        }
                    }
                } else if d <= n || d >= s.bvh.len() {
                    return Err(err(
                        member,
                        format!(
                            "child node {d}: not after node {n} in a tree of {}",
                            s.bvh.len()
                        ),
                    ));
                } else {
                    stack.push(d);
                }
            }
        }
        if let Some(p) = reached.iter().position(|r| !r) {
            return Err(err(
                at(&format!("primitives[{p}]")),
                "in no leaf of the section tree".into(),
            ));
        }
        Ok(())
    }

    fn check_top(&self, err: &dyn Fn(String, String) -> Box<CollisionError>) -> Result<()> {
        if self.top.len() <= TOP_ROOT {
            return Ok(());
        }
        let ns = self.sections.len();
        let mut seen = vec![false; self.top.len()];
        let mut reached = vec![false; ns];
        let mut stack = vec![TOP_ROOT];
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n], true) {
                return Err(err(
                    format!("topLevelTree.nodes[{n}]"),
                    "node reached twice".into(),
                ));
            }
            let node = &self.top[n];
            for k in (0..4).filter(|&k| node.valid(k)) {
                let d = node.data[k] as usize;
                let member = format!("topLevelTree.nodes[{n}].data[{k}]");
                if node.leaf {
                    let Some(s) = self.sections.get(d) else {
                        return Err(err(member, format!("section {d} of {ns}")));
                    };
                    reached[d] = true;
                    let lane = node.lane(k);
                    for &v in &s.vertices {
                        let q = self.vertex(s, v);
                        if !inside(&lane, q) {
                            return Err(err(
                                member,
                                format!(
                                    "section {d} has a vertex at {q:?} outside the box {lane:?}"
                                ),
                            ));
                        }
                    }
                } else if d <= n || d >= self.top.len() {
                    return Err(err(
                        member,
                        format!(
                            "child node {d}: not after node {n} in a tree of {}",
                            self.top.len()
                        ),
                    ));
                } else {
                    stack.push(d);
                }
            }
        }
        if let Some(s) = reached.iter().position(|r| !r) {
            return Err(err(
                format!("geometrySections[{s}]"),
                "in no leaf of the top-level tree".into(),
            ));
        }
        Ok(())
    }

    fn check_mapping(&self, err: &dyn Fn(String, String) -> Box<CollisionError>) -> Result<()> {
        let Some(m) = &self.mapping else {
            return Ok(());
        };
        let at = |x: &str| format!("primitiveMapping.{x}");
        if m.section_start.len() != self.sections.len() {
            return Err(err(
                at("sectionStart"),
                format!(
                    "{} entries for {} sections",
                    m.section_start.len(),
                    self.sections.len()
                ),
            ));
        }
        let mut total = 0u64;
        for (i, (&start, s)) in m.section_start.iter().zip(&self.sections).enumerate() {
            if u64::from(start) != total {
                return Err(err(
                    at(&format!("sectionStart[{i}]")),
                    format!("{start}, but the sections before it hold {total} primitives"),
                ));
            }
            total += s.primitives.len() as u64;
        }
        if total == 0 {
            return Ok(());
        }
        if !(1..=32).contains(&m.bits_per_entry) {
            return Err(err(
                at("bitsPerEntry"),
                format!("{} bits an entry", m.bits_per_entry),
            ));
        }
        let need = (total * u64::from(m.bits_per_entry)).div_ceil(32);
        if (m.bit_string.len() as u64) < need {
            return Err(err(
                at("bitString"),
                format!(
                    "{} words, {total} entries of {} bits need {need}",
                    m.bit_string.len(),
                    m.bits_per_entry
                ),
            ));
        }
        for i in 0..total as usize {
            let e = m.entry(i).unwrap_or(u32::MAX);
            if e & !m.mask != 0 {
                return Err(err(
                    at("triangleIndexBitMask"),
                    format!("entry {i} ({e}) has bits outside the mask 0x{:X}", m.mask),
                ));
            }
        }
        Ok(())
    }
}
