#!/usr/bin/env bash
# The GPU check: configures and builds what the CUDA tests and benches need,
# runs them, prints a summary, exits nonzero on any failure. Works on a
# machine without a GPU too (device tests are then reported Skipped by CTest);
# where nvidia-smi sees a GPU, any skipped test is a failure: every device
# test must have run.
#
#   tests/gpu/check.sh                    # build in build/, run everything
#   BUILD_DIR=build-gpu tests/gpu/check.sh
#   JOBS=4 TIME_LIMIT=480 tests/gpu/check.sh
#
# Steps (each bounded so the whole stays under TIME_LIMIT seconds, default 470):
#   1. cmake configure (Ninja when available) + build the CUDA test targets and
#      bench_cuda_compile (when the bench is configured);
#   2. ctest -R 'gpu\.|backend\.cuda|kernels\.cuda|e2e|examples\.sync_consumer';
#   3. examples/sync_consumer (its EGL part runs where NVIDIA's EGL is there);
#   4. build/bin/bench_cuda_compile and bench_cuda_launch, when they were built.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
TIME_LIMIT=${TIME_LIMIT:-470}
TEST_REGEX=${TEST_REGEX:-'gpu\.|backend\.cuda|kernels\.cuda|e2e|examples\.sync_consumer'}
LOG_DIR=$BUILD_DIR/gpu-check
START=$(date +%s)
failures=()

left() { echo $((TIME_LIMIT - ($(date +%s) - START))); }
step() { printf '\n== %s (%ss left)\n' "$1" "$(left)"; }
bounded() { # bounded SECONDS CMD...: runs CMD, at most SECONDS (and never past the overall limit)
  local limit=$1; shift
  local rest; rest=$(left)
  ((limit > rest)) && limit=$rest
  if ((limit <= 5)); then echo "(no time left for: $*)"; return 124; fi
  timeout --kill-after=10 "$limit" "$@"
}

# --- the device -------------------------------------------------------------
device="none (no nvidia-smi)"
arch=""
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1; then
  if info=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -1) &&
     [ -n "$info" ]; then
    device=$info
    have_gpu=1
    cap=$(echo "$info" | awk -F', *' '{print $3}')
    [[ $cap =~ ^[0-9]+\.[0-9]+$ ]] && arch=${cap/./}
  else
    device="none (nvidia-smi found no GPU)"
  fi
fi
echo "weft GPU check: device: $device"

# --- build ------------------------------------------------------------------
mkdir -p "$BUILD_DIR"
step "configure $BUILD_DIR"
generator=()
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
if ! bounded 180 cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" -DWEFT_BUILD_TESTS=ON >"$BUILD_DIR/gpu-check-configure.log" 2>&1; then
  tail -40 "$BUILD_DIR/gpu-check-configure.log"
  echo "FAILED: cmake configure (log: $BUILD_DIR/gpu-check-configure.log)"
  exit 1
fi
mkdir -p "$LOG_DIR"
targets=(weft_gpu_tests sync_consumer)
all_targets=$(cmake --build "$BUILD_DIR" --target help 2>/dev/null || true)
for t in weft_backend_cuda_tests kernel_suite weft_e2e_tests weft_stream_gpu_tests bench_cuda_compile bench_cuda_launch; do
  if grep -Eq "(^|[[:space:]])$t(:|[[:space:]]|$)" <<<"$all_targets"; then targets+=("$t"); fi
done
step "build ${targets[*]} (-j$JOBS)"
if ! bounded 330 cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}" >"$LOG_DIR/build.log" 2>&1; then
  grep -E "error|Error|FAILED" "$LOG_DIR/build.log" | head -40
  echo "FAILED: build (log: $LOG_DIR/build.log)"
  exit 1
fi
echo "built"

# --- tests ------------------------------------------------------------------
step "ctest -R '$TEST_REGEX'"
ctest_rc=0
bounded 400 ctest --test-dir "$BUILD_DIR" -R "$TEST_REGEX" -j "$JOBS" -V --timeout 300 >"$LOG_DIR/ctest.log" 2>&1 ||
  ctest_rc=$?
