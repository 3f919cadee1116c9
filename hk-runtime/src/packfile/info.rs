//! What a packfile holds besides its objects: header fields, section names, the class-name
//! order, exports, which section each object lives in, and capacity-word flags. The reader
//! fills it in, the writer reproduces it; the graph never holds it.

use std::collections::BTreeMap;

use super::header::REFLECTION_CLASSES;
use super::{Loc, Packfile};
use crate::error::{Error, Result};
use crate::graph::{ObjectId, Seg};
use crate::rules::LayoutRules;
use crate::schema::Generation;

/// Container facts of a packfile (its origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackfileInfo {
    /// File version (header 0x0C).
    pub file_version: u32,
    /// Contents-version string (header 0x28).
    pub contents_version: String,
    /// Layout rules (header 0x10).
    pub layout: LayoutRules,
    /// Header `userTag`.
    pub user_tag: u32,
    /// Header flags word (0x38).
    pub flags: u32,
    /// Section tags, in file order.
    pub sections: Vec<String>,
    /// Index of the class-name section.
    pub class_names_section: u32,
    /// Index of the section holding the root object.
    pub contents_section: u32,
    /// Predicate words of a version-11 header (`maxPredicate`, predicate block).
    pub predicates: Option<(i16, Vec<u8>)>,
    /// The class-name list, when the file's order is not the one the writer regenerates
    /// (the four reflection classes, then each class in the order of its first object).
    /// Havok 5.5 lists every class its writer registered, in its own hash order.
    pub class_names: Option<Vec<String>>,
    /// Objects other files may import, by name.
    pub exports: Vec<(ObjectId, String)>,
    /// The section of each object, by id; objects past the end (added by an edit) live in
    /// the contents section.
    pub object_sections: Vec<u32>,
    /// Arrays whose capacity word carries flag bits other than the usual 0x80000000
    /// (Havok 5.5 and 6.6 also set 0x40000000 on some), by owner and member path.
    pub capacity_flags: BTreeMap<(ObjectId, Box<[Seg]>), u32>,
}

impl PackfileInfo {
    /// The facts of a new file of `generation` under `layout`: the generation's file and
    /// contents versions, the usual three sections (`__classnames__`, `__types__`,
    /// `__data__`), everything in `__data__`.
    pub fn new(generation: &Generation, layout: LayoutRules) -> Self {
        PackfileInfo {
            file_version: generation.file_version,
            contents_version: generation.contents_version.clone(),
            layout,
            user_tag: 0,
            flags: 0,
            sections: vec![
                "__classnames__".into(),
                "__types__".into(),
                "__data__".into(),
            ],
            class_names_section: 0,
            contents_section: 2,
            predicates: None,
            class_names: None,
            exports: Vec::new(),
            object_sections: Vec::new(),
            capacity_flags: BTreeMap::new(),
        }
    }

    /// The section object `id` lives in.
    pub fn section_of(&self, id: ObjectId) -> u32 {
        self.object_sections
            .get(id.0 as usize)
            .copied()
            .unwrap_or(self.contents_section)
    }

    /// Forgets object `id` (removed from the graph): later ids shift down by one.
    pub fn remove_object(&mut self, id: ObjectId) {
        if (id.0 as usize) < self.object_sections.len() {
            self.object_sections.remove(id.0 as usize);
        }
        let shift = |o: ObjectId| {
            if o.0 > id.0 {
                ObjectId(o.0 - 1)
            } else {
                o
            }
        };
        self.exports.retain(|(o, _)| *o != id);
        for (o, _) in &mut self.exports {
            *o = shift(*o);
        }
        self.capacity_flags = std::mem::take(&mut self.capacity_flags)
            .into_iter()
            .filter(|((o, _), _)| *o != id)
            .map(|((o, p), f)| ((shift(o), p), f))
            .collect();
    }
}

/// The root and the container facts of `pf` after a read: what
/// the graph reader (`packfile::graph::read::read`) records beside the graph, computed the same way.
///
/// # Errors
/// A root or export that names no object.
pub fn container_info(
    pf: &Packfile<'_>,
    object_sections: Vec<u32>,
    capacity_flags: Vec<(ObjectId, Box<[Seg]>, u32)>,
) -> Result<(ObjectId, PackfileInfo)> {
    let root_loc = Loc {
        section: pf.header.contents_section,
        offset: pf.header.contents_offset,
    };
    let root = pf
        .object_at(root_loc)
        .ok_or_else(|| Error::invalid(0x1C, "the header's contents offset names no object"))?;
    let mut info = file_info(pf);
    for (loc, name) in &pf.exports {
        let id = pf.object_at(*loc).ok_or_else(|| {
            Error::invalid(pf.abs(*loc), format!("export `{name}` names no object"))
        })?;
        info.exports.push((ObjectId(id as u32), name.clone()));
    }
    // The class-name list, when it is not the one the writer makes from the objects (one
    // set lookup per object: a file may have as many class names as objects).
    let mut default_names: Vec<&str> = REFLECTION_CLASSES.to_vec();
    let mut listed: rustc_hash::FxHashSet<&str> = default_names.iter().copied().collect();
    for &(_, n) in pf.object_table() {
        let c = pf.class_names[n as usize].name;
        if listed.insert(c) {
            default_names.push(c);
        }
    }
    if !pf
        .class_names
        .iter()
        .map(|c| c.name)
        .eq(default_names.iter().copied())
    {
        info.class_names = Some(pf.class_names.iter().map(|c| c.name.to_string()).collect());
    }
    info.object_sections = object_sections;
    info.capacity_flags = capacity_flags
        .into_iter()
        .map(|(o, p, f)| ((o, p), f))
        .collect::<BTreeMap<_, _>>();
    Ok((ObjectId(root as u32), info))
}

/// The header facts of `pf`.
pub fn file_info(pf: &Packfile<'_>) -> PackfileInfo {
    let h = &pf.header;
    PackfileInfo {
        file_version: h.file_version,
        contents_version: h.contents_version(),
        layout: h.layout,
        user_tag: h.user_tag,
        flags: h.flags,
        sections: pf.sections.iter().map(|s| s.tag.clone()).collect(),
        class_names_section: h.class_names_section,
        contents_section: h.contents_section,
        predicates: (h.predicate_size >= 0 && h.max_predicate >= 0).then(|| {
            let start = 0x40usize;
            let len = h.predicate_size as usize;
            (
                h.max_predicate,
                pf.bytes()
                    .data()
                    .get(start..start + len)
                    .unwrap_or_default()
                    .to_vec(),
            )
        }),
        class_names: None,
        exports: Vec::new(),
        object_sections: Vec::new(),
        capacity_flags: BTreeMap::new(),
    }
}
