//! Errors (core layer): one boxed [`Error`] whose [`ErrorKind`] says which concern failed
//! (reading a file, writing one, a schema, a typed conversion, the operating system), each
//! concern a typed `#[non_exhaustive]` enum, and every error carrying the file offset and the
//! class/member path where it happened.

use std::fmt;
use std::path::{Path, PathBuf};

mod path;
mod selection;

pub use path::PathSegment;
use selection::unverified;
pub use selection::{Check, Tried};

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
    /// A read limit ([`crate::limits::Limits`]) was reached: the file would take more
    /// memory, objects, values or nesting than the read allows.
    #[error("read limit {limit} reached: {needed} {} needed, {max} allowed", limit.unit())]
    Limit {
        /// Which limit.
        limit: Limit,
        /// What the file needs (at least).
        needed: u64,
        /// What the limit allows.
        max: u64,
    },
    /// Something the format allows that hk does not read.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// Most of a packfile's pointer fixups land where the schema lays out no pointer
    /// member: the file is not laid out as the schema says, and its objects would read as
    /// garbage (docs/packfile-format.md §9).
    #[error(
        "{off} of {fixups} pointer fixups in object bodies land off pointer members: the file's layout is not {schema}'s"
    )]
    ForeignLayout {
        /// Fixups on no pointer member.
        off: u64,
        /// Fixups of the data section.
        fixups: u64,
        /// The schema the file was read with.
        schema: String,
    },
    /// A dump that does not parse as JSON or TOML, or holds a value of the wrong type for
    /// its place (where: the error's line and column).
    #[error("{format}: {message}")]
    Syntax {
        /// `JSON` or `TOML`.
        format: &'static str,
        /// What the parser said.
        message: String,
    },
    /// A structure without a part it must hold (`TAG0 has no DATA`).
    #[error("{within} has no {part}")]
    Missing {
        /// The structure (`TAG0`, `TYPE`).
        within: String,
        /// The part it lacks.
        part: String,
    },
    /// A string whose NUL terminator is not before the end of what holds it.
    #[error("{what} runs to the end of {within} without a NUL")]
    Unterminated {
        /// `string`, `class name`.
        what: &'static str,
        /// `the data`, `its section`.
        within: &'static str,
    },
    /// A packfile fixup whose destination lies outside its section.
    #[error("fixup destination 0x{destination:X} is outside section `{section}`")]
    FixupOutside {
        /// The destination, relative to the section's data.
        destination: u32,
        /// The section's tag.
        section: String,
    },
    /// A record of a packfile table that runs past the table's end.
    #[error("{record} runs past its table")]
    PastTable {
        /// The record (`local fixup record`, `export/import name`).
        record: String,
    },
    /// A tagfile whose types are in a compendium (a `TCRF` section), read without one
    /// (docs/tagfile-format.md §1a).
    #[error("the file's types are in a compendium (TCRF id 0x{id:016X}): give it with --compendium FILE")]
    NoCompendium {
        /// The id the file's `TCRF` names.
        id: u64,
    },
    /// A tagfile whose `TCRF` names a compendium id the given compendium does not hold.
    #[error("the file names compendium id 0x{id:016X}, the compendium given holds {}", held.iter().map(|h| format!("0x{h:016X}")).collect::<Vec<_>>().join(", "))]
    CompendiumMismatch {
        /// The id the file's `TCRF` names.
        id: u64,
        /// The ids the compendium's `TCID` lists.
        held: Vec<u64>,
    },
    /// The input breaks a format rule.
    #[error("{0}")]
    Invalid(String),
}

/// Which limit a read reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// [`crate::limits::Limits::max_memory`] (bytes).
    Memory,
    /// [`crate::limits::Limits::max_objects`] (objects).
    Objects,
    /// [`crate::limits::Limits::max_expansion`] (values of one object, its arrays' elements aside).
    Expansion,
    /// [`crate::limits::Limits::max_depth`] (nesting levels).
    Depth,
}

