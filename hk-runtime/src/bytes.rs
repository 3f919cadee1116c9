//! Bounds-checked, zero-copy reads over `&[u8]` with the byte order chosen at run time.

use byteorder::{BigEndian, ByteOrder, LittleEndian};

use crate::error::{Error, Result};
use crate::rules::Endian;

/// A view of file bytes that reads integers in one byte order.
#[derive(Clone, Copy, Debug)]
pub struct Bytes<'a> {
    data: &'a [u8],
    endian: Endian,
}

impl<'a> Bytes<'a> {
    /// A view of `data` read as `endian`.
    pub fn new(data: &'a [u8], endian: Endian) -> Self {
        Bytes { data, endian }
    }

    /// All bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Total length.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// `len` bytes at `offset`.
    ///
    /// # Errors
    /// [`crate::error::ReadError::Truncated`] when they run past the end.
    pub fn slice(&self, offset: u64, len: u64) -> Result<&'a [u8]> {
        let avail = (self.data.len() as u64).saturating_sub(offset);
        if len > avail {
            return Err(Error::truncated(offset, len, avail));
        }
        let o = offset as usize;
        Ok(&self.data[o..o + len as usize])
    }

    /// A byte.
    ///
    /// # Errors
    /// When `offset` is past the end.
    pub fn u8(&self, offset: u64) -> Result<u8> {
        Ok(self.slice(offset, 1)?[0])
    }

    /// A `u16`.
    ///
    /// # Errors
    /// When the value runs past the end.
    pub fn u16(&self, offset: u64) -> Result<u16> {
        let s = self.slice(offset, 2)?;
        Ok(match self.endian {
            Endian::Little => LittleEndian::read_u16(s),
            Endian::Big => BigEndian::read_u16(s),
        })
    }

    /// A `u32`.
    ///
    /// # Errors
    /// When the value runs past the end.
    pub fn u32(&self, offset: u64) -> Result<u32> {
        let s = self.slice(offset, 4)?;
        Ok(match self.endian {
            Endian::Little => LittleEndian::read_u32(s),
            Endian::Big => BigEndian::read_u32(s),
        })
    }

    /// A `u64`.
    ///
    /// # Errors
    /// When the value runs past the end.
    pub fn u64(&self, offset: u64) -> Result<u64> {
        let s = self.slice(offset, 8)?;
        Ok(match self.endian {
            Endian::Little => LittleEndian::read_u64(s),
            Endian::Big => BigEndian::read_u64(s),
        })
    }

    /// An unsigned integer of `width` bytes (1, 2, 4 or 8).
    ///
    /// # Errors
    /// When the value runs past the end.
    pub fn uint(&self, offset: u64, width: u32) -> Result<u64> {
        match width {
            1 => self.u8(offset).map(u64::from),
            2 => self.u16(offset).map(u64::from),
            4 => self.u32(offset).map(u64::from),
            _ => self.u64(offset),
        }
    }

    /// The bytes of a NUL-terminated string at `offset`, without the NUL.
    ///
    /// # Errors
    /// When no NUL follows before the end.
    pub fn cbytes(&self, offset: u64) -> Result<&'a [u8]> {
        let rest = self.slice(offset, (self.data.len() as u64).saturating_sub(offset))?;
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Error::unterminated(offset, "string", "the data"))?;
        Ok(&rest[..end])
    }

    /// A NUL-terminated string at `offset`, without the NUL.
    ///
    /// # Errors
    /// When no NUL follows before the end, or the bytes are not UTF-8.
    pub fn cstr(&self, offset: u64) -> Result<&'a str> {
        let rest = self.slice(offset, (self.data.len() as u64).saturating_sub(offset))?;
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Error::unterminated(offset, "string", "the data"))?;
        std::str::from_utf8(&rest[..end]).map_err(|_| Error::invalid(offset, "string is not UTF-8"))
    }
}

/// A fixed-size value stored in a file in either byte order: integers, `f32` and float
/// tuples. Column reads and writes go through it with the byte order matched once per
/// column, so the per-element loop is a plain conversion the compiler vectorises.
pub trait Scalar: Copy + Default {
    /// Bytes per value.
    const SIZE: usize;
    /// Reads a little-endian value from the first `SIZE` bytes of `b` (which holds them).
    fn read_le(b: &[u8]) -> Self;
    /// Reads a big-endian value.
    fn read_be(b: &[u8]) -> Self;
    /// Writes the value little-endian into the first `SIZE` bytes of `b`.
    fn write_le(self, b: &mut [u8]);
    /// Writes the value big-endian.
    fn write_be(self, b: &mut [u8]);

    /// Reads one value in byte order `e`.
    #[inline]
    fn read(b: &[u8], e: Endian) -> Self {
        match e {
            Endian::Little => Self::read_le(b),
            Endian::Big => Self::read_be(b),
        }
    }

