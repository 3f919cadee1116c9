// The items of `schema!(path = "tests/ui/schemas/good", classes = ["uiThing"])`.
// `HK_BLESS=1 cargo test -p hk-derive --test ui` refreshes this file.

/// The schema generation these classes come from.
pub const GENERATION: &str = "ui-good";
/// Havok class `uiBase`, signature 0x45FB36A8.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UiBase {
    /// `uiBase.refCount`
    pub ref_count: i32,
}
impl ::hk_runtime::typed::HkClass for UiBase {
    const NAME: &'static str = "uiBase";
    const SIGNATURE: u32 = 0x45FB36A8;
    const VERSION: u32 = 0u32;
}
impl UiBase {
    /// Member names, root class first, in the order of [`Self::offsets`].
    pub const MEMBER_NAMES: [&'static str; 1usize] = ["refCount"];
    const OFFSETS: &'static [[u32; 1usize]; 8] = &[
        [4u32],
        [4u32],
        [4u32],
        [4u32],
        [8u32],
        [8u32],
        [8u32],
        [8u32],
    ];
    /// Object size under `rules`.
    pub const fn size(rules: ::hk_runtime::LayoutRules) -> u32 {
        <Self as ::hk_runtime::typed::Class>::SIZES[rules.index()]
    }
    /// Member offsets under `rules`, in the order of [`Self::MEMBER_NAMES`].
    pub const fn offsets(rules: ::hk_runtime::LayoutRules) -> [u32; 1usize] {
        Self::OFFSETS[rules.index()]
    }
}
impl ::hk_runtime::typed::Class for UiBase {
    const SIZES: [u32; 8] = [8u32, 8u32, 8u32, 8u32, 16u32, 16u32, 16u32, 16u32];
    const GAPS: [&'static [(u32, u32)]; 8] = [
        &[(0u32, 4u32)],
        &[(0u32, 4u32)],
        &[(0u32, 4u32)],
        &[(0u32, 4u32)],
        &[(0u32, 8u32), (12u32, 16u32)],
        &[(0u32, 8u32), (12u32, 16u32)],
        &[(0u32, 8u32), (12u32, 16u32)],
        &[(0u32, 8u32), (12u32, 16u32)],
    ];
    const MEMBERS: ::hk_runtime::typed::Members = &[
        ::hk_runtime::typed::MemberInfo::new("uiBase", "refCount"),
    ];
    const PTRS: bool = false;
    #[inline]
    fn offsets(ri: usize) -> &'static [u32] {
        &Self::OFFSETS[ri]
    }
    #[allow(unused_mut, unused_variables)]
    fn decode_fields(
        &mut self,
        d: &mut ::hk_runtime::typed::Decoder<'_, '_>,
        body: &[u8],
        at: ::hk_runtime::packfile::Loc,
        depth: usize,
    ) -> ::hk_runtime::Result<()> {
        let mut f: [&mut dyn ::hk_runtime::typed::Field; 1usize] = [&mut self.ref_count];
        ::hk_runtime::typed::read::fields(
            d,
            body,
            at,
            depth,
            <Self as ::hk_runtime::typed::Class>::offsets(d.ri()),
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            &mut f,
        )
    }
    #[allow(unused_mut, unused_variables)]
    fn encode_members<'m>(
        &'m self,
        w: &mut ::hk_runtime::typed::Out<'_, 'm>,
        base: u32,
        ri: usize,
    ) -> ::hk_runtime::Result<()> {
        let f: [&'m dyn ::hk_runtime::typed::Field; 1usize] = [&self.ref_count];
        ::hk_runtime::typed::write::fields(
            w,
            base,
            ri,
            <Self as ::hk_runtime::typed::Class>::offsets(ri),
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            &f,
        )
    }
    #[inline]
    fn to_values(
        &self,
    ) -> ::hk_runtime::Result<::std::vec::Vec<::hk_runtime::graph::Value>> {
        let f: [&dyn ::hk_runtime::typed::ValueField; 1usize] = [&self.ref_count];
        ::hk_runtime::typed::dynamic::values(
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            &f,
        )
    }
    #[inline]
    #[allow(unused_mut)]
    fn set_values(
        &mut self,
        values: &[::hk_runtime::graph::Value],
    ) -> ::hk_runtime::Result<()> {
        let mut f: [&mut dyn ::hk_runtime::typed::ValueField; 1usize] = [
            &mut self.ref_count,
        ];
        ::hk_runtime::typed::dynamic::take(
            <Self as ::hk_runtime::typed::HkClass>::NAME,
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            values,
            &mut f,
        )
    }
    #[inline]
    fn check_schema_in(
        schema: &::hk_runtime::Schema,
        seen: &mut ::std::vec::Vec<&'static str>,
    ) -> ::hk_runtime::Result<::hk_runtime::schema::ClassId> {
        let (id, new) = ::hk_runtime::typed::dynamic::check_class(
            schema,
            <Self as ::hk_runtime::typed::HkClass>::NAME,
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            seen,
        )?;
        if new {}
        ::core::result::Result::Ok(id)
    }
}
impl ::core::convert::TryFrom<::hk_runtime::typed::GraphObject<'_>> for UiBase {
    type Error = ::hk_runtime::Error;
    #[inline]
    fn try_from(o: ::hk_runtime::typed::GraphObject<'_>) -> ::hk_runtime::Result<Self> {
        ::hk_runtime::typed::dynamic::from_object(o)
    }
}
impl ::core::convert::TryFrom<&UiBase> for ::hk_runtime::graph::Object {
    type Error = ::hk_runtime::Error;
    #[inline]
    fn try_from(x: &UiBase) -> ::hk_runtime::Result<Self> {
        ::hk_runtime::typed::dynamic::to_object(x, schema())
    }
}
/// A zero-copy view of a `uiBase` in a parsed packfile.
#[derive(Clone, Copy, Debug)]
pub struct UiBaseView<'a>(pub ::hk_runtime::typed::Raw<'a>);
impl<'a> UiBaseView<'a> {
    /// The object at `loc`.
    ///
    /// # Errors
    /// A body that runs past its section.
    #[inline]
    pub fn new(
        pf: &'a ::hk_runtime::packfile::Packfile<'a>,
        loc: ::hk_runtime::packfile::Loc,
    ) -> ::hk_runtime::Result<Self> {
        let size = <UiBase as ::hk_runtime::typed::Class>::SIZES[pf.rules().index()];
        ::hk_runtime::typed::Raw::new(pf, loc, size).map(Self)
    }
    /// `uiBase.refCount`.
    #[inline]
    pub fn ref_count(&self) -> i32 {
        <i32 as ::hk_runtime::typed::ViewElem<
            'a,
        >>::read_at(&self.0, UiBase::OFFSETS[self.0.ri()][0usize])
    }
    /// Reads every member (structs and array elements included, pointers not
    /// followed) into the checksum `acc`.
    ///
    /// # Errors
    /// A string, array or element that does not read.
    #[inline]
    pub fn traverse(&self, acc: &mut u64) -> ::hk_runtime::Result<()> {
        ::hk_runtime::typed::view::traverse(&self.0, &__hk_shapes::UiBase, acc)
    }
}
impl<'a> ::hk_runtime::typed::ViewElem<'a> for UiBaseView<'a> {
    #[inline]
    fn stride(ri: usize) -> u32 {
        <UiBase as ::hk_runtime::typed::Class>::SIZES[ri]
    }
    #[inline]
    fn make(raw: ::hk_runtime::typed::Raw<'a>) -> Self {
        Self(raw)
    }
}
/// Havok class `uiThing`, signature 0x4DA82F76.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UiThing {
    /// `uiBase.refCount`
    pub ref_count: i32,
    /// `uiThing.kind`
    pub kind: ::hk_runtime::typed::Enum<UiThingKind, u8>,
    /// `uiThing.name`
    pub name: ::hk_runtime::typed::HkString,
    /// `uiThing.position`
    pub position: [f32; 4usize],
    /// `uiThing.children`
    pub children: ::std::vec::Vec<::hk_runtime::typed::Ref<UiThing>>,
    /// `uiThing.type`
    pub r#type: f32,
}
impl ::hk_runtime::typed::HkClass for UiThing {
    const NAME: &'static str = "uiThing";
    const SIGNATURE: u32 = 0x4DA82F76;
    const VERSION: u32 = 2u32;
}
impl UiThing {
    /// Member names, root class first, in the order of [`Self::offsets`].
    pub const MEMBER_NAMES: [&'static str; 6usize] = [
        "refCount",
        "kind",
        "name",
        "position",
        "children",
        "type",
    ];
    const OFFSETS: &'static [[u32; 6usize]; 8] = &[
        [4u32, 8u32, 12u32, 16u32, 32u32, 44u32],
        [4u32, 8u32, 12u32, 16u32, 32u32, 44u32],
        [4u32, 8u32, 12u32, 16u32, 32u32, 44u32],
        [4u32, 8u32, 12u32, 16u32, 32u32, 44u32],
        [8u32, 16u32, 24u32, 32u32, 48u32, 64u32],
        [8u32, 16u32, 24u32, 32u32, 48u32, 64u32],
        [8u32, 12u32, 16u32, 32u32, 48u32, 64u32],
        [8u32, 12u32, 16u32, 32u32, 48u32, 64u32],
    ];
    /// Object size under `rules`.
    pub const fn size(rules: ::hk_runtime::LayoutRules) -> u32 {
        <Self as ::hk_runtime::typed::Class>::SIZES[rules.index()]
    }
    /// Member offsets under `rules`, in the order of [`Self::MEMBER_NAMES`].
    pub const fn offsets(rules: ::hk_runtime::LayoutRules) -> [u32; 6usize] {
        Self::OFFSETS[rules.index()]
    }
}
impl ::hk_runtime::typed::Class for UiThing {
    const SIZES: [u32; 8] = [48u32, 48u32, 48u32, 48u32, 80u32, 80u32, 80u32, 80u32];
    const GAPS: [&'static [(u32, u32)]; 8] = [
        &[(0u32, 4u32), (9u32, 12u32)],
        &[(0u32, 4u32), (9u32, 12u32)],
        &[(0u32, 4u32), (9u32, 12u32)],
        &[(0u32, 4u32), (9u32, 12u32)],
        &[(0u32, 8u32), (12u32, 16u32), (17u32, 24u32), (68u32, 80u32)],
        &[(0u32, 8u32), (12u32, 16u32), (17u32, 24u32), (68u32, 80u32)],
        &[(0u32, 8u32), (13u32, 16u32), (24u32, 32u32), (68u32, 80u32)],
        &[(0u32, 8u32), (13u32, 16u32), (24u32, 32u32), (68u32, 80u32)],
    ];
    const MEMBERS: ::hk_runtime::typed::Members = &[
        ::hk_runtime::typed::MemberInfo::new("uiBase", "refCount"),
        ::hk_runtime::typed::MemberInfo::new("uiThing", "kind"),
        ::hk_runtime::typed::MemberInfo::new("uiThing", "name"),
        ::hk_runtime::typed::MemberInfo::new("uiThing", "position"),
        ::hk_runtime::typed::MemberInfo::new("uiThing", "children"),
        ::hk_runtime::typed::MemberInfo::new("uiThing", "type"),
    ];
    const PTRS: bool = true;
    #[inline]
    fn offsets(ri: usize) -> &'static [u32] {
        &Self::OFFSETS[ri]
    }
    #[allow(unused_mut, unused_variables)]
    fn decode_fields(
        &mut self,
        d: &mut ::hk_runtime::typed::Decoder<'_, '_>,
        body: &[u8],
        at: ::hk_runtime::packfile::Loc,
        depth: usize,
    ) -> ::hk_runtime::Result<()> {
        let mut f: [&mut dyn ::hk_runtime::typed::Field; 6usize] = [
            &mut self.ref_count,
            &mut self.kind,
            &mut self.name,
            &mut self.position,
            &mut self.children,
            &mut self.r#type,
        ];
        ::hk_runtime::typed::read::fields(
            d,
            body,
            at,
            depth,
            <Self as ::hk_runtime::typed::Class>::offsets(d.ri()),
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            &mut f,
        )
    }
    fn slot_mut(
        &mut self,
        path: &[::hk_runtime::graph::Seg],
        class: bool,
    ) -> ::core::option::Option<&mut ::core::option::Option<::hk_runtime::graph::Ptr>> {
        let (::hk_runtime::graph::Seg::Member(i), rest) = path.split_first()? else {
            return ::core::option::Option::None;
        };
        match *i {
            4u16 => {
                ::hk_runtime::typed::Member::slot_mut(&mut self.children, rest, class)
            }
            _ => ::core::option::Option::None,
        }
    }
    #[allow(unused_mut, unused_variables)]
    fn encode_members<'m>(
        &'m self,
        w: &mut ::hk_runtime::typed::Out<'_, 'm>,
        base: u32,
        ri: usize,
    ) -> ::hk_runtime::Result<()> {
        let f: [&'m dyn ::hk_runtime::typed::Field; 6usize] = [
            &self.ref_count,
            &self.kind,
            &self.name,
            &self.position,
            &self.children,
            &self.r#type,
        ];
        ::hk_runtime::typed::write::fields(
            w,
            base,
            ri,
            <Self as ::hk_runtime::typed::Class>::offsets(ri),
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            &f,
        )
    }
    fn each_ptr(&self, f: &mut dyn ::core::ops::FnMut(&::hk_runtime::graph::Ptr)) {
        ::hk_runtime::typed::Member::each_ptr(&self.children, f);
    }
    #[inline]
    fn to_values(
        &self,
    ) -> ::hk_runtime::Result<::std::vec::Vec<::hk_runtime::graph::Value>> {
        let f: [&dyn ::hk_runtime::typed::ValueField; 6usize] = [
            &self.ref_count,
            &self.kind,
            &self.name,
            &self.position,
            &self.children,
            &self.r#type,
        ];
        ::hk_runtime::typed::dynamic::values(
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            &f,
        )
    }
    #[inline]
    #[allow(unused_mut)]
    fn set_values(
        &mut self,
        values: &[::hk_runtime::graph::Value],
    ) -> ::hk_runtime::Result<()> {
        let mut f: [&mut dyn ::hk_runtime::typed::ValueField; 6usize] = [
            &mut self.ref_count,
            &mut self.kind,
            &mut self.name,
            &mut self.position,
            &mut self.children,
            &mut self.r#type,
        ];
        ::hk_runtime::typed::dynamic::take(
            <Self as ::hk_runtime::typed::HkClass>::NAME,
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            values,
            &mut f,
        )
    }
    #[inline]
    fn check_schema_in(
        schema: &::hk_runtime::Schema,
        seen: &mut ::std::vec::Vec<&'static str>,
    ) -> ::hk_runtime::Result<::hk_runtime::schema::ClassId> {
        let (id, new) = ::hk_runtime::typed::dynamic::check_class(
            schema,
            <Self as ::hk_runtime::typed::HkClass>::NAME,
            <Self as ::hk_runtime::typed::Class>::MEMBERS,
            seen,
        )?;
        if new {}
        ::core::result::Result::Ok(id)
    }
}
impl ::core::convert::TryFrom<::hk_runtime::typed::GraphObject<'_>> for UiThing {
    type Error = ::hk_runtime::Error;
    #[inline]
    fn try_from(o: ::hk_runtime::typed::GraphObject<'_>) -> ::hk_runtime::Result<Self> {
        ::hk_runtime::typed::dynamic::from_object(o)
    }
}
impl ::core::convert::TryFrom<&UiThing> for ::hk_runtime::graph::Object {
    type Error = ::hk_runtime::Error;
    #[inline]
    fn try_from(x: &UiThing) -> ::hk_runtime::Result<Self> {
        ::hk_runtime::typed::dynamic::to_object(x, schema())
    }
}
/// A zero-copy view of a `uiThing` in a parsed packfile.
#[derive(Clone, Copy, Debug)]
pub struct UiThingView<'a>(pub ::hk_runtime::typed::Raw<'a>);
impl<'a> UiThingView<'a> {
    /// The object at `loc`.
    ///
    /// # Errors
    /// A body that runs past its section.
    #[inline]
    pub fn new(
        pf: &'a ::hk_runtime::packfile::Packfile<'a>,
        loc: ::hk_runtime::packfile::Loc,
    ) -> ::hk_runtime::Result<Self> {
        let size = <UiThing as ::hk_runtime::typed::Class>::SIZES[pf.rules().index()];
        ::hk_runtime::typed::Raw::new(pf, loc, size).map(Self)
    }
    /// `uiBase.refCount`.
    #[inline]
    pub fn ref_count(&self) -> i32 {
        <i32 as ::hk_runtime::typed::ViewElem<
            'a,
        >>::read_at(&self.0, UiThing::OFFSETS[self.0.ri()][0usize])
    }
    /// `uiThing.kind`.
    #[inline]
    pub fn kind(&self) -> ::hk_runtime::typed::Enum<UiThingKind, u8> {
        <::hk_runtime::typed::Enum<
            UiThingKind,
            u8,
        > as ::hk_runtime::typed::ViewElem<
            'a,
        >>::read_at(&self.0, UiThing::OFFSETS[self.0.ri()][1usize])
    }
    /// `uiThing.name`.
    #[inline]
    pub fn name(&self) -> ::hk_runtime::Result<::core::option::Option<&'a [u8]>> {
        self.0.string(UiThing::OFFSETS[self.0.ri()][2usize])
    }
    /// `uiThing.position`.
    #[inline]
    pub fn position(&self) -> [f32; 4usize] {
        <[f32; 4usize] as ::hk_runtime::typed::ViewElem<
            'a,
        >>::read_at(&self.0, UiThing::OFFSETS[self.0.ri()][3usize])
    }
    /// `uiThing.children`.
    #[inline]
    pub fn children(
        &self,
    ) -> ::hk_runtime::Result<
        ::hk_runtime::typed::ArrayView<'a, ::hk_runtime::typed::PtrView<'a, AnyView<'a>>>,
    > {
        self.0
            .array(
                UiThing::OFFSETS[self.0.ri()][4usize],
                ::hk_runtime::schema::ArrayKind::Array,
            )
    }
    /// `uiThing.type`.
    #[inline]
    pub fn r#type(&self) -> f32 {
        <f32 as ::hk_runtime::typed::ViewElem<
            'a,
        >>::read_at(&self.0, UiThing::OFFSETS[self.0.ri()][5usize])
    }
    /// Reads every member (structs and array elements included, pointers not
    /// followed) into the checksum `acc`.
    ///
    /// # Errors
    /// A string, array or element that does not read.
    #[inline]
    pub fn traverse(&self, acc: &mut u64) -> ::hk_runtime::Result<()> {
        ::hk_runtime::typed::view::traverse(&self.0, &__hk_shapes::UiThing, acc)
    }
}
impl<'a> ::hk_runtime::typed::ViewElem<'a> for UiThingView<'a> {
    #[inline]
    fn stride(ri: usize) -> u32 {
        <UiThing as ::hk_runtime::typed::Class>::SIZES[ri]
    }
    #[inline]
    fn make(raw: ::hk_runtime::typed::Raw<'a>) -> Self {
        Self(raw)
    }
}
/// `uiThing::Kind` (2 items).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UiThingKind {
    /// `KIND_NONE` = 0
    KindNone,
    /// `KIND_BOX` = 1
    KindBox,
    /// A value the schema does not name.
    Other(i64),
}
impl ::core::default::Default for UiThingKind {
    fn default() -> Self {
        Self::KindNone
    }
}
impl UiThingKind {
    /// The stored value.
    pub const fn value(self) -> i64 {
        match self {
            Self::KindNone => 0i64,
            Self::KindBox => 1i64,
            Self::Other(v) => v,
        }
    }
    /// The item with stored value `v`.
    #[allow(unreachable_patterns)]
    pub const fn from_value(v: i64) -> Self {
        match v {
            0i64 => Self::KindNone,
            1i64 => Self::KindBox,
            other => Self::Other(other),
        }
    }
}
impl ::hk_runtime::typed::HkEnum for UiThingKind {
    fn from_i64(v: i64) -> Self {
        Self::from_value(v)
    }
    fn to_i64(self) -> i64 {
        self.value()
    }
}
/// An object of any generated class.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum AnyObject {
    #[allow(missing_docs)]
    UiBase(UiBase),
    #[allow(missing_docs)]
    UiThing(UiThing),
}
impl AnyObject {
    /// The class name.
    pub fn class_name(&self) -> &'static str {
        ::hk_runtime::typed::AnyClass::class_name(self)
    }
}
impl ::core::convert::From<UiBase> for AnyObject {
    #[inline]
    fn from(v: UiBase) -> Self {
        Self::UiBase(v)
    }
}
impl ::core::convert::From<UiThing> for AnyObject {
    #[inline]
    fn from(v: UiThing) -> Self {
        Self::UiThing(v)
    }
}
impl ::hk_runtime::typed::AnyClass for AnyObject {
    const STRING_ALIGN: u32 = 2u32;
    fn decoder(
        name: &str,
    ) -> ::core::option::Option<::hk_runtime::typed::DecodeFn<Self>> {
        let f: ::hk_runtime::typed::DecodeFn<Self> = match name {
            "uiBase" => ::hk_runtime::typed::read::decode_object::<UiBase, Self>,
            "uiThing" => ::hk_runtime::typed::read::decode_object::<UiThing, Self>,
            _ => return ::core::option::Option::None,
        };
        ::core::option::Option::Some(f)
    }
    fn class_name(&self) -> &'static str {
        match self {
            Self::UiBase(_) => <UiBase as ::hk_runtime::typed::HkClass>::NAME,
            Self::UiThing(_) => <UiThing as ::hk_runtime::typed::HkClass>::NAME,
        }
    }
    fn body_size(&self, ri: usize) -> u32 {
        match self {
            Self::UiBase(_) => <UiBase as ::hk_runtime::typed::Class>::SIZES[ri],
            Self::UiThing(_) => <UiThing as ::hk_runtime::typed::Class>::SIZES[ri],
        }
    }
    fn encode<'m>(
        &'m self,
        w: &mut ::hk_runtime::typed::Out<'_, 'm>,
        ri: usize,
    ) -> ::hk_runtime::Result<()> {
        match self {
            Self::UiBase(x) => ::hk_runtime::typed::Class::encode_members(x, w, 0, ri),
            Self::UiThing(x) => ::hk_runtime::typed::Class::encode_members(x, w, 0, ri),
        }
    }
    fn slot_mut(
        &mut self,
        path: &[::hk_runtime::graph::Seg],
        class: bool,
    ) -> ::core::option::Option<&mut ::core::option::Option<::hk_runtime::graph::Ptr>> {
        match self {
            Self::UiBase(x) => ::hk_runtime::typed::Class::slot_mut(x, path, class),
            Self::UiThing(x) => ::hk_runtime::typed::Class::slot_mut(x, path, class),
        }
    }
    fn each_ptr(&self, f: &mut dyn ::core::ops::FnMut(&::hk_runtime::graph::Ptr)) {
        match self {
            Self::UiBase(x) => ::hk_runtime::typed::Class::each_ptr(x, f),
            Self::UiThing(x) => ::hk_runtime::typed::Class::each_ptr(x, f),
        }
    }
    fn signature(name: &str) -> ::core::option::Option<u32> {
        match name {
            "uiBase" => ::core::option::Option::Some(1174091432u32),
            "uiThing" => ::core::option::Option::Some(1302867830u32),
            _ => {
                let s = schema();
                s.class_id(name).and_then(|c| s.signature_of(c).ok())
            }
        }
    }
    #[inline]
    fn to_object(
        &self,
        schema: &::hk_runtime::Schema,
    ) -> ::hk_runtime::Result<::hk_runtime::graph::Object> {
        match self {
            Self::UiBase(x) => ::hk_runtime::typed::dynamic::to_object(x, schema),
            Self::UiThing(x) => ::hk_runtime::typed::dynamic::to_object(x, schema),
        }
    }
    #[inline]
    fn from_object(
        schema: &::hk_runtime::Schema,
        o: &::hk_runtime::graph::Object,
    ) -> ::hk_runtime::Result<Self> {
        let g = ::hk_runtime::typed::GraphObject {
            schema,
            object: o,
        };
        match schema.name_of(o.class) {
            "uiBase" => {
                ::hk_runtime::typed::dynamic::from_object::<UiBase>(g).map(Self::UiBase)
            }
            "uiThing" => {
                ::hk_runtime::typed::dynamic::from_object::<UiThing>(g)
                    .map(Self::UiThing)
            }
            other => {
                ::core::result::Result::Err(
                    ::hk_runtime::Error::convert(
                        ::hk_runtime::error::ConvertError::Class(
                            ::std::string::ToString::to_string(other),
                        ),
                    ),
                )
            }
        }
    }
}
impl ::core::convert::TryFrom<::hk_runtime::typed::GraphObject<'_>> for AnyObject {
    type Error = ::hk_runtime::Error;
    #[inline]
    fn try_from(o: ::hk_runtime::typed::GraphObject<'_>) -> ::hk_runtime::Result<Self> {
        <Self as ::hk_runtime::typed::AnyClass>::from_object(o.schema, o.object)
    }
}
impl ::core::convert::TryFrom<&AnyObject> for ::hk_runtime::graph::Object {
    type Error = ::hk_runtime::Error;
    #[inline]
    fn try_from(x: &AnyObject) -> ::hk_runtime::Result<Self> {
        <AnyObject as ::hk_runtime::typed::AnyClass>::to_object(x, schema())
    }
}
/// A view of an object of any generated class.
#[derive(Clone, Copy, Debug)]
pub enum AnyView<'a> {
    #[allow(missing_docs)]
    UiBase(UiBaseView<'a>),
    #[allow(missing_docs)]
    UiThing(UiThingView<'a>),
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
            Self::UiBase(v) => v.traverse(acc),
            Self::UiThing(v) => v.traverse(acc),
            Self::Other(_) => ::core::result::Result::Ok(()),
        }
    }
}
impl<'a> ::hk_runtime::typed::AnyViewClass<'a> for AnyView<'a> {
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
            "uiBase" => UiBaseView::new(pf, loc).map(Self::UiBase),
            "uiThing" => UiThingView::new(pf, loc).map(Self::UiThing),
            _ => ::core::result::Result::Ok(Self::Other(loc)),
        }
    }
    #[inline]
    fn shape(name: &str) -> ::core::option::Option<&'static ::hk_runtime::typed::Shape> {
        match name {
            "uiBase" => ::core::option::Option::Some(&__hk_shapes::UiBase),
            "uiThing" => ::core::option::Option::Some(&__hk_shapes::UiThing),
            _ => ::core::option::Option::None,
        }
    }
}
/// What view traversals interpret: each class's shape as data.
#[doc(hidden)]
#[allow(non_upper_case_globals)]
pub mod __hk_shapes {
    pub static UiBase: ::hk_runtime::typed::Shape = ::hk_runtime::typed::Shape {
        sizes: <super::UiBase as ::hk_runtime::typed::Class>::SIZES,
        offsets: [
            &super::UiBase::OFFSETS[0usize],
            &super::UiBase::OFFSETS[1usize],
            &super::UiBase::OFFSETS[2usize],
            &super::UiBase::OFFSETS[3usize],
            &super::UiBase::OFFSETS[4usize],
            &super::UiBase::OFFSETS[5usize],
            &super::UiBase::OFFSETS[6usize],
            &super::UiBase::OFFSETS[7usize],
        ],
        steps: &[
            ::hk_runtime::typed::Step::Words {
                width: 4u8,
                count: 1u8,
            },
        ],
    };
    pub static UiThing: ::hk_runtime::typed::Shape = ::hk_runtime::typed::Shape {
        sizes: <super::UiThing as ::hk_runtime::typed::Class>::SIZES,
        offsets: [
            &super::UiThing::OFFSETS[0usize],
            &super::UiThing::OFFSETS[1usize],
            &super::UiThing::OFFSETS[2usize],
            &super::UiThing::OFFSETS[3usize],
            &super::UiThing::OFFSETS[4usize],
            &super::UiThing::OFFSETS[5usize],
            &super::UiThing::OFFSETS[6usize],
            &super::UiThing::OFFSETS[7usize],
        ],
        steps: &[
            ::hk_runtime::typed::Step::Words {
                width: 4u8,
                count: 1u8,
            },
            ::hk_runtime::typed::Step::Words {
                width: 1u8,
                count: 1u8,
            },
            ::hk_runtime::typed::Step::Str,
            ::hk_runtime::typed::Step::Words {
                width: 4u8,
                count: 4u8,
            },
            ::hk_runtime::typed::Step::Array(
                ::hk_runtime::schema::ArrayKind::Array,
                &::hk_runtime::typed::Step::Ptr,
            ),
            ::hk_runtime::typed::Step::Words {
                width: 4u8,
                count: 1u8,
            },
        ],
    };
}
static SCHEMA_GENERATION: ::hk_runtime::schema::embed::StaticGeneration = ::hk_runtime::schema::embed::StaticGeneration {
    name: "ui-good",
    tagfile: false,
    file_version: 7u32,
    contents_version: "Havok-7.1.0-r1",
    layout: ::hk_runtime::LayoutRules {
        pointer_size: 4u8,
        endian: ::hk_runtime::Endian::Big,
        reuse_padding: true,
        empty_base: true,
    },
    member_types: &[
        (::hk_runtime::types::TypeKind::Void, 0u8),
        (::hk_runtime::types::TypeKind::Bool, 1u8),
        (::hk_runtime::types::TypeKind::UInt8, 4u8),
        (::hk_runtime::types::TypeKind::Int32, 7u8),
        (::hk_runtime::types::TypeKind::Real, 11u8),
        (::hk_runtime::types::TypeKind::Vector4, 12u8),
        (::hk_runtime::types::TypeKind::Pointer, 20u8),
        (::hk_runtime::types::TypeKind::Array, 22u8),
        (::hk_runtime::types::TypeKind::Enum, 24u8),
        (::hk_runtime::types::TypeKind::Struct, 25u8),
        (::hk_runtime::types::TypeKind::StringPtr, 33u8),
    ],
    member_flags: &[("align_16", 256u16), ("serialize_ignored", 1024u16)],
    string_align: 2u32,
    tagfile_rules: ::core::option::Option::None,
};
static SCHEMA_CLASSES: &[::hk_runtime::schema::embed::StaticClass] = &[
    ::hk_runtime::schema::embed::StaticClass {
        name: "uiBase",
        parent: ::core::option::Option::None,
        interfaces: 1u32,
        version: 0u32,
        flags: 0u32,
        align: ::core::option::Option::None,
        pinned: ::core::option::Option::None,
        hash: ::core::option::Option::None,
        enums: &[],
        members: &[
            ::hk_runtime::schema::embed::StaticMember {
                name: "refCount",
                types: [
                    ::hk_runtime::types::TypeKind::Int32,
                    ::hk_runtime::types::TypeKind::Void,
                    ::hk_runtime::types::TypeKind::Void,
                ],
                class: ::core::option::Option::None,
                enum_ref: ::core::option::Option::None,
                array_size: 0u16,
                flags: 0u16,
                gap_before: 0u32,
            },
        ],
    },
    ::hk_runtime::schema::embed::StaticClass {
        name: "uiThing",
        parent: ::core::option::Option::Some("uiBase"),
        interfaces: 0u32,
        version: 2u32,
        flags: 0u32,
        align: ::core::option::Option::None,
        pinned: ::core::option::Option::None,
        hash: ::core::option::Option::None,
        enums: &[
            ::hk_runtime::schema::embed::StaticEnum {
                name: "Kind",
                flags: 0u32,
                items: &[("KIND_NONE", 0i32), ("KIND_BOX", 1i32)],
            },
        ],
        members: &[
            ::hk_runtime::schema::embed::StaticMember {
                name: "kind",
                types: [
                    ::hk_runtime::types::TypeKind::Enum,
                    ::hk_runtime::types::TypeKind::UInt8,
                    ::hk_runtime::types::TypeKind::Void,
                ],
                class: ::core::option::Option::None,
                enum_ref: ::core::option::Option::Some("Kind"),
                array_size: 0u16,
                flags: 0u16,
                gap_before: 0u32,
            },
            ::hk_runtime::schema::embed::StaticMember {
                name: "name",
                types: [
                    ::hk_runtime::types::TypeKind::StringPtr,
                    ::hk_runtime::types::TypeKind::Void,
                    ::hk_runtime::types::TypeKind::Void,
                ],
                class: ::core::option::Option::None,
                enum_ref: ::core::option::Option::None,
                array_size: 0u16,
                flags: 0u16,
                gap_before: 0u32,
            },
            ::hk_runtime::schema::embed::StaticMember {
                name: "position",
                types: [
                    ::hk_runtime::types::TypeKind::Vector4,
                    ::hk_runtime::types::TypeKind::Void,
                    ::hk_runtime::types::TypeKind::Void,
                ],
                class: ::core::option::Option::None,
                enum_ref: ::core::option::Option::None,
                array_size: 0u16,
                flags: 0u16,
                gap_before: 0u32,
            },
            ::hk_runtime::schema::embed::StaticMember {
                name: "children",
                types: [
                    ::hk_runtime::types::TypeKind::Array,
                    ::hk_runtime::types::TypeKind::Pointer,
                    ::hk_runtime::types::TypeKind::Void,
                ],
                class: ::core::option::Option::Some("uiThing"),
                enum_ref: ::core::option::Option::None,
                array_size: 0u16,
                flags: 0u16,
                gap_before: 0u32,
            },
            ::hk_runtime::schema::embed::StaticMember {
                name: "type",
                types: [
                    ::hk_runtime::types::TypeKind::Real,
                    ::hk_runtime::types::TypeKind::Void,
                    ::hk_runtime::types::TypeKind::Void,
                ],
                class: ::core::option::Option::None,
                enum_ref: ::core::option::Option::None,
                array_size: 0u16,
                flags: 0u16,
                gap_before: 0u32,
            },
        ],
    },
];
/// The schema these classes were generated from, compiled in as constant tables
/// and built once, on first use (graph conversions use it; the typed codecs do
/// not).
///
/// # Panics
/// Never for a schema that compiled (the macro parsed the same text).
#[inline]
pub fn schema() -> &'static ::std::sync::Arc<::hk_runtime::Schema> {
    static SCHEMA: ::std::sync::OnceLock<::std::sync::Arc<::hk_runtime::Schema>> = ::std::sync::OnceLock::new();
    SCHEMA
        .get_or_init(|| match ::hk_runtime::Schema::from_static(
            &SCHEMA_GENERATION,
            SCHEMA_CLASSES,
        ) {
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
pub fn decode_file(
    bytes: &[u8],
) -> ::hk_runtime::Result<::hk_runtime::typed::TypedFile<AnyObject>> {
    ::hk_runtime::typed::TypedFile::decode(bytes)
}
/// Writes a file of the generated classes with their derived encoders (as
/// `file.write()`, compiled once here rather than in every caller).
///
/// # Errors
/// A value that does not fit its member, a pointer to an object the file lacks, or
/// anything the packfile write engine refuses.
pub fn write_file(
    file: &::hk_runtime::typed::TypedFile<AnyObject>,
) -> ::hk_runtime::Result<::std::vec::Vec<u8>> {
    file.write()
}
