//! Zero-copy views: `XxxView<'a>` reads one member of an object of a parsed packfile at its
//! compile-time offset, without allocating; `traverse` reads every member (recursing into
//! structs and array elements, not following pointers). `AnyView` is a view of any
//! generated class (`hk_runtime::typed::view::traverse_packfile` walks a whole file with
//! it). All `#[inline]`: a crate that never views does not compile them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Paths;
use crate::internals::model::{Access, Model};

/// Method names a view has besides its accessors.
const RESERVED: &[&str] = &["new", "traverse", "raw"];

/// The view type of `m`, its accessors and its traversal.
pub fn class(p: &Paths, m: &Model<'_>) -> TokenStream {
    let rt = p.typed();
    let (result, packfile) = (p.result(), p.packfile());
    let (ty, view) = (&m.ty, &m.view);
    let mut accessors = Vec::new();
    for (i, f) in m.fields.iter().enumerate() {
        let mut name = f.ident.clone();
        if RESERVED.contains(&name.to_string().as_str()) {
            name = format_ident!("{}_", name);
        }
        let doc = format!(" `{}.{}`.", f.owner, f.name);
        let off = quote!(#ty::OFFSETS[self.0.ri()][#i]);
        let (ret, body) = match &f.access {
            Access::Void | Access::Unsupported => continue,
            Access::Single { view } => (
                quote!(#view),
                quote!(<#view as #rt::ViewElem<'a>>::read_at(&self.0, #off)),
            ),
            Access::Str => (
                quote!(#result<::core::option::Option<&'a [u8]>>),
                quote!(self.0.string(#off)),
            ),
            Access::Ptr => (
                quote!(#result<::core::option::Option<AnyView<'a>>>),
                quote!(self.0.ptr(#off)),
            ),
            Access::Variant => (
                quote!(#rt::VariantView<'a>),
                quote!(<#rt::VariantView<'a> as #rt::ViewElem<'a>>::read_at(&self.0, #off)),
            ),
            Access::Struct { view } => (
                quote!(#view<'a>),
                quote!(<#view<'a> as #rt::ViewElem<'a>>::read_at(&self.0, #off)),
            ),
            Access::Array { kind, elem } => {
                let k = super::kind(p, *kind);
                (
                    quote!(#result<#rt::ArrayView<'a, #elem>>),
                    quote!(self.0.array(#off, #k)),
                )
            }
            Access::CArray { n, elem } => {
                let n = u32::from(*n);
                (
                    quote!(#rt::ArrayView<'a, #elem>),
                    quote!(self.0.carray(#off, #n)),
                )
            }
        };
        accessors.push(quote! {
            #[doc = #doc]
            #[inline]
            pub fn #name(&self) -> #ret {
                #body
            }
        });
    }
    let doc = format!(
        " A zero-copy view of a `{}` in a parsed packfile.",
        m.class.name
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        pub struct #view<'a>(pub #rt::Raw<'a>);
        impl<'a> #view<'a> {
            /// The object at `loc`.
            ///
            /// # Errors
            /// A body that runs past its section.
            #[inline]
            pub fn new(
                pf: &'a #packfile::Packfile<'a>,
                loc: #packfile::Loc,
            ) -> #result<Self> {
                let size = <#ty as #rt::Class>::SIZES[pf.rules().index()];
                #rt::Raw::new(pf, loc, size).map(Self)
            }
            #(#accessors)*
            /// Reads every member (structs and array elements included, pointers not
            /// followed) into the checksum `acc`.
            ///
            /// # Errors
            /// A string, array or element that does not read.
            #[inline]
            pub fn traverse(&self, acc: &mut u64) -> #result<()> {
                #rt::view::traverse(&self.0, &__hk_shapes::#ty, acc)
            }
        }
        impl<'a> #rt::ViewElem<'a> for #view<'a> {
            #[inline]
            fn stride(ri: usize) -> u32 {
                <#ty as #rt::Class>::SIZES[ri]
            }
            #[inline]
            fn make(raw: #rt::Raw<'a>) -> Self {
                Self(raw)
            }
        }
    }
}

/// The module of traversal shapes, one static per class (statics, so that shapes of
/// classes that hold each other in arrays may name each other).
pub fn shapes(p: &Paths, models: &[Model<'_>]) -> TokenStream {
    let rt = p.typed();
    let statics = models.iter().map(|m| {
        let ty = &m.ty;
        let steps = m.fields.iter().map(|f| &f.step);
        let rows = (0..8usize).map(|ri| quote!(&super::#ty::OFFSETS[#ri]));
        quote! {
            pub static #ty: #rt::Shape = #rt::Shape {
                sizes: <super::#ty as #rt::Class>::SIZES,
                offsets: [#(#rows),*],
                steps: &[#(#steps),*],
            };
        }
    });
    quote! {
        /// What view traversals interpret: each class's shape as data.
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        pub mod __hk_shapes {
            #(#statics)*
        }
    }
}

/// `AnyView`: a view of any generated class.
pub fn any(p: &Paths, models: &[Model<'_>]) -> TokenStream {
    let rt = p.typed();
    let (result, packfile) = (p.result(), p.packfile());
    let variants: Vec<_> = models.iter().map(|m| &m.ty).collect();
    let views: Vec<_> = models.iter().map(|m| &m.view).collect();
    let names: Vec<&str> = models.iter().map(|m| m.class.name.as_str()).collect();
    quote! {
        /// A view of an object of any generated class.
        #[derive(Clone, Copy, Debug)]
        pub enum AnyView<'a> {
            #(
                #[allow(missing_docs)]
                #variants(#views<'a>),
            )*
            /// An object of a class not generated here, or a place inside an object (an
            /// array element an interior pointer names).
            Other(#packfile::Loc),
        }
        impl<'a> AnyView<'a> {
            /// Reads every member of the object (pointers not followed).
            ///
            /// # Errors
            /// A string, array or element that does not read.
            #[inline]
            pub fn traverse(&self, acc: &mut u64) -> #result<()> {
                match self {
                    #(Self::#variants(v) => v.traverse(acc),)*
                    Self::Other(_) => ::core::result::Result::Ok(()),
                }
            }
        }
        impl<'a> #rt::AnyViewClass<'a> for AnyView<'a> {
            #[inline]
            fn at(
                pf: &'a #packfile::Packfile<'a>,
                loc: #packfile::Loc,
            ) -> #result<Self> {
                let name = pf
                    .object_at(loc)
                    .and_then(|i| pf.object_table().get(i))
                    .and_then(|&(_, n)| pf.class_names.get(n as usize));
                let ::core::option::Option::Some(name) = name else {
                    return ::core::result::Result::Ok(Self::Other(loc));
                };
                match name.name {
                    #(#names => #views::new(pf, loc).map(Self::#variants),)*
                    _ => ::core::result::Result::Ok(Self::Other(loc)),
                }
            }
            #[inline]
            fn shape(name: &str) -> ::core::option::Option<&'static #rt::Shape> {
                match name {
                    #(#names => ::core::option::Option::Some(&__hk_shapes::#variants),)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    }
}
