#!/usr/bin/env python3
"""Read-speed comparison: hk against the Python library soulstruct-havok.

Run through bench/soulstruct.sh, which makes the virtualenv this needs.
Standard library only, apart from soulstruct-havok itself (imported lazily,
so `--help` works without it).

For every Havok file under the corpus:
  * soulstruct-havok reads it from bytes already in memory with
    `soulstruct.havok.HKX.from_bytes(data)`, in a forked child process with a
    time limit, so a crash or a hang on one file only costs that file;
  * a file it reads is timed: one warm-up read, then reads until there are at
    least --min-runs of them and they add up to at least --min-time seconds;
    the median is kept;
  * hk then times the same files, one `hk bench --json --rounds R FILE...`
    per corpus folder, and its `read_mb_s` is the hk figure.

Markdown goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# This file is named soulstruct.py: take its folder off the import path so that
# `import soulstruct` finds the library, not this script.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

# File name endings that hold Havok packfiles or tagfiles in the corpus
# (.hkcl and .bphcl are cloth data; .bphcl is a Phive container around a
# tagfile).  Files with other endings are still taken if they start with a
# Havok magic number; .xml (Havok XML) and the corpus's own text files are not.
HAVOK_EXTS = {".hkx", ".hkt", ".hkcl", ".bphcl", ".hkp", ".hko", ".hkm", ".hka"}
NEVER_EXTS = {".xml", ".tsv", ".txt", ".md", ".json", ".csv"}

PACKFILE_MAGIC = bytes.fromhex("57e0e05710c0c010")
OLD_TAGFILE_MAGIC = bytes.fromhex("1e0db0cacefa11d0")  # 0xCAB00D1E 0xD011FACE, little-endian
TAGFILE_TAGS = {b"TAG0", b"TCM0", b"TST0"}
PHIVE_MAGIC = b"Phive\0"

MB = 1e6  # hk bench reports decimal megabytes; so does this script


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def looks_like_havok(head: bytes) -> bool:
    return (
        head.startswith(PACKFILE_MAGIC)
        or head.startswith(OLD_TAGFILE_MAGIC)
        or head.startswith(PHIVE_MAGIC)
        or head[4:8] in TAGFILE_TAGS
    )


def find_havok_files(corpus: Path) -> list[Path]:
    found = []
    for p in sorted(corpus.rglob("*")):
        if not p.is_file():
            continue
        ext = p.suffix.lower()
        if ext in NEVER_EXTS:
            continue
        if ext in HAVOK_EXTS:
            found.append(p)
            continue
        try:
            with p.open("rb") as f:
                head = f.read(16)
        except OSError:
            continue
        if looks_like_havok(head):
            found.append(p)
    return found


@dataclass
class FileResult:
    path: str  # relative to the corpus
    group: str
    bytes: int
    ok: bool = False
    error: str = ""  # why soulstruct-havok did not read it
    hk_open_s: float | None = None  # median hk.open(data) seconds (--python-hk)
    warmup_s: float | None = None
    times_s: list[float] = field(default_factory=list)
    median_s: float | None = None
    mb_s: float | None = None


# --------------------------------------------------------------------------
# soulstruct-havok side


def import_soulstruct():
    """Imports soulstruct-havok quietly; returns (read function, versions)."""
    import importlib.metadata as md
    import logging

    # soulstruct logs a warning about a Windows-only DLL at import, to stdout;
    # keep the import's chatter out of the report, but show it if it fails.
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        os.dup2(tmp.fileno(), 2)
        try:
            from soulstruct.havok import HKX  # noqa: PLC0415
        except BaseException:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[1], 2)
            tmp.seek(0)
            sys.stderr.write(tmp.read().decode(errors="replace"))
            raise
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
    logging.disable(logging.CRITICAL)
    # soulstruct installs its own excepthook that logs; restore the default.
    sys.excepthook = sys.__excepthook__
    versions = {"soulstruct-havok": md.version("soulstruct-havok")}
    try:
        versions["soulstruct"] = md.version("soulstruct")
    except md.PackageNotFoundError:
        pass
    return HKX.from_bytes, versions


def _child(conn, path: str, read, min_runs: int, min_time: float, max_runs: int, log_path: str):
    """Runs in the forked child: warm-up read, then the timed reads."""
    code = 0
    try:
        # soulstruct prints tracebacks and tables when it fails; send all of
        # it to a file the parent can quote if the child dies.
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        data = Path(path).read_bytes()  # disk I/O happens here, untimed
        try:
            t0 = time.perf_counter()
            obj = read(data)
            t1 = time.perf_counter()
            if getattr(obj, "root", None) is None:
                raise ValueError("read returned no root object")
        except BaseException as e:  # noqa: BLE001 - any failure means "does not read"
            conn.send(("error", f"{type(e).__name__}: {e}"))
            return
        del obj
        conn.send(("warm", t1 - t0))
        times: list[float] = []
        while len(times) < max_runs and (len(times) < min_runs or sum(times) < min_time):
            gc.collect()  # the previous result's garbage is not this read's cost
            t0 = time.perf_counter()
            obj = read(data)
            t1 = time.perf_counter()
            del obj
            times.append(t1 - t0)
        conn.send(("done", times))
    except BaseException as e:  # noqa: BLE001
        try:
            conn.send(("error", f"{type(e).__name__}: {e}"))
        except BaseException:  # noqa: BLE001
            code = 3
    finally:
        try:
            conn.close()
        finally:
            os._exit(code)  # skip atexit hooks inherited from the parent


def _tail(path: str, n: int = 3) -> str:
    try:
        lines = Path(path).read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in lines[-n:])


def one_child(abspath: Path, read, args, ctx) -> tuple[float | None, list[float], str]:
    """One forked child's warm-up and timed reads: (warm-up s, times, error)."""
    with tempfile.NamedTemporaryFile(prefix="hk-bench-", suffix=".log", delete=False) as t:
        log_path = t.name
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=_child,
        args=(send, str(abspath), read, args.min_runs, args.min_time, args.max_runs, log_path),
        daemon=True,
    )
    proc.start()
    send.close()
    warm: float | None = None
    error = ""

    def wait(limit: float):
        """Next message, or None (and the child is killed) on a time-out or crash."""
        nonlocal error
        if recv.poll(limit):
            try:
                return recv.recv()
            except EOFError:
                pass
            proc.join(5)
            code = proc.exitcode
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            tail = _tail(log_path)
            error = f"crashed ({how})" + (f": {tail}" if tail else "")
            return None
        error = f"timed out after {limit:.0f} s"
        return None

    try:
        msg = wait(args.timeout)
        if msg is not None and msg[0] == "warm":
            warm = msg[1]
            # The timed phase is at least min_runs reads of about the warm-up's length.
            limit = args.timeout + (args.min_runs + 1) * max(warm, args.min_time) * 3
            msg = wait(limit)
        if msg is None:
            pass
        elif msg[0] == "error":
            error = msg[1].splitlines()[0][:300] if msg[1] else "error"
        elif msg[0] == "done":
            return warm, msg[1], ""
        return warm, [], error or "no result"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
        try:
            os.unlink(log_path)
        except OSError:
            pass


