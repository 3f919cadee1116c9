"""The corpus for the Python tests, found as the Rust tests find it (tests/lib.rs):
``HK_CORPUS``, else ``../shared/corpus`` beside the repository. Without it a test skips
with a message; under ``CI=true`` it fails. Also the ``hk`` binary (``HK_BIN``) the tests
compare the Python results with."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]

# Files the tests read, as MANIFEST.tsv lists them.
DES_MAP = "games/demons-souls-ps3/map_collision_h0004b0.hkx"
PTDE_MAP = "games/dark-souls-ptde/map_collision_template.hkx"
ALLOSAUR = "packfile/havoklib-2010_2/allosaur[4011].hkx"
ALLOSAUR_RUN = "packfile/havoklib-2010_2/allosaur_run[4011].hkx"


def corpus() -> Path:
    """The corpus folder, or a skip (a failure under CI=true)."""
    d = Path(os.environ.get("HK_CORPUS", REPO.parent / "shared" / "corpus"))
    if (d / "MANIFEST.tsv").is_file():
        return d
    msg = f"corpus not found at {d} (set HK_CORPUS)"
    if os.environ.get("CI") == "true":
        pytest.fail(msg + "; CI=true requires it")
    pytest.skip("SKIPPED, " + msg)


def corpus_file(rel: str) -> Path:
    """A file of the corpus (skipping as :func:`corpus` does)."""
    return corpus() / rel


def havok_files() -> List[Path]:
    """Every file the manifest lists."""
    d = corpus()
    rows = (d / "MANIFEST.tsv").read_text().splitlines()[1:]
    return [d / r.split("\t")[0] / r.split("\t")[1] for r in rows if r.strip()]


def hk_bin() -> Optional[str]:
    """The hk binary: ``HK_BIN``, else target/{release,debug}/hk, else ``hk`` on PATH."""
    if os.environ.get("HK_BIN"):
        return os.environ["HK_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for p in (target / "release" / "hk", target / "debug" / "hk"):
        if p.is_file():
            return str(p)
    return shutil.which("hk")


def run_hk(*args: str) -> subprocess.CompletedProcess:
    """Runs the hk binary (skipping without one; a failure under CI=true)."""
    exe = hk_bin()
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no hk binary (set HK_BIN); CI=true requires it")
        pytest.skip("SKIPPED, no hk binary (set HK_BIN)")
    return subprocess.run([exe, *args], capture_output=True, text=True)


def anim_pose(path: Path, skeleton: Path, time: float) -> dict:
    """``hk anim --time``'s pose: bone name → (translation, rotation xyzw, scale)."""
    r = run_hk("anim", str(path), "--skeleton", str(skeleton), "--time", repr(time))
    assert r.returncode == 0, r.stderr
    out = {}
    for line in r.stdout.splitlines()[1:]:
        name, rest = line.split(": translation ", 1)
        t, rest = rest.split(" rotation ", 1)
        q, rest = rest.split(" scale ", 1)
        s = rest.split(" (", 1)[0] if rest.count("(") > 1 else rest

        def nums(x: str) -> List[float]:
            return [float(v) for v in x.strip().strip("()").split(",")]

        out[name] = (nums(t), nums(q), nums(s.split(")")[0] + ")"))
    return out
