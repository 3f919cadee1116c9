//! Rust enums and flag sets for the enums classes declare.

use hk_runtime::schema::Enum;
use proc_macro2::TokenStream;
use quote::quote;

use super::names;

/// An enum type (or, for `flags` members, a flag set) for enum `e` of `class`.
pub fn expand(class: &str, e: &Enum, as_flags: bool) -> TokenStream {
    let ty = names::enum_type(class, &e.name);
    let doc = format!("`{class}::{}` ({} items).", e.name, e.items.len());
    let rt = quote!(::hk_runtime::typed);
    let graph = quote!(::hk_runtime::graph);
    if as_flags {
        let consts = e.items.iter().map(|i| {
            let c = names::constant(&i.name);
            let v = i.value as u32 as u64;
            let d = format!("`{}` = {}", i.name, i.value);
            quote!(#[doc = #d] pub const #c: Self = Self(#v);)
        });
        return quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct #ty(pub u64);
            #[allow(missing_docs)]
            impl #ty {
                #(#consts)*
                /// Whether every bit of `other` is set.
                pub const fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
            }
            impl #rt::Member for #ty {
                fn from_value(v: &#graph::Value) -> ::hk_runtime::Result<Self> {
                    <u64 as #rt::Member>::from_value(v).map(#ty)
                }
                fn to_value(&self) -> #graph::Value { #graph::Value::UInt(self.0) }
            }
        };
    }
    let mut seen: Vec<String> = Vec::new();
    let mut variants = Vec::new();
    for i in &e.items {
        let mut v = names::variant(&i.name).to_string();
        while seen.contains(&v) {
            v.push('_');
        }
        seen.push(v.clone());
        variants.push((
            proc_macro2::Ident::new(&v, proc_macro2::Span::call_site()),
            i.value as i64,
            i.name.clone(),
        ));
    }
    let decl = variants.iter().map(|(v, val, n)| {
        let d = format!("`{n}` = {val}");
        quote!(#[doc = #d] #v,)
    });
    let to = variants.iter().map(|(v, val, _)| quote!(Self::#v => #val,));
    let from = variants.iter().map(|(v, val, _)| quote!(#val => Self::#v,));
    let default = match variants.first() {
        Some((v, _, _)) => quote!(Self::#v),
        None => quote!(Self::Other(0)),
    };
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum #ty {
            #(#decl)*
            /// A value the schema does not name.
            Other(i64),
        }
        impl ::core::default::Default for #ty {
            fn default() -> Self { #default }
        }
        impl #ty {
            /// The stored value.
            pub const fn value(self) -> i64 {
                match self { #(#to)* Self::Other(v) => v }
            }
            /// The item with stored value `v`.
            #[allow(unreachable_patterns)]
            pub const fn from_value(v: i64) -> Self {
                match v { #(#from)* other => Self::Other(other) }
            }
        }
        impl #rt::Member for #ty {
            fn from_value(v: &#graph::Value) -> ::hk_runtime::Result<Self> {
                <i64 as #rt::Member>::from_value(v).map(#ty::from_value)
            }
            fn to_value(&self) -> #graph::Value { #graph::Value::Int(self.value()) }
        }
    }
}
