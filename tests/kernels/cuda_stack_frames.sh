#!/usr/bin/env bash
# Local-memory stack frames of the generated CUDA kernels, from ptxas's
# resource usage (-v) on the PTX weft builds for sm_90. saxpy and the seed
# fixtures must need none (their parameters are read in place and their
# thread index is computed in registers); every other corpus kernel's frame
# is reported (printf's argument buffer and libdevice's trigonometric range
# reduction need one legitimately).
#
#   cuda_stack_frames.sh WEFT PTXAS PLUGIN_DIR CORPUS_DIR SEED_FIXTURES.py
# Exits 77 (CTest's SKIP_RETURN_CODE here) when the toolkit has no ptxas.
set -u -o pipefail
weft=$1 ptxas=$2 plugins=$3 corpus=$4 seed=$5
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  echo "skipped: the CUDA toolkit has no ptxas to report resource usage"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WEFT_CACHE_DIR=$work/cache WEFT_PLUGIN_PATH=

# frames FILE [weft build args...]: prints "<module> <entry> <bytes>" per forward entry.
frames() {
  local file=$1; shift
  local stem; stem=$(basename "$file" .py)
  local out=$work/out-$stem
  if ! "$weft" build "$file" --plugin-path "$plugins" "$@" --target compute_90 --output-dir "$out" >"$work/log" 2>&1; then
    echo "FAILED: weft build $file" >&2
    cat "$work/log" >&2
    return 1
  fi
  "$ptxas" -arch=sm_90 -v "$out/$stem.cuda-compute_90-ptx.ptx" -o /dev/null 2>&1 |
    awk -v m="$stem" '/Function properties for/ { fn = $NF } /bytes stack frame/ { print m, fn, $1 }'
}

status=0
report=$work/report
: >"$report"
for file in "$corpus"/*.py; do
  grep -q '^# plugins:' "$file" && continue
  [ "$(basename "$file")" = external_abi.py ] && continue # its raygen is checked by the OptiX test
  frames "$file" >>"$report" || status=1
done
frames "$seed" --plugin seed_fixtures >>"$report" || status=1

entries=$(wc -l <"$report")
if [ "$entries" -lt 20 ]; then
  echo "FAILED: ptxas reported only $entries entries"
  status=1
fi
echo "entries with a stack frame (of $entries):"
awk '$3 != 0 { print "  " $1 " " $2 ": " $3 " bytes" }' "$report"
for must in saxpy seed_fixtures; do
  n=$(awk -v m="$must" '$1 == m' "$report" | wc -l)
  bad=$(awk -v m="$must" '$1 == m && $3 != 0' "$report")
  if [ "$n" -eq 0 ]; then
    echo "FAILED: no entries of $must"
    status=1
  elif [ -n "$bad" ]; then
    echo "FAILED: $must must need no stack frame:"
    echo "$bad"
    status=1
  else
    echo "$must: $n entries, 0-byte stack frames"
  fi
done
exit $status
