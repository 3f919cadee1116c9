//! MOPP codes: the bytecode tree an `hkpMoppBvTreeShape` keeps over its child's shape
//! keys, an interpreter that runs a box query through it, and the rule that says which
//! triangles a MOPP build leaves out. The command table and the query model are in
//! docs/mopp.md.

pub mod build;
pub mod check;
pub mod measure;

use crate::graph::{Graph, ObjectId};

use super::math::{Aabb, Vec3};
use super::{CollisionError, Result};
use crate::collision::access::{ints, Rec};

/// The size of a chunk a `0x0C` command jumps to (docs/mopp.md §2).
pub const CHUNK: usize = 512;

/// Coordinates are kept within ±2^40 in every frame: a command only looks at bits 16 to 23
/// (or the 24-bit root value), so clamping there changes no comparison and stops repeated
/// rescales from overflowing.
const LIMIT: i64 = 1 << 40;

/// Integer units a query box is widened by on each side before it runs. A build
/// quantizes triangle boxes with a rounding that can land one unit above `floor` (measured:
/// 4 of the 3,440 kept triangles of `games/dark-souls-ptde/map_collision_template.hkx` sit
/// one unit below the bound that admits them; docs/mopp.md §3); two units (about 10⁻⁵ of
/// the code's extent per 256 units) keep every query conservative.
pub const MARGIN: i64 = 2;

/// One MOPP code.
#[derive(Clone, Debug, PartialEq)]
pub struct Code {
    /// Its `hkpMoppCode` object (`ObjectId(u32::MAX)` for a code built in memory).
    pub object: ObjectId,
    /// The origin of its integer space (`info.offset` xyz).
    pub offset: Vec3,
    /// Integer units per unit of length (`info.offset` w).
    pub scale: f32,
    /// The code bytes.
    pub bytes: Vec<u8>,
}

/// The integer box a query runs with, per axis `[min, max]`.
type IBox = [[i64; 2]; 3];

/// Commands several queries may run together (a whole check, docs/mopp.md §5): each query
/// still stops at its own [`Code::step_limit`], and all of them together at the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    cap: usize,
    used: usize,
}

impl Budget {
    /// A budget of `cap` commands.
    pub fn new(cap: usize) -> Budget {
        Budget { cap, used: 0 }
    }

    /// No cap beyond each query's own limit.
    pub fn unlimited() -> Budget {
        Budget::new(usize::MAX)
    }

    /// The cap.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Commands run so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Whether a query stopped because the cap was reached.
    pub fn spent(&self) -> bool {
        self.used >= self.cap
    }
}

impl Code {
    /// Reads `hkpMoppCode` object `id`.
    ///
    /// # Errors
    /// A missing `info.offset` or `data` member.
    pub fn read(graph: &Graph, id: ObjectId) -> Result<Code> {
        let graph = &*graph.with_struct_values();
        let r = Rec::object(graph, id)?;
        let info = r.rec("info")?;
        let o = info.floats("offset", 4)?;
        let bytes = ints(r.array("data")?)
            .ok_or_else(|| r.err("data", "expected bytes"))?
            .into_iter()
            .map(|b| b as u8)
            .collect();
        Ok(Code {
            object: id,
            offset: [o[0], o[1], o[2]],
            scale: o[3],
            bytes,
        })
    }

    /// The most commands one query may run before it is refused as a loop: every command
    /// of a tree is reached at most once per query, so a well-formed code needs at most
    /// one per byte.
    pub fn step_limit(&self) -> usize {
        self.bytes.len().saturating_mul(2).saturating_add(64)
    }

    /// The integer box of a world (shape-space) box: `floor((p - offset) * scale)` per
    /// axis, in `f32`, widened by [`MARGIN`].
    pub fn quantize(&self, b: &Aabb) -> IBox {
        let q = |p: f32, i: usize, m: i64| {
            let v = ((p - self.offset[i]) * self.scale).floor();
            (v as i64).clamp(-LIMIT, LIMIT) + m
        };
        [0, 1, 2].map(|i| [q(b.min[i], i, -MARGIN), q(b.max[i], i, MARGIN)])
    }

    /// The shape keys whose terminals a query with box `b` reaches, sorted, no repeats.
    ///
    /// # Errors
    /// An unknown command, a command or jump past the end of the code, a key past
    /// `u32`, more than [`Code::step_limit`] commands, or a box that is not finite; each
    /// names the address of the command.
    pub fn query(&self, b: &Aabb) -> Result<Vec<u32>> {
        self.query_within(b, &mut Budget::unlimited())
    }

