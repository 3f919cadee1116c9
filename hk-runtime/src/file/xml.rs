//! Havok XML through the front door: a file that starts with `<?xml` or `<hkpackfile`
//! (after a byte-order mark and blanks) is read as the packfile it describes, whatever its
//! name (docs/havok-xml.md §4).

use crate::error::{Error, ReadError, Result};
use crate::file::{Document, Schemas};
use crate::limits::Limits;

/// Whether `bytes` are Havok XML: `<?xml` or `<hkpackfile` first, after a UTF-8 byte-order
/// mark and blanks. Looks at the first bytes only.
pub fn is_xml(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = b.iter().position(|c| !c.is_ascii_whitespace());
    start.is_some_and(|i| b[i..].starts_with(b"<?xml") || b[i..].starts_with(b"<hkpackfile"))
}

/// Reads Havok XML as a document, within `limits`.
///
/// # Errors
/// Text that is not UTF-8, and what [`crate::dump::xml::open_xml`] refuses.
pub(super) fn open(bytes: &[u8], schemas: &Schemas, limits: &Limits) -> Result<Document> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::read(ReadError::Syntax {
            format: "XML",
            message: format!("not UTF-8: {e}"),
        })
        .at(e.valid_up_to() as u64)
    })?;
    crate::dump::xml::open_xml(text, schemas, None, limits)
}
