//! One struct per class, with its `HkClass` impl and layout tables.

use hk_runtime::layout::Layouts;
use hk_runtime::schema::{Class, Schema};
use hk_runtime::typed::rules_of_index;
use proc_macro2::TokenStream;
use quote::quote;

use super::{names, types};

/// The struct, `HkClass` impl and layout constants of `class`, or the reasons it has none.
pub fn expand(
    schema: &Schema,
    class: &Class,
    known: &dyn Fn(&str) -> bool,
) -> Result<TokenStream, Vec<String>> {
    let rt = quote!(::hk_runtime::typed);
    let graph = quote!(::hk_runtime::graph);
    let ty = names::class_type(&class.name);
    let chain = schema.chain(&class.name).map_err(|e| vec![e.to_string()])?;
    let mut errors = Vec::new();
    let mut fields = Vec::new();
    let mut used: Vec<String> = Vec::new();
    for owner in chain.iter().rev() {
        for m in &owner.members {
            let mut ident = names::field(&m.name);
            while used.contains(&ident.to_string()) {
                ident = names::field(&format!("{}_{}", owner.name, m.name));
                if used.contains(&ident.to_string()) {
                    ident = names::field(&format!("{}_{}_", owner.name, m.name));
                }
            }
            used.push(ident.to_string());
            match types::member(schema, owner, m, known) {
                Ok(t) => fields.push((ident, t, m.name.clone(), owner.name.clone())),
                Err(e) => errors.push(format!(
                    "{}:{} `members.{}.type`: {e}",
                    owner.origin.file.display(),
                    m.line,
                    m.name
                )),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut sizes = Vec::new();
    let mut offsets = Vec::new();
    for i in 0..8 {
        let mut l = Layouts::new(schema, rules_of_index(i));
        let size = l.class(&class.name).map_err(|e| vec![e.to_string()])?.size;
        sizes.push(size);
        let flat = l.flattened(&class.name).map_err(|e| vec![e.to_string()])?;
        let offs: Vec<u32> = flat.iter().map(|(_, _, ml)| ml.offset).collect();
        offsets.push(quote!([#(#offs),*]));
    }
    let sig =
        hk_runtime::signature::signature(schema, &class.name).map_err(|e| vec![e.to_string()])?;
    let (signature, version, name) = (sig.value, class.version, class.name.as_str());
    let n = fields.len();
    let decl = fields.iter().map(|(f, t, orig, owner)| {
        let d = format!("`{owner}.{orig}`");
        quote!(#[doc = #d] pub #f: #t,)
    });
    let read = fields
        .iter()
        .map(|(f, _, orig, _)| quote!(#f: #rt::field(fields, #name, #orig)?,));
    let write = fields
        .iter()
        .map(|(f, _, orig, _)| quote!(#graph::Field::new(#orig, #rt::Member::to_value(&self.#f)),));
    let member_names = fields.iter().map(|(_, _, orig, _)| orig.as_str());
    let doc = format!(
        "Havok class `{name}`, signature 0x{signature:08X}{}.",
        if sig.is_pinned() {
            " (pinned by the schema)"
        } else {
            ""
        }
    );
    Ok(quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct #ty {
            #(#decl)*
        }
        impl #rt::HkClass for #ty {
            const NAME: &'static str = #name;
            const SIGNATURE: u32 = #signature;
            const VERSION: u32 = #version;
            fn from_fields(fields: &[#graph::Field]) -> ::hk_runtime::Result<Self> {
                ::core::result::Result::Ok(Self { #(#read)* })
            }
            fn to_fields(&self) -> ::std::vec::Vec<#graph::Field> {
                ::std::vec![#(#write)*]
            }
        }
        impl #ty {
            /// Member names, root class first, in the order of [`Self::offsets`].
            pub const MEMBERS: [&'static str; #n] = [#(#member_names),*];
            const SIZES: [u32; 8] = [#(#sizes),*];
            const OFFSETS: [[u32; #n]; 8] = [#(#offsets),*];
            /// Object size under `rules`.
            pub const fn size(rules: ::hk_runtime::LayoutRules) -> u32 {
                Self::SIZES[#rt::rules_index(rules)]
            }
            /// Member offsets under `rules`, in the order of [`Self::MEMBERS`].
            pub const fn offsets(rules: ::hk_runtime::LayoutRules) -> [u32; #n] {
                Self::OFFSETS[#rt::rules_index(rules)]
            }
        }
    })
}
