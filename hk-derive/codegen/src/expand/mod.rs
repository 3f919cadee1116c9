//! Code generation for `schema!`, split by concern: [`class`] (structs and the `Class` and
//! `Member` impls), [`layout`] (offset, size and padding tables), [`read`] (decoders),
//! [`write`] (encoders), [`dynamic`] (graph conversions), [`view`] (zero-copy views),
//! [`enums`], with every runtime path from [`paths`]; this module writes the module-level
//! items (`AnyObject`, the embedded schema, `decode_file`).

pub mod class;
pub mod dynamic;
mod embed;
mod enums;
pub mod layout;
pub mod names;
pub mod paths;
pub mod read;
pub mod view;
pub mod write;

pub use paths::Paths;

use std::collections::hash_map::{Entry, HashMap};

use hk_runtime::schema::{ArrayKind, Class, Schema};
use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::args::{Args, Spec};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::{self, Model, PtrMemo};
use crate::internals::schema;

/// The classes every packfile's class-name section names (the writer needs their
/// signatures whether or not the module generates them).
const REFLECTION_CLASSES: [&str; 4] =
    ["hkClass", "hkClassMember", "hkClassEnum", "hkClassEnumItem"];

/// The runtime's name for an array kind.
pub fn kind(p: &Paths, k: ArrayKind) -> TokenStream {
    let t = p.array_kind();
    let v = match k {
        ArrayKind::Array => quote!(Array),
        ArrayKind::Simple => quote!(Simple),
        ArrayKind::Rel => quote!(Rel),
        ArrayKind::Rel64 => quote!(Rel64),
        ArrayKind::RelView => quote!(RelView),
    };
    quote!(#t::#v)
}

/// Expands `schema!(path = "...", classes = [...], crate = "...")`: the module's items, and
/// a constant per schema file so that the caller rebuilds when one changes.
pub fn schema_macro(args: Args) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let out = expand_macro(&cx, args);
    cx.check()?;
    Ok(out.unwrap_or_default())
}

fn expand_macro(cx: &Ctxt, args: Args) -> Option<TokenStream> {
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
    let paths = Paths::new(spec.krate.as_ref());
    let items = module(cx, spec.path.span(), &schema, &root_refs, &paths)?;
    let files = schema::files(&dir, &schema);
    Some(quote! {
        #items
        #(const _: &[u8] = ::core::include_bytes!(#files);)*
    })
}

