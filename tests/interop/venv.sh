# Makes (or reuses) a virtualenv with soulstruct-havok from PyPI. Sourced by
# tests/interop/soulstruct.sh and bench/soulstruct.sh:
#
#   soulstruct_venv VENV    sets SOULSTRUCT_PY to the venv's python
#
# Environment: HK_SOULSTRUCT_PYTHON (interpreter to make the venv with; default
# python3.11, else python3), HK_SOULSTRUCT_HAVOK (a version to install instead
# of the pin).

soulstruct_venv() {
  local venv="$1" py="${HK_SOULSTRUCT_PYTHON:-${HK_BENCH_PYTHON:-}}"
  if [[ -z "$py" ]]; then
    for c in python3.11 python3.12 python3; do
      if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys' >/dev/null 2>&1; then py="$c"; break; fi
    done
  fi
  [[ -n "$py" ]] || { echo "error: no python3.11 or python3 found (set HK_SOULSTRUCT_PYTHON)" >&2; return 1; }
  local pyver
  pyver="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  # Pins that were seen to install and read the corpus. soulstruct-havok 1.2.3
  # and later need soulstruct >= 2.4, which needs Python >= 3.13; so Python
  # 3.11/3.12 gets 1.2.2 with soulstruct 2.3.2. colorama is imported by
  # soulstruct-havok but not declared as a dependency.
  local reqs
  case "$pyver" in
    3.11|3.12) reqs=(soulstruct-havok==1.2.2 soulstruct==2.3.2 colorama==0.4.6) ;;
    3.1[3-9])  reqs=(soulstruct-havok==1.5.0 soulstruct==2.6.0 colorama==0.4.6) ;;
    *) echo "error: soulstruct-havok needs Python >= 3.11; $py is $pyver" >&2; return 1 ;;
  esac
  local pin="${HK_SOULSTRUCT_HAVOK:-${HK_BENCH_SOULSTRUCT_HAVOK:-}}"
  if [[ -n "$pin" ]]; then reqs=("soulstruct-havok==$pin" colorama); fi

  local mark="$venv/.hk-soulstruct" want="python $pyver: ${reqs[*]}" have
  if [[ -x "$venv/bin/python" ]]; then
    have="$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
    if [[ "$have" != "$pyver" ]]; then
      if [[ -f "$mark" || -f "$venv/.hk-bench" ]]; then
        echo "soulstruct: remaking $venv for Python $pyver (was $have)" >&2
        rm -rf "$venv"
      else
        echo "error: $venv is a Python $have virtualenv that hk did not make; choose another folder" >&2
        return 1
      fi
    fi
  fi
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "soulstruct: making virtualenv $venv with $py ($pyver)" >&2
    "$py" -m venv "$venv"
  fi
  if [[ "$(cat "$mark" 2>/dev/null || true)" != "$want" ]]; then
    echo "soulstruct: pip install ${reqs[*]} (needs PyPI)" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${reqs[@]}" >&2
    printf '%s\n' "$want" >"$mark"
  fi
  "$venv/bin/python" - >&2 <<'PY'
import importlib.metadata as md, platform
v = {n: md.version(n) for n in ("soulstruct-havok", "soulstruct")}
print(f"soulstruct: soulstruct-havok {v['soulstruct-havok']} (soulstruct {v['soulstruct']}), Python {platform.python_version()}")
PY
  SOULSTRUCT_PY="$venv/bin/python"
}
