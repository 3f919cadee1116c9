//! Reading the stream's primitives: sign-bit varints, remembered strings, floats and
//! member bitfields (docs/binary-tagfile-format.md §1), every read bounds-checked. Rules
//! that Havok's own reader does not enforce but its writer always keeps (shortest varints,
//! zero padding bits, strings written once) are *soft*: strict reading refuses a break,
//! lenient reading records it. Each remembered string and each soft break is charged to the
//! read's memory [`Budget`] before it is kept.

use foldhash::{HashSet, HashSetExt};

use crate::error::{Error, Result};
use crate::limits::{Budget, ReadOptions};
use crate::schema::names::{self, NameKind};

/// Bytes the reader keeps per remembered string: its table slot (16 bytes, in a list that
/// may double) and its entry in the set of strings written out (16 bytes, in a table up to
/// 2.3 times as large, rebuilt as it grows).
const STRING_ENTRY: u64 = 3 * 16 + 64;

/// Where the reader is in the object graph, for error and violation paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Object number `.0` (1-based, as the stream counts) of definition `.1`.
    Object(u32, usize),
    /// Member `.1` of definition `.0`.
    Member(usize, usize),
    /// Element `.0` of an array, tuple or struct column.
    Index(u32),
}

/// A soft rule broken in lenient mode: where, on which path, and what.
#[derive(Clone, Debug)]
pub(crate) struct Soft {
    pub offset: u64,
    pub path: Vec<Step>,
    pub message: String,
}

/// The input stream and the reader's string table.
#[derive(Debug)]
pub(crate) struct Input<'a> {
    data: &'a [u8],
    /// Read position.
    pub pos: usize,
    lenient: bool,
    /// Soft rules broken so far (lenient mode).
    pub soft: Vec<Soft>,
    /// Remembered strings: 0 is `""`, 1 is null, then every string written out in full.
    strings: Vec<Option<&'a [u8]>>,
    written: HashSet<&'a [u8]>,
    /// The path being read.
    pub path: Vec<Step>,
    /// What the read may still allocate.
    pub budget: Budget,
}

/// Bytes of the shortest encoding of a magnitude: 6 bits in the first byte, 7 in each
/// further byte.
pub fn varint_len(magnitude: u64) -> usize {
    let bits = 64 - magnitude.leading_zeros() as usize;
    if bits <= 6 {
        1
    } else {
        1 + (bits - 6).div_ceil(7)
    }
}

/// Appends `v` in its shortest form: bit 0 of the first byte is the sign, bits 1-6 the low
/// magnitude bits, bit 7 of every byte says another follows with 7 more.
pub fn put_varint(out: &mut Vec<u8>, v: i64) {
    let magnitude = v.unsigned_abs();
    let mut b = (((magnitude & 0x3F) << 1) as u8) | u8::from(v < 0);
    let mut rest = magnitude >> 6;
    while rest != 0 {
        out.push(b | 0x80);
        b = (rest & 0x7F) as u8;
        rest >>= 7;
    }
    out.push(b);
}

impl<'a> Input<'a> {
    /// A reader of `data` from offset 8 (after the magic), as strict or lenient as `opts`
    /// say, charging `budget`.
    pub fn new(data: &'a [u8], opts: &ReadOptions, budget: Budget) -> Self {
        Input {
            data,
            pos: 8,
            lenient: opts.lenient,
            soft: Vec::new(),
            strings: vec![Some(b""), None],
            written: HashSet::new(),
            path: Vec::new(),
            budget,
        }
    }

    /// Bytes left.
    pub fn left(&self) -> u64 {
        (self.data.len() - self.pos) as u64
    }

