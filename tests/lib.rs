//! Shared helpers of hk's corpus and integration tests.
//!
//! The corpus is found through `HK_CORPUS` (default `../shared/corpus` from the workspace
//! root). Without it the corpus tests print that they skipped; under `CI=true` a missing
//! corpus fails them.

pub mod heap;
pub mod hostile;
pub mod tagfile_edit;

use std::io::Write;
use std::path::{Path, PathBuf};

use hk_runtime::packfile::Packfile;
use hk_runtime::schema::catalog;
use hk_runtime::Schema;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// The schema folders.
pub fn schemas() -> PathBuf {
    root().join("schemas")
}

/// The shipped schema folders, as the front door takes them.
pub fn schema_set() -> hk_runtime::file::Schemas {
    hk_runtime::file::Schemas::from_dir(&schemas()).expect("schema folders")
}

/// A fresh folder named after `name` holding the shipped 7.1 `generation.toml` and
/// `classes/<name>.toml` files of the given (name, text) pairs.
pub fn schema_folder_71(name: &str, classes: &[(String, String)]) -> Scratch {
    schema_folder("havok-7.1", name, classes)
}

/// A scratch schema folder `name` with the `generation.toml` of the shipped folder
/// `generation` and the class files `classes` (stem, text).
pub fn schema_folder(generation: &str, name: &str, classes: &[(String, String)]) -> Scratch {
    let dir = temp_dir(name);
    std::fs::copy(
        schemas().join(generation).join("generation.toml"),
        dir.join("generation.toml"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("classes")).unwrap();
    for (n, text) in classes {
        std::fs::write(dir.join("classes").join(format!("{n}.toml")), text).unwrap();
    }
    dir
}

/// Loads `schemas/<name>`, panicking with every diagnostic on failure.
pub fn schema(name: &str) -> Schema {
    Schema::load(schemas().join(name)).unwrap_or_else(|d| panic!("schema {name}:\n{d}"))
}

/// The corpus folder, or `None` (after printing why) when it is missing outside CI.
///
/// # Panics
/// When the corpus is missing and `CI=true`.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("HK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus"));
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{test}: corpus not found at {} (set HK_CORPUS); CI=true requires it",
            dir.display()
        );
    }
    // Straight to the process's stderr: the test harness captures `eprintln!` of passing
    // tests, and a skip must be seen.
    let _ = writeln!(
        std::io::stderr(),
        "{test}: SKIPPED, corpus not found at {} (set HK_CORPUS)",
        dir.display()
    );
    None
}

/// The folder of public type dumps (`HK_REFERENCE`, default `../shared/reference` from the
/// workspace root), or `None` (after printing why) when it is missing outside CI: the same
/// rule as [`corpus`].
///
/// # Panics
/// When the folder is missing and `CI=true`.
pub fn reference(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("HK_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/reference"));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{test}: reference dumps not found at {} (set HK_REFERENCE); CI=true requires them",
            dir.display()
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "{test}: SKIPPED, reference dumps not found at {} (set HK_REFERENCE)",
        dir.display()
    );
    None
}

/// The `.hkx` files of a corpus folder, sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hkx"))
        .collect();
    v.sort();
    v
}

/// Reads a file.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema folder matching a packfile's header.
pub fn schema_for(pf: &Packfile<'_>) -> Schema {
    let dir = catalog::for_version(
        &schemas(),
        pf.header.file_version,
        &pf.header.contents_version(),
    )
    .expect("a schema folder matches");
    Schema::load(&dir).unwrap_or_else(|d| panic!("{}:\n{d}", dir.display()))
}

/// A fresh empty folder under the system temp dir, removed when the value is dropped (also
/// when the test panics), so test runs leave nothing behind. It derefs to its [`Path`].
#[derive(Debug)]
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A fresh empty folder named after `name`; see [`Scratch`].
pub fn temp_dir(name: &str) -> Scratch {
    let prefix = format!("hk-test-{name}-");
    Scratch(
        tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir()
            .expect("temp dir"),
    )
}

