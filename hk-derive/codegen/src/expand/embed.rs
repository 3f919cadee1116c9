//! The schema a module was generated from, as constant tables
//! (`hk_runtime::schema::embed`): turned into a `Schema` on first use without parsing TOML,
//! so generated crates do not link a TOML parser.

use hk_runtime::schema::{Container, Schema};
use hk_runtime::types::TypeKind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Paths;

fn kind(p: &Paths, k: TypeKind) -> TokenStream {
    let t = p.type_kind();
    let v = format_ident!("{}", format!("{k:?}"));
    quote!(#t::#v)
}

fn opt_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn opt_u32(v: Option<u32>) -> TokenStream {
    match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// `static` tables of `schema` and a `fn` building it: `(items, builder expression)`.
pub fn tables(p: &Paths, schema: &Schema) -> (TokenStream, TokenStream) {
    let e = p.embed();
    let (endian_t, rules_t, schema_t) = (p.endian(), p.layout_rules(), p.schema());
    let g = &schema.generation;
    let name = g.name.as_str();
    let tagfile = g.container == Container::Tagfile;
    let fv = g.file_version;
    let cv = g.contents_version.as_str();
    let l = g.layout;
    let ps = l.pointer_size;
    let endian = if l.endian == hk_runtime::Endian::Big {
        quote!(#endian_t::Big)
    } else {
        quote!(#endian_t::Little)
    };
    let (rp, eb) = (l.reuse_padding, l.empty_base);
    let types = g.member_types.iter().map(|(k, n)| {
        let k = kind(p, *k);
        quote!((#k, #n))
    });
    let flags = g.member_flags.iter().map(|(n, v)| quote!((#n, #v)));
    let sa = g.packfile.string_align;
    let rules = match &g.tagfile {
        Some(t) => {
            let (d, tf, p) = (t.dedupe_strings, t.templates_first, t.string_pad);
            let tags = t.tags.iter().map(|tag| {
                let b = tag.iter();
                quote!([#(#b),*])
            });
            quote!(::core::option::Option::Some((#d, #tf, #p, [#(#tags),*])))
        }
        None => quote!(::core::option::Option::None),
    };
    let classes = schema.classes().iter().map(|c| {
        let cname = c.name.as_str();
        let parent = opt_str(c.parent.as_deref());
        let (ifc, ver, fl) = (c.interfaces, c.version, c.flags);
        let align = opt_u32(c.align);
        let hash = opt_u32(c.hash);
        let pinned = match &c.pinned {
            Some(p) => {
                let (s, r) = (p.signature, p.reason.as_str());
                quote!(::core::option::Option::Some((#s, #r)))
            }
            None => quote!(::core::option::Option::None),
        };
        let enums = c.enums.iter().map(|en| {
            let (n, f) = (en.name.as_str(), en.flags);
            let items = en.items.iter().map(|i| {
                let (n, v) = (i.name.as_str(), i.value);
                quote!((#n, #v))
            });
            quote!(#e::StaticEnum { name: #n, flags: #f, items: &[#(#items),*] })
        });
        let members = c.members.iter().map(|m| {
            let n = m.name.as_str();
            let (t, s, el) = (kind(p, m.ty), kind(p, m.subtype), kind(p, m.element));
            let class = opt_str(m.class.as_deref());
            let en = opt_str(m.enum_ref.as_deref());
            let (a, f, gap) = (m.array_size, m.flags, m.gap_before);
            quote!(#e::StaticMember {
                name: #n, types: [#t, #s, #el], class: #class, enum_ref: #en,
                array_size: #a, flags: #f, gap_before: #gap,
            })
        });
        quote!(#e::StaticClass {
            name: #cname, parent: #parent, interfaces: #ifc, version: #ver, flags: #fl,
            align: #align, pinned: #pinned, hash: #hash,
            enums: &[#(#enums),*], members: &[#(#members),*],
        })
    });
    let items = quote! {
        static SCHEMA_GENERATION: #e::StaticGeneration = #e::StaticGeneration {
            name: #name,
            tagfile: #tagfile,
            file_version: #fv,
            contents_version: #cv,
            layout: #rules_t {
                pointer_size: #ps,
                endian: #endian,
                reuse_padding: #rp,
                empty_base: #eb,
            },
            member_types: &[#(#types),*],
            member_flags: &[#(#flags),*],
            string_align: #sa,
            tagfile_rules: #rules,
        };
        static SCHEMA_CLASSES: &[#e::StaticClass] = &[#(#classes),*];
    };
    let build = quote!(#schema_t::from_static(
        &SCHEMA_GENERATION,
        SCHEMA_CLASSES
    ));
    (items, build)
}
