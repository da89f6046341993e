#!/usr/bin/env bash
# Tile kernels, weft vs NVIDIA Warp on the CPU and vs OpenBLAS, side by side in
# one run:   bench/tiles/run.sh [BUILD_DIR] [SIZES]     (SIZES: 256,512,1024)
# Prints both sides' measurements and `ratio` lines:
#   ratio tiles_gemm_<n>_vs_warp      Warp's time / weft's (goal at 1024: >= 20)
#   ratio tiles_gemm_<n>_vs_openblas  weft's throughput / cblas_sgemm's on the same cores (goal at 1024: >= 0.5)
#   ratio tiles_total_vs_loop         a hand-written loop's time / the tile reduction's (goal >= 0.8)
#   ratio tiles_total_vs_warp         Warp's time / weft's
# Warp's side is skipped with a message when warp-lang cannot be installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
sizes="${2:-256,512,1024}"
weft_side="$build/bin/bench_tiles"
[ -x "$weft_side" ] || { echo "tiles: $weft_side not built (cmake --build $build --target bench_tiles)" >&2; exit 2; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
out="$tmp/results"
"$weft_side" --kernels "$here/kernels.py" --cache-dir "$tmp/weft-cache" --sizes "$sizes" | tee -a "$out"
if "$here/../vs_warp/setup_warp.sh"; then
  py="${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}/bin/python"
  "$py" "$here/warp_side.py" --kernels "$here/kernels.py" --cache-dir "$tmp/warp-cache" --sizes "$sizes" 2>/dev/null |
    grep '^warp ' | tee -a "$out"
else
  echo "tiles: Warp's side skipped (warp-lang unavailable)"
fi
awk '{ side[$1, $2] = $3; keys[$2] = 1 }
  END { for (k in keys) { w = side["warp", k]; f = side["weft", k]
        if (w != "" && f != "" && f > 0) { n = k; sub(/_ms$/, "", n); printf "ratio tiles_%s_vs_warp %.2f\n", n, w / f } } }' "$out" | sort