    /// Writes one value in byte order `e`.
    #[inline]
    fn write(self, b: &mut [u8], e: Endian) {
        match e {
            Endian::Little => self.write_le(b),
            Endian::Big => self.write_be(b),
        }
    }

    /// The values stored in `bytes` (whole values only).
    fn read_all(bytes: &[u8], e: Endian) -> Vec<Self> {
        match e {
            Endian::Little => bytes.chunks_exact(Self::SIZE).map(Self::read_le).collect(),
            Endian::Big => bytes.chunks_exact(Self::SIZE).map(Self::read_be).collect(),
        }
    }

    /// Writes `values` into `out` (which holds them all).
    fn write_all(values: &[Self], out: &mut [u8], e: Endian) {
        match e {
            Endian::Little => {
                for (v, c) in values.iter().zip(out.chunks_exact_mut(Self::SIZE)) {
                    v.write_le(c);
                }
            }
            Endian::Big => {
                for (v, c) in values.iter().zip(out.chunks_exact_mut(Self::SIZE)) {
                    v.write_be(c);
                }
            }
        }
    }
}

macro_rules! scalar {
    ($($t:ty => $n:literal),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = $n;
            #[inline]
            fn read_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.first_chunk::<$n>().copied().unwrap_or_default())
            }
            #[inline]
            fn read_be(b: &[u8]) -> Self {
                <$t>::from_be_bytes(b.first_chunk::<$n>().copied().unwrap_or_default())
            }
            #[inline]
            fn write_le(self, b: &mut [u8]) {
                if let Some(d) = b.first_chunk_mut::<$n>() {
                    *d = self.to_le_bytes();
                }
            }
            #[inline]
            fn write_be(self, b: &mut [u8]) {
                if let Some(d) = b.first_chunk_mut::<$n>() {
                    *d = self.to_be_bytes();
                }
            }
            fn read_all(bytes: &[u8], e: Endian) -> Vec<Self> {
                let (words, _) = bytes.as_chunks::<$n>();
                match e {
                    Endian::Little => words.iter().map(|w| <$t>::from_le_bytes(*w)).collect(),
                    Endian::Big => words.iter().map(|w| <$t>::from_be_bytes(*w)).collect(),
                }
            }
            fn write_all(values: &[Self], out: &mut [u8], e: Endian) {
                let (words, _) = out.as_chunks_mut::<$n>();
                match e {
                    Endian::Little => {
                        for (w, v) in words.iter_mut().zip(values) {
                            *w = v.to_le_bytes();
                        }
                    }
                    Endian::Big => {
                        for (w, v) in words.iter_mut().zip(values) {
                            *w = v.to_be_bytes();
                        }
                    }
                }
            }
        }
    )*};
}

scalar!(u8 => 1, i8 => 1, u16 => 2, i16 => 2, u32 => 4, i32 => 4, u64 => 8, i64 => 8, f32 => 4);

macro_rules! float_tuple {
    ($($n:literal => $size:literal),*) => {$(
        impl Scalar for [f32; $n] {
            const SIZE: usize = $size;
            #[inline]
            fn read_le(b: &[u8]) -> Self {
                let mut out = [0.0; $n];
                if let Some(words) = b.first_chunk::<$size>() {
                    let (words, _) = words.as_chunks::<4>();
                    for (o, w) in out.iter_mut().zip(words) {
                        *o = f32::from_le_bytes(*w);
                    }
                }
                out
            }
            #[inline]
            fn read_be(b: &[u8]) -> Self {
                let mut out = [0.0; $n];
                if let Some(words) = b.first_chunk::<$size>() {
                    let (words, _) = words.as_chunks::<4>();
                    for (o, w) in out.iter_mut().zip(words) {
                        *o = f32::from_be_bytes(*w);
                    }
                }
                out
            }
            #[inline]
            fn write_le(self, b: &mut [u8]) {
                if let Some(d) = b.first_chunk_mut::<$size>() {
                    let (words, _) = d.as_chunks_mut::<4>();
                    for (v, w) in self.iter().zip(words) {
                        *w = v.to_le_bytes();
                    }
                }
            }
            #[inline]
            fn write_be(self, b: &mut [u8]) {
                if let Some(d) = b.first_chunk_mut::<$size>() {
                    let (words, _) = d.as_chunks_mut::<4>();
                    for (v, w) in self.iter().zip(words) {
                        *w = v.to_be_bytes();
                    }
                }
            }
            fn read_all(bytes: &[u8], e: Endian) -> Vec<Self> {
                // Collected from exact-size chunks: the vector is allocated once and
                // written once (no zero fill first), each tuple a straight run of loads
                // the compiler turns into a copy or a vector byte swap.
                let (tuples, _) = bytes.as_chunks::<$size>();
                let read = |t: &[u8; $size], f: fn([u8; 4]) -> f32| -> [f32; $n] {
                    let (w, _) = t.as_chunks::<4>();
                    std::array::from_fn(|i| f(w[i]))
                };
                match e {
                    Endian::Little => tuples.iter().map(|t| read(t, f32::from_le_bytes)).collect(),
                    Endian::Big => tuples.iter().map(|t| read(t, f32::from_be_bytes)).collect(),
                }
            }
        }
    )*};
}

