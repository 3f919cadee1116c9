#!/usr/bin/env bash
# Interop check: soulstruct-havok (a Python reader, installed from PyPI into a
# virtualenv this script makes) reads what hk writes, and decodes it to the same
# tree as the file hk wrote it from. See tests/interop/README.md.
#
#   tests/interop/soulstruct.sh [CORPUS_DIR] [options of soulstruct.py]
#
# CORPUS_DIR defaults to $HK_CORPUS, else ../shared/corpus beside the repo.
# Environment: HK_BIN (hk binary; default: built with cargo into the target
# folder), HK_INTEROP_VENV (default TARGET/interop-venv).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=venv.sh
source "$REPO/tests/interop/venv.sh"

TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
soulstruct_venv "${HK_INTEROP_VENV:-$TARGET/interop-venv}"

if [[ -z "${HK_BIN:-}" ]]; then
  (cd "$REPO" && cargo build --quiet -p hk-gen --bin hk >&2)
  HK_BIN="$TARGET/debug/hk"
fi
export HK_BIN
exec "$SOULSTRUCT_PY" "$REPO/tests/interop/soulstruct.py" "$@"
