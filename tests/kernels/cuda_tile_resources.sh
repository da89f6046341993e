#!/usr/bin/env bash
# CUDA resources of the tile kernels (bench/tiles' and the corpus's), from
# ptxas's report (-v) on the PTX weft builds for sm_90: every entry fits the
# static shared memory a block may have (48 KiB: its tiles share one arena,
# tiles whose lifetimes do not overlap sharing bytes) and spills nothing; the
# files before `--` (the bench's) also need no stack frame (after it, an array
# view passed to tile_load legitimately has one). Prints each entry's registers,
# shared memory and stack.
#
#   cuda_tile_resources.sh WEFT PTXAS BENCH_FILE.py... -- OTHER_FILE.py...
# Exits 77 (CTest's SKIP_RETURN_CODE here) when the toolkit has no ptxas.
set -u -o pipefail
weft=$1 ptxas=$2
shift 2
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  echo "skipped: the CUDA toolkit has no ptxas to report resource usage"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WEFT_CACHE_DIR=$work/cache WEFT_PLUGIN_PATH=
status=0
entries=0
strict=1
for file in "$@"; do
  if [ "$file" = "--" ]; then strict=0; continue; fi
  stem=$(basename "$file" .py)
  out=$work/out-$stem
  if ! "$weft" build "$file" --target compute_90 --output-dir "$out" >"$work/log" 2>&1; then
    echo "FAILED: weft build $file"; cat "$work/log"; status=1; continue
  fi
  if ! "$ptxas" -arch=sm_90 -v "$out/$stem.cuda-compute_90-ptx.ptx" -o /dev/null >"$work/ptxas" 2>&1; then
    echo "FAILED: ptxas on $stem:"; grep -i error "$work/ptxas"; status=1; continue
  fi
  report=$(awk -v m="$stem" '
    /Function properties for/ { fn = $NF }
    /bytes stack frame/ { frame = $1; spills = $5 + $9 }
    /Used [0-9]+ registers/ { smem = 0; for (i = 1; i <= NF; i++) if ($(i + 1) == "bytes" && $(i + 2) == "smem") smem = $i
                              print m, fn, $5, smem, frame, spills }' "$work/ptxas")
  while read -r module fn regs smem frame spills; do
    [ -z "$module" ] && continue
    entries=$((entries + 1))
    echo "  $module $fn: $regs registers, $smem bytes smem, $frame bytes stack, $spills bytes spilled"
    if [ "$smem" -gt 49152 ] || [ "$spills" -ne 0 ] || { [ "$strict" = 1 ] && [ "$frame" -ne 0 ]; }; then
      echo "FAILED: $module $fn must fit 48 KiB of shared memory and spill nothing$([ "$strict" = 1 ] && echo ', with no stack frame')"
      status=1
    fi
  done <<<"$report"
done
if [ "$entries" -lt 5 ]; then echo "FAILED: ptxas reported only $entries entries"; status=1; fi
exit $status
