//! Read options and limits (core layer): how strictly a file is read, and how much one read
//! may take. Files come from strangers, so every reader works inside [`Limits`]: the memory
//! its tables and graph may take (by default 16 times the input plus 64 MiB), how many
//! objects a file may hold, how many values one object may expand into, and how deep values
//! may nest. Going past one is a [`ReadError::Limit`] naming the limit, with the file offset.
//!
//! Readers charge a [`Budget`] once per object, array, string or table, before allocating
//! it, never per byte: the checks cost a subtraction per array, not per element.
//!
//! With the `cli` feature, [`Limits`] and [`ReadOptions`] derive `clap::Args`: a program
//! flattens them into its arguments (`--max-memory`, `--max-objects`, `--max-expansion`,
//! `--max-depth`, `--lenient`).

pub use crate::error::Limit;
use crate::error::{Error, ReadError, Result};

/// Default [`Limits::max_memory`] factor: a read may take 16 bytes per input byte...
pub const MEMORY_PER_INPUT_BYTE: u64 = 16;
/// ...plus this many bytes (64 MiB), so that small files never meet the limit.
pub const MEMORY_BASE: u64 = 64 << 20;
/// Default [`Limits::max_objects`].
pub const DEFAULT_MAX_OBJECTS: u64 = 1 << 22;
/// Default [`Limits::max_expansion`].
pub const DEFAULT_MAX_EXPANSION: u64 = 1 << 20;
/// Default [`Limits::max_depth`].
pub const DEFAULT_MAX_DEPTH: u32 = 48;
/// The deepest nesting any reader follows, whatever [`Limits::max_depth`] says (each level
/// is a few stack frames).
pub const HARD_MAX_DEPTH: u32 = 256;

/// Bounds on what reading one file may take. Build them from [`Limits::default`] and the
/// `with_*` methods (or set the fields of a default value).
///
/// As command-line arguments (feature `cli`), each is a global option of its name
/// (`--max-memory SIZE`, `--max-objects N`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[non_exhaustive]
pub struct Limits {
    /// The most bytes one read may allocate for the file's tables, its schema (a tagfile's
    /// type table) and its object graph, estimated as the reader goes; `None` for
    /// [`MEMORY_PER_INPUT_BYTE`] times the input size plus [`MEMORY_BASE`].
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            global = true,
            value_name = "SIZE",
            value_parser = parse_size,
            help = "The most memory reading one file may take, such as 512M or 2G \
                    [default: 16 times the file's size plus 64M]"
        )
    )]
    pub max_memory: Option<u64>,
    /// The most objects a file may hold.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            global = true,
            value_name = "N",
            default_value_t = DEFAULT_MAX_OBJECTS,
            help = "The most objects one file may hold"
        )
    )]
    pub max_objects: u64,
    /// The most values one object may expand into (its members, nested structs and C
    /// arrays; its arrays' elements count against `max_memory`), computed from its class
    /// before it is read: a type that holds many of a type that holds many of ... stops
    /// here, whatever the file's size.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            global = true,
            value_name = "N",
            default_value_t = DEFAULT_MAX_EXPANSION,
            help = "The most values one object may expand into (members, structs and C \
                    arrays inside it; its arrays' elements count against --max-memory)"
        )
    )]
    pub max_expansion: u64,
    /// How deep values may nest below an object (structs, C arrays, arrays of arrays);
    /// readers follow at most [`HARD_MAX_DEPTH`] levels whatever this says.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            global = true,
            value_name = "N",
            default_value_t = DEFAULT_MAX_DEPTH,
            value_parser = clap::value_parser!(u32).range(1..=i64::from(HARD_MAX_DEPTH)),
            help = "How deep values may nest below an object (structs, C arrays, arrays \
                    of arrays)"
        )
    )]
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_memory: None,
            max_objects: DEFAULT_MAX_OBJECTS,
            max_expansion: DEFAULT_MAX_EXPANSION,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

impl Limits {
    /// These limits with `max_memory` set (`None`: the default formula).
    #[must_use]
    pub fn with_max_memory(mut self, bytes: Option<u64>) -> Self {
        self.max_memory = bytes;
        self
    }

    /// These limits with `max_objects` set.
    #[must_use]
    pub fn with_max_objects(mut self, n: u64) -> Self {
        self.max_objects = n;
        self
    }

    /// These limits with `max_expansion` set.
    #[must_use]
    pub fn with_max_expansion(mut self, n: u64) -> Self {
        self.max_expansion = n;
        self
    }

    /// These limits with `max_depth` set.
    #[must_use]
    pub fn with_max_depth(mut self, n: u32) -> Self {
        self.max_depth = n;
        self
    }

    /// The memory a read of `input` bytes may take.
    pub fn memory_for(&self, input: u64) -> u64 {
        self.max_memory.unwrap_or_else(|| {
            input
                .saturating_mul(MEMORY_PER_INPUT_BYTE)
                .saturating_add(MEMORY_BASE)
        })
    }

    /// The nesting depth readers follow: `max_depth`, at most [`HARD_MAX_DEPTH`].
    pub fn depth(&self) -> usize {
        self.max_depth.min(HARD_MAX_DEPTH) as usize
    }

    /// An error for `limit` reached at file offset `at`: `needed` where `max` is allowed.
    pub fn exceeded(limit: Limit, needed: u64, max: u64, at: u64) -> Error {
        Error::read(ReadError::Limit { limit, needed, max }).at(at)
    }

