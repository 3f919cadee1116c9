#!/usr/bin/env python3
"""Interop check: soulstruct-havok reads what hk writes.

Run through tests/interop/soulstruct.sh, which makes the virtualenv. For every
Havok file of the corpus (the *original*) and every file of samples/:

  * control: soulstruct-havok reads the original and gives its root tree
    (`get_root_tree_string()`). An original it cannot read is skipped, with the
    reason, and counts neither way;
  * rebuild: `hk dump` then `hk build` of the original;
  * convert: `hk convert --layout L` of a packfile into every other layout L
    in which the reader reads an original of the same Havok version holding
    all of its classes (the reader's modules are written for the layouts the
    games use, so a layout no original shows is not asked of it);

and each hk output must read in soulstruct-havok and give the same tree as the
original, up to the byte order numpy prints in array types (`dtype='>f4'` and
`dtype=float32` are the same values). Files in samples/ are hk's own: their
control is reading them at all; a sample of a version or class soulstruct-havok
has no module for is skipped with that reason.

Exit status 1 if any check fails, or if no check passed at all.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing as mp
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# This file is named soulstruct.py: keep `import soulstruct` from finding it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

PACKFILE_MAGIC = bytes.fromhex("57e0e05710c0c010")
NEVER_EXTS = {".xml", ".tsv", ".txt", ".md", ".json", ".csv", ".png", ".obj"}
# Errors that say the reader has no support for a version or class, not that
# the file is wrong. Used only for hk's own samples, which have no original.
UNSUPPORTED = re.compile(
    r"VersionModuleError|TypeNotDefinedError|is not a valid PackFileVersion"
)
DTYPE = re.compile(r"dtype=(?:'[<>|=]?([a-z])(\d+)'|([a-z]+)(\d+))")
# hk's documented refusal to lay out a class for another platform
# (docs/conversion.md): not an output, so not judged.
HK_REFUSES = re.compile(r"cannot be laid out for")
NUMPY_KIND = {"float": "f", "int": "i", "uint": "u"}


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def bare_tagfile(data: bytes) -> bytes:
    """A TAG0 file inside an id Tech cm or phive container, else the data."""
    if data.startswith(PACKFILE_MAGIC) or data[4:8] == b"TAG0":
        return data
    at = data.find(b"TAG0", 4, 256) - 4
    if at < 0:
        return data
    size = int.from_bytes(data[at : at + 4], "big") & 0x3FFFFFFF
    return data[at : at + size] if at + size <= len(data) else data


def is_havok(path: Path) -> bool:
    if path.suffix.lower() in NEVER_EXTS:
        return False
    with path.open("rb") as f:
        head = f.read(256)
    return head.startswith(PACKFILE_MAGIC) or b"TAG0" in head


# `# <N>` after an object names its index in the reader's own list, which
# differs between two reads of the same file.
OBJECT_INDEX = re.compile(r"# <\d+>")


def normalise(tree: str) -> str:
    def one(m: re.Match) -> str:
        kind, bits = (m.group(1), int(m.group(2))) if m.group(1) else (
            NUMPY_KIND.get(m.group(3), m.group(3)), int(m.group(4)) // 8)
        return f"dtype={kind}{bits}"
    # numpy wraps lines by the length of its dtype text: compare blank-insensitively.
    return " ".join(OBJECT_INDEX.sub("# <>", DTYPE.sub(one, tree)).split())


def _read_child(conn, data: bytes) -> None:
    # The reader prints tracebacks of its own: keep them out of the report.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        from soulstruct.havok.core import HKX

        tree = HKX.from_bytes(data).get_root_tree_string()
        conn.send(("ok", normalise(tree)))
    except BaseException as e:  # noqa: BLE001 - everything the reader raises is a result
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        conn.send(("error", f"{type(e).__name__}: {first}"[:300]))


def soulstruct_tree(data: bytes, timeout: float) -> tuple[str | None, str]:
    """(tree, "") or (None, reason), read in a forked child with a time limit."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_read_child, args=(child, bare_tagfile(data)))
    proc.start()
    child.close()
    if not parent.poll(timeout):
        proc.kill()
        proc.join()
        return None, f"no answer in {timeout:.0f} s"
    kind, value = parent.recv()
    proc.join()
    return (value, "") if kind == "ok" else (None, value)


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def say(self, verdict: str, case: str, name: str, why: str = "") -> None:
        setattr(self, verdict, getattr(self, verdict) + 1)
        word = {"passed": "pass", "failed": "FAIL", "skipped": "skip"}[verdict]
        print(f"{word:4}  {case:14}  {name}" + (f"  ({why})" if why else ""), flush=True)


def hk(*args: str) -> str:
    """Runs hk; '' on success, else its last error line."""
    run = subprocess.run([os.environ["HK_BIN"], *args], capture_output=True, text=True)
    if run.returncode == 0:
        return ""
    lines = run.stderr.strip().splitlines() or [f"exit {run.returncode}"]
    return "hk: " + lines[-1][:300]


