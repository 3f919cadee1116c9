//! Errors (core layer): one boxed [`Error`] whose [`ErrorKind`] says which concern failed
//! (reading a file, writing one, a schema, a typed conversion, the operating system), each
//! concern a typed `#[non_exhaustive]` enum, and every error carrying the file offset and the
//! class/member path where it happened.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong while reading a file or a dump.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The input ends before a structure does.
    #[error("truncated: needs {needed} bytes, {available} remain")]
    Truncated {
        /// Bytes needed from the offset.
        needed: u64,
        /// Bytes available from the offset.
        available: u64,
    },
    /// The input does not start with a known magic.
    #[error("not a Havok file (unknown magic)")]
    BadMagic,
    /// A count whose elements cannot fit in the bytes that remain (checked before anything
    /// is allocated, zero-size elements included).
    #[error("{count} elements of {size} bytes do not fit in the {left} bytes left")]
    Count {
        /// The stored count.
        count: u64,
        /// Bytes per element.
        size: u64,
        /// Bytes left for them.
        left: u64,
    },
    /// Data nests deeper than the reader follows.
    #[error("data nests deeper than {0} levels")]
    TooDeep(u32),
    /// Something the format allows that hk does not read.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The input breaks a format rule.
    #[error("{0}")]
    Invalid(String),
}

/// What went wrong while writing a file, or while setting a value in a graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A value of another kind than the member holds.
    #[error("a `{member}` member does not take {found}")]
    Kind {
        /// The member's type.
        member: String,
        /// The value given.
        found: String,
    },
    /// A number outside the member's range (it would wrap or be truncated).
    #[error("{value} does not fit a `{member}` member ({range})")]
    Range {
        /// The value given.
        value: String,
        /// The member's type.
        member: String,
        /// The range the member holds.
        range: String,
    },
    /// A tuple with another number of components than its type.
    #[error("a `{member}` member takes {expected} values, {found} given")]
    Length {
        /// The member's type.
        member: String,
        /// Values the type holds.
        expected: usize,
        /// Values given.
        found: usize,
    },
    /// A pointer to an object the graph does not have.
    #[error("pointer to object #{0}, which does not exist")]
    MissingObject(u64),
    /// A pointer to something that is not where it says.
    #[error("{0}")]
    BadPointer(String),
    /// A structure larger than its container can describe.
    #[error("{0}")]
    TooLarge(String),
    /// A class whose layout the schema knows for one set of layout rules only (a pinned
    /// signature, members the reflection does not describe), asked for under others.
    #[error("class `{class}` cannot be laid out for {target}: {why}")]
    LayoutUnknown {
        /// The class.
        class: String,
        /// The layout asked for (`ptr=8 LE reusePad=0 emptyBase=1`).
        target: String,
        /// What the schema lacks.
        why: String,
    },
    /// Another problem with the graph or dump being written.
    #[error("{0}")]
    Invalid(String),
    /// XML that does not parse, or an element or attribute that is not where it belongs,
    /// at a 1-based line and column.
    #[error("line {line}, column {column}: {message}")]
    Xml {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong.
        message: String,
    },
}

/// What is wrong with a schema, or with how one was chosen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A class the schema does not describe.
    #[error("class `{0}` is not in the schema")]
    MissingClass(String),
    /// A member a class does not have.
    #[error("class `{class}` has no member `{member}`")]
    MissingMember {
        /// The class.
        class: String,
        /// The member asked for.
        member: String,
    },
    /// No schema folder matches a file.
    #[error("{0}")]
    NoMatch(String),
    /// A schema folder's own problems, rendered with their files, lines and keys.
    #[error("{0}")]
    Diagnostics(String),
    /// Anything else wrong with a description (a cycle, a type without a size).
    #[error("{0}")]
    Invalid(String),
}

/// What went wrong converting between typed Rust classes and the object graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// A value of another kind.
    #[error("expected {expected}, found {found}")]
    Kind {
        /// The kind the Rust type holds.
        expected: &'static str,
        /// The value found.
        found: String,
    },
    /// A number that does not fit the Rust type.
    #[error("{value} does not fit {target}")]
    Range {
        /// The value.
        value: String,
        /// The Rust type.
        target: &'static str,
    },
    /// An object of a class the typed module does not have.
    #[error("class `{0}` is not generated here")]
    Class(String),
    /// A schema that describes a class otherwise than the class was generated from (a
    /// missing class, other members or another member order).
    #[error("{0}")]
    Schema(String),
}

/// Which concern failed, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading a file or a dump.
    Read(ReadError),
    /// Writing a file or editing a graph.
    Write(WriteError),
    /// A schema.
    Schema(SchemaError),
    /// A typed conversion.
    Convert(ConvertError),
    /// The operating system refused a read or write.
    Io(String),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Read(e) => e.fmt(f),
            ErrorKind::Write(e) => e.fmt(f),
            ErrorKind::Schema(e) => e.fmt(f),
            ErrorKind::Convert(e) => e.fmt(f),
            ErrorKind::Io(m) => f.write_str(m),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    offset: Option<u64>,
    path: Vec<String>,
    file: Option<PathBuf>,
}

