//! Schemas compiled into a program as constant tables (what `hk_derive::schema!` emits):
//! a generation and its classes as `&'static` data, turned into a validated [`Schema`]
//! without parsing TOML at run time, so code generated from a schema does not link a TOML
//! parser.

use super::{
    Class, Container, Enum, EnumItem, Generation, Member, PackfileRules, Pinned, Schema,
    TagfileRules,
};
use crate::error::{Error, Result, SchemaError};
use crate::rules::LayoutRules;
use crate::types::TypeKind;

/// A generation as constant data.
#[derive(Clone, Copy, Debug)]
pub struct StaticGeneration {
    /// Folder name.
    pub name: &'static str,
    /// Tagfile generation (else packfile).
    pub tagfile: bool,
    /// Packfile file version.
    pub file_version: u32,
    /// Contents version.
    pub contents_version: &'static str,
    /// Default layout.
    pub layout: LayoutRules,
    /// Member-type numbering.
    pub member_types: &'static [(TypeKind, u8)],
    /// Member flags by name.
    pub member_flags: &'static [(&'static str, u16)],
    /// `[packfile]` string boundary.
    pub string_align: u32,
    /// `[tagfile]` rules: dedupe strings, templates first, string pad, subsection tags.
    pub tagfile_rules: Option<(bool, bool, u8, [[u8; 4]; 4])>,
}

/// A member as constant data.
#[derive(Clone, Copy, Debug)]
pub struct StaticMember {
    /// Name.
    pub name: &'static str,
    /// Type, sub-type and inner element type.
    pub types: [TypeKind; 3],
    /// Struct or pointee class.
    pub class: Option<&'static str>,
    /// Enum reference.
    pub enum_ref: Option<&'static str>,
    /// C-array length.
    pub array_size: u16,
    /// Flag bits.
    pub flags: u16,
    /// Unreflected bytes before it.
    pub gap_before: u32,
}

/// An enum as constant data.
#[derive(Clone, Copy, Debug)]
pub struct StaticEnum {
    /// Name.
    pub name: &'static str,
    /// Flags.
    pub flags: u32,
    /// Items.
    pub items: &'static [(&'static str, i32)],
}

/// A class as constant data.
#[derive(Clone, Copy, Debug)]
pub struct StaticClass {
    /// Name.
    pub name: &'static str,
    /// Parent.
    pub parent: Option<&'static str>,
    /// Interface count.
    pub interfaces: u32,
    /// Described version.
    pub version: u32,
    /// Class flags.
    pub flags: u32,
    /// Declared alignment.
    pub align: Option<u32>,
    /// Pinned signature and why.
    pub pinned: Option<(u32, &'static str)>,
    /// Tagfile type hash.
    pub hash: Option<u32>,
    /// Enums.
    pub enums: &'static [StaticEnum],
    /// Members.
    pub members: &'static [StaticMember],
}

impl Schema {
    /// The schema of constant tables (see the module docs).
    ///
    /// # Errors
    /// Tables that do not form a valid schema (not for tables a macro emitted from a
    /// schema it validated).
    pub fn from_static(g: &StaticGeneration, classes: &[StaticClass]) -> Result<Schema> {
        let generation = Generation {
            name: g.name.to_string(),
            container: if g.tagfile {
                Container::Tagfile
            } else {
                Container::Packfile
            },
            file_version: g.file_version,
            contents_version: g.contents_version.to_string(),
            layout: g.layout,
            member_types: g.member_types.to_vec(),
            member_flags: g
                .member_flags
                .iter()
                .map(|(n, v)| (n.to_string(), *v))
                .collect(),
            packfile: PackfileRules {
                string_align: g.string_align,
            },
            tagfile: g.tagfile_rules.map(|(d, t, p, tags)| TagfileRules {
                dedupe_strings: d,
                templates_first: t,
                string_pad: p,
                tags,
            }),
        };
        let classes = classes
            .iter()
            .map(|c| {
                let mut k = Class::new(c.name);
                k.parent = c.parent.map(str::to_string);
                k.interfaces = c.interfaces;
                k.version = c.version;
                k.flags = c.flags;
                k.align = c.align;
                k.hash = c.hash;
                k.pinned = c.pinned.map(|(signature, reason)| Pinned {
                    signature,
                    reason: reason.to_string(),
                    doubtful: Vec::new(),
                });
                k.enums = c
                    .enums
                    .iter()
                    .map(|e| Enum {
                        name: e.name.to_string(),
                        flags: e.flags,
                        items: e
                            .items
                            .iter()
                            .map(|(n, v)| EnumItem {
                                name: n.to_string(),
                                value: *v,
                            })
                            .collect(),
                    })
                    .collect();
                k.members = c
                    .members
                    .iter()
                    .map(|m| Member {
                        name: m.name.to_string(),
                        ty: m.types[0],
                        subtype: m.types[1],
                        element: m.types[2],
                        class: m.class.map(str::to_string),
                        enum_ref: m.enum_ref.map(str::to_string),
                        array_size: m.array_size,
                        flags: m.flags,
                        expected_offset: None,
                        gap_before: m.gap_before,
                        line: 0,
                    })
                    .collect();
                k
            })
            .collect();
        Schema::new(generation, classes).map_err(|d| {
            Error::from(SchemaError::Diagnostics(format!(
                "the embedded schema {} is not valid:\n{d}",
                g.name
            )))
        })
    }
}
