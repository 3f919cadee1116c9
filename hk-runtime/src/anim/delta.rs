//! Delta-compressed animations (`hkaDeltaCompressedAnimation`, Havok 5.5's
//! `hkaDeltaCompressedSkeletalAnimation`): the frames cut into blocks; in each block every
//! dynamic track component stores its first value as a float and each later frame as a
//! quantized difference from the frame before (docs/anim-delta-wavelet.md, "Delta").
//! Identity and static components and the rotation W rebuild are shared with the wavelet
//! format (`quantized_bits`).

use super::access::Rec;
use super::quantized_bits::{self as qb, Bits, Buffer, Decoded, QFormat};
use super::{Decoder, Result};

/// The widest delta a component may store.
const MAX_BITS: u32 = 32;

/// Reads a delta-compressed animation object, decoding every frame.
pub(crate) fn read<'g>(rec: &Rec<'g>) -> Result<Box<dyn Decoder + 'g>> {
    Ok(Box::new(decode(rec)?))
}

/// Decodes `rec` block by block.
pub(crate) fn decode(rec: &Rec<'_>) -> Result<Decoded> {
    let duration = qb::duration(rec)?;
    let frames = qb::frame_count(rec)?;
    let block = qb::block_size(rec)?;
    let buf = Buffer::of(rec)?;
    let (q, layout) = qb::format_and_layout(rec, &buf, MAX_BITS, 1)?;
    let at = qb::index(rec, "quantizedDataIdx")?;
    let values = Blocks {
        buf: &buf,
        q: &q,
        frames,
        block,
    }
    .decode(at)?;
    Ok(Decoded {
        duration,
        frames,
        layout,
        values,
    })
}

/// The quantized data: blocks of `block` frames (the last may be shorter), in each block
/// every dynamic component's bytes one after the other.
struct Blocks<'b, 'a, 'g> {
    buf: &'b Buffer<'a, 'g>,
    q: &'b QFormat,
    frames: usize,
    block: usize,
}

impl Blocks<'_, '_, '_> {
    /// Bytes one component takes in a block of `n` frames: its first value as a float, then
    /// `n - 1` differences packed tight and rounded up to a byte.
    fn size(bits: u32, n: usize) -> Option<usize> {
        (bits as usize)
            .checked_mul(n - 1)?
            .checked_add(7)
            .map(|b| 4 + b / 8)
    }

    /// The bytes every block needs, checked against the buffer before anything is
    /// allocated.
    fn check(&self, at: usize) -> Result<()> {
        let mut need: usize = 0;
        let mut start = 0;
        while start < self.frames {
            let n = self.block.min(self.frames - start);
            for &b in &self.q.bits {
                need = Self::size(b, n)
                    .and_then(|s| need.checked_add(s))
                    .ok_or_else(|| self.buf.err(at, "the blocks' size overflows"))?;
            }
            if at.saturating_add(need) > self.buf.bytes.len() {
                return Err(self.buf.err(
                    at,
                    format!(
                        "the blocks up to frame {} need {need} bytes past the {}-byte buffer",
                        start + n,
                        self.buf.bytes.len().saturating_sub(at)
                    ),
                ));
            }
            start += n;
        }
        Ok(())
    }

    /// Every frame's dynamic values, frame after frame.
    fn decode(&self, at: usize) -> Result<Vec<f32>> {
        self.check(at)?;
        let d = self.q.dynamic();
        let mut values = vec![0.0f32; self.frames * d];
        let mut pos = at;
        let mut start = 0;
        while start < self.frames {
            let n = self.block.min(self.frames - start);
            for c in 0..d {
                pos = self.component(pos, c, start, n, &mut values)?;
            }
            start += n;
        }
        Ok(values)
    }

    /// Component `c` of the block of `n` frames from frame `start`, stored at `pos`;
    /// returns where the next component starts.
    fn component(
        &self,
        pos: usize,
        c: usize,
        start: usize,
        n: usize,
        values: &mut [f32],
    ) -> Result<usize> {
        let d = self.q.dynamic();
        let bits = self.q.bits[c];
        let size = Self::size(bits, n).unwrap_or(usize::MAX);
        let mut v = self.buf.floats(pos, 1, "a block's first value")?[0];
        let packed = self.buf.slice(pos + 4, size - 4, "a block's differences")?;
        let step = delta_step(self.q.scales[c], bits);
        let offset = self.q.offsets[c];
        let mut reader = Bits::new(packed);
        values[start * d + c] = v;
        for k in 1..n {
            let code = reader
                .read(bits)
                .ok_or_else(|| self.buf.err(pos, "a block's differences end early"))?;
            v += offset + code as f32 * step;
            values[(start + k) * d + c] = v;
        }
        Ok(pos + size)
    }
}

/// The value of one quantization step: the range `scale` spread over the `2^bits - 1`
/// steps a code of `bits` bits has.
fn delta_step(scale: f32, bits: u32) -> f32 {
    if bits == 0 {
        return 0.0;
    }
    let steps = ((1u64 << bits) - 1) as f32;
    scale / steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_takes_a_float_and_its_differences_rounded_to_a_byte() {
        assert_eq!(Blocks::size(12, 8), Some(4 + 11));
        assert_eq!(Blocks::size(12, 5), Some(4 + 6));
        assert_eq!(Blocks::size(12, 1), Some(4));
    }

    #[test]
    fn a_step_spreads_the_scale_over_the_codes() {
        assert_eq!(delta_step(4095.0, 12), 1.0);
        assert_eq!(delta_step(1.0, 0), 0.0);
    }
}
