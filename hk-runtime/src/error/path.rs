//! The steps of an [`Error`](super::Error)'s path: objects, members, elements.

use std::fmt;

/// One step of the path from a file's outermost structure to where an error happened.
/// [`Error`](super::Error)'s `Display` joins steps with ` > `, except that an index and a
/// dump's bare member attach to the step before them:
/// `object #3 hkaSkeleton > hkaSkeleton.bones[2]`, `#3 hkaSkeleton.bones[2]`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathSegment {
    /// An object of a graph or file, `object #3 hkaSkeleton`.
    Object {
        /// The object's number.
        id: u64,
        /// Its class.
        class: String,
    },
    /// A member: `hkaSkeleton.bones` with its class, `.bones` (attached to the step before)
    /// as a dump spells it without one.
    Member {
        /// The class that declares the member, when named.
        class: Option<String>,
        /// The member.
        name: String,
    },
    /// An element of an array or tuple, `[2]` (attached to the step before).
    Index(u64),
    /// Any other place, as text: a section (`TBOD`), a dump's object (`#3 hkaSkeleton`),
    /// a schema folder, a class being defined.
    Named(String),
}

impl PathSegment {
    /// `class.name`.
    pub fn member(class: impl Into<String>, name: impl Into<String>) -> Self {
        PathSegment::Member {
            class: Some(class.into()),
            name: name.into(),
        }
    }

    /// `.name`, a member a dump names without its class.
    pub fn field(name: impl Into<String>) -> Self {
        PathSegment::Member {
            class: None,
            name: name.into(),
        }
    }

    /// `object #id class`.
    pub fn object(id: impl TryInto<u64>, class: impl AsRef<str>) -> Self {
        PathSegment::Object {
            id: id.try_into().unwrap_or(u64::MAX),
            class: class.as_ref().to_string(),
        }
    }

    /// `[i]`.
    pub fn index(i: impl TryInto<u64>) -> Self {
        PathSegment::Index(i.try_into().unwrap_or(u64::MAX))
    }

    /// Whether the step continues the one before it (no ` > ` between them).
    pub(super) fn attaches(&self) -> bool {
        matches!(
            self,
            PathSegment::Index(_) | PathSegment::Member { class: None, .. }
        )
    }
}

impl fmt::Display for PathSegment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathSegment::Object { id, class } => write!(f, "object #{id} {class}"),
            PathSegment::Member {
                class: Some(c),
                name,
            } => write!(f, "{c}.{name}"),
            PathSegment::Member { class: None, name } => write!(f, ".{name}"),
            PathSegment::Index(i) => write!(f, "[{i}]"),
            PathSegment::Named(s) => f.write_str(s),
        }
    }
}

impl From<String> for PathSegment {
    fn from(s: String) -> Self {
        PathSegment::Named(s)
    }
}

impl From<&str> for PathSegment {
    fn from(s: &str) -> Self {
        PathSegment::Named(s.to_string())
    }
}
