//! `hk render` draws any size it takes within the memory rule of every read (16 times the
//! input plus 64 MiB, or `--max-memory`), in strips (docs/collision.md).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::support::{command, hk};
use hk_tests::{root, temp_dir};

/// The peak resident memory (`VmHWM`) of a running process, in bytes.
fn peak(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs `hk ARGS`, watching its peak memory: (exit code, stderr, the largest peak seen).
fn hk_peak(args: &[&str]) -> (i32, String, u64) {
    let mut child = command()
        .args(args)
        .env_remove("HK_SCHEMAS")
        .env_remove("HK_GAMES")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hk");
    let mut most = 0;
    while child.try_wait().expect("wait").is_none() {
        if let Some(p) = peak(child.id()) {
            most = most.max(p);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let out = child.wait_with_output().expect("output");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        most,
    )
}

#[test]
fn render_of_the_largest_size_stays_within_the_memory_rule() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("SKIPPED: no /proc to read a process's peak memory from");
        return;
    }
    let dir = temp_dir("render-memory");
    let level = root().join("samples/havok-710_level.hkx");
    let png = dir.join("big.png");
    let (code, err, most) = hk_peak(&[
        "render",
        level.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        "4096x4096",
    ]);
    assert_eq!(code, 0, "{err}");
    // The rule for a 13 KB file: 64 MiB and 16 times the file. The picture alone is 64 MiB
    // (256 MiB drawn at twice the size); drawn in strips, the process stays well below.
    let rule = 64 << 20;
    assert!(
        most > 0 && most < rule,
        "peak {} MiB against {} MiB",
        most >> 20,
        rule >> 20
    );
    let p = tiny_skia::Pixmap::load_png(&png).unwrap();
    assert_eq!((p.width(), p.height()), (4096, 4096));
    let bg = hk_gen::collision::render::background();
    let drawn = p
        .pixels()
        .iter()
        .filter(|c| [c.red(), c.green(), c.blue()] != bg)
        .count();
    assert!(drawn > 4096 * 4096 / 20, "{drawn} pixels drawn");
}

/// The picture drawn in strips is the picture drawn whole: a budget that allows strips of
/// 75 rows gives the same picture as one strip, and one too small for a row of the picture
/// is refused, naming the size and `--max-memory`.
#[test]
fn render_in_strips_gives_the_same_picture_and_refuses_past_the_budget() {
    let dir = temp_dir("render-in-parts");
    let level = root().join("samples/havok-710_level.hkx");
    let l = level.to_str().unwrap();
    let (w, h) = (640usize, 480usize);
    for wireframe in [false, true] {
        let mut pictures = Vec::new();
        for budget in [None, Some("2M")] {
            let png = dir.join(format!("{wireframe}-{}.png", budget.is_some()));
            let mut args = Vec::new();
            if let Some(b) = budget {
                args.extend(["--max-memory", b]);
            }
            args.extend([
                "render",
                l,
                "-o",
                png.to_str().unwrap(),
                "--size",
                "640x480",
            ]);
            if wireframe {
                args.push("--wireframe");
            }
            let (code, text, err) = hk(&args);
            assert_eq!(code, 0, "{text}{err}");
            // 2 MiB leave about 75 rows of 640 pixels a strip, after the encoder's 1 MiB.
            assert_eq!(budget.is_some(), text.contains(" in 7 strips, "), "{text}");
            pictures.push(tiny_skia::Pixmap::load_png(&png).unwrap());
        }
        // A triangle is set up from coordinates shifted to its strip, so a pixel on an
        // edge may round either way; but no row may be left out, repeated or cut.
        let mut rows = vec![0; h];
        for (i, (a, b)) in pictures[0]
            .pixels()
            .iter()
            .zip(pictures[1].pixels())
            .enumerate()
        {
            if a != b {
                rows[i / w] += 1;
            }
        }
        let differ: usize = rows.iter().sum();
        let worst = rows.iter().max().copied().unwrap_or(0);
        assert!(
            differ <= w * h / 200 && worst <= w / 10,
            "wireframe {wireframe}: {differ} pixels differ, {worst} in one row"
        );
    }
    let no = dir.join("no.png");
    let (code, text, err) = hk(&[
        "--max-memory",
        "1M",
        "render",
        l,
        "-o",
        no.to_str().unwrap(),
        "--size",
        "4096x4096",
    ]);
    assert_eq!(code, 2, "{text}{err}");
    assert!(
        err.contains("4096x4096") && err.contains("--max-memory"),
        "{err}"
    );
    assert!(!no.exists());
}
