//! How schema folders fared when tried for a file whose version has none, as
//! [`SchemaError::Unverified`](super::SchemaError::Unverified) reports it
//! (docs/schema-selection.md).

use std::fmt;

/// A schema folder tried for a file whose version has no folder, and how it fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tried {
    /// The folder's name.
    pub folder: String,
    /// What was checked, and the outcome.
    pub check: Check,
}

/// The check a folder must pass to stand in for a file's own version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Check {
    /// A packfile: how many of the class signatures it stores recompute from the folder.
    Signatures {
        /// Stored signatures the folder recomputes (or pins).
        matched: usize,
        /// Stored signatures.
        stored: usize,
    },
    /// A tagfile: whether the folder's `[tagfile]` writer rules write the file back byte
    /// for byte; else the first offset that differs (`None` when it does not write at all).
    WritesBack {
        /// Whether the output equals the input.
        identical: bool,
        /// The first differing offset, when the output differs.
        differs_at: Option<u64>,
    },
    /// An old binary tagfile read with a schema the caller names: how many of the classes
    /// the file defines the schema holds with the same members, in the same order.
    Classes {
        /// Classes the schema holds alike.
        matched: usize,
        /// Classes the file defines.
        defined: usize,
    },
}

impl Check {
    /// Whether the folder may stand in for the file's version.
    pub fn passes(self) -> bool {
        match self {
            Check::Signatures { matched, stored } => stored > 0 && matched == stored,
            Check::WritesBack { identical, .. } => identical,
            Check::Classes { matched, defined } => matched == defined,
        }
    }

    /// How close it came: more is better (signatures matched; 1 for a tagfile written back).
    pub fn score(self) -> usize {
        match self {
            Check::Signatures { matched, .. } => matched,
            Check::WritesBack { identical, .. } => usize::from(identical),
            Check::Classes { matched, .. } => matched,
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Signatures { matched, stored } => write!(f, "{matched}/{stored}"),
            Check::WritesBack {
                identical: true, ..
            } => f.write_str("writes the file back"),
            Check::WritesBack {
                differs_at: Some(o),
                ..
            } => write!(f, "written back, differs at 0x{o:X}"),
            Check::WritesBack { .. } => f.write_str("does not write the file back"),
            Check::Classes { matched, defined } => {
                write!(f, "{matched} of {defined} defined classes alike")
            }
        }
    }
}

impl fmt::Display for Tried {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.folder, self.check)
    }
}

/// The text of [`SchemaError::Unverified`](super::SchemaError::Unverified).
pub(super) fn unverified(tagfile: bool, version: &str, tried: &[Tried]) -> String {
    let list: Vec<String> = tried.iter().map(Tried::to_string).collect();
    let list = if list.is_empty() {
        "there is none".to_string()
    } else {
        list.join(", ")
    };
    if tagfile {
        format!(
            "no schema folder is of {version}, and no other folder's [tagfile] rules write the \
             file back byte for byte ({list}); name the folder whose writer rules to use with \
             `--schema NAME` (or `--schema DIR`), or read with `--lenient` to take the nearest \
             folder's rules with a warning"
        )
    } else {
        format!(
            "no schema folder is of {version}, and no other folder recomputes every class \
             signature the file stores ({list}); read it with `--schema DIR` (a folder for this \
             version: schemas/README.md, \"Adding a version when files carry only signatures\") \
             or `--schema NAME`, or with `--lenient` to take the closest folder with a warning"
        )
    }
}
