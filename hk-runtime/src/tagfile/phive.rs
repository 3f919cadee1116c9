//! The phive container around a TAG0 tagfile (Nintendo's `.bphsh` shapes and `.bphcl`
//! cloth; docs/tagfile-format.md §1).
//!
//! Header, little endian: `Phive\0`, two reserved bytes, the byte-order mark `FF FE`, the
//! file type (0 shape, 3 cloth) and the section capacity N, then N u32 section offsets and
//! N u32 section sizes, zero-padded to 16 bytes (0x30 for N = 3 or 4). Sections follow in
//! order, each 16-aligned with zero fill, and each size is its padded length; the offset
//! after the last used section is the file size and unused slots hold it with size 0. The
//! first section is the TAG0. Measured on the 2 TotK `.bphcl` files (type 3, N = 3: TAG0,
//! an AAMP parameter archive, the end); public description: EPD wiki "Common Phive".
//!
//! In a shape (type 0) the sections after the TAG0 are the material array (u32
//! material, u32 sub-material, u64 shape-tag mask) and layer-hit-mask array (u64 layer
//! mask, u64 sub-layer mask). No `.bphsh` is in the corpus; hk reads and writes these from
//! the layout in docs/collision-notes.md §6 and checks them only on files it wrote
//! itself.

use crate::error::{Error, Result};

/// Magic at offset 0.
pub const MAGIC: &[u8; 6] = b"Phive\0";
/// Phive file type of a shape (`.bphsh`).
pub const SHAPE: u8 = 0;
/// Phive file type of cloth (`.bphcl`).
pub const CLOTH: u8 = 3;

/// One entry of a shape's material array (docs/collision-notes.md §6, 16 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Material {
    /// Material id (PhiveConfig `MaterialCollection`).
    pub material: u32,
    /// Sub-material id (`SubMaterialCollection`).
    pub sub_material: u32,
    /// User shape-tag mask (`UserShapeTagCollection`), one bit per tag.
    pub shape_tags: u64,
}

/// One entry of a shape's layer-hit-mask array (docs/collision-notes.md §6, 16 bytes;
/// research, not measured).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HitMask {
    /// Layer hit mask (`LayerEntityCollection` / `LayerSensorCollection`).
    pub layers: u64,
    /// Sub-layer hit mask.
    pub sub_layers: u64,
}

/// A section after the TAG0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extra {
    /// A shape's material array.
    Materials(Vec<Material>),
    /// A shape's layer-hit-mask array.
    HitMasks(Vec<HitMask>),
    /// Anything else (cloth's AAMP parameter archive, not Havok data), kept as its bytes.
    Raw(Vec<u8>),
}

/// A phive header and the sections that follow the tagfile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phive {
    /// The two reserved bytes at 6 (`01 00` in both `.bphcl` files).
    pub reserved: [u8; 2],
    /// File type: [`SHAPE`], [`CLOTH`], ...
    pub file_type: u8,
    /// Section capacity N.
    pub capacity: u8,
    /// Sections after the TAG0, in order.
    pub extras: Vec<Extra>,
}

fn le32(data: &[u8], at: usize) -> Result<u32> {
    data.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| Error::truncated(at as u64, 4, data.len().saturating_sub(at) as u64))
}

fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

const fn align16(x: usize) -> usize {
    x.div_ceil(16) * 16
}

/// Header length for capacity `n`: 12 bytes, two u32 arrays, padded to 16.
const fn header_len(n: usize) -> usize {
    align16(12 + 8 * n)
}

impl Phive {
    /// Whether `data` starts with a phive header.
    pub fn detect(data: &[u8]) -> bool {
        data.starts_with(MAGIC)
    }

