#!/usr/bin/env bash
# How much Warp-style code weft runs, per language-feature family:
#   bench/warp_style/run.sh [BUILD_DIR] [FILE.py ...]
# Runs every program of bench/warp_style/<family>/ in warp-lang (the ground
# truth), checks it with `weft check`, launches it with `kernel_suite run` and
# compares the arrays with warp-lang's. Prints one line per program, a table per
# family and `ratio warp_style_<family> <fraction that runs and agrees>` lines.
# Skips with a message when warp-lang cannot be installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
shift || true
for tool in "$build/bin/weft" "$build/tests/tools/kernel_suite"; do
  [ -x "$tool" ] || { echo "warp_style: $tool not built (cmake --build $build --target weft_cli kernel_suite)" >&2; exit 2; }
done
"$here/../vs_warp/setup_warp.sh" || { echo "warp_style: skipped (warp-lang unavailable)"; exit 0; }
py="${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}/bin/python"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
WEFT_WARP_STYLE_CACHE="${WEFT_WARP_STYLE_CACHE:-$tmp/warp-cache}" "$py" "$here/warp_style.py" "$build" "$@"