/// Every Havok packfile under `dir` (by magic), sorted.
pub fn packfiles(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .flatten()
        {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read(&p)
                .is_ok_and(|b| b.starts_with(&hk_runtime::packfile::header::MAGIC))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Reads a packfile into a graph with the schema folder its header names, and the
/// container facts that write it back.
pub fn graph_of(
    data: &[u8],
) -> hk_runtime::Result<(hk_runtime::graph::Graph, hk_runtime::packfile::PackfileInfo)> {
    let pf = Packfile::parse(data)?;
    let schema = std::sync::Arc::new(schema_for(&pf));
    let d = hk_runtime::packfile::graph::read::read(&pf, &schema, Default::default())?;
    Ok((d.graph, d.info))
}

/// The corpus folder a file belongs to, for per-folder counts (`packfile/havoklib-710`).
pub fn folder_of(corpus: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(corpus).unwrap_or(file);
    rel.parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// The 24 classes of the Havok 7.1 files and their signatures (docs/collision-notes.md §1.1,
/// the 7.1.0-r1 columns).
pub const SIGNATURES_71: [(&str, u32); 24] = [
    ("hkClass", 0x14425E51),
    ("hkClassMember", 0x4A986551),
    ("hkClassEnum", 0x8A3609CF),
    ("hkClassEnumItem", 0xCE6F8A6C),
    ("hkRootLevelContainer", 0x2772C11E),
    ("hkpPhysicsData", 0xC2A461E4),
    ("hkpPhysicsSystem", 0xFF724C17),
    ("hkpRigidBody", 0xAA8C3B19),
    ("hkpMoppBvTreeShape", 0x90B29D39),
    ("hkpMoppCode", 0x924C2661),
    ("hkpStorageExtendedMeshShape", 0x3D52E7D2),
    ("hkpStorageExtendedMeshShapeMeshSubpartStorage", 0x5AAD4DE6),
    ("hkpConvexVerticesShape", 0x4E8AB2B7),
    ("hkpConvexVerticesConnectivity", 0x63D38E9C),
    ("hkpConvexTranslateShape", 0x5BA0A5F7),
    ("hkpBoxShape", 0x3444D2D5),
    ("hkpCylinderShape", 0x3E463C3A),
    ("hkpSphereShape", 0x0795D9FA),
    ("hkpCapsuleShape", 0xDD0B1FD3),
    ("hkpListShape", 0xA1937CBD),
    ("hkpConstraintInstance", 0x4FB4E6BB),
    ("hkpRagdollConstraintData", 0x17A4D42F),
    ("hkpLimitedHingeConstraintData", 0x1C566B11),
    ("hkpBreakableConstraintData", 0x7034BDB6),
];

/// The corpus tagfiles: 4 bare DSR TAG0 files (SDK 2015.1) and 2 TotK cloth files in phive
/// wrappers (2022.1).
pub const TAGFILES: [&str; 6] = [
    "games/dark-souls-remastered/c2240_ragdoll.hkx",
    "games/dark-souls-remastered/c2240_skeleton.hkx",
    "games/dark-souls-remastered/c2240_a00_3000.hkx",
    "games/dark-souls-remastered/map_collision_template.hkx",
    "games/totk/Armor_225_Head.bphcl",
    "games/totk/Armor_999_Head.bphcl",
];

/// A seeded xorshift64 generator, for reproducible corruptions.
pub fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// `data` with 1 to 3 random bytes overwritten.
pub fn corrupt(data: &[u8], next: &mut impl FnMut() -> u64) -> Vec<u8> {
    let mut bad = data.to_vec();
    for _ in 0..1 + next() % 3 {
        let at = (next() % bad.len() as u64) as usize;
        bad[at] = next() as u8;
    }
    bad
}

/// A legitimate packfile of any size, written by hk's own writer from the shipped Havok 7.1
/// schema: one `hkaSkeleton` whose `parentIndices` (an `array<int16>`) holds `n` values
/// (`n` = 5,242,880 makes the 10 MiB array of the memory tests).
pub fn int16_packfile(n: usize) -> Vec<u8> {
    use hk_runtime::graph::{Array, Graph, Value};
    use hk_runtime::packfile::PackfileInfo;
    let schemas = hk_runtime::file::Schemas::from_dir(&schemas()).expect("schema folders");
    let schema = schemas.load("havok-7.1").expect("havok-7.1");
    let mut graph = Graph::new(std::sync::Arc::clone(&schema));
    let sk = graph.add_object("hkaSkeleton").expect("hkaSkeleton");
    graph
        .set(sk, "name", Value::String(Some("big".into())))
        .expect("name");
    // Every int16 value, in a pattern that needs every digit count.
    let values: Vec<i16> = (0..n)
        .map(|i| (i as u32).wrapping_mul(40503) as i16)
        .collect();
    graph
        .set(sk, "parentIndices", Value::Array(Array::I16(values)))
        .expect("parentIndices");
    let g = &schema.generation;
    hk_runtime::packfile::graph::write::write(&graph, &PackfileInfo::new(g, g.layout))
        .expect("write")
}
