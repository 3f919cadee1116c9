//! Helpers of the `hk` binary's tests: running the built binary, reading glTF and PNG
//! output. The workspace root, the corpus and scratch folders come from `hk_tests`.

use std::path::Path;
use std::process::Command;

/// The `hk` binary this test run built, as a command to add arguments to.
pub fn command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hk"))
}

/// Runs `cmd`: (exit code, stdout, stderr).
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run hk");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `hk ARGS` with the built-in schemas and game profiles, whatever the environment says:
/// (exit code, stdout, stderr).
pub fn hk(args: &[&str]) -> (i32, String, String) {
    run(command()
        .args(args)
        .env_remove("HK_SCHEMAS")
        .env_remove("HK_GAMES"))
}

/// A glTF or GLB file read and validated by the `gltf` crate, with its buffers' bytes (the
/// GLB's BIN chunk, or a glTF's inline base64 buffer).
pub fn gltf_read(path: &Path) -> (gltf::Gltf, Vec<Vec<u8>>) {
    use base64::Engine as _;
    let bytes = std::fs::read(path).unwrap();
    let doc = gltf::Gltf::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{}: not valid glTF: {e}", path.display()));
    let buffers = doc
        .buffers()
        .map(|b| match b.source() {
            gltf::buffer::Source::Bin => doc.blob.clone().expect("a GLB's BIN chunk"),
            gltf::buffer::Source::Uri(uri) => base64::engine::general_purpose::STANDARD
                .decode(
                    uri.strip_prefix("data:application/octet-stream;base64,")
                        .expect("the buffer inline"),
                )
                .unwrap(),
        })
        .collect();
    (doc, buffers)
}

/// Runs `hk render FILE -o PNG --size WxH`, checks that it succeeds and writes a picture of
/// that size, and gives its standard output and how many pixels are not the background.
pub fn render_drawn(file: &Path, png: &Path, (w, h): (u32, u32)) -> (String, usize) {
    let size = format!("{w}x{h}");
    let (code, out, err) = hk(&[
        "render",
        file.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        &size,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let p = tiny_skia::Pixmap::load_png(png).unwrap();
    assert_eq!((p.width(), p.height()), (w, h));
    let bg = hk_gen::collision::render::background();
    let drawn = p
        .pixels()
        .iter()
        .filter(|c| [c.red(), c.green(), c.blue()] != bg)
        .count();
    (out, drawn)
}
