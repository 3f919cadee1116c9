//! One class as the expanders see it: its fields (Rust name and type, how each is read,
//! written and viewed), its layout tables under the eight rules, its signature. Built from
//! the schema's own plans, so the offsets are those the dynamic reader uses.

use std::collections::HashMap;

use hk_runtime::rules::LayoutRules;
use hk_runtime::schema::{ArrayKind, Class, ClassId, Schema, Shape};
use hk_runtime::types::TypeKind;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::expand::{names, Paths};

/// How a member is read, written and viewed.
pub enum Access {
    /// No storage (`void`): nothing in views.
    Void,
    /// One value a view reads in place (primitives, enums, flags): `view` is its type in
    /// views, a `ViewElem`.
    Single {
        /// The view type.
        view: TokenStream,
    },
    /// A string: views return its bytes.
    Str,
    /// A pointer: views return the object's `AnyView`.
    Ptr,
    /// A variant.
    Variant,
    /// A struct held by value.
    Struct {
        /// The struct's view type.
        view: Ident,
    },
    /// An array of `kind`; `elem` is the element's view type.
    Array {
        /// The array form.
        kind: ArrayKind,
        /// The element view type.
        elem: TokenStream,
    },
    /// A C array of `n` elements of view type `elem`.
    CArray {
        /// Element count.
        n: u16,
        /// The element view type.
        elem: TokenStream,
    },
    /// A type with no typed form in packfiles.
    Unsupported,
}

/// One flattened member.
pub struct Field {
    /// The Rust field.
    pub ident: Ident,
    /// The class that declares the member.
    pub owner: String,
    /// The member name.
    pub name: String,
    /// The Rust type.
    pub ty: TokenStream,
    /// How it is read, written and viewed.
    pub access: Access,
    /// Its traversal step (`hk_runtime::typed::Step`), naming other classes' shapes by
    /// their names in the shapes module.
    pub step: TokenStream,
    /// Whether a value can hold a pointer.
    pub ptrs: bool,
}

/// A class and its layout tables.
pub struct Model<'s> {
    /// The class.
    pub class: &'s Class,
    /// The Rust type.
    pub ty: Ident,
    /// The view type.
    pub view: Ident,
    /// Flattened members.
    pub fields: Vec<Field>,
    /// Padded size per rules index.
    pub sizes: [u32; 8],
    /// Member offsets per rules index.
    pub offsets: Vec<Vec<u32>>,
    /// Padding ranges per rules index.
    pub gaps: Vec<Vec<(u32, u32)>>,
    /// The signature a writer stores.
    pub signature: u32,
    /// Whether the schema pins it.
    pub pinned: bool,
    /// Whether a value can hold a pointer.
    pub ptrs: bool,
    /// Classes of struct members and struct elements (checked with the class).
    pub structs: Vec<Ident>,
}

/// Which classes can hold pointers (directly, or through the struct members and elements
/// they hold, however deep), memoised per class.
#[derive(Default)]
pub struct PtrMemo(HashMap<ClassId, bool>);

impl PtrMemo {
    /// Whether a value of `shape` can hold a pointer.
    pub fn shape(&mut self, schema: &Schema, shape: &Shape) -> bool {
        match shape {
            Shape::Pointer | Shape::Variant | Shape::Homogeneous => true,
            Shape::Struct(c) => self.class(schema, *c),
            Shape::Array(_, e) | Shape::CArray(_, e) => self.shape(schema, e),
            _ => false,
        }
    }