    /// As [`Code::query`], the commands counted against `budget`.
    ///
    /// # Errors
    /// As [`Code::query`], and the cap of `budget` reached ([`Budget::spent`] then says so).
    pub fn query_within(&self, b: &Aabb, budget: &mut Budget) -> Result<Vec<u32>> {
        if b.min.iter().chain(&b.max).any(|x| !x.is_finite()) {
            return Err(CollisionError::mopp(0, "the query box is not finite"));
        }
        self.run(self.quantize(b), budget)
    }

    /// Every key a terminal of the code names (the query that takes both sides of every
    /// split and passes every bound).
    ///
    /// # Errors
    /// As [`Code::query`].
    pub fn terminals(&self) -> Result<Vec<u32>> {
        self.terminals_within(&mut Budget::unlimited())
    }

    /// As [`Code::terminals`], the commands counted against `budget`.
    ///
    /// # Errors
    /// As [`Code::query_within`].
    pub fn terminals_within(&self, budget: &mut Budget) -> Result<Vec<u32>> {
        self.run([[-LIMIT, LIMIT]; 3], budget)
    }

    fn run(&self, root: IBox, budget: &mut Budget) -> Result<Vec<u32>> {
        let mut steps = 0usize;
        let r = self.walk(root, budget.cap - budget.used.min(budget.cap), &mut steps);
        budget.used = budget.used.saturating_add(steps);
        r
    }

    /// Runs one query, counting its commands in `steps`; `left` is what the budget allows.
    fn walk(&self, root: IBox, left: usize, steps: &mut usize) -> Result<Vec<u32>> {
        let code = &self.bytes;
        let mut keys = Vec::new();
        let limit = self.step_limit();
        let stop = limit.min(left);
        // Pending right branches: address, terminal offset, box in the branch's frame.
        let mut stack: Vec<(usize, u64, IBox)> = vec![(0, 0, root)];
        while let Some((mut pc, mut offset, mut q)) = stack.pop() {
            loop {
                if *steps >= stop {
                    return Err(CollisionError::mopp(
                        pc,
                        if stop < limit {
                            format!("the cap on commands was reached after {steps} in this query")
                        } else {
                            format!("more than {limit} commands in one query: the code loops")
                        },
                    ));
                }
                *steps += 1;
                let op = *code.get(pc).ok_or_else(|| {
                    CollisionError::mopp(
                        pc,
                        format!("past the end of the code ({} bytes)", code.len()),
                    )
                })?;
                let arg = |k: usize, n: usize| -> Result<u64> {
                    let s = code.get(pc + 1 + k..pc + 1 + k + n).ok_or_else(|| {
                        CollisionError::mopp(
                            pc,
                            format!(
                                "command 0x{op:02X} runs past the end of the code ({} bytes)",
                                code.len()
                            ),
                        )
                    })?;
                    Ok(s.iter().fold(0u64, |v, &b| v << 8 | u64::from(b)))
                };
                let jump = |to: u64| -> Result<usize> {
                    usize::try_from(to)
                        .ok()
                        .filter(|&t| t < code.len())
                        .ok_or_else(|| {
                            CollisionError::mopp(
                                pc,
                                format!(
                                    "command 0x{op:02X} jumps to {to}, past the end of the code ({} bytes)",
                                    code.len()
                                ),
                            )
                        })
                };
                let hi_byte = |v: i64| v >> 16;
                match op {
                    0x00 => break,
                    0x01..=0x04 => {
                        for (i, axis) in q.iter_mut().enumerate() {
                            let f = (arg(i, 1)? as i64) << 16;
                            for v in axis.iter_mut() {
                                *v = ((*v - f) << op).clamp(-LIMIT, LIMIT);
                            }
                        }
                        pc += 4;
                    }
                    0x05..=0x08 => {
                        let n = usize::from(op - 0x04);
                        pc = jump((pc + 1 + n) as u64 + arg(0, n)?)?;
                    }
                    0x09 => {
                        offset += arg(0, 1)?;
                        pc += 2;
                    }
                    0x0A => {
                        offset += arg(0, 2)?;
                        pc += 3;
                    }
                    0x0B => {
                        offset = arg(0, 4)?;
                        pc += 5;
                    }
                    0x0C => pc = jump(arg(0, 2)? * CHUNK as u64)?,
                    0x10..=0x1C => {
                        let (left_max, right_min) = (arg(0, 1)? as i64, arg(1, 1)? as i64);
                        let right = jump((pc + 4) as u64 + arg(2, 1)?)?;
                        let (go_left, go_right) = if op <= 0x12 {
                            let a = &q[usize::from(op - 0x10)];
                            (hi_byte(a[0]) <= left_max, hi_byte(a[1]) >= right_min)
                        } else {
                            // A diagonal plane: both sides (docs/mopp.md §3).
                            (true, true)
                        };
                        if go_right {
                            stack.push((right, offset, q));
                        }
                        if !go_left {
                            break;
                        }
                        pc += 4;
                    }
                    0x20..=0x22 => {
                        let value = arg(0, 1)? as i64;
                        let right = jump((pc + 3) as u64 + arg(1, 1)?)?;
                        let a = &q[usize::from(op - 0x20)];
                        if hi_byte(a[1]) >= value {
                            stack.push((right, offset, q));
                        }
                        if hi_byte(a[0]) > value {
                            break;
                        }
                        pc += 3;
                    }
                    0x23..=0x25 => {
                        let (left_max, right_min) = (arg(0, 1)? as i64, arg(1, 1)? as i64);
                        let left = jump((pc + 7) as u64 + arg(2, 2)?)?;
                        let right = jump((pc + 7) as u64 + arg(4, 2)?)?;
                        let a = &q[usize::from(op - 0x23)];
                        if hi_byte(a[1]) >= right_min {
                            stack.push((right, offset, q));
                        }
                        if hi_byte(a[0]) > left_max {
                            break;
                        }
                        pc = left;
                    }
                    0x26..=0x28 => {
                        let (lo, hi) = (arg(0, 1)? as i64, arg(1, 1)? as i64);
                        let a = &q[usize::from(op - 0x26)];
                        if hi_byte(a[1]) < lo || hi_byte(a[0]) > hi {
                            break;
                        }
                        pc += 3;
                    }
                    0x29..=0x2B => {
                        // 24-bit bounds, in the root frame (rescales do not apply).
                        let (lo, hi) = (arg(0, 3)? as i64, arg(3, 3)? as i64);
                        let a = &root[usize::from(op - 0x29)];
                        if a[1] < lo || a[0] > hi {
                            break;
                        }
                        pc += 7;
                    }
                    0x30..=0x4F => {
                        keys.push(key(pc, offset + u64::from(op - 0x30))?);
                        break;
                    }
                    0x50..=0x53 => {
                        let v = arg(0, usize::from(op - 0x4F))?;
                        keys.push(key(pc, offset + v)?);
                        break;
                    }
                    0x70 => pc = jump(arg(0, 4)?)?,
                    _ => {
                        return Err(CollisionError::mopp(
                            pc,
                            format!("unknown command 0x{op:02X}"),
                        ))
                    }
                }
            }
        }
        keys.sort_unstable();
        keys.dedup();
        Ok(keys)
    }
}

