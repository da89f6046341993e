#!/usr/bin/env bash
# weft vs NVIDIA Warp on the same kernel files, side by side in one run:
#   bench/vs_warp/run.sh [BUILD_DIR] [KERNELS_DIR]
# Prints both sides' measurements and `ratio <key> <weft/warp>` lines (< 1: weft faster).
# Skips with a message when warp-lang cannot be installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
kernels="${2:-$here/../kernels}"
weft_side="$build/bin/bench_vs_warp_weft"
[ -x "$weft_side" ] || { echo "vs_warp: $weft_side not built (cmake --build $build --target bench_vs_warp_weft)" >&2; exit 2; }
"$here/setup_warp.sh" || { echo "vs_warp: skipped (warp-lang unavailable)"; exit 0; }
py="${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}/bin/python"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
out="$tmp/results"
for mode in cold warm run edit; do
  "$py" "$here/warp_side.py" --kernels "$kernels" --mode "$mode" --cache-dir "$tmp/warp-cache" 2>/dev/null | grep -v '^#' >> "$out"
  "$weft_side" --kernels "$kernels" --mode "$mode" --cache-dir "$tmp/weft-cache" >> "$out"
done
cat "$out"
# Pair `warp KEY [FILE] V` with `weft KEY [FILE] V`; weft-only keys pair with warp's base key.
awk '
  { key = $2; if (NF == 4) key = key "_" $3; val = $NF; side[$1, key] = val; keys[key] = 1 }
  END {
    for (k in keys) {
      w = side["warp", k]; f = side["weft", k]
      if (k == "saxpy_10M_1thread_ms") w = side["warp", "saxpy_10M_ms"]
      if (index(k, "cold_compile_no_prebuilt_ms_") == 1) w = side["warp", "cold_compile_ms_" substr(k, 29)]
      if (w != "" && f != "" && w > 0) printf "ratio %s %.4f\n", k, f / w
    }
  }' "$out" | sort
