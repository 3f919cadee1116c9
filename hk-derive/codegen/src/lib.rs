//! The code generation behind `hk-derive`'s macros, as an ordinary library.
//!
//! A proc-macro crate can export only its macros, so the expansion lives here and is used
//! twice: by `hk-derive`, whose macros are thin entry points into [`schema`],
//! [`signature`] and [`derive_hk_class`]; and by `hk gen crate --expand`, which prints
//! [`expand_schema`]'s items as a plain Rust file, the same items the macro produces.
//!
//! - `expand` writes the items, split by concern; every path into the runtime crate comes
//!   from `expand/paths.rs`, rooted at `::hk_runtime` or the `crate = "..."` argument.
//! - `internals` parses and checks what the macros are given (arguments, the schema folder,
//!   one model per class) and collects every error of one call.

mod derive;
mod expand;
mod internals;

use hk_runtime::Schema;
use proc_macro2::{Span, TokenStream};
use quote::quote;

use expand::Paths;
use internals::args::{Args, Spec};
use internals::ctxt::Ctxt;

/// The expansion of `schema!(path = "...", classes = [...], crate = "...")`, or the
/// compile errors that name what is wrong.
pub fn schema(input: TokenStream) -> TokenStream {
    syn::parse2::<Args>(input)
        .and_then(expand::schema_macro)
        .unwrap_or_else(syn::Error::into_compile_error)
}

/// The expansion of `#[derive(HkClass)]` over `input`, or its compile errors.
pub fn derive_hk_class(input: TokenStream) -> TokenStream {
    syn::parse2::<syn::DeriveInput>(input)
        .and_then(|i| derive::expand(&i))
        .unwrap_or_else(syn::Error::into_compile_error)
}

/// The expansion of `signature!(path = "...", class = "...")`: the class's signature as a
/// `u32` literal (a pinned class's pinned value), or its compile errors.
pub fn signature(input: TokenStream) -> TokenStream {
    syn::parse2::<Args>(input)
        .and_then(signature_impl)
        .unwrap_or_else(syn::Error::into_compile_error)
}

/// The items `schema!` generates for the closure of `roots` in `schema`, calling the
/// runtime at `krate` (a path such as `::hk_runtime`, the default, or `crate::rt`), without
/// the constants that make a macro caller rebuild when a schema file changes.
///
/// # Errors
/// Every reason the module cannot be generated (an unknown root, a class without a typed
/// form, two schema names that become one Rust type, a `krate` that is not a path), as
/// messages.
pub fn expand_schema(
    schema: &Schema,
    roots: &[&str],
    krate: Option<&str>,
) -> Result<TokenStream, Vec<String>> {
    let krate = krate
        .map(syn::parse_str::<syn::Path>)
        .transpose()
        .map_err(|e| vec![format!("`crate` is not a path: {e}")])?;
    let cx = Ctxt::new();
    let out = expand::module(
        &cx,
        Span::call_site(),
        schema,
        roots,
        &Paths::new(krate.as_ref()),
    );
    match cx.check() {
        Ok(()) => Ok(out.unwrap_or_default()),
        Err(e) => Err(e.into_iter().map(|e| e.to_string()).collect()),
    }
}

fn signature_impl(args: Args) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let out = (|| {
        let spec = Spec::from_args(&cx, args, Span::call_site())?;
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