# A test that cannot run here exits 77 ("skipped: <reason>"), which CTest
# reports as "***Skipped"; ctest -V prefixes each test's output with "<number>: ".
total=$(grep -Ec '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$LOG_DIR/ctest.log")
passed=$(grep -Ec '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$LOG_DIR/ctest.log")
skipped_lines=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$LOG_DIR/ctest.log" || true)
skipped=$(grep -c . <<<"$skipped_lines" || true)
[ -z "$skipped_lines" ] && skipped=0
failed_lines=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$LOG_DIR/ctest.log" | grep -Ev ' Passed|\*\*\*Skipped' || true)
failed=$((total - passed - skipped))
skip_reasons=$(grep -Eo 'skipped: .*' "$LOG_DIR/ctest.log" | sort | uniq -c | sort -rn | head -5)
if ((ctest_rc != 0)); then failures+=("ctest (rc $ctest_rc)"); fi
if ((total == 0)); then failures+=("ctest ran no tests"); fi
if ((have_gpu && skipped > 0)); then
  # On a GPU machine a skip hides a device path that did not run: fail loudly.
  echo "SKIPPED on a machine with a GPU ($device):"
  echo "$skipped_lines"
  failures+=("$skipped tests skipped although nvidia-smi sees a GPU")
fi
if [ -n "$failed_lines" ]; then
  echo "failed tests:"
  echo "$failed_lines"
  # The output of each failed test.
  grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$LOG_DIR/ctest.log" | grep -Ev ' Passed' |
    sed -E 's/^ *[0-9]+\/[0-9]+ Test +#([0-9]+):.*/\1/' | head -5 | while read -r id; do
      echo "--- output of test #$id (last 30 lines)"
      grep -E "^$id: " "$LOG_DIR/ctest.log" | tail -30
    done
fi

# --- the example ---------------------------------------------------------------
example_summary="sync_consumer: not built"
if [ -x "$BUILD_DIR/bin/sync_consumer" ]; then
  step "examples/sync_consumer"
  if WEFT_CACHE_DIR=$BUILD_DIR/gpu-check/sync_consumer_cache bounded 120 "$BUILD_DIR/bin/sync_consumer" 8 \
    >"$LOG_DIR/sync_consumer.log" 2>&1; then
    example_summary="sync_consumer: ok ($(grep -E '^egl: ' "$LOG_DIR/sync_consumer.log" | head -1))"
    # Without NVIDIA's EGL the EGL part may not run; without CUDA on a GPU machine something is wrong.
    if ((have_gpu)) && grep -q '^egl: not run: .*CUDA' "$LOG_DIR/sync_consumer.log"; then
      example_summary="sync_consumer: its CUDA part did not run although nvidia-smi sees a GPU"
      failures+=("sync_consumer without CUDA")
    fi
  else
    rc=$?
    example_summary="sync_consumer: FAILED (rc $rc)"
    failures+=("sync_consumer (rc $rc)")
  fi
  cat "$LOG_DIR/sync_consumer.log"
fi

# --- benches ----------------------------------------------------------------
bench_summary="bench_cuda_compile: not built"
bench=$BUILD_DIR/bin/bench_cuda_compile
if [ -x "$bench" ]; then
  step "bench_cuda_compile"
  bench_args=(--repeat 3 --kernels "$ROOT/bench/kernels")
  [ -n "$arch" ] && bench_args+=(--arch "$arch")
  if ! python3 -c 'import warp' >/dev/null 2>&1; then bench_args+=(--no-warp); fi
  if bounded 120 "$bench" "${bench_args[@]}" >"$LOG_DIR/bench_cuda_compile.log" 2>&1; then
    bench_summary="bench_cuda_compile: ok (log: $LOG_DIR/bench_cuda_compile.log)"
    cat "$LOG_DIR/bench_cuda_compile.log"
  else
    rc=$?
    tail -20 "$LOG_DIR/bench_cuda_compile.log"
    bench_summary="bench_cuda_compile: FAILED (rc $rc)"
    failures+=("bench_cuda_compile (rc $rc)")
  fi
fi

launch_summary="bench_cuda_launch: not built"
launch_bench=$BUILD_DIR/bin/bench_cuda_launch
if [ -x "$launch_bench" ]; then
  step "bench_cuda_launch"
  if bounded 120 "$launch_bench" >"$LOG_DIR/bench_cuda_launch.log" 2>&1; then
    launch_summary="bench_cuda_launch: ok (log: $LOG_DIR/bench_cuda_launch.log)"
    cat "$LOG_DIR/bench_cuda_launch.log"
    if ((have_gpu)) && grep -q '^skipped:' "$LOG_DIR/bench_cuda_launch.log"; then
      launch_summary="bench_cuda_launch: SKIPPED although nvidia-smi sees a GPU"
      failures+=("bench_cuda_launch skipped")
    fi
  else
    rc=$?
    tail -20 "$LOG_DIR/bench_cuda_launch.log"
    launch_summary="bench_cuda_launch: FAILED (rc $rc)"
    failures+=("bench_cuda_launch (rc $rc)")
  fi
fi

# --- summary ----------------------------------------------------------------
printf '\n== summary\n'
echo "device:  $device"
echo "tests:   $total run, $passed passed, $failed failed, $skipped skipped"
[ -n "$skip_reasons" ] && echo "skip reasons:" && echo "$skip_reasons"
echo "$example_summary"
echo "$bench_summary"
echo "$launch_summary"
echo "logs:    $LOG_DIR"
echo "time:    $(($(date +%s) - START)) s"
if ((${#failures[@]})); then
  echo "RESULT: FAILED: ${failures[*]}"
  exit 1
fi
echo "RESULT: ok"
