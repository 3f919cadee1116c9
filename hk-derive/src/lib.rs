//! Typed Rust from hk TOML schemas, at compile time.
//!
//! - `schema!(path = "schemas/havok-7.1", classes = ["hkaSkeleton"])` generates, for every
//!   class of the closure (parents and member classes included):
//!   - a struct, with an `HkClass` impl (`NAME`, `SIGNATURE` computed while the caller
//!     compiles, `VERSION`);
//!   - its codec (`hk_runtime::typed::Class` and `Member`): size, offset and padding tables
//!     for the eight layout rules, a decoder that reads the members straight from a
//!     packfile's bytes through the runtime's read engine, an encoder that writes them
//!     through its write engine, and checked conversions (`TryFrom`) from and to the
//!     dynamic graph's objects;
//!   - a zero-copy view `XxxView<'a>` with an accessor per member and a `traverse` that
//!     reads every member;
//!
//!   and Rust enums for declared enums, `AnyObject` and `AnyView` over the classes,
//!   `decode_file`, `traverse_file`, and `schema()` (the embedded schema, parsed once).
//! - `signature!(path = "...", class = "...")` is one class's signature as a `u32` literal.
//! - `#[derive(HkClass)]` checks a hand-written struct against a schema class and derives
//!   its codec.
//!
//! Schema errors are compile errors at the macro call that name the schema file, line and
//! key. The schema path is relative to the calling crate's `CARGO_MANIFEST_DIR` or one of
//! its ancestors (a workspace root); from a binary whose source lies outside its package
//! (trybuild's UI tests), also to the source file's folders.
//!
//! The macro depends on `hk-runtime` without its `codecs` feature: it compiles only the
//! core and schema layers, and generates calls to the codecs of the caller's `hk-runtime`.

mod derive;
mod expand;
mod internals;

use proc_macro::TokenStream;
use quote::quote;

use internals::args::{Args, Spec};
use internals::ctxt::Ctxt;

/// Generates typed classes from a schema folder; see the crate docs.
#[proc_macro]
pub fn schema(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    expand::schema_macro(args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Checks a hand-written struct against a schema class and implements `HkClass` for it:
/// `#[hk(schema = "schemas/havok-7.1", class = "hkpBoxShape")]`. Every member of the class
/// (and its ancestors) must be a field named in snake case, and every field a member.
#[proc_macro_derive(HkClass, attributes(hk))]
pub fn derive_hk_class(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    derive::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The signature of a class of a schema folder, as a `u32` literal computed at compile time.
/// A pinned class yields its pinned value, as a writer stores it.
#[proc_macro]
pub fn signature(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    signature_impl(args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn signature_impl(args: Args) -> syn::Result<proc_macro2::TokenStream> {
    let cx = Ctxt::new();
    let out = (|| {
        let spec = Spec::from_args(&cx, args, proc_macro2::Span::call_site())?;
        if spec.classes.len() != 1 {
            cx.error(spec.classes[1].span(), "`signature!` takes one `class`");
            return None;
        }
        let (dir, schema) = internals::schema::load(&cx, &spec.path)?;
        let class = spec.classes[0].value();
        if schema.class(&class).is_none() {
            cx.error(
                spec.classes[0].span(),
                format!("class `{class}` is not in schema `{}`", spec.path.value()),
            );
            return None;
        }
        match hk_runtime::schema::signature::signature(&schema, &class) {
            Ok(sig) => {
                let value = sig.value;
                let files = internals::schema::files(&dir, &schema);
                Some(quote!({ #(const _: &[u8] = ::core::include_bytes!(#files);)* #value }))
            }
            Err(e) => {
                cx.error(spec.classes[0].span(), e);
                None
            }
        }
    })();
    cx.check()?;
    Ok(out.unwrap_or_default())
}
