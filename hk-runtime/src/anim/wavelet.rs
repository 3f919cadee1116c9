//! Wavelet-compressed animations (`hkaWaveletCompressedAnimation`, Havok 5.5's
//! `hkaWaveletSkeletalAnimation`): the frames cut into blocks of 8; in each block every
//! dynamic track component stores the 8 coefficients of a three-level 5/3 lifting wavelet,
//! quantized, with a bitmap marking the coefficients left out as zero
//! (docs/anim-delta-wavelet.md, "Wavelet"). Identity and static components and the
//! rotation W rebuild are shared with the delta format (`quantized_bits`).

use super::access::Rec;
use super::quantized_bits::{self as qb, Bits, Buffer, Decoded, QFormat};
use super::{Decoder, Result};

/// Coefficients per block and component: the only block size the corpus shows.
const BLOCK: usize = 8;

/// The widest code a component may store.
const MAX_BITS: u32 = 16;

/// Reads a wavelet-compressed animation object, decoding every frame.
pub(crate) fn read<'g>(rec: &Rec<'g>) -> Result<Box<dyn Decoder + 'g>> {
    Ok(Box::new(decode(rec)?))
}

/// Decodes `rec` block by block.
pub(crate) fn decode(rec: &Rec<'_>) -> Result<Decoded> {
    let duration = qb::duration(rec)?;
    let frames = qb::frame_count(rec)?;
    let block = qb::block_size(rec)?;
    if block != BLOCK {
        return Err(rec.err(
            "blockSize",
            format!("blocks of {block} frames: only {BLOCK} is known"),
        ));
    }
    let buf = Buffer::of(rec)?;
    let (q, layout) = qb::format_and_layout(rec, &buf, MAX_BITS, 0)?;
    let starts = block_starts(rec, &buf, frames)?;
    let values = decode_blocks(&buf, &q, frames, &starts)?;
    Ok(Decoded {
        duration,
        frames,
        layout,
        values,
    })
}

/// The byte where each block's data starts: `quantizedDataIdx` plus the block index's
/// entry (one little-endian `u32` per block at `blockIndexIdx`).
fn block_starts(rec: &Rec<'_>, buf: &Buffer<'_, '_>, frames: usize) -> Result<Vec<usize>> {
    let blocks = frames.div_ceil(BLOCK);
    let stored = rec.count("blockIndexSize")?;
    if stored != blocks {
        return Err(rec.err(
            "blockIndexSize",
            format!("{stored} blocks indexed for {frames} frames in blocks of {BLOCK}"),
        ));
    }
    let at = qb::index(rec, "blockIndexIdx")?;
    let base = qb::index(rec, "quantizedDataIdx")?;
    let raw = buf.slice(at, blocks.saturating_mul(4), "the block index")?;
    raw.chunks_exact(4)
        .enumerate()
        .map(|(i, c)| {
            let off = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
            let start = base.saturating_add(off);
            if start < buf.bytes.len() {
                Ok(start)
            } else {
                Err(buf.err(
                    at + 4 * i,
                    format!("block {i} starts at byte {start}, past the buffer"),
                ))
            }
        })
        .collect()
}

/// Every frame's dynamic values, frame after frame: each block's components inverse
/// transformed, the last block cut to the frames that remain.
fn decode_blocks(
    buf: &Buffer<'_, '_>,
    q: &QFormat,
    frames: usize,
    starts: &[usize],
) -> Result<Vec<f32>> {
    let d = q.dynamic();
    // Each component of each block takes at least its bitmap byte, so the blocks the
    // buffer holds bound what is allocated here.
    if starts.len().saturating_mul(d) > buf.bytes.len() {
        return Err(buf.err(0, "more blocks of components than the buffer holds"));
    }
    let mut values = vec![0.0f32; frames * d];
    for (b, &start) in starts.iter().enumerate() {
        let first = b * BLOCK;
        let n = BLOCK.min(frames - first);
        let mut pos = start;
        for c in 0..d {
            let (coeffs, next) = component(buf, q, c, pos)?;
            let samples = inverse(coeffs);
            for (k, s) in samples.iter().take(n).enumerate() {
                values[(first + k) * d + c] = *s;
            }
            pos = next;
        }
    }
    Ok(values)
}

