//! What the delta- and wavelet-compressed animations share (docs/anim-delta-wavelet.md):
//! the byte buffer they keep everything in (always little-endian, also in big-endian
//! files), the static mask that sorts every track component into identity, static and
//! dynamic, the quantization format's per-component offsets, scales and bit widths, and the
//! assembly of one pose from the static values and a frame's dynamic ones.

use super::access::Rec;
use super::math::normalize;
use super::{Result, Transform};

/// The data array both formats keep their bytes in.
pub(crate) const DATA: &str = "dataBuffer";

/// Frames beyond this many are refused: bounds the memory a corrupt frame count can ask
/// for when the animation has no dynamic data to check it against.
const MAX_FRAMES: usize = 1 << 24;

/// The animation's data buffer with bounds-checked little-endian reads whose errors name
/// the object, `dataBuffer` and the byte.
pub(crate) struct Buffer<'a, 'g> {
    pub(crate) rec: &'a Rec<'g>,
    pub(crate) bytes: &'a [u8],
}

impl<'a, 'g> Buffer<'a, 'g> {
    /// `rec`'s `dataBuffer`.
    pub(crate) fn of(rec: &'a Rec<'g>) -> Result<Buffer<'a, 'g>> {
        Ok(Buffer {
            rec,
            bytes: rec.bytes(DATA)?,
        })
    }

    /// An error at byte `at`.
    pub(crate) fn err(&self, at: usize, msg: impl Into<String>) -> Box<super::AnimError> {
        self.rec.data_err(DATA, at, msg)
    }

    /// `len` bytes from `at` (`what` names them in the error).
    pub(crate) fn slice(&self, at: usize, len: usize, what: &str) -> Result<&'a [u8]> {
        at.checked_add(len)
            .and_then(|end| self.bytes.get(at..end))
            .ok_or_else(|| {
                self.err(
                    at,
                    format!(
                        "{what}: {len} bytes past the end of the {}-byte buffer",
                        self.bytes.len()
                    ),
                )
            })
    }

    /// `n` little-endian floats from `at`, each finite.
    pub(crate) fn floats(&self, at: usize, n: usize, what: &str) -> Result<Vec<f32>> {
        let len = n
            .checked_mul(4)
            .ok_or_else(|| self.err(at, format!("{what}: {n} floats")))?;
        let b = self.slice(at, len, what)?;
        b.chunks_exact(4)
            .enumerate()
            .map(|(i, c)| {
                let f = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                if f.is_finite() {
                    Ok(f)
                } else {
                    Err(self.err(at + 4 * i, format!("{what}: {f} is not a number")))
                }
            })
            .collect()
    }
}

/// A member holding a byte index into the data buffer.
pub(crate) fn index(rec: &Rec<'_>, name: &str) -> Result<usize> {
    rec.count(name)
}

/// The animation's frame count (`numberOfPoses`): at least one, at most [`MAX_FRAMES`].
pub(crate) fn frame_count(rec: &Rec<'_>) -> Result<usize> {
    let v = rec.int("numberOfPoses")?;
    match usize::try_from(v) {
        Ok(n) if (1..=MAX_FRAMES).contains(&n) => Ok(n),
        _ => Err(rec.err(
            "numberOfPoses",
            format!("{v} is not a frame count (1 to {MAX_FRAMES})"),
        )),
    }
}

/// The animation's duration: finite, not negative.
pub(crate) fn duration(rec: &Rec<'_>) -> Result<f32> {
    let d = rec.real("duration")?;
    if d.is_finite() && d >= 0.0 {
        Ok(d)
    } else {
        Err(rec.err("duration", format!("{d} is not a duration")))
    }
}

/// The block size (frames per block): at least one.
pub(crate) fn block_size(rec: &Rec<'_>) -> Result<usize> {
    let v = rec.int("blockSize")?;
    match usize::try_from(v) {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(rec.err("blockSize", format!("{v} is not a block size"))),
    }
}

