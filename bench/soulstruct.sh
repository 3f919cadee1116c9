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
# (the virtualenv is made by tests/interop/venv.sh, as for the interop check)
# With --python-hk, hk's Python package (hk-py, `pip install ./hk-py`, maturin) goes into
# the same virtualenv and `hk.open` is timed on every file too.
# The Markdown table goes to stdout, progress to stderr.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HK_BENCH_VENV:-$REPO/target/bench-venv}"

# shellcheck source=../tests/interop/venv.sh
source "$REPO/tests/interop/venv.sh"
soulstruct_venv "$VENV"

NO_HK=0
for a in "$@"; do
  [[ "$a" == --no-hk ]] && NO_HK=1
  if [[ "$a" == --python-hk ]]; then
    echo "bench: pip install ./hk-py into $VENV (maturin, release build)" >&2
    "$SOULSTRUCT_PY" -m pip install --quiet --disable-pip-version-check --force-reinstall "$REPO/hk-py" >&2
  fi
done
if [[ -z "${HK_BIN:-}" && $NO_HK == 0 ]]; then
  HK_BIN="$REPO/target/release/hk"
  if [[ ! -x "$HK_BIN" ]]; then
    echo "bench: $HK_BIN missing; cargo build --release -p hk-gen" >&2
    (cd "$REPO" && cargo build --release -p hk-gen >&2)
  fi
fi
export HK_BIN

exec "$SOULSTRUCT_PY" "$REPO/bench/soulstruct.py" "$@"
