//! Zero-copy views: `XxxView<'a>` reads one member of an object of a parsed packfile at its
//! compile-time offset, without allocating; `traverse` reads every member (recursing into
//! structs and array elements, not following pointers). `AnyView` is a view of any
//! generated class. All `#[inline]`: a crate that never views does not compile them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::internals::model::{Access, Model};

/// Method names a view has besides its accessors.
const RESERVED: &[&str] = &["new", "traverse", "raw"];

/// The view type of `m`, its accessors and its traversal.
pub fn class(m: &Model<'_>) -> TokenStream {
    let rt = quote!(::hk_runtime::typed);
    let (ty, view) = (&m.ty, &m.view);
    let mut accessors = Vec::new();
    for (i, f) in m.fields.iter().enumerate() {
        let mut name = f.ident.clone();
        if RESERVED.contains(&name.to_string().as_str()) {
            name = format_ident!("{}_", name);
        }
        let doc = format!("`{}.{}`.", f.owner, f.name);
        let off = quote!(#ty::OFFSETS[self.0.ri()][#i]);
        let (ret, body) = match &f.access {
            Access::Void | Access::Unsupported => continue,
            Access::Single { view } => (
                quote!(#view),
                quote!(<#view as #rt::ViewElem<'a>>::read_at(&self.0, #off)),
            ),
            Access::Str => (
                quote!(::hk_runtime::Result<::core::option::Option<&'a [u8]>>),
                quote!(self.0.string(#off)),
            ),
            Access::Ptr => (
                quote!(::hk_runtime::Result<::core::option::Option<AnyView<'a>>>),
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
                let k = super::kind(*kind);
                (
                    quote!(::hk_runtime::Result<#rt::ArrayView<'a, #elem>>),
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
        "A zero-copy view of a `{}` in a parsed packfile.",
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
                pf: &'a ::hk_runtime::packfile::Packfile<'a>,
                loc: ::hk_runtime::packfile::Loc,
            ) -> ::hk_runtime::Result<Self> {
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
            pub fn traverse(&self, acc: &mut u64) -> ::hk_runtime::Result<()> {
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
pub fn shapes(models: &[Model<'_>]) -> TokenStream {
    let rt = quote!(::hk_runtime::typed);
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

/// `AnyView`: a view of any generated class, and the traversal entry points.
pub fn any(models: &[Model<'_>]) -> TokenStream {
    let rt = quote!(::hk_runtime::typed);
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
            Other(::hk_runtime::packfile::Loc),
        }
        impl<'a> AnyView<'a> {
            /// Reads every member of the object (pointers not followed).
            ///
            /// # Errors
            /// A string, array or element that does not read.
            #[inline]
            pub fn traverse(&self, acc: &mut u64) -> ::hk_runtime::Result<()> {
                match self {
                    #(Self::#variants(v) => v.traverse(acc),)*
                    Self::Other(_) => ::core::result::Result::Ok(()),
                }
            }
        }
        impl<'a> #rt::AnyViewClass<'a> for AnyView<'a> {
            #[inline]
            fn at(
                pf: &'a ::hk_runtime::packfile::Packfile<'a>,
                loc: ::hk_runtime::packfile::Loc,
            ) -> ::hk_runtime::Result<Self> {
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
        /// Parses a packfile and reads every member of every object through the views
        /// (pointers not followed, so each object once), returning a checksum of what was
        /// read. Allocates nothing per member.
        ///
        /// # Errors
        /// A malformed file, an object of a class not generated here, or data that does not
        /// read.
        #[inline]
        pub fn traverse_file(bytes: &[u8]) -> ::hk_runtime::Result<u64> {
            let pf = ::hk_runtime::packfile::Packfile::parse(bytes)?;
            #rt::view::traverse_packfile::<AnyView<'_>>(&pf)
        }
        /// As [`traverse_file`], over a parsed packfile.
        ///
        /// # Errors
        /// As [`traverse_file`].
        #[inline]
        pub fn traverse_packfile<'a>(pf: &'a ::hk_runtime::packfile::Packfile<'a>) -> ::hk_runtime::Result<u64> {
            #rt::view::traverse_packfile::<AnyView<'a>>(pf)
        }
    }
}
