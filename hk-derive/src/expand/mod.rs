//! Code generation for `schema!`.

mod class;
mod enums;
mod names;
mod types;

use hk_runtime::types::TypeKind;
use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::args::{Args, Spec};
use crate::internals::ctxt::Ctxt;
use crate::internals::schema;

/// Expands `schema!(path = "...", classes = [...])`.
pub fn schema_macro(args: Args) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let out = expand(&cx, args);
    cx.check()?;
    Ok(out.unwrap_or_default())
}

fn expand(cx: &Ctxt, args: Args) -> Option<TokenStream> {
    let spec = Spec::from_args(cx, args, proc_macro2::Span::call_site())?;
    let (dir, schema) = schema::load(cx, &spec.path)?;
    let mut roots = Vec::new();
    for c in &spec.classes {
        if schema.class(&c.value()).is_none() {
            cx.error(
                c.span(),
                format!(
                    "class `{}` is not in schema `{}`",
                    c.value(),
                    spec.path.value()
                ),
            );
        } else {
            roots.push(c.value());
        }
    }
    let root_refs: Vec<&str> = roots.iter().map(String::as_str).collect();
    let closure = match schema.closure(&root_refs) {
        Ok(c) => c,
        Err(e) => {
            cx.error(spec.path.span(), e);
            return None;
        }
    };
    let names: Vec<&str> = closure.iter().map(|c| c.name.as_str()).collect();
    let known = |n: &str| names.contains(&n);
    let mut items = Vec::new();
    for class in &closure {
        match class::expand(&schema, class, &known) {
            Ok(ts) => items.push(ts),
            Err(errs) => errs.into_iter().for_each(|e| cx.error(spec.path.span(), e)),
        }
        for e in &class.enums {
            let as_flags = closure.iter().any(|c| {
                c.members.iter().any(|m| {
                    m.ty == TypeKind::Flags
                        && m.enum_ref
                            .as_deref()
                            .and_then(|r| schema.resolve_enum(&c.name, r))
                            .is_some_and(|(d, x)| d.name == class.name && x.name == e.name)
                })
            });
            items.push(enums::expand(&class.name, e, as_flags));
        }
    }
    let variants: Vec<_> = closure.iter().map(|c| names::class_type(&c.name)).collect();
    let class_names: Vec<&str> = closure.iter().map(|c| c.name.as_str()).collect();
    let files = schema::files(&dir, &schema);
    let generation = schema.generation.name.as_str();
    let gen_file = files[0].clone();
    let class_files = &files[1..];
    let class_labels: Vec<String> = class_files
        .iter()
        .map(|f| {
            std::path::Path::new(f)
                .strip_prefix(&dir)
                .map_or(f.clone(), |p| p.display().to_string())
        })
        .collect();
    Some(quote! {
        #(const _: &[u8] = ::core::include_bytes!(#files);)*
        /// The schema generation these classes come from.
        pub const GENERATION: &str = #generation;
        #(#items)*
        /// The schema these classes were generated from, embedded at compile time.
        ///
        /// # Errors
        /// Never for a schema that compiled; kept fallible like every schema load.
        pub fn runtime_schema() -> ::hk_runtime::Result<::hk_runtime::Schema> {
            ::hk_runtime::Schema::parse(
                (::std::path::Path::new("generation.toml"), ::core::include_str!(#gen_file)),
                &[#((<::std::path::PathBuf as ::core::convert::From<&str>>::from(#class_labels), <::std::string::String as ::core::convert::From<&str>>::from(::core::include_str!(#class_files)))),*],
            )
            .map_err(|d| ::hk_runtime::Error::schema(::std::format!("{}", d)))
        }
        /// Reads a packfile and converts every object to its generated class.
        ///
        /// # Errors
        /// A malformed file, or an object of a class not generated here.
        pub fn read_packfile(bytes: &[u8]) -> ::hk_runtime::Result<(::hk_runtime::graph::Graph, ::std::vec::Vec<AnyObject>)> {
            let schema = runtime_schema()?;
            let pf = ::hk_runtime::packfile::Packfile::parse(bytes)?;
            let (graph, _) = ::hk_runtime::packfile::read::read(&pf, &schema, ::core::default::Default::default())?;
            let typed = ::core::iter::Iterator::collect::<::hk_runtime::Result<::std::vec::Vec<_>>>(::core::iter::Iterator::map(graph.objects.iter(), AnyObject::from_object))?;
            ::core::result::Result::Ok((graph, typed))
        }
        /// Reads a packfile or tagfile and converts every object to its generated class.
        ///
        /// # Errors
        /// A malformed file, or an object of a class not generated here.
        pub fn read(bytes: &[u8]) -> ::hk_runtime::Result<(::hk_runtime::graph::Graph, ::hk_runtime::file::Origin, ::std::vec::Vec<AnyObject>)> {
            let schema = runtime_schema()?;
            let (graph, origin) = ::hk_runtime::file::read(bytes, &schema)?;
            let typed = ::core::iter::Iterator::collect::<::hk_runtime::Result<::std::vec::Vec<_>>>(::core::iter::Iterator::map(graph.objects.iter(), AnyObject::from_object))?;
            ::core::result::Result::Ok((graph, origin, typed))
        }
        /// Reads a file (packfile or tagfile), takes every object through its generated
        /// class and back, and writes the file again.
        ///
        /// # Errors
        /// As [`read`], or a value the writer cannot place.
        pub fn typed_roundtrip(bytes: &[u8]) -> ::hk_runtime::Result<::std::vec::Vec<u8>> {
            let schema = runtime_schema()?;
            let (mut graph, origin, typed) = read(bytes)?;
            for (o, t) in ::core::iter::Iterator::zip(graph.objects.iter_mut(), typed) {
                o.fields = t.to_fields();
            }
            ::hk_runtime::file::write(&graph, &schema, &origin)
        }
        /// An object of any generated class.
        #[derive(Clone, Debug, PartialEq)]
        #[allow(clippy::large_enum_variant)]
        pub enum AnyObject {
            #(
                #[allow(missing_docs)]
                #variants(#variants),
            )*
        }
        impl AnyObject {
            /// Decodes a graph object of one of the generated classes.
            ///
            /// # Errors
            /// A class this module does not generate, or a member that does not fit.
            pub fn from_object(o: &::hk_runtime::graph::Object) -> ::hk_runtime::Result<Self> {
                match o.class.as_str() {
                    #(#class_names => <#variants as ::hk_runtime::typed::HkClass>::from_fields(&o.fields).map(Self::#variants),)*
                    other => ::core::result::Result::Err(::hk_runtime::Error::schema(::std::format!("class `{}` is not generated here", other))),
                }
            }
            /// The class name.
            pub fn class_name(&self) -> &'static str {
                match self { #(Self::#variants(_) => <#variants as ::hk_runtime::typed::HkClass>::NAME,)* }
            }
            /// The object's members as graph fields.
            pub fn to_fields(&self) -> ::std::vec::Vec<::hk_runtime::graph::Field> {
                match self { #(Self::#variants(x) => ::hk_runtime::typed::HkClass::to_fields(x),)* }
            }
        }
    })
}
