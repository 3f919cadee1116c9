//! Conversions between a class and the dynamic graph's objects: values in flattened member
//! order, the schema checked against the generated class once per conversion, `TryFrom`
//! both ways. All `#[inline]`: a crate that never converts (a typed round trip) does not
//! compile them.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::model::Model;

/// `to_values`, `set_values` and `check_schema_in` of the `Class` impl.
pub fn class_items(m: &Model<'_>) -> TokenStream {
    let rt = quote!(::hk_runtime::typed);
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
        fn to_values(&self) -> ::hk_runtime::Result<::std::vec::Vec<::hk_runtime::graph::Value>> {
            let f: [&dyn #rt::ValueField; #n] = [#(#refs),*];
            #rt::convert::values(<Self as #rt::Class>::MEMBERS, &f)
        }
        #[inline]
        #[allow(unused_mut)]
        fn set_values(&mut self, values: &[::hk_runtime::graph::Value]) -> ::hk_runtime::Result<()> {
            let mut f: [&mut dyn #rt::ValueField; #n] = [#(#muts),*];
            #rt::convert::take(
                <Self as #rt::HkClass>::NAME,
                <Self as #rt::Class>::MEMBERS,
                values,
                &mut f,
            )
        }
        #[inline]
        fn check_schema_in(
            schema: &::hk_runtime::Schema,
            seen: &mut ::std::vec::Vec<&'static str>,
        ) -> ::hk_runtime::Result<::hk_runtime::schema::ClassId> {
            let (id, new) = #rt::convert::check_class(
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
pub fn try_from(m: &Model<'_>, embedded: bool) -> TokenStream {
    let rt = quote!(::hk_runtime::typed);
    let ty = &m.ty;
    let to = embedded.then(|| {
        quote! {
            impl ::core::convert::TryFrom<&#ty> for ::hk_runtime::graph::Object {
                type Error = ::hk_runtime::Error;
                #[inline]
                fn try_from(x: &#ty) -> ::hk_runtime::Result<Self> {
                    #rt::convert::to_object(x, schema())
                }
            }
        }
    });
    quote! {
        impl ::core::convert::TryFrom<#rt::GraphObject<'_>> for #ty {
            type Error = ::hk_runtime::Error;
            #[inline]
            fn try_from(o: #rt::GraphObject<'_>) -> ::hk_runtime::Result<Self> {
                #rt::convert::from_object(o)
            }
        }
        #to
    }
}