/// Where one component of a track comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Src {
    /// A value for every frame.
    Const(f32),
    /// Dynamic component `i` (in the quantization format's order).
    Dyn(usize),
}

/// The quantization format and the static layout of `rec`, checked against each other:
/// `preserved` values per block (the format's own count, 1 for delta and 0 for wavelet),
/// at most `max_bits` bits per value, and as many dynamic components as the masks name.
pub(crate) fn format_and_layout(
    rec: &Rec<'_>,
    buf: &Buffer<'_, '_>,
    max_bits: u32,
    preserved: usize,
) -> Result<(QFormat, Layout)> {
    let q = QFormat::read(buf, max_bits)?;
    if q.preserved != preserved {
        return Err(rec.err(
            "qFormat",
            format!(
                "{} preserved values per block: only {preserved} is known",
                q.preserved
            ),
        ));
    }
    let layout = Layout::read(
        buf,
        index(rec, "staticMaskIdx")?,
        index(rec, "staticDOFsIdx")?,
        rec.count("numberOfTransformTracks")?,
        rec.count("numberOfFloatTracks")?,
    )?;
    if layout.dynamic != q.dynamic() {
        return Err(rec.err(
            "qFormat",
            format!(
                "numD is {} but the static masks name {} dynamic components",
                q.dynamic(),
                layout.dynamic
            ),
        ));
    }
    Ok((q, layout))
}

/// The quantization format: per dynamic component an offset, a scale and a bit width.
#[derive(Clone, Debug)]
pub(crate) struct QFormat {
    /// Values stored as raw floats at the start of every block, per component.
    pub(crate) preserved: usize,
    /// Per dynamic component.
    pub(crate) offsets: Vec<f32>,
    /// Per dynamic component.
    pub(crate) scales: Vec<f32>,
    /// Per dynamic component.
    pub(crate) bits: Vec<u32>,
}

impl QFormat {
    /// The `qFormat` member and the arrays it indexes in the data buffer; bit widths past
    /// `limit` or the format's own maximum are refused.
    pub(crate) fn read(buf: &Buffer<'_, '_>, limit: u32) -> Result<QFormat> {
        let q = buf.rec.rec("qFormat")?;
        let max_bits = u32::try_from(q.int("maxBitWidth")?).unwrap_or(u32::MAX);
        if max_bits > limit {
            return Err(buf.rec.err(
                "qFormat",
                format!("maxBitWidth {max_bits} is past the format's {limit}"),
            ));
        }
        let preserved = q.count("preserved")?;
        let n = q.count("numD")?;
        let at = |name| q.count(name);
        let offsets = buf.floats(at("offsetIdx")?, n, "offsets")?;
        let scales = buf.floats(at("scaleIdx")?, n, "scales")?;
        let bw_at = at("bitWidthIdx")?;
        let raw = buf.slice(bw_at, n, "bit widths")?;
        let bits = raw
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if u32::from(b) > max_bits {
                    Err(buf.err(
                        bw_at + i,
                        format!("bit width {b} is past maxBitWidth {max_bits}"),
                    ))
                } else {
                    Ok(u32::from(b))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(QFormat {
            preserved,
            offsets,
            scales,
            bits,
        })
    }

    /// Dynamic components.
    pub(crate) fn dynamic(&self) -> usize {
        self.bits.len()
    }
}

/// Every track's components: identity, static or dynamic, from the static mask and the
/// static values (docs/anim-delta-wavelet.md, "Static mask").
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Per transform track: translation xyz, rotation xyzw, scale xyz.
    pub(crate) tracks: Vec<[Src; 10]>,
    /// Per float track.
    pub(crate) floats: Vec<Src>,
    /// Dynamic components named by the masks.
    pub(crate) dynamic: usize,
}

/// The identity value of each of a transform's ten components.
const IDENTITY: [f32; 10] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];

/// Component groups of a transform track: (first component, components, type shift, the
/// mask bit of each component, x first).
const GROUPS: [(usize, usize, u32, [u32; 4]); 3] = [
    (0, 3, 0, [8, 7, 6, 0]),
    (3, 4, 2, [12, 11, 10, 9]),
    (7, 3, 4, [15, 14, 13, 0]),
];

