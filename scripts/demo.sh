#!/usr/bin/env bash
# The main job: discover the bundled plugins (manifests only), inspect one,
# check them together for conflicts, then run an application that composes
# them: weft_demo loads colors and philox, compiles two kernel modules that use
# them and launches them on the CPU. It runs twice over one artifact cache:
# the first run compiles every module, the second takes every one from the cache.
set -euo pipefail
build=${1:-build}
weft="$build/bin/weft"
demo="$build/bin/weft_demo"
plugins="$build/bundled-plugins"
cache="$build/demo-cache"

step() { printf '\n== %s\n' "$*"; }

step "weft plugin list (reads manifests; opens no library)"
"$weft" plugin list --plugin-path "$plugins"

step "weft plugin inspect colors"
"$weft" plugin inspect "$plugins/colors"

step "weft plugin check (every plugin on the search path: alone, pairwise, then together)"
"$weft" plugin check --plugin-path "$plugins"

step "weft_demo, first run (fresh artifact cache $cache: every module compiles)"
rm -rf "$cache"
"$demo" --plugins "$plugins" --cache "$cache"

step "weft_demo, second run (same cache: every module is cached, nothing compiles)"
"$demo" --plugins "$plugins" --cache "$cache" --expect-cached
