//! Type compendiums (docs/tagfile-format.md §1a): a `TCM0` file holding one TYPE section
//! and the 64-bit ids (`TCID`) by which data files refer to it. A data file whose types
//! live there holds a `TCRF` section (the id and 16 zero bytes) where its TYPE section
//! would be, and its ITEM and PTCH type indices are the compendium's.

use std::sync::Arc;

use super::section::Section;
use super::tables::{section, TCRF_SIZE};
use super::types::{Facts, TypeTable};
use crate::error::{Error, ReadError, Result};
use crate::limits::Budget;
use crate::schema::TagfileRules;

/// A parsed compendium.
#[derive(Debug, Clone)]
pub struct Compendium {
    /// The ids data files refer to it by (`TCID`, 8 bytes each, little endian).
    pub ids: Vec<u64>,
    /// Its type table.
    pub table: Arc<TypeTable>,
    /// What the reader asks of each of its types.
    pub(crate) facts: Arc<Facts>,
    /// The bytes of its TYPE section (what schemas extracted from it are keyed by).
    pub type_bytes: Vec<u8>,
}

/// Whether `data` starts with a `TCM0` section header.
pub fn is_compendium(data: &[u8]) -> bool {
    data.get(4..8) == Some(b"TCM0")
}

impl Compendium {
    /// Parses the compendium `data`: `TCM0 { TCID, TYPE }` and nothing after it.
    ///
    /// # Errors
    /// Not a `TCM0` file, a `TCID` that is empty or not whole ids, no TYPE, or anything
    /// the type table's reader reports — each with its offset.
    pub fn parse(data: &[u8], budget: &mut Budget) -> Result<Compendium> {
        if !is_compendium(data) {
            return Err(Error::invalid(0, "not a type compendium (no TCM0 section)"));
        }
        let root = Section::parse(data, 0, data.len() as u64)?;
        if root.size != data.len() as u64 {
            return Err(Error::invalid(
                root.size,
                format!(
                    "{} bytes follow the TCM0 section",
                    data.len() as u64 - root.size
                ),
            ));
        }
        let tcid = root
            .child(b"TCID")
            .ok_or_else(|| Error::missing(0, "TCM0", "TCID"))?;
        let (o, n) = tcid.payload();
        if n == 0 || n % 8 != 0 {
            return Err(Error::invalid(
                o,
                format!("TCID is {n} bytes, not one or more 8-byte ids"),
            ));
        }
        let ids = data[o as usize..(o + n) as usize]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        let ty = root
            .child(b"TYPE")
            .ok_or_else(|| Error::missing(0, "TCM0", "TYPE"))?;
        let table = TypeTable::parse_within(data, ty, budget)?;
        let facts = Facts::new(&table);
        Ok(Compendium {
            ids,
            table: Arc::new(table),
            facts: Arc::new(facts),
            type_bytes: data[ty.offset as usize..(ty.offset + ty.size) as usize].to_vec(),
        })
    }

    /// The compendium's table and its facts, when it holds `id`.
    ///
    /// # Errors
    /// [`ReadError::CompendiumMismatch`] when it does not.
    pub(crate) fn table_for(&self, id: u64) -> Result<(Arc<TypeTable>, Arc<Facts>)> {
        if self.ids.contains(&id) {
            Ok((Arc::clone(&self.table), Arc::clone(&self.facts)))
        } else {
            Err(Error::read(ReadError::CompendiumMismatch {
                id,
                held: self.ids.clone(),
            }))
        }
    }
}

/// A compendium file of `table` (as it stands: its index, body and hash order) under the
/// ids `ids`, its string and body subsections named as `rules` say.
///
/// # Errors
/// No id, or a table the TYPE writer refuses.
pub fn write(ids: &[u64], table: &TypeTable, rules: &TagfileRules) -> Result<Vec<u8>> {
    if ids.is_empty() {
        return Err(Error::invalid_write("a compendium needs at least one id"));
    }
    let tcid: Vec<u8> = ids.iter().flat_map(|i| i.to_le_bytes()).collect();
    let mut body = section(b"TCID", &tcid, true, 0)?;
    body.extend(super::tables::encode_table(table, rules)?);
    section(b"TCM0", &body, false, 0)
}

/// The `TCRF` id of the section `sec` of `data`: the id and 16 zero bytes.
///
/// # Errors
/// A payload of another size, or non-zero bytes after the id.
pub(crate) fn reference(data: &[u8], sec: &Section) -> Result<u64> {
    let (o, n) = sec.payload();
    let p = &data[o as usize..(o + n) as usize];
    if n != TCRF_SIZE || p[8..].iter().any(|&b| b != 0) {
        return Err(Error::invalid(
            o,
            format!("TCRF is {n} bytes; expected a compendium id and 16 zero bytes"),
        ));
    }
    Ok(u64::from_le_bytes(p[..8].try_into().unwrap_or([0; 8])))
}