float_tuple!(4 => 16, 12 => 48, 16 => 64);

/// The values of a column stored in `bytes` (whole values only; a partial tail is ignored).
pub fn read_column<T: Scalar>(bytes: &[u8], e: Endian) -> Vec<T> {
    T::read_all(bytes, e)
}

/// Writes `values` into `out` (which holds `values.len() * T::SIZE` bytes) in byte order
/// `e`.
pub fn write_column<T: Scalar>(values: &[T], out: &mut [u8], e: Endian) {
    T::write_all(values, out, e)
}

/// Reads `count` values of `T`, one at `offset` in each `stride`-byte element of `bytes`
/// (which holds `count` elements, and `offset + T::SIZE <= stride`), in byte order `e`: a
/// member of an array of structs, as a column.
pub fn read_strided<T: Scalar>(
    bytes: &[u8],
    count: usize,
    stride: usize,
    offset: usize,
    e: Endian,
) -> Vec<T> {
    let end = offset.saturating_add(T::SIZE);
    if end > stride || stride == 0 {
        // No value fits inside the elements: nothing read (callers count what they got).
        return Vec::new();
    }
    let mut out = Vec::with_capacity(count.min(bytes.len() / stride));
    let els = bytes.chunks_exact(stride).take(count);
    match e {
        Endian::Little => out.extend(els.map(|el| T::read_le(&el[offset..end]))),
        Endian::Big => out.extend(els.map(|el| T::read_be(&el[offset..end]))),
    }
    out
}

/// Writes `values` at `offset` in successive `stride`-byte elements of `out`, in byte
/// order `e`: the inverse of [`read_strided`]. `false`, writing nothing, unless `out` holds
/// `values.len()` elements with a value fitting inside each.
pub fn write_strided<T: Scalar>(
    values: &[T],
    out: &mut [u8],
    stride: usize,
    offset: usize,
    e: Endian,
) -> bool {
    let end = offset.saturating_add(T::SIZE);
    if end > stride || values.len().saturating_mul(stride) > out.len() {
        return false;
    }
    for (x, el) in values.iter().zip(out.chunks_exact_mut(stride)) {
        x.write(&mut el[offset..end], e);
    }
    true
}

/// Appends `values` to `out` in byte order `e`, through a small buffer (no zero-fill of
/// the destination first).
pub fn append_column<T: Scalar>(values: &[T], out: &mut Vec<u8>, e: Endian) {
    const CHUNK: usize = 4096;
    out.reserve(values.len() * T::SIZE);
    let per = (CHUNK / T::SIZE).max(1);
    let mut buf = [0u8; CHUNK];
    for chunk in values.chunks(per) {
        let n = chunk.len() * T::SIZE;
        if n > CHUNK {
            // A value wider than the buffer: write it through a zeroed tail.
            let at = out.len();
            out.resize(at + n, 0);
            T::write_all(chunk, &mut out[at..], e);
            continue;
        }
        T::write_all(chunk, &mut buf[..n], e);
        out.extend_from_slice(&buf[..n]);
    }
}

