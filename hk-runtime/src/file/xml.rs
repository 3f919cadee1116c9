//! Havok XML through the front door: a file whose first element is `<hkpackfile>` is read
//! as the packfile it describes, whatever its name (docs/havok-xml.md §4).

use crate::error::{Error, ReadError, Result};
use crate::file::{Document, Schemas};
use crate::limits::Limits;
use crate::packfile::graph::read::ReadOptions;

/// How far into a file the `<hkpackfile>` element is looked for.
const SNIFF: usize = 4096;

/// Whether `bytes` are Havok XML: `<hkpackfile` first, after a UTF-8 byte-order mark, an
/// `<?xml …?>` declaration, comments and blanks, within the first 4 KiB. Other XML is not.
pub fn is_xml(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rest = &b[..b.len().min(SNIFF)];
    loop {
        rest = trim(rest);
        let skip = |open: &[u8], close: &[u8], r: &[u8]| -> Option<usize> {
            let body = r.strip_prefix(open)?;
            body.windows(close.len())
                .position(|w| w == close)
                .map(|i| open.len() + i + close.len())
        };
        if rest.starts_with(b"<?xml") || rest.starts_with(b"<!--") {
            let n = skip(b"<?xml", b"?>", rest).or_else(|| skip(b"<!--", b"-->", rest));
            match n {
                Some(n) => rest = &rest[n..],
                None => return false,
            }
        } else {
            return rest.starts_with(b"<hkpackfile")
                && rest
                    .get(b"<hkpackfile".len())
                    .is_some_and(|c| c.is_ascii_whitespace() || *c == b'>');
        }
    }
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|c| !c.is_ascii_whitespace());
    &b[start.unwrap_or(b.len())..]
}

/// Reads Havok XML as the document of the packfile it describes, within `opts.limits`:
/// the packfile is built and read back, so its objects are in the order a binary file
/// holds them (the XML's own order is the writer's, not the file's) and commands that
/// compare objects by position (`hk diff`) see the same document as for the binary.
///
/// # Errors
/// Text that is not UTF-8, what [`crate::dump::xml::open_xml`] refuses, and what the
/// packfile writer and reader refuse.
pub(super) fn open(bytes: &[u8], schemas: &Schemas, opts: ReadOptions) -> Result<Document> {
    let doc = open_text(bytes, schemas, &opts.limits)?;
    let built = super::write(&doc)?;
    super::open(&built, schemas, opts)
}

/// The document the XML text describes, its objects in the XML's order.
fn open_text(bytes: &[u8], schemas: &Schemas, limits: &Limits) -> Result<Document> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::read(ReadError::Syntax {
            format: "XML",
            message: format!("not UTF-8: {e}"),
        })
        .at(e.valid_up_to() as u64)
    })?;
    crate::dump::xml::open_xml(text, schemas, None, limits)
}

#[cfg(test)]
mod tests {
    use super::is_xml;

    #[test]
    fn havok_xml_is_told_by_its_first_element() {
        assert!(is_xml(
            b"<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"8\">"
        ));
        assert!(is_xml(b"\xEF\xBB\xBF  <hkpackfile>"));
        assert!(is_xml(
            b"<?xml version=\"1.0\"?><!-- a note --> <hkpackfile x=\"1\">"
        ));
        assert!(!is_xml(b"<?xml version=\"1.0\"?>"));
        assert!(!is_xml(b"<?xml version=\"1.0\"?><notes/>"));
        assert!(!is_xml(b"<hkpackfilex>"));
        assert!(!is_xml(b"<!-- never closed"));
        assert!(!is_xml(&crate::packfile::header::MAGIC));
    }
}
