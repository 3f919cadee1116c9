//! Layout tables: sizes, member offsets and padding ranges under each of the eight rules
//! (indexed by `LayoutRules::index`), computed at compile time from the schema's plans.

use proc_macro2::TokenStream;
use quote::quote;

use hk_runtime::schema::ArrayKind;

use super::Paths;
use crate::internals::model::{Access, Model};

/// The inherent layout items of the class (`MEMBERS`, `OFFSETS`, `size`, `offsets`).
pub fn inherent(p: &Paths, m: &Model<'_>) -> TokenStream {
    let (rt, rules) = (p.typed(), p.layout_rules());
    let ty = &m.ty;
    let n = m.fields.len();
    let names = m.fields.iter().map(|f| f.name.as_str());
    let offsets = m.offsets.iter().map(|o| quote!([#(#o),*]));
    quote! {
        impl #ty {
            /// Member names, root class first, in the order of [`Self::offsets`].
            pub const MEMBER_NAMES: [&'static str; #n] = [#(#names),*];
            const OFFSETS: &'static [[u32; #n]; 8] = &[#(#offsets),*];
            /// Object size under `rules`.
            pub const fn size(rules: #rules) -> u32 {
                <Self as #rt::Class>::SIZES[rules.index()]
            }
            /// Member offsets under `rules`, in the order of [`Self::MEMBER_NAMES`].
            pub const fn offsets(rules: #rules) -> [u32; #n] {
                Self::OFFSETS[rules.index()]
            }
        }
    }
}

/// The layout constants of the `Class` impl.
pub fn class_items(p: &Paths, m: &Model<'_>) -> TokenStream {
    let rt = p.typed();
    let sizes = &m.sizes;
    let gaps = m.gaps.iter().map(|g| {
        let (s, e): (Vec<u32>, Vec<u32>) = g.iter().copied().unzip();
        quote!(&[#((#s, #e)),*])
    });
    let members = m.fields.iter().map(|f| {
        let (o, n) = (&f.owner, &f.name);
        match &f.access {
            Access::Array { kind, .. } if *kind != ArrayKind::Array => {
                let k = super::kind(p, *kind);
                quote!(#rt::MemberInfo::array(#o, #n, #k))
            }
            _ => quote!(#rt::MemberInfo::new(#o, #n)),
        }
    });
    let ptrs = m.ptrs;
    quote! {
        const SIZES: [u32; 8] = [#(#sizes),*];
        const GAPS: [&'static [(u32, u32)]; 8] = [#(#gaps),*];
        const MEMBERS: #rt::Members = &[#(#members),*];
        const PTRS: bool = #ptrs;
        #[inline]
        fn offsets(ri: usize) -> &'static [u32] {
            &Self::OFFSETS[ri]
        }
    }
}
