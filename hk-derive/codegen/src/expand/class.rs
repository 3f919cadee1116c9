//! One class: its struct, and its `HkClass` and `Class` impls (layout tables, decoder,
//! encoder, graph conversion).

use proc_macro2::TokenStream;
use quote::quote;

use super::{dynamic, layout, read, write, Paths};
use crate::internals::model::Model;

/// The struct of a generated class.
pub fn decl(m: &Model<'_>) -> TokenStream {
    let ty = &m.ty;
    let fields = m.fields.iter().map(|f| {
        let (id, t) = (&f.ident, &f.ty);
        let d = format!(" `{}.{}`", f.owner, f.name);
        quote!(#[doc = #d] pub #id: #t,)
    });
    let doc = format!(
        " Havok class `{}`, signature 0x{:08X}{}.",
        m.class.name,
        m.signature,
        if m.pinned {
            " (pinned by the schema)"
        } else {
            ""
        }
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct #ty {
            #(#fields)*
        }
    }
}

/// `HkClass`: name, signature and version.
pub fn hk_class(p: &Paths, m: &Model<'_>, generics: Option<&syn::Generics>) -> TokenStream {
    let rt = p.typed();
    let ty = &m.ty;
    let (name, version) = (m.class.name.as_str(), m.class.version);
    // In hex, as the class docs and Havok's tools write signatures.
    let sig = syn::LitInt::new(
        &format!("0x{:08X}", m.signature),
        proc_macro2::Span::call_site(),
    );
    let (ig, tg, wc) = match generics {
        Some(g) => {
            let (i, t, w) = g.split_for_impl();
            (quote!(#i), quote!(#t), quote!(#w))
        }
        None => (quote!(), quote!(), quote!()),
    };
    quote! {
        impl #ig #rt::HkClass for #ty #tg #wc {
            const NAME: &'static str = #name;
            const SIGNATURE: u32 = #sig;
            const VERSION: u32 = #version;
        }
    }
}

/// The codec: layout tables and the `Class` impl (the runtime implements `Member` for
/// every `Class`, so a class is a struct member too).
pub fn codec(p: &Paths, m: &Model<'_>) -> TokenStream {
    let rt = p.typed();
    let ty = &m.ty;
    let inherent = layout::inherent(p, m);
    let tables = layout::class_items(p, m);
    let reads = read::class_items(p, m);
    let writes = write::class_items(p, m);
    let converts = dynamic::class_items(p, m);
    quote! {
        #inherent
        impl #rt::Class for #ty {
            #tables
            #reads
            #writes
            #converts
        }
    }
}
