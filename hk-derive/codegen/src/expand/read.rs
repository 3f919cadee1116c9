//! Decoders: each class hands its fields, as `&mut dyn Field` in flattened member order, to
//! the runtime's one decoding loop (which reads each at its offset through the read
//! engine); and finds the pointer slot an interior pointer resolves to once the engine
//! finishes.

use proc_macro2::TokenStream;
use quote::quote;

use super::Paths;
use crate::internals::model::Model;

/// `decode_fields` and (for a class that can hold pointers) `slot_mut` of the `Class`
/// impl.
pub fn class_items(p: &Paths, m: &Model<'_>) -> TokenStream {
    let rt = p.typed();
    let (result, graph, packfile) = (p.result(), p.graph(), p.packfile());
    let n = m.fields.len();
    let fields = m.fields.iter().map(|f| {
        let id = &f.ident;
        quote!(&mut self.#id)
    });
    let arms = m
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.ptrs)
        .map(|(i, f)| {
            let i = i as u16;
            let id = &f.ident;
            quote!(#i => #rt::Member::slot_mut(&mut self.#id, rest, class),)
        });
    let slot = m.ptrs.then(|| {
        quote! {
            fn slot_mut(
                &mut self,
                path: &[#graph::Seg],
                class: bool,
            ) -> ::core::option::Option<&mut ::core::option::Option<#graph::Ptr>> {
                let (#graph::Seg::Member(i), rest) = path.split_first()? else {
                    return ::core::option::Option::None;
                };
                match *i {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    });
    quote! {
        #[allow(unused_mut, unused_variables)]
        fn decode_fields(
            &mut self,
            d: &mut #rt::Decoder<'_, '_>,
            body: &[u8],
            at: #packfile::Loc,
            depth: usize,
        ) -> #result<()> {
            let mut f: [&mut dyn #rt::Field; #n] = [#(#fields),*];
            #rt::read::fields(
                d,
                body,
                at,
                depth,
                <Self as #rt::Class>::offsets(d.ri()),
                <Self as #rt::Class>::MEMBERS,
                &mut f,
            )
        }
        #slot
    }
}