impl Limit {
    /// The limit's name as the command line spells it (`max-memory`).
    pub fn name(self) -> &'static str {
        match self {
            Limit::Memory => "max-memory",
            Limit::Objects => "max-objects",
            Limit::Expansion => "max-expansion",
            Limit::Depth => "max-depth",
        }
    }

    /// What the limit counts.
    pub fn unit(self) -> &'static str {
        match self {
            Limit::Memory => "bytes",
            Limit::Objects => "objects",
            Limit::Expansion => "values",
            Limit::Depth => "levels",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
    /// A member path that names something other than an array where one is needed.
    #[error("`{0}` is not an array")]
    NotArray(String),
    /// A string with a NUL byte, which would end it early in the file.
    #[error("a string holds a NUL byte, which would end it early")]
    Nul,
    /// An XML element where another belongs.
    #[error("<{found}> in {within} (expected <{expected}>)")]
    Element {
        /// The element found (shortened for the message).
        found: String,
        /// Where it was found (`an object`, `a section`).
        within: String,
        /// The element that belongs there.
        expected: &'static str,
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
    /// A class number past the schema's classes.
    #[error("class id {0} is not in the schema")]
    ClassId(u32),
    /// A chain of parents that comes back to a class.
    #[error("parent cycle through `{0}`")]
    ParentCycle(String),
    /// A table of member offsets (a read plan, a typed class's layout table) that names
    /// bytes past its class's size.
    #[error("a {table} names bytes past its class's size")]
    PastSize {
        /// `plan`, `layout table`.
        table: &'static str,
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
    /// No schema folder is of a file's version, and none of the others passes the check
    /// that would let it stand in (docs/schema-selection.md): strict reading refuses the
    /// file rather than read it with classes that may not be its own.
    #[error("{}", unverified(*tagfile, version, tried))]
    Unverified {
        /// Whether the file is a tagfile (whose folder gives only writer rules).
        tagfile: bool,
        /// The file's version as it names it (`hk_2011.1.0-r1`, `SDK 70150100`).
        version: String,
        /// Every folder tried, nearest first, and how it fared.
        tried: Vec<Tried>,
    },
    /// A class of a file's objects that the chosen folder lacks and whose stored signature
    /// no schema folder computes (docs/schema-selection.md, "Borrowed classes").
    #[error(
        "class `{class}` (stored signature 0x{signature:08X}) is not in {folder}, and no schema folder computes its stored signature: add the class to a folder (schemas/README.md, \"Adding a version when files carry only signatures\") or read with `--schema DIR`"
    )]
    Uncomputed {
        /// The class.
        class: String,
        /// The signature the file stores for it.
        signature: u32,
        /// The folder chosen for the file.
        folder: String,
    },
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
    Io(IoError),
    /// A file's collision (bodies, shapes, MOPP code) that cannot be read or run.
    Collision(CollisionError),
    /// A file's skeletons or animations that cannot be read or decoded.
    Anim(AnimError),
}

/// What the operating system said when it refused a read or write: its
/// [`std::io::ErrorKind`], kept for callers to match on, and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoError {
    /// The kind of failure (`NotFound`, `PermissionDenied`, ...).
    pub kind: std::io::ErrorKind,
    /// The operating system's message.
    pub message: String,
}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What went wrong reading collision: a shape whose members do not make sense, or MOPP
/// code that cannot be run. Converts into [`Error`] (of kind [`ErrorKind::Collision`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CollisionError {
    /// A shape or body whose members do not make sense.
    #[error("{object} ({member}): {message}")]
    Shape {
        /// The object, `#id Class`.
        object: String,
        /// `Class.member`.
        member: String,
        /// What is wrong.
        message: String,
    },
    /// A MOPP code that cannot be run.
    #[error("MOPP code at byte {address} (0x{address:X}): {message}")]
    Mopp {
        /// The address of the command in the code.
        address: usize,
        /// What is wrong.
        message: String,
    },
}

#[cfg_attr(not(feature = "codecs"), allow(dead_code))]
impl CollisionError {
    /// A shape error on `member` of `object`.
    pub(crate) fn shape(
        object: impl Into<String>,
        member: impl Into<String>,
        message: impl Into<String>,
    ) -> Box<CollisionError> {
        Box::new(CollisionError::Shape {
            object: object.into(),
            member: member.into(),
            message: message.into(),
        })
    }

