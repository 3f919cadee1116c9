//! The runtime's error: what went wrong, at which file offset, in which class/member.

use std::fmt;
use std::path::PathBuf;

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A schema is inconsistent or incomplete.
    Schema(String),
    /// The input ends before a structure does.
    Truncated {
        /// Bytes needed from the offset.
        needed: u64,
        /// Bytes available from the offset.
        available: u64,
    },
    /// The input does not start with a known magic.
    BadMagic,
    /// The input breaks a format rule.
    Invalid(String),
    /// The operating system refused a read or write.
    Io(String),
}

/// An error with its file offset and the class/member path where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Offset in the file, when the error is about file bytes.
    pub offset: Option<u64>,
    /// Class and member names from the outermost inward, e.g. `["hkClass", "declaredMembers"]`.
    pub path: Vec<String>,
    /// The file, when known.
    pub file: Option<PathBuf>,
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind) -> Self {
        Error {
            kind,
            offset: None,
            path: Vec::new(),
            file: None,
        }
    }

    /// A schema error.
    pub fn schema(msg: impl Into<String>) -> Self {
        Self::new(ErrorKind::Schema(msg.into()))
    }

    /// A format violation at `offset`.
    pub fn invalid(offset: u64, msg: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid(msg.into())).at(offset)
    }

    /// A read of `needed` bytes at `offset` where only `available` remain.
    pub fn truncated(offset: u64, needed: u64, available: u64) -> Self {
        Self::new(ErrorKind::Truncated { needed, available }).at(offset)
    }

    /// Sets the offset if none is set yet.
    pub fn at(mut self, offset: u64) -> Self {
        self.offset.get_or_insert(offset);
        self
    }

    /// Prepends a path element (the caller's class or member) while unwinding.
    pub fn in_(mut self, element: impl Into<String>) -> Self {
        self.path.insert(0, element.into());
        self
    }

    /// Prepends `class.member`.
    pub fn in_member(self, class: &str, member: &str) -> Self {
        self.in_(format!("{class}.{member}"))
    }

    /// Sets the file.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file.get_or_insert(file.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        if let Some(o) = self.offset {
            write!(f, "at 0x{o:X}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path.join(" > "))?;
        }
        match &self.kind {
            ErrorKind::Schema(m) | ErrorKind::Invalid(m) | ErrorKind::Io(m) => f.write_str(m),
            ErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} remain")
            }
            ErrorKind::BadMagic => f.write_str("not a Havok file (unknown magic)"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e.to_string()))
    }
}
