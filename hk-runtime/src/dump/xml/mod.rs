//! Havok XML (`<hkpackfile>`), the text form the Havok SDK's own tools write
//! (docs/havok-xml.md). It is another surface of the dump: writing goes from the dump's
//! objects to XML; reading runs the dump's reader over the XML text as over a JSON text,
//! so an XML file is refused for exactly what a JSON dump would be refused for, and read
//! within the same limits. Reading streams: the members go from the text straight into
//! graph values, each charged to the read's memory budget as it is made.
//!
//! What Havok's XML has no place for (the layout, the class-name order, exports, capacity
//! flags, object sections, header words, interior and imported pointers, strings that are
//! not UTF-8, non-finite floats) is kept in hk's own namespace, so a binary file written as
//! XML and built back is the same bytes. A file without those reads with the defaults of
//! its generation.

mod de;
mod defaults;
mod events;
mod leaf;
mod meter;
mod read;
mod scan;
mod sdk;
mod value;
mod walk;
mod write;

pub use read::{from_xml, is_xml};

use crate::file::{Document, Origin, SchemaChoice};
pub use sdk::{Dialect, Xml};
pub use write::to_xml;

use serde_json::Value as Json;

use crate::dump::{Built, BuiltContainer};
use crate::error::Result;
use crate::file::Schemas;
use crate::limits::Limits;
use crate::rules::LayoutRules;
use crate::schema::{Member, Schema};
use crate::types::TypeKind;

/// hk's XML namespace: attributes and elements holding what Havok's XML has no place for.
pub const NS: &str = "https://hk.invalid/ns";

/// How Havok's XML writes a null string: U+2400 SYMBOL FOR NULL.
const NULL_STRING: &str = "&#9216;";

/// The sections a new packfile has, the ones hk's XML does not restate.
const DEFAULT_SECTIONS: [&str; 3] = ["__classnames__", "__types__", "__data__"];

/// The name hk gives object `id` (Havok's numbered form, `#0042`).
fn object_name(id: u64) -> String {
    format!("#{id:04}")
}

fn hex_flags(v: u64) -> String {
    format!("0x{v:X}")
}

/// The enum of member `m` of class `owner`, and whether it holds flags.
fn enum_of<'s>(
    schema: &'s Schema,
    owner: &str,
    m: &Member,
) -> Option<(&'s crate::schema::Enum, bool)> {
    let flags = match m.ty {
        TypeKind::Enum => false,
        TypeKind::Flags => true,
        _ => return None,
    };
    let (_, e) = schema.resolve_enum(owner, m.enum_ref.as_deref()?)?;
    Some((e, flags))
}

/// An enum value as its item's name, flags as item names joined by `|` (bits no item
/// names last, in hex), in the enum's item order or, `high_first`, from the highest value
/// down (as the SDK writes them: `FLAG_TO_NESTED_STATE_ID_IS_VALID|FLAG_DISABLE_CONDITION`);
/// `None` when the value has no names or they would not read back to it.
fn enum_text(
    schema: &Schema,
    (owner, m): (&str, &Member),
    v: &Json,
    high_first: bool,
) -> Option<String> {
    let (e, flags) = enum_of(schema, owner, m)?;
    let value = v.as_i64()?;
    if !flags {
        return e
            .items
            .iter()
            .find(|i| i64::from(i.value) == value)
            .map(|i| i.name.clone());
    }
    if value <= 0 {
        return None;
    }
    let mut rest = value;
    let mut names = Vec::new();
    let mut items: Vec<&crate::schema::EnumItem> = e.items.iter().collect();
    if high_first {
        items.sort_by_key(|i| std::cmp::Reverse(i.value));
    }
    for i in items {
        let bits = i64::from(i.value);
        if bits > 0 && rest & bits == bits {
            names.push(i.name.clone());
            rest &= !bits;
        }
    }
    if names.is_empty() {
        return None;
    }
    if rest != 0 {
        names.push(hex_flags(rest as u64));
    }
    Some(names.join("|"))
}

/// The packfile an XML text describes, laid out under `layout` (else the one the file
/// names in hk's namespace, else its generation's default), read within `limits`, and the
/// document built.
///
/// # Errors
/// As [`from_xml`] and the packfile writer.
pub fn build_xml(
    text: &str,
    schemas: &Schemas,
    layout: Option<LayoutRules>,
    limits: &Limits,
) -> Result<(Vec<u8>, Built)> {
    let built = from_xml(text, schemas, layout, limits)?;
    let BuiltContainer::Packfile(info) = &built.container else {
        return Err(crate::error::Error::write(
            crate::error::WriteError::Invalid("XML builds packfiles".into()),
        ));
    };
    let bytes = crate::packfile::graph::write::write(&built.graph, info)?;
    Ok((bytes, built))
}

/// An XML text read as a document within `limits`, as if it were the packfile it
/// describes (what `hk info`, `hk diff`, `hk dump` and `hk convert` read XML as).
///
/// # Errors
/// As [`from_xml`].
pub fn open_xml(
    text: &str,
    schemas: &Schemas,
    layout: Option<LayoutRules>,
    limits: &Limits,
) -> Result<Document> {
    let built = from_xml(text, schemas, layout, limits)?;
    let BuiltContainer::Packfile(info) = built.container else {
        return Err(crate::error::Error::write(
            crate::error::WriteError::Invalid("XML builds packfiles".into()),
        ));
    };
    let name = built.graph.schema().generation.name.clone();
    let how = match schemas
        .catalog()
        .packfile(info.file_version, &info.contents_version)
    {
        Some(_) => crate::file::How::Exact,
        None => crate::file::How::Closest {
            version: info.contents_version.clone(),
            tried: Vec::new(),
        },
    };
    Ok(Document {
        graph: built.graph,
        origin: Origin::Packfile(info),
        schema: SchemaChoice::Generation {
            name,
            how,
            borrowed: Vec::new(),
        },
        violations: Vec::new(),
    })
}