/// The items of a module of typed classes: one struct, codec and view per class of the
/// closure of `roots` in `schema`, the enums they declare, `AnyObject`, `AnyView`, the
/// embedded schema and the file functions; every runtime path from `p`. Errors are
/// recorded in `cx` at `span`.
pub fn module(
    cx: &Ctxt,
    span: proc_macro2::Span,
    schema: &Schema,
    roots: &[&str],
    p: &Paths,
) -> Option<TokenStream> {
    let closure = match schema.closure(roots) {
        Ok(c) => c,
        Err(e) => {
            cx.error(span, e);
            return None;
        }
    };
    if !unique_types(cx, span, &closure) {
        return None;
    }
    let mut memo = PtrMemo::default();
    let mut models: Vec<Model<'_>> = Vec::new();
    let mut enums = Vec::new();
    for class in &closure {
        let built = model::field_names(schema, class)
            .map_err(|e| vec![e])
            .and_then(|idents| model::build(p, schema, class, idents, &mut memo));
        match built {
            Ok(m) => models.push(m),
            Err(errs) => errs.into_iter().for_each(|e| cx.error(span, e)),
        }
        for e in &class.enums {
            enums.push(enums::expand(p, &class.name, e));
        }
    }
    let classes = models.iter().map(|m| {
        let decl = class::decl(m);
        let hk = class::hk_class(p, m, None);
        let codec = class::codec(p, m);
        let conv = dynamic::try_from(p, m, true);
        let view = view::class(p, m);
        quote!(#decl #hk #codec #conv #view)
    });
    let any_object = any_object(p, schema, &models);
    let any_view = view::any(p, &models);
    let shapes = view::shapes(p, &models);
    let generation = schema.generation.name.as_str();
    let (embed_items, build) = embed::tables(p, schema);
    let rt = p.typed();
    let (result, schema_t) = (p.result(), p.schema());
    Some(quote! {
        /// The schema generation these classes come from.
        pub const GENERATION: &str = #generation;
        #(#classes)*
        #(#enums)*
        #any_object
        #any_view
        #shapes
        #embed_items
        /// The schema these classes were generated from, compiled in as constant tables
        /// and built once, on first use (graph conversions use it; the typed codecs do
        /// not).
        ///
        /// # Panics
        /// Never for a schema that compiled (the macro parsed the same text).
        #[inline]
        pub fn schema() -> &'static ::std::sync::Arc<#schema_t> {
            static SCHEMA: ::std::sync::OnceLock<::std::sync::Arc<#schema_t>> =
                ::std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| match #build {
                ::core::result::Result::Ok(s) => ::std::sync::Arc::new(s),
                ::core::result::Result::Err(e) => {
                    ::core::panic!("the embedded schema {} is not valid: {}", GENERATION, e)
                }
            })
        }
        /// Decodes a packfile into the generated classes, straight from its bytes (no
        /// graph is built).
        ///
        /// # Errors
        /// A malformed file (every invariant the dynamic reader checks), or an object of a
        /// class not generated here.
        pub fn decode_file(bytes: &[u8]) -> #result<#rt::TypedFile<AnyObject>> {
            #rt::TypedFile::decode(bytes)
        }
        /// Writes a file of the generated classes with their derived encoders (as
        /// `file.write()`, compiled once here rather than in every caller).
        ///
        /// # Errors
        /// A value that does not fit its member, a pointer to an object the file lacks, or
        /// anything the packfile write engine refuses.
        pub fn write_file(file: &#rt::TypedFile<AnyObject>) -> #result<::std::vec::Vec<u8>> {
            file.write()
        }
    })
}

/// Whether every Rust type the module defines has its own name: two schema names that
/// give one (`uiPair::Item` and `uiPair_Item` both give `UiPairItem`) are refused, naming
/// both.
fn unique_types(cx: &Ctxt, span: proc_macro2::Span, closure: &[&Class]) -> bool {
    let mut seen: HashMap<String, String> = ["AnyObject", "AnyView", "__hk_shapes"]
        .into_iter()
        .map(|n| (n.to_string(), format!("the module's own `{n}`")))
        .collect();
    let mut ok = true;
    for c in closure {
        let mut types = vec![
            (names::class_type(&c.name), format!("class `{}`", c.name)),
            (
                names::view_type(&c.name),
                format!("the view of class `{}`", c.name),
            ),
        ];
        for e in &c.enums {
            types.push((
                names::enum_type(&c.name, &e.name),
                format!("enum `{}.{}`", c.name, e.name),
            ));
        }
        for (ty, what) in types {
            match seen.entry(ty.to_string()) {
                Entry::Occupied(first) => {
                    cx.error(
                        span,
                        format!(
                            "{} and {what} both become the Rust type `{ty}`; rename one in the schema",
                            first.get()
                        ),
                    );
                    ok = false;
                }
                Entry::Vacant(v) => {
                    v.insert(what);
                }
            }
        }
    }
    ok
}