/// The wrapping sum of the unsigned `width`-byte words (1, 2, 4 or 8) stored in `bytes` in
/// byte order `e` (a partial last word is ignored): what a traversal that reads every word
/// of a column adds up, without decoding the words one by one.
///
/// A word is the sum of its bytes, each shifted by its place in the word, so the sum of the
/// words is the sum, over the places, of the bytes in that place shifted by it (modulo
/// 2^64, as a wrapping sum is). The bytes of each place are summed eight at a time, in
/// 16-bit lanes of a `u64` (256 words of bytes of at most 255 fit a lane), which needs no
/// byte swap in either order. Any other width sums to 0 (the caller's columns have none).
pub fn sum_words(bytes: &[u8], width: usize, e: Endian) -> u64 {
    if !matches!(width, 1 | 2 | 4 | 8) {
        return 0;
    }
    if bytes.len() < 128 {
        // Members and short arrays: decoding each word costs less than the places.
        return match width {
            1 => bytes.iter().map(|&b| u64::from(b)).sum(),
            2 => sum_each::<u16>(bytes, e),
            4 => sum_each::<u32>(bytes, e),
            _ => sum_each::<u64>(bytes, e),
        };
    }
    let bytes = &bytes[..bytes.len() - bytes.len() % width];
    // The sum of the bytes at each place `j % 8` of the input.
    let mut place = [0u64; 8];
    const LANES: u64 = 0x00FF_00FF_00FF_00FF;
    let tail = bytes.chunks_exact(8).remainder();
    let body = &bytes[..bytes.len() - tail.len()];
    for block in body.chunks(8 * 256) {
        let (mut even, mut odd) = (0u64, 0u64);
        for w in block.chunks_exact(8) {
            let x = u64::from_le_bytes(w.try_into().unwrap_or_default());
            even += x & LANES;
            odd += (x >> 8) & LANES;
        }
        for lane in 0..4 {
            place[2 * lane] += (even >> (16 * lane)) & 0xFFFF;
            place[2 * lane + 1] += (odd >> (16 * lane)) & 0xFFFF;
        }
    }
    // Chunks of eight start on a multiple of eight, so the tail's byte `i` is at place `i`.
    for (i, &b) in tail.iter().enumerate() {
        place[i] += u64::from(b);
    }
    // Place `j` is byte `j % width` of its word: shifted by 8 × that byte's significance.
    let mut sum = 0u64;
    for (j, &s) in place.iter().enumerate() {
        let k = j % width;
        let shift = match e {
            Endian::Little => 8 * k,
            Endian::Big => 8 * (width - 1 - k),
        };
        sum = sum.wrapping_add(s.wrapping_shl(shift as u32));
    }
    sum
}

/// [`sum_words`] decoding every word.
#[inline]
fn sum_each<W: Scalar + Into<u64>>(bytes: &[u8], e: Endian) -> u64 {
    let words = bytes.chunks_exact(W::SIZE);
    match e {
        Endian::Little => words.fold(0u64, |a, c| a.wrapping_add(W::read_le(c).into())),
        Endian::Big => words.fold(0u64, |a, c| a.wrapping_add(W::read_be(c).into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A member of 6-byte elements read as a column and written back, in both byte
    /// orders; a value that does not fit inside its element reads nothing and writes
    /// nothing.
    #[test]
    fn strided_columns_round_trip_and_refuse_values_past_their_element() {
        // Three elements: a u16 at 0, a u32 at 2.
        let le = [1, 0, 2, 0, 0, 0, 3, 0, 4, 0, 0, 0, 5, 0, 6, 0, 0, 0];
        assert_eq!(read_strided::<u16>(&le, 3, 6, 0, Endian::Little), [1, 3, 5]);
        assert_eq!(read_strided::<u32>(&le, 3, 6, 2, Endian::Little), [2, 4, 6]);
        assert_eq!(
            read_strided::<u32>(&le, 3, 6, 2, Endian::Big),
            [2 << 24, 4 << 24, 6 << 24]
        );
        let mut out = [0u8; 18];
        assert!(write_strided(&[1u16, 3, 5], &mut out, 6, 0, Endian::Little));
        assert!(write_strided(&[2u32, 4, 6], &mut out, 6, 2, Endian::Little));
        assert_eq!(out, le);
        // Past the element, or more values than elements.
        assert!(read_strided::<u32>(&le, 3, 6, 3, Endian::Little).is_empty());
        assert!(!write_strided(&[1u32], &mut out, 6, 3, Endian::Little));
        assert!(!write_strided(&[1u16; 4], &mut out, 6, 0, Endian::Little));
        assert_eq!(out, le);
    }

    /// The byte-place sum equals decoding every word and adding, for every width, both
    /// byte orders, lengths around the 8-byte chunks and the 256-chunk blocks, and bytes
    /// of every value (0xFF everywhere included, the largest a lane holds).
    #[test]
    fn word_sums_match_decoding_every_word() {
        fn naive(bytes: &[u8], width: usize, e: Endian) -> u64 {
            bytes.chunks_exact(width).fold(0u64, |a, w| {
                let v = match e {
                    Endian::Little => w.iter().rev().fold(0u64, |v, &b| (v << 8) | u64::from(b)),
                    Endian::Big => w.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)),
                };
                a.wrapping_add(v)
            })
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..5000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let ones = vec![0xFFu8; 4200];
        for data in [&noise[..], &ones[..]] {
            for len in [
                0, 1, 7, 8, 9, 15, 16, 17, 63, 127, 128, 129, 2047, 2048, 2049, 2055, 4099, 4200,
            ] {
                for width in [1, 2, 4, 8] {
                    for e in [Endian::Little, Endian::Big] {
                        assert_eq!(
                            sum_words(&data[..len], width, e),
                            naive(&data[..len], width, e),
                            "{len} bytes, width {width}, {e:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(sum_words(&noise, 3, Endian::Little), 0);
    }
}