    /// Whether a value of class `c` can hold a pointer: a search of the classes it holds
    /// (classes that hold each other in arrays are searched once each).
    pub fn class(&mut self, schema: &Schema, c: ClassId) -> bool {
        if let Some(v) = self.0.get(&c) {
            return *v;
        }
        let mut seen = vec![c];
        let mut todo = vec![c];
        let mut found = false;
        while let Some(k) = todo.pop() {
            let Ok(ms) = schema.members(k) else {
                found = true;
                break;
            };
            for m in ms.iter() {
                let mut s = &m.shape;
                while let Shape::Array(_, e) | Shape::CArray(_, e) = s {
                    s = e;
                }
                match s {
                    Shape::Pointer | Shape::Variant | Shape::Homogeneous => found = true,
                    Shape::Struct(x) if !seen.contains(x) => {
                        seen.push(*x);
                        todo.push(*x);
                    }
                    _ => {}
                }
            }
            if found {
                break;
            }
        }
        self.0.insert(c, found);
        found
    }
}

/// The Rust type and view access of a value of `shape` declared as member `m` of `owner`
/// (an element, not the member itself, unless `top`).
struct Typed {
    ty: TokenStream,
    access: Access,
}

/// The traversal step of a value of `shape` (see `hk_runtime::typed::Step`).
fn step(p: &Paths, schema: &Schema, shape: &Shape) -> TokenStream {
    let rt = p.typed();
    let st = quote!(#rt::Step);
    let words = |width: u8, count: u8| quote!(#st::Words { width: #width, count: #count });
    match shape {
        Shape::Void => quote!(#st::Void),
        Shape::Bool => words(1, 1),
        Shape::Int { bytes, .. } => words(*bytes, 1),
        Shape::ULong => quote!(#st::ULong),
        Shape::Real => words(4, 1),
        Shape::Half => words(2, 1),
        Shape::Floats(n) => words(4, *n),
        Shape::Pointer => quote!(#st::Ptr),
        Shape::String => quote!(#st::Str),
        Shape::Variant => quote!(#st::Variant),
        Shape::Struct(c) => {
            let t = names::class_type(schema.name_of(*c));
            quote!(#st::Struct(&#t))
        }
        Shape::Array(kind, e) => match &**e {
            Shape::Array(..) | Shape::CArray(..) | Shape::Homogeneous | Shape::Unsupported(_) => {
                quote!(#st::Unsupported)
            }
            inner => {
                let k = crate::expand::kind(p, *kind);
                let e = step(p, schema, inner);
                quote!(#st::Array(#k, &#e))
            }
        },
        Shape::CArray(n, e) => match &**e {
            Shape::Array(..) | Shape::CArray(..) | Shape::Homogeneous | Shape::Unsupported(_) => {
                quote!(#st::Unsupported)
            }
            inner => {
                let e = step(p, schema, inner);
                quote!(#st::CArray(#n, &#e))
            }
        },
        // Typed code has no form for homogeneous arrays: the dynamic graph reads them.
        Shape::Homogeneous | Shape::Unsupported(_) => quote!(#st::Unsupported),
    }
}

fn int_type(bytes: u8, signed: bool) -> TokenStream {
    match (bytes, signed) {
        (1, true) => quote!(i8),
        (1, false) => quote!(u8),
        (2, true) => quote!(i16),
        (2, false) => quote!(u16),
        (4, true) => quote!(i32),
        (4, false) => quote!(u32),
        (_, true) => quote!(i64),
        (_, false) => quote!(u64),
    }
}

fn single(ty: TokenStream) -> Typed {
    Typed {
        access: Access::Single { view: ty.clone() },
        ty,
    }
}

/// The element view type of an access (what an array of it views its elements as).
fn elem_view(rt: &TokenStream, a: &Access) -> TokenStream {
    match a {
        Access::Void => quote!(()),
        Access::Single { view } => view.clone(),
        Access::Str => quote!(#rt::StrView<'a>),
        Access::Ptr => quote!(#rt::PtrView<'a, AnyView<'a>>),
        Access::Variant => quote!(#rt::VariantView<'a>),
        Access::Struct { view } => quote!(#view<'a>),
        Access::Array { .. } | Access::CArray { .. } | Access::Unsupported => {
            quote!(#rt::Unsupported)
        }
    }
}

fn typed(
    p: &Paths,
    schema: &Schema,
    owner: &Class,
    m: &hk_runtime::schema::Member,
    shape: &Shape,
    top: bool,
) -> Result<Typed, String> {
    let rt = p.typed();
    Ok(match shape {
        Shape::Void => Typed {
            ty: quote!(()),
            access: Access::Void,
        },
        Shape::Bool => single(quote!(#rt::Bool)),
        Shape::Int { bytes, signed } => {
            let storage = int_type(*bytes, *signed);
            // Enums and flags with a named enum and storage of up to 32 bits.
            let named = matches!(m.ty, TypeKind::Enum | TypeKind::Flags)
                || (!top && matches!(m.subtype, TypeKind::Enum | TypeKind::Flags));
            let resolved = m
                .enum_ref
                .as_deref()
                .and_then(|r| schema.resolve_enum(&owner.name, r));
            match resolved {
                Some((decl, e)) if named && *bytes <= 4 => {
                    let et = names::enum_type(&decl.name, &e.name);
                    let flags = m.ty == TypeKind::Flags
                        || (!top && m.ty != TypeKind::Enum && m.subtype == TypeKind::Flags);
                    if flags {
                        single(quote!(#rt::Flags<#et, #storage>))
                    } else {
                        single(quote!(#rt::Enum<#et, #storage>))
                    }
                }
                _ => single(storage),
            }
        }
        Shape::ULong => single(quote!(#rt::ULong)),
        Shape::Real => single(quote!(f32)),
        Shape::Half => single(quote!(#rt::Half)),
        Shape::Floats(n) => {
            let n = usize::from(*n);
            single(quote!([f32; #n]))
        }
        Shape::Pointer => {
            let t = match &m.class {
                Some(c) if schema.class(c).is_some() => {
                    let t = names::class_type(c);
                    quote!(#t)
                }
                _ => quote!(()),
            };
            Typed {
                ty: quote!(#rt::Ref<#t>),
                access: Access::Ptr,
            }
        }
        Shape::String => Typed {
            ty: quote!(#rt::HkString),
            access: Access::Str,
        },
        Shape::Variant => Typed {
            ty: quote!(#rt::Variant),
            access: Access::Variant,
        },
        Shape::Struct(c) => {
            let name = schema.name_of(*c);
            let t = names::class_type(name);
            let view = names::view_type(name);
            Typed {
                ty: quote!(#t),
                access: Access::Struct { view },
            }
        }
        Shape::Array(kind, e) => {
            let inner = typed(p, schema, owner, m, e, false)?;
            let elem = match &inner.access {
                // Arrays of arrays: only hkArray elements have a Rust form (and no view).
                Access::Array {
                    kind: ArrayKind::Array,
                    ..
                } => quote!(#rt::Unsupported),
                Access::Array { .. } | Access::CArray { .. } | Access::Unsupported => {
                    return Ok(Typed {
                        ty: quote!(#rt::Unsupported),
                        access: Access::Unsupported,
                    })
                }
                a => elem_view(&rt, a),
            };
            let t = inner.ty;
            Typed {
                ty: quote!(::std::vec::Vec<#t>),
                access: Access::Array { kind: *kind, elem },
            }
        }
        Shape::CArray(n, e) => {
            let inner = typed(p, schema, owner, m, e, false)?;
            if matches!(inner.access, Access::Array { .. } | Access::CArray { .. }) {
                return Ok(Typed {
                    ty: quote!(#rt::Unsupported),
                    access: Access::Unsupported,
                });
            }
            let elem = elem_view(&rt, &inner.access);
            let t = inner.ty;
            let len = usize::from(*n);
            Typed {
                ty: quote!(#rt::CArray<#t, #len>),
                access: Access::CArray { n: *n, elem },
            }
        }
        Shape::Homogeneous | Shape::Unsupported(_) => Typed {
            ty: quote!(#rt::Unsupported),
            access: Access::Unsupported,
        },
    })
}

/// Field names for the flattened members of `class`: snake case, made unique by prefixing
/// the declaring class.
pub fn field_names(schema: &Schema, class: &Class) -> Result<Vec<Ident>, String> {
    let chain = schema.chain(&class.name).map_err(|e| e.to_string())?;
    let mut used: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for owner in chain.iter().rev() {
        for m in &owner.members {
            let mut ident = names::field(&m.name);
            if used.contains(&ident.to_string()) {
                ident = names::field(&format!("{}_{}", owner.name, m.name));
            }
            while used.contains(&ident.to_string()) {
                ident = names::field(&format!("{ident}_"));
            }
            used.push(ident.to_string());
            out.push(ident);
        }
    }
    Ok(out)
}

/// The model of `class`, its fields named `idents` (in flattened member order).
///
/// # Errors
/// Every reason the class has no typed form (a broken chain, a layout that fails under
/// some rules), as messages naming the schema file and line.
pub fn build<'s>(
    p: &Paths,
    schema: &'s Schema,
    class: &'s Class,
    idents: Vec<Ident>,
    memo: &mut PtrMemo,
) -> Result<Model<'s>, Vec<String>> {
    let one = |e: String| vec![e];
    let id = schema
        .require(&class.name)
        .map_err(|e| one(e.to_string()))?;
    let flat = schema.members(id).map_err(|e| one(e.to_string()))?;
    if flat.len() != idents.len() {
        return Err(one(format!(
            "class `{}` has {} members, {} fields given",
            class.name,
            flat.len(),
            idents.len()
        )));
    }
    let mut errors = Vec::new();
    let mut fields = Vec::new();
    let mut structs: Vec<Ident> = Vec::new();
    for (fm, ident) in flat.iter().zip(idents) {
        let owner = schema.class_by_id(fm.owner);
        let m = schema.member_of(fm);
        let t = match typed(p, schema, owner, m, &fm.shape, true) {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!(
                    "{}:{} `members.{}.type`: {e}",
                    owner.origin.file.display(),
                    m.line,
                    m.name
                ));
                continue;
            }
        };
        let mut s = &fm.shape;
        while let Shape::Array(_, e) | Shape::CArray(_, e) = s {
            s = e;
        }
        if let Shape::Struct(c) = s {
            let t = names::class_type(schema.name_of(*c));
            if !structs.contains(&t) {
                structs.push(t);
            }
        }
        fields.push(Field {
            ident,
            owner: owner.name.clone(),
            name: m.name.clone(),
            ty: t.ty,
            access: t.access,
            step: step(p, schema, &fm.shape),
            ptrs: memo.shape(schema, &fm.shape),
        });
    }
    let mut sizes = [0u32; 8];
    let mut offsets = Vec::new();
    let mut gaps = Vec::new();
    for (ri, size) in sizes.iter_mut().enumerate() {
        match schema.plan(id, LayoutRules::from_index(ri)) {
            Ok(p) => {
                *size = p.size;
                offsets.push(p.members.iter().map(|m| m.offset).collect());
                gaps.push(p.gaps.to_vec());
            }
            Err(e) => {
                errors.push(format!(
                    "{}: class `{}` has no layout under {}: {e}",
                    class.origin.file.display(),
                    class.name,
                    LayoutRules::from_index(ri)
                ));
                offsets.push(vec![0; flat.len()]);
                gaps.push(Vec::new());
            }
        }
    }
    let sig = hk_runtime::schema::signature::signature(schema, &class.name)
        .map_err(|e| one(e.to_string()));
    if !errors.is_empty() {
        return Err(errors);
    }
    let sig = sig?;
    Ok(Model {
        class,
        ty: names::class_type(&class.name),
        view: names::view_type(&class.name),
        fields,
        sizes,
        offsets,
        gaps,
        signature: sig.value,
        pinned: sig.is_pinned(),
        ptrs: memo.class(schema, id),
        structs,
    })
}
