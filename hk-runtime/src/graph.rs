//! The dynamic object graph every container decodes into and encodes from.
//!
//! Objects hold their members' values by name; pointers name objects by [`ObjectId`] (or
//! a path into an object's owned data), never by file offset, so a graph can be edited and
//! written back: the writer regenerates placement, padding and fixups.

use std::fmt;

use crate::layout::LayoutRules;

/// Index of an object in [`Graph::objects`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u32);

/// One step into an object's members.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    /// A member by name.
    Field(String),
    /// An element of an array or C array.
    Index(u32),
}

/// Where a pointer points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ptr {
    /// The start of an object.
    Object(ObjectId),
    /// Something an object owns: an element of one of its arrays, a string, or a member
    /// inside them, e.g. an enum inside another class's `declaredEnums`.
    Into {
        /// The owning object.
        object: ObjectId,
        /// The path from the object to the target.
        path: Vec<Seg>,
    },
    /// An object of another file, by the name that file exports it under.
    Import(String),
}

/// A member value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `bool` (the stored byte).
    Bool(u8),
    /// Signed integers: `char`, `int8` to `int64`, signed enums and flags.
    Int(i64),
    /// Unsigned integers: `uint8` to `uint64`, `ulong`, unsigned enums and flags.
    UInt(u64),
    /// `real`.
    Real(f32),
    /// `half`: the 16 stored bits (the top half of an `f32`).
    Half(u16),
    /// `vector4`, `quaternion` (4), `matrix3`, `rotation`, `qstransform` (12), `matrix4`,
    /// `transform` (16).
    Floats(Vec<f32>),
    /// `pointer` and `functionpointer`.
    Pointer(Option<Ptr>),
    /// `cstring` and `stringptr`.
    String(Option<String>),
    /// A `cstring` or `stringptr` whose bytes are not UTF-8 (e.g. Shift-JIS names in
    /// Demon's Souls files), kept as stored, without the NUL.
    Bytes(Vec<u8>),
    /// `array` and `simplearray`.
    Array(Vec<Value>),
    /// A member of type `struct`, or an array element of a struct type.
    Struct(Vec<Field>),
    /// A C array (`array_size` > 0).
    CArray(Vec<Value>),
    /// `variant`: an object and the hkClass object describing it.
    Variant {
        /// The object.
        object: Option<Ptr>,
        /// Its class description.
        class: Option<Ptr>,
    },
    /// A member with no storage (`void`, `zero`).
    None,
}

/// A named member value.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Member name.
    pub name: String,
    /// Its value.
    pub value: Value,
}

impl Field {
    /// A field.
    pub fn new(name: impl Into<String>, value: Value) -> Self {
        Field {
            name: name.into(),
            value,
        }
    }
}

/// One object.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Class name.
    pub class: String,
    /// Index of the section it lives in.
    pub section: u32,
    /// Every member of the class and its ancestors, root class first, in declaration order.
    pub fields: Vec<Field>,
}

impl Object {
    /// The value of member `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| &f.value)
    }

    /// The value of member `name`, mutable.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        self.fields
            .iter_mut()
            .find(|f| f.name == name)
            .map(|f| &mut f.value)
    }
}

/// Container facts a writer needs besides the objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileInfo {
    /// Packfile file version.
    pub file_version: u32,
    /// Contents-version string.
    pub contents_version: String,
    /// Layout rules.
    pub layout: LayoutRules,
    /// Header `userTag`.
    pub user_tag: u32,
    /// Header flags word (0x38).
    pub flags: u32,
    /// Section tags, in file order.
    pub sections: Vec<String>,
    /// Index of the class-name section.
    pub class_names_section: u32,
    /// Index of the section holding the root object.
    pub contents_section: u32,
    /// Predicate words of a version-11 header (`maxPredicate`, predicate block).
    pub predicates: Option<(i16, Vec<u8>)>,
    /// The class-name list, when the file's order is not the one the writer regenerates
    /// (the four reflection classes, then each class in the order of its first object).
    /// Havok 5.5 lists every class its writer registered, in its own hash order.
    pub class_names: Option<Vec<String>>,
    /// Objects other files may import, by name.
    pub exports: Vec<(ObjectId, String)>,
}

/// An object graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// Container facts.
    pub info: FileInfo,
    /// Every object, in file order.
    pub objects: Vec<Object>,
    /// The root object.
    pub root: ObjectId,
    /// Arrays whose capacity word carries flag bits other than the usual 0x80000000
    /// (Havok 5.5 and 6.6 also set 0x40000000 on some), by owner and member path.
    pub capacity_flags: std::collections::BTreeMap<(ObjectId, Vec<Seg>), u32>,
}

impl Graph {
    /// The object `id`.
    pub fn object(&self, id: ObjectId) -> &Object {
        &self.objects[id.0 as usize]
    }
}

impl fmt::Display for Seg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seg::Field(n) => write!(f, ".{n}"),
            Seg::Index(i) => write!(f, "[{i}]"),
        }
    }
}

