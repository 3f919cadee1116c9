//! Reading items: an array's elements, a tuple's, or a struct column's
//! (docs/binary-tagfile-format.md §5). Each run of items is charged to the read's memory
//! budget before it is made.

use std::rc::Rc;

use super::defs::{Base, MemberDef};
use super::input::Step;
use super::read::Reader;
use super::zero::{always_written, extra_bytes, into_values, worth, VALUE};
use crate::error::{Error, Result};
use crate::graph::{Array, Value};

/// Bytes of a vector's header (a struct element's row of values).
const ROW: u64 = std::mem::size_of::<Vec<Value>>() as u64;

/// Bytes one item of `base` takes in its array column (an 8-float vector is a value
/// holding 8 values).
fn item_bytes(base: Base) -> u64 {
    match base {
        Base::Byte => 1,
        Base::Int => 8,
        Base::Real => 4,
        Base::Vec4 => 16,
        Base::Vec12 => 48,
        Base::Vec16 => 64,
        _ => VALUE + extra_bytes(base),
    }
}

impl Reader<'_> {
    /// `n` items read by `f`, into a vector of exactly their number (what was charged).
    fn each<T>(&mut self, n: usize, mut f: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(f(self)?);
        }
        Ok(out)
    }

    fn bytes_for(&self, n: usize, size: u64) -> Result<()> {
        let left = self.input.left();
        if (n as u64).saturating_mul(size) > left {
            return Err(Error::count(self.input.pos as u64, n as u64, size, left));
        }
        Ok(())
    }

    /// `n` items of a member's basic type: an array's elements, a tuple's, or a struct
    /// column's.
    pub fn items(
        &mut self,
        member: &MemberDef,
        key: (usize, usize),
        n: usize,
        depth: usize,
    ) -> Result<Array> {
        self.too_deep(depth)?;
        let base = member.ty.base;
        // A tuple's column becomes values while the column is still held.
        let each = match member.ty.tuple {
            0 => item_bytes(base),
            _ => item_bytes(base) + VALUE + extra_bytes(base),
        };
        let at = self.input.pos as u64;
        self.input.budget.charge_n(n as u64, each, at)?;
        self.bytes_for(n, base.min_bytes())?;
        Ok(match base {
            Base::Byte => Array::U8(self.input.take(n)?.to_vec()),
            Base::Int => self.ints(key, n)?,
            Base::Real => Array::Real(self.each(n, |r| r.input.f32())?),
            Base::Vec4 => Array::Vec4(self.vectors(n)?),
            Base::Vec8 => Array::Values(self.each(n, |r| {
                let f = r.floats::<8>()?;
                Ok(Value::CArray(f.iter().map(|x| Value::Real(*x)).collect()))
            })?),
            Base::Vec12 => Array::Mat3(self.each(n, |r| r.floats::<12>())?),
            Base::Vec16 => Array::Mat4(self.each(n, |r| r.floats::<16>())?),
            Base::Object | Base::CString => {
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    self.input.path.push(Step::Index(i as u32));
                    out.push(if base == Base::Object {
                        Value::Pointer(self.reference()?)
                    } else {
                        self.string_value()?
                    });
                    self.input.path.pop();
                }
                Array::Values(out)
            }
            Base::Struct => {
                let def = self.struct_def(member)?;
                Array::Values(self.column(def, n, depth + 1)?)
            }
            Base::Void => {
                return Err(Error::invalid(
                    self.input.pos as u64,
                    "items of type void are present",
                ))
            }
        })
    }

    /// Integer items: the width (4 or 8 bytes), then a varint each. One member keeps one
    /// width wherever it is written.
    fn ints(&mut self, key: (usize, usize), n: usize) -> Result<Array> {
        let at = self.input.pos;
        let width = if self.rules.int_width {
            let w = self.input.int32("the integer width")?;
            if w != 4 && w != 8 {
                self.input
                    .soft(at, || format!("integer width {w} (Havok writes 4 or 8)"))?;
            }
            if w == 4 {
                4
            } else {
                8
            }
        } else {
            4
        };
        match self.widths.insert(key, width) {
            Some(w) if w != width => {
                return Err(Error::invalid(
                    at as u64,
                    format!("integers {width} bytes wide; elsewhere this member's are {w}"),
                ))
            }
            _ => {}
        }
        if width == 8 {
            return Ok(Array::I64(self.each(n, |r| r.input.varint())?));
        }
        // Straight into the 4-byte column (no 8-byte one first).
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let at = self.input.pos;
            let x = self.input.varint()?;
            let Ok(x) = i32::try_from(x) else {
                self.input.path.push(Step::Index(i as u32));
                return Err(Error::invalid(
                    at as u64,
                    format!("{x} does not fit the 4-byte integers of its array"),
                ));
            };
            v.push(x);
        }
        Ok(Array::I32(v))
    }

    /// Vector items: 3 or 4 floats each (3 when every `w` is `+0.0`).
    fn vectors(&mut self, n: usize) -> Result<Vec<[f32; 4]>> {
        let at = self.input.pos;
        let width = self.input.int32("the vector width")?;
        if width != 3 && width != 4 {
            return Err(Error::invalid(
                at as u64,
                format!("vector width {width} (3 or 4)"),
            ));
        }
        self.bytes_for(n, 4 * width as u64)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let mut v = [0.0f32; 4];
            for x in &mut v[..width as usize] {
                *x = self.input.f32()?;
            }
            out.push(v);
        }
        if width == 4 && out.iter().all(|v| v[3].to_bits() == 0) {
            self.input.soft(at, || {
                "every w is +0.0, yet 4 floats are written per vector (Havok writes 3)".into()
            })?;
        }
        Ok(out)
    }

    /// `n` structs of definition `def`, column by column: one bitfield for the array, then
    /// each present member's values for every element.
    fn column(&mut self, def: usize, n: usize, depth: usize) -> Result<Vec<Value>> {
        self.too_deep(depth)?;
        let flat = self.flat(def)?;
        // Per element: its row (a vector header and a value per member) and the struct
        // value holding it.
        let row = (flat.len() as u64)
            .saturating_mul(VALUE)
            .saturating_add(VALUE + ROW);
        let at = self.input.pos as u64;
        self.input.budget.charge_n(n as u64, row, at)?;
        let present = self.input.bits(flat.len())?;
        let mut rows: Vec<Vec<Value>> = (0..n).map(|_| Vec::with_capacity(flat.len())).collect();
        for (k, &(d, m)) in flat.iter().enumerate() {
            let owner = Rc::clone(&self.defs[d]);
            let member = &owner.members[m];
            self.input.path.push(Step::Member(d, m));
            let at = self.input.pos;
            if present[k] {
                if member.ty.base == Base::Void {
                    return Err(Error::invalid(at as u64, "a void member is marked present"));
                }
                let column = if member.ty.tuple > 0 || member.ty.array {
                    self.charge(n as u64)?;
                    let mut c = Vec::with_capacity(n);
                    for i in 0..n {
                        self.input.path.push(Step::Index(i as u32));
                        c.push(self.value(member, (d, m), depth)?);
                        self.input.path.pop();
                    }
                    c
                } else {
                    // The column's values, before they move into the rows.
                    let each = VALUE + extra_bytes(member.ty.base);
                    let at = self.input.pos as u64;
                    self.input.budget.charge_n(n as u64, each, at)?;
                    into_values(self.items(member, (d, m), n, depth)?)
                };
                if !column.iter().any(|v| worth(&member.ty, v)) {
                    self.input.soft(at, || {
                        "a struct column is present though every element is zero".into()
                    })?;
                }
                for (row, v) in rows.iter_mut().zip(column) {
                    row.push(v);
                }
            } else {
                if n > 0 && always_written(&member.ty) {
                    self.input.soft(at, || {
                        "a struct column is left out, though Havok always writes it".into()
                    })?;
                }
                rows.iter_mut().for_each(|r| r.push(Value::None));
            }
            self.input.path.pop();
        }
        Ok(rows.into_iter().map(Value::Struct).collect())
    }
}
