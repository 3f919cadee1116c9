#!/usr/bin/env bash
# The Python package's tests and the Blender add-on's, each in a virtualenv this script
# makes (docs/python.md):
#
#   1. `pip wheel ./hk-py` (maturin, from PyPI) builds the `hk` wheel once;
#   2. venv "api" (python3.11, else python3): the wheel, pytest and numpy; pytest hk-py/tests;
#   3. venv "bpy" (python3.11: bpy 5.0.1 has a CPython 3.11 wheel, ~375 MB): the wheel,
#      bpy and pytest; pytest blender/tests drives the add-on headless.
#
#   tests/python/run.sh [PYTEST_ARGS...]
#
# Environment: HK_CORPUS (default ../shared/corpus beside the repo), HK_BIN (hk binary
# the tests compare with; default: built with cargo), HK_PY_VENVS (default
# TARGET/py-venvs), PIP_CACHE_DIR (keep bpy's wheel between runs), CI (under CI=true a
# missing corpus, binary or python3.11 fails instead of skipping).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
VENVS="${HK_PY_VENVS:-$TARGET/py-venvs}"
BPY="bpy==5.0.1"
pip_q=(--quiet --disable-pip-version-check)

pick_python() {
  for c in "$@"; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys' >/dev/null 2>&1; then echo "$c"; return 0; fi
  done
  return 1
}

venv() { # venv NAME PYTHON -> prints the venv's python
  local dir="$VENVS/$1"
  if [[ -x "$dir/bin/python" ]] && ! "$dir/bin/python" -c 'import sys' >/dev/null 2>&1; then rm -rf "$dir"; fi
  [[ -x "$dir/bin/python" ]] || "$2" -m venv "$dir" >&2
  echo "$dir/bin/python"
}

if [[ -z "${HK_BIN:-}" ]]; then
  (cd "$REPO" && cargo build --quiet -p hk-gen --bin hk >&2)
  HK_BIN="$TARGET/debug/hk"
fi
export HK_BIN
mkdir -p "$VENVS"

py=$(pick_python python3.11 python3.12 python3) || { echo "python: no python3 found" >&2; exit 1; }
api=$(venv api "$py")
echo "python: building the hk wheel (pip wheel ./hk-py)" >&2
rm -rf "$VENVS/wheels"
"$api" -m pip wheel "${pip_q[@]}" --no-deps -w "$VENVS/wheels" "$REPO/hk-py" >&2
wheel=$(ls "$VENVS"/wheels/hk-*.whl)
"$api" -m pip install "${pip_q[@]}" --force-reinstall --no-deps "$wheel" >&2
"$api" -m pip install "${pip_q[@]}" pytest numpy >&2

status=0
echo "python: pytest hk-py/tests" >&2
(cd "$REPO" && "$api" -m pytest -q -p no:cacheprovider hk-py/tests "$@") || status=$?

if py311=$(pick_python python3.11); then
  bpy=$(venv bpy "$py311")
  "$bpy" -m pip install "${pip_q[@]}" "$BPY" pytest >&2
  "$bpy" -m pip install "${pip_q[@]}" --force-reinstall --no-deps "$wheel" >&2
  echo "python: pytest blender/tests (bpy $("$bpy" -c 'import bpy; print(bpy.app.version_string)' 2>/dev/null))" >&2
  (cd "$REPO" && "$bpy" -m pytest -q -p no:cacheprovider blender/tests "$@") || status=$?
elif [[ "${CI:-}" == true ]]; then
  echo "python: blender tests need python3.11 (bpy 5.0.1's wheel); CI=true requires it" >&2
  status=1
else
  echo "python: blender tests SKIPPED, no python3.11 for bpy 5.0.1" >&2
fi
exit "$status"