/// `AnyObject` and its `AnyClass` impl.
fn any_object(p: &Paths, schema: &Schema, models: &[Model<'_>]) -> TokenStream {
    let rt = p.typed();
    let (result, error, graph, schema_t) = (p.result(), p.error(), p.graph(), p.schema());
    let convert_error = p.convert_error();
    let tys: Vec<_> = models.iter().map(|m| &m.ty).collect();
    let names: Vec<&str> = models.iter().map(|m| m.class.name.as_str()).collect();
    let mut sig_names: Vec<&str> = names.clone();
    let mut sigs: Vec<u32> = models.iter().map(|m| m.signature).collect();
    for r in REFLECTION_CLASSES {
        if !sig_names.contains(&r) {
            if let Ok(s) = hk_runtime::schema::signature::signature(schema, r) {
                sig_names.push(r);
                sigs.push(s.value);
            }
        }
    }
    let align = schema.generation.packfile.string_align;
    quote! {
        /// An object of any generated class.
        #[derive(Clone, Debug, PartialEq)]
        #[allow(clippy::large_enum_variant)]
        pub enum AnyObject {
            #(
                #[allow(missing_docs)]
                #tys(#tys),
            )*
        }
        impl AnyObject {
            /// The class name.
            pub fn class_name(&self) -> &'static str {
                #rt::AnyClass::class_name(self)
            }
        }
        #(
            impl ::core::convert::From<#tys> for AnyObject {
                #[inline]
                fn from(v: #tys) -> Self {
                    Self::#tys(v)
                }
            }
        )*
        impl #rt::AnyClass for AnyObject {
            const STRING_ALIGN: u32 = #align;
            fn decoder(name: &str) -> ::core::option::Option<#rt::DecodeFn<Self>> {
                let f: #rt::DecodeFn<Self> = match name {
                    #(#names => #rt::read::decode_object::<#tys, Self>,)*
                    _ => return ::core::option::Option::None,
                };
                ::core::option::Option::Some(f)
            }
            fn class_name(&self) -> &'static str {
                match self {
                    #(Self::#tys(_) => <#tys as #rt::HkClass>::NAME,)*
                }
            }
            fn body_size(&self, ri: usize) -> u32 {
                match self {
                    #(Self::#tys(_) => <#tys as #rt::Class>::SIZES[ri],)*
                }
            }
            fn encode<'m>(&'m self, w: &mut #rt::Out<'_, 'm>, ri: usize) -> #result<()> {
                match self {
                    #(Self::#tys(x) => #rt::Class::encode_members(x, w, 0, ri),)*
                }
            }
            fn slot_mut(
                &mut self,
                path: &[#graph::Seg],
                class: bool,
            ) -> ::core::option::Option<&mut ::core::option::Option<#graph::Ptr>> {
                match self {
                    #(Self::#tys(x) => #rt::Class::slot_mut(x, path, class),)*
                }
            }
            fn each_ptr(&self, f: &mut dyn ::core::ops::FnMut(&#graph::Ptr)) {
                match self {
                    #(Self::#tys(x) => #rt::Class::each_ptr(x, f),)*
                }
            }
            fn signature(name: &str) -> ::core::option::Option<u32> {
                match name {
                    #(#sig_names => ::core::option::Option::Some(#sigs),)*
                    // A class-name list of another writer (Havok 5.5 names every class it
                    // registered): the embedded schema knows the rest.
                    _ => {
                        let s = schema();
                        s.class_id(name).and_then(|c| s.signature_of(c).ok())
                    }
                }
            }
            #[inline]
            fn to_object(&self, schema: &#schema_t) -> #result<#graph::Object> {
                match self {
                    #(Self::#tys(x) => #rt::dynamic::to_object(x, schema),)*
                }
            }
            #[inline]
            fn from_object(
                schema: &#schema_t,
                o: &#graph::Object,
            ) -> #result<Self> {
                let g = #rt::GraphObject { schema, object: o };
                match schema.name_of(o.class) {
                    #(#names => #rt::dynamic::from_object::<#tys>(g).map(Self::#tys),)*
                    other => ::core::result::Result::Err(#error::convert(
                        #convert_error::Class(::std::string::ToString::to_string(other)),
                    )),
                }
            }
        }
        impl ::core::convert::TryFrom<#rt::GraphObject<'_>> for AnyObject {
            type Error = #error;
            #[inline]
            fn try_from(o: #rt::GraphObject<'_>) -> #result<Self> {
                <Self as #rt::AnyClass>::from_object(o.schema, o.object)
            }
        }
        impl ::core::convert::TryFrom<&AnyObject> for #graph::Object {
            type Error = #error;
            #[inline]
            fn try_from(x: &AnyObject) -> #result<Self> {
                <AnyObject as #rt::AnyClass>::to_object(x, schema())
            }
        }
    }
}
