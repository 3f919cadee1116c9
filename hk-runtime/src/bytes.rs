//! Bounds-checked, zero-copy reads over `&[u8]` with the byte order chosen at run time.

use byteorder::{BigEndian, ByteOrder, LittleEndian};

use crate::error::{Error, Result};
use crate::layout::Endian;

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
    /// [`crate::ErrorKind::Truncated`] when they run past the end.
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
        let end = rest.iter().position(|&b| b == 0).ok_or_else(|| {
            Error::invalid(offset, "string runs to the end of the data without a NUL")
        })?;
        Ok(&rest[..end])
    }

    /// A NUL-terminated string at `offset`, without the NUL.
    ///
    /// # Errors
    /// When no NUL follows before the end, or the bytes are not UTF-8.
    pub fn cstr(&self, offset: u64) -> Result<&'a str> {
        let rest = self.slice(offset, (self.data.len() as u64).saturating_sub(offset))?;
        let end = rest.iter().position(|&b| b == 0).ok_or_else(|| {
            Error::invalid(offset, "string runs to the end of the data without a NUL")
        })?;
        std::str::from_utf8(&rest[..end]).map_err(|_| Error::invalid(offset, "string is not UTF-8"))
    }
}
