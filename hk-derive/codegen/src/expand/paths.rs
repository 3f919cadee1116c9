//! Every path into the runtime crate that the expansion emits, in one place. The root is
//! `::hk_runtime` unless the caller names another with `crate = "..."` (a crate that
//! renames or re-exports `hk_runtime`); every other path is built from it here.

use proc_macro2::TokenStream;
use quote::quote;

/// The runtime crate's paths, rooted at the crate the generated code calls.
#[derive(Clone, Debug)]
pub struct Paths {
    root: TokenStream,
}

impl Default for Paths {
    fn default() -> Self {
        Paths {
            root: quote!(::hk_runtime),
        }
    }
}

impl Paths {
    /// Paths rooted at `krate` (`None`: `::hk_runtime`).
    pub fn new(krate: Option<&syn::Path>) -> Self {
        match krate {
            Some(p) => Paths { root: quote!(#p) },
            None => Paths::default(),
        }
    }

    /// `typed`: the traits, member types and engines generated code calls.
    pub fn typed(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::typed)
    }

    /// `Result`.
    pub fn result(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::Result)
    }

    /// `Error`.
    pub fn error(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::Error)
    }

    /// `error::ConvertError`.
    pub fn convert_error(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::error::ConvertError)
    }

    /// `Schema`.
    pub fn schema(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::Schema)
    }

    /// `schema::ClassId`.
    pub fn class_id(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::schema::ClassId)
    }

    /// `schema::ArrayKind`.
    pub fn array_kind(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::schema::ArrayKind)
    }

    /// `schema::embed`: the constant tables of an embedded schema.
    pub fn embed(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::schema::embed)
    }

    /// `types::TypeKind`.
    pub fn type_kind(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::types::TypeKind)
    }

    /// `LayoutRules`.
    pub fn layout_rules(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::LayoutRules)
    }

    /// `Endian`.
    pub fn endian(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::Endian)
    }

    /// `graph`: objects, values, pointers and path segments.
    pub fn graph(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::graph)
    }

    /// `packfile`: the parsed packfile and its locations.
    pub fn packfile(&self) -> TokenStream {
        let r = &self.root;
        quote!(#r::packfile)
    }
}
