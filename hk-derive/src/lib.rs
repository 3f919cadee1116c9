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
//!   `decode_file`, `write_file`, and `schema()` (the embedded schema, parsed once).
//!   `crate = "::my_runtime"` points the generated code at a crate that renames or
//!   re-exports `hk_runtime` (a path that resolves from any module).
//! - `signature!(path = "...", class = "...")` is one class's signature as a `u32` literal.
//! - `#[derive(HkClass)]` checks a hand-written struct against a schema class and derives
//!   its codec (`#[hk(crate = "...")]` as for `schema!`).
//!
//! Schema errors are compile errors at the macro call that name the schema file, line and
//! key. The schema path is relative to the calling crate's `CARGO_MANIFEST_DIR` or one of
//! its ancestors (a workspace root); from a binary whose source lies outside its package
//! (trybuild's UI tests), also to the source file's folders.
//!
//! # Where the expansion lives
//!
//! This crate holds only the macro entry points; the expansion is the library `hk-codegen`
//! (in `hk-derive/codegen`). A proc-macro crate can export nothing but macros, and
//! `hk gen crate --expand` must print the very items the macro produces as a plain Rust
//! file; so the model and the expanders are an ordinary crate both use, kept under this
//! one because it exists only for it. `tests/expand/*.expected.rs` holds the expansion of
//! a small schema, compared on every test run.
//!
//! The expansion depends on `hk-runtime` without its `codecs` feature: it compiles only the
//! core and schema layers, and generates calls to the codecs of the caller's `hk-runtime`.

use proc_macro::TokenStream;

/// Generates typed classes from a schema folder; see the crate docs.
#[proc_macro]
pub fn schema(input: TokenStream) -> TokenStream {
    hk_codegen::schema(input.into()).into()
}

/// Checks a hand-written struct against a schema class and implements `HkClass` for it:
/// `#[hk(schema = "schemas/havok-7.1", class = "hkpBoxShape")]`. Every member of the class
/// (and its ancestors) must be a field named in snake case, and every field a member.
#[proc_macro_derive(HkClass, attributes(hk))]
pub fn derive_hk_class(input: TokenStream) -> TokenStream {
    hk_codegen::derive_hk_class(input.into()).into()
}

/// The signature of a class of a schema folder, as a `u32` literal computed at compile time.
/// A pinned class yields its pinned value, as a writer stores it.
#[proc_macro]
pub fn signature(input: TokenStream) -> TokenStream {
    hk_codegen::signature(input.into()).into()
}
