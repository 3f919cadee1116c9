//! Arguments of `schema!(path = "...", classes = [...], crate = "...")` and
//! `signature!(...)`.

use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, Ident, LitStr, Token};

/// One `key = value` argument.
pub enum Arg {
    /// `key = "text"`.
    Str(Ident, LitStr),
    /// `key = ["a", "b"]`.
    List(Ident, Vec<LitStr>),
}

/// The argument list.
pub struct Args(pub Vec<Arg>);

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut out = Vec::new();
        while !input.is_empty() {
            // `crate` is a keyword: any identifier is a key.
            let key: Ident = input.call(Ident::parse_any)?;
            input.parse::<Token![=]>()?;
            if input.peek(syn::token::Bracket) {
                let content;
                bracketed!(content in input);
                let items: Punctuated<LitStr, Token![,]> =
                    content.parse_terminated(|p| p.parse(), Token![,])?;
                out.push(Arg::List(key, items.into_iter().collect()));
            } else {
                out.push(Arg::Str(key, input.parse()?));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(Args(out))
    }
}

/// `schema!` / `signature!` arguments, validated.
pub struct Spec {
    /// The schema folder, relative to the calling crate's manifest.
    pub path: LitStr,
    /// Requested classes (`classes = [...]` or `class = "..."`).
    pub classes: Vec<LitStr>,
    /// The runtime crate's path (`crate = "..."`), when not `::hk_runtime`.
    pub krate: Option<syn::Path>,
}

impl Spec {
    /// Validates `args`, recording every problem in `cx`.
    pub fn from_args(cx: &super::ctxt::Ctxt, args: Args, call: proc_macro2::Span) -> Option<Spec> {
        let mut path = None;
        let mut classes: Option<Vec<LitStr>> = None;
        let mut krate: Option<syn::Path> = None;
        for arg in args.0 {
            match arg {
                Arg::Str(k, v) if k == "path" => {
                    if path.replace(v).is_some() {
                        cx.error(k.span(), "duplicate argument `path`");
                    }
                }
                Arg::Str(k, v) if k == "class" => {
                    if classes.replace(vec![v]).is_some() {
                        cx.error(k.span(), "duplicate argument `class`/`classes`");
                    }
                }
                Arg::List(k, v) if k == "classes" => {
                    if classes.replace(v).is_some() {
                        cx.error(k.span(), "duplicate argument `class`/`classes`");
                    }
                }
                Arg::Str(k, v) if k == "crate" => match v.parse::<syn::Path>() {
                    Ok(p) => {
                        if krate.replace(p).is_some() {
                            cx.error(k.span(), "duplicate argument `crate`");
                        }
                    }
                    Err(e) => cx.error(v.span(), format!("`crate` is not a path: {e}")),
                },
                Arg::Str(k, _) | Arg::List(k, _) => cx.error(
                    k.span(),
                    format!(
                        "unknown argument `{k}`; expected `path`, `classes` and optionally `crate`"
                    ),
                ),
            }
        }
        if path.is_none() {
            cx.error(call, "missing `path = \"schemas/...\"`");
        }
        if classes.as_ref().is_none_or(Vec::is_empty) {
            cx.error(call, "missing `classes = [\"...\"]`");
        }
        Some(Spec {
            path: path?,
            classes: classes.filter(|c| !c.is_empty())?,
            krate,
        })
    }
}
