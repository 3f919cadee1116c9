//! Encoders: each class hands its fields, as `&dyn Field` in flattened member order, to the
//! runtime's one encoding loop (which writes each at its offset through the write engine);
//! and lists the pointers it holds (the engine asks for interior targets).

use proc_macro2::TokenStream;
use quote::quote;

use super::Paths;
use crate::internals::model::Model;

/// `encode_members` and (for a class that can hold pointers) `each_ptr` of the `Class`
/// impl.
pub fn class_items(p: &Paths, m: &Model<'_>) -> TokenStream {
    let rt = p.typed();
    let (result, graph) = (p.result(), p.graph());
    let n = m.fields.len();
    let fields = m.fields.iter().map(|f| {
        let id = &f.ident;
        quote!(&self.#id)
    });
    let ptrs = m.fields.iter().filter(|f| f.ptrs).map(|f| {
        let id = &f.ident;
        quote!(#rt::Member::each_ptr(&self.#id, f);)
    });
    let each = m.ptrs.then(|| {
        quote! {
            fn each_ptr(&self, f: &mut dyn ::core::ops::FnMut(&#graph::Ptr)) {
                #(#ptrs)*
            }
        }
    });
    quote! {
        #[allow(unused_mut, unused_variables)]
        fn encode_members<'m>(
            &'m self,
            w: &mut #rt::Out<'_, 'm>,
            base: u32,
            ri: usize,
        ) -> #result<()> {
            let f: [&'m dyn #rt::Field; #n] = [#(#fields),*];
            #rt::write::fields(
                w,
                base,
                ri,
                <Self as #rt::Class>::offsets(ri),
                <Self as #rt::Class>::MEMBERS,
                &f,
            )
        }
        #each
    }
}
