//! Rust enums for the enums classes declare. Members hold them in their storage integer
//! (`Enum<E, S>`, `Flags<E, S>`), so any stored value writes back as it was.

use hk_runtime::schema::Enum;
use proc_macro2::TokenStream;
use quote::quote;

use super::{names, Paths};

/// The Rust enum of enum `e` declared by `class`, with its `HkEnum` impl.
pub fn expand(p: &Paths, class: &str, e: &Enum) -> TokenStream {
    let rt = p.typed();
    let ty = names::enum_type(class, &e.name);
    let doc = format!(" `{class}::{}` ({} items).", e.name, e.items.len());
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
            i64::from(i.value),
            i.name.clone(),
        ));
    }
    let decl = variants.iter().map(|(v, val, n)| {
        let d = format!(" `{n}` = {val}");
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
            fn default() -> Self {
                #default
            }
        }
        impl #ty {
            /// The stored value.
            pub const fn value(self) -> i64 {
                match self {
                    #(#to)*
                    Self::Other(v) => v,
                }
            }
            /// The item with stored value `v`.
            #[allow(unreachable_patterns)]
            pub const fn from_value(v: i64) -> Self {
                match v {
                    #(#from)*
                    other => Self::Other(other),
                }
            }
        }
        impl #rt::HkEnum for #ty {
            fn from_i64(v: i64) -> Self {
                Self::from_value(v)
            }
            fn to_i64(self) -> i64 {
                self.value()
            }
        }
    }
}
