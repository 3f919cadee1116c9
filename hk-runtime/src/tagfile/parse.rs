//! Parsing a tagfile's sections: the container around it (cm, phive or none), the TAG0
//! section tree, SDKV, the type table and the index, each checked as far as it can be
//! without decoding DATA ([`super::data`] does that).

use super::section::{self, Section};
use std::sync::Arc;

use super::compendium::{self, Compendium};
use super::{cm, index, phive, types};
use crate::error::{Error, Result};
use crate::limits::{Budget, Limits};

/// Where the TAG0 section of `data` starts: after a cm container's records, behind a
/// phive header, or at 0.
pub fn locate(data: &[u8]) -> Option<u64> {
    cm::Cm::detect(data)
        .map(|c| c.blob_at)
        .or_else(|| section::find_tag0(data))
}

/// A tagfile's sections, decoded as far as hk reads them today.
#[derive(Debug)]
pub struct TagFile {
    /// Offset of the TAG0 section in the input (0, 0x30 behind a phive header, or after a
    /// cm container's surface records).
    pub offset: u64,
    /// The cm container around the tagfile, if any.
    pub cm: Option<cm::Cm>,
    /// The phive container around the tagfile, if any.
    pub phive: Option<phive::Phive>,
    /// The TAG0 section tree.
    pub root: Section,
    /// The SDK version string (`20150100`).
    pub sdk_version: String,
    /// The type table (shared by the files that carry the same TYPE bytes, see
    /// [`TagFile::parse_with`]).
    pub types: Arc<types::TypeTable>,
    /// What the reader asks of each type of `types`.
    pub(crate) facts: Arc<types::Facts>,
    /// The compendium id a `TCRF` section names, when the types are a compendium's
    /// (docs/tagfile-format.md §1a): `types` is then the compendium's table.
    pub compendium: Option<u64>,
    /// ITEM entries.
    pub items: Vec<index::Item>,
    /// PTCH groups.
    pub patches: Vec<index::Patch>,
}

impl TagFile {
    /// Parses the tagfile in `data` (bare, or behind a wrapper such as phive's).
    ///
    /// # Errors
    /// No TAG0 section, or any structural problem, with its offset.
    pub fn parse(data: &[u8]) -> Result<TagFile> {
        Self::parse_with(data, |_| None)
    }

    /// [`TagFile::parse`], taking the type table from `known` when it has one for the TYPE
    /// section's bytes (a cache of the tables read before: the same bytes make the same
    /// table). [`TagFile::shared_types`] gives what to keep.
    ///
    /// # Errors
    /// As [`TagFile::parse`].
    pub fn parse_with(
        data: &[u8],
        known: impl FnOnce(&[u8]) -> Option<SharedTypes>,
    ) -> Result<TagFile> {
        let mut budget = Budget::new(&Limits::default(), data.len() as u64);
        Self::parse_within(data, known, &mut budget)
    }

    /// [`TagFile::parse_with`], charging `budget` for the type table (unless `known` has
    /// it) and the index.
    ///
    /// # Errors
    /// As [`TagFile::parse`], or tables past the budget's memory limit.
    pub fn parse_within(
        data: &[u8],
        known: impl FnOnce(&[u8]) -> Option<SharedTypes>,
        budget: &mut Budget,
    ) -> Result<TagFile> {
        Self::parse_referencing(data, known, None, budget)
    }