impl Graph {
    /// Removes object `id`: pointers to it become null, later ids shift down by one.
    ///
    /// # Errors
    /// When `id` is the root or out of range.
    pub fn remove_object(&mut self, id: ObjectId) -> crate::Result<Object> {
        if id == self.root || id.0 as usize >= self.objects.len() {
            return Err(crate::Error::invalid(
                0,
                format!("cannot remove object #{}", id.0),
            ));
        }
        let removed = self.objects.remove(id.0 as usize);
        let fix = |p: &mut Option<Ptr>| {
            let target = match p {
                Some(Ptr::Object(t)) | Some(Ptr::Into { object: t, .. }) => t,
                Some(Ptr::Import(_)) | None => return,
            };
            if *target == id {
                *p = None;
            } else if target.0 > id.0 {
                target.0 -= 1;
            }
        };
        for o in &mut self.objects {
            o.fields
                .iter_mut()
                .for_each(|f| visit_ptrs(&mut f.value, &fix));
        }
        if self.root.0 > id.0 {
            self.root.0 -= 1;
        }
        self.info.exports.retain(|(o, _)| *o != id);
        for (o, _) in &mut self.info.exports {
            if o.0 > id.0 {
                o.0 -= 1;
            }
        }
        self.capacity_flags = std::mem::take(&mut self.capacity_flags)
            .into_iter()
            .filter(|((o, _), _)| *o != id)
            .map(|((o, p), f)| {
                (
                    if o.0 > id.0 {
                        (ObjectId(o.0 - 1), p)
                    } else {
                        (o, p)
                    },
                    f,
                )
            })
            .collect();
        Ok(removed)
    }
}

fn visit_ptrs(v: &mut Value, f: &impl Fn(&mut Option<Ptr>)) {
    match v {
        Value::Pointer(p) => f(p),
        Value::Variant { object, class } => {
            f(object);
            f(class);
        }
        Value::Struct(fs) => fs.iter_mut().for_each(|x| visit_ptrs(&mut x.value, f)),
        Value::Array(items) | Value::CArray(items) => {
            items.iter_mut().for_each(|x| visit_ptrs(x, f))
        }
        _ => {}
    }
}

impl Object {
    /// An object of `class` with every member at its zero value (null pointers and strings,
    /// empty arrays), as laid out by `schema`.
    ///
    /// # Errors
    /// A class or member class the schema lacks.
    pub fn new_default(schema: &crate::Schema, class: &str, section: u32) -> crate::Result<Object> {
        Ok(Object {
            class: class.to_string(),
            section,
            fields: default_fields(schema, class)?,
        })
    }

    /// Sets the member at dotted `path` (`collidable.shape`, `bones[2].name`).
    ///
    /// # Errors
    /// A path that names no member of this object.
    pub fn set(&mut self, path: &str, value: Value) -> crate::Result<()> {
        let segs = crate::dump::parse_member_path(path)
            .ok_or_else(|| crate::Error::invalid(0, format!("bad member path `{path}`")))?;
        let slot =
            crate::packfile::read::value_at_mut(&mut self.fields, &segs).ok_or_else(|| {
                crate::Error::invalid(0, format!("`{}` has no member `{path}`", self.class))
            })?;
        *slot = value;
        Ok(())
    }
}

/// Zero values for every member of `class` and its ancestors.
///
/// # Errors
/// A class or member class the schema lacks.
pub fn default_fields(schema: &crate::Schema, class: &str) -> crate::Result<Vec<Field>> {
    use crate::types::TypeKind as T;
    fn value(schema: &crate::Schema, ty: T, class: Option<&str>) -> crate::Result<Value> {
        Ok(match ty {
            T::Void | T::Zero => Value::None,
            T::Bool => Value::Bool(0),
            T::Char | T::Int8 | T::Int16 | T::Int32 | T::Int64 => Value::Int(0),
            T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::ULong | T::Enum | T::Flags => {
                Value::UInt(0)
            }
            T::Real => Value::Real(0.0),
            T::Half => Value::Half(0),
            T::Vector4 | T::Quaternion => Value::Floats(vec![0.0; 4]),
            T::Matrix3 | T::Rotation | T::QsTransform => Value::Floats(vec![0.0; 12]),
            T::Matrix4 | T::Transform => Value::Floats(vec![0.0; 16]),
            T::Pointer | T::FunctionPointer | T::RelPtr => Value::Pointer(None),
            T::CString | T::StringPtr => Value::String(None),
            T::Variant => Value::Variant {
                object: None,
                class: None,
            },
            T::Array
            | T::SimpleArray
            | T::RelArray
            | T::RelArray64
            | T::RelArrayView
            | T::InplaceArray
            | T::HomogeneousArray => Value::Array(Vec::new()),
            T::Struct => Value::Struct(default_fields(
                schema,
                class.ok_or_else(|| crate::Error::schema("struct member names no class"))?,
            )?),
        })
    }
    let mut out = Vec::new();
    for c in schema.chain(class)?.into_iter().rev() {
        for m in &c.members {
            let v = if m.array_size > 0 {
                Value::CArray(
                    (0..m.array_size)
                        .map(|_| value(schema, m.ty, m.class.as_deref()))
                        .collect::<crate::Result<_>>()?,
                )
            } else {
                value(schema, m.ty, m.class.as_deref())?
            };
            out.push(Field::new(m.name.clone(), v));
        }
    }
    Ok(out)
}