/// An error with its kind, file offset, class/member path and file. Boxed: one pointer
/// wide, so `Result`s stay small on the hot paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind) -> Self {
        Error(Box::new(Inner {
            kind,
            offset: None,
            path: Vec::new(),
            file: None,
        }))
    }

    /// A read error.
    pub fn read(e: ReadError) -> Self {
        Self::new(ErrorKind::Read(e))
    }

    /// A write (or edit) error.
    pub fn write(e: WriteError) -> Self {
        Self::new(ErrorKind::Write(e))
    }

    /// A conversion error.
    pub fn convert(e: ConvertError) -> Self {
        Self::new(ErrorKind::Convert(e))
    }

    /// A schema error of kind [`SchemaError::Invalid`].
    pub fn schema(msg: impl Into<String>) -> Self {
        Self::new(ErrorKind::Schema(SchemaError::Invalid(msg.into())))
    }

    /// A class the schema lacks.
    pub fn missing_class(name: impl Into<String>) -> Self {
        Self::new(ErrorKind::Schema(SchemaError::MissingClass(name.into())))
    }

    /// A format violation at `offset`.
    pub fn invalid(offset: u64, msg: impl Into<String>) -> Self {
        Self::read(ReadError::Invalid(msg.into())).at(offset)
    }

    /// A read of `needed` bytes at `offset` where only `available` remain.
    pub fn truncated(offset: u64, needed: u64, available: u64) -> Self {
        Self::read(ReadError::Truncated { needed, available }).at(offset)
    }

    /// A count of `count` elements of `size` bytes at `offset` where `left` bytes remain.
    pub fn count(offset: u64, count: u64, size: u64, left: u64) -> Self {
        Self::read(ReadError::Count { count, size, left }).at(offset)
    }

    /// A write error of kind [`WriteError::Invalid`].
    pub fn invalid_write(msg: impl Into<String>) -> Self {
        Self::write(WriteError::Invalid(msg.into()))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The file offset, when the error is about file bytes.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// Class and member names from the outermost inward, e.g. `["object #3 hkaSkeleton",
    /// "hkaSkeleton.bones"]`.
    pub fn path(&self) -> &[String] {
        &self.0.path
    }

    /// The file, when known.
    pub fn file(&self) -> Option<&Path> {
        self.0.file.as_deref()
    }

    /// Sets the offset if none is set yet.
    #[must_use]
    pub fn at(mut self, offset: u64) -> Self {
        self.0.offset.get_or_insert(offset);
        self
    }

    /// Prepends a path element (the caller's class or member) while unwinding.
    #[must_use]
    pub fn in_(mut self, element: impl Into<String>) -> Self {
        self.0.path.insert(0, element.into());
        self
    }

    /// Prepends `class.member`.
    #[must_use]
    pub fn in_member(self, class: &str, member: &str) -> Self {
        self.in_(format!("{class}.{member}"))
    }

    /// Sets the file if none is set yet.
    #[must_use]
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.0.file.get_or_insert(file.into());
        self
    }

    /// Whether this is a read error.
    pub fn is_read(&self) -> bool {
        matches!(self.0.kind, ErrorKind::Read(_))
    }

    /// Whether this is a write (or edit) error.
    pub fn is_write(&self) -> bool {
        matches!(self.0.kind, ErrorKind::Write(_))
    }

    /// Whether this is a schema error.
    pub fn is_schema(&self) -> bool {
        matches!(self.0.kind, ErrorKind::Schema(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.0.file {
            write!(f, "{}: ", file.display())?;
        }
        if let Some(o) = self.0.offset {
            write!(f, "at 0x{o:X}: ")?;
        }
        if !self.0.path.is_empty() {
            // `a > b[2] > c`: element indices attach to the member before them.
            for (i, p) in self.0.path.iter().enumerate() {
                if i > 0 && !p.starts_with('[') {
                    f.write_str(" > ")?;
                }
                f.write_str(p)?;
            }
            f.write_str(": ")?;
        }
        self.0.kind.fmt(f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ErrorKind::Read(e) => Some(e),
            ErrorKind::Write(e) => Some(e),
            ErrorKind::Schema(e) => Some(e),
            ErrorKind::Convert(e) => Some(e),
            ErrorKind::Io(_) => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e.to_string()))
    }
}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Self {
        Error::read(e)
    }
}

impl From<WriteError> for Error {
    fn from(e: WriteError) -> Self {
        Error::write(e)
    }
}

impl From<SchemaError> for Error {
    fn from(e: SchemaError) -> Self {
        Error::new(ErrorKind::Schema(e))
    }
}

impl From<ConvertError> for Error {
    fn from(e: ConvertError) -> Self {
        Error::convert(e)
    }
}
