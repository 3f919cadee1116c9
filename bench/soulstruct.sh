#!/usr/bin/env bash
# Compare hk's read+decode speed with soulstruct-havok's on the Havok corpus.
#
#   bench/soulstruct.sh [CORPUS_DIR] [--json OUT] [more options of bench/soulstruct.py]
#
# CORPUS_DIR defaults to $HK_CORPUS, else ../shared/corpus beside the repo.
# Environment:
#   HK_BIN             hk binary (default target/release/hk, built if missing)
#   HK_BENCH_VENV      virtualenv for soulstruct-havok (default target/bench-venv)
#   HK_BENCH_PYTHON    interpreter to make it with (default python3.11, else python3)
#   HK_BENCH_SOULSTRUCT_HAVOK  soulstruct-havok version to install instead of the pin
# The Markdown table goes to stdout, progress to stderr.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HK_BENCH_VENV:-$REPO/target/bench-venv}"

PY="${HK_BENCH_PYTHON:-}"
if [[ -z "$PY" ]]; then
  for c in python3.11 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys' >/dev/null 2>&1; then PY="$c"; break; fi
  done
fi
[[ -n "$PY" ]] || { echo "error: no python3.11 or python3 found (set HK_BENCH_PYTHON)" >&2; exit 1; }
PYVER="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# Pins that were seen to install and read the corpus. soulstruct-havok 1.2.3
# and later need soulstruct >= 2.4, which needs Python >= 3.13; so Python
# 3.11/3.12 gets 1.2.2 with soulstruct 2.3.2. colorama is imported by
# soulstruct-havok but not declared as a dependency.
case "$PYVER" in
  3.11|3.12) REQS=(soulstruct-havok==1.2.2 soulstruct==2.3.2 colorama==0.4.6) ;;
  3.1[3-9])  REQS=(soulstruct-havok==1.5.0 soulstruct==2.6.0 colorama==0.4.6) ;;
  *) echo "error: soulstruct-havok needs Python >= 3.11; $PY is $PYVER" >&2; exit 1 ;;
esac
if [[ -n "${HK_BENCH_SOULSTRUCT_HAVOK:-}" ]]; then
  REQS=("soulstruct-havok==$HK_BENCH_SOULSTRUCT_HAVOK" colorama)
fi

MARK="$VENV/.hk-bench"
WANT="python $PYVER: ${REQS[*]}"
if [[ -x "$VENV/bin/python" ]]; then
  HAVE="$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
  if [[ "$HAVE" != "$PYVER" ]]; then
    if [[ -f "$MARK" ]]; then
      echo "bench: remaking $VENV for Python $PYVER (was $HAVE)" >&2
      rm -rf "$VENV"
    else
      echo "error: $VENV is a Python $HAVE virtualenv that this script did not make; set HK_BENCH_VENV" >&2
      exit 1
    fi
  fi
fi
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "bench: making virtualenv $VENV with $PY ($PYVER)" >&2
  "$PY" -m venv "$VENV"
fi
if [[ "$(cat "$MARK" 2>/dev/null || true)" != "$WANT" ]]; then
  echo "bench: pip install ${REQS[*]} (needs PyPI)" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${REQS[@]}" >&2
  printf '%s\n' "$WANT" >"$MARK"
fi
"$VENV/bin/python" - >&2 <<'EOF'
import importlib.metadata as md, platform
v = {n: md.version(n) for n in ("soulstruct-havok", "soulstruct")}
print(f"bench: soulstruct-havok {v['soulstruct-havok']} (soulstruct {v['soulstruct']}), Python {platform.python_version()}")
EOF

NO_HK=0
for a in "$@"; do [[ "$a" == --no-hk ]] && NO_HK=1; done
if [[ -z "${HK_BIN:-}" && $NO_HK == 0 ]]; then
  HK_BIN="$REPO/target/release/hk"
  if [[ ! -x "$HK_BIN" ]]; then
    echo "bench: $HK_BIN missing; cargo build --release -p hk-gen" >&2
    (cd "$REPO" && cargo build --release -p hk-gen >&2)
  fi
fi
export HK_BIN

exec "$VENV/bin/python" "$REPO/bench/soulstruct.py" "$@"
