//! The errors of hk's commands: the runtime's typed errors kept whole (with their file
//! offset and object/member path), and what the command line adds: files it cannot read or
//! write, dumps and profiles that do not parse (with line and column), schema folders with
//! problems, and wrong arguments.

use std::fmt;
use std::path::{Path, PathBuf};

use hk_runtime::schema::Diagnostics;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where in a text a parser stopped: 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl LineCol {
    /// The line and column of byte `offset` of `text` (columns count characters), through
    /// the runtime's [`hk_runtime::text::line_column`].
    pub fn of(text: &str, offset: usize) -> LineCol {
        let (line, column) = hk_runtime::text::line_column(text, offset);
        LineCol { line, column }
    }
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why an hk command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading, writing or checking a Havok file, a dump or a schema in the runtime. Shown
    /// with its file, offset and object/member path.
    #[error(transparent)]
    Runtime(#[from] hk_runtime::Error),
    /// A file or folder the command could not read or write.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said (shown in the message, so not a `source()`).
        error: std::io::Error,
    },
    /// Writing the command's output (stdout, stderr) failed; a closed pipe ends the
    /// command quietly.
    #[error("writing the output: {0}")]
    Output(std::io::Error),
    /// A JSON file that does not parse.
    #[error("{}:{at}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where the parser stopped.
        at: LineCol,
        /// What the parser said.
        message: String,
    },
    /// A TOML file that does not parse (or does not have the keys it must).
    #[error("{}{}: {message}", path.display(), at.map(|a| format!(":{a}")).unwrap_or_default())]
    Toml {
        /// The file.
        path: PathBuf,
        /// Where the parser stopped, when it says.
        at: Option<LineCol>,
        /// What the parser said.
        message: String,
    },
    /// A schema folder with problems, each with its file, line and key.
    #[error("schema {name} has {} problem(s):\n{diagnostics}", diagnostics.0.len())]
    Schema {
        /// The folder (or generation name).
        name: String,
        /// Every problem.
        diagnostics: Diagnostics,
    },
    /// A game profile that cannot be used.
    #[error("profile {name}: {message}")]
    Profile {
        /// The profile.
        name: String,
        /// Why.
        message: String,
    },
    /// A reflection dump `hk schema import` cannot convert.
    #[error("{}: {message}", input.display())]
    Import {
        /// The dump.
        input: PathBuf,
        /// Why.
        message: String,
    },
    /// A dump that cannot be written in the format asked for.
    #[error("the dump does not serialize as {format}: {message}")]
    Dump {
        /// `JSON` or `TOML`.
        format: &'static str,
        /// What the serializer said.
        message: String,
    },
    /// A command needs the hk source checkout (building generated crates), and none is
    /// known.
    #[error("{0}")]
    NoCheckout(String),
    /// Some files of a batch failed; each was reported as it failed.
    #[error("{failed} of {total} files failed (listed above)")]
    Batch {
        /// Files that failed.
        failed: usize,
        /// Files attempted.
        total: usize,
    },
    /// Arguments that do not go together, or name nothing.
    #[error("{0}")]
    Usage(String),
    /// An output the command will not write: a symbolic link, or one of its own inputs
    /// ([`crate::outputs`]).
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The output.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Geometry that cannot be written or drawn (a non-finite vertex, nothing to draw, an
    /// output too large for its format).
    #[error("{}: {message}", path.display())]
    Geometry {
        /// The input file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A child process (cargo building a generated crate) could not be run.
    #[error("cannot run {program}: {error}")]
    Process {
        /// The program.
        program: String,
        /// What the operating system said (shown in the message, so not a `source()`).
        error: std::io::Error,
    },
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl AsRef<Path>, error: std::io::Error) -> Error {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            error,
        }
    }

    /// This error, naming the file it is about when it is a runtime error that does not.
    pub fn in_file(self, path: impl AsRef<Path>) -> Error {
        match self {
            Error::Runtime(e) if e.file().is_none() => {
                Error::Runtime(e.in_file(path.as_ref().to_path_buf()))
            }
            other => other,
        }
    }

    /// A collision error in file `path`: a runtime error of kind
    /// [`hk_runtime::ErrorKind::Collision`], naming the file.
    pub fn collision(
        path: impl AsRef<Path>,
        error: Box<hk_runtime::collision::CollisionError>,
    ) -> Error {
        Error::Runtime(hk_runtime::Error::from(error).in_file(path.as_ref()))
    }

    /// A geometry error about the collision of file `path`.
    pub fn geometry(path: impl AsRef<Path>, message: impl Into<String>) -> Error {
        Error::Geometry {
            path: path.as_ref().to_path_buf(),
            message: message.into(),
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    /// A JSON parse error of the text of `path`.
    pub fn json(path: impl AsRef<Path>, e: &serde_json::Error) -> Error {
        let full = e.to_string();
        // serde_json appends " at line L column C"; the location is shown in front.
        let message = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(m, _)| m)
            .to_string();
        Error::Json {
            path: path.as_ref().to_path_buf(),
            at: LineCol {
                line: e.line(),
                column: e.column(),
            },
            message,
        }
    }

    /// A TOML parse error of `text`, read from `path`.
    pub fn toml(path: impl AsRef<Path>, text: &str, e: &toml::de::Error) -> Error {
        Error::Toml {
            path: path.as_ref().to_path_buf(),
            at: e.span().map(|s| LineCol::of(text, s.start)),
            message: e.message().trim_end().to_string(),
        }
    }

    /// A schema folder's problems.
    pub fn schema(name: impl Into<String>, diagnostics: Diagnostics) -> Error {
        Error::Schema {
            name: name.into(),
            diagnostics,
        }
    }

    /// The runtime error, when this is one (its `kind()`, `offset()` and `path()`).
    pub fn runtime(&self) -> Option<&hk_runtime::Error> {
        match self {
            Error::Runtime(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the output's reader went away (`hk info FILE | head`): not worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// The read limit a file reached, if that is what went wrong (the command line names
    /// its flag).
    pub fn limit(&self) -> Option<hk_runtime::limits::Limit> {
        match self {
            Error::Runtime(e) => match e.kind() {
                hk_runtime::ErrorKind::Read(hk_runtime::error::ReadError::Limit {
                    limit, ..
                }) => Some(*limit),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_of_an_offset() {
        let t = "a = 1\nbé = x\n";
        assert_eq!(LineCol::of(t, 0), LineCol { line: 1, column: 1 });
        assert_eq!(LineCol::of(t, 6), LineCol { line: 2, column: 1 });
        // After the two-byte `é`: column counts characters.
        assert_eq!(LineCol::of(t, 9), LineCol { line: 2, column: 3 });
        assert_eq!(LineCol::of(t, 1000).line, 3);
    }

    #[test]
    fn runtime_errors_stay_typed() {
        let e: Error = hk_runtime::Error::invalid(0x40, "bad")
            .in_("object #1 X")
            .into();
        let r = e.runtime().expect("typed");
        assert_eq!(r.offset(), Some(0x40));
        assert_eq!(
            r.steps(),
            [hk_runtime::error::PathSegment::from("object #1 X")]
        );
        assert_eq!(r.path(), ["object #1 X".to_string()]);
        assert_eq!(e.to_string(), "at 0x40: object #1 X: bad");
    }

    #[test]
    fn io_errors_print_the_os_message_once_in_a_chain() {
        let e = Error::io("a.hkx", std::io::Error::other("disk full"));
        let mut chain = e.to_string();
        let mut next = std::error::Error::source(&e);
        while let Some(s) = next {
            chain = format!("{chain}: {s}");
            next = s.source();
        }
        assert_eq!(chain, "a.hkx: disk full");
    }

    #[test]
    fn json_and_toml_errors_name_file_line_and_column() {
        let j = serde_json::from_str::<serde_json::Value>("{\n  \"a\": ,\n}").unwrap_err();
        let e = Error::json("d.json", &j);
        assert!(e.to_string().starts_with("d.json:2:8: "), "{e}");
        let text = "a = 1\nb = \n";
        let t = toml::from_str::<toml::Value>(text).unwrap_err();
        let e = Error::toml("d.toml", text, &t);
        assert!(e.to_string().starts_with("d.toml:2:"), "{e}");
    }
}