    /// [`TagFile::parse_within`], taking the types from `compendium` when the file holds a
    /// `TCRF` section instead of a TYPE section (docs/tagfile-format.md §1a).
    ///
    /// # Errors
    /// As [`TagFile::parse`]; a `TCRF` file read without a compendium
    /// ([`crate::error::ReadError::NoCompendium`]) or with one that does not hold its id
    /// ([`crate::error::ReadError::CompendiumMismatch`]).
    pub fn parse_referencing(
        data: &[u8],
        known: impl FnOnce(&[u8]) -> Option<SharedTypes>,
        compendium: Option<&Compendium>,
        budget: &mut Budget,
    ) -> Result<TagFile> {
        let cm = cm::Cm::detect(data);
        let offset = match &cm {
            Some(c) => c.blob_at,
            None => section::find_tag0(data).ok_or_else(|| Error::invalid(0, "no TAG0 section"))?,
        };
        let root = Section::parse(data, offset, data.len() as u64)?;
        let need = |t: &[u8; 4]| {
            root.child(t)
                .ok_or_else(|| Error::missing(offset, "TAG0", String::from_utf8_lossy(t)))
        };
        let (o, n) = need(b"SDKV")?.payload();
        let sdk_version = String::from_utf8_lossy(&data[o as usize..(o + n) as usize]).into_owned();
        // SDKV is 8 digits (20150100, 20220100: docs/tagfile-format.md §1).
        if sdk_version.len() != 8 || !sdk_version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::invalid(
                o,
                format!("SDKV `{sdk_version}` is not an 8-digit SDK version"),
            ));
        }
        let phive = match (offset, &cm) {
            (0, _) | (_, Some(_)) => None,
            _ => {
                let (p, at) = phive::Phive::parse(data, root.size)?;
                if at != offset {
                    return Err(Error::invalid(
                        0x0C,
                        format!("phive names its tagfile at 0x{at:X}, the TAG0 is at 0x{offset:X}"),
                    ));
                }
                Some(p)
            }
        };
        // A bare tagfile is nothing but its TAG0 section (4/4 DSR files).
        if offset == 0 && root.size != data.len() as u64 {
            return Err(Error::invalid(
                root.size,
                format!(
                    "{} bytes follow the TAG0 section",
                    data.len() as i64 - root.size as i64
                ),
            ));
        }
        let (types, facts, reference) = match (root.child(b"TYPE"), root.child(b"TCRF")) {
            (None, Some(tcrf)) => {
                let id = compendium::reference(data, tcrf)?;
                let c = compendium.ok_or_else(|| {
                    Error::read(crate::error::ReadError::NoCompendium { id }).at(tcrf.offset)
                })?;
                let (t, f) = c.table_for(id).map_err(|e| e.at(tcrf.offset))?;
                (t, f, Some(id))
            }
            _ => {
                let (t, f) = Self::own_types(data, need(b"TYPE")?, known, budget)?;
                (t, f, None)
            }
        };
        let indx = need(b"INDX")?;
        let (items, patches) = index::parse(data, indx)?;
        // The index, and what the reader keeps per item and per slot.
        let slots: usize = patches.iter().map(|p| p.offsets.len()).sum();
        budget.charge(
            (items.len() * (std::mem::size_of::<index::Item>() + 48)
                + patches.len() * std::mem::size_of::<index::Patch>()
                + slots * 40) as u64,
            indx.offset,
        )?;
        let ntypes = types.types.len() as u32;
        if let Some(bad) = items
            .iter()
            .map(|i| i.ty)
            .chain(patches.iter().map(|p| p.ty))
            .find(|&t| t >= ntypes)
        {
            return Err(Error::invalid(
                offset,
                format!("INDX names type {bad}, the table has {ntypes}"),
            ));
        }
        Ok(TagFile {
            offset,
            cm,
            phive,
            root,
            sdk_version,
            types,
            facts,
            compendium: reference,
            items,
            patches,
        })
    }

    /// The file's own TYPE section `type_sec`: from `known` when it has it, else parsed;
    /// TPTR checked.
    fn own_types(
        data: &[u8],
        type_sec: &Section,
        known: impl FnOnce(&[u8]) -> Option<SharedTypes>,
        budget: &mut Budget,
    ) -> Result<(Arc<types::TypeTable>, Arc<types::Facts>)> {
        let (ty_o, ty_n) = (type_sec.offset as usize, type_sec.size as usize);
        let (types, facts) = match known(&data[ty_o..ty_o + ty_n]) {
            Some(k) => (k.table, k.facts),
            None => {
                let t = types::TypeTable::parse_within(data, type_sec, budget)?;
                let f = types::Facts::new(&t);
                (Arc::new(t), Arc::new(f))
            }
        };
        // TPTR: 8 zero bytes per type, the null type included (6/6).
        let tptr = type_sec
            .child(b"TPTR")
            .ok_or_else(|| Error::missing(type_sec.offset, "TYPE", "TPTR"))?;
        let (po, pn) = tptr.payload();
        if pn != 8 * types.types.len() as u64
            || data[po as usize..(po + pn) as usize]
                .iter()
                .any(|&b| b != 0)
        {
            return Err(Error::invalid(
                po,
                format!(
                    "TPTR is {pn} bytes, not 8 zero bytes for each of {} types",
                    types.types.len()
                ),
            ));
        }
        Ok((types, facts))
    }

    /// The bytes of the TYPE section in `data` (the input this was parsed from).
    pub fn type_bytes<'d>(&self, data: &'d [u8]) -> &'d [u8] {
        self.root
            .child(b"TYPE")
            .and_then(|s| data.get(s.offset as usize..(s.offset + s.size) as usize))
            .unwrap_or_default()
    }

    /// The parsed type table and its facts, to hand to [`TagFile::parse_with`] for
    /// another file with the same TYPE bytes.
    pub fn shared_types(&self) -> SharedTypes {
        SharedTypes {
            table: Arc::clone(&self.types),
            facts: Arc::clone(&self.facts),
        }
    }
}

/// A parsed type table with its facts, shared between files with the same TYPE bytes.
#[derive(Clone, Debug)]
pub struct SharedTypes {
    /// The table.
    pub table: Arc<types::TypeTable>,
    /// What the reader asks of each of its types.
    pub facts: Arc<types::Facts>,
}