def time_soulstruct(res: FileResult, abspath: Path, read, args, ctx) -> None:
    """Fills in res. A file soulstruct reads is timed in --forks separate
    children and their timed reads pooled: one process's speed can sit 30%
    off another's (memory layout), while reads within one agree closely."""
    for k in range(args.forks):
        warm, times, error = one_child(abspath, read, args, ctx)
        if error:
            res.error = error if k == 0 else f"failed on repeat {k + 1}: {error}"
            res.times_s = []
            return
        if res.warmup_s is None:
            res.warmup_s = warm
        res.times_s.extend(times)
    res.median_s = statistics.median(res.times_s)
    res.mb_s = res.bytes / MB / res.median_s if res.median_s > 0 else None
    res.ok = True


# --------------------------------------------------------------------------
# hk's Python package (--python-hk)


def time_hk_open(data: bytes, args) -> float | None:
    """The median seconds of `hk.open(data)` (the Python package, hk-py), timed as
    soulstruct is: one warm-up read, then at least --min-runs reads and --min-time
    seconds. None when hk does not read the file."""
    import hk  # noqa: PLC0415

    try:
        hk.open(data)
    except hk.Error:
        return None
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < args.min_runs or (time.perf_counter() - start < args.min_time and len(times) < args.max_runs):
        t = time.perf_counter()
        hk.open(data)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