    /// A MOPP error at byte `address` of the code.
    pub(crate) fn mopp(address: usize, message: impl Into<String>) -> Box<CollisionError> {
        Box::new(CollisionError::Mopp {
            address,
            message: message.into(),
        })
    }
}

/// What went wrong reading a skeleton or an animation: an object whose members do not make
/// sense, or compressed data that cannot be decoded (named by its byte in the data array).
/// Converts into [`Error`] (of kind [`ErrorKind::Anim`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnimError {
    /// A member whose value does not make sense.
    #[error("{object} ({member}): {message}")]
    Member {
        /// The object, `#id Class`.
        object: String,
        /// `Class.member`.
        member: String,
        /// What is wrong.
        message: String,
    },
    /// Compressed data that cannot be decoded.
    #[error("{object} ({member}), byte {offset} (0x{offset:X}): {message}")]
    Data {
        /// The object, `#id Class`.
        object: String,
        /// `Class.member`: the array holding the data.
        member: String,
        /// The byte in that array.
        offset: usize,
        /// What is wrong.
        message: String,
    },
}

#[cfg_attr(not(feature = "front"), allow(dead_code))]
impl AnimError {
    /// A member error on `member` of `object`.
    pub(crate) fn member(
        object: impl Into<String>,
        member: impl Into<String>,
        message: impl Into<String>,
    ) -> Box<AnimError> {
        Box::new(AnimError::Member {
            object: object.into(),
            member: member.into(),
            message: message.into(),
        })
    }

    /// A data error at byte `offset` of `member` of `object`.
    #[allow(dead_code)]
    pub(crate) fn data(
        object: impl Into<String>,
        member: impl Into<String>,
        offset: usize,
        message: impl Into<String>,
    ) -> Box<AnimError> {
        Box::new(AnimError::Data {
            object: object.into(),
            member: member.into(),
            offset,
            message: message.into(),
        })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Read(e) => e.fmt(f),
            ErrorKind::Write(e) => e.fmt(f),
            ErrorKind::Schema(e) => e.fmt(f),
            ErrorKind::Convert(e) => e.fmt(f),
            ErrorKind::Io(e) => e.fmt(f),
            ErrorKind::Collision(e) => e.fmt(f),
            ErrorKind::Anim(e) => e.fmt(f),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    offset: Option<u64>,
    /// 1-based line and column in a text (a JSON or TOML dump).
    line: Option<(usize, usize)>,
    path: Vec<PathSegment>,
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
            line: None,
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

    /// A structure at `offset` without a part it must hold.
    pub fn missing(offset: u64, within: impl Into<String>, part: impl Into<String>) -> Self {
        Self::read(ReadError::Missing {
            within: within.into(),
            part: part.into(),
        })
        .at(offset)
    }

    /// A string at `offset` that runs to the end of `within` without a NUL.
    pub fn unterminated(offset: u64, what: &'static str, within: &'static str) -> Self {
        Self::read(ReadError::Unterminated { what, within }).at(offset)
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

    /// The 1-based line and column in a text (a JSON or TOML dump), when the error is about
    /// one.
    pub fn line_column(&self) -> Option<(usize, usize)> {
        self.0.line
    }

    /// Where the error happened, from the outermost step inward, e.g. the object
    /// `object #3 hkaSkeleton` then the member `hkaSkeleton.bones`, or in a dump's syntax
    /// `#3 hkaSkeleton`, `.bones`, `[999]`.
    pub fn steps(&self) -> &[PathSegment] {
        &self.0.path
    }

    /// The [`steps`](Self::steps) as text, e.g. `["object #3 hkaSkeleton",
    /// "hkaSkeleton.bones", "[2]"]`.
    pub fn path(&self) -> Vec<String> {
        self.0.path.iter().map(PathSegment::to_string).collect()
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

    /// Sets the 1-based line and column in a text if none are set yet.
    #[must_use]
    pub fn at_line(mut self, line: usize, column: usize) -> Self {
        self.0.line.get_or_insert((line, column));
        self
    }

    /// Prepends a path step (the caller's object, member or element) while unwinding.
    #[must_use]
    pub fn in_(mut self, step: impl Into<PathSegment>) -> Self {
        self.0.path.insert(0, step.into());
        self
    }

    /// Prepends `class.member`.
    #[must_use]
    pub fn in_member(self, class: &str, member: &str) -> Self {
        self.in_(PathSegment::member(class, member))
    }

    /// Prepends element `[i]`.
    #[must_use]
    pub fn in_index(self, i: impl TryInto<u64>) -> Self {
        self.in_(PathSegment::index(i))
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

    /// The operating system's kind of failure, when the operating system refused a read
    /// or write.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match &self.0.kind {
            ErrorKind::Io(e) => Some(e.kind),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.0.file, self.0.line) {
            (Some(file), Some((l, c))) => write!(f, "{}:{l}:{c}: ", file.display())?,
            (Some(file), None) => write!(f, "{}: ", file.display())?,
            (None, Some((l, c))) => write!(f, "line {l}, column {c}: ")?,
            (None, None) => {}
        }
        if let Some(o) = self.0.offset {
            write!(f, "at 0x{o:X}: ")?;
        }
        if !self.0.path.is_empty() {
            // `a > b[2] > c`: element indices (and a dump's `.member`) attach to what is
            // before them.
            for (i, p) in self.0.path.iter().enumerate() {
                if i > 0 && !p.attaches() {
                    f.write_str(" > ")?;
                }
                p.fmt(f)?;
            }
            f.write_str(": ")?;
        }
        self.0.kind.fmt(f)
    }
}

/// No `source()`: [`Error`]'s `Display` already shows its kind, which is the whole of what
/// went wrong (the kinds carry no further cause), so a chain printer shows each part once.
impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(IoError {
            kind: e.kind(),
            message: e.to_string(),
        }))
    }
}