    /// Checks an object count found at `at`.
    ///
    /// # Errors
    /// More than `max_objects`.
    pub fn check_objects(&self, n: u64, at: u64) -> Result<()> {
        if n > self.max_objects {
            return Err(Self::exceeded(Limit::Objects, n, self.max_objects, at));
        }
        Ok(())
    }

    /// Checks the value count one object of a class expands into, at `at`.
    ///
    /// # Errors
    /// More than `max_expansion`.
    #[inline]
    pub fn check_expansion(&self, values: u64, at: u64) -> Result<()> {
        if values > self.max_expansion {
            return Err(Self::exceeded(
                Limit::Expansion,
                values,
                self.max_expansion,
                at,
            ));
        }
        Ok(())
    }

    /// The error for nesting deeper than [`Limits::depth`] at `at`.
    pub fn too_deep(&self, at: u64) -> Error {
        let d = self.depth() as u64;
        Self::exceeded(Limit::Depth, d + 1, d, at)
    }
}

/// How strictly, and within which limits, to read a file.
///
/// As command-line arguments (feature `cli`): `--lenient`. The limits are not among them:
/// a program takes them once, as the global options of [`Limits`], and sets them with
/// [`ReadOptions::with_limits`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[non_exhaustive]
pub struct ReadOptions {
    /// Report broken invariants instead of failing on the first (packfiles).
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            help = "Read files that break the format's invariants, with one warning per rule broken (how often, and where first)"
        )
    )]
    pub lenient: bool,
    /// What one read may take.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub limits: Limits,
}

impl ReadOptions {
    /// Strict reading within the default limits (the default).
    pub fn strict() -> Self {
        ReadOptions::default()
    }

    /// Lenient reading within the default limits.
    pub fn lenient() -> Self {
        ReadOptions::default().with_lenient(true)
    }

    /// These options, lenient or strict.
    #[must_use]
    pub fn with_lenient(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }

    /// These options with `limits`.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// A byte size as people write it: `1048576`, `512K`, `64M`, `2G` (binary units; a
/// trailing `B` or `iB` is allowed), as `--max-memory` takes it.
///
/// # Errors
/// Anything else, or a size past `u64`.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let lower = text.trim().to_ascii_lowercase();
    let t = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("`{text}`: unknown unit `{c}` (K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a size such as 512M or 2G"))?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{text}` is too large"))
}

/// What one read may still allocate: charged before each table, object, array or string is
/// allocated, with an estimate of its size.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    left: u64,
    max: u64,
}

impl Budget {
    /// The budget of a read of `input` bytes under `limits`.
    pub fn new(limits: &Limits, input: u64) -> Self {
        let max = limits.memory_for(input);
        Budget { left: max, max }
    }

    /// A budget that never runs out.
    pub fn unlimited() -> Self {
        Budget {
            left: u64::MAX,
            max: u64::MAX,
        }
    }

    /// Takes `bytes` from the budget, for something read at file offset `at`.
    ///
    /// # Errors
    /// [`Limit::Memory`] when fewer than `bytes` remain.
    #[inline]
    pub fn charge(&mut self, bytes: u64, at: u64) -> Result<()> {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(self.exceeded(bytes, at)),
        }
    }

    /// [`Budget::charge`] with the offset computed only when the charge fails.
    ///
    /// # Errors
    /// As [`Budget::charge`].
    #[inline]
    pub fn charge_at(&mut self, bytes: u64, at: impl FnOnce() -> u64) -> Result<()> {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(self.exceeded(bytes, at())),
        }
    }

    /// [`Budget::charge`] of `count` items of `each` bytes.
    ///
    /// # Errors
    /// As [`Budget::charge`].
    #[inline]
    pub fn charge_n(&mut self, count: u64, each: u64, at: u64) -> Result<()> {
        self.charge(count.saturating_mul(each), at)
    }

    #[cold]
    fn exceeded(&self, bytes: u64, at: u64) -> Error {
        let needed = self.used().saturating_add(bytes);
        Limits::exceeded(Limit::Memory, needed, self.max, at)
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.max - self.left
    }

    /// The most the budget allows.
    pub fn max(&self) -> u64 {
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_refuses_what_passes_its_limit_and_names_it() {
        let limits = Limits::default().with_max_memory(Some(100));
        let mut b = Budget::new(&limits, 1 << 30);
        b.charge(60, 1).unwrap();
        b.charge_n(4, 10, 2).unwrap();
        assert_eq!(b.used(), 100);
        let e = b.charge(1, 0x40).unwrap_err();
        assert_eq!(e.offset(), Some(0x40));
        assert_eq!(
            e.kind(),
            &crate::ErrorKind::Read(ReadError::Limit {
                limit: Limit::Memory,
                needed: 101,
                max: 100
            })
        );
        assert!(e.to_string().contains("max-memory"), "{e}");
        // A count times a size that overflows is refused, not wrapped.
        assert!(Budget::new(&Limits::default(), 0)
            .charge_n(u64::MAX, 2, 0)
            .is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("3gb"), Ok(3 << 30));
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn default_memory_is_sixteen_times_the_input_plus_a_base() {
        let l = Limits::default();
        assert_eq!(l.memory_for(1000), 16_000 + (64 << 20));
        assert_eq!(l.with_max_memory(Some(5)).memory_for(1000), 5);
        assert_eq!(l.with_max_depth(100_000).depth(), HARD_MAX_DEPTH as usize);
    }
}