/// Component `c`'s coefficients of the block part at `pos` and where the next component
/// starts: a bitmap byte (bit `k` set: coefficient `k` left out), then the codes of the
/// others packed least significant bit first, the whole rounded up to a byte.
fn component(
    buf: &Buffer<'_, '_>,
    q: &QFormat,
    c: usize,
    pos: usize,
) -> Result<([f32; BLOCK], usize)> {
    let bits = q.bits[c];
    let map = buf.slice(pos, 1, "a block's bitmap")?[0];
    let present = BLOCK - map.count_ones() as usize;
    let size = (BLOCK + bits as usize * present).div_ceil(8);
    let packed = buf.slice(pos + 1, size - 1, "a block's codes")?;
    let (offset, scale) = (q.offsets[c], q.scales[c]);
    let step = scale / (1u32 << bits) as f32;
    let mut reader = Bits::new(packed);
    let mut out = [0.0f32; BLOCK];
    for (k, o) in out.iter_mut().enumerate() {
        let code = if map & (1 << k) != 0 {
            zero_code(offset, scale, bits)
        } else {
            reader
                .read(bits)
                .ok_or_else(|| buf.err(pos, "a block's codes end early"))?
        };
        *o = code as f32 * step + offset;
    }
    Ok((out, pos + size))
}

/// The code a left-out coefficient takes: the one nearest to a value of zero.
fn zero_code(offset: f32, scale: f32, bits: u32) -> u32 {
    let top = (1u32 << bits) - 1;
    if scale == 0.0 {
        return 0;
    }
    let c = (-offset * (1u32 << bits) as f32 / scale).round();
    if c.is_nan() || c < 0.0 {
        0
    } else {
        (c as u32).min(top)
    }
}

/// The inverse three-level 5/3 lifting wavelet of one block: coefficients `[a, d3, d2 ×
/// 2, d1 × 4]` (coarsest first) to 8 samples; at each level an even sample is its
/// approximation less a quarter of the details either side, an odd one its detail plus
/// half the evens either side, the edges mirrored.
fn inverse(c: [f32; BLOCK]) -> [f32; BLOCK] {
    let mut x = c;
    let mut len = 1;
    while len < BLOCK {
        let (a, d): (Vec<f32>, Vec<f32>) = (x[..len].to_vec(), x[len..2 * len].to_vec());
        let even: Vec<f32> = (0..len)
            .map(|i| a[i] - (d[i.saturating_sub(1)] + d[i]) / 4.0)
            .collect();
        for i in 0..len {
            let right = even[(i + 1).min(len - 1)];
            x[2 * i] = even[i];
            x[2 * i + 1] = d[i] + (even[i] + right) / 2.0;
        }
        len *= 2;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_approximation_alone_gives_a_constant_block() {
        let mut c = [0.0; BLOCK];
        c[0] = 3.0;
        assert_eq!(inverse(c), [3.0; BLOCK]);
    }

    #[test]
    fn the_finest_detail_moves_the_last_two_samples_apart() {
        let mut c = [0.0; BLOCK];
        c[7] = 1.0;
        assert_eq!(inverse(c), [0.0, 0.0, 0.0, 0.0, 0.0, -0.125, -0.25, 0.75]);
    }

    #[test]
    fn a_left_out_coefficient_takes_the_code_nearest_zero() {
        assert_eq!(zero_code(-1.0, 2.0, 4), 8);
        assert_eq!(zero_code(1.0, 2.0, 4), 0);
        assert_eq!(zero_code(-5.0, 2.0, 4), 15);
        assert_eq!(zero_code(0.0, 0.0, 4), 0);
    }
}
