//! Rebuilds `hk` when the schema folders or game profiles it embeds change (files added or
//! removed included), and tells it which checkout it was built from (`hk gen crate` points
//! generated crates at it while it exists).

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = std::path::Path::new(&manifest).join("..");
    for dir in ["schemas", "games"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    println!("cargo:rerun-if-changed=build.rs");
    let root = root.canonicalize().unwrap_or(root);
    println!("cargo:rustc-env=HK_BUILD_CHECKOUT={}", root.display());
}