# --------------------------------------------------------------------------
# hk side


def run_hk(hk_bin: str, files: list[Path], rounds: int) -> dict:
    """One `hk bench --json`; returns its JSON object or exits with a message."""
    cmd = [hk_bin, "bench", "--json", "--rounds", str(rounds), *map(str, files)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        sys.exit(f"error: could not run hk ({hk_bin}): {e}")
    try:
        out = json.loads(proc.stdout)
        if not isinstance(out, dict):
            raise ValueError("not a JSON object")
        for key in ("files", "bytes", "read_mb_s"):
            if key not in out:
                raise ValueError(f"no {key!r} key")
        int(out["files"])
        int(out["bytes"])
        if out["read_mb_s"] is not None:  # null: hk read none of the files
            float(out["read_mb_s"])
    except (ValueError, TypeError) as e:
        first = (proc.stdout.strip().splitlines() or ["(nothing)"])[0][:200]
        err = proc.stderr.strip()[:500]
        sys.exit(
            "error: `hk bench --json` did not print the expected JSON object "
            f"({e}).\n"
            f"  command: {hk_bin} bench --json --rounds {rounds} <{len(files)} files>\n"
            f"  exit code: {proc.returncode}\n"
            f"  stdout starts: {first}\n"
            + (f"  stderr: {err}\n" if err else "")
            + "This script needs an hk whose `bench` subcommand has the --json flag "
            "(one JSON object on stdout with at least files, bytes and read_mb_s). "
            "Point $HK_BIN at such a build."
        )
    if proc.returncode != 0:
        sys.exit(f"error: hk bench exited with code {proc.returncode}: {proc.stderr.strip()[:500]}")
    return out


def hk_rounds_for(group_bytes: int, args) -> int:
    if args.hk_rounds:
        return args.hk_rounds
    # Enough passes that hk processes at least --hk-min-mb per group.
    return max(3, min(100000, math.ceil(args.hk_min_mb * MB / max(group_bytes, 1))))


# --------------------------------------------------------------------------
# report


def fmt(x: float | None, digits: int) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def reason_key(error: str) -> str:
    """Error text with offsets and other long numbers blanked, for grouping."""
    s = re.sub(r"0x[0-9a-fA-F]+", "…", error)
    s = re.sub(r"(?<![\w.])\d{3,}(?![\w.])", "…", s)
    return s[:160]


def md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def python_hk_lines(results: list[FileResult], groups: dict, hk_out: dict, every_cli: float | None) -> list[str]:
    """The Markdown of --python-hk: hk.open's MB/s on every file it reads, on the files
    soulstruct reads (against soulstruct), and against `hk bench` on those files."""
    import hk  # noqa: PLC0415

    def rate(rs: list[FileResult]) -> float | None:
        t = sum(r.hk_open_s for r in rs)
        return sum(r.bytes for r in rs) / MB / t if rs and t > 0 else None

    every = [r for r in results if r.hk_open_s is not None]
    both = [r for r in every if r.ok]
    ss_t = sum(r.median_s for r in both)
    ss = sum(r.bytes for r in both) / MB / ss_t if ss_t > 0 else None
    cli_t = 0.0
    cli_ok = True
    for g, rs in groups.items():
        ok = [r for r in rs if r.ok and r.hk_open_s is not None]
        v = hk_out.get(g, {}).get("read_mb_s")
        if ok and v:
            cli_t += sum(r.bytes for r in ok) / MB / float(v)
        elif ok:
            cli_ok = False
    cli = sum(r.bytes for r in both) / MB / cli_t if cli_t > 0 and cli_ok else None
    py = rate(both)
    out = ["", f"hk's Python package (hk {hk.__version__}): `hk.open(data)` from bytes in memory, per file the "
               "median of at least --min-runs reads after a warm-up, in this process.", "",
           "| files | MB | hk.open MB/s | soulstruct MB/s | hk.open ÷ soulstruct | hk bench MB/s | hk.open ÷ hk bench |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
           f"| every file hk.open reads: {len(every)} / {len(results)} | {fmt(sum(r.bytes for r in every) / MB, 3)} "
           f"| {fmt(rate(every), 1)} | – | – | {fmt(every_cli, 1)} "
           f"| {fmt(rate(every) / every_cli if rate(every) and every_cli else None, 2)} |",
           f"| the files soulstruct reads: {len(both)} | {fmt(sum(r.bytes for r in both) / MB, 3)} | {fmt(py, 1)} "
           f"| {fmt(ss, 2)} | {fmt(py / ss if py and ss else None, 1)}× | {fmt(cli, 1)} "
           f"| {fmt(py / cli if py and cli else None, 2)} |"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description="Compare read+decode speed of hk and soulstruct-havok on the Havok corpus.",
    )
    ap.add_argument(
        "corpus",
        nargs="?",
        help="corpus folder (default: $HK_CORPUS, else ../shared/corpus from the repo root)",
    )
    ap.add_argument("--json", metavar="OUT", help="also write the raw per-file results to OUT")
    ap.add_argument("--hk-bin", default=os.environ.get("HK_BIN") or str(REPO / "target/release/hk"),
                    help="hk binary (default: $HK_BIN, else target/release/hk)")
    ap.add_argument("--hk-rounds", type=int, default=0,
                    help="--rounds for hk bench (default: enough for --hk-min-mb per group, at least 3)")
    ap.add_argument("--hk-min-mb", type=float, default=20.0,
                    help="with automatic rounds, MB hk processes per group (default 20)")
    ap.add_argument("--no-hk", action="store_true", help="time soulstruct-havok only")
    ap.add_argument("--min-runs", type=int, default=5, help="timed soulstruct reads per file, at least (default 5)")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="seconds of timed soulstruct reads per file, at least (default 0.2)")
    ap.add_argument("--max-runs", type=int, default=1000,
                    help="timed soulstruct reads per file and process, at most")
    ap.add_argument("--forks", type=int, default=3,
                    help="separate processes that each time a file soulstruct reads (default 3)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds one soulstruct read may take before the file counts as failed (default 60)")
    ap.add_argument("--filter", metavar="REGEX", help="only files whose corpus path matches REGEX")
    ap.add_argument("--python-hk", action="store_true",
                    help="also time hk.open(data) of hk's Python package (installed in this venv) on every file")
    args = ap.parse_args()
    args.min_runs = max(3, args.min_runs)
    args.forks = max(1, args.forks)

    corpus = Path(args.corpus or os.environ.get("HK_CORPUS") or REPO.parent / "shared/corpus").resolve()
    if not corpus.is_dir():
        sys.exit(f"error: corpus folder not found: {corpus}")

    files = find_havok_files(corpus)
    if args.filter:
        rx = re.compile(args.filter)
        files = [p for p in files if rx.search(p.relative_to(corpus).as_posix())]
    if not files:
        sys.exit(f"error: no Havok files under {corpus}")

    # Fail early if hk cannot give JSON, before minutes of soulstruct timing.
    if not args.no_hk:
        if not os.access(args.hk_bin, os.X_OK):
            sys.exit(f"error: hk binary not found or not executable: {args.hk_bin}")
        smallest = min(files, key=lambda p: p.stat().st_size)
        run_hk(args.hk_bin, [smallest], 1)

    # One thread for any numeric library soulstruct pulls in; the comparison
    # is single-threaded on both sides.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    read, versions = import_soulstruct()
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    vtext = ", ".join(f"{k} {v}" for k, v in versions.items())
    log(f"{vtext}; Python {platform.python_version()}; {len(files)} Havok files under {corpus}")

    load_start = os.getloadavg()[0]
    if load_start >= 0.5:
        log(f"warning: load average {load_start:.2f} on {os.cpu_count()} cores: other work will slow both sides")
    results: list[FileResult] = []
    t_start = time.monotonic()
    for i, p in enumerate(files, 1):
        rel = p.relative_to(corpus).as_posix()
        group = p.parent.relative_to(corpus).as_posix()
        res = FileResult(path=rel, group=group, bytes=p.stat().st_size)
        time_soulstruct(res, p, read, args, ctx)
        if args.python_hk:
            res.hk_open_s = time_hk_open(p.read_bytes(), args)
        results.append(res)
        status = f"{res.mb_s:.2f} MB/s ({len(res.times_s)} runs)" if res.ok else f"skip: {res.error[:100]}"
        log(f"[{i}/{len(files)}] {rel}: {status}")
    log(f"soulstruct-havok timing took {time.monotonic() - t_start:.0f} s")
    load_end = os.getloadavg()[0]

    groups: dict[str, list[FileResult]] = {}
    for r in results:
        groups.setdefault(r.group, []).append(r)

    hk_out: dict[str, dict] = {}
    if not args.no_hk:
        for g, rs in sorted(groups.items()):
            ok = [r for r in rs if r.ok]
            if not ok:
                continue
            gbytes = sum(r.bytes for r in ok)
            rounds = hk_rounds_for(gbytes, args)
            log(f"hk bench --json --rounds {rounds} on {len(ok)} file(s) of {g}")
            out = run_hk(args.hk_bin, [corpus / r.path for r in ok], rounds)
            out["_rounds"] = rounds
            notes = []
            if int(out["files"]) != len(ok):
                notes.append(f"hk timed {out['files']} of the {len(ok)} files; its MB/s is over those")
            elif int(out["bytes"]) not in (gbytes, gbytes * rounds):
                notes.append(f"hk counted {out['bytes']} bytes, expected {gbytes}")
            if notes:
                log(f"warning: {g}: " + "; ".join(notes))
            out["_notes"] = notes
            hk_out[g] = out

    # ---- Markdown
    lines = []
    lines.append(f"Read+decode throughput, hk against {vtext} (Python {platform.python_version()}).")
    lines.append("")
    lines.append(f"Corpus: `{corpus}`; {len(files)} Havok files. soulstruct: per file, the median of the "
                 f"reads timed in {args.forks} process(es), each doing one warm-up read and then at least "
                 f"{args.min_runs} reads and {args.min_time} s, from bytes in memory (`HKX.from_bytes`). "
                 f"hk: `hk bench --json` `read_mb_s` on the same files. MB = 10^6 bytes. "
                 f"Load average {load_start:.2f} before and {load_end:.2f} after the soulstruct timing, "
                 f"{os.cpu_count()} cores (this script itself adds about 1).")
    lines.append("")
    lines.append("| group | soulstruct reads / files | MB | soulstruct MB/s | hk MB/s | hk ÷ soulstruct |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    tot_files = tot_ok = tot_bytes = 0
    tot_ss_s = tot_hk_s = 0.0
    hk_complete = True
    footnotes = []
    for g, rs in sorted(groups.items()):
        ok = [r for r in rs if r.ok]
        gbytes = sum(r.bytes for r in ok)
        ss_s = sum(r.median_s for r in ok)
        tot_files += len(rs)
        tot_ok += len(ok)
        tot_bytes += gbytes
        tot_ss_s += ss_s
        ss_rate = gbytes / MB / ss_s if ok and ss_s > 0 else None
        hk_rate = None
        mark = ""
        if g in hk_out:
            v = hk_out[g]["read_mb_s"]
            hk_rate = float(v) if v is not None and float(v) > 0 else None
            if hk_rate:
                tot_hk_s += gbytes / MB / hk_rate
            else:
                hk_complete = False
            if hk_out[g]["_notes"]:
                footnotes.append(f"{g}: " + "; ".join(hk_out[g]["_notes"]))
                mark = f" [{len(footnotes)}]"
        elif ok:
            hk_complete = False
        ratio = hk_rate / ss_rate if hk_rate and ss_rate else None
        lines.append(
            f"| {g} | {len(ok)} / {len(rs)} | {fmt(gbytes / MB if ok else None, 3)} | {fmt(ss_rate, 2)} "
            f"| {fmt(hk_rate, 1)}{mark} | {fmt(ratio, 1) + '×' if ratio else '–'} |"
        )
    ss_tot = tot_bytes / MB / tot_ss_s if tot_ss_s > 0 else None
    hk_tot = tot_bytes / MB / tot_hk_s if tot_hk_s > 0 and hk_complete and not args.no_hk else None
    ratio_tot = hk_tot / ss_tot if hk_tot and ss_tot else None
    lines.append(
        f"| **total** | **{tot_ok} / {tot_files}** | **{fmt(tot_bytes / MB, 3)}** | **{fmt(ss_tot, 2)}** "
        f"| **{fmt(hk_tot, 1)}**{' [*]' if footnotes and hk_tot else ''} "
        f"| **{fmt(ratio_tot, 1) + '×' if ratio_tot else '–'}** |"
    )
    lines.append("")
    lines.append("Total row: all bytes read ÷ the sum of per-file median times (soulstruct) or of each "
                 "group's bytes ÷ its hk MB/s (hk).")
    if footnotes:
        lines.append("")
        for n, f in enumerate(footnotes, 1):
            lines.append(f"[{n}] {f}.  ")
        if hk_tot:
            lines.append("[*] The total takes those groups' hk MB/s as if it held for all their files.")
    failed = [r for r in results if not r.ok]
    if failed:
        lines.append("")
        lines.append(f"Files soulstruct-havok does not read ({len(failed)}), by folder and reason:")
        lines.append("")
        lines.append("| group | files | reason |")
        lines.append("| --- | ---: | --- |")
        by: dict[tuple[str, str], int] = {}
        for r in failed:
            k = (r.group, reason_key(r.error))
            by[k] = by.get(k, 0) + 1
        for (g, why), n in sorted(by.items()):
            lines.append(f"| {g} | {n} | {md_cell(why)} |")
    if args.python_hk:
        every_cli = None
        if not args.no_hk:
            every = [corpus / r.path for r in results if r.hk_open_s is not None]
            rounds = hk_rounds_for(sum(p.stat().st_size for p in every), args)
            log(f"hk bench --json --rounds {rounds} on the {len(every)} files hk.open reads")
            v = run_hk(args.hk_bin, every, rounds)["read_mb_s"]
            every_cli = float(v) if v else None
        lines.extend(python_hk_lines(results, groups, hk_out, every_cli))
    print("\n".join(lines))

    if args.json:
        doc = {
            "corpus": str(corpus),
            "python": platform.python_version(),
            "versions": versions,
            "api": "soulstruct.havok.HKX.from_bytes(data)",
            "settings": {k: getattr(args, k) for k in
                         ("min_runs", "min_time", "max_runs", "forks", "timeout", "hk_bin", "hk_rounds", "hk_min_mb",
                          "no_hk")},
            "loadavg": {"start": load_start, "end": load_end, "cores": os.cpu_count()},
            "files": [asdict(r) for r in results],
            "hk": hk_out,
            "total": {"files": tot_files, "read_by_soulstruct": tot_ok, "bytes": tot_bytes,
                      "soulstruct_mb_s": ss_tot, "hk_mb_s": hk_tot},
        }
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
        log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