    /// The bytes after the read position.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// A soft rule broken at `at`: an error in strict mode, a record in lenient mode.
    pub fn soft(&mut self, at: usize, message: impl FnOnce() -> String) -> Result<()> {
        if !self.lenient {
            return Err(Error::invalid(at as u64, message()));
        }
        let message = message();
        let path = (self.path.len() * std::mem::size_of::<Step>()) as u64;
        // Its entry in a list that may double, its message and path, and the violation
        // record it becomes.
        let size = 4 * std::mem::size_of::<Soft>() as u64 + message.len() as u64 + path;
        self.budget.charge(size, at as u64)?;
        self.soft.push(Soft {
            offset: at as u64,
            path: self.path.clone(),
            message,
        });
        Ok(())
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let left = self.data.len() - self.pos;
        if n > left {
            return Err(Error::truncated(self.pos as u64, n as u64, left as u64));
        }
        let b = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    /// One byte.
    pub fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// A little-endian `f32`, bits kept.
    pub fn f32(&mut self) -> Result<f32> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A signed varint of up to 64 bits. A longer encoding than needed (or a negative
    /// zero) is soft; a magnitude past 64 bits or outside `i64` is an error.
    pub fn varint(&mut self) -> Result<i64> {
        let at = self.pos;
        let first = self.byte()?;
        let negative = first & 1 != 0;
        let mut magnitude = u64::from((first & 0x7E) >> 1);
        let mut shift = 6u32;
        let mut b = first;
        while b & 0x80 != 0 {
            b = self.byte()?;
            let bits = u64::from(b & 0x7F);
            if shift >= 64 || (shift > 57 && bits >> (64 - shift) != 0) {
                return Err(Error::invalid(at as u64, "a varint longer than 64 bits"));
            }
            magnitude |= bits << shift;
            shift += 7;
        }
        let len = self.pos - at;
        if len != varint_len(magnitude) || (negative && magnitude == 0) {
            self.soft(at, || {
                format!("a varint of {len} bytes is not in its shortest form")
            })?;
        }
        match (negative, i64::try_from(magnitude)) {
            (false, Ok(v)) => Ok(v),
            (true, Ok(v)) => Ok(-v),
            (true, Err(_)) if magnitude == 1 << 63 => Ok(i64::MIN),
            _ => Err(Error::invalid(
                at as u64,
                format!("varint magnitude {magnitude} is outside a 64-bit integer"),
            )),
        }
    }

    /// A varint that must fit 32 bits (tags, counts, indices, versions).
    pub fn int32(&mut self, what: &str) -> Result<i32> {
        let at = self.pos;
        let v = self.varint()?;
        i32::try_from(v)
            .map_err(|_| Error::invalid(at as u64, format!("{what} {v} does not fit 32 bits")))
    }

    /// A count of items of at least `min_bytes` bytes each, checked against the bytes
    /// left before anything is allocated.
    pub fn count(&mut self, what: &str, min_bytes: u64) -> Result<usize> {
        let at = self.pos as u64;
        let n = self.int32(what)?;
        let n =
            u64::try_from(n).map_err(|_| Error::invalid(at, format!("{what} {n} is negative")))?;
        let left = self.left();
        if n.saturating_mul(min_bytes) > left {
            return Err(Error::count(at, n, min_bytes, left));
        }
        Ok(n as usize)
    }

    /// A string: a positive length and that many bytes (then remembered), or `-i` for
    /// remembered string `i` (0 is `""`, 1 is null). A string written out in full although
    /// the table holds it already is soft (the writer references it).
    pub fn string(&mut self) -> Result<Option<&'a [u8]>> {
        let at = self.pos;
        let len = self.varint()?;
        if len > 0 {
            let left = self.left();
            if len as u64 > left {
                return Err(Error::truncated(at as u64, len as u64, left));
            }
            let s = self.take(len as usize)?;
            self.budget.charge(STRING_ENTRY, at as u64)?;
            if !self.written.insert(s) {
                self.soft(at, || {
                    format!(
                        "the string {:?} is written out again; the table holds it already",
                        String::from_utf8_lossy(s)
                    )
                })?;
            }
            self.strings.push(Some(s));
            return Ok(Some(s));
        }
        let i = len.unsigned_abs();
        usize::try_from(i)
            .ok()
            .and_then(|i| self.strings.get(i).copied())
            .ok_or_else(|| {
                Error::invalid(
                    at as u64,
                    format!(
                        "string reference {len} is past the {} strings read so far",
                        self.strings.len()
                    ),
                )
            })
    }

    /// A non-null UTF-8 string (class and member names).
    pub fn name(&mut self, what: &str) -> Result<String> {
        self.name_ref(what).map(str::to_string)
    }

    /// [`Input::name`], borrowed from the input.
    pub fn name_ref(&mut self, what: &str) -> Result<&'a str> {
        let at = self.pos as u64;
        match self.string()? {
            None => Err(Error::invalid(at, format!("{what} is a null string"))),
            Some(b) => std::str::from_utf8(b)
                .map_err(|_| Error::invalid(at, format!("{what} is not UTF-8"))),
        }
    }

    /// [`Input::name`], refused unless it is a `kind` name ([`names::check`]).
    pub fn name_of(&mut self, kind: NameKind, what: &str) -> Result<String> {
        let at = self.pos as u64;
        let name = self.name(what)?;
        names::check(kind, &name).map_err(|m| Error::invalid(at, format!("{what}: {m}")))?;
        Ok(name)
    }

    /// [`Input::name_ref`], refused unless it is a `kind` name ([`names::check`]).
    pub fn name_ref_of(&mut self, kind: NameKind, what: &str) -> Result<&'a str> {
        let at = self.pos as u64;
        let name = self.name_ref(what)?;
        names::check(kind, name).map_err(|m| Error::invalid(at, format!("{what}: {m}")))?;
        Ok(name)
    }

    /// Strings in the table (the two preset ones included).
    pub fn strings(&self) -> usize {
        self.strings.len()
    }

    /// A member bitfield of `n` members: `ceil(n / 8)` bytes, bit `i % 8` of byte `i / 8`
    /// for member `i`. Bits past `n` must be zero (soft).
    pub fn bits(&mut self, n: usize) -> Result<Vec<bool>> {
        let at = self.pos;
        let bytes = self.take(n.div_ceil(8))?;
        let bit = |i: usize| bytes[i / 8] >> (i % 8) & 1 != 0;
        if (n..bytes.len() * 8).any(bit) {
            self.soft(at, || "bits past the last member are set".to_string())?;
        }
        Ok((0..n).map(bit).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_refuse_long_forms() {
        for v in [
            0i64,
            1,
            -1,
            31,
            32,
            63,
            64,
            -64,
            8191,
            1 << 40,
            i64::MAX,
            i64::MIN,
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let data = [&[0u8; 8][..], &out].concat();
            let mut i = Input::new(&data, &ReadOptions::strict(), Budget::unlimited());
            assert_eq!(i.varint().unwrap(), v, "{v}");
            assert_eq!(i.left(), 0);
            assert_eq!(out.len(), varint_len(v.unsigned_abs()));
        }
        // 4 with a continuation byte of zero: not the shortest form.
        let data = [0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x00];
        assert!(
            Input::new(&data, &ReadOptions::strict(), Budget::unlimited())
                .varint()
                .is_err()
        );
        let mut lenient = Input::new(&data, &ReadOptions::lenient(), Budget::unlimited());
        assert_eq!(lenient.varint().unwrap(), 4);
        assert_eq!(lenient.soft.len(), 1);
        // Eleven bytes: past 64 bits.
        let data = [[0u8; 8].as_slice(), &[0xFF; 10], &[0x01]].concat();
        assert!(
            Input::new(&data, &ReadOptions::lenient(), Budget::unlimited())
                .varint()
                .is_err()
        );
    }
}
