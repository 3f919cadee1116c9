//! Conversions between a class and the dynamic graph's objects: values in flattened member
//! order, the schema checked against the generated class once per conversion, `TryFrom`
//! both ways. All `#[inline]`: a crate that never converts (a typed round trip) does not
//! compile them.

use proc_macro2::TokenStream;
use quote::quote;

use super::Paths;
use crate::internals::model::Model;

/// `to_values`, `set_values` and `check_schema_in` of the `Class` impl.
pub fn class_items(p: &Paths, m: &Model<'_>) -> TokenStream {
    let rt = p.typed();
    let (result, graph, schema) = (p.result(), p.graph(), p.schema());
    let class_id = p.class_id();
    let n = m.fields.len();
    let refs = m.fields.iter().map(|f| {
        let id = &f.ident;
        quote!(&self.#id)
    });
    let muts = m.fields.iter().map(|f| {
        let id = &f.ident;
        quote!(&mut self.#id)
    });
    let structs = m
        .structs
        .iter()
        .map(|t| quote!(<#t as #rt::Class>::check_schema_in(schema, seen)?;));
    quote! {
        #[inline]
        fn to_values(&self) -> #result<::std::vec::Vec<#graph::Value>> {
            let f: [&dyn #rt::ValueField; #n] = [#(#refs),*];
            #rt::dynamic::values(<Self as #rt::Class>::MEMBERS, &f)
        }
        #[inline]
        #[allow(unused_mut)]
        fn set_values(&mut self, values: &[#graph::Value]) -> #result<()> {
            let mut f: [&mut dyn #rt::ValueField; #n] = [#(#muts),*];
            #rt::dynamic::take(
                <Self as #rt::HkClass>::NAME,
                <Self as #rt::Class>::MEMBERS,
                values,
                &mut f,
            )
        }
        #[inline]
        fn check_schema_in(
            schema: &#schema,
            seen: &mut ::std::vec::Vec<&'static str>,
        ) -> #result<#class_id> {
            let (id, new) = #rt::dynamic::check_class(
                schema,
                <Self as #rt::HkClass>::NAME,
                <Self as #rt::Class>::MEMBERS,
                seen,
            )?;
            if new {
                #(#structs)*
            }
            ::core::result::Result::Ok(id)
        }
    }
}

/// `TryFrom` between the class and graph objects; `embedded`: also from the class to an
/// object of the module's embedded schema.
pub fn try_from(p: &Paths, m: &Model<'_>, embedded: bool) -> TokenStream {
    let rt = p.typed();
    let (result, error, graph) = (p.result(), p.error(), p.graph());
    let ty = &m.ty;
    let to = embedded.then(|| {
        quote! {
            impl ::core::convert::TryFrom<&#ty> for #graph::Object {
                type Error = #error;
                #[inline]
                fn try_from(x: &#ty) -> #result<Self> {
                    #rt::dynamic::to_object(x, schema())
                }
            }
        }
    });
    quote! {
        impl ::core::convert::TryFrom<#rt::GraphObject<'_>> for #ty {
            type Error = #error;
            #[inline]
            fn try_from(o: #rt::GraphObject<'_>) -> #result<Self> {
                #rt::dynamic::from_object(o)
            }
        }
        #to
    }
}
