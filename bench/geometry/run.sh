#!/usr/bin/env bash
# Geometry plugins, weft vs NVIDIA Warp on the CPU, side by side in one run:
#   bench/geometry/run.sh [BUILD_DIR] [EXTRA bench_geometry ARGS...]
# Prints both sides' measurements and `ratio` lines (Warp's time / weft's):
#   ratio geometry_rays_vs_warp       1M rays against a 200k-triangle mesh (goal >= 5: <= 0.2x Warp's time)
#   ratio geometry_mesh_build_vs_warp building that mesh's BVH (goal >= 2: <= 0.5x)
#   ratio geometry_hash_grid_vs_warp  hash-grid build + neighbour query, 1M points (goal >= 5)
# Warp's side is skipped with a message when warp-lang cannot be installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
shift || true
weft_side="$build/bin/bench_geometry"
[ -x "$weft_side" ] || { echo "geometry: $weft_side not built (cmake --build $build --target bench_geometry)" >&2; exit 2; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
out="$tmp/results"
"$weft_side" --plugins "$build/bundled-plugins" --kernels "$here/kernels.py" --cache-dir "$tmp/weft-cache" "$@" | tee -a "$out"
if "$here/../vs_warp/setup_warp.sh"; then
  py="${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}/bin/python"
  "$py" "$here/warp_side.py" --kernels "$here/kernels.py" --cache-dir "$tmp/warp-cache" "$@" 2>/dev/null |
    grep '^warp ' | tee -a "$out"
else
  echo "geometry: Warp's side skipped (warp-lang unavailable)"
fi
awk '$2 ~ /_ms$/ { side[$1, $2] = $3; keys[$2] = 1 }
  END { for (k in keys) { w = side["warp", k]; f = side["weft", k]
        if (w != "" && f != "" && f > 0) { n = k; sub(/_ms$/, "", n); printf "ratio geometry_%s_vs_warp %.2f\n", n, w / f } } }' "$out" | sort