fn key(pc: usize, v: u64) -> Result<u32> {
    u32::try_from(v)
        .map_err(|_| CollisionError::mopp(pc, format!("terminal key {v} does not fit 32 bits")))
}

/// Whether a MOPP build leaves triangle `a, b, c` out (docs/mopp.md §4): the squared
/// length of the edge cross product, taken at either of the first two vertices, is under
/// 1e-7, or `|u|²|v|² − (u·v)²` of the two edges at the first vertex is exactly zero. All
/// in `f32`, each product and sum in the order written.
pub fn degenerate(a: Vec3, b: Vec3, c: Vec3) -> bool {
    fn d(p: Vec3, q: Vec3) -> Vec3 {
        [p[0] - q[0], p[1] - q[1], p[2] - q[2]]
    }
    fn cross_sq(u: Vec3, v: Vec3) -> f32 {
        let x = u[1] * v[2] - u[2] * v[1];
        let y = u[2] * v[0] - u[0] * v[2];
        let z = u[0] * v[1] - u[1] * v[0];
        x * x + y * y + z * z
    }
    fn dot(u: Vec3, v: Vec3) -> f32 {
        u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
    }
    const TOLERANCE: f32 = 1e-7;
    let (u, v) = (d(b, a), d(c, a));
    if cross_sq(u, v) < TOLERANCE || cross_sq(d(a, b), d(c, b)) < TOLERANCE {
        return true;
    }
    dot(u, u) * dot(v, v) - dot(u, v) * dot(u, v) == 0.0
}
