//! A cursor over one block of the `data` array: reads in the array's byte order
//! (`endian`), alignment relative to the array's start, and every read checked against
//! the block's end (docs/anim-spline.md, "Byte order" and "Block layout").

/// A problem at a byte of `data`: the offset and what is wrong.
pub(super) type Fault = (usize, String);

/// Results of the block readers.
pub(super) type Res<T> = std::result::Result<T, Fault>;

/// A read position in `data`, bounded by the end of the current block.
pub(super) struct Cursor<'a> {
    data: &'a [u8],
    pub(super) pos: usize,
    end: usize,
    big: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos` that may read up to `end` (both within `data`).
    pub(super) fn new(data: &'a [u8], pos: usize, end: usize, big: bool) -> Cursor<'a> {
        Cursor {
            data,
            pos,
            end: end.min(data.len()),
            big,
        }
    }

    /// The next `n` bytes.
    pub(super) fn take(&mut self, n: usize, what: &str) -> Res<&'a [u8]> {
        match self.pos.checked_add(n) {
            Some(e) if e <= self.end => {
                let s = &self.data[self.pos..e];
                self.pos = e;
                Ok(s)
            }
            _ => Err((
                self.pos,
                format!(
                    "{what}: {n} bytes run past the block's end at byte {}",
                    self.end
                ),
            )),
        }
    }

    /// Skips to the next multiple of `n` (a power of two) from the array's start.
    pub(super) fn align(&mut self, n: usize) -> Res<()> {
        let pad = self.pos.wrapping_neg() & (n - 1);
        self.take(pad, "padding").map(|_| ())
    }

    /// One byte.
    pub(super) fn u8(&mut self, what: &str) -> Res<u8> {
        Ok(self.take(1, what)?[0])
    }

    /// A 16-bit unsigned integer.
    pub(super) fn u16(&mut self, what: &str) -> Res<u16> {
        let b: [u8; 2] = self.take(2, what)?.try_into().unwrap_or_default();
        Ok(if self.big {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        })
    }

    /// A 32-bit unsigned integer.
    pub(super) fn u32(&mut self, what: &str) -> Res<u32> {
        let b: [u8; 4] = self.take(4, what)?.try_into().unwrap_or_default();
        Ok(if self.big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }

    /// A finite 32-bit float.
    pub(super) fn finite(&mut self, what: &str) -> Res<f32> {
        let at = self.pos;
        let v = f32::from_bits(self.u32(what)?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err((at, format!("{what} is {v}, not a finite number")))
        }
    }
}

impl Cursor<'_> {
    /// Bytes left before the block's end.
    pub(super) fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }

    /// Whether multi-byte values are big-endian.
    pub(super) fn big(&self) -> bool {
        self.big
    }
}