    /// Reads the header of `data` and the sections after the TAG0, which must be exactly
    /// `tag_size` bytes at the first section's offset. Every offset and size is checked
    /// against the layout rule above.
    ///
    /// # Errors
    /// A wrong magic or byte-order mark, a section that is not where the rule puts it, a
    /// size that does not match, non-zero padding, or a shape array whose size is not a
    /// multiple of 16 — each with its offset.
    pub fn parse(data: &[u8], tag_size: u64) -> Result<(Phive, u64)> {
        if !Self::detect(data) {
            return Err(Error::invalid(0, "not a phive file (no `Phive` magic)"));
        }
        let head = data
            .get(..12)
            .ok_or_else(|| Error::truncated(0, 12, data.len() as u64))?;
        if head[8..10] != [0xFF, 0xFE] {
            return Err(Error::invalid(
                8,
                "phive byte-order mark is not FF FE (little endian)",
            ));
        }
        let (file_type, n) = (head[10], usize::from(head[11]));
        if n < 2 {
            return Err(Error::invalid(
                11,
                format!("phive section capacity {n} leaves no room for the tagfile and the end"),
            ));
        }
        let hlen = header_len(n);
        if data.len() < hlen {
            return Err(Error::truncated(0, hlen as u64, data.len() as u64));
        }
        if data[12 + 8 * n..hlen].iter().any(|&b| b != 0) {
            return Err(Error::invalid(
                (12 + 8 * n) as u64,
                "phive header padding is not zero",
            ));
        }
        let offsets: Vec<u32> = (0..n)
            .map(|i| le32(data, 12 + 4 * i))
            .collect::<Result<_>>()?;
        let sizes: Vec<u32> = (0..n)
            .map(|i| le32(data, 12 + 4 * (n + i)))
            .collect::<Result<_>>()?;
        // Walk the sections: each starts where the previous padded one ended.
        let mut at = hlen;
        let mut spans = Vec::new();
        for i in 0..n {
            let (o, s) = (offsets[i] as usize, sizes[i] as usize);
            let field = (12 + 4 * i) as u64;
            if o != at {
                return Err(Error::invalid(
                    field,
                    format!("phive section {i} at 0x{o:X}, expected 0x{at:X}"),
                ));
            }
            if s == 0 {
                // The end marker and every slot after it: offset = file size, size 0.
                if at != data.len() {
                    return Err(Error::invalid(
                        field,
                        format!(
                            "phive section {i} is empty at 0x{at:X}, but the file is 0x{:X} bytes",
                            data.len()
                        ),
                    ));
                }
                continue;
            }
            if s % 16 != 0 || o + s > data.len() {
                return Err(Error::invalid(
                    (12 + 4 * (n + i)) as u64,
                    format!(
                        "phive section {i} size 0x{s:X} is not a 16-byte multiple inside the file"
                    ),
                ));
            }
            spans.push((o, s));
            at = o + s;
        }
        if at != data.len() || spans.is_empty() || sizes[n - 1] != 0 {
            return Err(Error::invalid(
                0x0C,
                format!(
                    "phive sections end at 0x{at:X} without an end marker, the file is 0x{:X} bytes",
                    data.len()
                ),
            ));
        }
        let (t_off, t_size) = spans[0];
        if t_size != align16(tag_size as usize) {
            return Err(Error::invalid(
                (12 + 4 * n) as u64,
                format!(
                    "phive tagfile section is 0x{t_size:X} bytes, the TAG0 pads to 0x{:X}",
                    align16(tag_size as usize)
                ),
            ));
        }
        let pad_from = t_off + tag_size as usize;
        if data[pad_from..t_off + t_size].iter().any(|&b| b != 0) {
            return Err(Error::invalid(
                pad_from as u64,
                "padding after the TAG0 is not zero",
            ));
        }
        let mut extras = Vec::new();
        for (k, &(o, s)) in spans.iter().enumerate().skip(1) {
            let bytes = &data[o..o + s];
            extras.push(match (file_type, k) {
                (SHAPE, 1) => Extra::Materials(
                    bytes
                        .chunks_exact(16)
                        .map(|c| Material {
                            material: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                            sub_material: u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
                            shape_tags: le64(&c[8..]),
                        })
                        .collect(),
                ),
                (SHAPE, 2) => Extra::HitMasks(
                    bytes
                        .chunks_exact(16)
                        .map(|c| HitMask {
                            layers: le64(c),
                            sub_layers: le64(&c[8..]),
                        })
                        .collect(),
                ),
                _ => Extra::Raw(bytes.to_vec()),
            });
        }
        let phive = Phive {
            reserved: [head[6], head[7]],
            file_type,
            capacity: n as u8,
            extras,
        };
        Ok((phive, t_off as u64))
    }

    /// The file: this header, `tag0`, and the extra sections, laid out by the rule above.
    ///
    /// # Errors
    /// More sections than the capacity holds (the last slot is the end marker).
    pub fn write(&self, tag0: &[u8]) -> Result<Vec<u8>> {
        let n = usize::from(self.capacity);
        if self.extras.len() + 2 > n {
            return Err(Error::invalid(
                11,
                format!(
                    "{} phive sections do not fit a capacity of {n} (the last slot ends the file)",
                    self.extras.len() + 1
                ),
            ));
        }
        let mut body: Vec<Vec<u8>> = vec![tag0.to_vec()];
        for e in &self.extras {
            body.push(match e {
                Extra::Materials(ms) => ms
                    .iter()
                    .flat_map(|m| {
                        let mut b = m.material.to_le_bytes().to_vec();
                        b.extend_from_slice(&m.sub_material.to_le_bytes());
                        b.extend_from_slice(&m.shape_tags.to_le_bytes());
                        b
                    })
                    .collect(),
                Extra::HitMasks(hs) => hs
                    .iter()
                    .flat_map(|h| {
                        let mut b = h.layers.to_le_bytes().to_vec();
                        b.extend_from_slice(&h.sub_layers.to_le_bytes());
                        b
                    })
                    .collect(),
                Extra::Raw(b) => b.clone(),
            });
        }
        let hlen = header_len(n);
        let mut offsets = Vec::new();
        let mut sizes = Vec::new();
        let mut at = hlen;
        for b in &body {
            offsets.push(at as u32);
            let s = align16(b.len());
            sizes.push(s as u32);
            at += s;
        }
        while offsets.len() < n {
            offsets.push(at as u32);
            sizes.push(0);
        }
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&self.reserved);
        out.extend_from_slice(&[0xFF, 0xFE, self.file_type, self.capacity]);
        for w in offsets.iter().chain(&sizes) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.resize(hlen, 0);
        for b in body {
            out.extend_from_slice(&b);
            out.resize(align16(out.len()), 0);
        }
        Ok(out)
    }
}