impl From<CollisionError> for Error {
    fn from(e: CollisionError) -> Self {
        Error::new(ErrorKind::Collision(e))
    }
}

impl From<Box<CollisionError>> for Error {
    fn from(e: Box<CollisionError>) -> Self {
        Error::from(*e)
    }
}

impl From<AnimError> for Error {
    fn from(e: AnimError) -> Self {
        Error::new(ErrorKind::Anim(e))
    }
}

impl From<Box<AnimError>> for Error {
    fn from(e: Box<AnimError>) -> Self {
        Error::from(*e)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The error and its `source()` chain, anyhow's `{:#}` way: `a: b: c`.
    fn chain(e: &dyn std::error::Error) -> String {
        let mut out = e.to_string();
        let mut next = e.source();
        while let Some(s) = next {
            out.push_str(": ");
            out.push_str(&s.to_string());
            next = s.source();
        }
        out
    }

    #[test]
    fn a_chain_prints_each_part_once() {
        let e = Error::invalid(0x40, "bad magic")
            .in_index(2)
            .in_member("hkaSkeleton", "bones")
            .in_(PathSegment::object(3u32, "hkaSkeleton"));
        let text = "at 0x40: object #3 hkaSkeleton > hkaSkeleton.bones[2]: bad magic";
        assert_eq!(e.to_string(), text);
        assert_eq!(chain(&e), text);
        let io = Error::from(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file",
        ))
        .in_file("a.hkx");
        assert_eq!(chain(&io), "a.hkx: no such file");
        assert_eq!(io.io_kind(), Some(std::io::ErrorKind::NotFound));
        let c = Error::from(CollisionError::mopp(7, "jump past the end")).in_file("b.hkx");
        assert_eq!(
            chain(&c),
            "b.hkx: MOPP code at byte 7 (0x7): jump past the end"
        );
    }

    #[test]
    fn dump_paths_attach_members_and_indices() {
        let e = Error::read(ReadError::Invalid("no".into()))
            .in_index(999)
            .in_(PathSegment::field("bones"))
            .in_("#3 hkaSkeleton");
        assert_eq!(e.to_string(), "#3 hkaSkeleton.bones[999]: no");
    }
}
