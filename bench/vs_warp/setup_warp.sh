#!/usr/bin/env bash
# Create (once) a Python venv holding warp-lang + numpy for the weft-vs-Warp
# benchmark.  The venv lives outside the repo:
#   ${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}
#
# Exit codes:
#   0  venv ready (warp + numpy importable); prints nothing when already set up
#      (unless -v), prints the warp-lang version after a fresh install.
#   3  warp-lang unavailable (no python venv support, pip failed, no network,
#      import failed, ...): "warp-lang unavailable: <reason>" on stderr, so a
#      caller can skip the Warp side.
#
# Usage: bench/vs_warp/setup_warp.sh [-v]     (-v: print python path + versions)
# Env:   WEFT_BENCH_VENV   venv directory
#        WEFT_BENCH_PYTHON base interpreter used to create the venv (default python3)
#        WEFT_BENCH_WARP_SPEC pip requirement for warp (default warp-lang)
set -u

VENV="${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}"
BASE_PY="${WEFT_BENCH_PYTHON:-python3}"
WARP_SPEC="${WEFT_BENCH_WARP_SPEC:-warp-lang}"
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1

unavailable() {
    echo "warp-lang unavailable: $*" >&2
    exit 3
}

# Quick check: is the venv already usable?
check_ready() {
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" - <<'EOF' >/dev/null 2>&1
import importlib.metadata as md, numpy, warp
md.version("warp-lang")
EOF
}

report() {
    "$VENV/bin/python" - <<'EOF'
import importlib.metadata as md, sys
print(f"python {sys.executable} {sys.version.split()[0]}")
print(f"warp-lang {md.version('warp-lang')}")
print(f"numpy {md.version('numpy')}")
EOF
}

if check_ready; then
    [ "$VERBOSE" = 1 ] && report
    exit 0
fi

LOG="$(mktemp "${TMPDIR:-/tmp}/weft-warp-setup.XXXXXX")"
trap 'rm -f "$LOG"' EXIT

if [ ! -x "$VENV/bin/python" ]; then
    command -v "$BASE_PY" >/dev/null 2>&1 || unavailable "no '$BASE_PY' interpreter on PATH"
    mkdir -p "$(dirname "$VENV")" || unavailable "cannot create $(dirname "$VENV")"
    if ! "$BASE_PY" -m venv "$VENV" >"$LOG" 2>&1; then
        rm -rf "$VENV"
        unavailable "'$BASE_PY -m venv $VENV' failed: $(tail -n 1 "$LOG")"
    fi
fi

if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "$WARP_SPEC" numpy >"$LOG" 2>&1; then
    reason="$(grep -E 'ERROR|error' "$LOG" | tail -n 1)"
    [ -n "$reason" ] || reason="$(tail -n 1 "$LOG")"
    unavailable "pip install $WARP_SPEC numpy failed (no network?): $reason"
fi

if ! check_ready; then
    err="$("$VENV/bin/python" -c 'import warp' 2>&1 | tail -n 1)"
    unavailable "installed but 'import warp' fails: $err"
fi

report
exit 0