def packfile_version(data: bytes) -> tuple[str, str] | None:
    """(contents version, layout digits as `hk convert --layout` takes them)."""
    if not data.startswith(PACKFILE_MAGIC) or len(data) < 0x38:
        return None
    version = data[0x28:0x38].split(b"\0")[0].decode("ascii", "replace")
    return version, "".join(str(b) for b in data[0x10:0x14])


def classes(src: Path, work: Path) -> frozenset[str]:
    """The classes of src's objects, from `hk dump`."""
    out = work / "classes.json"
    if hk("dump", str(src), "-o", str(out)):
        return frozenset()
    return frozenset(o["class"] for o in json.loads(out.read_text())["objects"])


def outputs(src: Path, work: Path, layouts: list[str]) -> list[tuple[str, Path | None, str]]:
    """(case, hk's output file, hk's error) for every output made from src."""
    made = []
    dump, rebuilt = work / "dump.json", work / f"rebuilt{src.suffix}"
    err = hk("dump", str(src), "-o", str(dump)) or hk("build", str(dump), "-o", str(rebuilt))
    made.append(("rebuild", None if err else rebuilt, err))
    for layout in layouts:
        out = work / f"{layout}{src.suffix}"
        err = hk("convert", "--layout", layout, str(src), "-o", str(out))
        made.append((f"convert {layout}", None if err else out, err))
    return made


def control(src: Path, own: bool, tally: Tally, name: str, args) -> str | None:
    """The original's tree, or None (counted) when the reader cannot read it."""
    tree, why = soulstruct_tree(src.read_bytes(), args.timeout)
    if tree is None:
        if own and not UNSUPPORTED.search(why):
            tally.say("failed", "read", name, why)
        else:
            tally.say("skipped", "control", name, f"soulstruct-havok cannot read it: {why}")
    return tree


def first_difference(want: str, got: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    return f"tree differs at character {at}: {want[max(0, at - 40):at + 40]!r} vs {got[max(0, at - 40):at + 40]!r}"


def check(src: Path, name: str, tree: str, layouts: list[str], tally: Tally, args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for case, out, err in outputs(src, Path(tmp), layouts):
            if out is None:
                if HK_REFUSES.search(err):
                    tally.say("skipped", case, name, f"hk refuses it, as documented: {err[:160]}")
                else:
                    tally.say("failed", case, name, err)
                continue
            got, why = soulstruct_tree(out.read_bytes(), args.timeout)
            if got is None:
                tally.say("failed", case, name, why)
            elif got != tree:
                tally.say("failed", case, name, first_difference(tree, got))
            else:
                tally.say("passed", case, name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="?", default=os.environ.get("HK_CORPUS", str(REPO.parent / "shared" / "corpus")))
    ap.add_argument("--samples", default=str(REPO / "samples"))
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds one read may take")
    args = ap.parse_args()

    corpus = Path(args.corpus)
    ci = os.environ.get("CI", "") == "true"
    if not corpus.is_dir():
        msg = f"corpus not found at {corpus} (set HK_CORPUS)"
        if ci:
            log(f"error: {msg}")
            return 1
        log(f"skipping the corpus: {msg}")
    # Imported once here, so that every forked reader starts with it loaded.
    logging.disable(logging.CRITICAL)
    import soulstruct.havok.core  # noqa: F401

    tally = Tally()
    originals = sorted(p for p in corpus.rglob("*") if p.is_file() and is_havok(p)) if corpus.is_dir() else []
    log(f"soulstruct interop: {len(originals)} corpus files, samples from {args.samples}")
    # Controls first. A packfile is converted into the layouts in which the
    # reader reads an original of the same Havok version holding all of its
    # classes: its modules are written for the layouts the games use.
    read: list[tuple[Path, str, str]] = []
    shown: list[tuple[str, str, frozenset[str]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in originals:
            name = str(p.relative_to(corpus))
            tree = control(p, False, tally, name, args)
            if tree is not None:
                read.append((p, name, tree))
                if (v := packfile_version(p.read_bytes())) is not None:
                    shown.append((*v, classes(p, Path(tmp))))
        for p, name, tree in read:
            v = packfile_version(p.read_bytes())
            mine = classes(p, Path(tmp)) if v else frozenset()
            targets = sorted({lay for ver, lay, has in shown if v and ver == v[0] and lay != v[1] and mine <= has})
            check(p, name, tree, targets, tally, args)
    for p in sorted(Path(args.samples).glob("*")):
        if p.is_file() and is_havok(p):
            name = f"samples/{p.name}"
            tree = control(p, True, tally, name, args)
            if tree is not None:
                check(p, name, tree, [], tally, args)
    print(f"\nsoulstruct-havok interop: {tally.passed} passed, {tally.failed} failed, "
          f"{tally.skipped} skipped (the reader cannot read the original, or hk refuses the layout)")
    if tally.failed:
        return 1
    if tally.passed == 0 and (ci or originals):
        log("error: no check passed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