/// A track's component storage as the mask's two type bits say.
fn kind(buf: &Buffer<'_, '_>, at: usize, mask: u16, shift: u32) -> Result<u16> {
    let k = (mask >> shift) & 3;
    if k == 3 {
        return Err(buf.err(
            at,
            format!("static mask 0x{mask:04X}: track type 3 is unknown"),
        ));
    }
    Ok(k)
}

impl Layout {
    /// The masks at `mask_at` (one little-endian `u16` per transform track, then per float
    /// track) and the static values at `dofs_at`.
    pub(crate) fn read(
        buf: &Buffer<'_, '_>,
        mask_at: usize,
        dofs_at: usize,
        tracks: usize,
        float_tracks: usize,
    ) -> Result<Layout> {
        let n = tracks
            .checked_add(float_tracks)
            .filter(|n| n.checked_mul(2).is_some_and(|b| b <= buf.bytes.len()))
            .ok_or_else(|| {
                buf.err(
                    mask_at,
                    format!("{tracks} + {float_tracks} track masks do not fit the buffer"),
                )
            })?;
        let raw = buf.slice(mask_at, 2 * n, "static masks")?;
        let masks: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let mut b = Builder {
            buf,
            at: dofs_at,
            dynamic: 0,
        };
        let mut out = Layout {
            tracks: Vec::with_capacity(tracks),
            floats: Vec::with_capacity(float_tracks),
            dynamic: 0,
        };
        for (i, &m) in masks[..tracks].iter().enumerate() {
            out.tracks.push(b.track(mask_at + 2 * i, m)?);
        }
        for (i, &m) in masks[tracks..].iter().enumerate() {
            out.floats.push(b.float(mask_at + 2 * (tracks + i), m)?);
        }
        out.dynamic = b.dynamic;
        Ok(out)
    }

    /// One frame's pose from its dynamic values (`dynamic[i]` for component `i`).
    pub(crate) fn pose(&self, dynamic: &[f32], out: &mut [Transform], floats: &mut [f32]) {
        let get = |s: Src| match s {
            Src::Const(v) => v,
            Src::Dyn(i) => dynamic[i],
        };
        for (o, t) in out.iter_mut().zip(&self.tracks) {
            let c: [f32; 10] = std::array::from_fn(|k| get(t[k]));
            *o = Transform {
                translation: [c[0], c[1], c[2]],
                rotation: rotation([c[3], c[4], c[5], c[6]]),
                scale: [c[7], c[8], c[9]],
            };
        }
        for (o, s) in floats.iter_mut().zip(&self.floats) {
            *o = get(*s);
        }
    }
}

/// A stored rotation made a unit quaternion: a W of exactly ±2 marks a W to be rebuilt
/// from X, Y and Z with that sign (docs/anim-delta-wavelet.md, "Rotations").
pub(crate) fn rotation(q: [f32; 4]) -> [f32; 4] {
    let mut q = q;
    if q[3].abs() == 2.0 {
        let xyz = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
        q[3] = q[3].signum() * (1.0 - xyz).max(0.0).sqrt();
    }
    normalize(q)
}

/// Walks the static values while the masks are read, numbering the dynamic components.
struct Builder<'b, 'a, 'g> {
    buf: &'b Buffer<'a, 'g>,
    at: usize,
    dynamic: usize,
}

