#!/usr/bin/env bash
# Forward + backward of three kernels, weft vs NVIDIA Warp on the CPU, side by
# side in one run:   bench/autodiff/run.sh [BUILD_DIR]
# Prints both sides' measurements and `ratio <key> <weft/warp>` lines (< 1: weft faster).
# Skips with a message when warp-lang cannot be installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
weft_side="$build/bin/bench_autodiff"
[ -x "$weft_side" ] || { echo "autodiff: $weft_side not built (cmake --build $build --target bench_autodiff)" >&2; exit 2; }
"$here/../vs_warp/setup_warp.sh" || { echo "autodiff: skipped (warp-lang unavailable)"; exit 0; }
py="${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}/bin/python"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
out="$tmp/results"
"$py" "$here/warp_side.py" --kernels "$here/kernels.py" --cache-dir "$tmp/warp-cache" 2>/dev/null | grep -v '^#' >> "$out"
"$weft_side" --kernels "$here/kernels.py" --cache-dir "$tmp/weft-cache" >> "$out"
cat "$out"
awk '{ side[$1, $2] = $3; keys[$2] = 1 }
  END { for (k in keys) { w = side["warp", k]; f = side["weft", k]
        if (w != "" && f != "" && w > 0) printf "ratio %s %.4f\n", k, f / w } }' "$out" | sort
