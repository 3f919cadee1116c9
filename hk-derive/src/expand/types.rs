//! The Rust type of each member.

use hk_runtime::schema::{Class, Member, Schema};
use hk_runtime::types::TypeKind;
use proc_macro2::TokenStream;
use quote::quote;

use super::names;

/// The Rust type of a value of `ty` (the element type for arrays), or why there is none.
fn leaf(
    schema: &Schema,
    owner: &Class,
    m: &Member,
    ty: TypeKind,
    subtype: TypeKind,
    known: &dyn Fn(&str) -> bool,
) -> Result<TokenStream, String> {
    let rt = quote!(::hk_runtime::typed);
    let class_ty = |c: &Option<String>| -> TokenStream {
        match c {
            Some(c) if known(c) => {
                let t = names::class_type(c);
                quote!(#t)
            }
            _ => quote!(()),
        }
    };
    Ok(match ty {
        TypeKind::Void | TypeKind::Zero => quote!(()),
        TypeKind::Bool => quote!(bool),
        TypeKind::Char | TypeKind::Int8 => quote!(i8),
        TypeKind::UInt8 => quote!(u8),
        TypeKind::Int16 => quote!(i16),
        TypeKind::UInt16 => quote!(u16),
        TypeKind::Int32 => quote!(i32),
        TypeKind::UInt32 => quote!(u32),
        TypeKind::Int64 => quote!(i64),
        TypeKind::UInt64 | TypeKind::ULong => quote!(u64),
        TypeKind::Real => quote!(f32),
        TypeKind::Half => quote!(#rt::Half),
        TypeKind::Vector4 | TypeKind::Quaternion => quote!([f32; 4]),
        TypeKind::Matrix3 | TypeKind::Rotation | TypeKind::QsTransform => quote!([f32; 12]),
        TypeKind::Matrix4 | TypeKind::Transform => quote!([f32; 16]),
        TypeKind::Enum | TypeKind::Flags => match m
            .enum_ref
            .as_deref()
            .and_then(|r| schema.resolve_enum(&owner.name, r))
        {
            Some((decl, e)) => {
                let t = names::enum_type(&decl.name, &e.name);
                quote!(#t)
            }
            None => leaf(
                schema,
                owner,
                m,
                if subtype.int_width().is_some() {
                    subtype
                } else {
                    TypeKind::UInt32
                },
                TypeKind::Void,
                known,
            )?,
        },
        TypeKind::Pointer | TypeKind::FunctionPointer | TypeKind::RelPtr => {
            let t = class_ty(&m.class);
            quote!(#rt::Ref<#t>)
        }
        TypeKind::CString | TypeKind::StringPtr => quote!(#rt::HkString),
        TypeKind::Variant => quote!(#rt::Variant),
        TypeKind::Struct => {
            let c = m.class.as_ref().ok_or("struct member names no class")?;
            let t = names::class_type(c);
            quote!(#rt::Inline<#t>)
        }
        TypeKind::Array
        | TypeKind::SimpleArray
        | TypeKind::RelArray
        | TypeKind::RelArrayView
        | TypeKind::RelArray64 => {
            let inner = leaf(schema, owner, m, subtype, TypeKind::Void, known)?;
            quote!(::std::vec::Vec<#inner>)
        }
        TypeKind::InplaceArray | TypeKind::HomogeneousArray => quote!(#rt::Raw),
    })
}

/// The Rust type of member `m` of `owner`.
pub fn member(
    schema: &Schema,
    owner: &Class,
    m: &Member,
    known: &dyn Fn(&str) -> bool,
) -> Result<TokenStream, String> {
    let t = leaf(schema, owner, m, m.ty, m.subtype, known)?;
    Ok(if m.array_size > 0 {
        quote!(::hk_runtime::typed::CArray<#t>)
    } else {
        t
    })
}
