//! `#[derive(HkClass)]`: a hand-written struct checked against a schema class.
//!
//! ```text
//! #[derive(HkClass)]
//! #[hk(schema = "schemas/havok-7.1", class = "hkpBoxShape")]
//! struct BoxShape { mem_size_and_flags: u16, reference_count: i16, user_data: u64, ... }
//! ```
//!
//! Every member of the class and its ancestors must be a field (named in snake case), and
//! every field a member; the impl reads and writes them by name through the runtime.

use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::internals::ctxt::Ctxt;

/// Expands the derive.
pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let out = expand_inner(&cx, input);
    cx.check()?;
    Ok(out.unwrap_or_default())
}

fn expand_inner(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let mut schema_path: Option<LitStr> = None;
    let mut class: Option<LitStr> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("hk")) {
        let r = attr.parse_nested_meta(|meta| {
            let slot = if meta.path.is_ident("schema") {
                &mut schema_path
            } else if meta.path.is_ident("class") {
                &mut class
            } else {
                return Err(meta.error("unknown hk attribute; expected `schema` or `class`"));
            };
            let v: LitStr = meta.value()?.parse()?;
            if slot.replace(v).is_some() {
                return Err(meta.error("duplicate hk attribute"));
            }
            Ok(())
        });
        if let Err(e) = r {
            cx.error(e.span(), e);
        }
    }
    let Data::Struct(data) = &input.data else {
        cx.error(
            input.ident.span(),
            "HkClass can only be derived for structs",
        );
        return None;
    };
    let Fields::Named(named) = &data.fields else {
        cx.error(
            input.ident.span(),
            "HkClass needs a struct with named fields",
        );
        return None;
    };
    let (Some(schema_path), Some(class)) = (schema_path, class) else {
        cx.error(
            input.ident.span(),
            "missing #[hk(schema = \"...\", class = \"...\")]",
        );
        return None;
    };
    let (_, schema) = crate::internals::schema::load(cx, &schema_path)?;
    let name = class.value();
    let Ok(chain) = schema.chain(&name) else {
        cx.error(
            class.span(),
            format!("class `{name}` is not in schema `{}`", schema_path.value()),
        );
        return None;
    };
    let members: Vec<(String, String)> = chain
        .iter()
        .rev()
        .flat_map(|c| {
            c.members
                .iter()
                .map(|m| (m.name.to_snake_case(), m.name.clone()))
        })
        .collect();
    let mut pairs = Vec::new();
    for f in &named.named {
        let ident = f.ident.as_ref().expect("named field");
        let key = ident.to_string().trim_start_matches("r#").to_string();
        match members.iter().find(|(snake, _)| *snake == key) {
            Some((_, orig)) => pairs.push((ident.clone(), orig.clone())),
            None => cx.error(ident.span(), format!("`{name}` has no member `{key}`")),
        }
    }
    let missing: Vec<&str> = members
        .iter()
        .filter(|(snake, _)| {
            !named.named.iter().any(|f| {
                f.ident
                    .as_ref()
                    .is_some_and(|i| i.to_string().trim_start_matches("r#") == snake)
            })
        })
        .map(|(_, orig)| orig.as_str())
        .collect();
    if !missing.is_empty() {
        cx.error(
            input.ident.span(),
            format!("missing members of `{name}`: {}", missing.join(", ")),
        );
    }
    let sig = match hk_runtime::signature::signature(&schema, &name) {
        Ok(s) => s.value,
        Err(e) => {
            cx.error(class.span(), e);
            return None;
        }
    };
    let version = chain[0].version;
    let ty = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let read = pairs
        .iter()
        .map(|(f, orig)| quote!(#f: ::hk_runtime::typed::field(fields, #name, #orig)?,));
    let write = pairs
        .iter()
        .map(|(f, orig)| quote!(::hk_runtime::graph::Field::new(#orig, ::hk_runtime::typed::Member::to_value(&self.#f)),));
    Some(quote! {
        impl #impl_g ::hk_runtime::typed::HkClass for #ty #ty_g #where_g {
            const NAME: &'static str = #name;
            const SIGNATURE: u32 = #sig;
            const VERSION: u32 = #version;
            fn from_fields(fields: &[::hk_runtime::graph::Field]) -> ::hk_runtime::Result<Self> {
                ::core::result::Result::Ok(Self { #(#read)* })
            }
            fn to_fields(&self) -> ::std::vec::Vec<::hk_runtime::graph::Field> {
                ::std::vec![#(#write)*]
            }
        }
    })
}