impl Builder<'_, '_, '_> {
    fn next_static(&mut self) -> Result<f32> {
        let v = self.buf.floats(self.at, 1, "static values")?[0];
        self.at += 4;
        Ok(v)
    }

    fn next_dynamic(&mut self) -> Src {
        self.dynamic += 1;
        Src::Dyn(self.dynamic - 1)
    }

    fn track(&mut self, at: usize, mask: u16) -> Result<[Src; 10]> {
        let mut out = IDENTITY.map(Src::Const);
        for (first, len, shift, bits) in GROUPS {
            match kind(self.buf, at, mask, shift)? {
                2 => {}
                1 => {
                    for s in &mut out[first..first + len] {
                        *s = Src::Const(self.next_static()?);
                    }
                }
                _ => {
                    for (k, s) in out[first..first + len].iter_mut().enumerate() {
                        if mask & (1 << bits[k]) == 0 {
                            *s = Src::Const(self.next_static()?);
                        }
                    }
                    for (k, s) in out[first..first + len].iter_mut().enumerate() {
                        if mask & (1 << bits[k]) != 0 {
                            *s = self.next_dynamic();
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    fn float(&mut self, at: usize, mask: u16) -> Result<Src> {
        Ok(match kind(self.buf, at, mask, 0)? {
            2 => Src::Const(0.0),
            1 => Src::Const(self.next_static()?),
            _ => self.next_dynamic(),
        })
    }
}

/// Reads `bits`-wide unsigned values least significant bit first from little-endian bytes.
pub(crate) struct Bits<'d> {
    data: &'d [u8],
    bit: usize,
}

impl<'d> Bits<'d> {
    /// A reader at the start of `data`.
    pub(crate) fn new(data: &'d [u8]) -> Bits<'d> {
        Bits { data, bit: 0 }
    }

    /// The next `bits`-wide value (`bits` ≤ 32); `None` past the end.
    pub(crate) fn read(&mut self, bits: u32) -> Option<u32> {
        let mut v: u64 = 0;
        for k in 0..bits as usize {
            let b = self.bit + k;
            let byte = *self.data.get(b / 8)?;
            v |= u64::from((byte >> (b % 8)) & 1) << k;
        }
        self.bit += bits as usize;
        Some(v as u32)
    }
}

/// A decoded delta- or wavelet-compressed animation: every frame's dynamic values and the
/// layout that turns them into poses.
#[derive(Clone, Debug)]
pub(crate) struct Decoded {
    pub(crate) duration: f32,
    pub(crate) frames: usize,
    pub(crate) layout: Layout,
    /// `frame × dynamic + component`.
    pub(crate) values: Vec<f32>,
}

impl Decoded {
    fn row(&self, frame: usize) -> &[f32] {
        let d = self.layout.dynamic;
        let f = frame.min(self.frames - 1);
        &self.values[f * d..(f + 1) * d]
    }
}

impl super::Decoder for Decoded {
    fn frame_count(&self) -> usize {
        self.frames
    }

    fn transform_tracks(&self) -> usize {
        self.layout.tracks.len()
    }

    fn float_tracks(&self) -> usize {
        self.layout.floats.len()
    }

    fn duration(&self) -> f32 {
        self.duration
    }

    fn frame(&self, frame: usize, out: &mut [Transform], floats: &mut [f32]) -> Result<()> {
        self.layout.pose(self.row(frame), out, floats);
        Ok(())
    }

    /// Translation, scale and floats linearly, rotation by normalised linear interpolation
    /// along the shorter arc, between the two frames around `time`
    /// (docs/anim-delta-wavelet.md, "Sampling").
    fn sample(&self, time: f32, out: &mut [Transform], floats: &mut [f32]) -> Result<()> {
        let (i, d) = super::math::frame_and_delta(time, self.duration, self.frames);
        self.frame(i, out, floats)?;
        if self.frames < 2 || d == 0.0 {
            return Ok(());
        }
        let mut next = vec![Transform::IDENTITY; out.len()];
        let mut next_f = vec![0.0; floats.len()];
        self.frame(i + 1, &mut next, &mut next_f)?;
        for (a, b) in out.iter_mut().zip(&next) {
            a.translation = super::math::lerp3(a.translation, b.translation, d);
            a.rotation = super::math::nlerp(a.rotation, b.rotation, d);
            a.scale = super::math::lerp3(a.scale, b.scale, d);
        }
        for (a, b) in floats.iter_mut().zip(&next_f) {
            *a += (b - *a) * d;
        }
        Ok(())
    }
}
