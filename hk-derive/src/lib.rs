//! Compile-time Havok class facts from hk TOML schemas.
//!
//! The schema folder is read while the calling crate compiles, so a schema error is a
//! compile error that names the schema file, line and key.
//!
//! ```text
//! const BOX: u32 = hk_derive::signature!(path = "schemas/havok-7.1", class = "hkpBoxShape");
//! ```

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// `path = "...", class = "..."`.
struct Args {
    path: LitStr,
    class: LitStr,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut path = None;
        let mut class = None;
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value: LitStr = input.parse()?;
            let slot = match key.to_string().as_str() {
                "path" => &mut path,
                "class" => &mut class,
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown argument `{other}`; expected `path` or `class`"),
                    ))
                }
            };
            if slot.replace(value).is_some() {
                return Err(syn::Error::new(
                    key.span(),
                    format!("duplicate argument `{key}`"),
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        let missing =
            |what: &str| syn::Error::new(Span::call_site(), format!("missing `{what} = \"...\"`"));
        Ok(Args {
            path: path.ok_or_else(|| missing("path"))?,
            class: class.ok_or_else(|| missing("class"))?,
        })
    }
}

/// The signature of a class of a schema folder, as a `u32` literal computed at compile time.
///
/// `path` is relative to the calling crate's `CARGO_MANIFEST_DIR`. A pinned class yields
/// its pinned value, as a writer stores it.
#[proc_macro]
pub fn signature(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    expand_signature(&args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn expand_signature(args: &Args) -> syn::Result<proc_macro2::TokenStream> {
    let base = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = std::path::Path::new(&base).join(args.path.value());
    let schema = hk_runtime::Schema::load(&dir)
        .map_err(|d| syn::Error::new(args.path.span(), d.to_string()))?;
    let class = args.class.value();
    if schema.class(&class).is_none() {
        return Err(syn::Error::new(
            args.class.span(),
            format!("class `{class}` is not in schema {}", dir.display()),
        ));
    }
    let sig = hk_runtime::signature::signature(&schema, &class)
        .map_err(|e| syn::Error::new(args.class.span(), e.to_string()))?;
    let value = sig.value;
    // Make the calling crate rebuild when a schema file changes.
    let files: Vec<String> = std::iter::once(dir.join("generation.toml"))
        .chain(schema.classes().iter().map(|c| c.origin.file.clone()))
        .filter(|p| p.is_file())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    Ok(quote!({
        #(const _: &[u8] = include_bytes!(#files);)*
        #value
    }))
}
