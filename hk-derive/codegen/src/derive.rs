//! `#[derive(HkClass)]`: a hand-written struct checked against a schema class.
//!
//! ```text
//! #[derive(HkClass)]
//! #[hk(schema = "schemas/havok-7.1", class = "hkpBoxShape")]
//! struct BoxShape { mem_size_and_flags: u16, reference_count: i16, user_data: u64, ... }
//! ```
//!
//! Every member of the class and its ancestors must be a field (named in snake case), and
//! every field a member. The derive implements `HkClass` (name, signature, version) and, for
//! a struct without generics, the codec (`Class` and `Member`: layout tables, decoder,
//! encoder, graph conversion) with the fields in flattened member order; each field's type
//! must be a member type of `hk_runtime::typed` fitting its member, and the struct must
//! implement `Default` (decoding fills a default value in place). `crate = "..."` names the
//! runtime crate when it is not `::hk_runtime`.

use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::expand::{class, dynamic, Paths};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::{self, PtrMemo};

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
    let mut krate: Option<LitStr> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("hk")) {
        let r = attr.parse_nested_meta(|meta| {
            let slot = if meta.path.is_ident("schema") {
                &mut schema_path
            } else if meta.path.is_ident("class") {
                &mut class
            } else if meta.path.is_ident("crate") {
                &mut krate
            } else {
                return Err(
                    meta.error("unknown hk attribute; expected `schema`, `class` or `crate`")
                );
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
    let (Some(schema_path), Some(class_lit)) = (schema_path, class) else {
        cx.error(
            input.ident.span(),
            "missing #[hk(schema = \"...\", class = \"...\")]",
        );
        return None;
    };
    let paths = match krate.map(|k| k.parse::<syn::Path>()).transpose() {
        Ok(k) => Paths::new(k.as_ref()),
        Err(e) => {
            cx.error(e.span(), format!("`crate` is not a path: {e}"));
            return None;
        }
    };
    let (_, schema) = crate::internals::schema::load(cx, &schema_path)?;
    let name = class_lit.value();
    let Some(schema_class) = schema.class(&name) else {
        cx.error(
            class_lit.span(),
            format!("class `{name}` is not in schema `{}`", schema_path.value()),
        );
        return None;
    };
    let Ok(chain) = schema.chain(&name) else {
        cx.error(
            class_lit.span(),
            format!("class `{name}` has a broken parent chain"),
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
    let key = |f: &syn::Field| {
        f.ident
            .as_ref()
            .map(|i| i.to_string().trim_start_matches("r#").to_string())
            .unwrap_or_default()
    };
    for f in &named.named {
        let k = key(f);
        if !members.iter().any(|(snake, _)| *snake == k) {
            let span = f.ident.as_ref().map_or(input.ident.span(), |i| i.span());
            cx.error(span, format!("`{name}` has no member `{k}`"));
        }
    }
    let missing: Vec<&str> = members
        .iter()
        .filter(|(snake, _)| !named.named.iter().any(|f| key(f) == *snake))
        .map(|(_, orig)| orig.as_str())
        .collect();
    if !missing.is_empty() {
        cx.error(
            input.ident.span(),
            format!("missing members of `{name}`: {}", missing.join(", ")),
        );
        return None;
    }
    // The fields in flattened member order.
    let idents: Vec<syn::Ident> = members
        .iter()
        .filter_map(|(snake, _)| {
            named
                .named
                .iter()
                .find(|f| key(f) == *snake)
                .and_then(|f| f.ident.clone())
        })
        .collect();
    let mut m = match model::build(
        &paths,
        &schema,
        schema_class,
        idents,
        &mut PtrMemo::default(),
    ) {
        Ok(m) => m,
        Err(errs) => {
            errs.into_iter().for_each(|e| cx.error(class_lit.span(), e));
            return None;
        }
    };
    m.ty = input.ident.clone();
    // The struct members' types are the user's: only this class is checked against a
    // graph's schema.
    m.structs.clear();
    let hk = class::hk_class(&paths, &m, Some(&input.generics));
    if !input.generics.params.is_empty() {
        return Some(hk);
    }
    let codec = class::codec(&paths, &m);
    let conv = dynamic::try_from(&paths, &m, false);
    Some(quote!(#hk #codec #conv))
}
