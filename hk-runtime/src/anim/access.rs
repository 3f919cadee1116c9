//! The animation readers' view of records ([`crate::graph::rec`]): errors are
//! [`AnimError`]s naming the object and member.

use crate::graph::rec::RecordError;
use crate::graph::{Array, Value};

use super::{AnimError, Result, Transform};

pub(crate) use crate::graph::rec::{ints, is_a, objects};

/// A record whose complaints are animation errors.
pub(crate) type Rec<'g> = crate::graph::rec::Rec<'g, AnimError>;

impl RecordError for AnimError {
    fn member(object: String, member: String, message: String) -> Box<Self> {
        AnimError::member(object, member, message)
    }
}

// The compressed formats' readers use the data helpers.
#[allow(dead_code)]
impl Rec<'_> {
    /// An error at byte `offset` of the data array `name`.
    pub(crate) fn data_err(
        &self,
        name: &str,
        offset: usize,
        msg: impl Into<String>,
    ) -> Box<AnimError> {
        AnimError::data(
            self.label(),
            format!("{}.{name}", self.class_name()),
            offset,
            msg,
        )
    }

    /// A non-negative integer member that fits `usize`.
    pub(crate) fn count(&self, name: &str) -> Result<usize> {
        let v = self.int(name)?;
        usize::try_from(v).map_err(|_| self.err(name, format!("{v} is not a count")))
    }

    /// A `uint8` array member's bytes.
    pub(crate) fn bytes(&self, name: &str) -> Result<&[u8]> {
        match self.array(name)? {
            Array::U8(v) => Ok(v),
            Array::Values(v) if v.is_empty() => Ok(&[]),
            _ => Err(self.err(name, "expected an array of bytes")),
        }
    }

    /// An integer array member widened to `u32`.
    pub(crate) fn u32s(&self, name: &str) -> Result<Vec<u32>> {
        ints(self.array(name)?)
            .ok_or_else(|| self.err(name, "expected an array of non-negative integers"))
    }

    /// A `real` array member.
    pub(crate) fn reals(&self, name: &str) -> Result<Vec<f32>> {
        match self.array(name)? {
            Array::Real(v) => Ok(v.clone()),
            Array::Values(v) if v.is_empty() => Ok(Vec::new()),
            _ => Err(self.err(name, "expected an array of reals")),
        }
    }

    /// A `qstransform` array member (12-float tuples, or structs of translation,
    /// rotation and scale in tagfiles that describe `hkQsTransform` as a class).
    pub(crate) fn transforms(&self, name: &str) -> Result<Vec<Transform>> {
        match self.array(name)? {
            Array::Mat3(v) => Ok(v.iter().map(Transform::from_floats).collect()),
            Array::Values(v) if v.is_empty() => Ok(Vec::new()),
            Array::Values(v) => v
                .iter()
                .map(|x| qs_value(x).ok_or_else(|| self.err(name, "expected qstransform elements")))
                .collect(),
            Array::Struct(_) => {
                let recs = self.recs(name)?;
                recs.iter().map(|r| r.transform_struct()).collect()
            }
            _ => Err(self.err(name, "expected an array of qstransforms")),
        }
    }

    /// A struct record holding `translation`, `rotation` and `scale` members.
    fn transform_struct(&self) -> Result<Transform> {
        let t = self.floats("translation", 3)?;
        let r = self.floats("rotation", 4)?;
        let s = self.floats("scale", 3)?;
        Ok(Transform {
            translation: [t[0], t[1], t[2]],
            rotation: [r[0], r[1], r[2], r[3]],
            scale: [s[0], s[1], s[2]],
        })
    }

    /// The elements of an array member as records: structs, or the objects an array of
    /// pointers names (Havok 5.5 keeps bones and annotation tracks as objects); null
    /// pointers are refused.
    pub(crate) fn items(&self, name: &str) -> Result<Vec<Rec<'_>>> {
        if let Ok(recs) = self.recs(name) {
            return Ok(recs);
        }
        objects(self.array(name)?)
            .into_iter()
            .enumerate()
            .map(|(i, o)| {
                let o = o.ok_or_else(|| self.err(name, format!("element {i} is null")))?;
                Rec::object(self.graph(), o)
            })
            .collect()
    }

    /// The first of `names` the class has, as a string.
    pub(crate) fn string_of(&self, names: &[&str]) -> Result<Option<&str>> {
        let name = names
            .iter()
            .find(|n| self.opt(n).is_some())
            .ok_or_else(|| self.err(names[0], "the class has no such member"))?;
        self.string(name)
    }

    /// A string member (`None` for a null string).
    pub(crate) fn string(&self, name: &str) -> Result<Option<&str>> {
        match self.get(name)? {
            Value::String(s) => Ok(s.as_deref()),
            v => Err(self.err(name, format!("expected a string, found {}", v.describe()))),
        }
    }
}

fn qs_value(v: &Value) -> Option<Transform> {
    match v {
        Value::Floats(f) if f.len() >= 12 => {
            let mut a = [0.0; 12];
            a.copy_from_slice(&f[..12]);
            Some(Transform::from_floats(&a))
        }
        Value::Struct(parts) if parts.len() == 3 => {
            let (t, r, s) = (
                parts[0].as_floats()?,
                parts[1].as_floats()?,
                parts[2].as_floats()?,
            );
            (t.len() >= 3 && r.len() >= 4 && s.len() >= 3).then(|| Transform {
                translation: [t[0], t[1], t[2]],
                rotation: [r[0], r[1], r[2], r[3]],
                scale: [s[0], s[1], s[2]],
            })
        }
        _ => None,
    }
}
